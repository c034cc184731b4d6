/*
 * sched_iter.c - the scheduler's iteration clock: hand out tasks through the
 * policy, gather the servers' shard reports, reduce them through the app,
 * commit the iteration and decide whether to go on.
 *
 * An iteration ends when every server has reported its shard complete (so
 * every push arrived) and every task's TASK_DONE came in (so no worker is
 * still reading the iteration's values). Then ITER_END commits it on the
 * servers and the next ITER_START goes to the workers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/scheduler.h"
#include "runtime/checkpoint.h"
#include "runtime/trace.h"
#include "util/clock.h"
#include "util/log.h"

#define TASKS_IN_FLIGHT 2 /* per worker at least: the running one and one prefetched */
/* ... and, under dynamic scheduling, enough estimated work to cover a round
 * trip to the scheduler, so that tiny tasks do not wait for their successor */
#define HOLD_S 1e-3
#define DEPTH_MAX 64
/* With chunked transfers and block-wise tasks a worker overlaps all the
 * tasks it holds with the transfer, so it gets this share of its assigned
 * work at once; the rest stays with the policy for balancing and stealing. */
#define BLOCKS_SHARE_AT_ONCE 0.75

static int sch_hand_out_one(struct scheduler *s, uint32_t w, double *cost) {
  uint32_t task;
  bool stolen;
  if (sched_next(s->policy, w, &task, &stolen) != 0)
    return DSANA_EAGAIN;
  if (cost)
    *cost += s->job.tasks[task].cost;
  s->task_owner[task] = w;
  s->workers[w].outstanding++;
  s->workers[w].handed++;
  struct wire_hdr h = wire_hdr_make(WIRE_TASK, 0);
  h.iter = s->iter;
  h.chunk = task;
  sch_send(s, &s->workers[w], &h, NULL, 0); /* unreachable: returned to the pool when it is declared lost */
  return 0;
}

/* With chunked transfers, a worker left with nothing to do in this
 * iteration starts fetching the next one's input: servers stream it chunk
 * by chunk as the rest of the cluster finishes them, so the transfer
 * overlaps the end of this iteration (server.h). Should a task of this
 * iteration reach it after all (a lost worker's), the worker fetches this
 * iteration's input again; results never depend on it. */
void sch_fetch_ahead(struct scheduler *s, uint32_t w) {
  struct peer_slot *p = &s->workers[w];
  /* a worker that ran nothing in this iteration is unlikely to run
   * anything in the next one: its table would be fetched for nothing */
  if (p->handed == 0)
    return;
  /* static, block-wise: its tasks are all handed at the start (idle for
   * the policy); else: all done and nothing to steal */
  bool done = p->outstanding == 0 ||
              (s->cfg.sched == SCHED_STATIC && s->app->task_block && sched_queued_cost(s->policy, w) <= 0);
  if (!s->chunk_keys || p->ahead || !done || p->lost || p->joining || s->stopping ||
      (s->job.max_iter && s->iter >= s->job.max_iter))
    return;
  p->ahead = true;
  struct wire_hdr h = wire_hdr_make(WIRE_FETCH_AHEAD, 0);
  h.iter = s->iter + 1;
  sch_send(s, p, &h, NULL, 0);
}

/* Worker w takes part and holds fewer tasks than its depth. */
static bool sch_has_room(const struct scheduler *s, uint32_t w) {
  const struct peer_slot *p = &s->workers[w];
  return !p->lost && !p->joining && p->outstanding < p->depth;
}

int sch_hand_out(struct scheduler *s, uint32_t w) {
  int rc = 0;
  while (!rc && sch_has_room(s, w))
    rc = sch_hand_out_one(s, w, NULL);
  return rc == DSANA_EAGAIN ? 0 : rc;
}

/* A worker under half the fastest one's estimated speed gets no
 * prefetched task: a task it holds cannot be stolen, and its tasks take
 * long enough that a round trip for the next one costs nothing. */
static bool sch_is_slow(const struct scheduler *s, uint32_t w) {
  double fastest = 0;
  for (uint32_t i = 0; i < s->cfg.n_workers; i++)
    if (sched_speed_est(s->policy, i) > fastest)
      fastest = sched_speed_est(s->policy, i);
  return fastest > 0 && sched_speed_est(s->policy, w) < 0.5 * fastest;
}

