/*
 * scheduler_final.c - the end of a run: stop every role, gather the result
 * table from the servers, report the run's summary to the observer and
 * hand the result to the app's output().
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/core/iter_figures.h"
#include "runtime/scheduler/scheduler_internal.h"
#include "util/text/log.h"

/* STOP to the servers (they send their part of the result) or, once the
 * result is complete, to the workers: a server lost before its part came
 * rolls the job back, and the workers must still be there to register
 * again. */
static void send_stop(struct scheduler *s, bool workers, struct rt_outq *out) {
  struct wire_hdr h = wire_hdr_make(WIRE_STOP, 0);
  h.iter = s->iter;
  sch_broadcast(s, !workers, workers, &h, NULL, 0, out);
  s->workers_stopped |= workers;
}

int sch_stop(struct scheduler *s, struct rt_outq *out) {
  s->stopping = true;
  const struct job_table *jt = &s->job.tables[s->job.result_table];
  size_t n = jt->n_keys * jt->width;
  if (!(s->result = calloc(n ? n : 1, sizeof(double))))
    return DSANA_ENOMEM;
  send_stop(s, false, out);
  if (jt->n_keys == 0)
    send_stop(s, true, out);
  return 0;
}

void sch_take_usage(struct scheduler *s, const struct net_msg *m) {
  struct rt_usage u;
  uint64_t iters, stale;
  if (usage_decode(m->payload, m->hdr.payload_bytes, &u, &iters, &stale) != 0)
    return;
  s->stale_msgs += stale;
  /* a role that joined late counted fewer iterations: the job's figure then has a hole */
  if (iters == 0 || iters != s->steady_iters)
    return;
  s->job_usage.wakeups += u.wakeups;
  s->job_usage.cpu_ns += u.cpu_ns;
  s->usage_roles++;
}

/* The steady iterations' cost per iteration into r: every role's BYE and
 * this process's own window, or -1 where a role did not count. */
static void fill_usage(const struct scheduler *s, struct rt_run_report *r) {
  struct rt_usage own;
  uint64_t iters;
  r->wakeups_per_iter = r->cpu_ms_per_iter = r->sched_messages_per_iter = r->steals_per_iter = -1;
  r->handouts_per_iter = -1;
  if (!s->steady_iters)
    return;
  r->sched_messages_per_iter = (double)s->steady_messages / s->steady_iters;
  r->steals_per_iter = (double)s->steady_steals / s->steady_iters;
  r->handouts_per_iter = (double)s->steady_handouts / s->steady_iters;
  if (s->usage_roles != s->cfg.n_servers + s->cfg.n_workers || !usage_since(s->env, &s->usage, s->iter, &own, &iters) ||
      iters != s->steady_iters)
    return;
  r->wakeups_per_iter = (double)(s->job_usage.wakeups + own.wakeups) / s->steady_iters;
  r->cpu_ms_per_iter = (double)(s->job_usage.cpu_ns + own.cpu_ns) * 1e-6 / s->steady_iters;
}

void sch_check_finished(struct scheduler *s) {
  uint64_t n = s->job.tables[s->job.result_table].n_keys;
  if (s->stopping && s->byes + s->lost_workers == s->cfg.n_servers + s->cfg.n_workers && s->result_keys == n)
    s->finished = true;
}

