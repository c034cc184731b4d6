/*
 * sim_sched.c - the scheduler of the simulated run (scheduler_iter.c in
 * the runtime), driving the real policy (policy/sched.h, handout.h): at the
 * start of an iteration sched_begin_iter() and the first tasks in
 * ITER_START (one to each worker in turn up to its depth, then block-wise
 * workers' budget); then per TASK_DONE the records go to sched_report() and
 * the worker is topped up to its depth through sched_next() (stealing
 * included); a worker running tasks is told to fetch ahead at once. Once every
 * server reported and every task is done: the iteration's record to the
 * observer, ITER_END to the servers, and the next ITER_START.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/handout.h"
#include "runtime/core/iter_figures.h"
#include "runtime/msg/msg.h"
#include "sim/sim_internal.h"
#include "util/memory/grow.h"

int simsched_init(struct sim *sim) {
  struct sim_sched *s = &sim->s;
  uint32_t W = sim->n_workers, T = sim->wk.n_tasks;
  int rc = sched_create(sim->cfg->sched, W, sim->wk.cost, T, &s->policy);
  if (rc)
    return rc;
  sched_set_contiguous(s->policy, sim->wk.contiguous);
  for (uint32_t w = 0; w < W && !rc; w++)
    rc = sched_set_threads(s->policy, w, sim->threads);
  if (rc)
    return rc;
  s->w = calloc(W, sizeof *s->w);
  s->task_seen = calloc(T, 1);
  s->task_owner = calloc(T, sizeof *s->task_owner);
  s->wstats = calloc(W, sizeof *s->wstats);
  uint32_t n = sim->opt->max_iter;
  s->iter_wall = calloc(n, sizeof *s->iter_wall);
  s->iter_bound = calloc(n, sizeof *s->iter_bound);
  s->iter_tbound = calloc(n, sizeof *s->iter_tbound);
  bool ok = s->w && s->task_seen && s->task_owner && s->wstats && s->iter_wall && s->iter_bound && s->iter_tbound;
  return ok ? 0 : DSANA_ENOMEM;
}

void simsched_fini(struct sim *sim) {
  struct sim_sched *s = &sim->s;
  sched_destroy(s->policy);
  for (uint32_t w = 0; s->w && w < sim->n_workers; w++)
    free(s->w[w].batch);
  free(s->w);
  free(s->task_seen);
  free(s->task_owner);
  free(s->wstats);
  free(s->iter_wall);
  free(s->iter_bound);
  free(s->iter_tbound);
}

/* Send m from the scheduler (its CPU per message); returns the time after. */
static double send(struct sim *sim, struct sim_msg *m, double t) {
  t = simnet_cpu(sim, &sim->s.cpu, t, sim->c->sched_msg_s);
  sim->s.messages++;
  simnet_send(sim, NULL, m, t); /* the scheduler's link is not emulated */
  return t;
}

/* hand_out_one() of scheduler_iter.c. */
static int hand_out_one(struct sim *sim, uint32_t w, bool may_steal, double *cost, double *t) {
  struct sim_sched *s = &sim->s;
  struct sim_wslot *p = &s->w[w];
  uint32_t task;
  bool stolen;
  if ((may_steal ? sched_next : sched_next_own)(s->policy, w, &task, &stolen) != 0)
    return DSANA_EAGAIN;
  uint32_t *b = grow_for_one(p->batch, &p->cap_batch, p->n_batch, sizeof *b, 16);
  if (!b) {
    sim->failed = DSANA_ENOMEM;
    return DSANA_ENOMEM;
  }
  p->batch = b;
  b[p->n_batch++] = task;
  *t = simnet_cpu(sim, &s->cpu, *t, sim->c->sched_handout_s);
  if (cost)
    *cost += sim->wk.cost[task];
  s->task_owner[task] = w;
  p->outstanding++;
  p->handed++;
  return 0;
}

static bool has_room(const struct sim_wslot *p) { return p->outstanding < p->depth; }

/* A message to worker w carrying its batch (taken). */
static struct sim_msg *batch_msg(struct sim *sim, enum sim_msg_type type, uint32_t w, uint64_t extra) {
  struct sim_wslot *p = &sim->s.w[w];
  struct sim_msg *m = simnet_msg(sim, type, SIM_SCHED, 0, SIM_WORKER, w, sim->s.iter, extra + 4 * (uint64_t)p->n_batch);
  if (!m)
    return NULL;
  m->ids = p->batch;
  m->n = p->n_batch;
  m->handed_all = sched_remaining(sim->s.policy) == 0;
  p->batch = NULL;
  p->n_batch = p->cap_batch = 0;
  return m;
}