/* How many tasks worker w should hold at a time in this iteration. Under
 * static scheduling nothing is balanced: all of them (handed at once).
 * Under dynamic scheduling: two, or as many average tasks as cover HOLD_S
 * at its estimated speed; one for a slow worker. */
static uint32_t sch_depth(const struct scheduler *s, uint32_t w, double mean_cost) {
  if (s->cfg.sched == SCHED_STATIC)
    return UINT32_MAX;
  if (sch_is_slow(s, w))
    return 1;
  double tasks = HOLD_S * sched_speed_est(s->policy, w) / mean_cost;
  return tasks + 1 < TASKS_IN_FLIGHT ? TASKS_IN_FLIGHT : tasks + 1 > DEPTH_MAX ? DEPTH_MAX : (uint32_t)tasks + 1;
}

/* The first tasks of an iteration for every worker. */
static int sch_hand_out_first(struct scheduler *s) {
  bool blocks = s->chunk_keys && s->app->task_block;
  double *budget = calloc(s->cfg.n_workers, sizeof *budget);
  if (!budget)
    return DSANA_ENOMEM;
  double mean_cost = 0;
  for (uint32_t t = 0; t < s->job.n_tasks; t++)
    mean_cost += s->job.tasks[t].cost / s->job.n_tasks;
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    s->workers[w].depth = sch_depth(s, w, mean_cost);
    /* dynamic, block-wise: a worker overlaps what it holds with the transfer */
    budget[w] = blocks && s->cfg.sched == SCHED_DYNAMIC ? BLOCKS_SHARE_AT_ONCE * sched_queued_cost(s->policy, w) : 0;
  }
  /* one task to each worker in turn, so that with tiny tasks (deep
   * queues) the first workers do not take everything */
  int rc = 0;
  for (bool more = true; !rc && more;) {
    more = false;
    for (uint32_t w = 0; !rc && w < s->cfg.n_workers; w++) {
      if (!sch_has_room(s, w))
        continue;
      if ((rc = sch_hand_out_one(s, w, NULL)) == 0)
        more = true;
      else if (rc == DSANA_EAGAIN)
        rc = 0;
    }
  }
  for (uint32_t w = 0; !rc && w < s->cfg.n_workers; w++) {
    double handed = 0;
    while (!rc && handed < budget[w] - 1e-9 * budget[w])
      if ((rc = sch_hand_out_one(s, w, &handed)) == DSANA_EAGAIN) {
        rc = 0;
        break;
      }
    if (!rc)
      sch_fetch_ahead(s, w);
  }
  free(budget);
  return rc;
}

int sch_start_iteration(struct scheduler *s) {
  s->iter++;
  memset(&s->acc, 0, sizeof s->acc);
  memset(s->wstats, 0, sizeof *s->wstats * s->cfg.n_workers);
  memset(s->task_seen, 0, s->job.n_tasks);
  s->acc.start_ns = clock_now_ns();
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    s->workers[w].outstanding = 0;
    s->workers[w].handed = 0;
    s->workers[w].ahead = false;
  }
  bool *alive = calloc(s->cfg.n_workers, sizeof *alive);
  if (!alive)
    return DSANA_ENOMEM;
  sch_alive_mask(s, alive);
  int rc = sched_begin_iter(s->policy, alive);
  free(alive);
  if (rc)
    return rc;
  uint8_t g[64];
  msg_globals_encode(s->globals, g);
  struct wire_hdr h = wire_hdr_make(WIRE_ITER_START, 0);
  h.iter = s->iter;
  h.payload_bytes = sizeof g;
  if ((rc = sch_broadcast(s, false, true, &h, g, sizeof g)) != 0)
    return rc;
  return sch_hand_out_first(s);
}

