/*
 * mlp_server.c - the MLP app on a server and the scheduler (mlp.h).
 *
 * init(): the parameters' initial values (mlp_initial); velocities 0.
 * finish(): once a key range's gradient is complete, the step's gradient
 *   g = (sum of the batch's loss gradients + l2 w) / B (no l2 on the
 *   biases), |w|^2 and |g|^2 into the sums, and the step: SGD with
 *   momentum mu and rate eta (constant, or annealed by --lr-schedule
 *   cosine: mlp_rate), as scikit-learn's MLPClassifier(solver='sgd'):
 *     v <- mu v - eta g;   w <- w + v                (--nesterov: w + mu v - eta g)
 *   the last iteration takes no step. The step needs nothing from reduce(),
 *   so it is taken here, as soon as the range is complete, not in an
 *   update() after the commit that the next pull would wait for.
 * reduce(): the batch's loss (mean cross-entropy + (l2 / 2B) |W|^2, as
 *   scikit-learn's loss_curve_) and accuracy, and at each epoch's start
 *   the means of the epoch before (a row of the terminal's table).
 */
#include <math.h>
#include <string.h>

#include "mlp.h"

int mlp_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values) {
  const struct mlp_app *a = app;
  if (table != MLP_T_W)
    return 0;
  for (uint64_t k = lo; k < hi; k++)
    values[k] = mlp_initial(a, k);
  return 0;
}

/* Squares for the exact sums |W|^2 and |g|^2: a fixed-point pair a key
 * (a->sq, for as many addends as parameters), the range's pairs then into
 * the sum; when a square of a run is beyond the pairs' range, each of the
 * run's squares beyond it goes into the sum itself. Each key's share is a
 * function of its value alone: the total is the same however the keys are
 * cut into ranges, and far cheaper than an exact addition a key. */
static void add_squares(const struct mlp_fix *f, const double *x, size_t stride, size_t n, double *pair,
                        dsana_xsum *sum) {
  if (mlp_fix_squares(f, x, stride, n, &pair[0], &pair[1]))
    return;
  for (size_t i = 0; i < n; i++) {
    double sq = x[i * stride] * x[i * stride];
    if (sq * f->k_up < f->lim)
      mlp_fix_add(f, sq, &pair[0], &pair[1]);
    else
      dsana_xsum_add(sum, sq);
  }
}

static void flush_squares(const struct mlp_fix *f, const double *pair, dsana_xsum *sum) {
  dsana_xsum_add(sum, pair[0] * f->hi_val); /* exact: integers times powers of 2 */
  dsana_xsum_add(sum, pair[1] * f->lo_val);
}

/* Keys finish() takes through all its passes at a time (they stay in L1). */
#define MLP_FINISH_RUN 512

/* The step at rate lr on keys [k, k + n) from their gradients g[0..n);
 * v: the velocities (the STATE table). */
static void step(const struct mlp_app *a, double lr, uint64_t k, uint64_t n, const double *g, const double *w,
                 double *wn, double *v) {
  double mu = a->momentum;
  for (uint64_t i = 0; i < n; i++) {
    double vi = mu * v[k + i] - lr * g[i];
    v[k + i] = vi;
    wn[k + i] = w[k + i] + (a->classical ? vi : mu * vi - lr * g[i]);
  }
}

int mlp_finish(void *app, struct dsana_shard_ctx *ctx) {
  const struct mlp_app *a = app;
  if (ctx->iter == 0)
    return 0;
  const double *w = ctx->old_values[MLP_T_W], *gh = ctx->new_values[MLP_T_GH], *gl = ctx->new_values[MLP_T_GL];
  double *wn = ctx->new_values[MLP_T_W], *st = ctx->new_values[MLP_T_STATE], ww[2] = {0, 0}, gg[2] = {0, 0};
  if (mlp_final(a, ctx->iter)) { /* no step: the parameters stay */
    memcpy(wn + ctx->lo, w + ctx->lo, sizeof(double) * (ctx->hi - ctx->lo));
    return 0;
  }
  const double inv_b = 1.0 / (double)mlp_batch_rows(a, ctx->iter), lr = mlp_rate(a, ctx->iter);
  double g[MLP_FINISH_RUN]; /* a run's gradients: in L1 between the passes, never stored */
  for (uint64_t k = ctx->lo; k < ctx->hi;) {
    bool weight;
    uint32_t l = mlp_layer_of(a, k, &weight);
    uint64_t end = weight ? a->b_off[l] : a->b_off[l] + a->width[l];
    end = end < ctx->hi ? end : ctx->hi;
    double l2 = weight ? a->l2 : 0.0;
    for (uint64_t e; k < end; k = e) {
      e = k + MLP_FINISH_RUN < end ? k + MLP_FINISH_RUN : end;
      for (uint64_t i = k; i < e; i++)
        g[i - k] = (mlp_fix_value(&a->fix, gh[i], gl[i]) + l2 * w[i]) * inv_b;
      if (weight)
        add_squares(&a->sq, w + k, 1, e - k, ww, &ctx->sums[MLP_SUM_WW]);
      add_squares(&a->sq, g, 1, e - k, gg, &ctx->sums[MLP_SUM_GG]);
      step(a, lr, k, e - k, g, w, wn, st);
    }
  }
  flush_squares(&a->sq, ww, &ctx->sums[MLP_SUM_WW]);
  flush_squares(&a->sq, gg, &ctx->sums[MLP_SUM_GG]);
  return 0;
}

