/*
 * km_kernel.c - the k-means distance kernel: a row's nearest centroid.
 *
 * Squared distances as |x|^2 - 2 x.c + |c|^2 (scikit-learn's form, at
 * least 0): one pass over the row's non-zeros, each one multiplying the
 * k centroids' coordinates of its feature, stored side by side (the
 * centroids transposed, kp a row) so the inner loop runs over contiguous
 * memory. The order, per centroid m: entries alternate between two
 * chains (even-numbered into a, odd into b, from 0), each a = a + v c[m]
 * (a product and a sum, two roundings, never fused), dot = a + b.
 * Ties go to the lowest index: a later centroid wins only when strictly
 * nearer. Every row's result depends on that row and the centroids alone,
 * in that fixed order of operations: the same bits on any thread or
 * worker, and from each of the three kernels (portable C, AVX2 and
 * AVX-512, one lane a centroid; apps/common/cpu.h picks one).
 *
 * Pure functions of their arguments; any thread.
 */
#include <stdlib.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define KM_HAVE_VECTOR_KERNELS 1
#endif

#include "apps/common/cpu.h"
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
      cs->ct[j * kp + m] = v;
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

/* dot[g .. g+3] = x . c over the row's entries [e0, e1) in the order of
 * the file's comment (ct: the transposed centroids, kp a row): eight
 * independent chains, where one running sum per centroid would wait on
 * each addition. One copy per value type, so that the loop has no branch. */
#define KM_DOTS4(NAME, T)                                                                                     \
  static void NAME(const double *ct, uint32_t kp, uint32_t g, const uint32_t *col, const T *val, uint64_t e0, \
                   uint64_t e1, double *dot) {                                                                \
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;                                    \
    uint64_t e = e0;                                                                                          \
    for (; e + 1 < e1; e += 2) {                                                                              \
      const double va = val[e], vb = val[e + 1];                                                              \
      const double *ca = ct + (uint64_t)col[e] * kp + g, *cb = ct + (uint64_t)col[e + 1] * kp + g;            \
      a0 += va * ca[0], a1 += va * ca[1], a2 += va * ca[2], a3 += va * ca[3];                                 \
      b0 += vb * cb[0], b1 += vb * cb[1], b2 += vb * cb[2], b3 += vb * cb[3];                                 \
    }                                                                                                         \
    if (e < e1) {                                                                                             \
      const double va = val[e], *ca = ct + (uint64_t)col[e] * kp + g;                                         \
      a0 += va * ca[0], a1 += va * ca[1], a2 += va * ca[2], a3 += va * ca[3];                                 \
    }                                                                                                         \
    dot[g] = a0 + b0, dot[g + 1] = a1 + b1, dot[g + 2] = a2 + b2, dot[g + 3] = a3 + b3;                       \
  }
KM_DOTS4(dots4_f32, float)
KM_DOTS4(dots4_f64, double)

static void dots_portable(const struct km_centres *cs, const struct dsana_dataset *ds, uint64_t e0, uint64_t e1,
                          double *dot) {
  for (uint32_t g = 0; g < cs->kp; g += KM_GROUP)
    if (ds->val_f32)
      dots4_f32(cs->ct, cs->kp, g, ds->col, ds->val_f32, e0, e1, dot);
    else
      dots4_f64(cs->ct, cs->kp, g, ds->col, ds->val_f64, e0, e1, dot);
}

#ifdef KM_HAVE_VECTOR_KERNELS
#define KM_AVX2 __attribute__((target("avx2,fma"), always_inline)) static inline
#define KM_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx2,fma"), always_inline)) static inline

KM_AVX2 __m256d km_val4(const float *vf, const double *vd, uint64_t e) {
  return vf ? _mm256_set1_pd((double)vf[e]) : _mm256_broadcast_sd(vd + e);
}

/* Centroids [g, g + 4 nv) (nv <= 4 vectors of 4) over entries [e0, e1). */
KM_AVX2 void dots_avx2_n(const double *ct, uint32_t kp, uint32_t g, int nv, const uint32_t *col, const float *vf,
                         const double *vd, uint64_t e0, uint64_t e1, double *dot) {
  __m256d a[4], b[4];
  for (int v = 0; v < 4; v++)
    a[v] = b[v] = _mm256_setzero_pd();
  uint64_t e = e0;
  for (; e + 1 < e1; e += 2) {
    __m256d va = km_val4(vf, vd, e), vb = km_val4(vf, vd, e + 1);
    const double *ca = ct + (uint64_t)col[e] * kp + g, *cb = ct + (uint64_t)col[e + 1] * kp + g;
    for (int v = 0; v < nv; v++) {
      a[v] = _mm256_add_pd(a[v], _mm256_mul_pd(va, _mm256_loadu_pd(ca + 4 * v)));
      b[v] = _mm256_add_pd(b[v], _mm256_mul_pd(vb, _mm256_loadu_pd(cb + 4 * v)));
    }
  }
  if (e < e1) {
    __m256d va = km_val4(vf, vd, e);
    const double *ca = ct + (uint64_t)col[e] * kp + g;
    for (int v = 0; v < nv; v++)
      a[v] = _mm256_add_pd(a[v], _mm256_mul_pd(va, _mm256_loadu_pd(ca + 4 * v)));
  }
  for (int v = 0; v < nv; v++)
    _mm256_storeu_pd(dot + g + 4 * v, _mm256_add_pd(a[v], b[v]));
}

