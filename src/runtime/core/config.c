/* config.c - defaults for struct run_config and the local layout. */
#define _GNU_SOURCE
#include "runtime/core/config.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "net/wire/wire.h"

/* The cores this process may run on (its CPU affinity), at least 1. */
static uint32_t config_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return (uint32_t)CPU_COUNT(&set);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (uint32_t)cores : 1;
}

void config_defaults(struct run_config *c) {
  memset(c, 0, sizeof *c);
  c->n_workers = config_cores();
  c->n_servers = 1;
  c->tasks_per_worker = 16;
  /* DSANA itself is the default; --mode bsp is the baseline to compare with */
  c->mode = MODE_DSANA;
  c->sched = SCHED_DYNAMIC;
  c->chunk = CHUNK_AUTO;
  c->register_timeout_s = 30.0;
  c->peer_timeout_s = 5.0;
  c->max_restarts = 3;
  c->heartbeat_s = 0.5;
  c->hook_piece_keys = 32768;
  c->max_payload_bytes = WIRE_DEFAULT_MAX_PAYLOAD;
  strcpy(c->bind_host, "127.0.0.1");
}

uint64_t config_values_per_msg(uint64_t max_payload) {
  uint64_t n = max_payload / sizeof(double);
  return n > (1u << 19) ? 1u << 19 : n;
}

uint32_t config_tasks_per_worker(const struct run_config *c) {
  if (c->tasks_per_worker_set || c->n_workers == 0)
    return c->tasks_per_worker;
  uint64_t threads = c->threads ? c->threads : 1, want = c->tasks_per_worker;
  if (threads > 1 && CONFIG_TASKS_PER_THREAD * threads > want) /* one thread: the default as it is */
    want = CONFIG_TASKS_PER_THREAD * threads;
  uint64_t fit = (uint64_t)CONFIG_TASKS_PER_SERVER * (c->n_servers ? c->n_servers : 1) / c->n_workers;
  uint64_t floor =
      c->tasks_per_worker < CONFIG_TASKS_PER_WORKER_MIN ? c->tasks_per_worker : CONFIG_TASKS_PER_WORKER_MIN;
  floor = floor > threads ? floor : threads; /* a task for every compute thread */
  uint64_t t = fit < want ? fit : want;
  t = t > floor ? t : floor;
  return t < UINT32_MAX ? (uint32_t)t : UINT32_MAX;
}

const char *run_mode_name(enum run_mode m) { return m == MODE_DSANA ? "dsana" : "bsp"; }

uint32_t config_auto_threads(uint32_t workers_here) {
  uint32_t cores = config_cores();
  return workers_here && cores > workers_here ? cores / workers_here : 1;
}

void config_local_layout(struct run_config *c, bool workers_chosen) {
  if (!workers_chosen)
    c->n_workers = 1;
  if (!c->threads)
    c->threads = config_auto_threads(c->n_workers);
}

void config_set_resume_point(struct run_config *c, uint32_t iter, const double *globals, double residual) {
  c->resume_iter = iter;
  memcpy(c->resume_globals, globals, sizeof c->resume_globals);
  c->resume_residual = residual;
}
