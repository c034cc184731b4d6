/*
 * lr_opt.c - the scheduler's side of the logistic-regression optimiser
 * (logreg.h): from the iteration's exact sums, the objective at the trial
 * point, the line search's verdict, the Gram matrix of the history and the
 * L-BFGS two-loop recursion on it, which gives the next direction as
 * coefficients of the basis [s_0..s_m-1, y_0..y_m-1, g]. Everything it
 * keeps between iterations is in the globals (checkpoints carry them).
 * Pure arithmetic on scalars: no vector is ever here.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "logreg.h"

#define C1 1e-4                 /* Armijo: sufficient decrease */
#define MAX_TRIES 30            /* backtracking steps before giving up */
#define FTOL (64 * DBL_EPSILON) /* relative decrease too small to go on (as scikit-learn's L-BFGS-B) */
#define G_IDX_S(i) (i)
#define G_IDX_Y(i) (LR_MEM + (i))
#define G_IDX_G (2 * LR_MEM)

static double *gram(double *gl, uint32_t r, uint32_t c) { return &gl[LR_G_GRAM + r * LR_BASIS + c]; }
static void gram_set(double *gl, uint32_t r, uint32_t c, double v) { *gram(gl, r, c) = *gram(gl, c, r) = v; }

/* The new gradient's row: its products with the history and itself. */
static void gram_g_row(double *gl, const double *s, int slot) {
  for (uint32_t i = 0; i < LR_MEM; i++) {
    const double *h = s + LR_SUM_HIST + LR_SUM_PER_PAIR * i;
    gram_set(gl, G_IDX_G, G_IDX_S(i), (int)i == slot ? s[LR_SUM_GS] : h[4]);
    gram_set(gl, G_IDX_G, G_IDX_Y(i), (int)i == slot ? s[LR_SUM_GY] : h[5]);
  }
  gram_set(gl, G_IDX_G, G_IDX_G, s[LR_SUM_GG]);
}

/* The accepted pair (s, y) replaces slot j: its rows of the matrix. */
static void gram_pair(double *gl, const double *s, uint32_t j) {
  for (uint32_t i = 0; i < LR_MEM; i++) {
    if (i == j)
      continue;
    const double *h = s + LR_SUM_HIST + LR_SUM_PER_PAIR * i;
    gram_set(gl, G_IDX_S(j), G_IDX_S(i), h[0]);
    gram_set(gl, G_IDX_S(j), G_IDX_Y(i), h[1]);
    gram_set(gl, G_IDX_Y(j), G_IDX_S(i), h[2]);
    gram_set(gl, G_IDX_Y(j), G_IDX_Y(i), h[3]);
  }
  gram_set(gl, G_IDX_S(j), G_IDX_S(j), s[LR_SUM_SS]);
  gram_set(gl, G_IDX_S(j), G_IDX_Y(j), s[LR_SUM_SY]);
  gram_set(gl, G_IDX_Y(j), G_IDX_Y(j), s[LR_SUM_YY]);
}

/* sum_r delta_r G[r][col] */
static double dot_col(const double *gl, const double *delta, uint32_t col) {
  double v = 0;
  for (uint32_t r = 0; r < LR_BASIS; r++)
    v += delta[r] * gl[LR_G_GRAM + r * LR_BASIS + col];
  return v;
}

/* The two-loop recursion d = -H g on coefficients (Chen et al. 2014). */
static void two_loop(double *gl) {
  double *delta = gl + LR_G_DELTA, alpha[LR_MEM];
  uint32_t pairs = (uint32_t)gl[LR_G_PAIRS], newest = (uint32_t)gl[LR_G_NEWEST];
  memset(delta, 0, sizeof(double) * LR_BASIS);
  delta[G_IDX_G] = -1;
  for (uint32_t n = 0; n < pairs; n++) { /* newest to oldest */
    uint32_t i = (newest + LR_MEM - n) % LR_MEM;
    alpha[i] = dot_col(gl, delta, G_IDX_S(i)) / *gram(gl, G_IDX_S(i), G_IDX_Y(i));
    delta[G_IDX_Y(i)] -= alpha[i];
  }
  if (pairs) {
    double gamma = *gram(gl, G_IDX_S(newest), G_IDX_Y(newest)) / *gram(gl, G_IDX_Y(newest), G_IDX_Y(newest));
    for (uint32_t r = 0; r < LR_BASIS; r++)
      delta[r] *= gamma;
  }
  for (uint32_t n = pairs; n-- > 0;) { /* oldest to newest */
    uint32_t i = (newest + LR_MEM - n) % LR_MEM;
    double beta = dot_col(gl, delta, G_IDX_Y(i)) / *gram(gl, G_IDX_S(i), G_IDX_Y(i));
    delta[G_IDX_S(i)] += alpha[i] - beta;
  }
}