/* fetch_ahead() of scheduler_iter.c: a worker running tasks fetches t+1's input at once. */
static double fetch_ahead(struct sim *sim, uint32_t w, bool starting, double t) {
  struct sim_sched *s = &sim->s;
  struct sim_wslot *p = &s->w[w];
  if (p->handed == 0)
    return t;
  if (!sim->wk.fetch_ahead || p->ahead || s->iter >= sim->opt->max_iter)
    return t;
  p->ahead = true;
  if (starting)
    return t; /* ITER_START says so */
  return send(sim, simnet_msg(sim, SM_FETCH_AHEAD, SIM_SCHED, 0, SIM_WORKER, w, s->iter + 1, 0), t);
}

/* hand_out_first() of scheduler_iter.c. */
static double hand_out_first(struct sim *sim, double t) {
  struct sim_sched *s = &sim->s;
  double mean = 0;
  for (uint32_t k = 0; k < sim->wk.n_tasks; k++)
    mean += sim->wk.cost[k] / sim->wk.n_tasks;
  uint32_t refills = handout_refills(s->last_wall, sim->c->sched_msg_s, sim->n_workers);
  for (uint32_t w = 0; w < sim->n_workers; w++) {
    const uint32_t *queued;
    uint32_t share = sched_queued_tasks(s->policy, w, &queued);
    s->w[w].depth = handout_hold(sim->cfg->sched, sched_speed_est(s->policy, w), mean, sim->threads, share,
                                 sim->n_workers, refills);
  }
  for (bool more = true; more && !sim->failed;) {
    more = false;
    for (uint32_t w = 0; w < sim->n_workers; w++)
      more |= has_room(&s->w[w]) && hand_out_one(sim, w, false, NULL, &t) == 0;
  }
  for (uint32_t w = 0; w < sim->n_workers; w++) {
    double budget =
        handout_first_budget(sim->cfg->sched, sim->wk.blocks && sim->wk.fetch_ahead, sched_queued_cost(s->policy, w));
    double handed = 0;
    while (handed < budget - 1e-9 * budget && hand_out_one(sim, w, false, &handed, &t) == 0) {
    }
    t = fetch_ahead(sim, w, true, t);
  }
  return t;
}

void simsched_start_iteration(struct sim *sim, double t) {
  struct sim_sched *s = &sim->s;
  s->iter++;
  s->tasks_done = s->reports = 0;
  s->messages = 0;
  s->raw_compute_s = 0;
  s->start_t = t;
  memset(s->wstats, 0, sizeof *s->wstats * sim->n_workers);
  memset(s->task_seen, 0, sim->wk.n_tasks);
  for (uint32_t w = 0; w < sim->n_workers; w++) {
    s->w[w].outstanding = s->w[w].handed = 0;
    s->w[w].ahead = false;
  }
  double plan = sim->threads > 1 ? sim->c->sched_plan_task_s * sim->wk.n_tasks : 0; /* list schedules */
  t = simnet_cpu(sim, &s->cpu, t, sim->c->sched_iter_s + plan);
  if (sched_begin_iter(s->policy, NULL) != 0) {
    sim->failed = DSANA_EINVAL;
    return;
  }
  t = hand_out_first(sim, t);
  for (uint32_t w = 0; w < sim->n_workers && !sim->failed; w++) {
    bool ahead = s->w[w].ahead;
    struct sim_msg *m = batch_msg(sim, SM_ITER_START, w, MSG_GLOBALS_BYTES);
    if (m)
      m->ahead = ahead;
    t = send(sim, m, t);
  }
}

static void record_iteration(struct sim *sim, double t) {
  struct sim_sched *s = &sim->s;
  uint32_t W = sim->n_workers, k = s->iter - 1;
  double wall = t - s->start_t;
  s->iter_wall[k] = s->last_wall = wall;
  s->iter_bound[k] = rt_compute_bound(sim->sc, W, s->iter, s->raw_compute_s) / sim->threads;
  s->iter_tbound[k] = rt_transfer_bound(sim->sc, s->wstats, W, sim->n_servers);
  for (uint32_t w = 0; w < W; w++) {
    s->wstats[w].stolen = sched_stolen(s->policy, w);
    s->wstats[w].speed_est = sched_speed_est(s->policy, w);
    s->wstats[w].wait_s = wall > s->wstats[w].compute_s ? wall - s->wstats[w].compute_s : 0;
  }
  struct rt_iter_report r = {.iter = s->iter,
                             .max_iter = sim->opt->max_iter,
                             .wall_s = wall,
                             .bound_s = s->iter_bound[k],
                             .transfer_bound_s = s->iter_tbound[k],
                             .messages = s->messages,
                             .workers = s->wstats,
                             .n_workers = W};
  if (sim->obs && sim->obs->iteration)
    sim->obs->iteration(sim->obs->arg, &r);
}

