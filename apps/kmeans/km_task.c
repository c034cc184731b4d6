/*
 * km_task.c - one task of the k-means app: each of its rows goes to its
 * nearest centroid of the previous iteration (km_kernel.c); its
 * coordinates and a count of 1 are added to that cluster's sums; its
 * squared distance to the objective; a row whose cluster differs from its
 * previous label counts as changed; the new label is written.
 *
 * Exactness (kmeans.h): coordinates are added in double over each block of
 * a->block rows (blocks aligned on the row index, tasks cut at block
 * edges) and every block's partials are merged into the task's exact push;
 * distances and counts go into the task's exact sums. Nothing depends on
 * which rows share a task.
 *
 * Any thread: a task touches only its own buffers (and its byte of
 * a->checked) and reads the data and the centroids.
 */
#include <stdlib.h>
#include <string.h>

#include "kmeans.h"

/* A block's double partials into the exact push, and cleared. */
static void flush_block(double *part, dsana_xsum *out, uint64_t n) {
  for (uint64_t i = 0; i < n; i++)
    if (part[i] != 0) {
      dsana_xsum_add(&out[i], part[i]);
      part[i] = 0;
    }
}

/* Row i's coordinates and a count of 1 into the partial p (D + 1 values).
 * Four entries at a time, loaded before any is stored: their columns
 * differ (strictly ascending), and a load need not wait to learn whether
 * the store before it hit the same place. */
static void add_row(const struct dsana_dataset *ds, uint64_t i, double *p) {
  const uint32_t *col = ds->col;
  uint64_t e = ds->row_off[i], e1 = ds->row_off[i + 1];
  for (; e + 3 < e1; e += 4) {
    uint32_t c0 = col[e], c1 = col[e + 1], c2 = col[e + 2], c3 = col[e + 3];
    double s0 = p[c0] + dsana_dataset_val(ds, e), s1 = p[c1] + dsana_dataset_val(ds, e + 1);
    double s2 = p[c2] + dsana_dataset_val(ds, e + 2), s3 = p[c3] + dsana_dataset_val(ds, e + 3);
    p[c0] = s0, p[c1] = s1, p[c2] = s2, p[c3] = s3;
  }
  for (; e < e1; e++)
    p[col[e]] += dsana_dataset_val(ds, e);
  p[ds->n_features] += 1;
}

/* What one run of a task holds. */
struct km_run {
  struct km_centres cs;
  double *part, *dot;
};

static int run_begin(const struct km_app *a, const double *c, struct km_run *r) {
  uint64_t w = a->d.train.n_features + 1;
  r->part = calloc(a->k * w, sizeof *r->part);
  r->dot = malloc((a->k + KM_GROUP) * sizeof *r->dot);
  int rc = r->part && r->dot ? km_centres_init(&r->cs, c, (uint32_t)a->k, a->d.train.n_features) : DSANA_ENOMEM;
  if (rc) {
    free(r->part);
    free(r->dot);
  }
  return rc;
}

static void run_end(struct km_run *r) {
  km_centres_fini(&r->cs);
  free(r->part);
  free(r->dot);
}

/* A mapped file's rows are checked once, by the worker that reads them. */
static int check_rows(struct km_app *a, const struct dsana_task_ctx *ctx) {
  if (a->d.train_checked || a->checked[ctx->task])
    return 0;
  char err[256];
  int rc = dsana_dataset_check(&a->d.train, ctx->lo, ctx->hi, err, sizeof err);
  a->checked[ctx->task] = rc == 0;
  return rc;
}

static void assign_rows(const struct km_app *a, struct dsana_task_ctx *ctx, struct km_run *r, const double *prev,
                        double *labels, dsana_xsum *out) {
  const uint64_t w = a->d.train.n_features + 1;
  uint64_t changed = 0;
  for (uint64_t i = ctx->lo; i < ctx->hi; i++) {
    if (i > ctx->lo && i % a->block == 0)
      flush_block(r->part, out, a->k * w);
    double dist;
    uint32_t m = km_nearest(&r->cs, &a->d.train, i, r->dot, &dist);
    add_row(&a->d.train, i, r->part + m * w);
    dsana_xsum_add(&ctx->sums[KM_SUM_OBJ], dist);
    changed += prev[i] != (double)m;
    labels[i] = m;
  }
  flush_block(r->part, out, a->k * w);
  dsana_xsum_add(&ctx->sums[KM_SUM_CHANGED], (double)changed);
}

int km_run_task(void *app, struct dsana_task_ctx *ctx) {
  struct km_app *a = app;
  const double *c = dsana_read(ctx, KM_T_CENT), *prev = dsana_read(ctx, KM_T_LABELS);
  double *labels = dsana_push_buf(ctx, KM_T_LABELS);
  dsana_xsum *out = dsana_push_xsum(ctx, KM_T_SUMS);
  if (!c || !prev || !labels || !out)
    return DSANA_ESTATE;
  struct km_run r;
  int rc = check_rows(a, ctx);
  if (rc || (rc = run_begin(a, c, &r)) != 0)
    return rc;
  assign_rows(a, ctx, &r, prev, labels, out);
  run_end(&r);
  return 0;
}
