/*
 * worker_blocks.c - running tasks block by block as chunks arrive.
 *
 * With chunked transfers and an app that splits tasks into blocks (one per
 * chunk of the table it reads), the worker starts every task it has been
 * handed at once and runs, for each started task in turn, every block whose
 * chunk is in, in chunk order. While the table streams in, computation on
 * the chunks already here overlaps the transfer of the rest, across all the
 * worker's tasks; a task whose last block ran is pushed at once.
 */
#include <string.h>

#include "runtime/fault.h"
#include "runtime/trace.h"
#include "runtime/worker.h"
#include "util/clock.h"
#include "util/log.h"

static int blocks_start_queued(struct worker *w) {
  const struct dsana_app *app = w->node.app;
  while (w->q_len > 0 && w->n_held < WORKER_QUEUE_MAX) {
    uint32_t task = w->queue[w->q_head];
    w->q_head = (w->q_head + 1) % WORKER_QUEUE_MAX;
    w->q_len--;
    fault_point(FAULT_BEFORE_TASK, w->iter);
    const struct dsana_task_decl *d = &w->node.job.tasks[task];
    struct held_task *h = &w->held[w->n_held++];
    memset(h, 0, sizeof *h);
    h->task = task;
    h->ctx = (struct dsana_task_ctx){.task = task, .iter = w->iter, .lo = d->lo, .hi = d->hi, .globals = w->globals,
                                     .view = &w->view};
    uint64_t t0 = clock_now_ns();
    int rc = app->task_begin ? app->task_begin(w->node.app_state, &h->ctx) : 0;
    h->compute_ns = clock_now_ns() - t0;
    if (rc) {
      log_error("task %u failed to start in iteration %u: %s", task, w->iter, dsana_strerror(rc));
      return rc;
    }
  }
  return 0;
}

/* Run the blocks of h whose chunks are in; *done when it ran its last. */
static int blocks_run_ready(struct worker *w, struct held_task *h, bool *ran, bool *done) {
  const struct dsana_app *app = w->node.app;
  uint32_t t = app->pull_table;
  *done = false;
  while (h->next_chunk < w->mirror.n_chunks && mirror_chunk_ready(&w->mirror, t, w->iter, h->next_chunk)) {
    uint64_t t0 = clock_now_ns();
    int rc = app->task_block(w->node.app_state, &h->ctx, h->next_chunk);
    if (rc) {
      log_error("task %u failed in iteration %u: %s", h->task, w->iter, dsana_strerror(rc));
      return rc;
    }
    uint64_t spent = worker_emulate(w, worker_slot(w, h->task, 1 + h->next_chunk), clock_now_ns() - t0);
    h->compute_ns += spent;
    if (w->mirror.t[t].missing > 0)
      h->overlap_ns += spent;
    trace_span("block", "compute", t0, clock_now_ns(), w->iter, "chunk", (double)h->next_chunk);
    h->next_chunk++;
    *ran = true;
  }
  if (h->next_chunk < w->mirror.n_chunks)
    return 0;
  uint64_t t0 = clock_now_ns();
  int rc = app->task_end ? app->task_end(w->node.app_state, &h->ctx) : 0;
  h->compute_ns += worker_emulate(w, worker_slot(w, h->task, 1 + w->mirror.n_chunks), clock_now_ns() - t0);
  *done = true;
  return rc;
}

int worker_blocks_step(struct worker *w, bool *progress) {
  *progress = false;
  int rc = blocks_start_queued(w);
  if (rc || w->n_held == 0)
    return rc;
  /* make sure the table is being fetched, then take what has arrived */
  if ((rc = mirror_request(&w->mirror, w->node.app->pull_table, w->iter)) != 0 ||
      (rc = mirror_recv(&w->mirror, 0, &(int){0})) < 0)
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
    /* keep the rest in order: tasks finish in the order they were handed
     * (ascending keys), so the servers' chunks of the next iteration
     * become final early and in order */
    memmove(&w->held[i], &w->held[i + 1], sizeof *w->held * (--w->n_held - i));
    if ((rc = worker_complete(w, h.task, h.compute_ns, 0, h.overlap_ns, start)) != 0)
      return rc;
    *progress = true;
  }
  return 0;
}