/* The epoch's mean loss and accuracy so far over its batches (NaN: none);
 * the sums start again. */
static void epoch_means(double *gl, double *ep_loss, double *ep_acc) {
  if (gl[MLP_G_EP_ROWS] > 0) {
    *ep_loss = gl[MLP_G_EP_LOSS] / gl[MLP_G_EP_ROWS];
    *ep_acc = gl[MLP_G_EP_RIGHT] / gl[MLP_G_EP_ROWS];
  }
  gl[MLP_G_EP_LOSS] = gl[MLP_G_EP_RIGHT] = gl[MLP_G_EP_ROWS] = 0;
}

/* At an epoch's start (and at the end of a run of whole epochs): the mean
 * loss and accuracy of the epoch before over its batches (NaN else); then
 * this step's batch joins the running sums in the globals. The last step
 * of a run without a final evaluation (--final-eval off) ends its epoch:
 * the means then include it. */
static void epoch_metrics(const struct mlp_app *a, struct dsana_reduce_ctx *ctx, double loss, double right, double b,
                          bool step, double *ep_loss, double *ep_acc) {
  double *gl = ctx->globals;
  *ep_loss = *ep_acc = NAN;
  if ((ctx->iter - 1) % a->spe == 0)
    epoch_means(gl, ep_loss, ep_acc);
  if (step) {
    gl[MLP_G_EP_LOSS] += loss * b;
    gl[MLP_G_EP_RIGHT] += right;
    gl[MLP_G_EP_ROWS] += b;
  }
  if (a->no_final_eval && ctx->iter >= a->max_iter)
    epoch_means(gl, ep_loss, ep_acc);
}

int mlp_reduce(void *app, struct dsana_reduce_ctx *ctx) {
  const struct mlp_app *a = app;
  double *gl = ctx->globals;
  const double *s = ctx->sums;
  if (ctx->iter == 0) {
    memset(gl, 0, sizeof(double) * DSANA_MAX_GLOBALS);
    ctx->residual = INFINITY;
    return 0;
  }
  bool final = mlp_final(a, ctx->iter), scored = mlp_scores_test(a, ctx->iter);
  double b = (double)mlp_batch_rows(a, ctx->iter), nt = (double)a->d.test.n_rows;
  double loss = s[MLP_SUM_LOSS] / b + (final ? 0 : 0.5 * a->l2 * s[MLP_SUM_WW] / b), ep_loss, ep_acc;
  epoch_metrics(a, ctx, loss, s[MLP_SUM_CORRECT], b, !final, &ep_loss, &ep_acc);
  ctx->converged = false;                                  /* SGD runs its iterations */
  bool last = ctx->iter >= a->max_iter;                    /* final, or --final-eval off's last step */
  ctx->quiet_row = !last && (ctx->iter - 1) % a->spe != 0; /* a row per epoch on the terminal, and the last */
  ctx->residual = final ? 0 : sqrt(s[MLP_SUM_GG]);
  dsana_reduce_metric(ctx, "train_loss", loss);
  dsana_reduce_metric(ctx, "train_accuracy", s[MLP_SUM_CORRECT] / b);
  dsana_reduce_metric(ctx, "grad_norm", final ? NAN : sqrt(s[MLP_SUM_GG]));
  dsana_reduce_metric(ctx, "epochs_done", (double)(ctx->iter - 1) / (double)a->spe);
  dsana_reduce_metric(ctx, "epoch_loss", ep_loss);
  dsana_reduce_metric(ctx, "epoch_accuracy", ep_acc);
  if (a->d.test_path[0]) { /* a fixed set of columns: NaN (null in JSON) when not scored */
    double known = nt - (double)a->d.test_unknown;
    dsana_reduce_metric(ctx, "test_accuracy", scored ? s[MLP_SUM_TCORRECT] / nt : NAN);
    dsana_reduce_metric(ctx, "test_logloss", scored && known > 0 ? s[MLP_SUM_TLOSS] / known : NAN);
  }
  return 0;
}
