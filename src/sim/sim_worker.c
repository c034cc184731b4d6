/*
 * sim_worker.c - a worker of the simulated run (worker_tasks.c and the
 * mirror in the runtime): it queues the tasks the scheduler hands it, pulls
 * the read table of an iteration from every server (at ITER_START when it
 * ran tasks in the iteration before, else on its first task, or ahead when
 * the scheduler says so), and runs its tasks in the order handed, one at a
 * time on each of its compute threads (--threads, each at the worker's
 * speed): whole once every chunk is in, or block by block as chunks arrive
 * (a block costs the task's cost over the chunk count). A task's modelled
 * time is the scenario's (simwork_task_s) times the seeded noise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"
#include "util/memory/grow.h"
#include "util/numeric/splitmix.h"

int simworker_init(struct sim *sim, uint32_t i) {
  struct sim_worker *w = &sim->w[i];
  const struct scenario_link *l = i < sim->sc->n_workers ? &sim->sc->link[i] : &sim->sc->global_link;
  simnet_link_init(&w->link, l->bandwidth_bytes_per_s, l->latency_s);
  w->th = calloc(sim->threads, sizeof *w->th);
  for (uint32_t k = 0; w->th && k < sim->threads; k++)
    w->th[k].running = SIM_NO_TASK;
  w->got[0] = calloc(sim->wk.n_chunks, sizeof *w->got[0]);
  w->got[1] = calloc(sim->wk.n_chunks, sizeof *w->got[1]);
  w->pend = calloc(sim->n_servers, sizeof *w->pend);
  return w->th && w->got[0] && w->got[1] && w->pend ? 0 : DSANA_ENOMEM;
}

void simworker_fini(struct sim *sim, uint32_t i) {
  struct sim_worker *w = &sim->w[i];
  simnet_link_fini(&w->link);
  free(w->th);
  free(w->queue);
  free(w->got[0]);
  free(w->got[1]);
  for (uint32_t s = 0; w->pend && s < sim->n_servers; s++)
    free(w->pend[s].ids);
  free(w->pend);
  free(w->recs);
}

/* Lognormal noise of mean 1 from (seed, worker, draw): deterministic. */
static double noise(struct sim *sim, uint32_t i) {
  double sigma = sim->opt->noise;
  if (!(sigma > 0))
    return 1;
  uint64_t z = sim->opt->seed ^ ((uint64_t)i << 40) ^ sim->w[i].draws++ * SPLITMIX64_GOLDEN, h[2];
  for (uint64_t k = 0; k < 2; k++)
    h[k] = splitmix64_at(z, k);
  double u1 = ((double)(h[0] >> 11) + 0.5) * 0x1.0p-53, u2 = (double)(h[1] >> 11) * 0x1.0p-53;
  double g = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
  return exp(sigma * g - sigma * sigma / 2);
}

/* Ask every server for iteration iter's read table (once). */
static double pull(struct sim *sim, uint32_t i, uint32_t iter, double t) {
  struct sim_worker *w = &sim->w[i];
  uint32_t p = iter & 1;
  if (!sim->wk.read_dense || w->pulled[p] == iter)
    return t;
  w->pulled[p] = iter;
  w->got_iter[p] = iter;
  w->chunks_in[p] = 0;
  memset(w->got[p], 0, sizeof *w->got[p] * sim->wk.n_chunks);
  for (uint32_t s = 0; s < sim->n_servers; s++) {
    if (sim->sv[s].nc == 0)
      continue;
    t = simnet_cpu(sim, &w->cpu, t, sim->c->worker_msg_s);
    simnet_send(sim, &w->link, simnet_msg(sim, SM_PULL, SIM_WORKER, i, SIM_SERVER, s, iter, 0), t);
  }
  return t;
}

static bool chunk_in(const struct sim *sim, const struct sim_worker *w, uint32_t iter, uint64_t c) {
  uint32_t p = iter & 1;
  return !sim->wk.read_dense || (w->got_iter[p] == iter && w->pulled[p] == iter && w->got[p][c] >= sim->wk.parts[c]);
}

static bool all_in(const struct sim *sim, const struct sim_worker *w, uint32_t iter) {
  uint32_t p = iter & 1;
  return !sim->wk.read_dense || (w->pulled[p] == iter && w->got_iter[p] == iter && w->chunks_in[p] == sim->wk.n_chunks);
}

/* Compute for `share` of th's running task from t on. */
static void compute(struct sim *sim, uint32_t i, struct sim_thread *th, double share, double t) {
  struct sim_worker *w = &sim->w[i];
  double c = sim->wk.cost[th->running];
  double model = simwork_task_s(sim, i, w->iter, c) * th->task_noise * share;
  double real_end = simnet_host(sim, t, c * share * sim->c->worker_ns_per_cost * 1e-9);
  double end = t + model > real_end ? t + model : real_end;
  th->task_compute += end - t;
  th->busy = true;
  simnet_event(sim, EV_COMPUTE, end, i, th);
}

