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

#define CONFIG_PATH_MAX 1024
#define CONFIG_ADDR_MAX 256

enum run_mode { MODE_BSP = 0, MODE_DSANA = 1 };

struct run_config {
  uint32_t n_workers, n_servers;
  uint32_t tasks_per_worker;
  enum run_mode mode;
  enum sched_kind sched;
  bool sched_set; /* --sched given explicitly (overrides --mode) */
  enum chunk_mode chunk;
  bool chunk_set;      /* --chunk given explicitly (overrides --mode) */
  uint64_t chunk_bytes; /* CHUNK_FIXED */
  enum compress_mode compress; /* --compress (default auto) */
  char scenario_path[CONFIG_PATH_MAX];
  char metrics_path[CONFIG_PATH_MAX];
  char trace_path[CONFIG_PATH_MAX]; /* Chrome trace JSON; roles write parts */
  char scheduler_addr[CONFIG_ADDR_MAX]; /* where the scheduler listens */
  char bind_host[CONFIG_ADDR_MAX];      /* servers' listen host (tcp) */
  char local_dir[CONFIG_PATH_MAX];      /* local mode: the job's private folder (ipc endpoints, buffers) */
  char transport[16];                   /* --transport: "" = by address, "mpi" = under mpirun */
  uint32_t threads;                     /* compute threads per worker (0 = automatic) */
  bool quiet;
  bool fail_on_worker_loss;
  char token_path[CONFIG_PATH_MAX]; /* --token-file */
  char checkpoint_dir[CONFIG_PATH_MAX]; /* --checkpoint */
  uint32_t checkpoint_every;            /* iterations between checkpoints */
  char resume_dir[CONFIG_PATH_MAX];     /* --resume */
  uint32_t resume_iter;                 /* > 0: continue after this iteration */
  double resume_globals[512], resume_residual;
  char curve_secret[48];                /* derived from the token; "" = clear */
  double register_timeout_s;
  double peer_timeout_s;
  double heartbeat_s;
  uint64_t max_payload_bytes;
  uint64_t max_keys; /* per table; 0 = no limit */
  int verbose;
};

void config_defaults(struct run_config *c);
const char *run_mode_name(enum run_mode m);
/* Values per message: what a payload limit of max_payload bytes allows,
 * at most 512 Ki (4 MiB) so that large tables stream in pieces. */
uint64_t config_values_per_msg(uint64_t max_payload);

#endif
