/*
 * scheduler_iter.c - the scheduler's iteration clock: hand out tasks
 * through the policy (batched, one TASKS message per worker and pass),
 * gather the servers' shard reports and the tasks' reports, reduce them
 * through the app, commit the iteration and decide whether to go on.
 *
 * An iteration ends when every server reported its shard complete (every
 * push arrived) and every task's TASK_DONE came in (no worker still reads
 * the iteration's values). Then ITER_END commits it on the servers, with
 * the globals of reduce(), and the next ITER_START goes to the workers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/handout.h"
#include "runtime/record/checkpoint.h"
#include "runtime/role/app_check.h"
#include "runtime/core/iter_figures.h"
#include "runtime/scheduler/scheduler_internal.h"
#include "runtime/record/trace.h"
#include "util/text/log.h"

/* Task ids that fit in `room` payload bytes, whole 8-byte words. */
static uint32_t ids_fitting(uint64_t room) {
  uint64_t n = room / 8 * 2;
  return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* n task ids as u32 words at dst (TASKS, ITER_START and FETCH_AHEAD payloads). */
static void put_ids(uint8_t *dst, const uint32_t *ids, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    wire_put_u32(dst + 4 * i, ids[i]);
}

/* WIRE_F_HANDED_ALL when no task of the iteration waits to be handed out:
 * the worker's report before its last task ends would ask for nothing. */
static uint32_t handed_all(const struct scheduler *s) {
  return sched_remaining(s->policy) == 0 ? WIRE_F_HANDED_ALL : 0;
}

/* Send the batch of tasks w got in this pass, in as many messages as the
 * payload limit needs. */
static int flush_batch(struct scheduler *s, uint32_t w, struct rt_outq *out) {
  struct peer_slot *p = &s->workers[w];
  uint32_t per = ids_fitting(s->cfg.max_payload_bytes);
  for (uint32_t at = 0; at < p->n_batch;) {
    uint32_t n = p->n_batch - at < per ? p->n_batch - at : per;
    uint8_t *buf = malloc(4 * (size_t)n);
    if (!buf)
      return DSANA_ENOMEM;
    put_ids(buf, p->batch + at, n);
    struct wire_hdr h = wire_hdr_make(WIRE_TASKS, 0);
    h.iter = s->iter;
    h.count = n;
    h.chunk = s->losses;
    h.flags = handed_all(s);
    at += n;
    s->acc.handouts++;
    /* unreachable: its tasks return to the pool when it is declared lost */
    int rc = sch_send_owned(s, p, &h, buf, 4 * (size_t)n, out);
    if (rc)
      return rc;
  }
  p->n_batch = 0;
  return 0;
}

/* One task for w (may_steal: from another's queue when w's own is empty). */
static int hand_out_one(struct scheduler *s, uint32_t w, bool may_steal, double *cost) {
  uint32_t task;
  bool stolen;
  if ((may_steal ? sched_next : sched_next_own)(s->policy, w, &task, &stolen) != 0)
    return DSANA_EAGAIN;
  if (cost)
    *cost += s->job.tasks[task].cost;
  struct peer_slot *p = &s->workers[w];
  s->task_owner[task] = w;
  p->outstanding++;
  p->handed++;
  p->batch[p->n_batch++] = task;
  return 0;
}

/* Worker w takes part and holds fewer tasks than its depth. */
static bool has_room(const struct scheduler *s, uint32_t w) {
  const struct peer_slot *p = &s->workers[w];
  return p->registered && !p->lost && !p->joining && p->outstanding < p->depth;
}

static int hand_out(struct scheduler *s, uint32_t w) {
  int rc = 0;
  while (!rc && has_room(s, w))
    rc = hand_out_one(s, w, handout_may_steal(s->workers[w].outstanding, s->workers[w].threads), NULL);
  return rc == DSANA_EAGAIN ? 0 : rc;
}

/* With fetching ahead, a worker that runs tasks in this iteration fetches
 * the next one's input at once, into its mirror's other buffer: servers
 * stream each chunk as it becomes final, so the transfer overlaps this
 * iteration's work, and a task handed to it late still reads this
 * iteration's values. The word rides ITER_START; a worker handed its first
 * task later gets it then. */
static void fetch_ahead(struct scheduler *s, uint32_t w, bool starting, struct rt_outq *out) {
  struct peer_slot *p = &s->workers[w];
  /* a worker that ran nothing in this iteration is unlikely to run anything
   * in the next one: its table would be fetched for nothing */
  if (p->handed == 0)
    return;
  if (!s->fetch_ahead || p->ahead || p->lost || p->joining || s->stopping ||
      (s->job.max_iter && s->iter >= s->job.max_iter))
    return;
  p->ahead = true;
  if (starting)
    return; /* ITER_START says so (WIRE_F_AHEAD) */
  struct wire_hdr h = wire_hdr_make(WIRE_FETCH_AHEAD, 0);
  h.iter = s->iter + 1;
  h.chunk = s->losses;
  sch_send(s, p, &h, NULL, 0, out);
}

int sch_hand_out_all(struct scheduler *s, struct rt_outq *out) {
  int rc = 0;
  for (uint32_t w = 0; !rc && w < s->cfg.n_workers; w++)
    rc = hand_out(s, w);
  for (uint32_t w = 0; !rc && w < s->cfg.n_workers; w++)
    rc = flush_batch(s, w, out);
  return rc;
}

/* The first tasks of an iteration for every worker: one to each in turn
 * (with tiny tasks the first workers must not take everything), then
 * block-wise workers their budget. */
static int hand_out_first(struct scheduler *s, struct rt_outq *out) {
  double mean_cost = 0;
  for (uint32_t t = 0; t < s->job.n_tasks; t++)
    mean_cost += s->job.tasks[t].cost / s->job.n_tasks;
  uint32_t refills = handout_refills(s->last_wall_s, s->msg_cost_s, s->cfg.n_workers);
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    const uint32_t *queued;
    uint32_t share = sched_queued_tasks(s->policy, w, &queued);
    s->workers[w].depth = handout_hold(s->cfg.sched, sched_speed_est(s->policy, w), mean_cost, s->workers[w].threads,
                                       share, s->cfg.n_workers, refills);
  }
  int rc = 0;
  for (bool more = true; !rc && more;) {
    more = false;
    for (uint32_t w = 0; !rc && w < s->cfg.n_workers; w++)
      if (has_room(s, w) && (rc = hand_out_one(s, w, false, NULL)) == 0)
        more = true;
      else if (rc == DSANA_EAGAIN)
        rc = 0;
  }
  for (uint32_t w = 0; !rc && w < s->cfg.n_workers; w++) {
    double budget = handout_first_budget(s->cfg.sched, s->blocks && s->fetch_ahead, sched_queued_cost(s->policy, w));
    double handed = 0;
    while (!rc && handed < budget - 1e-9 * budget && s->workers[w].registered && !s->workers[w].lost &&
           !s->workers[w].joining)
      if ((rc = hand_out_one(s, w, false, &handed)) == DSANA_EAGAIN) {
        rc = 0;
        break;
      }
    if (!rc)
      fetch_ahead(s, w, true, out);
  }
  return rc;
}

