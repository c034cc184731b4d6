/*
 * pr_kernel.c - PageRank's hot loops: the pull-direction task (workers) and
 * the end-of-iteration pass over a shard (servers).
 *
 * Each vertex's new rank is computed by exactly one task, summing its
 * in-edges in CSC order (ascending source), so the result does not depend
 * on how vertices are split into tasks, workers or servers. Weighted or
 * personalised runs take the variants of pr_kernel_ext.c; this file's
 * loops are those of plain PageRank, unchanged.
 */
#include <math.h>

#include "pagerank.h"

/* Chunked transfers: the task as hooks the worker drives chunk by chunk
 * across all its tasks (dsana_app.task_begin/block/end); pr_block.h keeps
 * the sums bit-identical to run_task's. */
int pr_task_begin(void *app, struct dsana_task_ctx *ctx) {
  struct pr_app *pr = app;
  uint64_t k = dsana_block_keys(ctx);
  struct pr_block *b = &pr->blocks[ctx->task];
  if (!b->chunk_grp || b->chunk_keys != k) {
    pr_block_fini(b);
    int rc = pr_block_build(b, &pr->g, ctx->lo, ctx->hi, k, pr->weighted);
    if (rc)
      return rc;
  }
  double *acc = dsana_push_buf(ctx, pr->t_rank);
  if (!acc)
    return DSANA_ESTATE;
  for (uint64_t v = ctx->lo; v < ctx->hi; v++)
    acc[v] = 0.0;
  return 0;
}

int pr_task_block(void *app, struct dsana_task_ctx *ctx, uint64_t c) {
  struct pr_app *pr = app;
  const struct pr_block *b = &pr->blocks[ctx->task];
  if (b->chunk_grp[c] == b->chunk_grp[c + 1])
    return 0;
  if (b->w)
    pr_block_run_weighted(b, c, dsana_read(ctx, pr->t_contrib), dsana_push_buf(ctx, pr->t_rank));
  else
    pr_block_run(b, c, dsana_read(ctx, pr->t_contrib), dsana_push_buf(ctx, pr->t_rank));
  ctx->cost = (double)pr_block_edges(b, c); /* the blocks and the end add up to the task's cost */
  return 0;
}

/* Fused runs: the contributions of the task's new ranks, and their
 * dangling mass, while the ranks are still in cache. */
static void pr_fuse(const struct pr_app *pr, struct dsana_task_ctx *ctx, const double *rank) {
  double *contrib = dsana_push_buf(ctx, pr->t_contrib);
  const uint32_t *deg = pr->g.out_deg;
  dsana_xsum dangling = {0};
  for (uint64_t v = ctx->lo; v < ctx->hi; v++) {
    double r = rank[v];
    uint32_t d = deg[v];
    dsana_xsum_add(&dangling, d ? 0.0 : r);
    contrib[v] = d ? r / (double)d : 0.0;
  }
  dsana_xsum_merge(&ctx->sums[PR_SUM_DANGLING], &dangling);
}

int pr_task_end(void *app, struct dsana_task_ctx *ctx) {
  struct pr_app *pr = app;
  double *out = dsana_push_buf(ctx, pr->t_rank);
  ctx->cost = (double)(ctx->hi - ctx->lo);
  if (pr->pers) {
    pr_task_end_ext(pr, ctx, out);
    return 0;
  }
  const double d = pr->damping, n = (double)pr->g.n;
  const double base = (1.0 - d) / n + d * (ctx->globals[PR_G_DANGLING] / n);
  for (uint64_t v = ctx->lo; v < ctx->hi; v++)
    out[v] = base + d * out[v];
  if (pr->fused)
    pr_fuse(pr, ctx, out);
  return 0;
}

/* Prefetch distance in edges: the gather's reads of contrib are random
 * over megabytes, so each waits on memory unless asked for well before.
 * Measured on Kronecker 20 (bench/cost.sh): 2 threads, 64 -> 256 edges
 * ahead all beat none by ~1.8x; 128 is in the flat part. */
#define PR_PREFETCH 128

/* Destinations [lo, hi) whose in-edges all lie at least PR_PREFETCH edges
 * before the end of the graph: their loop may look that far ahead. */
