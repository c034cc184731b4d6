/*
 * server.h - private state of the server role, shared by server.c (the
 * role: pushes, completion, commit, checkpoints) and server_pull.c (which
 * chunks are final, and serving pulls from them).
 *
 * Versions: `version` is the last committed iteration; `cur` holds it and
 * `next` is being filled by the pushes of iteration version+1. A chunk of
 * `next` is final once every task overlapping it (inside the shard) has
 * pushed all its keys and finish() ran over them; final chunks are listed
 * in the order they became final. Pulls for iteration version+1 read `cur`;
 * pulls for version+2 (a worker that finished its part of the iteration
 * early, fetching ahead) read the final chunks of `next` as they appear and
 * go on reading the same buffer once it is committed.
 * Owned by the server process's only thread.
 */
#ifndef DSANA_RUNTIME_SERVER_H
#define DSANA_RUNTIME_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/node.h"

/* A pull being answered piece by piece (or waiting for its chunks). */
struct pull_req {
  struct net_peer peer;
  struct wire_hdr hdr; /* as received: table, iter, sender, key range */
  uint64_t pos;        /* next entry of the version's final-chunk list */
  uint64_t at;         /* next key inside that chunk (0 = its start) */
};

/* A push that arrived before the commit of the iteration before it. */
struct deferred_push {
  struct wire_hdr hdr;
  void *payload;
};

struct server {
  struct node node;
  struct net_sock *listen;
  uint64_t lo, hi;
  double *cur[DSANA_MAX_TABLES], *next[DSANA_MAX_TABLES]; /* shard-sized storage */
  double *buf[DSANA_MAX_TABLES][2]; /* with shm: the two mapped buffers */
  uint32_t cur_buf[DSANA_MAX_TABLES]; /* which of them cur is */
  bool shm;                           /* buffers shared with local workers */
  int64_t version; /* last committed iteration; -1 before the initial values */
  bool completed; /* finish() ran for version+1 */
  uint32_t task_lo, task_hi; /* tasks overlapping the shard */
  uint64_t *task_keys;       /* keys received per overlapping task */
  uint32_t *task_sender;     /* the worker whose pushes are being counted */
  uint32_t tasks_left;
  struct msg_report sums; /* of the finished parts of version+1 */
  struct pull_req *reqs; /* active and waiting pulls */
  size_t n_reqs, cap_reqs;
  uint64_t max_keys_per_msg;
  uint64_t chunk_keys; /* reply pieces never straddle a chunk */
  /* chunks touching the shard: global indices chunk0 .. chunk0+n_chunks-1 */
  uint64_t chunk0, n_chunks;
  uint32_t *chunk_left;  /* per chunk: overlapping tasks not yet final in next */
  uint64_t *final[2];    /* [0]: cur's chunks (all), [1]: next's final ones so far */
  uint64_t n_final;      /* entries of final[1] */
  /* per (worker, table): the pump round that saw it with an unfinished
   * pull of the running iteration (its pulls of the next one wait) */
  uint32_t *running_seen, pump_round;
  struct deferred_push *deferred; /* pushes for version+2, applied at commit */
  size_t n_deferred, cap_deferred;
  uint64_t deferred_bytes;
};

/* server.c: the part of task `task` inside the shard, [*lo, *hi); false
 * when empty. */
bool server_task_part(const struct server *sv, uint32_t task, uint64_t *lo, uint64_t *hi);

/* server_pull.c */
int spull_alloc(struct server *sv);
void spull_free(struct server *sv);
/* A new `next`: no chunk final yet. */
void spull_begin(struct server *sv);
/* Keys [lo, hi) of next are final (a task's part finished): chunks whose
 * last task this was become final. */
void spull_part_final(struct server *sv, uint64_t lo, uint64_t hi);
/* All of next is final (initial values). */
void spull_all_final(struct server *sv);
/* next became cur: its final-chunk list becomes cur's. */
void spull_commit(struct server *sv);
int spull_on_pull(struct server *sv, const struct net_msg *m);
/* One round over the pulls; *active = pulls with something to send now. */
int spull_pump(struct server *sv, size_t *active);
/* Forget every pull (stopping). */
void spull_drop_all(struct server *sv);

#endif