/* ITER_START for every live worker: the globals, its first tasks, and
 * whether to fetch the next iteration's input after them. */
static int send_starts(struct scheduler *s, struct rt_outq *out) {
  uint64_t room = s->cfg.max_payload_bytes > MSG_GLOBALS_BYTES ? s->cfg.max_payload_bytes - MSG_GLOBALS_BYTES : 0;
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    struct peer_slot *p = &s->workers[w];
    if (!p->registered || p->bye || p->lost)
      continue;
    uint32_t n = p->n_batch < ids_fitting(room) ? p->n_batch : ids_fitting(room);
    size_t len = MSG_GLOBALS_BYTES + (4 * (size_t)n + 7) / 8 * 8;
    uint8_t *buf = calloc(1, len);
    if (!buf)
      return DSANA_ENOMEM;
    msg_globals_encode(s->globals, buf);
    put_ids(buf + MSG_GLOBALS_BYTES, p->batch, n);
    struct wire_hdr h = wire_hdr_make(WIRE_ITER_START, 0);
    h.iter = s->iter;
    h.count = n;
    h.chunk = s->losses;
    h.flags = (p->ahead ? WIRE_F_AHEAD : 0) | handed_all(s);
    p->n_batch -= n; /* the rest follow as TASKS (a small payload limit) */
    memmove(p->batch, p->batch + n, sizeof *p->batch * p->n_batch);
    int rc = sch_send_owned(s, p, &h, buf, len, out);
    if (!rc)
      rc = flush_batch(s, w, out);
    if (rc)
      return rc;
  }
  return 0;
}