static uint64_t prefetch_safe_end(const uint64_t *off, uint64_t m, uint64_t lo, uint64_t hi) {
  if (m < PR_PREFETCH)
    return lo;
  while (hi > lo && off[hi] > m - PR_PREFETCH)
    hi--;
  return hi;
}

/* out[v] = base + d * (sum of contrib over v's in-edges, CSC order). */
static void pr_gather(const struct dsana_graph *g, const double *contrib, double base, double d, uint64_t lo,
                      uint64_t hi, double *out) {
  const uint64_t *off = g->in_off;
  const uint32_t *src = g->in_src;
  uint64_t safe = prefetch_safe_end(off, g->m, lo, hi), v = lo;
  for (; v < safe; v++) {
    double s = 0.0;
    for (uint64_t e = off[v], end = off[v + 1]; e < end; e++) {
      __builtin_prefetch(&contrib[src[e + PR_PREFETCH]]);
      s += contrib[src[e]];
    }
    out[v] = base + d * s;
  }
  for (; v < hi; v++) {
    double s = 0.0;
    for (uint64_t e = off[v], end = off[v + 1]; e < end; e++)
      s += contrib[src[e]];
    out[v] = base + d * s;
  }
}

int pr_run_task(void *app, struct dsana_task_ctx *ctx) {
  struct pr_app *pr = app;
  double *out = dsana_push_buf(ctx, pr->t_rank);
  const double *contrib = dsana_read(ctx, pr->t_contrib);
  if (!out || !contrib)
    return DSANA_ESTATE;
  if (pr_extended(pr))
    return pr_run_task_ext(pr, ctx, out, contrib);
  const double d = pr->damping, n = (double)pr->g.n;
  const double base = (1.0 - d) / n + d * (ctx->globals[PR_G_DANGLING] / n);
  pr_gather(&pr->g, contrib, base, d, ctx->lo, ctx->hi, out);
  if (pr->fused)
    pr_fuse(pr, ctx, out);
  return 0;
}

/* Fused runs: the residual (and, for the initial ranks, their dangling
 * mass: no task computed them). */
static int pr_finish_fused(const struct pr_app *pr, struct dsana_shard_ctx *ctx) {
  const double *rank = ctx->new_values[pr->t_rank];
  const double *old = ctx->old_values[pr->t_rank];
  dsana_xsum acc = {0};
  if (ctx->iter == 0) {
    for (uint64_t v = ctx->lo; v < ctx->hi; v++)
      dsana_xsum_add(&acc, pr->g.out_deg[v] ? 0.0 : rank[v]);
    ctx->sums[PR_SUM_DANGLING] = acc;
    return 0;
  }
  for (uint64_t v = ctx->lo; v < ctx->hi; v++)
    dsana_xsum_add(&acc, fabs(rank[v] - old[v]));
  ctx->sums[PR_SUM_RESIDUAL] = acc;
  return 0;
}

int pr_finish(void *app, struct dsana_shard_ctx *ctx) {
  struct pr_app *pr = app;
  if (pr->weighted)
    return pr_finish_weighted(pr, ctx);
  if (pr->fused)
    return pr_finish_fused(pr, ctx);
  const double *rank = ctx->new_values[pr->t_rank];
  const double *old = ctx->old_values[pr->t_rank];
  double *contrib = ctx->new_values[pr->t_contrib];
  const uint32_t *deg = pr->g.out_deg;
  dsana_xsum res = {0}, dangling = {0};
  /* branch-free per key: about a third of a Kronecker graph's vertices are
   * dangling, in no particular order */
  for (uint64_t v = ctx->lo; v < ctx->hi; v++) {
    double r = rank[v];
    if (ctx->iter > 0)
      dsana_xsum_add(&res, fabs(r - old[v]));
    uint32_t d = deg[v];
    dsana_xsum_add(&dangling, d ? 0.0 : r);
    contrib[v] = d ? r / (double)d : 0.0;
  }
  ctx->sums[PR_SUM_RESIDUAL] = res;
  ctx->sums[PR_SUM_DANGLING] = dangling;
  return 0;
}
