/*
 * lr_kernel.c - one task of the logistic-regression app: for each of its
 * rows the scores z = W x + b, the loss, whether the prediction is right
 * and, for training rows, the gradient of the loss, dloss/dz = p - onehot.
 *
 * Exactness (logreg.h): dense models add the gradient in double over each
 * block of a->block rows (blocks aligned on the row index), in an order
 * fixed by lr_rows.c whatever the CPU, and merge every block's partial
 * into the task's exact push (dsana_push_xsum); sparse
 * models add every contribution exactly. Losses and counts go into the
 * task's exact sums. So nothing depends on which rows share a task.
 *
 * Any thread: a task touches only its own buffers and reads the model.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apps/common/softmax.h"
#include "logreg.h"

/* log(1 + e^z), without overflow. */
static double softplus(double z) { return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)); }

/* The model as a task reads it: W (F rows, ldw apart) and the bias. A
 * dense model of up to 12 classes (the row kernels' register shapes) is
 * copied with its rows padded to a multiple of 4 classes and aligned, so
 * the vector kernel reads whole aligned vectors; wider models are read in
 * place (a copy per task would cost up to F x K doubles each). */
struct lr_view {
  const double *w, *bias;
  uint64_t ldw;
  double *copy; /* owned, or NULL */
};

static int view_open(const struct lr_app *a, const double *x, struct lr_view *v) {
  uint32_t K = a->kw;
  uint64_t F = a->d.train.n_features, ldw = lr_padded(K);
  *v = (struct lr_view){.w = x, .bias = x + F * K, .ldw = K};
  if (a->sparse || ldw == K || K > 12)
    return 0;
  size_t bytes = (F * ldw * sizeof(double) + 63) & ~(size_t)63;
  if (!(v->copy = aligned_alloc(64, bytes)))
    return DSANA_ENOMEM;
  for (uint64_t j = 0; j < F; j++) {
    memcpy(v->copy + j * ldw, x + j * K, K * sizeof(double));
    memset(v->copy + j * ldw + K, 0, (ldw - K) * sizeof(double));
  }
  v->w = v->copy;
  v->ldw = ldw;
  return 0;
}

/* Scores of row r: z[c] = bias_c + sum_e v_e W[col_e][c]. */
static void scores(const struct lr_app *a, const struct lr_view *m, const struct lr_row *r, double *z) {
  lr_row_scores(r, m->w, m->ldw, m->bias, a->kw, z);
}

/* Loss of scores z for class y, dloss/dz into gz (may be NULL), and
 * whether the predicted class is y. */
static double loss_of(uint32_t K, const double *z, uint32_t y, double *gz, bool *right) {
  if (K == 1) { /* two classes: sigmoid of one score, class 1 positive */
    double zz = z[0];
    if (gz) {
      double g = 1.0 / (1.0 + exp(-zz)) - (double)y;
      gz[0] = fabs(g) < SOFTMAX_GRAD_FLOOR ? 0 : g;
    }
    *right = (zz > 0) == (y == 1);
    return y ? softplus(-zz) : softplus(zz);
  }
  return softmax_xent(z, K, y, gz, right);
}

/* Test rows: loss and accuracy only. */
static void eval_test(const struct lr_app *a, struct dsana_task_ctx *ctx, const struct lr_view *m, double *z) {
  const struct dsana_dataset *ds = &a->d.test;
  for (uint64_t i = ctx->lo; i < ctx->hi; i++) {
    bool right = false;
    double loss = 0;
    if (a->d.test_class_ok[i]) {
      struct lr_row r = lr_row_of(ds, i, a->d.train.n_features);
      scores(a, m, &r, z);
      loss = loss_of(a->kw, z, lr_class_of(a, ds->label[i]), NULL, &right);
    }
    dsana_xsum_add(&ctx->sums[LR_SUM_TLOSS], loss);
    dsana_xsum_add(&ctx->sums[LR_SUM_TCORRECT], right);
  }
}

/* Training row i with scores z: its loss and correctness into the sums,
 * dloss/dz into gz. */
static void train_loss(const struct lr_app *a, struct dsana_task_ctx *ctx, uint64_t i, const double *z, double *gz) {
  bool right;
  double loss = loss_of(a->kw, z, lr_class_of(a, a->d.train.label[i]), gz, &right);
  dsana_xsum_add(&ctx->sums[LR_SUM_LOSS], loss);
  dsana_xsum_add(&ctx->sums[LR_SUM_CORRECT], right);
}