/* Live workers for the next iteration (joining ones become live). */
static int alive_mask(struct scheduler *s, bool **out) {
  bool *alive = calloc(s->cfg.n_workers, sizeof *alive);
  if (!alive)
    return DSANA_ENOMEM;
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    s->workers[w].joining = false;
    alive[w] = s->workers[w].registered && !s->workers[w].lost;
  }
  *out = alive;
  return 0;
}

int sch_start_iteration(struct scheduler *s, struct rt_outq *out) {
  s->iter++;
  usage_iter_start(s->env, &s->usage, s->iter);
  uint64_t unreported = s->acc.messages - s->acc.messages_recorded; /* the commit's, counted in this iteration */
  memset(&s->acc, 0, sizeof s->acc);
  s->acc.messages = unreported;
  memset(s->wstats, 0, sizeof *s->wstats * s->cfg.n_workers);
  memset(s->task_seen, 0, s->job.n_tasks);
  s->acc.start_ns = rt_now(s->env);
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    s->workers[w].outstanding = 0;
    s->workers[w].handed = 0;
    s->workers[w].ahead = false;
  }
  bool *alive;
  int rc = alive_mask(s, &alive);
  if (rc)
    return rc;
  rc = sched_begin_iter(s->policy, alive);
  free(alive);
  if (!rc)
    rc = hand_out_first(s, out);
  return rc ? rc : send_starts(s, out);
}

static int grow_iters(struct scheduler *s) {
  if (s->n_iters < s->cap_iters)
    return 0;
  uint32_t cap = s->cap_iters ? 2 * s->cap_iters : 128;
  double *w = realloc(s->iter_wall, sizeof *w * cap);
  if (w)
    s->iter_wall = w;
  double *b = realloc(s->iter_bound, sizeof *b * cap);
  if (b)
    s->iter_bound = b;
  double *x = realloc(s->iter_tbound, sizeof *x * cap);
  if (x)
    s->iter_tbound = x;
  if (!w || !b || !x)
    return DSANA_ENOMEM;
  s->cap_iters = cap;
  return 0;
}

/* Balanced compute bound of this iteration: the work measured without
 * emulated slowdown, spread over the workers' effective speeds. */
static double compute_bound(const struct scheduler *s) {
  double speed = 0;
  for (uint32_t w = 0; w < s->cfg.n_workers; w++)
    speed += (s->workers[w].threads ? s->workers[w].threads : 1) / scenario_slowdown(&s->sc, w, s->iter);
  return speed > 0 ? s->acc.raw_compute_s / speed : 0;
}

/* The iteration's length and what its messages cost this thread, for the
 * next plan's refills (handout_refills; weighted as the speed estimates
 * are smoothed: the last iterations count most). */
static void note_costs(struct scheduler *s, double wall) {
  s->last_wall_s = wall;
  if (s->msg_count) {
    double c = (double)s->msg_cpu_ns * 1e-9 / (double)s->msg_count;
    s->msg_cost_s = s->msg_cost_s > 0 ? 0.5 * s->msg_cost_s + 0.5 * c : c;
  }
  s->msg_cpu_ns = s->msg_count = 0;
}

