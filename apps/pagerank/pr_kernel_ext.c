/*
 * pr_kernel_ext.c - weighted and personalised PageRank (networkx's
 * semantics, pagerank.h): the same pull-direction task and shard pass as
 * pr_kernel.c, with
 *   - weights: contrib(u) = r(u) / out_w(u), a vertex sums w(u,v) * contrib(u)
 *     over its in-edges in CSC order (the block path adds the same products
 *     in the same order, so both give the same bits);
 *   - a personalization vector p: r(v) = d * (sum + D p(v)) + (1 - d) p(v).
 * Kept apart so that plain PageRank's loops stay exactly as they were.
 */
#include <math.h>

#include "pagerank.h"

bool pr_extended(const struct pr_app *pr) { return pr->weighted || pr->pers; }

/* out[v] = the in-edge sum of v, for v in the task's range. */
static void pr_sums(const struct pr_app *pr, const struct dsana_task_ctx *ctx, double *out, const double *contrib) {
  const uint64_t *off = pr->g.in_off;
  const uint32_t *src = pr->g.in_src;
  const double *w = pr->weighted ? pr->g.in_w : NULL;
  for (uint64_t v = ctx->lo; v < ctx->hi; v++) {
    double s = 0.0;
    if (w)
      for (uint64_t e = off[v], end = off[v + 1]; e < end; e++)
        s += w[e] * contrib[src[e]];
    else
      for (uint64_t e = off[v], end = off[v + 1]; e < end; e++)
        s += contrib[src[e]];
    out[v] = s;
  }
}

/* The in-edge sums in out become ranks. */
void pr_task_end_ext(const struct pr_app *pr, const struct dsana_task_ctx *ctx, double *out) {
  const double d = pr->damping, dangling = ctx->globals[PR_G_DANGLING];
  if (!pr->pers) {
    const double n = (double)pr->g.n;
    const double base = (1.0 - d) / n + d * (dangling / n);
    for (uint64_t v = ctx->lo; v < ctx->hi; v++)
      out[v] = base + d * out[v];
    return;
  }
  const double *p = pr->pers;
  for (uint64_t v = ctx->lo; v < ctx->hi; v++)
    out[v] = d * (out[v] + dangling * p[v]) + (1.0 - d) * p[v];
}

int pr_run_task_ext(struct pr_app *pr, struct dsana_task_ctx *ctx, double *out, const double *contrib) {
  pr_sums(pr, ctx, out, contrib);
  pr_task_end_ext(pr, ctx, out);
  return 0;
}

/* The servers' pass with weights: contributions divide by out_w. */
int pr_finish_weighted(struct pr_app *pr, struct dsana_shard_ctx *ctx) {
  const double *rank = ctx->new_values[PR_TABLE_RANK];
  const double *old = ctx->old_values[PR_TABLE_RANK];
  double *contrib = ctx->new_values[PR_TABLE_CONTRIB];
  const uint32_t *deg = pr->g.out_deg;
  const double *out_w = pr->g.out_w;
  dsana_xsum res = {0}, dangling = {0};
  for (uint64_t v = ctx->lo; v < ctx->hi; v++) {
    double r = rank[v];
    if (ctx->iter > 0)
      dsana_xsum_add(&res, fabs(r - old[v]));
    bool has_out = deg[v] != 0;
    dsana_xsum_add(&dangling, has_out ? 0.0 : r);
    contrib[v] = has_out ? r / out_w[v] : 0.0;
  }
  ctx->sums[PR_SUM_RESIDUAL] = res;
  ctx->sums[PR_SUM_DANGLING] = dangling;
  return 0;
}
