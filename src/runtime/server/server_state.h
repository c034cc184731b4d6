/*
 * server_state.h - the server's state, not its API (server.h): struct
 * server with its shards (struct stable) and key spaces' completion
 * (struct sspace), the inline helpers on them, and the functions of the
 * files that work on it. server.c (the API: registration, the scheduler's
 * messages, commits, checkpoints, the end) calls server_push.c (pushes,
 * task ends, finished ranges, reports) and server_pull.c (answering
 * pulls); server_push.c calls server_pull.c (chunks becoming final);
 * server_zc.c (compressed answers, the previous version kept for them) is
 * called by server_pull.c and server.c; server_keepalive.c (a heartbeat
 * from inside a long computation) is called by server.c and
 * server_push.c; server_shard.c (storage and key spaces) is called by all
 * of them and calls none.
 *
 * Versions: `version` is the last committed iteration; `cur` holds it and
 * `next` is filled by the pushes of iteration version+1. Per key space the
 * shard is cut into segments at chunk boundaries and at the edges of every
 * task's write ranges; a segment is final once every task writing it has
 * ended (its end marker arrived) or sent it whole (a WIRE_F_THROUGH mark at
 * or beyond its end), and then finish() runs on it; a chunk is
 * final once all its segments are. Pulls of iteration version+1 read cur;
 * pulls of version+2 (a worker fetching ahead) read next's final chunks as
 * they appear and go on reading the same buffer once it is committed.
 * Owned by the server's control thread.
 */
#ifndef DSANA_RUNTIME_SERVER_STATE_H
#define DSANA_RUNTIME_SERVER_STATE_H

#include "runtime/msg/event.h"
#include "runtime/core/job.h"
#include "runtime/msg/msg.h"
#include "runtime/role/role_params.h"
#include "runtime/server/server.h"
#include "runtime/msg/usage.h"

/* One table's shard. */
struct stable {
  uint64_t lo, hi; /* keys */
  uint32_t width;
  double *buf[2];       /* the two versions, (hi - lo) * width each */
  uint32_t cur;         /* buf[cur] is the committed version */
  bool shared;          /* buffers shared with local workers */
  bool state;           /* a STATE table: buf[0] == buf[1] */
  dsana_xsum *acc;      /* SUM: accumulators of the iteration, (hi - lo) * width */
  bool isum;            /* ISUM: pushes add into the next version itself (zeroed where no push stored first) */
  uint64_t ilo, ihi;    /* ISUM: next's keys [ilo, ihi) hold this iteration's sums (server_push.c) */
  bool isum_failed;     /* ISUM: an addend of this iteration could not be added exactly (a NaN in next) */
  double *prev;         /* compressed pulls: a copy of the version before cur (server_zc.c) */
  int64_t prev_version; /* the version prev holds (INT64_MIN: none yet) */
};

/* A SUM or ISUM table: pushes add up (key lists allowed, staged until the task ends). */
static inline bool stable_sums(const struct stable *st) { return st->acc || st->isum; }

/* One key space's completion state. */
struct sspace {
  uint64_t n_keys, lo, hi; /* the shard of this key space */
  uint64_t chunk_keys, chunk0, n_chunks;
  uint32_t n_segs;
  uint64_t *seg_lo;      /* n_segs + 1 boundaries */
  uint32_t *seg_writers; /* tasks writing each segment */
  uint32_t *seg_left;    /* of them, not ended in this iteration */
  uint32_t *chunk_segs;  /* segments of each chunk */
  uint32_t *chunk_left;  /* of them, not final in this iteration */
  uint64_t *final[2];    /* [0]: cur's chunks (all), [1]: next's final ones so far */
  uint64_t n_final;
};

/* A task's segments here: [s0, s1) of key space `space`. */
struct tseg {
  uint32_t space, s0, s1;
};

/* A task's pushes of a SUM table held until its end marker. */
struct staged {
  struct staged *next;
  struct wire_hdr hdr;
  const void *payload; /* a copy of the values, or inside msg */
  bool kept;           /* msg holds the message they came in (taken over, not copied) */
  struct net_msg msg;
};

/* A pull being answered piece by piece (or waiting for its chunks). */
struct pull_req {
  struct net_peer peer;
  struct wire_hdr hdr; /* as received: table, iter, sender, task, range */
  uint64_t *keys;      /* sparse pull: its keys (owned) */
  uint64_t pos;        /* next entry of the version's final-chunk list */
  uint64_t at;         /* next key inside that chunk (0 = its start) */
};

/* A push that arrived before the commit of the iteration before it. */
struct deferred_push {
  struct net_peer peer;
  struct wire_hdr hdr;
  void *payload;
};

