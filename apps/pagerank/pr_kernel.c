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
#include <string.h>

#include "pagerank.h"
#include "pr_sum.h"

/* Chunked transfers: the task as hooks the worker drives chunk by chunk
 * across all its tasks (dsana_app.task_begin/block/end); pr_block.h keeps
 * the sums bit-identical to run_task's. */
int pr_task_begin(void *app, struct dsana_task_ctx *ctx) {
  struct pr_app *pr = app;
  int rc;
  if (!pr_layout(pr, ctx->task, dsana_block_keys(ctx), &rc))
    return rc;
  double *acc = dsana_push_buf(ctx, PR_TABLE_RANK);
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
    pr_block_run_weighted(b, c, dsana_read(ctx, PR_TABLE_CONTRIB), dsana_push_buf(ctx, PR_TABLE_RANK));
  else
    pr_block_run(b, c, dsana_read(ctx, PR_TABLE_CONTRIB), dsana_push_buf(ctx, PR_TABLE_RANK));
  ctx->cost = (double)pr_block_edges(b, c); /* the blocks and the end add up to the task's cost */
  return 0;
}

/* x if keep, else +0.0, without a branch (dangling vertices come in no
 * order a branch predictor could follow). */
static inline double keep_if(bool keep, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  bits &= (uint64_t)0 - keep;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static inline double dangling_rank(const double *rank, const void *deg, uint64_t v) {
  return keep_if(((const uint32_t *)deg)[v] == 0, rank[v]);
}

static inline double rank_change(const double *rank, const void *old, uint64_t v) {
  return fabs(rank[v] - ((const double *)old)[v]);
}

/* The rank held by the dangling vertices of [lo, hi). */
static dsana_xsum dangling_mass(const double *rank, const uint32_t *deg, uint64_t lo, uint64_t hi) {
  if (pr_sum_vector())
    return pr_sum_avx512(PR_ADDEND_DANGLING, rank, deg, lo, hi);
  return pr_lanes_sum(dangling_rank, rank, deg, lo, hi, true);
}

/* The L1 change sum |rank - old| over [lo, hi). */
static dsana_xsum l1_change(const double *rank, const double *old, uint64_t lo, uint64_t hi) {
  if (pr_sum_vector())
    return pr_sum_avx512(PR_ADDEND_CHANGE, rank, old, lo, hi);
  return pr_lanes_sum(rank_change, rank, old, lo, hi, false);
}

/* contrib[v] = rank[v] / out-degree (0 for a dangling vertex) over [lo, hi):
 * r / max(d, 1), then +0.0 where d is 0. */
static void contributions(const double *rank, const uint32_t *deg, uint64_t lo, uint64_t hi, double *contrib) {
  for (uint64_t v = lo; v < hi; v++)
    contrib[v] = keep_if(deg[v] != 0, rank[v] / (double)(deg[v] + (deg[v] == 0)));
}

/* Fused runs: the contributions of the task's new ranks, and their
 * dangling mass, while the ranks are still in cache. */
static void pr_fuse(const struct pr_app *pr, struct dsana_task_ctx *ctx, const double *rank) {
  contributions(rank, pr->g.out_deg, ctx->lo, ctx->hi, dsana_push_buf(ctx, PR_TABLE_CONTRIB));
  dsana_xsum dangling = dangling_mass(rank, pr->g.out_deg, ctx->lo, ctx->hi);
  dsana_xsum_merge(&ctx->sums[PR_SUM_DANGLING], &dangling);
}

int pr_task_end(void *app, struct dsana_task_ctx *ctx) {
  struct pr_app *pr = app;
  double *out = dsana_push_buf(ctx, PR_TABLE_RANK);
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
 * Measured on Kronecker 20 (bench/pagerank/cost.sh): 2 threads, 64 -> 256 edges
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
  double *out = dsana_push_buf(ctx, PR_TABLE_RANK);
  const double *contrib = dsana_read(ctx, PR_TABLE_CONTRIB);
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
  const double *rank = ctx->new_values[PR_TABLE_RANK];
  const double *old = ctx->old_values[PR_TABLE_RANK];
  if (ctx->iter == 0)
    ctx->sums[PR_SUM_DANGLING] = dangling_mass(rank, pr->g.out_deg, ctx->lo, ctx->hi);
  else
    ctx->sums[PR_SUM_RESIDUAL] = l1_change(rank, old, ctx->lo, ctx->hi);
  return 0;
}

int pr_finish(void *app, struct dsana_shard_ctx *ctx) {
  struct pr_app *pr = app;
  if (pr->weighted)
    return pr_finish_weighted(pr, ctx);
  if (pr->fused)
    return pr_finish_fused(pr, ctx);
  const double *rank = ctx->new_values[PR_TABLE_RANK];
  if (ctx->iter > 0)
    ctx->sums[PR_SUM_RESIDUAL] = l1_change(rank, ctx->old_values[PR_TABLE_RANK], ctx->lo, ctx->hi);
  ctx->sums[PR_SUM_DANGLING] = dangling_mass(rank, pr->g.out_deg, ctx->lo, ctx->hi);
  contributions(rank, pr->g.out_deg, ctx->lo, ctx->hi, ctx->new_values[PR_TABLE_CONTRIB]);
  return 0;
}
