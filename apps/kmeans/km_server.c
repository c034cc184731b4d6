/*
 * km_server.c - the k-means app on a server (kmeans.h).
 *
 * init(): the initial centroids (km_seed.c: inherited from the launcher,
 * or made here by a server started on its own) and every row's label -1
 * (no cluster yet, so the first iteration counts every row as changed).
 *
 * finish(): once every task pushed its sums of a range of clusters, each
 * cluster's new centroid is the mean of its rows, sum / count; a cluster
 * without rows keeps its previous centroid and counts as empty. The
 * squared move of every centroid goes into the sums, and whether it
 * moved at all (a count, exact however small the move). finish() runs on
 * each key space; the labels' (N keys) needs nothing.
 */
#include <stdio.h>
#include <string.h>

#include "kmeans.h"

int km_init(void *app, uint32_t table, uint64_t lo, uint64_t hi, double *values) {
  struct km_app *a = app;
  uint64_t d = a->d.train.n_features;
  if (table == KM_T_LABELS)
    for (uint64_t i = lo; i < hi; i++)
      values[i] = -1;
  if (table != KM_T_CENT)
    return 0;
  char err[1200];
  int rc = km_seed(a, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana kmeans: %s\n", err);
    return rc;
  }
  memcpy(values + lo * d, a->init_c + lo * d, (hi - lo) * d * sizeof *values);
  return 0;
}

int km_finish(void *app, struct dsana_shard_ctx *ctx) {
  const struct km_app *a = app;
  const uint64_t d = a->d.train.n_features, w = d + 1;
  const double *old = ctx->old_values[KM_T_CENT], *s = ctx->new_values[KM_T_SUMS];
  double *c = ctx->new_values[KM_T_CENT];
  if (ctx->iter == 0 || !c) /* the initial values; or the labels' key space */
    return 0;
  for (uint64_t m = ctx->lo; m < ctx->hi; m++) {
    double count = s[m * w + d], shift = 0;
    bool moved = false;
    for (uint64_t j = 0; j < d; j++) {
      double v = count > 0 ? s[m * w + j] / count : old[m * d + j], dv = v - old[m * d + j];
      c[m * d + j] = v;
      shift += dv * dv;
      moved |= v != old[m * d + j];
    }
    dsana_xsum_add(&ctx->sums[KM_SUM_EMPTY], count > 0 ? 0 : 1);
    dsana_xsum_add(&ctx->sums[KM_SUM_SHIFT], shift);
    dsana_xsum_add(&ctx->sums[KM_SUM_MOVED], moved);
  }
  return 0;
}
