/*
 * pagerank.h - private to the PageRank app: its options and state, shared
 * by pagerank.c (tables, tasks, reduce), pr_options.c (options, input
 * checks and loading), pr_kernel.c (the per-task pull-direction kernel and
 * the servers' finish hook), pr_kernel_ext.c (the same for weighted or
 * personalised PageRank) and pr_output.c (result file and top-K report).
 *
 * Semantics: r(v) = (1-d)/n + d * (sum_{u->v} r(u)/out(u) + D/n), D = the
 * rank held by dangling vertices, spread uniformly. networkx's with the
 * options: --weighted, out(u) is the sum of u's out-edge weights and u->v
 * carries r(u) * w(u,v) / out(u); --personalization p (normalised):
 * r(v) = (1-d) p(v) + d * (sum ... + D p(v)), teleports and dangling mass
 * both follow p. Tables (n keys each):
 * "rank" (ASSIGN: each task writes its destination range; the result) and
 * "contrib" (DERIVED on servers: r/out, 0 for dangling vertices; what every
 * task reads, block by block when it comes in chunks). Sums reported by
 * servers: 0 = L1 change of rank, 1 = dangling mass.
 * Fused (plain PageRank on one machine, dsana_job_info.local): contrib is
 * ASSIGN, written by the task that computes the rank, which also adds the
 * dangling mass; the servers' pass is the residual alone. The same values,
 * computed in the same way (exact sums), so the same bits.
 */
#ifndef DSANA_APPS_PAGERANK_H
#define DSANA_APPS_PAGERANK_H

#include <pthread.h>
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
  char pers_path[PR_PATH_MAX];
  char converted[PR_PATH_MAX]; /* binary copy made by prepare(): an anonymous file
                                * (dsana_outfile_anon) the forked roles map */
  int converted_fd;            /* its descriptor, -1 */
  bool dedup, weighted, undirected;
  bool validated; /* the whole graph passed graph_check_range */
  bool fused;     /* contributions and dangling mass computed by the tasks */
  double damping, tol;
  uint32_t max_iter, top_k;
  struct dsana_graph g;
  bool loaded;
  double *pers;            /* n: the normalised personalization vector, or NULL */
  struct pr_block *blocks; /* per task, built when first run chunked */
  uint64_t *task_lo;       /* n_tasks + 1: task i is [task_lo[i], task_lo[i+1]) */
  uint32_t n_tasks;
  pthread_mutex_t blocks_mu; /* a worker's threads begin tasks side by side */
  bool spares_built;         /* the spare layouts (pr_layout) are made */
  uint64_t spare_bytes;      /* their budget; 0: PR_SPARE_BYTES (pr_layouts.c) */
};

int pr_run_task(void *app, struct dsana_task_ctx *ctx);
int pr_task_begin(void *app, struct dsana_task_ctx *ctx);
int pr_task_block(void *app, struct dsana_task_ctx *ctx, uint64_t chunk);
int pr_task_end(void *app, struct dsana_task_ctx *ctx);
/* pr_layouts.c: task `task`'s layout for chunks of chunk_keys source keys,
 * built now if need be (the first call builds spares too); NULL with *rc
 * set when memory runs out. */
const struct pr_block *pr_layout(struct pr_app *pr, uint32_t task, uint64_t chunk_keys, int *rc);
int pr_finish(void *app, struct dsana_shard_ctx *ctx);
/* pr_options.c */
extern const struct dsana_app_option pr_options[];
int pr_set_option(void *app, const char *name, const char *value, char *err, size_t errlen);
int pr_prepare(void *app, char *err, size_t errlen);
/* Every role: the graph (and personalization) once, checked. */
int pr_load(struct pr_app *pr, char *err, size_t errlen);
/* pr_kernel_ext.c: the weighted and/or personalised variants */
bool pr_extended(const struct pr_app *pr);
int pr_run_task_ext(struct pr_app *pr, struct dsana_task_ctx *ctx, double *out, const double *contrib);
void pr_task_end_ext(const struct pr_app *pr, const struct dsana_task_ctx *ctx, double *out);
int pr_finish_weighted(struct pr_app *pr, struct dsana_shard_ctx *ctx);
int pr_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
              char *err, size_t errlen);

#endif
