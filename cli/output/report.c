/*
 * report.c - what a run shows its user: the per-iteration table on stdout,
 * the live progress line on a terminal, the --metrics JSON lines and the
 * summary line. The scheduler calls these hooks (runtime/core/observer.h) in the
 * process that runs it.
 */
#include "cli/output/report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/thread/clock.h"
#include "util/text/log.h"
#include "util/text/status.h"

static void print_row(const struct rt_iter_report *r, bool header) {
  double cmax = 0, cmin = 1e300;
  uint32_t tmin = UINT32_MAX, tmax = 0;
  for (uint32_t w = 0; w < r->n_workers; w++) {
    const struct worker_iter_stats *st = &r->workers[w];
    cmax = st->compute_s > cmax ? st->compute_s : cmax;
    cmin = st->compute_s < cmin ? st->compute_s : cmin;
    tmin = st->tasks < tmin ? st->tasks : tmin;
    tmax = st->tasks > tmax ? st->tasks : tmax;
  }
  if (header) {
    printf("%6s %14s %10s %12s %12s %9s", "iter", "residual", "time_s", "compute_max", "compute_min", "tasks");
    for (uint32_t i = 0; i < r->n_metrics; i++)
      printf(" %14s", r->metric_name[i]);
    printf("\n");
  }
  printf("%6u %14.6e %10.4f %12.4f %12.4f %4u-%-4u", r->iter, r->residual, r->wall_s, cmax, cmin, tmin, tmax);
  for (uint32_t i = 0; i < r->n_metrics; i++)
    printf(" %14.6g", r->metric[i]);
  printf("\n");
  fflush(stdout);
}

static void on_iteration(void *arg, const struct rt_iter_report *r) {
  struct cli_report *rep = arg;
  if (rep->rows == 0)
    progress_init(&rep->line, rep->progress, r->tol, r->max_iter);
  rep->tol = r->tol;
  rep->max_iter = r->max_iter;
  metrics_iteration(rep->metrics, r);
  for (uint32_t w = 0; w < r->n_workers; w++)
    metrics_worker(rep->metrics, r->iter, w, &r->workers[w]);
  if (!rep->quiet && !r->quiet_row) {
    progress_done(&rep->line);
    print_row(r, rep->printed++ == 0);
  }
  rep->rows++;
  progress_set_figures(&rep->line, r->metric_name, r->metric, r->n_metrics);
  progress_update(&rep->line, r->iter, r->residual, r->wall_s, (double)(clock_now_ns() - rep->start_ns) * 1e-9);
}

/* "input": the positional argument and the app's facts about it. */
static void add_input(cJSON *o, const struct cli_run *run) {
  cJSON *in = cJSON_AddObjectToObject(o, "input");
  for (uint32_t i = 0; in && i < run->args.n; i++)
    if (!run->args.name[i][0] && !cJSON_GetObjectItem(in, "path"))
      cJSON_AddStringToObject(in, "path", run->args.value[i]);
  for (uint32_t i = 0; in && i < run->n_facts; i++)
    cJSON_AddNumberToObject(in, run->facts[i].name, run->facts[i].value);
}

/* "options": every app option's value in this run (defaults included). */
static void add_options(cJSON *o, const struct cli_run *run) {
  cJSON *opts = cJSON_AddObjectToObject(o, "options");
  const struct dsana_app_option *op = run->app->options;
  for (size_t i = 0; opts && op && op[i].name; i++) {
    const char *v = cli_option_value(run, &op[i]);
    char *end;
    double x = v ? strtod(v, &end) : 0;
    if (!op[i].arg)
      cJSON_AddBoolToObject(opts, op[i].name, v != NULL);
    else if (v && end != v && !*end)
      cJSON_AddNumberToObject(opts, op[i].name, x);
    else if (v)
      cJSON_AddStringToObject(opts, op[i].name, v);
  }
}

