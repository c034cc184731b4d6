/*
 * sched_final.c - the end of a run: gather the result table from the
 * servers, hand it to the app's output hook, and write the summary (stdout
 * and the metrics file).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/scheduler.h"
#include "util/clock.h"
#include "util/log.h"

void sch_check_finished(struct scheduler *s) {
  uint64_t n = s->job.tables[s->job.result_table].n_keys;
  if (s->byes + s->lost_workers == s->cfg.n_servers + s->cfg.n_workers && s->result_keys == n)
    s->finished = true;
}

int sch_on_final_data(struct scheduler *s, uint32_t server, const struct net_msg *m) {
  const struct wire_hdr *h = &m->hdr;
  uint64_t n = s->job.tables[s->job.result_table].n_keys;
  uint64_t lo, hi;
  shard_range(n, s->cfg.n_servers, server, &lo, &hi);
  if (!s->stopping || h->table != s->job.result_table || h->key_lo < lo || h->key_hi > hi ||
      s->result_keys + (h->key_hi - h->key_lo) > n) {
    log_warn("dropped FINAL_DATA from server %u: keys [%llu, %llu) not expected", server,
             (unsigned long long)h->key_lo, (unsigned long long)h->key_hi);
    return 0;
  }
  memcpy(s->result + h->key_lo, m->payload, (h->key_hi - h->key_lo) * sizeof(double));
  s->result_keys += h->key_hi - h->key_lo;
  sch_check_finished(s);
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *v, uint32_t n) {
  if (n == 0)
    return 0;
  double *c = malloc(sizeof *c * n);
  if (!c)
    return v[0];
  memcpy(c, v, sizeof *c * n);
  qsort(c, n, sizeof *c, cmp_double);
  double m = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
  free(c);
  return m;
}

static void sch_write_summary(struct scheduler *s, const struct dsana_run_summary *run) {
  double bound = median(s->iter_bound, s->n_iters);
  if (!s->cfg.quiet) {
    uint64_t keys = s->chunk_keys ? s->chunk_keys : s->job.tables[0].n_keys;
    printf("iterations: %u  residual: %.6e  total: %.3f s  median iteration: %.4f s  bound: %.4f s  chunk: %s%llu B\n",
           run->iters, run->residual, run->total_s, run->median_iter_s, bound, s->chunk_keys ? "" : "whole table, ",
           (unsigned long long)(keys * sizeof(double)));
    fflush(stdout);
  }
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "app", s->app->name);
  /* what ran, not only what --mode said: --sched and --chunk override it */
  bool dyn = s->cfg.sched == SCHED_DYNAMIC, chunked = s->chunk_keys != 0;
  cJSON_AddStringToObject(o, "mode", run_mode_name(s->cfg.mode));
  cJSON_AddStringToObject(o, "mechanisms", dyn && chunked ? "dynamic+chunking" : dyn ? "dynamic" : chunked ? "chunking" : "none");
  cJSON_AddStringToObject(o, "sched", sched_kind_name(s->cfg.sched));
  cJSON_AddNumberToObject(o, "workers", s->cfg.n_workers);
  cJSON_AddNumberToObject(o, "servers", s->cfg.n_servers);
  cJSON_AddNumberToObject(o, "tasks", s->job.n_tasks);
  cJSON_AddNumberToObject(o, "tasks_per_worker", s->cfg.tasks_per_worker);
  cJSON_AddStringToObject(o, "scenario", s->cfg.scenario_path);
  cJSON_AddNumberToObject(o, "iterations", run->iters);
  cJSON_AddNumberToObject(o, "residual", run->residual);
  cJSON_AddNumberToObject(o, "total_s", run->total_s);
  cJSON_AddNumberToObject(o, "median_iter_s", run->median_iter_s);
  cJSON_AddNumberToObject(o, "bound_s", bound);
  cJSON_AddNumberToObject(o, "transfer_bound_s", median(s->iter_tbound, s->n_iters));
  cJSON_AddNumberToObject(o, "overrun_s", s->overrun_s);
  uint64_t n = s->job.tables[0].n_keys;
  cJSON_AddNumberToObject(o, "chunk_bytes", (double)((s->chunk_keys ? s->chunk_keys : n) * sizeof(double)));
  metrics_summary(s->metrics, o);
}

int sch_finish(struct scheduler *s) {
  progress_done(&s->line);
  struct dsana_run_summary run = {.iters = s->iter, .residual = s->residual, .quiet = s->cfg.quiet};
  for (uint32_t i = 0; i < s->n_iters; i++)
    run.total_s += s->iter_wall[i];
  run.median_iter_s = median(s->iter_wall, s->n_iters);
  sch_write_summary(s, &run);
  char err[512] = "";
  uint64_t n = s->job.tables[s->job.result_table].n_keys;
  int rc = s->app->output(s->app_state, s->result, n, &run, err, sizeof err);
  if (rc)
    log_error("%s", err[0] ? err : dsana_strerror(rc));
  if (metrics_close(s->metrics) != 0 && !rc) {
    log_error("%s: writing metrics failed", s->cfg.metrics_path);
    rc = DSANA_EIO;
  }
  s->metrics = NULL;
  return rc;
}