/* The rows a task evaluates: [ctx->lo, ctx->hi), or a list (an SGD batch). */
struct row_set {
  const uint64_t *list; /* ascending, or NULL: the whole range */
  uint64_t lo, n;
};
static inline uint64_t row_at(const struct row_set *r, uint64_t k) { return r->list ? r->list[k] : r->lo + k; }

/* Dense models: per block of rows a double partial (classes padded to Kp,
 * lr_rows.c), merged exactly (blocks aligned on the row index, so their
 * contents do not depend on the tasks). */
static int train_dense(const struct lr_app *a, struct dsana_task_ctx *ctx, const struct row_set *rs,
                       const struct lr_view *m, double *z, double *gz) {
  const struct dsana_dataset *ds = &a->d.train;
  uint32_t K = a->kw, Kp = lr_padded(K);
  uint64_t F = ds->n_features, np = (F + 1) * Kp;
  dsana_xsum *out = dsana_push_xsum(ctx, LR_T_G);
  /* 64-byte aligned: a gradient row's vectors never straddle two cache lines */
  double *part = aligned_alloc(64, (np * sizeof(double) + 63) & ~(size_t)63);
  if (!out || !part) {
    free(part);
    return out ? DSANA_ENOMEM : DSANA_ESTATE;
  }
  double *bias = part + F * Kp;
  for (uint32_t c = K; c < Kp; c++)
    gz[c] = 0;
  for (uint64_t k = 0; k < rs->n;) {
    uint64_t block = row_at(rs, k) / a->block;
    memset(part, 0, np * sizeof *part);
    for (uint64_t i; k < rs->n && (i = row_at(rs, k)) / a->block == block; k++) {
      struct lr_row r = lr_row_of(ds, i, F);
      scores(a, m, &r, z);
      train_loss(a, ctx, i, z, gz);
      lr_row_grad(&r, gz, K, part);
      for (uint32_t c = 0; c < K; c++)
        bias[c] += gz[c];
    }
    for (uint64_t j = 0; j <= F; j++)
      for (uint32_t c = 0; c < K; c++)
        dsana_xsum_add(&out[j * K + c], part[j * Kp + c]);
  }
  free(part);
  return 0;
}

/* Sparse models: every contribution added exactly at the task's keys, found
 * through a position map (lr_posmap.c). */
static int train_sparse(struct lr_app *a, struct dsana_task_ctx *ctx, const struct row_set *rs, const struct lr_view *m,
                        double *z, double *gz) {
  const struct dsana_dataset *ds = &a->d.train;
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
    struct lr_row r = lr_row_of(ds, i, ds->n_features);
    scores(a, m, &r, z);
    train_loss(a, ctx, i, z, gz);
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
static int train(struct lr_app *a, struct dsana_task_ctx *ctx, const struct lr_view *m, double *z, double *gz) {
  struct row_set rs = {.list = NULL, .lo = ctx->lo, .n = ctx->hi - ctx->lo};
  uint64_t *rows = NULL;
  if (a->batch && lr_sgd_batch_rows(a, ctx->iter) < a->d.train.n_rows) {
    int rc = lr_sgd_task_rows(a, ctx, &rows, &rs.n);
    if (rc)
      return rc;
    rs.list = rows;
    double nnz = 0;
    for (uint64_t k = 0; k < rs.n; k++)
      nnz += (double)(a->d.train.row_off[rows[k] + 1] - a->d.train.row_off[rows[k]]);
    ctx->cost = nnz * a->kw + 1;
  }
  int rc = a->sparse ? train_sparse(a, ctx, &rs, m, z, gz) : train_dense(a, ctx, &rs, m, z, gz);
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
  int rc = check_rows(a, ctx, test ? &a->d.test : &a->d.train);
  double buf[2 * LR_MAX_CLASSES];
  if (rc || !x)
    return rc ? rc : DSANA_ESTATE;
  if (test && a->batch && !lr_sgd_scores_test(a, ctx->iter)) {
    ctx->cost = 1; /* SGD scores the test set once an epoch */
    return 0;
  }
  struct lr_view m;
  if ((rc = view_open(a, x, &m)) != 0)
    return rc;
  if (test)
    eval_test(a, ctx, &m, buf);
  else
    rc = train(a, ctx, &m, buf, buf + LR_MAX_CLASSES);
  free(m.copy);
  return rc;
}
