/*
 * worker.h - private state of the worker role, shared by worker.c (the
 * connection, the loop, whole tasks) and worker_blocks.c (tasks run block by
 * block as chunks arrive). Owned by the worker process's only thread.
 */
#ifndef DSANA_RUNTIME_WORKER_H
#define DSANA_RUNTIME_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/emulate.h"
#include "runtime/mirror.h"
#include "runtime/node.h"

struct dsana_worker_view {
  struct worker *w;
};

/* A task being run block by block. A provisional one was started ahead of
 * its iteration (static scheduling gives a worker the same tasks every
 * iteration): its blocks run as the next iteration's chunks arrive, and it
 * ends and pushes only once that iteration started and the scheduler handed
 * the task to this worker again. */
struct held_task {
  uint32_t task;
  bool provisional;
  uint64_t next_chunk;
  uint64_t compute_ns; /* blocks so far, emulated slowdown included */
  uint64_t overlap_ns; /* of which while the table was still arriving */
  struct dsana_task_ctx ctx;
};

struct worker {
  struct node node;
  struct net_sock **servers; /* n_servers dialers */
  struct mirror mirror;
  double *push_buf;
  uint32_t iter;     /* the iteration started last (ITER_START) */
  uint32_t run_iter; /* the iteration of the task whose hook is running */
  double globals[DSANA_MAX_GLOBALS];
  /* Sized from the job's task count: a worker gets each task at most once
   * per iteration, and holds at most this iteration's and the next one's
   * (running ahead). */
  uint32_t *queue; /* tasks received, not started: a ring of n_tasks */
  uint32_t q_head, q_len;
  struct held_task *held; /* chunked mode: tasks started, 2 x n_tasks */
  uint32_t n_held;
  uint32_t *ran; /* tasks completed in iteration `iter`, in order: n_tasks */
  uint32_t n_ran;
  uint32_t ahead_iter; /* FETCH_AHEAD received for this iteration (0 = none) */
  bool blocks; /* the app runs tasks block by block */
  uint64_t last_task_end_ns;
  uint64_t bytes_in_mark, bytes_out, bytes_out_mark;
  struct emulate emu;      /* modelled compute times (scenario speeds) */
  int sleep_err;           /* a send failed while the emulation slept */
  uint64_t overrun_mark;   /* emu.overrun_ns at the last TASK_DONE */
  struct dsana_worker_view view;
};

/* The next task received and not started (q_len > 0), off the queue. */
uint32_t worker_queue_pop(struct worker *w);
/* Room in held[]: this iteration's tasks and the next one's (running ahead). */
static inline uint32_t worker_held_cap(const struct worker *w) { return 2 * w->node.job.n_tasks; }

/* Emulation slots: per task, the whole task or its begin (0), its blocks
 * (1 + chunk) and its end (1 + n_chunks). */
uint64_t worker_slot(const struct worker *w, uint32_t task, uint64_t part);
/* The modelled duration of work in `slot` of cost `cost` that took
 * compute_ns, under the scenario's slowdown for this worker in iteration
 * iter (sleeping the rest; see emulate.h). */
uint64_t worker_emulate(struct worker *w, uint32_t iter, uint64_t slot, uint64_t compute_ns, double cost);
/* Push the task's results and report it done to the scheduler. */
int worker_complete(struct worker *w, uint32_t task, uint64_t compute_ns, uint64_t wait_ns, uint64_t overlap_ns,
                    uint64_t start_ns);

/* worker_blocks.c: start the queued tasks and run every block whose chunk
 * is in; *progress tells whether anything ran. */
int worker_blocks_step(struct worker *w, bool *progress);
/* Start, provisionally for iteration iter, the tasks completed in this one,
 * and from now on each one completed (the scheduler has nothing more for
 * this worker in this iteration; it is fetching iter's input). */
int worker_blocks_ahead(struct worker *w, uint32_t iter);
/* TASK for the current iteration: true when it confirms a provisional task. */
bool worker_blocks_confirm(struct worker *w, uint32_t task);
/* Forget provisional tasks that were not confirmed (their iteration is
 * over for this worker); returns how many. */
uint32_t worker_blocks_drop_provisional(struct worker *w);

#endif
