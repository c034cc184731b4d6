/*
 * worker_state.h - the worker's state, not its API (worker.h): struct
 * worker, the inline helpers on it, and the functions of the files that
 * work on it (worker_tasks.c, worker_push.c, worker_flush.c), shared by
 * the worker's files (see worker.h for who calls whom). Owned by the
 * worker's control thread; compute threads touch only what worker_exec.c
 * says.
 */
#ifndef DSANA_RUNTIME_WORKER_STATE_H
#define DSANA_RUNTIME_WORKER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/msg/event.h"
#include "runtime/core/job.h"
#include "runtime/msg/msg.h"
#include "runtime/msg/usage.h"
#include "runtime/role/role_params.h"
#include "runtime/mirror/mirror.h"
#include "runtime/worker/work_item.h"

/* A task's key list of a sparse table (task_keys()), fetched once. */
struct wkeys {
  const uint64_t *keys;
  uint64_t n;
  bool got;
};

struct worker {
  const struct rt_env *env;
  struct role_params params;
  struct run_config cfg;
  const struct dsana_app *app;
  void *app_state;
  bool own_app;
  uint32_t index;
  struct msg_cluster_map *map; /* NULL until the cluster map came */
  struct dsana_job job;
  struct mirror mirror;
  struct rt_watch watch; /* on the scheduler */
  uint64_t last_sent_ns;
  uint64_t last_tick_ns; /* to see a freeze: a tick long after the one before */
  bool stopped;
  struct usage_window usage;
  /* the iteration */
  uint32_t iter;  /* started last (ITER_START) */
  uint32_t epoch; /* the highest hand-out epoch heard from the scheduler: its pushes carry it (wire.h) */
  double globals[DSANA_MAX_GLOBALS];
  bool blocks;         /* tasks run block by block as the block table's chunks arrive */
  bool run_ahead;      /* fetching ahead, block-wise: done tasks start again for the next iteration */
  uint32_t ahead_iter; /* FETCH_AHEAD received for this iteration (0 = none) */
  uint32_t ready_iter; /* the job's first iteration, whose input it fetches before it starts: READY once in */
  uint32_t sparse;     /* bit t: table t is read by key lists */
  bool one_block_items;
  /* tasks */
  struct wtask *slots; /* 2 x n_tasks: this iteration's and the next one's */
  uint32_t n_slots;
  dsana_xsum *slot_sums; /* the slots' sums, DSANA_MAX_SUMS each */
  uint64_t *slot_sent;   /* the slots' sent marks, one per server each */
  uint32_t *order;       /* held instances (slot indices) in the order they started */
  uint32_t n_held;
  uint32_t *queue; /* received, not started: a ring of n_tasks */
  uint32_t q_head, q_len;
  bool handed_all; /* the scheduler has handed out all of this iteration (WIRE_F_HANDED_ALL): report once */
  uint32_t *ran;   /* tasks completed in iteration `iter`, in order */
  uint32_t n_ran;
  uint64_t dropped_ahead; /* provisional instances dropped unconfirmed (their work wasted), all iterations */
  struct wkeys *tkeys;    /* n_tasks * n_tables, lazily */
  uint64_t values_per_msg;
  uint64_t *push_to; /* per server: where a task's pushes sent chunk by chunk stop this time (worker_push.c) */
  /* what waits to leave together (worker_flush.c) */
  struct rt_outq pend;
  uint8_t *done_buf; /* TASK_DONE records */
  size_t done_len, done_cap;
  uint32_t done_count, done_iter;
  /* accounting for TASK_DONE */
  uint64_t bytes_out, bytes_in_mark, bytes_in_raw_mark, bytes_out_mark, last_task_end_ns;
};

/* The emulation history slot of an item (worker_slots() in all): per
 * task, its whole run or begin, each block, its end. */
static inline uint64_t witem_slot(const struct worker *w, const struct witem *it) {
  uint64_t nc = w->blocks ? w->mirror.t[w->job.block_table].n_chunks : 1;
  uint64_t k = it->kind == WITEM_BLOCK ? 1 + it->chunk : it->kind == WITEM_END ? 1 + nc : 0;
  return (uint64_t)it->wt->task * (nc + 2) + k;
}

/* worker_tasks.c */
int wtasks_alloc(struct worker *w);
void wtasks_free(struct worker *w);
/* TASKS for the current iteration: queue them (or confirm provisional
 * ones); once everything is handed out (WIRE_F_HANDED_ALL), drop the
 * provisional instances of this iteration left unconfirmed. */
int wtasks_receive(struct worker *w, const uint32_t *tasks, uint32_t n);
/* ITER_START of w->iter (already set). */
int wtasks_iter_start(struct worker *w, bool ran_before, struct rt_outq *out);
/* Task `task` starts provisionally for iteration iter (the job's first,
 * during loading): only its task_begin() runs before ITER_START. */
int wtasks_begin_ahead(struct worker *w, uint32_t task, uint32_t iter);
/* Every instance held has begun (task_begin ran). */
bool wtasks_all_begun(const struct worker *w);
/* FETCH_AHEAD for iteration iter. */
int wtasks_fetch_ahead(struct worker *w, uint32_t iter, struct rt_outq *out);
int wtasks_next(struct worker *w, struct witem *it, struct rt_outq *out);
int wtasks_done(struct worker *w, struct witem *it, struct rt_outq *out);
/* Tell the compute threads running instances' items what they may run
 * next by themselves (wtask.chain), after anything that makes more ready
 * (a chunk, ITER_START, TASKS) or stale. */
void wtasks_publish(struct worker *w);

/* worker_push.c: a finished instance's pushes, end markers and report:
 * sent at once, or kept with other tiny tasks' until wflush(); with
 * more_ahead (the worker holds work beyond what runs now) the report waits. */
int wpush_finished(struct worker *w, struct wtask *wt, bool more_ahead, struct rt_outq *out);
/* The chunk size of the key space an instance's pushes go through chunk
 * by chunk in, each chunk final at its server before the task ends (0:
 * they do not): every range it writes is a dense push of the same keys of
 * one chunked key space, and, when its pushes wait to leave with the next
 * tiny tasks' (`waits`), none is ASSIGN (those merge). Any thread. */
uint64_t wpush_chunk(const struct worker *w, const struct wtask *wt, bool waits);
/* Send what running instances said is final (dsana_push_ready). */
int wpush_progress(struct worker *w, struct rt_outq *out);

/* worker_flush.c: send what waits: pushes (runs of adjacent ASSIGN ranges
 * to one server merged into one message) and one TASK_DONE report. */
int wflush(struct worker *w, struct rt_outq *out);
/* Only the pushes that wait (the report keeps waiting). */
int wflush_pushes(struct worker *w, struct rt_outq *out);
void wflush_fini(struct worker *w);

#endif