struct server {
  const struct rt_env *env;
  struct role_params params;
  struct run_config cfg;
  struct fault_plan fault; /* the part of cfg.fault that names this server */
  const struct dsana_app *app;
  void *app_state;
  bool own_app;
  uint32_t index;
  char addr[CONFIG_ADDR_MAX];
  struct msg_cluster_map *map;
  struct dsana_job job;
  struct rt_watch watch; /* on the scheduler */
  uint64_t last_sent_ns;
  bool stopped, failed;
  struct usage_window usage;
  struct stable t[DSANA_MAX_TABLES];
  struct sspace sp[DSANA_MAX_TABLES];
  int64_t version;    /* last committed iteration; -1 before the initial values */
  bool completed;     /* every segment of version+1 finished: reported */
  uint32_t *tseg_off; /* per task: its segments tseg[tseg_off[t] .. tseg_off[t+1]) */
  struct tseg *tseg;
  uint8_t *ended;                  /* per task: its end marker of version+1 arrived */
  uint32_t *sender;                /* per task: the worker whose pushes are being kept */
  struct staged **staging;         /* per task: SUM pushes held until its end */
  uint64_t *through;               /* per task: its values below this key arrived whole (WIRE_F_THROUGH) */
  uint32_t *released;              /* per task: its segments final so far (from s0 of its only tseg) */
  uint32_t *epoch;                 /* per task: the highest hand-out epoch of its sender's pushes (wire.h) */
  uint32_t *end_iter;              /* per task: the last iteration whose end marker arrived */
  uint64_t *pushed_hi;             /* per write range (job.wr): the end of the keys its task pushed so far */
  uint64_t stale_msgs;             /* pushes dropped, never applied: late, twice, or a replaced worker's */
  uint32_t tasks_left;             /* tasks writing here, not ended */
  uint32_t segs_left;              /* segments of every key space, not final */
  bool isum_zeroed;                /* every ISUM table's next is whole (zeroed past [ilo, ihi)) */
  dsana_xsum sums[DSANA_MAX_SUMS]; /* of the finished ranges of version+1 */
  struct pull_req *reqs;
  size_t n_reqs, cap_reqs;
  uint32_t *running_seen, pump_round; /* per (worker, table): see server_pull.c */
  uint64_t values_per_msg;
  struct deferred_push *deferred;
  size_t n_deferred, cap_deferred;
  uint64_t deferred_bytes;
  bool fetch_ahead; /* pulls of version+2 may read next's final chunks (no update hook) */
  struct szc *zc;   /* compressed answers: codec, scratch, recent encodings (server_zc.c) */
};

/* server_shard.c */
int shard_alloc(struct server *sv);
void shard_free(struct server *sv);
/* Pointer p with p[key * width] the slot of key (version b of table t). */
double *shard_by_key(const struct server *sv, uint32_t t, uint32_t b);
static inline uint32_t shard_next(const struct server *sv, uint32_t t) { return sv->t[t].cur ^ 1u; }

/* server_keepalive.c */
/* finish() and update() run over pieces of at most cfg.hook_piece_keys
 * keys, with a heartbeat between pieces when one is due: a server
 * computing over a large shard on its control thread is never taken for
 * lost. A heartbeat to the scheduler now, if one is due. */
void server_keepalive(struct server *sv);

/* server_push.c */
/* A new version+1: nothing pushed, no segment final. */
int spush_begin(struct server *sv, struct rt_outq *out);
int spush_on_push(struct server *sv, const struct rt_from *from, struct net_msg *m, struct rt_outq *out);
/* Pushes of the next iteration kept before the commit: apply them now. */
int spush_apply_deferred(struct server *sv, struct rt_outq *out);
/* Initial values: every segment final (after init() or a resume). */
int spush_all_final(struct server *sv, struct rt_outq *out);
void spush_free(struct server *sv);

/* server_pull.c */
/* Chunk `chunk` of key space `space` of next became final (its last
 * segment did): append it to next's final chunks, the order pulls are
 * answered in. */
void spull_chunk_final(struct server *sv, uint32_t space, uint64_t chunk);
/* next became cur: its final-chunk list becomes cur's. */
void spull_commit(struct server *sv);
/* A new next: no chunk final. */
void spull_begin(struct server *sv);
int spull_on_pull(struct server *sv, const struct rt_from *from, const struct net_msg *m);
void spull_drop_all(struct server *sv);
void spull_free(struct server *sv);

/* server_zc.c */
/* Answer [lo, hi) of dense pull r (it asked WIRE_F_ZSTD) from side
 * (0: cur, 1: next) compressed: *sent false (nothing queued) when that
 * would not be smaller or the table is not compressed; send it plainly. */
int szc_send(struct server *sv, const struct pull_req *r, int side, uint64_t lo, uint64_t hi, uint64_t priority,
             struct rt_outq *out, bool *sent);
/* Before cur is replaced: keep it as the XOR base of the next iteration. */
void szc_commit(struct server *sv);
void szc_free(struct server *sv);

#endif
