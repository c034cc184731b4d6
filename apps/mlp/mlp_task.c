/*
 * mlp_task.c - one task of the MLP app (mlp.h).
 *
 * A training task runs the blocks [lo, hi) of its iteration's batch: each
 * block forward, its softmax loss and top delta, and its deltas down the
 * layers (mlp_view.c); then each layer's weight and bias gradients of
 * every block, added as fixed-point pairs into the task's push (a tile of
 * the push takes all the blocks' shares at once, mlp_mm.c). The last iteration's
 * tasks evaluate a share of every training row instead; on iterations
 * that score the test set, each task also scores its share of it (both
 * forward only).
 *
 * Any thread: a task owns its view and reads the data and the parameters.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "apps/common/softmax.h"
#include "mlp.h"

/* Loss and accuracy of block b's rows into the sums (test: the test
 * columns); with `delta`, dloss/dscores into the block's top delta. The
 * softmax in double, from the float scores. */
static void score_rows(const struct mlp_app *a, struct mlp_view *v, uint32_t b, const struct dsana_dataset *ds,
                       const uint64_t *rows, uint32_t m, bool test, bool delta, dsana_xsum *sums) {
  uint32_t L = v->L, K = v->n[L], npk = v->np[L];
  const float *z = mlp_blk(v, v->out, L, b);
  float *d = mlp_blk(v, v->delta, L, b);
  double zs[MLP_MAX_CLASSES], gz[MLP_MAX_CLASSES];
  if (delta) /* padding: columns past K, rows past m */
    memset(d, 0, sizeof(float) * mlp_pad4(m) * npk);
  for (uint32_t s = 0; s < m; s++) {
    bool right = false, known = !test || a->d.test_class_ok[rows[s]];
    double loss = 0;
    if (known) {
      for (uint32_t k = 0; k < K; k++)
        zs[k] = z[(size_t)s * npk + k];
      loss = softmax_xent(zs, K, sup_data_class_of(&a->d, ds->label[rows[s]]), delta ? gz : NULL, &right);
      for (uint32_t k = 0; delta && k < K; k++)
        d[(size_t)s * npk + k] = (float)gz[k];
    }
    dsana_xsum_add(&sums[test ? MLP_SUM_TLOSS : MLP_SUM_LOSS], loss);
    dsana_xsum_add(&sums[test ? MLP_SUM_TCORRECT : MLP_SUM_CORRECT], right);
  }
}

/* Rows of the first layer's weight gradient between two announcements
 * that they are final (a multiple of 4: the product's groups). */
static uint32_t ready_step(uint32_t n_in) { return (n_in / 16 + 3) / 4 * 4; }

/* The first row of part p of the first layer's n_in rows: the row of
 * server p's (of S) first key, down to a multiple of 4 (a row across two
 * shards starts the later one's part: that server's first keys come first). */
static uint32_t part_row(const struct mlp_app *a, uint32_t p, uint32_t S, uint32_t n_in, uint32_t no) {
  uint64_t key = (uint64_t)(((unsigned __int128)a->n_params * p) / S);
  uint64_t row = key > a->w_off[1] ? (key - a->w_off[1]) / no / 4 * 4 : 0;
  return row < n_in ? (uint32_t)row : n_in;
}

/* A layer's bias keys [at, at + n) of the push zeroed when `fresh` (the
 * task's first blocks: the buffer is not zeroed, dsana_push_buf_uninit),
 * just before the sums add into them; the weights' products write over
 * theirs (mlp_blocks.store). */
static void zero_keys(bool fresh, double *oh, double *ol, uint64_t at, uint64_t n) {
  if (!fresh)
    return;
  memset(oh + at, 0, sizeof(double) * n);
  memset(ol + at, 0, sizeof(double) * n);
}

/* Rows [j, j + n) of the first layer's weight gradient, then, with ctx,
 * their keys said final. */
static void first_rows(const struct mlp_app *a, const struct mlp_blocks *bk, uint32_t j, uint32_t n, uint32_t no,
                       double *oh, double *ol, uint32_t *idx, struct dsana_task_ctx *ctx) {
  struct mlp_blocks s = *bk;
  s.a = bk->a + j;
  uint64_t at = a->w_off[1] + (uint64_t)j * no;
  mlp_mm_tn_fix(&s, n, no, &a->fix, oh + at, ol + at, no, idx);
  if (ctx)
    dsana_push_ready(ctx, at, at + (uint64_t)n * no);
}

