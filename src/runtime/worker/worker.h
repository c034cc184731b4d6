/*
 * worker.h - the worker role as a state machine (see event.h).
 *
 * The worker registers with the scheduler, takes the cluster map (the app
 * and its options when it was started alone), runs the app's setup, and
 * then holds the tasks the scheduler hands it. It never computes inside a
 * handler: it offers work items (a task's hook call that can run now, its
 * input being in) through worker_next_work(); the driver runs them on its
 * compute threads (worker_exec.c) and hands them back with
 * worker_work_done(), which pushes a finished task's results and reports it
 * done. Items of different tasks may run at the same time; the items of
 * one task instance run one after the other. A compute thread that
 * finished an item of a block-wise instance runs the instance's next item
 * itself when the control thread said it may (worker_next_item: the blocks
 * whose chunks are in, then the end), and hands the items back together:
 * a task with k ready items costs one hand-off, not k.
 *
 * Files: worker.c (this API: registration, messages, ticks) calls
 * worker_tasks.c (held tasks: input, readiness, items, running ahead),
 * which calls worker_push.c (a finished task's pushes) and the mirror.
 * worker_exec.c runs items; it reads worker state set up beforehand and
 * never calls back.
 */
#ifndef DSANA_RUNTIME_WORKER_H
#define DSANA_RUNTIME_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/msg/event.h"
#include "runtime/core/job.h"
#include "runtime/worker/mirror.h"
#include "runtime/msg/msg.h"
#include "runtime/role/role_params.h"

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

int worker_create(const struct role_params *p, const struct rt_env *env, struct worker **out);
void worker_destroy(struct worker *w);
/* Send the registration. */
int worker_start(struct worker *w, struct rt_outq *out);
/* A message from the scheduler or server `from.index`. 0; DSANA_EAGAIN:
 * keep it and offer it again later, nothing more from that server before
 * it; or an error (logged). */
int worker_on_msg(struct worker *w, const struct rt_from *from, const struct net_msg *m, struct rt_outq *out);
/* Timers: heartbeats, the scheduler's silence (DSANA_ETIMEDOUT, logged). */
int worker_on_tick(struct worker *w, uint64_t now_ns, struct rt_outq *out);
/* The next item that can run now, or DSANA_EAGAIN. */
int worker_next_work(struct worker *w, struct witem *it, struct rt_outq *out);
/* An item the driver ran. */
int worker_work_done(struct worker *w, struct witem *it, struct rt_outq *out);
/* Send what running tasks said is final (dsana_push_ready), in whole
 * chunks; the driver calls it when a compute thread wakes it. */
int worker_push_progress(struct worker *w, struct rt_outq *out);

/* For the driver. */
bool worker_stopped(const struct worker *w);                      /* STOP received: leave once sent */
const struct msg_cluster_map *worker_map(const struct worker *w); /* NULL before it */
uint32_t worker_index(const struct worker *w);
/* The slowdown-model slot count (emulation) and a scenario iteration. */
uint64_t worker_slots(const struct worker *w);
/* Its compute threads: --threads, or every core of this machine. */
uint32_t worker_threads(const struct worker *w);
/* Offer one block per item (emulation without a cost model times each
 * block on its own). */
void worker_set_one_block_items(struct worker *w, bool on);
/* Run an item's hook (worker_exec.c); any thread. */
void worker_exec(struct witem *it);
/* On the compute thread that ran *it: the same instance's next item, if
 * the control thread said it may run now without it (wtask.chain): true,
 * and *it is that item (its result fields cleared). False after a failed
 * item, a whole task or the end. */
bool worker_next_item(struct witem *it);

#endif