/* Start th's next piece of work if there is one; false when there is none. */
static bool run_on(struct sim *sim, uint32_t i, struct sim_thread *th, double *t) {
  struct sim_worker *w = &sim->w[i];
  const struct sim_work *wk = &sim->wk;
  if (th->running == SIM_NO_TASK && w->q_len) {
    th->running = w->queue[w->q_head];
    w->q_head = (w->q_head + 1) % w->q_cap;
    w->q_len--;
    th->next_chunk = th->item_end = 0;
    th->task_compute = 0;
    th->task_noise = noise(sim, i);
    *t = pull(sim, i, w->iter, *t); /* on its first task, if not asked before */
  }
  if (th->running != SIM_NO_TASK && !wk->blocks && all_in(sim, w, w->iter)) {
    th->item_end = wk->n_chunks;
    compute(sim, i, th, 1.0, *t);
    return true;
  }
  if (th->running != SIM_NO_TASK && wk->blocks) {
    uint64_t c = th->next_chunk;
    /* consecutive ready blocks run as one item (one at a time without a cost model) */
    while (c < wk->n_chunks && chunk_in(sim, w, w->iter, c) && (c == th->next_chunk || sim->sc->ns_per_cost > 0))
      c++;
    if (c > th->next_chunk) {
      th->item_end = c;
      compute(sim, i, th, (double)(c - th->next_chunk) / (double)wk->n_chunks, *t);
      return true;
    }
  }
  return false;
}

/* Start what each idle thread can run; when one has nothing, what waits
 * leaves (the report too once no thread computes). */
static void try_run(struct sim *sim, uint32_t i, double t) {
  struct sim_worker *w = &sim->w[i];
  bool idle = false, computing = false;
  for (uint32_t k = 0; k < sim->threads; k++) {
    struct sim_thread *th = &w->th[k];
    if (!th->busy && !run_on(sim, i, th, &t))
      idle = true;
    computing |= th->busy;
  }
  if (idle)
    computing ? simwpush_flush_pushes(sim, i, t) : simwpush_flush(sim, i, t);
}

void simworker_on_compute(struct sim *sim, uint32_t i, struct sim_thread *th, double t) {
  struct sim_worker *w = &sim->w[i];
  th->busy = false;
  th->next_chunk = th->item_end;
  if (th->next_chunk >= sim->wk.n_chunks) {
    uint32_t task = th->running;
    th->running = SIM_NO_TASK;
    w->n_ran++;
    t = simnet_cpu(sim, &w->cpu, t, sim->c->worker_task_s);
    t = simwpush_finished(sim, i, task, w->iter, th->task_compute, t);
  }
  try_run(sim, i, t);
}

/* Room for one more task in w's ring (grow_for_one: doubling from 16),
 * the part that wrapped to the front moved after the old end; false when
 * memory runs out. A worker holds its share and a refill, not every task:
 * rings of n_tasks each were W x T entries (4 GB at 4,096 workers x 64
 * tasks). */
static bool queue_room(struct sim_worker *w) {
  size_t cap = w->q_cap;
  uint32_t *q = grow_for_one(w->queue, &cap, w->q_len, sizeof *q, 16);
  if (!q)
    return false;
  if (cap != w->q_cap && w->q_head + w->q_len > w->q_cap)
    memcpy(q + w->q_cap, q, sizeof *q * (w->q_head + w->q_len - w->q_cap));
  w->queue = q;
  w->q_cap = (uint32_t)cap;
  return true;
}

static void enqueue(struct sim *sim, uint32_t i, const struct sim_msg *m) {
  struct sim_worker *w = &sim->w[i];
  for (uint32_t k = 0; k < m->n && w->q_len < sim->wk.n_tasks; k++) {
    if (!queue_room(w)) {
      sim->failed = DSANA_ENOMEM;
      return;
    }
    w->queue[(w->q_head + w->q_len++) % w->q_cap] = m->ids[k];
  }
}

/* The scheduler says: fetch iteration iter's input now (fetch_ahead). */
static double fetch_ahead(struct sim *sim, uint32_t i, uint32_t iter, double t) {
  struct sim_worker *w = &sim->w[i];
  if (iter != w->iter + 1)
    return t;
  return pull(sim, i, iter, t);
}

static void on_iter_start(struct sim *sim, uint32_t i, const struct sim_msg *m, double t) {
  struct sim_worker *w = &sim->w[i];
  if (m->iter <= w->iter)
    return;
  bool ran_before = w->n_ran > 0;
  w->n_ran = 0;
  w->iter = m->iter;
  w->handed_all = m->handed_all;
  if (ran_before)
    t = pull(sim, i, w->iter, t);
  enqueue(sim, i, m);
  if (m->ahead)
    t = fetch_ahead(sim, i, m->iter + 1, t);
  try_run(sim, i, t);
}

static void on_reply(struct sim *sim, uint32_t i, const struct sim_msg *m, double t) {
  struct sim_worker *w = &sim->w[i];
  uint32_t p = m->iter & 1;
  if (w->got_iter[p] != m->iter || m->chunk >= sim->wk.n_chunks)
    return;
  w->bytes_in += m->bytes > 64 ? m->bytes - 64 : 0;
  if (++w->got[p][m->chunk] == sim->wk.parts[m->chunk])
    w->chunks_in[p]++;
  try_run(sim, i, t);
}

void simworker_on_msg(struct sim *sim, struct sim_msg *m, double t) {
  uint32_t i = m->to;
  struct sim_worker *w = &sim->w[i];
  t = simnet_cpu(sim, &w->cpu, t, sim->c->worker_msg_s);
  if (m->type == SM_ITER_START) {
    on_iter_start(sim, i, m, t);
  } else if (m->type == SM_TASKS && m->iter == w->iter) {
    w->handed_all |= m->handed_all;
    enqueue(sim, i, m);
    try_run(sim, i, t);
  } else if (m->type == SM_FETCH_AHEAD) {
    fetch_ahead(sim, i, m->iter, t);
  } else if (m->type == SM_PULL_REPLY) {
    on_reply(sim, i, m, t);
  }
  simnet_msg_free(m);
}
