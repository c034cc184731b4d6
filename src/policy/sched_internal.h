/*
 * sched_internal.h - the state shared by sched.c and the policies behind
 * the sched_ops table (sched_static.c, sched_dynamic.c). Private to policy/.
 *
 * Queues: at sched_begin_iter() a policy lays every live worker's tasks out
 * in one array, qbuf[], as contiguous segments: worker w owns
 * qbuf[head[w] .. tail[w]) and runs it front to back. sched_next() pops at
 * head; a thief takes at tail (the task the victim would run last). Tasks
 * only ever leave segments, so a segment never needs to grow. Tasks with no
 * owner (a dropped worker's queue, a lost started task) go to pool[], which
 * any worker with an empty queue drains before stealing.
 *
 * Not thread-safe: one scheduler thread owns a struct sched.
 */
#ifndef DSANA_POLICY_SCHED_INTERNAL_H
#define DSANA_POLICY_SCHED_INTERNAL_H

#include "policy/sched.h"

#define SCHED_NONE UINT32_MAX

struct sched;

/* One scheduling policy. */
struct sched_ops {
  enum sched_kind kind;
  const char *name;
  /* Fill qbuf/head/tail/qcost for the live workers (alive[] is set, every
   * queue is empty, the pool is empty). Returns 0 or a DSANA_E* code. */
  int (*assign)(struct sched *s);
  /* w's queue and the pool are empty: pick an unstarted task of another
   * worker for w, remove it from that worker's queue, store it in *task and
   * return 0; or return DSANA_EAGAIN. */
  int (*steal)(struct sched *s, uint32_t w, uint32_t *task);
};

extern const struct sched_ops sched_static_ops;
extern const struct sched_ops sched_dynamic_ops;

/* A worker's compute threads running tasks in order, each on the thread
 * free first: a min-heap of the threads' finish times (at most one a
 * task taken), the list schedule the runtime's compute pool makes. */
struct sched_clock {
  double *free_at;   /* cap of them, the heap's first n */
  uint32_t n, cap;   /* cap: the worker's threads, sched_threads() */
  double per_thread; /* cost units a second of one thread */
  double end;        /* the last finish so far */
};

struct sched {
  const struct sched_ops *ops;
  uint32_t n_workers, n_tasks;
  double *cost; /* n_tasks, copied at creation */

  /* Iteration state (reset by sched_begin_iter). */
  bool in_iter;
  bool *alive;                  /* n_workers */
  uint32_t *qbuf;               /* n_tasks: the queue segments */
  uint32_t *head;               /* n_workers */
  uint32_t *tail;               /* n_workers */
  double *qcost;                /* n_workers: cost still queued for w */
  uint32_t *pool;               /* n_tasks: orphaned unstarted tasks, FIFO */
  uint32_t pool_head, pool_len; /* ring of capacity n_tasks */
  uint32_t unstarted;           /* tasks not handed out (queues + pool) */
  uint32_t *runner;             /* n_tasks: worker that got it this iteration, or SCHED_NONE */
  bool *done;                   /* n_tasks: reported this iteration */
  uint32_t *stolen;             /* n_workers */

  /* Across iterations. */
  uint32_t *last;            /* n_tasks: worker that ran it most recently, or SCHED_NONE */
  double *speed;             /* n_workers: committed estimate, 0 = none yet */
  double *hist;              /* n_workers x SCHED_HIST: the last iterations' rates, newest at hist_n - 1 */
  uint32_t *hist_n;          /* n_workers: rates in hist (at most SCHED_HIST) */
  double *it_cost;           /* n_workers: this iteration's (clamped) samples ... */
  double *it_secs;           /* ... as total cost over total seconds */
  double *it_raw_secs;       /* n_workers: the same seconds unclamped */
  uint32_t *it_samples;      /* n_workers: tasks reported this iteration ... */
  uint32_t *it_fast;         /* ... and those faster than the clamp allowed */
  double *pspeed;            /* n_workers: predicted speeds, see sched_speed_predict_all */
  struct sched_clock *clock; /* n_workers: their threads (sched_set_threads) and list schedules */

  bool contiguous;     /* dynamic: one range of tasks per worker */
  uint32_t *range_lo;  /* n_workers + 1: the last contiguous assignment (w's range is [lo[w], lo[w+1])) */
  uint32_t *range_new; /* n_workers + 1: scratch for the next one */
  uint32_t *range_fit; /* n_workers + 1: scratch of ranges_split_threads */
  bool *range_alive;   /* n_workers: who was alive for it */
  bool have_ranges;

  /* Scratch for the policies, n_tasks each (no allocation per iteration). */
  uint32_t *order;
  uint32_t *owner;
};

/* Worker w's compute threads (sched_set_threads; 1 unless told). */
static inline uint32_t sched_threads(const struct sched *s, uint32_t w) { return s->clock[w].cap; }

/* Iterations whose rates the committed estimate is the median of. */
#define SCHED_HIST 3

/* Commit the iteration's samples of w into its estimate (sched_begin_iter). */
void sched_speed_commit(struct sched *s, uint32_t w);
/* Current speed estimate of w (cost units per second, 0 = none yet). */
double sched_speed_now(const struct sched *s, uint32_t w);
/* Fill s->pspeed with the speeds used for predictions: w's current
 * estimate, or the mean estimate of the workers that have one, or 1 when
 * nobody has been observed yet (so unobserved workers count as equal). */
void sched_speed_predict_all(struct sched *s);
/* Tasks sorted by cost descending, ties by ascending id, into s->order. */
void sched_sort_by_cost_desc(struct sched *s);
/* Remove and return the task at the tail of w's (non-empty) queue. */
uint32_t sched_queue_take_tail(struct sched *s, uint32_t w);

static inline uint32_t sched_queue_len(const struct sched *s, uint32_t w) { return s->tail[w] - s->head[w]; }

#endif