/* The first layer's weight gradient. With `ctx` (the task's last blocks)
 * and a runtime that sends pushes during a task (each slice packs the
 * deltas again: not for nothing): in slices of ready_step() rows, each
 * said final as it is done, every server's rows in ascending order, the
 * servers' taking turns (dsana.h), so that each server's chunks leave while
 * the rest is computed; every other key is above these and final already.
 * Each row's sums are the same however the rows are sliced (groups of 4
 * rows stay together). */
static void first_layer(const struct mlp_app *a, const struct mlp_blocks *bk, uint32_t n_in, uint32_t no, double *oh,
                        double *ol, uint32_t *idx, struct dsana_task_ctx *ctx) {
  if (!ctx || !dsana_push_ready(ctx, a->w_off[1] + (uint64_t)n_in * no, a->n_params)) {
    first_rows(a, bk, 0, n_in, no, oh, ol, idx, NULL); /* the push leaves at the end anyway: one product */
    return;
  }
  uint32_t S = dsana_servers(ctx), step = ready_step(n_in);
  for (uint32_t k = 0, more = 1; more; k++) {
    more = 0;
    for (uint32_t p = 0; p < S; p++) {
      uint32_t lo = part_row(a, p, S, n_in, no), hi = p + 1 == S ? n_in : part_row(a, p + 1, S, n_in, no);
      uint32_t j = lo + k * step;
      if (j < hi) {
        first_rows(a, bk, j, hi - j < step ? hi - j : step, no, oh, ol, idx, ctx);
        more = 1;
      }
    }
  }
}

/* The gradients of the view's first nb blocks (rows[b] rows each), layer
 * by layer from the top, each layer's biases before its weights, added
 * into the push (fresh: the task's first blocks, written over it); with
 * ctx, the task's last blocks (first_layer()). */
static void gradients(const struct mlp_app *a, struct mlp_view *v, uint32_t nb, const uint32_t *rows, bool fresh,
                      double *oh, double *ol, struct dsana_task_ctx *ctx) {
  for (uint32_t l = v->L; l >= 1; l--) {
    uint32_t no = v->n[l], npo = v->np[l];
    struct mlp_blocks bk = {.n = nb,
                            .a = v->out[l - 1],
                            .d = v->delta[l],
                            .a_step = (uint64_t)MLP_BLOCK * v->np[l - 1],
                            .d_step = (uint64_t)MLP_BLOCK * npo,
                            .lda = v->np[l - 1],
                            .ldd = npo,
                            .store = fresh};
    memcpy(bk.rows, rows, sizeof(uint32_t) * nb);
    zero_keys(fresh, oh, ol, a->b_off[l], no);
    for (uint32_t b = 0; b < nb; b++) { /* the biases first: the weights of layer 1 go last */
      const float *d = mlp_blk(v, v->delta, l, b);
      for (uint32_t c = 0; c < no; c++) {
        double g = 0; /* the float deltas summed in double */
        for (uint32_t s = 0; s < rows[b]; s++)
          g += d[(size_t)s * npo + c];
        mlp_fix_add(&a->fix, g, oh + a->b_off[l] + c, ol + a->b_off[l] + c);
      }
    }
    if (l == 1) {
      first_layer(a, &bk, v->n[0], no, oh, ol, v->idx, ctx);
    } else {
      mlp_mm_tn_fix(&bk, v->n[l - 1], no, &a->fix, oh + a->w_off[l], ol + a->w_off[l], no, v->idx);
    }
  }
}

/* A mapped file's rows are checked once per process, the training set
 * whole (batches visit every row); with it the training rows' bands
 * (mlp_group_rows) get their memory. */
static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;

static int check_rows(struct mlp_app *a, const struct dsana_task_ctx *ctx, bool test) {
  uint8_t *flag = test ? &a->checked[ctx->task] : &a->checked[a->n_tasks];
  pthread_mutex_lock(&check_lock);
  int rc = 0;
  if (!*flag) {
    char err[256];
    uint64_t lo = 0, hi = a->d.train.n_rows;
    if (test)
      mlp_test_rows(a, ctx->task, &lo, &hi);
    rc = dsana_dataset_check(test ? &a->d.test : &a->d.train, lo, hi, err, sizeof err);
    *flag = rc == 0;
    if (!test && !a->bands && hi <= MLP_BANDS_MAX_ROWS)
      a->bands = calloc(hi, sizeof *a->bands); /* NULL: mlp_group_rows computes them every time */
  }
  pthread_mutex_unlock(&check_lock);
  return rc;
}