static void summary_json(struct cli_report *rep, const struct rt_run_report *r) {
  cJSON *o = cJSON_CreateObject();
  if (rep->run) {
    add_input(o, rep->run);
    add_options(o, rep->run);
  }
  cJSON_AddStringToObject(o, "app", r->app);
  cJSON_AddStringToObject(o, "mode", r->mode);
  cJSON_AddStringToObject(o, "mechanisms", r->mechanisms);
  cJSON_AddStringToObject(o, "sched", r->sched);
  cJSON_AddNumberToObject(o, "workers", r->workers);
  cJSON_AddNumberToObject(o, "servers", r->servers);
  cJSON_AddNumberToObject(o, "tasks", r->tasks);
  cJSON_AddNumberToObject(o, "tasks_per_worker", r->tasks_per_worker);
  cJSON_AddStringToObject(o, "scenario", r->scenario);
  cJSON_AddNumberToObject(o, "iterations", r->iterations);
  cJSON_AddNumberToObject(o, "residual", r->residual);
  cJSON_AddBoolToObject(o, "converged", r->converged);
  cJSON_AddNumberToObject(o, "total_s", r->total_s);
  cJSON_AddNumberToObject(o, "median_iter_s", r->median_iter_s);
  cJSON_AddNumberToObject(o, "bound_s", r->bound_s);
  cJSON_AddNumberToObject(o, "transfer_bound_s", r->transfer_bound_s);
  cJSON_AddNumberToObject(o, "overrun_s", r->overrun_s);
  cJSON_AddNumberToObject(o, "chunk_bytes", (double)r->chunk_bytes);
  cJSON_AddBoolToObject(o, "compress", r->compressed);
  cJSON_AddNumberToObject(o, "pull_bytes", (double)r->pull_bytes);
  cJSON_AddNumberToObject(o, "pull_bytes_raw", (double)r->pull_bytes_raw);
  cJSON_AddNumberToObject(o, "compress_ratio", r->pull_bytes ? (double)r->pull_bytes_raw / (double)r->pull_bytes : 1);
  cJSON_AddStringToObject(o, "transfer_bound_bytes", "as sent");
  cJSON_AddNumberToObject(o, "refused_peers", (double)r->refused_peers);
  cJSON_AddNumberToObject(o, "dropped_messages", (double)r->dropped_msgs);
  cJSON_AddNumberToObject(o, "stale_messages", (double)r->stale_msgs);
  /* the cost of a steady iteration (unknown: left out) */
  if (r->sched_messages_per_iter >= 0)
    cJSON_AddNumberToObject(o, "scheduler_messages_per_iter", r->sched_messages_per_iter);
  if (r->steals_per_iter >= 0)
    cJSON_AddNumberToObject(o, "steals_per_iter", r->steals_per_iter);
  if (r->handouts_per_iter >= 0)
    cJSON_AddNumberToObject(o, "handouts_per_iter", r->handouts_per_iter);
  if (r->wakeups_per_iter >= 0)
    cJSON_AddNumberToObject(o, "wakeups_per_iter", r->wakeups_per_iter);
  if (r->cpu_ms_per_iter >= 0)
    cJSON_AddNumberToObject(o, "cpu_ms_per_iter", r->cpu_ms_per_iter);
  cJSON_AddStringToObject(o, "version", DSANA_VERSION_STRING);
  for (uint32_t i = 0; i < r->n_metrics; i++)
    cJSON_AddNumberToObject(o, r->metric_name[i], r->metric[i]);
  metrics_summary(rep->metrics, o);
}

static void on_summary(void *arg, const struct rt_run_report *r) {
  struct cli_report *rep = arg;
  rep->summary = (struct cli_summary){.summarized = true,
                                      .iterations = r->iterations,
                                      .residual = r->residual,
                                      .converged = r->converged,
                                      .total_s = r->total_s};
  progress_done(&rep->line);
  if (!rep->quiet) {
    char res[40] = ""; /* none from the simulator: it computes no values */
    if (!isnan(r->residual))
      snprintf(res, sizeof res, "  residual: %.6e", r->residual);
    printf("iterations: %u%s  total: %.3f s  median iteration: %.4f s  bound: %.4f s  chunk: %s%llu B\n", r->iterations,
           res, r->total_s, r->median_iter_s, r->bound_s, r->chunked ? "" : "whole table, ",
           (unsigned long long)r->chunk_bytes);
    if (r->wakeups_per_iter >= 0)
      printf("per iteration (from the second): %.1f wake-ups, %.2f ms of CPU (every role's process), %.1f scheduler "
             "messages\n",
             r->wakeups_per_iter, r->cpu_ms_per_iter, r->sched_messages_per_iter);
    if (r->compressed && r->pull_bytes)
      printf("compressed pulls: %.3f MB -> %.3f MB (ratio %.2f); the transfer bound counts the bytes sent\n",
             (double)r->pull_bytes_raw * 1e-6, (double)r->pull_bytes * 1e-6,
             (double)r->pull_bytes_raw / (double)r->pull_bytes);
    fflush(stdout);
  }
  /* --tol 0 asks for exactly --max-iter iterations: nothing to warn about */
  if (!r->converged && rep->max_iter && r->iterations >= rep->max_iter && rep->tol > 0)
    fprintf(stderr,
            "dsana %s: warning: not converged: --max-iter %u stopped the run at residual %.3e, above --tol %g\n",
            r->app, rep->max_iter, r->residual, rep->tol);
  summary_json(rep, r);
}

/* A metrics file that cannot be opened or written does not stop the run:
 * its reason is logged once and the run ends incomplete
 * (util/text/status.h). */
static int on_open(void *arg) {
  struct cli_report *rep = arg;
  char err[1200] = "";
  rep->start_ns = clock_now_ns();
  if (metrics_open(rep->metrics_path, &rep->metrics, err, sizeof err) != 0) {
    log_error("%s (the run goes on without metrics)", err[0] ? err : rep->metrics_path);
    status_mark_incomplete();
  }
  return 0;
}

static int on_close(void *arg) {
  struct cli_report *rep = arg;
  char err[1200] = "";
  progress_done(&rep->line);
  int rc = metrics_close(rep->metrics, err, sizeof err);
  rep->metrics = NULL;
  if (rc) {
    log_error("cannot write the metrics: %s", err);
    status_mark_incomplete();
  }
  return 0;
}

void report_init(struct cli_report *rep, const struct cli_run *run) {
  const struct run_config *cfg = &run->cfg;
  memset(rep, 0, sizeof *rep);
  rep->run = run;
  rep->quiet = cfg->quiet;
  rep->progress = !cfg->quiet && isatty(STDERR_FILENO);
  rep->metrics_path = cfg->metrics_path;
  progress_init(&rep->line, rep->progress, 0, 0);
  rep->observer = (struct rt_observer){
      .arg = rep, .open = on_open, .close = on_close, .iteration = on_iteration, .summary = on_summary};
}
