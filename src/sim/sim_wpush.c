/*
 * sim_wpush.c - what a simulated worker sends when a task ended
 * (worker_push.c and worker_flush.c in the runtime): its pushes, cut at the
 * servers' shards and the message size, the last one to each server
 * carrying the task's end marker, and its TASK_DONE record. A task that
 * computed for less than WPUSH_BATCH_NS (runtime/core/rules.h) waits with
 * the next ones (up to WPUSH_BATCH_TASKS): their pushes to one server leave
 * as one message (ASSIGN; else one per run of adjacent ranges) once they
 * hold WPUSH_BATCH_BYTES or the worker has nothing to run, their records
 * as one TASK_DONE when the worker has nothing to run. A longer task's
 * pushes leave at once; its record waits until the worker runs its last
 * queued task.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/core/rules.h"
#include "sim/sim_internal.h"

#define WPUSH_BATCH_S (WPUSH_BATCH_NS / 1e9)
/* The model's size of a TASK_DONE record. The runtime's is larger
 * (msg_task_done_bytes: 72 bytes and 32 per sum), but the costs were
 * calibrated and the model validated (docs/sim.md) with this one: changing
 * it changes what the simulator reports. */
#define TASK_DONE_REC_BYTES(n_sums) (64 + 16 * (uint64_t)(n_sums))

/* Append task to a message's ids. */
static void add_id(struct sim *sim, uint32_t **ids, uint32_t *n, uint32_t task) {
  uint32_t *v = realloc(*ids, sizeof *v * (*n + 1));
  if (!v) {
    sim->failed = DSANA_ENOMEM;
    return;
  }
  v[(*n)++] = task;
  *ids = v;
}

/* Send one push of payload bytes to server s; ids (taken) end there. */
static double send_push(struct sim *sim, uint32_t i, uint32_t s, uint64_t payload, uint32_t *ids, uint32_t n,
                        double t) {
  struct sim_worker *w = &sim->w[i];
  t = simnet_cpu(sim, &w->cpu, t, sim->c->worker_msg_s);
  struct sim_msg *m = simnet_msg(sim, SM_PUSH, SIM_WORKER, i, SIM_SERVER, s, w->rec_iter, payload);
  if (!m) {
    free(ids);
    return t;
  }
  m->ids = ids;
  m->n = n;
  w->bytes_out += m->bytes;
  simnet_send(sim, &w->link, m, t);
  return t;
}

/* The keys of task's write range on server s: [*lo, *hi). */
static void push_range(const struct sim *sim, uint32_t task, uint32_t s, uint64_t *lo, uint64_t *hi) {
  uint64_t a, b;
  shard_range(sim->wk.w_keys, sim->n_servers, s, &a, &b);
  *lo = sim->wk.wlo[task] > a ? sim->wk.wlo[task] : a;
  *hi = sim->wk.whi[task] < b ? sim->wk.whi[task] : b;
}

/* A task's pushes to server s, now: pieces of at most values_per_msg values. */
static double push_now(struct sim *sim, uint32_t i, uint32_t task, uint32_t s, uint64_t keys, double t) {
  const struct sim_work *wk = &sim->wk;
  uint64_t per = (uint64_t)wk->wwidth * wk->wwords, max = wk->values_per_msg / per ? wk->values_per_msg / per : 1;
  for (uint64_t at = 0; at < keys || at == 0; at += max) {
    uint64_t n = keys - at < max ? keys - at : max;
    uint32_t *ids = NULL, n_ids = 0;
    if (at + max >= keys)
      add_id(sim, &ids, &n_ids, task); /* the end marker rides on the last */
    t = send_push(sim, i, s, n * per * sizeof(double), ids, n_ids, t);
    if (keys == 0)
      break;
  }
  return t;
}

/* A task's pushes to server s, kept: ASSIGN ones merged with those kept
 * before (whatever their ranges), others with the run before them when
 * adjacent. */
static void push_later(struct sim *sim, uint32_t i, uint32_t task, uint32_t s, uint64_t lo, uint64_t hi) {
  struct sim_pend *p = &sim->w[i].pend[s];
  uint64_t per = (uint64_t)sim->wk.wwidth * sim->wk.wwords;
  if (!p->msgs || (!sim->wk.wassign && p->hi != lo))
    p->msgs++;
  p->bytes += 8 + (hi - lo) * per * sizeof(double);
  p->hi = hi;
  add_id(sim, &p->ids, &p->n_ids, task);
}

