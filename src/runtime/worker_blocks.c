/*
 * worker_blocks.c - running tasks block by block as chunks arrive.
 *
 * With chunked transfers and an app that splits tasks into blocks (one per
 * chunk of the table it reads), the worker starts every task it has been
 * handed at once and runs, for each started task in turn, every block whose
 * chunk is in, in chunk order. While the table streams in, computation on
 * the chunks already here overlaps the transfer of the rest, across all the
 * worker's tasks; a task whose last block ran is pushed at once.
 *
 * Running ahead: under static scheduling a worker runs the same tasks every
 * iteration. Once the scheduler has nothing more for it in iteration t
 * (FETCH_AHEAD: at once under static scheduling), it fetches t+1's input
 * chunk by chunk as the chunks it has finished reading for t switch over
 * (mirror.h), and each task it finishes for t starts again, provisionally,
 * for t+1: its blocks run as t+1's chunks arrive (servers send each chunk
 * once every task writing it pushed), before the scheduler's barrier. A provisional
 * task ends (the end needs t+1's globals) and pushes only after ITER_START
 * of t+1 and the TASK that hands it to this worker again; one never handed
 * is dropped. Sums still run in chunk order, so results are unchanged.
 */
#include <string.h>

#include "runtime/fault.h"
#include "runtime/trace.h"
#include "runtime/worker.h"
#include "util/clock.h"
#include "util/log.h"

/* Start task for iteration iter as a new held task. */
static int blocks_begin(struct worker *w, uint32_t task, uint32_t iter, bool provisional) {
  const struct dsana_app *app = w->node.app;
  const struct dsana_task_decl *d = &w->node.job.tasks[task];
  struct held_task *h = &w->held[w->n_held++];
  memset(h, 0, sizeof *h);
  h->task = task;
  h->provisional = provisional;
  h->ctx = (struct dsana_task_ctx){.task = task, .iter = iter, .lo = d->lo, .hi = d->hi, .globals = w->globals,
                                   .view = &w->view};
  uint64_t t0 = clock_now_ns();
  w->run_iter = iter;
  int rc = app->task_begin ? app->task_begin(w->node.app_state, &h->ctx) : 0;
  h->compute_ns = clock_now_ns() - t0;
  if (rc)
    log_error("task %u failed to start in iteration %u: %s", task, iter, dsana_strerror(rc));
  return rc;
}

static int blocks_start_queued(struct worker *w) {
  while (w->q_len > 0 && w->n_held < worker_held_cap(w)) {
    uint32_t task = worker_queue_pop(w);
    fault_point(FAULT_BEFORE_TASK, w->iter);
    int rc = blocks_begin(w, task, w->iter, false);
    if (rc)
      return rc;
  }
  return 0;
}

int worker_blocks_ahead(struct worker *w, uint32_t iter) {
  w->ahead_iter = iter;
  for (uint32_t i = 0; i < w->n_ran && w->n_held < worker_held_cap(w); i++) {
    int rc = blocks_begin(w, w->ran[i], iter, true);
    if (rc)
      return rc;
  }
  return 0;
}

bool worker_blocks_confirm(struct worker *w, uint32_t task) {
  for (uint32_t i = 0; i < w->n_held; i++)
    if (w->held[i].task == task && w->held[i].provisional && w->held[i].ctx.iter == w->iter) {
      w->held[i].provisional = false;
      return true;
    }
  return false;
}

/* Remove held task i, keeping the rest in order: tasks finish in the order
 * they were handed (ascending keys), so the servers' chunks of the next
 * iteration become final early and in order. */
static void blocks_remove(struct worker *w, uint32_t i) {
  memmove(&w->held[i], &w->held[i + 1], sizeof *w->held * (--w->n_held - i));
}

/* Drop the provisional tasks of iterations before `before`. */
static uint32_t blocks_drop_provisional_before(struct worker *w, uint32_t before) {
  uint32_t dropped = 0;
  for (uint32_t i = 0; i < w->n_held;)
    if (w->held[i].provisional && w->held[i].ctx.iter < before) {
      blocks_remove(w, i);
      dropped++;
    } else {
      i++;
    }
  return dropped;
}