static int record_iteration(struct scheduler *s, const struct dsana_reduce_ctx *ctx) {
  uint64_t now = rt_now(s->env);
  double wall = (double)(now - s->acc.start_ns) * 1e-9;
  note_costs(s, wall);
  trace_span(s->env->trace, "iteration", "iteration", s->acc.start_ns, now, s->iter, "residual", s->residual);
  int rc = grow_iters(s);
  if (rc)
    return rc;
  struct rt_iter_report r = {.iter = s->iter,
                             .tol = s->job.tol,
                             .max_iter = s->job.max_iter,
                             .wall_s = wall,
                             .residual = s->residual,
                             .bound_s = compute_bound(s),
                             .transfer_bound_s =
                                 rt_transfer_bound(&s->sc, s->wstats, s->cfg.n_workers, s->cfg.n_servers),
                             .messages = s->acc.messages,
                             .workers = s->wstats,
                             .n_workers = s->cfg.n_workers,
                             .n_metrics = ctx->n_metrics,
                             .quiet_row = ctx->quiet_row};
  s->iter_wall[s->n_iters] = wall;
  s->iter_bound[s->n_iters] = r.bound_s;
  s->iter_tbound[s->n_iters] = r.transfer_bound_s;
  s->n_iters++;
  s->acc.messages_recorded = s->acc.messages;
  if (s->iter >= USAGE_FIRST_ITER) {
    s->steady_messages += s->acc.messages;
    s->steady_handouts += s->acc.handouts;
    s->steady_iters++;
  }
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    s->pull_bytes += s->wstats[w].bytes_in;
    s->pull_bytes_raw += s->wstats[w].bytes_in_raw;
    s->wstats[w].stolen = sched_stolen(s->policy, w);
    if (s->iter >= USAGE_FIRST_ITER)
      s->steady_steals += s->wstats[w].stolen;
    s->wstats[w].speed_est = sched_speed_est(s->policy, w);
    s->wstats[w].wait_s = wall > s->wstats[w].compute_s ? wall - s->wstats[w].compute_s : 0;
  }
  for (uint32_t i = 0; i < ctx->n_metrics && i < DSANA_MAX_METRICS; i++) {
    r.metric_name[i] = ctx->metrics[i].name;
    r.metric[i] = ctx->metrics[i].value;
  }
  const struct rt_observer *o = s->params.observer;
  if (o && o->iteration)
    o->iteration(o->arg, &r);
  return 0;
}

/* Keep what resuming after iteration s->iter needs until every server
 * wrote its shard of it. */
static void checkpoint_due(struct scheduler *s) {
  if (!s->cfg.checkpoint_dir[0] || !s->cfg.checkpoint_every || s->iter == 0 || s->iter % s->cfg.checkpoint_every)
    return;
  s->ckpt_iter = s->iter;
  s->ckpt_acks = 0;
  memcpy(s->ckpt_globals, s->globals, sizeof s->ckpt_globals);
  s->ckpt_residual = s->residual;
}

/* All shards reported and all tasks done: reduce, commit, go on or stop. */
static int end_iteration(struct scheduler *s, struct rt_outq *out) {
  struct dsana_reduce_ctx ctx = {.iter = s->iter};
  for (uint32_t k = 0; k < s->job.n_sums; k++)
    if (!isfinite(ctx.sums[k] = dsana_xsum_value(&s->acc.sums[k]))) {
      char advice[160]; /* every role is told (ABORT): none waits out its peer timeout */
      return sch_abort_rc(
          s, out, DSANA_ERANGE,
          "diverged in iteration %u: the job's sum %u has an addend that is NaN, infinite or beyond 1.2e27; %s",
          s->iter, k, app_diverge_advice(s->app, advice, sizeof advice));
    }
  memcpy(ctx.globals, s->globals, sizeof ctx.globals);
  int rc = s->app->reduce(s->app_state, &ctx);
  if (rc) {
    log_error("the app's reduce hook failed in iteration %u: %s", s->iter, dsana_strerror(rc));
    return rc;
  }
  memcpy(s->globals, ctx.globals, sizeof s->globals);
  s->residual = ctx.residual;
  s->converged = ctx.converged;
  s->last = ctx;
  if (s->iter > 0 && (rc = record_iteration(s, &ctx)) != 0)
    return rc;
  uint8_t *g = malloc(MSG_GLOBALS_BYTES);
  if (!g)
    return DSANA_ENOMEM;
  msg_globals_encode(s->globals, g);
  struct wire_hdr h = wire_hdr_make(WIRE_ITER_END, 0);
  h.iter = s->iter;
  sch_broadcast(s, true, false, &h, g, MSG_GLOBALS_BYTES, out);
  if (out->n && out->v[out->n - 1].payload == g)
    out->v[out->n - 1].owned = g;
  else
    free(g);
  checkpoint_due(s);
  bool stop = s->iter > 0 && (ctx.converged || (s->job.max_iter && s->iter >= s->job.max_iter));
  return stop ? sch_stop(s, out) : sch_start_iteration(s, out);
}

