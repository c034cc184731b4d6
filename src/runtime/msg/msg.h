/*
 * msg.h - payloads of the runtime's control messages, their encoders and
 * decoders (on top of codec.h). Decoders validate every field they read; a
 * payload that does not decode exactly is a protocol error, never trusted.
 *
 *   REGISTER      role, requested index, listen address, host, pid
 *   CLUSTER_MAP   the run's shape and options, the app and its arguments,
 *                 every server's address
 *   ITER_START    / ITER_END: DSANA_MAX_GLOBALS doubles
 *   TASKS         hdr.count task ids (u32)
 *   TASK_DONE     hdr.count records: task, timings, bytes, the task's sums
 *   SHARD_REPORT  the shard's sums
 */
#ifndef DSANA_RUNTIME_MSG_H
#define DSANA_RUNTIME_MSG_H

#include <stdint.h>

#include "dsana/dsana.h"
#include "runtime/core/config.h"

#define MSG_MAX_SERVERS 1024
#define MSG_MAX_ARGS 64
#define MSG_ARG_MAX 1024
#define MSG_NAME_MAX 64

struct msg_register {
  uint32_t role;              /* enum rt_role */
  uint32_t index;             /* requested index or UINT32_MAX for any */
  char addr[CONFIG_ADDR_MAX]; /* servers: where workers reach them */
  char host[64];
  uint32_t pid;
  uint32_t threads; /* workers: compute threads, 1..MSG_MAX_THREADS (servers: 0) */
};
#define MSG_MAX_THREADS 1024

/* The app's command-line arguments, forwarded to roles started alone. */
struct app_args {
  uint32_t n;
  char name[MSG_MAX_ARGS][MSG_NAME_MAX]; /* "" = positional */
  char value[MSG_MAX_ARGS][MSG_ARG_MAX];
};

#define MSG_MAX_WORKERS 4096 /* rt_dial_id() has 12 bits for the index */

/* map flags */
#define MAP_F_FETCH_AHEAD 1u /* workers may fetch iteration t+1's input during t */
#define MAP_F_LOCAL 2u       /* dsana_job_info.local */
#define MAP_F_COMPRESS 4u    /* workers ask for compressed answers (WIRE_F_ZSTD), not shared buffers */
#define MAP_F_TASKS_AUTO 8u  /* dsana_job_info.tasks_auto */
#define MAP_F_ALL \
  (MAP_F_FETCH_AHEAD | MAP_F_LOCAL | MAP_F_COMPRESS | MAP_F_TASKS_AUTO) /* a map with others is refused */

struct msg_cluster_map {
  uint32_t n_servers, n_workers, your_index;
  uint32_t sched, tasks_per_worker, flags;
  uint32_t n_spaces;
  uint64_t chunk_keys[DSANA_MAX_TABLES]; /* per key space; 0 = whole tables */
  double peer_timeout_s, heartbeat_s;
  uint64_t max_payload;
  char app[MSG_NAME_MAX];
  char scenario_path[CONFIG_PATH_MAX];
  char trace_path[CONFIG_PATH_MAX];     /* "" = no trace */
  char checkpoint_dir[CONFIG_PATH_MAX]; /* "" = no checkpoints */
  uint32_t checkpoint_every;
  char resume_dir[CONFIG_PATH_MAX];
  uint32_t resume_iter; /* > 0: servers load their shards of this iteration */
  struct app_args args;
  char server_addr[MSG_MAX_SERVERS][CONFIG_ADDR_MAX]; /* heap-allocate this struct */
};

struct msg_task_done {
  uint32_t task;
  uint64_t compute_ns; /* modelled: emulated slowdown included */
  uint64_t setup_ns;   /* of compute_ns, task_begin()'s (set-up on this worker, e.g. laying out
                        * its blocks the first time): not the task's speed */
  uint64_t idle_ns;    /* between the previous task's end and this one's start */
  uint64_t bytes_in, bytes_out;
  uint64_t overlap_ns;   /* computing while its input was still arriving */
  uint64_t overrun_ns;   /* real compute beyond the modelled time (emulate.h) */
  uint64_t bytes_in_raw; /* bytes_in before compression (header + values) */
  dsana_xsum sums[DSANA_MAX_SUMS];
};

int msg_register_encode(const struct msg_register *m, uint8_t *buf, size_t cap, size_t *len);
int msg_register_decode(const void *p, size_t len, struct msg_register *m);
int msg_map_encode(const struct msg_cluster_map *m, uint8_t *buf, size_t cap, size_t *len);
int msg_map_decode(const void *p, size_t len, struct msg_cluster_map *m);

/* Bytes of one TASK_DONE record with n_sums sums. */
size_t msg_task_done_bytes(uint32_t n_sums);
void msg_task_done_encode(const struct msg_task_done *m, uint32_t n_sums, uint8_t *buf);
void msg_task_done_decode(const uint8_t *buf, uint32_t n_sums, struct msg_task_done *m);

#define MSG_XSUM_BYTES 32 /* an exact sum: its low 128 bits, high 64, flags (little-endian words) */
void msg_sums_encode(const dsana_xsum *sums, uint32_t n, uint8_t *buf); /* MSG_XSUM_BYTES each */
void msg_sums_decode(const uint8_t *buf, uint32_t n, dsana_xsum *sums);
#define MSG_GLOBALS_BYTES (8 * DSANA_MAX_GLOBALS)
void msg_globals_encode(const double g[DSANA_MAX_GLOBALS], uint8_t buf[MSG_GLOBALS_BYTES]);
void msg_globals_decode(const uint8_t buf[MSG_GLOBALS_BYTES], double g[DSANA_MAX_GLOBALS]);

#endif