static int sch_grow_iters(struct scheduler *s) {
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
static double sch_bound(const struct scheduler *s) {
  double speed = 0;
  for (uint32_t w = 0; w < s->cfg.n_workers; w++)
    speed += 1.0 / scenario_slowdown(&s->sc, w, s->iter);
  return speed > 0 ? s->acc.raw_compute_s / speed : 0;
}

/* Transfer bound of this iteration: the bytes that crossed the busiest
 * emulated link over its bandwidth. Servers upload what workers pulled
 * (spread evenly over the servers); each worker uploads its pushes. */
static double sch_transfer_bound(const struct scheduler *s) {
  double pulled = 0, bound = 0;
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    pulled += (double)s->wstats[w].bytes_in;
    double bw = w < s->sc.n_workers ? s->sc.link[w].bandwidth_bytes_per_s : 0;
    if (bw > 0 && (double)s->wstats[w].bytes_out / bw > bound)
      bound = (double)s->wstats[w].bytes_out / bw;
  }
  double sbw = s->sc.global_link.bandwidth_bytes_per_s;
  if (sbw > 0 && pulled / s->cfg.n_servers / sbw > bound)
    bound = pulled / s->cfg.n_servers / sbw;
  return bound;
}

static void sch_print_row(struct scheduler *s, double wall) {
  if (s->cfg.quiet)
    return;
  double cmax = 0, cmin = 1e300;
  uint32_t tmin = UINT32_MAX, tmax = 0;
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    const struct worker_iter_stats *st = &s->wstats[w];
    cmax = st->compute_s > cmax ? st->compute_s : cmax;
    cmin = st->compute_s < cmin ? st->compute_s : cmin;
    tmin = st->tasks < tmin ? st->tasks : tmin;
    tmax = st->tasks > tmax ? st->tasks : tmax;
  }
  progress_done(&s->line);
  if (s->iter == 1)
    printf("%6s %14s %10s %12s %12s %9s\n", "iter", "residual", "time_s", "compute_max", "compute_min", "tasks");
  printf("%6u %14.6e %10.4f %12.4f %12.4f %4u-%-4u\n", s->iter, s->residual, wall, cmax, cmin, tmin, tmax);
  fflush(stdout);
}

static void sch_print_progress(struct scheduler *s, double wall) {
  progress_update(&s->line, s->iter, s->residual, wall, clock_ns_to_s(clock_now_ns() - s->start_ns));
}

static int sch_record_iteration(struct scheduler *s) {
  uint64_t now = clock_now_ns();
  double wall = clock_ns_to_s(now - s->acc.start_ns);
  trace_span("iteration", "iteration", s->acc.start_ns, now, s->iter, "residual", s->residual);
  int rc = sch_grow_iters(s);
  if (rc)
    return rc;
  s->iter_wall[s->n_iters] = wall;
  s->iter_bound[s->n_iters] = sch_bound(s);
  s->iter_tbound[s->n_iters] = sch_transfer_bound(s);
  s->n_iters++;
  metrics_iteration(s->metrics, s->iter, wall, s->residual);
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    s->wstats[w].stolen = sched_stolen(s->policy, w);
    s->wstats[w].speed_est = sched_speed_est(s->policy, w);
    s->wstats[w].wait_s = wall > s->wstats[w].compute_s ? wall - s->wstats[w].compute_s : 0;
    metrics_worker(s->metrics, s->iter, w, &s->wstats[w]);
  }
  sch_print_row(s, wall);
  sch_print_progress(s, wall);
  return 0;
}

static int sch_stop(struct scheduler *s) {
  s->stopping = true;
  uint64_t n = s->job.tables[s->job.result_table].n_keys;
  s->result = calloc(n, sizeof(double));
  if (!s->result)
    return DSANA_ENOMEM;
  struct wire_hdr h = wire_hdr_make(WIRE_STOP, 0);
  h.iter = s->iter;
  return sch_broadcast(s, true, true, &h, NULL, 0);
}

/* All shards reported and all tasks done: reduce, commit, go on or stop. */
static int sch_end_iteration(struct scheduler *s) {
  struct dsana_reduce_ctx ctx = {.iter = s->iter};
  for (int k = 0; k < DSANA_MAX_SUMS; k++)
    ctx.sums[k] = dsana_xsum_value(&s->acc.sum.sums[k]);
  memcpy(ctx.globals, s->globals, sizeof ctx.globals);
  int rc = s->app->reduce(s->app_state, &ctx);
  if (rc)
    return rc;
  memcpy(s->globals, ctx.globals, sizeof s->globals);
  s->residual = ctx.residual;
  if (s->iter > 0 && (rc = sch_record_iteration(s)) != 0)
    return rc;
  struct wire_hdr h = wire_hdr_make(WIRE_ITER_END, 0);
  h.iter = s->iter;
  if ((rc = sch_broadcast(s, true, false, &h, NULL, 0)) != 0)
    return rc;
  if (s->cfg.checkpoint_dir[0] && s->cfg.checkpoint_every && s->iter > 0 && s->iter % s->cfg.checkpoint_every == 0) {
    /* servers write their shards of this iteration after the commit; keep
     * what resuming needs until they all have */
    s->ckpt_iter = s->iter;
    s->ckpt_acks = 0;
    memcpy(s->ckpt_globals, s->globals, sizeof s->ckpt_globals);
    s->ckpt_residual = s->residual;
  }
  return ctx.converged ? sch_stop(s) : sch_start_iteration(s);
}

