/*
 * lr_sgd.c - mini-batch SGD for the logistic-regression app (--batch N),
 * the alternative to the default full-batch L-BFGS (logreg.h).
 *
 * Batches: every epoch e visits the N training rows in the order of a
 * permutation sigma_e of [0, N) keyed by (--seed, e) (apps/common/shuffle.h).
 * Iteration t (1, 2, ...) is step s = t - 1:
 * epoch e = s / spe, batch j = s % spe with spe = ceil(N / B) batches an
 * epoch, rows sigma_e(p) for positions p in [jB, min(jB + B, N)). It is a
 * pure function of (seed, t, N, B): every worker finds the batch's rows of
 * its own tasks without talking to anyone, and no state crosses iterations.
 * The last iteration (--max-iter) evaluates every row and takes no step, so
 * the reported train_loss/train_accuracy of the run are the model's.
 *
 * A task adds only its rows of the batch, in the same exact per-block
 * partials as full-batch training: the model is bit-identical for any
 * --workers, --servers, --mode or schedule.
 *
 * Step: x <- x - lr_t ghat, lr_t = lr / sqrt(t), ghat = (1/|batch|) sum over
 * the batch of the loss gradients + (l2 / N) x (no l2 on the bias): an
 * unbiased estimate of the objective's gradient (logreg.h).
 *
 * Any thread: everything here is a pure function of the app's options.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apps/common/shuffle.h"
#include "logreg.h"

static bool lr_sgd_final(const struct lr_app *a, uint32_t iter) { return iter >= a->max_iter; }

uint64_t lr_sgd_batch_rows(const struct lr_app *a, uint32_t iter) {
  if (lr_sgd_final(a, iter))
    return a->d.train.n_rows;
  struct shuffle_batch sb = shuffle_batch_of(a->d.train.n_rows, a->batch, iter - 1);
  return sb.p1 - sb.p0;
}

bool lr_sgd_scores_test(const struct lr_app *a, uint32_t iter) {
  return lr_sgd_final(a, iter) || (iter - 1) % shuffle_steps_per_epoch(a->d.train.n_rows, a->batch) == 0;
}

static int u64_cmp(const void *x, const void *y) {
  uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
  return (a > b) - (a < b);
}

int lr_sgd_task_rows(const struct lr_app *a, const struct dsana_task_ctx *ctx, uint64_t **rows, uint64_t *n_rows) {
  uint64_t n = a->d.train.n_rows, span = ctx->hi - ctx->lo;
  struct shuffle_batch sb = shuffle_batch_of(n, a->batch, ctx->iter - 1);
  uint64_t p0 = sb.p0, p1 = sb.p1, b = p1 - p0;
  struct shuffle f;
  shuffle_init(&f, a->seed, sb.epoch, n);
  uint64_t *r = malloc((span < b ? span : b) * sizeof *r + 1), k = 0;
  if (!r)
    return DSANA_ENOMEM;
  if (span <= b) { /* fewer rows here than in the batch: test each */
    for (uint64_t i = ctx->lo; i < ctx->hi; i++) {
      uint64_t p = shuffle_pos(&f, i);
      if (p >= p0 && p < p1)
        r[k++] = i;
    }
  } else { /* list the batch, keep this task's rows */
    for (uint64_t p = p0; p < p1; p++) {
      uint64_t i = shuffle_row(&f, p);
      if (i >= ctx->lo && i < ctx->hi)
        r[k++] = i;
    }
    qsort(r, k, sizeof *r, u64_cmp);
  }
  *rows = r;
  *n_rows = k;
  return 0;
}

/* ---- server ------------------------------------------------------------ */

int lr_sgd_finish(const struct lr_app *a, struct dsana_shard_ctx *ctx) {
  const uint32_t K = a->kw;
  const uint64_t F = a->d.train.n_features;
  const double inv_b = 1.0 / (double)lr_sgd_batch_rows(a, ctx->iter), reg = a->l2 / (double)a->d.train.n_rows;
  const double *x = ctx->old_values[LR_T_X], *g = ctx->new_values[LR_T_G];
  double *gt = ctx->new_values[LR_T_STATE];
  for (uint64_t k = ctx->lo; k < ctx->hi; k++)
    for (uint32_t c = 0; c < K; c++) {
      double xv = x[k * K + c], gv = g[k * K + c] * inv_b + (k < F ? reg * xv : 0.0);
      gt[k * K + c] = gv;
      if (k < F)
        dsana_xsum_add(&ctx->sums[LR_SUM_XX], xv * xv);
      dsana_xsum_add(&ctx->sums[LR_SUM_GG], gv * gv);
    }
  return 0;
}

int lr_sgd_update(const struct lr_app *a, struct dsana_shard_ctx *ctx) {
  const uint64_t w = (uint64_t)a->kw;
  const double lr = ctx->globals[LR_G_ALPHA];
  const double *xt = ctx->old_values[LR_T_X], *gt = ctx->new_values[LR_T_STATE];
  double *x = ctx->new_values[LR_T_X];
  bool final = ctx->globals[LR_G_FINAL] != 0;
  for (uint64_t i = ctx->lo * w; i < ctx->hi * w; i++)
    x[i] = final ? xt[i] : xt[i] - lr * gt[i];
  return 0;
}

/* ---- scheduler --------------------------------------------------------- */

int lr_sgd_reduce(const struct lr_app *a, struct dsana_reduce_ctx *ctx) {
  double *gl = ctx->globals;
  const double *s = ctx->sums;
  if (ctx->iter == 0) {
    memset(gl, 0, sizeof(double) * DSANA_MAX_GLOBALS);
    ctx->residual = INFINITY;
    return 0;
  }
  double b = (double)lr_sgd_batch_rows(a, ctx->iter), n = (double)a->d.train.n_rows;
  bool scored = lr_sgd_scores_test(a, ctx->iter); /* else the test columns are NaN (null in JSON) */
  gl[LR_G_FINAL] = lr_sgd_final(a, ctx->iter);
  gl[LR_G_ALPHA] = gl[LR_G_FINAL] != 0 ? 0 : a->lr / sqrt((double)ctx->iter);
  ctx->converged = false; /* SGD runs its --max-iter iterations */
  ctx->residual = sqrt(s[LR_SUM_GG]);
  dsana_reduce_metric(ctx, "train_loss", s[LR_SUM_LOSS] / b + 0.5 * a->l2 * s[LR_SUM_XX] / n);
  dsana_reduce_metric(ctx, "train_accuracy", s[LR_SUM_CORRECT] / b);
  dsana_reduce_metric(ctx, "grad_norm", sqrt(s[LR_SUM_GG]));
  dsana_reduce_metric(ctx, "step", gl[LR_G_ALPHA]);
  dsana_reduce_metric(ctx, "batch_rows", b);
  dsana_reduce_metric(ctx, "train_logloss",
                      s[LR_SUM_LOSS] / b); /* the rows' mean loss alone (scikit-learn's log_loss) */
  if (a->d.test_path[0]) {                 /* a fixed set of columns: NaN (null in JSON) when not scored */
    dsana_reduce_metric(ctx, "test_accuracy", scored ? s[LR_SUM_TCORRECT] / (double)a->d.test.n_rows : NAN);
    dsana_reduce_metric(ctx, "test_logloss",
                        scored ? s[LR_SUM_TLOSS] / (double)(a->d.test.n_rows - a->d.test_unknown) : NAN);
  }
  return 0;
}
