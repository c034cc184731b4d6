/*
 * config.h - everything a run of the runtime is configured with, filled by
 * the CLI and read by every role. Plain data; no allocation.
 */
#ifndef DSANA_RUNTIME_CONFIG_H
#define DSANA_RUNTIME_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/chunk.h"
#include "policy/compress.h"
#include "policy/sched.h"
#include "runtime/core/fault.h"

#define CONFIG_PATH_MAX 1024
#define CONFIG_ADDR_MAX 256
#define CONFIG_IDENTITY_MAX 8192
/* What a loaded server or worker pre-faults in each of its threads' heaps
 * (heap_prefault, util/memory/bigmem.h): more than the message buffers either
 * role allocated in the first iterations of a 4-worker p2p-Gnutella31 run
 * (at most 123 pages, 0.5 MiB), for up to 4 roles of its kind; with more,
 * each one's share of the tables, and of those buffers, is smaller
 * (config_heap_pad). A pad for every thread of 64 workers was 128 MiB, a
 * fifth of the job's CPU time on this VM (11 us a page). */
#define CONFIG_HEAP_PAD_BYTES ((size_t)1 << 20)

/* The pad of a role with `peers` roles of its kind (workers or servers). */
static inline size_t config_heap_pad(uint32_t peers) {
  return peers <= 4 ? CONFIG_HEAP_PAD_BYTES : CONFIG_HEAP_PAD_BYTES / peers * 4;
}

enum run_mode { MODE_BSP = 0, MODE_DSANA = 1 };

/* How the roles of a job on one machine are separated (--isolate). */
enum { ISOLATE_AUTO = 0, ISOLATE_PROCESSES, ISOLATE_THREADS };

struct run_config {
  uint32_t n_workers, n_servers;
  uint32_t tasks_per_worker;
  bool tasks_per_worker_set; /* --tasks-per-worker given: apps declare exactly that many */
  enum run_mode mode;
  enum sched_kind sched;
  bool sched_set; /* --sched given explicitly (overrides --mode) */
  enum chunk_mode chunk;
  bool chunk_set;              /* --chunk given explicitly (overrides --mode) */
  uint64_t chunk_bytes;        /* CHUNK_FIXED */
  enum compress_mode compress; /* --compress (default auto) */
  char scenario_path[CONFIG_PATH_MAX];
  char metrics_path[CONFIG_PATH_MAX];
  char trace_path[CONFIG_PATH_MAX];     /* Chrome trace JSON; roles write parts */
  char scheduler_addr[CONFIG_ADDR_MAX]; /* where the scheduler listens */
  char bind_host[CONFIG_ADDR_MAX];      /* servers' listen host (tcp) */
  char local_dir[CONFIG_PATH_MAX];      /* local mode: the job's private folder (ipc endpoints, buffers) */
  char transport[16];                   /* --transport: "" = by address, "mpi" = under mpirun */
  uint8_t isolate;                      /* --isolate: ISOLATE_*, how a local job's roles are separated */
  uint32_t threads;                     /* compute threads per worker (0 = automatic: config_auto_threads) */
  bool quiet;
  bool fail_on_worker_loss;
  uint32_t max_restarts;            /* automatic recoveries of a lost server (or scheduler, local launcher) */
  bool server_loss_rollback;        /* the scheduler run alone: a lost server rolls every role back (sch_rollback) */
  bool start_without_workers;       /* a rolled-back run: start without workers that do not register again */
  char token_path[CONFIG_PATH_MAX]; /* --token-file */
  char checkpoint_dir[CONFIG_PATH_MAX]; /* --checkpoint */
  uint32_t checkpoint_every;            /* iterations between checkpoints */
  char resume_dir[CONFIG_PATH_MAX];     /* --resume */
  uint32_t resume_iter;                 /* > 0: continue after this iteration */
  double resume_globals[512], resume_residual;
  char job_identity[CONFIG_IDENTITY_MAX]; /* what defines the result (app, its parameters, its
                                           * inputs' sizes and checksums), recorded in checkpoints */
  char curve_secret[48];                  /* derived from the token; "" = clear */
  double register_timeout_s;
  double peer_timeout_s;
  double heartbeat_s;
  /* a server runs finish() and update() over pieces of at most this many
   * keys, with a heartbeat between pieces when one is due (tests: small) */
  uint64_t hook_piece_keys;
  uint64_t max_payload_bytes;
  uint64_t max_keys; /* per table; 0 = no limit */
  int verbose;
  struct fault_plan fault; /* fault injection for tests (fault.h): the command line reads DSANA_FAULT */
};

void config_defaults(struct run_config *c);
/* The tasks a worker gets in an iteration: --tasks-per-worker when given;
 * else the default (16, or CONFIG_TASKS_PER_THREAD a compute thread when
 * that is more: a task runs on one thread, and a machine of many threads
 * needs several rounds of them for a slow one's share to come out even),
 * lowered so that the job holds at most CONFIG_TASKS_PER_SERVER tasks a
 * server (each task's push is a message that the servers it writes take,
 * and a worker's emulated task a wake-up: 64 workers x 16 tasks cost 2
 * servers more than the iteration they coordinate), never below
 * CONFIG_TASKS_PER_WORKER_MIN (the dynamic scheduler's room to balance)
 * nor one a thread. What every role and the simulator use. */
#define CONFIG_TASKS_PER_SERVER 256u
#define CONFIG_TASKS_PER_WORKER_MIN 4u
#define CONFIG_TASKS_PER_THREAD 4u
uint32_t config_tasks_per_worker(const struct run_config *c);
/* Compute threads for a worker sharing this machine's cores with
 * workers_here - 1 others: an even share, at least 1. */
uint32_t config_auto_threads(uint32_t workers_here);
/* The default layout of a job launched on this machine: unless the worker
 * count was chosen (--workers, a scenario's count), one worker that
 * computes on every core (the fastest correct layout on one machine: one
 * copy of the read tables, no transfers between workers); without
 * --threads, each worker gets its share of the cores. */
void config_local_layout(struct run_config *c, bool workers_chosen);
/* Where a resumed run continues (resume_dir is set apart): after
 * iteration iter, with the globals (resume_globals' length) and residual
 * a checkpoint recorded for it. */
void config_set_resume_point(struct run_config *c, uint32_t iter, const double *globals, double residual);
const char *run_mode_name(enum run_mode m);
/* Values per message: what a payload limit of max_payload bytes allows,
 * at most 512 Ki (4 MiB) so that large tables stream in pieces. */
uint64_t config_values_per_msg(uint64_t max_payload);

#endif
