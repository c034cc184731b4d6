/* config.c - defaults for struct run_config. */
#include "runtime/config.h"

#include <string.h>
#include <unistd.h>

#include "net/wire.h"

void config_defaults(struct run_config *c) {
  memset(c, 0, sizeof *c);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  c->n_workers = cores > 0 ? (uint32_t)cores : 1;
  c->n_servers = 1;
  c->tasks_per_worker = 16;
  /* DSANA itself is the default; --mode bsp is the baseline to compare with */
  c->mode = MODE_DSANA;
  c->sched = SCHED_DYNAMIC;
  c->chunk = CHUNK_AUTO;
  c->register_timeout_s = 30.0;
  c->peer_timeout_s = 5.0;
  c->heartbeat_s = 0.5;
  c->max_payload_bytes = WIRE_DEFAULT_MAX_PAYLOAD;
  strcpy(c->bind_host, "127.0.0.1");
}

uint64_t config_values_per_msg(uint64_t max_payload) {
  uint64_t n = max_payload / sizeof(double);
  return n > (1u << 19) ? 1u << 19 : n;
}

const char *run_mode_name(enum run_mode m) { return m == MODE_DSANA ? "dsana" : "bsp"; }