/* Up to 16 centroids a pass over the row, the value type fixed. */
KM_AVX2 void dots_avx2_typed(const struct km_centres *cs, const uint32_t *col, const float *vf, const double *vd,
                             uint64_t e0, uint64_t e1, double *dot) {
  for (uint32_t g = 0; g < cs->kp; g += 16) {
    uint32_t w = cs->kp - g < 16 ? cs->kp - g : 16;
    if (w == 16)
      dots_avx2_n(cs->ct, cs->kp, g, 4, col, vf, vd, e0, e1, dot);
    else if (w == 12)
      dots_avx2_n(cs->ct, cs->kp, g, 3, col, vf, vd, e0, e1, dot);
    else if (w == 8)
      dots_avx2_n(cs->ct, cs->kp, g, 2, col, vf, vd, e0, e1, dot);
    else
      dots_avx2_n(cs->ct, cs->kp, g, 1, col, vf, vd, e0, e1, dot);
  }
}

__attribute__((target("avx2,fma"))) static void dots_avx2(const struct km_centres *cs, const struct dsana_dataset *ds,
                                                          uint64_t e0, uint64_t e1, double *dot) {
  if (ds->val_f32)
    dots_avx2_typed(cs, ds->col, ds->val_f32, NULL, e0, e1, dot);
  else
    dots_avx2_typed(cs, ds->col, NULL, ds->val_f64, e0, e1, dot);
}

KM_AVX512 __m512d km_val8(const float *vf, const double *vd, uint64_t e) {
  return vf ? _mm512_set1_pd((double)vf[e]) : _mm512_set1_pd(vd[e]);
}

/* Centroids [g, g + 8 nz + 4 half) over entries [e0, e1): nz vectors of
 * 8 (nz <= 3) and, with `half`, one of 4. */
KM_AVX512 void dots_avx512_n(const double *ct, uint32_t kp, uint32_t g, int nz, bool half, const uint32_t *col,
                             const float *vf, const double *vd, uint64_t e0, uint64_t e1, double *dot) {
  __m512d a[3], b[3];
  __m256d ah = _mm256_setzero_pd(), bh = ah;
  for (int v = 0; v < 3; v++)
    a[v] = b[v] = _mm512_setzero_pd();
  uint64_t e = e0;
  for (; e + 1 < e1; e += 2) {
    __m512d va = km_val8(vf, vd, e), vb = km_val8(vf, vd, e + 1);
    const double *ca = ct + (uint64_t)col[e] * kp + g, *cb = ct + (uint64_t)col[e + 1] * kp + g;
    for (int v = 0; v < nz; v++) {
      a[v] = _mm512_add_pd(a[v], _mm512_mul_pd(va, _mm512_loadu_pd(ca + 8 * v)));
      b[v] = _mm512_add_pd(b[v], _mm512_mul_pd(vb, _mm512_loadu_pd(cb + 8 * v)));
    }
    if (half) {
      ah = _mm256_add_pd(ah, _mm256_mul_pd(_mm512_castpd512_pd256(va), _mm256_loadu_pd(ca + 8 * nz)));
      bh = _mm256_add_pd(bh, _mm256_mul_pd(_mm512_castpd512_pd256(vb), _mm256_loadu_pd(cb + 8 * nz)));
    }
  }
  if (e < e1) {
    __m512d va = km_val8(vf, vd, e);
    const double *ca = ct + (uint64_t)col[e] * kp + g;
    for (int v = 0; v < nz; v++)
      a[v] = _mm512_add_pd(a[v], _mm512_mul_pd(va, _mm512_loadu_pd(ca + 8 * v)));
    if (half)
      ah = _mm256_add_pd(ah, _mm256_mul_pd(_mm512_castpd512_pd256(va), _mm256_loadu_pd(ca + 8 * nz)));
  }
  for (int v = 0; v < nz; v++)
    _mm512_storeu_pd(dot + g + 8 * v, _mm512_add_pd(a[v], b[v]));
  if (half)
    _mm256_storeu_pd(dot + g + 8 * nz, _mm256_add_pd(ah, bh));
}

