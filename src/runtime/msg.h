/*
 * msg.h - payloads of the runtime's control messages, and their encoders and
 * decoders (on top of codec.h). Decoders validate every field they read; a
 * payload that does not decode exactly is a protocol error, never trusted.
 */
#ifndef DSANA_RUNTIME_MSG_H
#define DSANA_RUNTIME_MSG_H

#include <stdint.h>

#include "dsana/dsana.h"
#include "runtime/config.h"

#define MSG_MAX_SERVERS 1024
#define MSG_MAX_ARGS 64
#define MSG_ARG_MAX 1024
#define MSG_NAME_MAX 64

enum node_role { ROLE_SCHEDULER = 0, ROLE_SERVER = 1, ROLE_WORKER = 2 };
const char *node_role_name(enum node_role r);

struct msg_register {
  uint32_t role;  /* enum node_role */
  uint32_t index; /* requested index or UINT32_MAX for any */
  char addr[CONFIG_ADDR_MAX]; /* servers: where workers reach them */
};

/* The app's command-line arguments, forwarded to standalone roles. */
struct app_args {
  uint32_t n;
  char name[MSG_MAX_ARGS][MSG_NAME_MAX]; /* "" = positional */
  char value[MSG_MAX_ARGS][MSG_ARG_MAX];
};

struct msg_cluster_map {
  uint32_t n_servers, n_workers, your_index;
  uint32_t mode, sched, tasks_per_worker;
  uint64_t chunk_keys; /* keys per transfer chunk, 0 = whole table */
  double peer_timeout_s, heartbeat_s;
  char app[MSG_NAME_MAX];
  char scenario_path[CONFIG_PATH_MAX];
  char trace_path[CONFIG_PATH_MAX]; /* "" = no trace */
  char checkpoint_dir[CONFIG_PATH_MAX]; /* "" = no checkpoints */
  uint32_t checkpoint_every;
  char resume_dir[CONFIG_PATH_MAX];
  uint32_t resume_iter; /* > 0: servers load their shards of this iteration */
  struct app_args args;
  char server_addr[MSG_MAX_SERVERS][CONFIG_ADDR_MAX]; /* heap-allocate this struct */
};

struct msg_task_done {
  uint64_t compute_ns; /* includes emulated slowdown */
  uint64_t wait_ns;    /* blocked on pulls during the task */
  uint64_t idle_ns;    /* between the previous task and this one */
  uint64_t bytes_in, bytes_out;
  uint64_t overlap_ns; /* computing while the table was still arriving */
  uint64_t overrun_ns; /* real compute beyond the modelled time (emulate.h) */
};

struct msg_report {
  dsana_xsum sums[DSANA_MAX_SUMS];
};

int msg_register_encode(const struct msg_register *m, uint8_t *buf, size_t cap, size_t *len);
int msg_register_decode(const void *p, size_t len, struct msg_register *m);
int msg_map_encode(const struct msg_cluster_map *m, uint8_t *buf, size_t cap, size_t *len);
int msg_map_decode(const void *p, size_t len, struct msg_cluster_map *m);
#define MSG_TASK_DONE_BYTES 56
void msg_task_done_encode(const struct msg_task_done *m, uint8_t buf[MSG_TASK_DONE_BYTES]);
void msg_task_done_decode(const uint8_t buf[MSG_TASK_DONE_BYTES], struct msg_task_done *m);
void msg_report_encode(const struct msg_report *m, uint8_t buf[128]);
void msg_report_decode(const uint8_t buf[128], struct msg_report *m);
void msg_globals_encode(const double g[DSANA_MAX_GLOBALS], uint8_t buf[64]);
void msg_globals_decode(const uint8_t buf[64], double g[DSANA_MAX_GLOBALS]);

#endif
