/*
 * km_reduce.c - the scheduler's side of the k-means app (kmeans.h): from
 * an iteration's exact sums, its objective, the convergence test and the
 * figures the iteration table, the progress line and --metrics show.
 *
 * Converged: no row changed cluster (then the next centroids are these:
 * the same rows give the same means), or no centroid moved (then the next
 * iteration would repeat this one), or, with --tol T > 0, the objective
 * changed by at most T relative to the previous iteration's. The residual
 * is that relative change (1 at the first iteration: nothing before it).
 * The previous objective is kept in the globals, which checkpoints carry,
 * so a resumed run takes the same decisions.
 */
#include <math.h>
#include <string.h>

#include "kmeans.h"

static void report(struct dsana_reduce_ctx *ctx) {
  const double *s = ctx->sums;
  dsana_reduce_metric(ctx, "objective", s[KM_SUM_OBJ]);
  dsana_reduce_metric(ctx, "changed", s[KM_SUM_CHANGED]);
  dsana_reduce_metric(ctx, "empty", s[KM_SUM_EMPTY]);
  dsana_reduce_metric(ctx, "shift", s[KM_SUM_SHIFT]);
  dsana_reduce_metric(ctx, "moved", s[KM_SUM_MOVED]);
}

int km_reduce(void *app, struct dsana_reduce_ctx *ctx) {
  struct km_app *a = app;
  double *gl = ctx->globals;
  if (ctx->iter == 0) { /* the initial values: nothing assigned yet */
    memset(gl, 0, sizeof(double) * DSANA_MAX_GLOBALS);
    ctx->residual = INFINITY;
    return 0;
  }
  double obj = ctx->sums[KM_SUM_OBJ], prev = gl[KM_G_PREV_OBJ];
  double changed = ctx->sums[KM_SUM_CHANGED], moved = ctx->sums[KM_SUM_MOVED];
  double rel = ctx->iter == 1 ? 1.0 : prev > 0 ? fabs(prev - obj) / prev : 0.0;
  ctx->residual = rel;
  /* (the runtime stops at --max-iter itself) */
  ctx->converged = changed == 0 || moved == 0 || (a->tol > 0 && ctx->iter > 1 && rel <= a->tol);
  gl[KM_G_PREV_OBJ] = obj;
  a->last_changed = changed;
  a->last_moved = moved;
  a->last_rel = rel;
  report(ctx);
  return 0;
}
