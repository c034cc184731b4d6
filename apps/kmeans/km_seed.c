/*
 * km_seed.c - the k-means app's initial centroids: read from
 * --init-centroids, or drawn from the rows with --seed: k-means++ as
 * scikit-learn's kmeans_plusplus (greedy: 2 + floor(ln K) candidates per
 * centre, drawn with probability proportional to their squared distance
 * to the nearest centre so far, the one that lowers the sum of those
 * distances most kept; ties to the first) or K distinct random rows.
 *
 * A serial computation, once per process that needs it (the launcher, so
 * forked roles inherit it; a server started on its own makes its own):
 * every sum runs in row order, so every process gets the same bits. The
 * random numbers are splitmix64's, not numpy's: the same seed does not
 * give scikit-learn's centres (hand it ours with --init-centroids).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmeans.h"

static uint64_t rng_next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 bits. */
static double rng_uniform(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1p-53; }

static uint64_t rng_below(uint64_t *s, uint64_t n) {
  uint64_t r = (uint64_t)(rng_uniform(s) * (double)n);
  return r < n ? r : n - 1;
}

/* Row i as a dense vector of d values. */
static void dense_row(const struct dsana_dataset *ds, uint64_t i, uint64_t d, double *out) {
  memset(out, 0, d * sizeof *out);
  for (uint64_t e = ds->row_off[i]; e < ds->row_off[i + 1]; e++)
    out[ds->col[e]] = dsana_dataset_val(ds, e);
}

/* out[i] = squared distance of row i to centre c (|x|^2 - 2 x.c + |c|^2,
 * at least 0; xx[i] = |x_i|^2); returns the sum of min(out[i], closest[i])
 * over the rows, or of out[i] when closest is NULL. */
static double dist_to(const struct dsana_dataset *ds, const double *xx, const double *c, uint64_t d,
                      const double *closest, double *out) {
  double cc = 0, pot = 0;
  for (uint64_t j = 0; j < d; j++)
    cc += c[j] * c[j];
  for (uint64_t i = 0; i < ds->n_rows; i++) {
    double dot = 0;
    for (uint64_t e = ds->row_off[i]; e < ds->row_off[i + 1]; e++)
      dot += dsana_dataset_val(ds, e) * c[ds->col[e]];
    double v = xx[i] - 2 * dot + cc;
    out[i] = v > 0 ? v : 0;
    pot += closest && closest[i] < out[i] ? closest[i] : out[i];
  }
  return pot;
}

/* The first row whose running sum of closest[] reaches r (the last row at most). */
static uint64_t pick(const double *cum, uint64_t n, double r) {
  uint64_t lo = 0, hi = n;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (cum[mid] >= r)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo < n ? lo : n - 1;
}

struct pp_work {
  double *xx, *closest, *cum, *cand, *best;
};

static void pp_free(struct pp_work *w) {
  free(w->xx);
  free(w->closest);
  free(w->cum);
  free(w->cand);
  free(w->best);
}

/* Centre m (>= 1) from the candidates; closest[] and *pot follow it. */
static void pp_centre(const struct dsana_dataset *ds, uint64_t m, uint32_t trials, uint64_t *rng, double *c,
                      struct pp_work *w, double *pot) {
  uint64_t n = ds->n_rows, d = ds->n_features, best_row = 0;
  double run = 0, best_pot = INFINITY, *cm = c + m * d;
  for (uint64_t i = 0; i < n; i++)
    w->cum[i] = run += w->closest[i];
  for (uint32_t t = 0; t < trials; t++) {
    uint64_t row = pick(w->cum, n, rng_uniform(rng) * *pot);
    dense_row(ds, row, d, cm);
    double p = dist_to(ds, w->xx, cm, d, w->closest, w->cand);
    if (p < best_pot) { /* keep the best candidate's distances */
      double *swap = w->best;
      w->best = w->cand;
      w->cand = swap;
      best_pot = p;
      best_row = row;
    }
  }
  dense_row(ds, best_row, d, cm);
  for (uint64_t i = 0; i < n; i++)
    w->closest[i] = w->best[i] < w->closest[i] ? w->best[i] : w->closest[i];
  *pot = best_pot;
}

int km_seed_plusplus(const struct dsana_dataset *ds, uint64_t k, uint64_t seed, double *c) {
  uint64_t n = ds->n_rows, d = ds->n_features, rng = seed;
  struct pp_work w = {malloc(n * sizeof(double)), malloc(n * sizeof(double)), malloc(n * sizeof(double)),
                      malloc(n * sizeof(double)), malloc(n * sizeof(double))};
  if (!w.xx || !w.closest || !w.cum || !w.cand || !w.best) {
    pp_free(&w);
    return DSANA_ENOMEM;
  }
  for (uint64_t i = 0; i < n; i++) {
    double s = 0;
    for (uint64_t e = ds->row_off[i]; e < ds->row_off[i + 1]; e++)
      s += dsana_dataset_val(ds, e) * dsana_dataset_val(ds, e);
    w.xx[i] = s;
  }
  uint32_t trials = 2 + (uint32_t)floor(log((double)k));
  dense_row(ds, rng_below(&rng, n), d, c);
  double pot = dist_to(ds, w.xx, c, d, NULL, w.closest);
  for (uint64_t m = 1; m < k; m++)
    pp_centre(ds, m, trials, &rng, c, &w, &pot);
  pp_free(&w);
  return 0;
}

int km_seed_random(const struct dsana_dataset *ds, uint64_t k, uint64_t seed, double *c) {
  uint64_t n = ds->n_rows, rng = seed, *idx = malloc(n * sizeof *idx);
  if (!idx)
    return DSANA_ENOMEM;
  for (uint64_t i = 0; i < n; i++)
    idx[i] = i;
  for (uint64_t i = 0; i < k; i++) { /* the first k of a Fisher-Yates shuffle */
    uint64_t j = i + rng_below(&rng, n - i), t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
    dense_row(ds, idx[i], ds->n_features, c + i * ds->n_features);
  }
  free(idx);
  return 0;
}

/* --init-centroids, its errors named as the option. */
static int read_file(const struct km_app *a, double *c, char *err, size_t errlen) {
  char why[1200];
  int rc = km_read_centroids(a->init_path, a->k, a->d.train.n_features, c, why, sizeof why);
  if (rc)
    snprintf(err, errlen, "--init-centroids %s", why);
  return rc;
}

int km_seed(struct km_app *a, char *err, size_t errlen) {
  if (a->init_c)
    return 0;
  uint64_t d = a->d.train.n_features;
  double *c = malloc(a->k * d * sizeof *c);
  int rc = c ? 0 : DSANA_ENOMEM;
  if (!rc && a->init_path[0])
    rc = read_file(a, c, err, errlen);
  else if (!rc && (rc = km_validate(a, err, errlen)) == 0)
    rc = a->init == KM_INIT_RANDOM ? km_seed_random(&a->d.train, a->k, a->seed, c)
                                   : km_seed_plusplus(&a->d.train, a->k, a->seed, c);
  if (rc == DSANA_ENOMEM)
    snprintf(err, errlen, "%s: out of memory for the initial centroids", a->d.train_path);
  if (rc) {
    free(c);
    return rc;
  }
  a->init_c = c;
  return 0;
}
