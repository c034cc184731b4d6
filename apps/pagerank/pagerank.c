/*
 * pagerank.c - the PageRank app: tables and tasks (destination ranges with
 * cost = in-edges + 1), initial values, the convergence test and the app's
 * table. Options and loading are in pr_options.c, hot loops in
 * pr_kernel.c, output in pr_output.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apps/apps.h"
#include "apps/common/prepared.h"
#include "pagerank.h"

static int pr_create(void **out) {
  struct pr_app *pr = calloc(1, sizeof *pr);
  if (!pr)
    return DSANA_ENOMEM;
  pr->converted_fd = -1;
  int rc = dsana_app_set_defaults(&pagerank_app, pr); /* --damping, --tol, --max-iter, --top */
  if (!rc && pthread_mutex_init(&pr->blocks_mu, NULL) != 0)
    rc = DSANA_ENOMEM;
  if (rc) {
    free(pr);
    return rc;
  }
  *out = pr;
  return 0;
}

static void pr_destroy(void *app) {
  struct pr_app *pr = app;
  if (!pr)
    return;
  for (uint32_t t = 0; pr->blocks && t < pr->n_tasks; t++)
    pr_block_fini(&pr->blocks[t]);
  free(pr->blocks);
  free(pr->task_lo);
  pthread_mutex_destroy(&pr->blocks_mu);
  if (pr->loaded)
    dsana_graph_fini(&pr->g);
  if (pr->converted_fd >= 0) {
    prepared_forget(pr->converted);
    close(pr->converted_fd); /* the anonymous copy goes with its last holder */
  }
  free(pr->pers);
  free(pr);
}

/* The least cost (in-edges + vertices) of a task when the count is ours
 * to choose (dsana_job_info.tasks_auto): at ~2-3 ns a unit, ~0.1 ms of
 * gather, several times what the runtime spends on a task. */
#define PR_MIN_TASK_COST 32768u

/* How many tasks: n_workers * tasks_per_worker, fewer when the count is
 * ours to choose and they would be smaller than PR_MIN_TASK_COST (at
 * least one a worker), never more than one a vertex. */
static uint32_t pr_task_count(const struct pr_app *pr, const struct dsana_job_info *info) {
  uint64_t want = (uint64_t)info->n_workers * info->tasks_per_worker;
  if (info->tasks_auto) {
    uint64_t fit = (pr->g.m + pr->g.n) / PR_MIN_TASK_COST;
    if (fit < want)
      want = fit > info->n_workers ? fit : info->n_workers;
  }
  return (uint32_t)(want < pr->g.n ? want : pr->g.n);
}

/* Split destinations into n_tasks ranges of about equal in-edges + vertices. */
static void pr_make_tasks(struct pr_app *pr, struct dsana_job *job) {
  struct dsana_job_info info;
  dsana_job_get_info(job, &info);
  uint64_t n = pr->g.n;
  uint32_t n_tasks = pr_task_count(pr, &info);
  struct dsana_task_decl *t = calloc(n_tasks, sizeof *t);
  if (!t) {
    dsana_job_fail(job, DSANA_ENOMEM, "out of memory for the tasks");
    return;
  }
  double total = (double)(pr->g.m + n);
  uint64_t v = 0;
  for (uint32_t i = 0; i < n_tasks; i++) {
    uint64_t lo = v;
    /* the task ends where cumulative cost first reaches (i+1)/T of total,
     * leaving at least one vertex for each remaining task */
    double target = total * (double)(i + 1) / n_tasks;
    uint64_t max_hi = n - (n_tasks - 1 - i);
    uint64_t a = lo + 1, b = max_hi;
    while (a < b) {
      uint64_t mid = a + (b - a) / 2;
      if ((double)(pr->g.in_off[mid] + mid) >= target)
        b = mid;
      else
        a = mid + 1;
    }
    v = i + 1 == n_tasks ? n : a;
    t[i] = (struct dsana_task_decl){.lo = lo, .hi = v, .cost = (double)(pr->g.in_off[v] - pr->g.in_off[lo] + (v - lo))};
  }
  dsana_job_set_tasks(job, t, n_tasks);
  for (uint32_t i = 0; i < n_tasks; i++) {
    dsana_job_task_writes(job, i, PR_TABLE_RANK, t[i].lo, t[i].hi);
    if (pr->fused)
      dsana_job_task_writes(job, i, PR_TABLE_CONTRIB, t[i].lo, t[i].hi);
  }
  dsana_job_task_reads(job, DSANA_ALL_TASKS, PR_TABLE_CONTRIB, 0, pr->g.n);
  for (uint32_t i = 0; pr->blocks && i < pr->n_tasks; i++)
    pr_block_fini(&pr->blocks[i]);
  free(pr->blocks); /* a setup() run before (the launcher's check) */
  free(pr->task_lo);
  pr->blocks = calloc(n_tasks, sizeof *pr->blocks);
  pr->task_lo = malloc(((size_t)n_tasks + 1) * sizeof *pr->task_lo);
  pr->n_tasks = n_tasks;
  pr->spares_built = false;
  for (uint32_t i = 0; pr->task_lo && i < n_tasks; i++)
    pr->task_lo[i] = t[i].lo;
  if (pr->task_lo)
    pr->task_lo[n_tasks] = n;
  free(t);
  if (!pr->blocks || !pr->task_lo)
    dsana_job_fail(job, DSANA_ENOMEM, "out of memory for the tasks");
}