static void add_record(struct sim *sim, uint32_t i, uint32_t task, double compute_s) {
  struct sim_worker *w = &sim->w[i];
  if (w->n_recs == w->cap_recs) {
    uint32_t cap = w->cap_recs ? 2 * w->cap_recs : 16;
    struct sim_rec *r = realloc(w->recs, sizeof *r * cap);
    if (!r) {
      sim->failed = DSANA_ENOMEM;
      return;
    }
    w->recs = r;
    w->cap_recs = cap;
  }
  w->recs[w->n_recs++] = (struct sim_rec){.task = task,
                                          .compute_s = compute_s,
                                          .bytes_in = w->bytes_in - w->in_mark,
                                          .bytes_out = w->bytes_out - w->out_mark};
  w->in_mark = w->bytes_in;
  w->out_mark = w->bytes_out;
}

/* The bytes of the pushes that wait (values and their task ids). */
static uint64_t pend_bytes(const struct sim *sim, uint32_t i) {
  uint64_t b = 0;
  for (uint32_t s = 0; s < sim->n_servers; s++)
    b += sim->w[i].pend[s].bytes;
  return b;
}

double simwpush_flush_pushes(struct sim *sim, uint32_t i, double t) {
  struct sim_worker *w = &sim->w[i];
  for (uint32_t s = 0; s < sim->n_servers; s++) {
    struct sim_pend *p = &w->pend[s];
    for (uint32_t k = 0; k < p->msgs; k++) { /* the end markers ride on the last */
      bool last = k + 1 == p->msgs;
      t = send_push(sim, i, s, p->bytes / p->msgs, last ? p->ids : NULL, last ? p->n_ids : 0, t);
    }
    *p = (struct sim_pend){0};
  }
  return t;
}

double simwpush_flush(struct sim *sim, uint32_t i, double t) {
  struct sim_worker *w = &sim->w[i];
  t = simwpush_flush_pushes(sim, i, t);
  if (!w->n_recs)
    return t;
  t = simnet_cpu(sim, &w->cpu, t, sim->c->worker_msg_s);
  struct sim_msg *m = simnet_msg(sim, SM_TASK_DONE, SIM_WORKER, i, SIM_SCHED, 0, w->rec_iter,
                                 w->n_recs * TASK_DONE_REC_BYTES(sim->wk.n_sums));
  if (m) {
    m->recs = malloc(sizeof *m->recs * w->n_recs);
    if (!m->recs) {
      sim->failed = DSANA_ENOMEM;
      simnet_msg_free(m);
      return t;
    }
    memcpy(m->recs, w->recs, sizeof *m->recs * w->n_recs);
    m->n = w->n_recs;
    simnet_send(sim, &w->link, m, t);
  }
  w->n_recs = 0;
  return t;
}

/* A thread of worker i runs a task (the one that just ended has none). */
static bool others_running(const struct sim *sim, uint32_t i) {
  for (uint32_t k = 0; k < sim->threads; k++)
    if (sim->w[i].th[k].running != SIM_NO_TASK)
      return true;
  return false;
}

double simwpush_finished(struct sim *sim, uint32_t i, uint32_t task, uint32_t iter, double compute_s, double t) {
  struct sim_worker *w = &sim->w[i];
  if (w->n_recs && w->rec_iter != iter)
    t = simwpush_flush(sim, i, t);
  w->rec_iter = iter;
  bool defer = compute_s < WPUSH_BATCH_S && w->n_recs + 1 < WPUSH_BATCH_TASKS;
  const struct sim_work *wk = &sim->wk;
  if (wk->wlo[task] < wk->whi[task]) {
    uint32_t s0 = shard_of(wk->w_keys, sim->n_servers, wk->wlo[task]);
    uint32_t s1 = shard_of(wk->w_keys, sim->n_servers, wk->whi[task] - 1);
    for (uint32_t s = s0; s <= s1; s++) {
      uint64_t lo, hi;
      push_range(sim, task, s, &lo, &hi);
      if (defer)
        push_later(sim, i, task, s, lo, hi);
      else
        t = push_now(sim, i, task, s, hi > lo ? hi - lo : 0, t);
    }
  }
  add_record(sim, i, task, compute_s);
  if (defer)
    return pend_bytes(sim, i) >= WPUSH_BATCH_BYTES ? simwpush_flush_pushes(sim, i, t) : t;
  /* the report waits until the worker runs its last task (the runtime's
   * compute pool already holds the next one when this one ends), or, with
   * every task handed out, until that one is done and no other thread
   * runs one (worker_tasks.c: others_running) */
  bool report = (w->q_len <= (w->handed_all ? 0u : 1u) && !(w->handed_all && others_running(sim, i))) ||
                w->n_recs >= WPUSH_BATCH_TASKS;
  return report ? simwpush_flush(sim, i, t) : simwpush_flush_pushes(sim, i, t);
}
