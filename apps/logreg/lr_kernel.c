/*
 * lr_kernel.c - one task of the logistic-regression app: for each of its
 * rows the scores z = W x + b, the loss, whether the prediction is right
 * and, for training rows, the gradient of the loss, dloss/dz = p - onehot.
 *
 * Exactness (logreg.h): dense models add the gradient in double over each
 * block of LR_BLOCK rows (blocks aligned on the row index) and merge every
 * block's partial into the task's exact push (dsana_push_xsum); sparse
 * models add every contribution exactly. Losses and counts go into the
 * task's exact sums. So nothing depends on which rows share a task.
 *
 * Any thread: a task touches only its own buffers and reads the model.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "logreg.h"

/* log(1 + e^z), without overflow. */
static double softplus(double z) { return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)); }

/* Scores of row i: z[c] = bias_c + sum_e v_e W[col_e][c] (features the
 * model does not have are skipped). */
static void scores(const struct lr_app *a, const struct dsana_dataset *ds, uint64_t i, const double *x, double *z) {
  uint32_t K = a->kw;
  uint64_t F = a->train.n_features;
  for (uint32_t c = 0; c < K; c++)
    z[c] = x[F * K + c];
  for (uint64_t e = ds->row_off[i]; e < ds->row_off[i + 1]; e++) {
    uint64_t j = ds->col[e];
    if (j >= F)
      continue;
    double v = dsana_dataset_val(ds, e);
    const double *w = x + j * K;
    for (uint32_t c = 0; c < K; c++)
      z[c] += v * w[c];
  }
}

/* Loss of scores z for class y, dloss/dz into gz (may be NULL), and
 * whether the predicted class is y. */
static double loss_of(uint32_t K, const double *z, uint32_t y, double *gz, bool *right) {
  if (K == 1) { /* two classes: sigmoid of one score, class 1 positive */
    double zz = z[0];
    if (gz)
      gz[0] = 1.0 / (1.0 + exp(-zz)) - (double)y;
    *right = (zz > 0) == (y == 1);
    return y ? softplus(-zz) : softplus(zz);
  }
  uint32_t best = 0;
  for (uint32_t c = 1; c < K; c++)
    best = z[c] > z[best] ? c : best;
  double m = z[best], s = 0;
  for (uint32_t c = 0; c < K; c++)
    s += exp(z[c] - m);
  double lse = m + log(s);
  for (uint32_t c = 0; gz && c < K; c++)
    gz[c] = exp(z[c] - lse) - (c == y);
  *right = best == y;
  return lse - z[y];
}

/* Test rows: loss and accuracy only. */
static void eval_test(const struct lr_app *a, struct dsana_task_ctx *ctx, const double *x, double *z) {
  const struct dsana_dataset *ds = &a->test;
  for (uint64_t i = ctx->lo; i < ctx->hi; i++) {
    bool right = false;
    double loss = 0;
    if (a->test_class_ok[i]) {
      scores(a, ds, i, x, z);
      loss = loss_of(a->kw, z, lr_class_of(a, ds->label[i]), NULL, &right);
    }
    dsana_xsum_add(&ctx->sums[LR_SUM_TLOSS], loss);
    dsana_xsum_add(&ctx->sums[LR_SUM_TCORRECT], right);
  }
}

/* One training row: its loss and correctness into the sums, dloss/dz into gz. */
static void train_row(const struct lr_app *a, struct dsana_task_ctx *ctx, uint64_t i, const double *x, double *z,
                      double *gz) {
  bool right;
  scores(a, &a->train, i, x, z);
  double loss = loss_of(a->kw, z, lr_class_of(a, a->train.label[i]), gz, &right);
  dsana_xsum_add(&ctx->sums[LR_SUM_LOSS], loss);
  dsana_xsum_add(&ctx->sums[LR_SUM_CORRECT], right);
}

/* The rows a task evaluates: [ctx->lo, ctx->hi), or a list (an SGD batch). */
struct row_set {
  const uint64_t *list; /* ascending, or NULL: the whole range */
  uint64_t lo, n;
};
static inline uint64_t row_at(const struct row_set *r, uint64_t k) { return r->list ? r->list[k] : r->lo + k; }

/* Dense models: per block of rows a double partial, merged exactly (blocks
 * aligned on the row index, so their contents do not depend on the tasks). */