/* Iteration 0 (the servers' initial values) ends once every worker taking
 * part is READY too: joined, and holding iteration 1's input. */
static bool workers_ready(const struct scheduler *s) {
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    const struct peer_slot *p = &s->workers[w];
    if (p->registered && !p->lost && !p->joining && !p->ready)
      return false;
  }
  return true;
}

/* Iteration 1's plan: the policy's queues as sch_start_iteration() will
 * lay them out (the same state, so the same plan). */
static int plan_first(struct scheduler *s) {
  bool *alive;
  int rc = alive_mask(s, &alive);
  if (rc)
    return rc;
  rc = sched_begin_iter(s->policy, alive);
  free(alive);
  return rc;
}

/* A fresh job whose servers hold their initial values: every worker
 * fetches iteration 1's input now (FETCH_AHEAD before any ITER_START), and
 * iteration 0 ends once each is READY. */
static int sch_load_first_input(struct scheduler *s, struct rt_outq *out) {
  /* block-wise tasks start (task_begin: a task's data laid out, its buffers
   * touched) as part of loading, like the next iteration's in steady state */
  bool plan = s->blocks && s->fetch_ahead;
  int rc = plan ? plan_first(s) : 0;
  for (uint32_t w = 0; !rc && w < s->cfg.n_workers; w++) {
    struct peer_slot *p = &s->workers[w];
    if (!p->registered || p->lost)
      continue;
    const uint32_t *tasks = NULL;
    uint32_t n = plan ? sched_queued_tasks(s->policy, w, &tasks) : 0;
    n = n < ids_fitting(s->cfg.max_payload_bytes) ? n : ids_fitting(s->cfg.max_payload_bytes);
    uint8_t *buf = n ? malloc(4 * (size_t)n) : NULL;
    if (n && !buf)
      return DSANA_ENOMEM;
    put_ids(buf, tasks, n);
    struct wire_hdr h = wire_hdr_make(WIRE_FETCH_AHEAD, 0);
    h.iter = 1;
    h.chunk = s->losses;
    h.count = n;
    rc = buf ? sch_send_owned(s, p, &h, buf, 4 * (size_t)n, out) : sch_send(s, p, &h, NULL, 0, out);
  }
  return rc;
}

int sch_on_ready(struct scheduler *s, uint32_t w, const struct net_msg *m, struct rt_outq *out) {
  if (s->iter != 0 || m->hdr.iter != 1) {
    log_warn("dropped READY from worker %u for iteration %u (at %u)", w, m->hdr.iter, s->iter);
    return 0;
  }
  s->workers[w].ready = true;
  return sch_maybe_end(s, out);
}

int sch_maybe_end(struct scheduler *s, struct rt_outq *out) {
  bool tasks_done = s->iter == 0 ? workers_ready(s) : s->acc.tasks_done == s->job.n_tasks;
  if (!s->stopping && s->acc.reports == s->cfg.n_servers && tasks_done)
    return end_iteration(s, out);
  return 0;
}

int sch_on_ckpt_done(struct scheduler *s, uint32_t server, const struct net_msg *m) {
  if (m->hdr.iter != s->ckpt_iter || s->ckpt_iter == 0)
    return 0; /* an older checkpoint, overtaken */
  if (++s->ckpt_acks < s->cfg.n_servers)
    return 0;
  struct ckpt_manifest man = {.iter = s->ckpt_iter, .n_servers = s->cfg.n_servers, .residual = s->ckpt_residual};
  man.shape.n_tables = s->job.n_tables;
  for (uint32_t t = 0; t < s->job.n_tables; t++) {
    man.shape.n_keys[t] = s->job.tables[t].n_keys;
    man.shape.width[t] = s->job.tables[t].width;
  }
  memcpy(man.globals, s->ckpt_globals, sizeof man.globals);
  memcpy(man.identity, s->cfg.job_identity, sizeof man.identity);
  char err[1200];
  if (ckpt_write_manifest(s->cfg.checkpoint_dir, &man, err, sizeof err) != 0)
    ckpt_report_failure(err);
  else
    log_info("checkpoint of iteration %u complete in %s", man.iter, s->cfg.checkpoint_dir);
  s->ckpt_iter = 0;
  (void)server;
  return 0;
}