/* Up to 28 centroids a pass over the row (3 vectors of 8, one of 4). */
KM_AVX512 void dots_avx512_typed(const struct km_centres *cs, const uint32_t *col, const float *vf, const double *vd,
                                 uint64_t e0, uint64_t e1, double *dot) {
  for (uint32_t g = 0; g < cs->kp;) {
    uint32_t w = cs->kp - g < 24 ? cs->kp - g : 24;
    int nz = (int)(w / 8);
    bool half = w % 8 != 0;
    if (nz == 3)
      dots_avx512_n(cs->ct, cs->kp, g, 3, false, col, vf, vd, e0, e1, dot);
    else if (nz == 2)
      dots_avx512_n(cs->ct, cs->kp, g, 2, half, col, vf, vd, e0, e1, dot);
    else if (nz == 1)
      dots_avx512_n(cs->ct, cs->kp, g, 1, half, col, vf, vd, e0, e1, dot);
    else
      dots_avx512_n(cs->ct, cs->kp, g, 0, true, col, vf, vd, e0, e1, dot);
    g += w;
  }
}

__attribute__((target("avx512f,avx512vl,avx512dq,avx2,fma"))) static void
dots_avx512(const struct km_centres *cs, const struct dsana_dataset *ds, uint64_t e0, uint64_t e1, double *dot) {
  if (ds->val_f32)
    dots_avx512_typed(cs, ds->col, ds->val_f32, NULL, e0, e1, dot);
  else
    dots_avx512_typed(cs, ds->col, NULL, ds->val_f64, e0, e1, dot);
}
#endif

/* dot[m] = x . c_m for every centroid (m < kp) by the kernel of `level`. */
static void dots_at(enum app_cpu level, const struct km_centres *cs, const struct dsana_dataset *ds, uint64_t e0,
                    uint64_t e1, double *dot) {
#ifdef KM_HAVE_VECTOR_KERNELS
  if (level == APP_CPU_AVX512) {
    dots_avx512(cs, ds, e0, e1, dot);
    return;
  }
  if (level == APP_CPU_AVX2) {
    dots_avx2(cs, ds, e0, e1, dot);
    return;
  }
#endif
  (void)level;
  dots_portable(cs, ds, e0, e1, dot);
}

/* |x|^2 of entries [e0, e1), four partial sums added at the end (entry
 * e into sum e - e0 mod 4). One copy per value type: a loop without a
 * branch, which the compiler vectorises (the same operations). */
#define KM_NORM2(NAME, T)                                         \
  static double NAME(const T *val, uint64_t e0, uint64_t e1) {    \
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;                        \
    uint64_t e = e0;                                              \
    for (; e + 3 < e1; e += 4) {                                  \
      double v0 = val[e], v1 = val[e + 1];                        \
      double v2 = val[e + 2], v3 = val[e + 3];                    \
      s0 += v0 * v0, s1 += v1 * v1, s2 += v2 * v2, s3 += v3 * v3; \
    }                                                             \
    for (; e < e1; e++)                                           \
      s0 += (double)val[e] * (double)val[e];                      \
    return (s0 + s1) + (s2 + s3);                                 \
  }
KM_NORM2(norm2_f32, float)
KM_NORM2(norm2_f64, double)

#ifdef KM_HAVE_VECTOR_KERNELS
/* The same four sums in the lanes of a vector (entry e into lane e - e0
 * mod 4), the rest into lane 0 after them, as the loop above. */
__attribute__((target("avx2,fma"))) static double norm2_avx2(const struct dsana_dataset *ds, uint64_t e0, uint64_t e1) {
  __m256d acc = _mm256_setzero_pd();
  uint64_t e = e0;
  for (; e + 3 < e1; e += 4) {
    __m256d v = ds->val_f32 ? _mm256_cvtps_pd(_mm_loadu_ps(ds->val_f32 + e)) : _mm256_loadu_pd(ds->val_f64 + e);
    acc = _mm256_add_pd(acc, _mm256_mul_pd(v, v));
  }
  double s[4];
  _mm256_storeu_pd(s, acc);
  for (; e < e1; e++)
    s[0] += dsana_dataset_val(ds, e) * dsana_dataset_val(ds, e);
  return (s[0] + s[1]) + (s[2] + s[3]);
}
#endif

static double norm2(enum app_cpu level, const struct dsana_dataset *ds, uint64_t e0, uint64_t e1) {
#ifdef KM_HAVE_VECTOR_KERNELS
  if (level >= APP_CPU_AVX2)
    return norm2_avx2(ds, e0, e1);
#endif
  (void)level;
  return ds->val_f32 ? norm2_f32(ds->val_f32, e0, e1) : norm2_f64(ds->val_f64, e0, e1);
}

uint32_t km_nearest_at(enum app_cpu level, const struct km_centres *cs, const struct dsana_dataset *ds, uint64_t i,
                       double *dot, double *dist) {
  uint64_t e0 = ds->row_off[i], e1 = ds->row_off[i + 1];
  dots_at(level, cs, ds, e0, e1, dot);
  double xx = norm2(level, ds, e0, e1), best_d = 0;
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

uint32_t km_nearest(const struct km_centres *cs, const struct dsana_dataset *ds, uint64_t i, double *dot,
                    double *dist) {
  return km_nearest_at(app_cpu_level(), cs, ds, i, dot, dist);
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