static int train_dense(const struct lr_app *a, struct dsana_task_ctx *ctx, const struct row_set *rs, const double *x,
                       double *z, double *gz) {
  const struct dsana_dataset *ds = &a->train;
  uint32_t K = a->kw;
  uint64_t F = ds->n_features, n = a->n_keys * K;
  dsana_xsum *out = dsana_push_xsum(ctx, LR_T_G);
  double *part = malloc(n * sizeof *part);
  if (!out || !part) {
    free(part);
    return out ? DSANA_ENOMEM : DSANA_ESTATE;
  }
  for (uint64_t k = 0; k < rs->n;) {
    uint64_t block = row_at(rs, k) / LR_BLOCK;
    memset(part, 0, n * sizeof *part);
    for (uint64_t i; k < rs->n && (i = row_at(rs, k)) / LR_BLOCK == block; k++) {
      train_row(a, ctx, i, x, z, gz);
      for (uint64_t e = ds->row_off[i]; e < ds->row_off[i + 1]; e++) {
        double v = dsana_dataset_val(ds, e), *p = part + (uint64_t)ds->col[e] * K;
        for (uint32_t c = 0; c < K; c++)
          p[c] += v * gz[c];
      }
      for (uint32_t c = 0; c < K; c++)
        part[F * K + c] += gz[c];
    }
    for (uint64_t j = 0; j < n; j++)
      dsana_xsum_add(&out[j], part[j]);
  }
  free(part);
  return 0;
}

/* Sparse models: every contribution added exactly at the task's keys, found
 * through a position map (lr_posmap.c). */
static int train_sparse(struct lr_app *a, struct dsana_task_ctx *ctx, const struct row_set *rs, const double *x,
                        double *z, double *gz) {
  const struct dsana_dataset *ds = &a->train;
  const struct lr_task_data *td = &a->td[ctx->task];
  uint32_t K = a->kw, *pos;
  dsana_xsum *out;
  int rc = dsana_push_xsum_keys(ctx, LR_T_G, td->keys, td->n_keys, &out);
  if (rc || (rc = lr_posmap_take(a, &pos)) != 0)
    return rc;
  for (uint64_t j = 0; j + 1 < td->n_keys; j++)
    pos[td->keys[j]] = (uint32_t)j;
  uint64_t bias = td->n_keys - 1;
  for (uint64_t k = 0; k < rs->n; k++) {
    uint64_t i = row_at(rs, k);
    train_row(a, ctx, i, x, z, gz);
    for (uint64_t e = ds->row_off[i]; e < ds->row_off[i + 1]; e++) {
      double v = dsana_dataset_val(ds, e);
      dsana_xsum *o = out + (uint64_t)pos[ds->col[e]] * K;
      for (uint32_t c = 0; c < K; c++)
        dsana_xsum_add(&o[c], v * gz[c]);
    }
    for (uint32_t c = 0; c < K; c++)
      dsana_xsum_add(&out[bias * K + c], gz[c]);
  }
  lr_posmap_put(a, pos);
  return 0;
}

/* Training rows: all of the task's, or (--batch, but for the last
 * iteration) its rows of the iteration's batch, whose cost is the work done. */
static int train(struct lr_app *a, struct dsana_task_ctx *ctx, const double *x, double *z, double *gz) {
  struct row_set rs = {.list = NULL, .lo = ctx->lo, .n = ctx->hi - ctx->lo};
  uint64_t *rows = NULL;
  if (a->batch && lr_sgd_batch_rows(a, ctx->iter) < a->train.n_rows) {
    int rc = lr_sgd_task_rows(a, ctx, &rows, &rs.n);
    if (rc)
      return rc;
    rs.list = rows;
    double nnz = 0;
    for (uint64_t k = 0; k < rs.n; k++)
      nnz += (double)(a->train.row_off[rows[k] + 1] - a->train.row_off[rows[k]]);
    ctx->cost = nnz * a->kw + 1;
  }
  int rc = a->sparse ? train_sparse(a, ctx, &rs, x, z, gz) : train_dense(a, ctx, &rs, x, z, gz);
  free(rows);
  return rc;
}

/* A mapped file's rows are checked once, by the worker that reads them. */
static int check_rows(struct lr_app *a, struct dsana_task_ctx *ctx, const struct dsana_dataset *ds) {
  struct lr_task_data *td = &a->td[ctx->task];
  if (td->checked)
    return 0;
  char err[256];
  int rc = dsana_dataset_check(ds, ctx->lo, ctx->hi, err, sizeof err);
  td->checked = rc == 0;
  return rc;
}

int lr_run_task(void *app, struct dsana_task_ctx *ctx) {
  struct lr_app *a = app;
  bool test = ctx->task >= a->n_train_tasks;
  const double *x = dsana_read(ctx, LR_T_X);
  int rc = check_rows(a, ctx, test ? &a->test : &a->train);
  double buf[2 * LR_MAX_CLASSES];
  if (rc || !x)
    return rc ? rc : DSANA_ESTATE;
  if (test && a->batch && !lr_sgd_scores_test(a, ctx->iter)) {
    ctx->cost = 1; /* SGD scores the test set once an epoch */
    return 0;
  }
  if (test) {
    eval_test(a, ctx, x, buf);
    return 0;
  }
  return train(a, ctx, x, buf, buf + LR_MAX_CLASSES);
}