int sch_on_report(struct scheduler *s, uint32_t server, const struct net_msg *m, struct rt_outq *out) {
  if (s->stopping || m->hdr.iter != s->iter || m->hdr.payload_bytes != MSG_XSUM_BYTES * (uint64_t)s->job.n_sums) {
    log_warn("dropped SHARD_REPORT from server %u for iteration %u (at %u)", server, m->hdr.iter, s->iter);
    return 0;
  }
  dsana_xsum sums[DSANA_MAX_SUMS];
  msg_sums_decode(m->payload, s->job.n_sums, sums);
  for (uint32_t k = 0; k < s->job.n_sums; k++)
    dsana_xsum_merge(&s->acc.sums[k], &sums[k]);
  s->acc.reports++;
  /* the initial values are in every shard: servers answer pulls now */
  int rc = s->iter == 0 && s->acc.reports == s->cfg.n_servers ? sch_load_first_input(s, out) : 0;
  return rc ? rc : sch_maybe_end(s, out);
}

/* One TASK_DONE record of worker w. */
static void take_done(struct scheduler *s, uint32_t w, const struct msg_task_done *d) {
  double compute_s = (double)d->compute_ns * 1e-9;
  struct worker_iter_stats *st = &s->wstats[w];
  st->compute_s += compute_s;
  st->overlap_s += (double)d->overlap_ns * 1e-9;
  st->overrun_s += (double)d->overrun_ns * 1e-9;
  s->overrun_s += (double)d->overrun_ns * 1e-9;
  st->tasks++;
  st->bytes_in += d->bytes_in;
  st->bytes_in_raw += d->bytes_in_raw;
  st->bytes_out += d->bytes_out;
  s->acc.raw_compute_s += compute_s / scenario_slowdown(&s->sc, w, s->iter);
  s->acc.tasks_done++;
  s->task_seen[d->task] = 1;
  for (uint32_t k = 0; k < s->job.n_sums; k++)
    dsana_xsum_merge(&s->acc.sums[k], &d->sums[k]);
  /* a worker's threads run its tasks side by side: each takes 1/threads of
   * it. Its speed is not in its set-up (a task laid out on a worker the
   * first time: all of iteration 1, a task that moved), nor, on an
   * emulated node, in the overrun (real compute past the modelled time:
   * this host too busy to keep the node's pace, emulate.h) */
  uint64_t aside = d->setup_ns + d->overrun_ns;
  double work_s = aside < d->compute_ns ? (double)(d->compute_ns - aside) * 1e-9 : 0;
  sched_report(s->policy, w, d->task, work_s / (s->workers[w].threads ? s->workers[w].threads : 1));
  if (s->task_owner[d->task] == w && s->workers[w].outstanding > 0)
    s->workers[w].outstanding--;
}

int sch_on_task_done(struct scheduler *s, uint32_t w, const struct net_msg *m, struct rt_outq *out) {
  const struct wire_hdr *h = &m->hdr;
  size_t rec = msg_task_done_bytes(s->job.n_sums);
  if (h->payload_bytes != rec * h->count) {
    log_warn("dropped TASK_DONE from worker %u: %u records do not fit its %llu bytes", w, h->count,
             (unsigned long long)h->payload_bytes);
    return 0;
  }
  struct msg_task_done *d = malloc(sizeof *d);
  if (!d)
    return DSANA_ENOMEM;
  for (uint32_t i = 0; i < h->count; i++) {
    msg_task_done_decode((const uint8_t *)m->payload + rec * i, s->job.n_sums, d);
    if (s->stopping || h->iter != s->iter || d->task >= s->job.n_tasks || s->task_seen[d->task])
      log_warn("dropped TASK_DONE from worker %u (task %u, iteration %u)", w, d->task, h->iter);
    else
      take_done(s, w, d);
  }
  free(d);
  int rc = hand_out(s, w);
  if (!rc)
    rc = flush_batch(s, w, out);
  if (!rc)
    fetch_ahead(s, w, false, out);
  return rc ? rc : sch_maybe_end(s, out);
}