/* Rows [lo, hi) of ds forward, a block at a time: loss and accuracy only. */
static void evaluate(const struct mlp_app *a, struct mlp_view *v, const struct dsana_dataset *ds, uint64_t lo,
                     uint64_t hi, bool test, dsana_xsum *sums) {
  uint64_t rows[MLP_BLOCK];
  for (uint64_t i = lo; i < hi; i += MLP_BLOCK) {
    uint32_t m = (uint32_t)(hi - i < MLP_BLOCK ? hi - i : MLP_BLOCK);
    for (uint32_t s = 0; s < m; s++)
      rows[s] = i + s;
    mlp_forward(v, 0, ds, rows, m);
    score_rows(a, v, 0, ds, rows, m, test, false, sums);
  }
}

/* The task's blocks, up to v->nb at a time. */
static int train(struct mlp_app *a, struct dsana_task_ctx *ctx, struct mlp_view *v) {
  uint64_t rows[MLP_BLOCK];
  uint32_t m[MLP_MAX_BLOCKS];
  double *oh = NULL, *ol = NULL;
  double done = 0;
  for (uint64_t blk = ctx->lo; blk < ctx->hi;) {
    uint32_t nb = 0;
    for (; nb < v->nb && blk < ctx->hi; nb++, blk++) {
      if (!(m[nb] = mlp_block_rows(a, ctx->iter, blk, rows)))
        break;
      mlp_group_rows(a, rows, m[nb]);
      mlp_forward(v, nb, &a->d.train, rows, m[nb]);
      score_rows(a, v, nb, &a->d.train, rows, m[nb], false, true, ctx->sums);
      mlp_backprop(v, nb, m[nb]);
      done += m[nb];
    }
    if (nb == 0)
      break;
    bool fresh = !oh;
    if (!oh && (!(oh = dsana_push_buf_uninit(ctx, MLP_T_GH)) || !(ol = dsana_push_buf_uninit(ctx, MLP_T_GL))))
      return DSANA_ESTATE;
    bool last = nb < v->nb || blk >= ctx->hi; /* the task's or the batch's end */
    gradients(a, v, nb, m, fresh, oh, ol, last ? ctx : NULL);
    if (last)
      break;
  }
  ctx->cost = done + 1;
  return 0;
}

/* The iteration's work for the task on view v: its blocks (a step), or
 * (the last iteration) its share of every training row; then, when the
 * iteration scores the test set, its share of that. */
static int run_on_view(struct mlp_app *a, struct dsana_task_ctx *ctx, struct mlp_view *v, bool final) {
  int rc = 0;
  if (final) {
    uint64_t n = a->d.train.n_rows;
    evaluate(a, v, &a->d.train, n * ctx->lo / a->n_blocks, n * ctx->hi / a->n_blocks, false, ctx->sums);
  } else {
    rc = train(a, ctx, v);
  }
  if (!rc && mlp_scores_test(a, ctx->iter) && (rc = check_rows(a, ctx, true)) == 0) {
    uint64_t lo, hi;
    mlp_test_rows(a, ctx->task, &lo, &hi);
    evaluate(a, v, &a->d.test, lo, hi, true, ctx->sums);
  }
  return rc;
}

int mlp_run_task(void *app, struct dsana_task_ctx *ctx) {
  struct mlp_app *a = app;
  bool final = mlp_final(a, ctx->iter);
  const double *p = dsana_read(ctx, MLP_T_W);
  if (!p)
    return DSANA_ESTATE;
  uint64_t span = ctx->hi - ctx->lo;
  uint32_t nb = final ? 1 : (uint32_t)(span < MLP_MAX_BLOCKS ? span : MLP_MAX_BLOCKS);
  int rc = check_rows(a, ctx, false);
  struct mlp_view v;
  if (rc || (rc = mlp_view_open(&v, a->n_layers, a->width, a->act, p, a->w_off, a->b_off, !final, nb, &a->views,
                                &a->packs, ctx->iter)) != 0)
    return rc;
  rc = run_on_view(a, ctx, &v, final);
  mlp_view_close(&v);
  return rc;
}