static int sch_maybe_end(struct scheduler *s) {
  bool tasks_done = s->iter == 0 || s->acc.tasks_done == s->job.n_tasks;
  if (!s->stopping && s->acc.reports == s->cfg.n_servers && tasks_done)
    return sch_end_iteration(s);
  return 0;
}

int sch_on_ckpt_done(struct scheduler *s, uint32_t server, const struct net_msg *m) {
  if (m->hdr.iter != s->ckpt_iter || s->ckpt_iter == 0)
    return 0; /* an older checkpoint, overtaken */
  if (++s->ckpt_acks < s->cfg.n_servers)
    return 0;
  struct ckpt_manifest man = {.iter = s->ckpt_iter, .n_servers = s->cfg.n_servers, .n_tables = s->job.n_tables,
                              .n_keys = s->job.tables[0].n_keys, .residual = s->ckpt_residual};
  memcpy(man.globals, s->ckpt_globals, sizeof man.globals);
  char err[1200];
  if (ckpt_write_manifest(s->cfg.checkpoint_dir, &man, err, sizeof err) != 0)
    log_error("%s", err);
  else
    log_info("checkpoint of iteration %u complete in %s", man.iter, s->cfg.checkpoint_dir);
  s->ckpt_iter = 0;
  (void)server;
  return 0;
}

int sch_on_report(struct scheduler *s, uint32_t server, const struct net_msg *m) {
  if (s->stopping || m->hdr.iter != s->iter) {
    log_warn("dropped SHARD_REPORT from server %u for iteration %u (at %u)", server, m->hdr.iter, s->iter);
    return 0;
  }
  struct msg_report rep;
  msg_report_decode(m->payload, &rep);
  for (int k = 0; k < DSANA_MAX_SUMS; k++)
    dsana_xsum_merge(&s->acc.sum.sums[k], &rep.sums[k]);
  s->acc.reports++;
  return sch_maybe_end(s);
}

int sch_on_task_done(struct scheduler *s, uint32_t worker, const struct net_msg *m) {
  if (s->stopping || m->hdr.iter != s->iter || m->hdr.chunk >= s->job.n_tasks || s->task_seen[m->hdr.chunk]) {
    log_warn("dropped TASK_DONE from worker %u (task %u, iteration %u)", worker, m->hdr.chunk, m->hdr.iter);
    return 0;
  }
  struct msg_task_done d;
  msg_task_done_decode(m->payload, &d);
  double compute_s = clock_ns_to_s(d.compute_ns);
  struct worker_iter_stats *st = &s->wstats[worker];
  st->compute_s += compute_s;
  st->overlap_s += clock_ns_to_s(d.overlap_ns);
  st->overrun_s += clock_ns_to_s(d.overrun_ns);
  s->overrun_s += clock_ns_to_s(d.overrun_ns);
  st->tasks++;
  st->bytes_in += d.bytes_in;
  st->bytes_out += d.bytes_out;
  s->acc.raw_compute_s += compute_s / scenario_slowdown(&s->sc, worker, s->iter);
  s->acc.tasks_done++;
  s->task_seen[m->hdr.chunk] = 1;
  sched_report(s->policy, worker, m->hdr.chunk, compute_s + clock_ns_to_s(d.wait_ns));
  if (s->task_owner[m->hdr.chunk] == worker && s->workers[worker].outstanding > 0)
    s->workers[worker].outstanding--;
  int rc = sch_hand_out(s, worker);
  if (!rc)
    sch_fetch_ahead(s, worker);
  return rc ? rc : sch_maybe_end(s);
}
