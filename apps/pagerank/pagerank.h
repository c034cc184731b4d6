/*
 * pagerank.h - private to the PageRank app: its options and state, shared
 * by pagerank.c (options, tables, tasks, reduce), pr_kernel.c (the per-task
 * pull-direction kernel and the servers' finish hook) and pr_output.c
 * (result file and top-K report).
 *
 * Semantics: r(v) = (1-d)/n + d * (sum_{u->v} r(u)/out(u) + D/n), D = the
 * rank held by dangling vertices, spread uniformly. Tables (n keys each):
 * "rank" (ASSIGN: each task writes its destination range; the result) and
 * "contrib" (DERIVED on servers: r/out, 0 for dangling vertices; what every
 * task reads, block by block when it comes in chunks). Sums reported by
 * servers: 0 = L1 change of rank, 1 = dangling mass.
 */
#ifndef DSANA_APPS_PAGERANK_H
#define DSANA_APPS_PAGERANK_H

#include <stdbool.h>
#include <stdint.h>

#include "dsana/dsana.h"
#include "dsana/graph.h"
#include "pr_block.h"

#define PR_PATH_MAX 1024

enum { PR_SUM_RESIDUAL = 0, PR_SUM_DANGLING = 1 };
enum { PR_TABLE_RANK = 0, PR_TABLE_CONTRIB = 1 }; /* ids, in declaration order */
enum { PR_G_DANGLING = 0 };

struct pr_app {
  char graph_path[PR_PATH_MAX];
  char out_path[PR_PATH_MAX];
  char converted[PR_PATH_MAX]; /* temporary binary made by prepare() */
  int converted_by;            /* pid that owns (and removes) it */
  bool dedup;
  bool validated; /* the whole graph passed graph_check_range */
  double damping, tol;
  uint32_t max_iter, top_k;
  struct dsana_graph g;
  bool loaded;
  uint32_t t_rank, t_contrib;
  struct pr_block *blocks; /* per task, built when first run chunked */
  uint32_t n_tasks;
};

int pr_run_task(void *app, struct dsana_task_ctx *ctx);
int pr_task_begin(void *app, struct dsana_task_ctx *ctx);
int pr_task_block(void *app, struct dsana_task_ctx *ctx, uint64_t chunk);
int pr_task_end(void *app, struct dsana_task_ctx *ctx);
int pr_finish(void *app, struct dsana_shard_ctx *ctx);
int pr_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
              char *err, size_t errlen);

#endif