/* The trial was accepted: history, direction, step, convergence. */
static void on_accept(struct lr_app *a, struct dsana_reduce_ctx *ctx, double f, bool first) {
  double *gl = ctx->globals, *s = ctx->sums;
  int slot = -1;
  /* keep the pair only when its curvature is safely positive */
  if (!first && s[LR_SUM_SY] > 1e-10 * s[LR_SUM_YY] && s[LR_SUM_YY] > 0) {
    slot = (int)(gl[LR_G_PAIRS] == 0 ? 0 : ((uint32_t)gl[LR_G_NEWEST] + 1) % LR_MEM);
    gram_pair(gl, s, (uint32_t)slot);
    gl[LR_G_NEWEST] = slot;
    gl[LR_G_PAIRS] = gl[LR_G_PAIRS] < LR_MEM ? gl[LR_G_PAIRS] + 1 : LR_MEM;
  }
  gram_g_row(gl, s, slot);
  two_loop(gl);
  double gd = dot_col(gl, gl + LR_G_DELTA, G_IDX_G), gnorm = sqrt(s[LR_SUM_GG]);
  if (!(gd < 0)) { /* not a descent direction: start the history afresh */
    gl[LR_G_PAIRS] = 0;
    two_loop(gl);
    gd = -s[LR_SUM_GG];
  }
  double fb = gl[LR_G_FB];
  gl[LR_G_ACTION] = LR_ACT_ACCEPT;
  gl[LR_G_SLOT] = slot;
  gl[LR_G_ALPHA] = first && gnorm > 1 ? 1 / gnorm : 1; /* the first step: as long as the gradient is steep */
  gl[LR_G_GBD] = gd;
  gl[LR_G_FB] = f;
  gl[LR_G_TRIES] = 0;
  gl[LR_G_GNORM] = gnorm;
  bool flat = !first && fb - f <= FTOL * fmax(fmax(fabs(fb), fabs(f)), 1.0);
  ctx->converged = gnorm <= a->tol || flat;
  gl[LR_G_FINAL] = ctx->converged || ctx->iter >= a->max_iter;
}

/* The trial failed the Armijo test: a shorter step by quadratic
 * interpolation, kept within [0.1, 0.5] of the last. */
static void on_reject(struct lr_app *a, struct dsana_reduce_ctx *ctx, double f) {
  double *gl = ctx->globals, al = gl[LR_G_ALPHA], gd = gl[LR_G_GBD], fb = gl[LR_G_FB];
  double den = 2 * (f - fb - gd * al), next = den > 0 ? -gd * al * al / den : 0.5 * al;
  next = fmin(fmax(next, 0.1 * al), 0.5 * al);
  gl[LR_G_ACTION] = LR_ACT_REJECT;
  gl[LR_G_SLOT] = -1;
  gl[LR_G_ALPHA] = next;
  gl[LR_G_TRIES] += 1;
  ctx->converged = gl[LR_G_TRIES] >= MAX_TRIES; /* no step decreases f any more */
  gl[LR_G_FINAL] = ctx->converged || ctx->iter >= a->max_iter;
}

static void report(struct lr_app *a, struct dsana_reduce_ctx *ctx, double f) {
  const double *s = ctx->sums;
  double n = (double)a->d.train.n_rows;
  dsana_reduce_metric(ctx, "train_loss", f);
  dsana_reduce_metric(ctx, "train_accuracy", s[LR_SUM_CORRECT] / n);
  dsana_reduce_metric(ctx, "grad_norm", sqrt(s[LR_SUM_GG]));
  dsana_reduce_metric(ctx, "step", ctx->globals[LR_G_ALPHA]);
  dsana_reduce_metric(ctx, "train_logloss",
                      s[LR_SUM_LOSS] / n); /* the data's mean loss alone (scikit-learn's log_loss) */
  if (a->d.test_path[0]) {
    dsana_reduce_metric(ctx, "test_accuracy", s[LR_SUM_TCORRECT] / (double)a->d.test.n_rows);
    dsana_reduce_metric(ctx, "test_logloss", s[LR_SUM_TLOSS] / (double)(a->d.test.n_rows - a->d.test_unknown));
  }
}

int lr_reduce(void *app, struct dsana_reduce_ctx *ctx) {
  struct lr_app *a = app;
  double *gl = ctx->globals, *s = ctx->sums;
  if (a->batch)
    return lr_sgd_reduce(a, ctx);
  if (ctx->iter == 0) {
    memset(gl, 0, sizeof(double) * DSANA_MAX_GLOBALS);
    gl[LR_G_ACTION] = LR_ACT_INIT;
    ctx->residual = INFINITY;
    return 0;
  }
  double f = (s[LR_SUM_LOSS] + 0.5 * a->l2 * s[LR_SUM_XX]) / (double)a->d.train.n_rows;
  bool first = ctx->iter == 1;
  if (first || f <= gl[LR_G_FB] + C1 * gl[LR_G_ALPHA] * gl[LR_G_GBD])
    on_accept(a, ctx, f, first);
  else
    on_reject(a, ctx, f);
  ctx->residual = sqrt(s[LR_SUM_GG]); /* the runtime stops at --max-iter itself */
  report(a, ctx, f);
  return 0;
}