int sch_on_final_data(struct scheduler *s, uint32_t server, const struct net_msg *m, struct rt_outq *out) {
  const struct wire_hdr *h = &m->hdr;
  const struct job_table *jt = &s->job.tables[s->job.result_table];
  uint64_t lo, hi;
  shard_range(jt->n_keys, s->cfg.n_servers, server, &lo, &hi);
  if (!s->stopping || h->table != s->job.result_table || h->key_lo < lo || h->key_hi > hi || h->key_lo >= h->key_hi ||
      h->payload_bytes != (h->key_hi - h->key_lo) * jt->width * sizeof(double) ||
      s->result_keys + (h->key_hi - h->key_lo) > jt->n_keys) {
    log_warn("dropped FINAL_DATA from server %u: keys [%llu, %llu) not expected", server, (unsigned long long)h->key_lo,
             (unsigned long long)h->key_hi);
    return 0;
  }
  memcpy(s->result + h->key_lo * jt->width, m->payload, h->payload_bytes);
  s->result_keys += h->key_hi - h->key_lo;
  if (s->result_keys == jt->n_keys && !s->workers_stopped)
    send_stop(s, true, out);
  sch_check_finished(s);
  return 0;
}

/* The key space whose chunking the summary reports: the block table's. */
static uint32_t reported_space(const struct scheduler *s) {
  uint32_t b = s->job.block_table != JOB_NONE ? s->job.block_table : s->job.result_table;
  return s->job.tables[b].space;
}

static void fill_summary(const struct scheduler *s, struct rt_run_report *r) {
  bool dyn = s->cfg.sched == SCHED_DYNAMIC, chunked = s->fetch_ahead;
  uint32_t sp = reported_space(s);
  uint64_t keys = s->chunk_keys[sp] ? s->chunk_keys[sp] : s->job.space_keys[sp];
  *r = (struct rt_run_report){.app = s->app->name,
                              .mode = run_mode_name(s->cfg.mode),
                              .mechanisms = dyn && chunked ? "dynamic+chunking"
                                            : dyn          ? "dynamic"
                                            : chunked      ? "chunking"
                                                           : "none",
                              .sched = sched_kind_name(s->cfg.sched),
                              .scenario = s->cfg.scenario_path,
                              .workers = s->cfg.n_workers,
                              .servers = s->cfg.n_servers,
                              .tasks = s->job.n_tasks,
                              .tasks_per_worker = config_tasks_per_worker(&s->cfg),
                              .iterations = s->iter,
                              .residual = s->residual,
                              .converged = s->converged,
                              .median_iter_s = rt_median(s->iter_wall, s->n_iters),
                              .bound_s = rt_median(s->iter_bound, s->n_iters),
                              .transfer_bound_s = rt_median(s->iter_tbound, s->n_iters),
                              .overrun_s = s->overrun_s,
                              .chunk_bytes = keys * sizeof(double),
                              .chunked = s->chunk_keys[sp] != 0,
                              .n_metrics = s->last.n_metrics,
                              .compressed = s->compress,
                              .pull_bytes = s->pull_bytes,
                              .pull_bytes_raw = s->pull_bytes_raw,
                              .refused_peers = s->refused_peers,
                              .dropped_msgs = s->dropped_msgs,
                              .stale_msgs = s->stale_msgs};
  for (uint32_t i = 0; i < s->n_iters; i++)
    r->total_s += s->iter_wall[i];
  fill_usage(s, r);
  for (uint32_t i = 0; i < s->last.n_metrics; i++) {
    r->metric_name[i] = s->last.metrics[i].name;
    r->metric[i] = s->last.metrics[i].value;
  }
}

int scheduler_finish(struct scheduler *s) {
  struct rt_run_report r;
  fill_summary(s, &r);
  const struct rt_observer *o = s->params.observer;
  if (o && o->summary)
    o->summary(o->arg, &r);
  struct dsana_run_summary run = {.iters = r.iterations,
                                  .residual = r.residual,
                                  .converged = r.converged,
                                  .total_s = r.total_s,
                                  .median_iter_s = r.median_iter_s,
                                  .quiet = s->cfg.quiet};
  char err[512] = "";
  const struct job_table *jt = &s->job.tables[s->job.result_table];
  int rc = s->app->output ? s->app->output(s->app_state, s->result, jt->n_keys, jt->width, &run, err, sizeof err) : 0;
  if (rc)
    log_error("%s", err[0] ? err : dsana_strerror(rc));
  return rc;
}
