/*
 * km_kernel.c - the k-means distance kernel: a row's nearest centroid.
 *
 * Squared distances as |x|^2 - 2 x.c + |c|^2 (scikit-learn's form, at
 * least 0): one pass over the row's non-zeros, each one multiplying the
 * k centroids' coordinates of its feature, stored side by side (the
 * centroids transposed) so the inner loop runs over contiguous memory.
 * Ties go to the lowest index: a later centroid wins only when strictly
 * nearer. Every row's result depends on that row and the centroids alone,
 * in a fixed order of operations: the same bits on any thread or worker.
 *
 * Pure functions of their arguments; any thread.
 */
#include <stdlib.h>

#include "kmeans.h"

int km_centres_init(struct km_centres *cs, const double *c, uint32_t k, uint64_t d) {
  uint32_t kp = (k + KM_GROUP - 1) / KM_GROUP * KM_GROUP;
  cs->k = k;
  cs->kp = kp;
  cs->d = d;
  cs->ct = calloc((size_t)kp * d, sizeof *cs->ct); /* the padding stays 0 */
  cs->cc = malloc((size_t)k * sizeof *cs->cc);
  if (!cs->ct || !cs->cc) {
    km_centres_fini(cs);
    return DSANA_ENOMEM;
  }
  for (uint32_t m = 0; m < k; m++) {
    double s = 0;
    for (uint64_t j = 0; j < d; j++) {
      double v = c[m * d + j];
      cs->ct[(m / KM_GROUP) * d * KM_GROUP + j * KM_GROUP + m % KM_GROUP] = v;
      s += v * v;
    }
    cs->cc[m] = s;
  }
  return 0;
}

void km_centres_fini(struct km_centres *cs) {
  free(cs->ct);
  free(cs->cc);
  cs->ct = cs->cc = NULL;
}

/* dot[g .. g+3] = x . c over the row's entries [e0, e1) (ct: the group's
 * block of the transposed centroids, ct[j * KM_GROUP + q] for centroid
 * g + q: d * KM_GROUP values, small enough to stay in the L1 cache while
 * a row is read), as two partial
 * sums (entries e0, e0+2, ... and e0+1, e0+3, ...) added at the end: eight
 * independent chains, where one running sum per centroid would wait on
 * each addition. A fixed order all the same: the same bits everywhere.
 * One copy per value type, so that the loop has no branch. */
#define KM_DOTS4(NAME, T)                                                                                     \
  static void NAME(const double *ct, uint32_t g, const uint32_t *col, const T *val, uint64_t e0, uint64_t e1, \
                   double *dot) {                                                                             \
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;                                    \
    uint64_t e = e0;                                                                                          \
    for (; e + 1 < e1; e += 2) {                                                                              \
      const double va = val[e], vb = val[e + 1];                                                              \
      const double *ca = ct + (uint64_t)col[e] * KM_GROUP, *cb = ct + (uint64_t)col[e + 1] * KM_GROUP;        \
      a0 += va * ca[0], a1 += va * ca[1], a2 += va * ca[2], a3 += va * ca[3];                                 \
      b0 += vb * cb[0], b1 += vb * cb[1], b2 += vb * cb[2], b3 += vb * cb[3];                                 \
    }                                                                                                         \
    if (e < e1) {                                                                                             \
      const double va = val[e], *ca = ct + (uint64_t)col[e] * KM_GROUP;                                       \
      a0 += va * ca[0], a1 += va * ca[1], a2 += va * ca[2], a3 += va * ca[3];                                 \
    }                                                                                                         \
    dot[g] = a0 + b0, dot[g + 1] = a1 + b1, dot[g + 2] = a2 + b2, dot[g + 3] = a3 + b3;                       \
  }
KM_DOTS4(dots4_f32, float)
KM_DOTS4(dots4_f64, double)

/* |x|^2 of entries [e0, e1), four partial sums added at the end. */
static double norm2(const struct dsana_dataset *ds, uint64_t e0, uint64_t e1) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  uint64_t e = e0;
  for (; e + 3 < e1; e += 4) {
    double v0 = dsana_dataset_val(ds, e), v1 = dsana_dataset_val(ds, e + 1);
    double v2 = dsana_dataset_val(ds, e + 2), v3 = dsana_dataset_val(ds, e + 3);
    s0 += v0 * v0, s1 += v1 * v1, s2 += v2 * v2, s3 += v3 * v3;
  }
  for (; e < e1; e++)
    s0 += dsana_dataset_val(ds, e) * dsana_dataset_val(ds, e);
  return (s0 + s1) + (s2 + s3);
}

uint32_t km_nearest(const struct km_centres *cs, const struct dsana_dataset *ds, uint64_t i, double *dot,
                    double *dist) {
  uint64_t e0 = ds->row_off[i], e1 = ds->row_off[i + 1];
  for (uint32_t g = 0; g < cs->kp; g += KM_GROUP)
    if (ds->val_f32)
      dots4_f32(cs->ct + g * cs->d, g, ds->col, ds->val_f32, e0, e1, dot);
    else
      dots4_f64(cs->ct + g * cs->d, g, ds->col, ds->val_f64, e0, e1, dot);
  double xx = norm2(ds, e0, e1), best_d = 0;
  uint32_t best = 0;
  for (uint32_t m = 0; m < cs->k; m++) {
    double v = xx - 2 * dot[m] + cs->cc[m];
    v = v > 0 ? v : 0;
    if (m == 0 || v < best_d) {
      best = m;
      best_d = v;
    }
  }
  *dist = best_d;
  return best;
}

int km_objective(const struct dsana_dataset *ds, const double *c, uint32_t k, double *obj) {
  struct km_centres cs;
  double *dot = malloc(((size_t)k + KM_GROUP) * sizeof *dot);
  int rc = dot ? km_centres_init(&cs, c, k, ds->n_features) : DSANA_ENOMEM;
  if (rc) {
    free(dot);
    return rc;
  }
  dsana_xsum s = {0};
  for (uint64_t i = 0; i < ds->n_rows; i++) {
    double d;
    km_nearest(&cs, ds, i, dot, &d);
    dsana_xsum_add(&s, d);
  }
  *obj = dsana_xsum_value(&s);
  km_centres_fini(&cs);
  free(dot);
  return 0;
}