/* Vertices without out-edges are in no in-edge list: no task reads their
 * contributions, so pulls need not carry them. */
static void pr_declare_unread(struct pr_app *pr, struct dsana_job *job) {
  uint64_t *unread = calloc(pr->g.n / 64 + 1, sizeof *unread);
  if (!unread) {
    dsana_job_fail(job, DSANA_ENOMEM, "out of memory for the unread keys");
    return;
  }
  for (uint64_t v = 0; v < pr->g.n; v++)
    if (pr->g.out_deg[v] == 0)
      unread[v / 64] |= 1ull << (v % 64);
  dsana_job_set_unread(job, PR_TABLE_CONTRIB, unread);
  free(unread);
}

static int pr_setup(void *app, struct dsana_job *job, char *err, size_t errlen) {
  struct pr_app *pr = app;
  int rc = pr_load(pr, err, errlen);
  if (rc)
    return rc;
  struct dsana_job_info info;
  dsana_job_get_info(job, &info);
  pr->fused = info.local && !pr_extended(pr);
  enum dsana_rule contrib_rule = pr->fused ? DSANA_RULE_ASSIGN : DSANA_RULE_DERIVED;
  dsana_job_add_table_id(job, PR_TABLE_RANK, "rank", pr->g.n, 1, DSANA_RULE_ASSIGN);
  dsana_job_add_table_id(job, PR_TABLE_CONTRIB, "contrib", pr->g.n, 1, contrib_rule);
  dsana_job_set_result_table(job, PR_TABLE_RANK);
  pr_make_tasks(pr, job);
  dsana_job_set_block_table(job, PR_TABLE_CONTRIB);
  dsana_job_set_sums(job, 2);
  pr_declare_unread(pr, job);
  dsana_job_set_convergence(job, pr->tol, pr->max_iter);
  dsana_job_add_fact(job, "vertices", (double)pr->g.n);
  dsana_job_add_fact(job, "edges", (double)pr->g.m);
  return dsana_job_status(job, pr->graph_path, err, errlen);
}

static int pr_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values) {
  struct pr_app *pr = app;
  double r0 = 1.0 / (double)pr->g.n;
  const uint32_t *deg = pr->g.out_deg;
  for (uint64_t v = lo; v < hi; v++) /* fused runs start with the initial contributions */
    values[v] = table == PR_TABLE_RANK ? r0 : pr->fused && deg[v] ? r0 / (double)deg[v] : 0.0;
  return 0;
}

static int pr_reduce(void *app, struct dsana_reduce_ctx *ctx) {
  struct pr_app *pr = app;
  ctx->globals[PR_G_DANGLING] = ctx->sums[PR_SUM_DANGLING];
  if (ctx->iter == 0) {
    ctx->residual = INFINITY;
    ctx->converged = false;
    return 0;
  }
  ctx->residual = ctx->sums[PR_SUM_RESIDUAL];
  ctx->converged = ctx->residual < pr->tol; /* the runtime stops at --max-iter */
  return 0;
}

const struct dsana_app pagerank_app = {
    .name = "pagerank",
    .summary = "PageRank of a directed graph (pull direction, BSP-exact)",
    .args = "GRAPH",
    .help = "GRAPH: SNAP edge list (plain or .gz), Matrix Market (.mtx) or dsana binary (dsana graph convert).\n"
            "Self loops are kept and count in the out-degree; duplicate edges are kept as multi-edges\n"
            "(igraph's view) unless --dedup collapses them (networkx DiGraph's view). Dangling mass is\n"
            "spread uniformly (with --personalization: as the teleports). Without --weighted, columns after\n"
            "the second are ignored with one warning (SNAP's timestamps); with it, the third must be a\n"
            "positive number (Matrix Market: the entry's value). --personalization FILE: lines\n"
            "'vertex weight' (original ids, weights >= 0, normalised; unlisted vertices 0).\n"
            "Results are bit-identical for any worker, server, task or mode setting.\n",
    .options = pr_options,
    .create = pr_create,
    .destroy = pr_destroy,
    .set_option = pr_set_option,
    .prepare = pr_prepare,
    .setup = pr_setup,
    .init = pr_init,
    .run_task = pr_run_task,
    .task_begin = pr_task_begin,
    .task_block = pr_task_block,
    .task_end = pr_task_end,
    .finish = pr_finish,
    .reduce = pr_reduce,
    .output = pr_output,
};