static void end_iteration(struct sim *sim, double t) {
  struct sim_sched *s = &sim->s;
  record_iteration(sim, t);
  for (uint32_t i = 0; i < sim->n_servers; i++)
    t = send(sim, simnet_msg(sim, SM_ITER_END, SIM_SCHED, 0, SIM_SERVER, i, s->iter, MSG_GLOBALS_BYTES), t);
  if (s->iter >= sim->opt->max_iter) {
    s->done = true;
    s->end_t = t;
    return;
  }
  simsched_start_iteration(sim, t);
}

static void maybe_end(struct sim *sim, double t) {
  if (sim->s.reports == sim->n_servers && sim->s.tasks_done == sim->wk.n_tasks && !sim->s.done)
    end_iteration(sim, t);
}

static void take_done(struct sim *sim, uint32_t w, const struct sim_rec *d) {
  struct sim_sched *s = &sim->s;
  struct worker_iter_stats *st = &s->wstats[w];
  st->compute_s += d->compute_s;
  st->tasks++;
  st->bytes_in += d->bytes_in;
  st->bytes_out += d->bytes_out;
  s->raw_compute_s += d->compute_s / scenario_slowdown(sim->sc, w, s->iter);
  s->tasks_done++;
  s->task_seen[d->task] = 1;
  sched_report(s->policy, w, d->task, d->compute_s / sim->threads); /* threads run side by side */
  if (s->task_owner[d->task] == w && s->w[w].outstanding > 0)
    s->w[w].outstanding--;
}

static void on_task_done(struct sim *sim, const struct sim_msg *m, double t) {
  struct sim_sched *s = &sim->s;
  uint32_t w = m->from;
  t = simnet_cpu(sim, &s->cpu, t, sim->c->sched_record_s * m->n);
  for (uint32_t k = 0; k < m->n; k++)
    if (m->iter == s->iter && !s->done && m->recs[k].task < sim->wk.n_tasks && !s->task_seen[m->recs[k].task])
      take_done(sim, w, &m->recs[k]);
  while (has_room(&s->w[w]) &&
         hand_out_one(sim, w, handout_may_steal(s->w[w].outstanding, sim->threads), NULL, &t) == 0) {
  }
  if (s->w[w].n_batch)
    t = send(sim, batch_msg(sim, SM_TASKS, w, 0), t);
  t = fetch_ahead(sim, w, false, t);
  maybe_end(sim, t);
}

void simsched_on_msg(struct sim *sim, struct sim_msg *m, double t) {
  struct sim_sched *s = &sim->s;
  s->messages++;
  t = simnet_cpu(sim, &s->cpu, t, sim->c->sched_msg_s);
  if (m->type == SM_TASK_DONE) {
    on_task_done(sim, m, t);
  } else if (m->type == SM_SHARD_REPORT && m->iter == s->iter && !s->done) {
    s->reports++;
    maybe_end(sim, t);
  }
  simnet_msg_free(m);
}

void simsched_finish(struct sim *sim) {
  const struct sim_sched *s = &sim->s;
  const struct run_config *cfg = sim->cfg;
  bool dyn = cfg->sched == SCHED_DYNAMIC, chunked = sim->wk.fetch_ahead;
  uint64_t keys = sim->wk.chunk_keys ? sim->wk.chunk_keys : sim->wk.n_keys;
  uint32_t n = s->iter < sim->opt->max_iter ? s->iter : sim->opt->max_iter;
  struct rt_run_report r = {.app = sim->app->name,
                            .mode = run_mode_name(cfg->mode),
                            .mechanisms = dyn && chunked ? "dynamic+chunking"
                                          : dyn          ? "dynamic"
                                          : chunked      ? "chunking"
                                                         : "none",
                            .sched = sched_kind_name(cfg->sched),
                            .scenario = cfg->scenario_path,
                            .workers = sim->n_workers,
                            .servers = sim->n_servers,
                            .tasks = sim->wk.n_tasks,
                            .tasks_per_worker = config_tasks_per_worker(cfg),
                            .iterations = n,
                            .median_iter_s = rt_median(s->iter_wall, n),
                            .bound_s = rt_median(s->iter_bound, n),
                            .transfer_bound_s = rt_median(s->iter_tbound, n),
                            .chunk_bytes = keys * sizeof(double),
                            .chunked = sim->wk.chunk_keys != 0,
                            .residual = NAN, /* no values are computed */
                            /* not modelled: no process counts them */
                            .wakeups_per_iter = -1,
                            .cpu_ms_per_iter = -1,
                            .sched_messages_per_iter = -1,
                            .steals_per_iter = -1,
                            .handouts_per_iter = -1};
  for (uint32_t k = 0; k < n; k++)
    r.total_s += s->iter_wall[k];
  if (sim->obs && sim->obs->summary)
    sim->obs->summary(sim->obs->arg, &r);
}