uint32_t worker_blocks_drop_provisional(struct worker *w) { return blocks_drop_provisional_before(w, UINT32_MAX); }

/* Run the blocks of h whose chunks are in; *done when it ran its last and
 * its end (which needs its iteration's globals and the scheduler's word). */
static int blocks_run_ready(struct worker *w, struct held_task *h, bool *ran, bool *done) {
  const struct dsana_app *app = w->node.app;
  uint32_t t = app->pull_table, iter = h->ctx.iter;
  *done = false;
  w->run_iter = iter;
  while (h->next_chunk < w->mirror.n_chunks && mirror_chunk_ready(&w->mirror, t, iter, h->next_chunk)) {
    uint64_t t0 = clock_now_ns();
    h->ctx.cost = 0;
    int rc = app->task_block(w->node.app_state, &h->ctx, h->next_chunk);
    if (rc) {
      log_error("task %u failed in iteration %u: %s", h->task, iter, dsana_strerror(rc));
      return rc;
    }
    uint64_t spent =
        worker_emulate(w, iter, worker_slot(w, h->task, 1 + h->next_chunk), clock_now_ns() - t0, h->ctx.cost);
    h->compute_ns += spent;
    if (w->mirror.t[t].missing > 0)
      h->overlap_ns += spent;
    trace_span(h->provisional || iter != w->iter ? "block ahead" : "block", "compute", t0, clock_now_ns(), iter,
               "chunk", (double)h->next_chunk);
    h->next_chunk++;
    *ran = true;
  }
  if (h->next_chunk < w->mirror.n_chunks || h->provisional || iter != w->iter)
    return 0;
  uint64_t t0 = clock_now_ns();
  h->ctx.cost = 0;
  int rc = app->task_end ? app->task_end(w->node.app_state, &h->ctx) : 0;
  h->compute_ns +=
      worker_emulate(w, iter, worker_slot(w, h->task, 1 + w->mirror.n_chunks), clock_now_ns() - t0, h->ctx.cost);
  *done = true;
  return rc;
}

/* Tell the mirror what the held tasks still read: the chunks from the
 * lowest next one of the oldest iteration held (see mirror_need). */
static int blocks_need(struct worker *w) {
  uint32_t oldest = UINT32_MAX;
  uint64_t from = UINT64_MAX;
  for (uint32_t i = 0; i < w->n_held; i++) {
    const struct held_task *h = &w->held[i];
    if (h->ctx.iter < oldest) {
      oldest = h->ctx.iter;
      from = h->next_chunk;
    } else if (h->ctx.iter == oldest && h->next_chunk < from) {
      from = h->next_chunk;
    }
  }
  return mirror_need(&w->mirror, w->node.app->pull_table, oldest, from);
}

/* Under static scheduling, once fetching ahead, a task done for this
 * iteration starts again at once, provisionally, for the next. */
static int blocks_run_on(struct worker *w, uint32_t task) {
  if (w->ahead_iter != w->iter + 1 || w->n_held >= worker_held_cap(w))
    return 0; /* ahead_iter is set only under static scheduling */
  return blocks_begin(w, task, w->ahead_iter, true);
}

int worker_blocks_step(struct worker *w, bool *progress) {
  *progress = false;
  int rc = blocks_start_queued(w);
  if (rc || w->n_held == 0)
    return rc;
  /* provisional tasks of an iteration already over for this worker */
  if (blocks_drop_provisional_before(w, w->iter) && w->n_held == 0)
    return 0;
  /* make sure the table is being fetched, then take what has arrived */
  if ((rc = blocks_need(w)) != 0 || (rc = mirror_recv(&w->mirror, 0, &(int){0})) < 0)
    return rc;
  uint64_t start = clock_now_ns();
  for (uint32_t i = 0; i < w->n_held;) {
    bool done;
    if ((rc = blocks_run_ready(w, &w->held[i], progress, &done)) != 0)
      return rc;
    if (!done) {
      i++;
      continue;
    }
    struct held_task h = w->held[i];
    blocks_remove(w, i);
    if ((rc = worker_complete(w, h.task, h.compute_ns, 0, h.overlap_ns, start)) != 0 ||
        (rc = blocks_run_on(w, h.task)) != 0)
      return rc;
    *progress = true;
  }
  return 0;
}
