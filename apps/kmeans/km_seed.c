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
 * The candidates of a centre are drawn first (each draw depends on the
 * potential before them only) and measured in one pass over the rows, 4
 * at a time, in the lanes of a vector where apps/common/cpu.h allows:
 * each candidate's operations and their order are the same.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

#define KM_PP_BATCH 4 /* candidates measured in one pass over the rows */

struct pp_work {
  double *xx, *closest, *cum, *best;
  double *cand[KM_PP_BATCH]; /* each candidate's distances */
  double *ct;                /* d x KM_PP_BATCH: the candidates, transposed */
};

static void pp_free(struct pp_work *w) {
  free(w->xx);
  free(w->closest);
  free(w->cum);
  free(w->best);
  for (int u = 0; u < KM_PP_BATCH; u++)
    free(w->cand[u]);
  free(w->ct);
}

/* Row i with every candidate (ct: transposed, KM_PP_BATCH a feature):
 * per candidate one chain over the row's entries, dot += v c (a product
 * and a sum, dist_to()'s operations). */
static void dots_portable(const struct dsana_dataset *ds, const double *ct, uint64_t i, double *dot) {
  for (uint64_t e = ds->row_off[i]; e < ds->row_off[i + 1]; e++) {
    double v = dsana_dataset_val(ds, e);
    const double *c = ct + (uint64_t)ds->col[e] * KM_PP_BATCH;
    for (uint32_t u = 0; u < KM_PP_BATCH; u++)
      dot[u] += v * c[u];
  }
}

#if defined(__x86_64__)
#define KM_SEED_AVX2 1
_Static_assert(KM_PP_BATCH == 4, "dots_avx2 holds the candidates in one vector of 4");
/* The same with the 4 candidates in the lanes of a vector (the same
 * operations, lane by lane). */
__attribute__((target("avx2,fma"))) static void dots_avx2(const struct dsana_dataset *ds, const double *ct, uint64_t i,
                                                          double *dot) {
  __m256d acc = _mm256_setzero_pd();
  for (uint64_t e = ds->row_off[i]; e < ds->row_off[i + 1]; e++) {
    __m256d v = _mm256_set1_pd(dsana_dataset_val(ds, e));
    acc = _mm256_add_pd(acc, _mm256_mul_pd(v, _mm256_loadu_pd(ct + (uint64_t)ds->col[e] * KM_PP_BATCH)));
  }
  _mm256_storeu_pd(dot, acc);
}
#endif

/* dist_to() for t <= KM_PP_BATCH candidate rows at once, in one pass over
 * the data: candidate u's distances into w->cand[u], its potential into
 * pots[u]. Each candidate's operations and their order are dist_to()'s
 * (the same bits); the t chains of a row are independent, where one
 * would wait on each addition. */
static void dists_to(const struct dsana_dataset *ds, const uint64_t *rows, uint32_t t, struct pp_work *w,
                     double *pots) {
  uint64_t d = ds->n_features;
  double cc[KM_PP_BATCH] = {0};
  memset(w->ct, 0, d * KM_PP_BATCH * sizeof *w->ct);
  for (uint32_t u = 0; u < t; u++) {
    for (uint64_t e = ds->row_off[rows[u]]; e < ds->row_off[rows[u] + 1]; e++)
      w->ct[(uint64_t)ds->col[e] * KM_PP_BATCH + u] = dsana_dataset_val(ds, e);
    for (uint64_t j = 0; j < d; j++)
      cc[u] += w->ct[j * KM_PP_BATCH + u] * w->ct[j * KM_PP_BATCH + u];
    pots[u] = 0;
  }
#ifdef KM_SEED_AVX2
  bool avx2 = app_cpu_level() >= APP_CPU_AVX2;
#endif
  for (uint64_t i = 0; i < ds->n_rows; i++) {
    double dot[KM_PP_BATCH] = {0};
#ifdef KM_SEED_AVX2
    if (avx2)
      dots_avx2(ds, w->ct, i, dot);
    else
#endif
      dots_portable(ds, w->ct, i, dot);
    for (uint32_t u = 0; u < t; u++) {
      double v = w->xx[i] - 2 * dot[u] + cc[u], o = v > 0 ? v : 0;
      w->cand[u][i] = o;
      pots[u] += w->closest[i] < o ? w->closest[i] : o;
    }
  }
}

/* Centre m (>= 1) from the candidates (all drawn first: each draw depends
 * on the potential before them only); closest[] and *pot follow it. */
static void pp_centre(const struct dsana_dataset *ds, uint64_t m, uint32_t trials, uint64_t *rng, double *c,
                      struct pp_work *w, double *pot) {
  uint64_t n = ds->n_rows, d = ds->n_features, best_row = 0, rows[KM_PP_BATCH];
  double run = 0, best_pot = INFINITY, *cm = c + m * d, pots[KM_PP_BATCH];
  for (uint64_t i = 0; i < n; i++)
    w->cum[i] = run += w->closest[i];
  double draw = *pot;
  for (uint32_t t0 = 0; t0 < trials; t0 += KM_PP_BATCH) {
    uint32_t t = trials - t0 < KM_PP_BATCH ? trials - t0 : KM_PP_BATCH;
    for (uint32_t u = 0; u < t; u++)
      rows[u] = pick(w->cum, n, rng_uniform(rng) * draw);
    dists_to(ds, rows, t, w, pots);
    for (uint32_t u = 0; u < t; u++)
      if (pots[u] < best_pot) { /* keep the best candidate's distances */
        double *swap = w->best;
        w->best = w->cand[u];
        w->cand[u] = swap;
        best_pot = pots[u];
        best_row = rows[u];
      }
  }
  dense_row(ds, best_row, d, cm);
  for (uint64_t i = 0; i < n; i++)
    w->closest[i] = w->best[i] < w->closest[i] ? w->best[i] : w->closest[i];
  *pot = best_pot;
}

int km_seed_plusplus(const struct dsana_dataset *ds, uint64_t k, uint64_t seed, double *c) {
  uint64_t n = ds->n_rows, d = ds->n_features, rng = seed;
  struct pp_work w = {.xx = malloc(n * sizeof(double)),
                      .closest = malloc(n * sizeof(double)),
                      .cum = malloc(n * sizeof(double)),
                      .best = malloc(n * sizeof(double)),
                      .ct = malloc(d * KM_PP_BATCH * sizeof(double))};
  bool ok = w.xx && w.closest && w.cum && w.best && w.ct;
  for (int u = 0; u < KM_PP_BATCH; u++)
    ok = (w.cand[u] = malloc(n * sizeof(double))) != NULL && ok;
  if (!ok) {
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
