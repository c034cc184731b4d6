/*
 * lr_server.c - the logistic-regression app on a server (logreg.h).
 *
 * finish(): once the gradient of a key range is complete, the objective's
 * gradient there, gt = (g + l2 x) / N (no l2 on the bias), is kept in the
 * state, and every dot product the optimiser may need is added into the
 * sums: with the trial's s = x - xb and y = gt - gb, their products with
 * each other, with gt and with every stored pair (reduce() decides whether
 * the trial is accepted, so they are all computed now).
 *
 * update(): after the commit, the scheduler's decision: on acceptance the
 * pair (s, y) enters the history, xb = x, gb = gt and the new direction
 * d = sum_j delta_j b_j over the basis [s_i, y_i, gb]; then the next trial
 * x = xb + alpha d (or, at the end, x = xb: the best point is the result).
 */
#include <string.h>

#include "logreg.h"

int lr_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values) {
  (void)app, (void)table, (void)lo, (void)hi, (void)values;
  return 0; /* every table starts at 0: the first trial is w = 0 */
}

/* The state slot `s` of key k (each slot K wide). */
static inline double *slot(double *state, uint64_t k, uint32_t K, uint32_t s) {
  return state + (k * LR_STATE_SLOTS + s) * K;
}

int lr_finish(void *app, struct dsana_shard_ctx *ctx) {
  const struct lr_app *a = app;
  if (ctx->iter == 0)
    return 0;
  if (a->batch)
    return lr_sgd_finish(a, ctx);
  const uint32_t K = a->kw;
  const uint64_t F = a->d.train.n_features;
  const double inv_n = 1.0 / (double)a->d.train.n_rows;
  const double *x = ctx->old_values[LR_T_X], *g = ctx->new_values[LR_T_G];
  double *st = ctx->new_values[LR_T_STATE];
  dsana_xsum *S = ctx->sums;
  for (uint64_t k = ctx->lo; k < ctx->hi; k++) {
    double *xb = slot(st, k, K, LR_S_XB), *gb = slot(st, k, K, LR_S_GB), *d = slot(st, k, K, LR_S_D);
    double *gt = slot(st, k, K, LR_S_GT);
    for (uint32_t c = 0; c < K; c++) {
      double xv = x[k * K + c], reg = k < F ? a->l2 * xv : 0.0;
      double gv = (g[k * K + c] + reg) * inv_n, s = xv - xb[c], y = gv - gb[c];
      gt[c] = gv;
      if (k < F)
        dsana_xsum_add(&S[LR_SUM_XX], xv * xv);
      dsana_xsum_add(&S[LR_SUM_GD], gv * d[c]);
      dsana_xsum_add(&S[LR_SUM_GG], gv * gv);
      dsana_xsum_add(&S[LR_SUM_SS], s * s);
      dsana_xsum_add(&S[LR_SUM_SY], s * y);
      dsana_xsum_add(&S[LR_SUM_YY], y * y);
      dsana_xsum_add(&S[LR_SUM_GS], gv * s);
      dsana_xsum_add(&S[LR_SUM_GY], gv * y);
      for (uint32_t i = 0; i < LR_MEM; i++) {
        double si = slot(st, k, K, LR_S_HIST + i)[c], yi = slot(st, k, K, LR_S_HIST + LR_MEM + i)[c];
        dsana_xsum *h = &S[LR_SUM_HIST + LR_SUM_PER_PAIR * i];
        dsana_xsum_add(&h[0], s * si);
        dsana_xsum_add(&h[1], s * yi);
        dsana_xsum_add(&h[2], y * si);
        dsana_xsum_add(&h[3], y * yi);
        dsana_xsum_add(&h[4], gv * si);
        dsana_xsum_add(&h[5], gv * yi);
      }
    }
  }
  return 0;
}

/* Accepted trial at key k: the pair into its slot, the new base point and
 * gradient, the new direction. */
static void accept(const double *gl, const double *xt, double *st, uint64_t k, uint32_t K) {
  int slot_i = (int)gl[LR_G_SLOT];
  double *xb = slot(st, k, K, LR_S_XB), *gb = slot(st, k, K, LR_S_GB), *d = slot(st, k, K, LR_S_D);
  const double *gt = slot(st, k, K, LR_S_GT), *delta = gl + LR_G_DELTA;
  for (uint32_t c = 0; c < K; c++) {
    if (slot_i >= 0) {
      slot(st, k, K, LR_S_HIST + (uint32_t)slot_i)[c] = xt[c] - xb[c];
      slot(st, k, K, LR_S_HIST + LR_MEM + (uint32_t)slot_i)[c] = gt[c] - gb[c];
    }
    xb[c] = xt[c];
    gb[c] = gt[c];
    double dv = delta[2 * LR_MEM] * gb[c];
    for (uint32_t i = 0; i < LR_MEM; i++)
      dv += delta[i] * slot(st, k, K, LR_S_HIST + i)[c] + delta[LR_MEM + i] * slot(st, k, K, LR_S_HIST + LR_MEM + i)[c];
    d[c] = dv;
  }
}

int lr_update(void *app, struct dsana_shard_ctx *ctx) {
  const struct lr_app *a = app;
  const double *gl = ctx->globals;
  if (ctx->iter == 0)
    return 0;
  if (a->batch)
    return lr_sgd_update(a, ctx);
  if (gl[LR_G_ACTION] == LR_ACT_INIT)
    return 0;
  const uint32_t K = a->kw;
  const double alpha = gl[LR_G_ALPHA];
  const double *xt = ctx->old_values[LR_T_X]; /* the trial just evaluated */
  double *x = ctx->new_values[LR_T_X], *st = ctx->new_values[LR_T_STATE];
  bool accepted = gl[LR_G_ACTION] == LR_ACT_ACCEPT, final = gl[LR_G_FINAL] != 0;
  for (uint64_t k = ctx->lo; k < ctx->hi; k++) {
    if (accepted)
      accept(gl, xt + k * K, st, k, K);
    const double *xb = slot(st, k, K, LR_S_XB), *d = slot(st, k, K, LR_S_D);
    for (uint32_t c = 0; c < K; c++)
      x[k * K + c] = final ? xb[c] : xb[c] + alpha * d[c];
  }
  return 0;
}
