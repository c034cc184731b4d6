/*
 * work_item.h - what the worker hands out to run and what it runs for:
 * struct witem (one hook call of one task instance: what the driver and
 * the compute threads of pool.h take), struct wtask (a held task
 * instance, with its pushes, struct wpush, its key ranges said final,
 * struct wready, and the chain word, CHAIN_*, that says what its compute
 * thread may run next by itself) and struct dsana_task_rt (what a task's
 * ctx leads back to). worker.h and pool.h include it; the worker's files
 * fill and read them (worker_state.h).
 */
#ifndef DSANA_RUNTIME_WORK_ITEM_H
#define DSANA_RUNTIME_WORK_ITEM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dsana/dsana.h"

struct worker;

struct refbuf;

/* One task push prepared by the task (dsana_push_buf / dsana_push_keys). */
struct wpush {
  double *buf;          /* dense: indexed by key (buf[k * width]); sparse: n * width */
  dsana_xsum *xbuf;     /* exact pushes (dsana_push_xsum*): as buf, of partial sums */
  const uint64_t *keys; /* sparse: the task's keys, NULL = dense */
  uint64_t n;
  struct refbuf *mem; /* the per-instance buffer (buf, xbuf, sparse values): lent to the messages that carry it,
                        reused by the next instance once they are done with it */
  bool used;
};

/* What worker_exec.c sees of a task instance: set by the control thread
 * before the item is offered, read-only meanwhile except the ctx outputs
 * and pushes. */
struct dsana_task_rt {
  struct worker *w;
  struct wtask *wt;
};

enum witem_kind { WITEM_RUN, WITEM_BEGIN, WITEM_BLOCK, WITEM_END };

/* A held task instance. */
struct wtask {
  bool live;
  uint32_t task, iter;
  bool provisional;                   /* started ahead of its iteration (running ahead) */
  bool running;                       /* an item of it is with the driver */
  bool begun;                         /* block-wise: task_begin ran */
  bool input_asked;                   /* its non-block input was requested */
  uint32_t keys_held;                 /* bit t: a key list of table t to give back (task_keys_done) */
  uint64_t next_chunk;                /* block-wise: the next block to run */
  uint32_t tickets[DSANA_MAX_TABLES]; /* sparse reads: see mirror_sparse_ready */
  uint64_t compute_ns, overlap_ns, overrun_ns, setup_ns;
  uint64_t ready_ns, start_ns;
  struct dsana_task_ctx ctx;
  struct dsana_task_rt rt;
  dsana_xsum *sums; /* n_sums (DSANA_MAX_SUMS for the ctx), owned */
  struct wpush push[DSANA_MAX_TABLES];
  /* pushes that leave while the task runs (dsana_push_ready) */
  struct wready *ready;       /* WT_READY_MAX key ranges the task said final (compute thread; kept for the slot) */
  uint32_t ready_n;           /* of them, said */
  _Atomic uint64_t ready_pub; /* published (env push_ready): ready[0, ready_pub) may be read */
  uint64_t *sent;             /* control thread, per server: its keys below this have left (kept for the slot) */
  /* what the compute thread running its items may run next by itself
   * (worker_next_item), set by the control thread while it runs (release):
   * CHAIN_CHUNKS(chain) blocks' chunks are in, CHAIN_END: its end may run,
   * CHAIN_MISSING: the block table was still arriving */
  _Atomic uint64_t chain;
};
#define CHAIN_MISSING 1u
#define CHAIN_END 2u
#define CHAIN_CHUNKS(word) ((word) >> 3)

/* A key range of a task's pushes said final (dsana_push_ready). */
struct wready {
  uint64_t lo, hi;
};
#define WT_READY_MAX 64

/* A piece of work for the driver: one hook call of one task instance. */
struct witem {
  enum witem_kind kind;
  struct wtask *wt;
  uint64_t chunk, chunk_end; /* WITEM_BLOCK: blocks [chunk, chunk_end) */
  uint64_t slot;             /* emulation history slot */
  double cost;               /* out of the hook (ctx.cost), or the task's hint for RUN */
  int rc;                    /* out: the hook's result */
  /* filled by the driver */
  uint64_t real_ns, modelled_ns, overrun_ns;
  bool overlap; /* the block table was still arriving */
  bool more;    /* the pool: a later item of the same hand-out follows (worker_next_item) */
};

#endif
