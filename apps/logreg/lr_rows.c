/*
 * lr_rows.c - the inner loops of a dense model's task (logreg.h): a row's
 * scores z = W x + b and its gradient contributions part[j] += x_j gz,
 * vectorised over the classes.
 *
 * Two implementations give the same bits, so a model does not depend on
 * which machine of a cluster ran a row: AVX2 with fused multiply-adds
 * (chosen at run time by apps/common/cpu.h when the CPU has them) and a portable one that calls
 * C's fma() in the same order. The order, per class c:
 *   scores: entries alternate between two accumulators (even-numbered into
 *           a0, odd into a1, from 0), each a0 = fma(v, W[j][c], a0);
 *           z[c] = b[c] + (a0 + a1)
 *   grad:   entries in order, part[j*Kp + c] = fma(v, gz[c], part[j*Kp + c]),
 *           Kp = K rounded up to a multiple of 4 (the padding's lanes are
 *           not part of the result: the vector kernel adds v * gz there)
 * The two accumulators halve the chain of dependent fused adds.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define LR_HAVE_AVX2_KERNEL 1
#endif

#include "apps/common/cpu.h"
#include "logreg.h"

struct lr_row lr_row_of(const struct dsana_dataset *ds, uint64_t i, uint64_t F) {
  uint64_t lo = ds->row_off[i], hi = ds->row_off[i + 1];
  while (ds->n_features > F && hi > lo && ds->col[hi - 1] >= F) /* a suffix: a row's features ascend */
    hi--;
  return (struct lr_row){.col = ds->col + lo,
                         .vf = ds->val_f32 ? ds->val_f32 + lo : NULL,
                         .vd = ds->val_f64 ? ds->val_f64 + lo : NULL,
                         .n = hi - lo};
}

static inline double row_val(const struct lr_row *r, uint64_t e) { return r->vf ? (double)r->vf[e] : r->vd[e]; }

void lr_row_scores_portable(const struct lr_row *r, const double *w, uint64_t ldw, const double *bias, uint32_t K,
                            double *z) {
  for (uint32_t c = 0; c < K; c++) {
    double a0 = 0, a1 = 0;
    uint64_t e = 0;
    for (; e + 2 <= r->n; e += 2) {
      a0 = fma(row_val(r, e), w[r->col[e] * ldw + c], a0);
      a1 = fma(row_val(r, e + 1), w[r->col[e + 1] * ldw + c], a1);
    }
    if (e < r->n)
      a0 = fma(row_val(r, e), w[r->col[e] * ldw + c], a0);
    z[c] = bias[c] + (a0 + a1);
  }
}

void lr_row_grad_portable(const struct lr_row *r, const double *gz, uint32_t K, double *part) {
  uint32_t Kp = lr_padded(K);
  for (uint64_t e = 0; e < r->n; e++) {
    double v = row_val(r, e), *p = part + (uint64_t)r->col[e] * Kp;
    for (uint32_t c = 0; c < K; c++)
      p[c] = fma(v, gz[c], p[c]);
  }
}

#ifdef LR_HAVE_AVX2_KERNEL

#define AVX2 __attribute__((target("avx2,fma")))
#define AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) static inline

AVX2_INLINE __m256d val_avx2(const struct lr_row *r, uint64_t e, bool f32) {
  return _mm256_set1_pd(f32 ? (double)r->vf[e] : r->vd[e]);
}

/* Up to 12 classes as `full` 256-bit vectors of 4 and, with `half`, one
 * 128-bit vector of the last 1 or 2 (half the work of a 256-bit one):
 * CALL(full, half) with both constant, for k = 1..12 classes (more: 12). */
#define LR_BY_SHAPE(k, CALL) \
  switch (((k) + 1) / 2) {   \
  case 1:                    \
    CALL(0, true);           \
    break;                   \
  case 2:                    \
    CALL(1, false);          \
    break;                   \
  case 3:                    \
    CALL(1, true);           \
    break;                   \
  case 4:                    \
    CALL(2, false);          \
    break;                   \
  case 5:                    \
    CALL(2, true);           \
    break;                   \
  default:                   \
    CALL(3, false);          \
    break;                   \
  }

/* Classes [c0, c0 + 12) (those below K) in a (full, half) shape: the
 * accumulators are named, not an array, so they stay in registers. When
 * the rows of W are padded to a multiple of 4 every vector is read whole
 * (extra lanes discarded); else the last vector reads only its classes
 * (a masked or a single-lane load). */
AVX2_INLINE void scores_group(const struct lr_row *r, const double *w, uint64_t ldw, const double *bias, uint32_t K,
                              uint32_t c0, int full, bool half, bool f32, bool padded, double *z) {
  __m256d a00 = _mm256_setzero_pd(), a01 = a00, a02 = a00, a10 = a00, a11 = a00, a12 = a00;
  __m128d h0 = _mm_setzero_pd(), h1 = h0;
  int64_t left = (int64_t)K - (int64_t)c0 - 4 * (full - (half ? 0 : 1)); /* classes of the last vector */
  __m256i m = _mm256_set_epi64x(left > 3 ? -1 : 0, left > 2 ? -1 : 0, left > 1 ? -1 : 0, -1);
  bool one = half && left == 1 && !padded; /* a 128-bit load would read the next row */
  const double *wc = w + c0;
#define LR_LOAD(p, v) \
  ((v) == full - 1 && !half && !padded ? _mm256_maskload_pd((p) + 4 * (v), m) : _mm256_loadu_pd((p) + 4 * (v)))
#define LR_HALF(p) (one ? _mm_load_sd((p) + 4 * full) : _mm_loadu_pd((p) + 4 * full))
#define LR_STEP(acc0, acc1, acc2, hacc, x, p)                           \
  do {                                                                  \
    if (full > 0)                                                       \
      acc0 = _mm256_fmadd_pd(x, LR_LOAD(p, 0), acc0);                   \
    if (full > 1)                                                       \
      acc1 = _mm256_fmadd_pd(x, LR_LOAD(p, 1), acc1);                   \
    if (full > 2)                                                       \
      acc2 = _mm256_fmadd_pd(x, LR_LOAD(p, 2), acc2);                   \
    if (half)                                                           \
      hacc = _mm_fmadd_pd(_mm256_castpd256_pd128(x), LR_HALF(p), hacc); \
  } while (0)
  uint64_t e = 0;
  for (; e + 2 <= r->n; e += 2) {
    __m256d x0 = val_avx2(r, e, f32), x1 = val_avx2(r, e + 1, f32);
    const double *w0 = wc + r->col[e] * ldw, *w1 = wc + r->col[e + 1] * ldw;
    LR_STEP(a00, a01, a02, h0, x0, w0);
    LR_STEP(a10, a11, a12, h1, x1, w1);
  }
  if (e < r->n) {
    __m256d x0 = val_avx2(r, e, f32);
    const double *w0 = wc + r->col[e] * ldw;
    LR_STEP(a00, a01, a02, h0, x0, w0);
  }
#undef LR_STEP
#undef LR_HALF
#undef LR_LOAD
  double s[12];
  _mm256_storeu_pd(s, _mm256_add_pd(a00, a10));
  _mm256_storeu_pd(s + 4, _mm256_add_pd(a01, a11));
  _mm256_storeu_pd(s + 8, _mm256_add_pd(a02, a12));
  if (half)
    _mm_storeu_pd(s + 4 * full, _mm_add_pd(h0, h1));
  for (uint32_t l = 0, c = c0; l < 4 * (uint32_t)full + 2 * half && c < K; l++, c++)
    z[c] = bias[c] + s[l];
}

AVX2_INLINE void scores_avx2_typed(const struct lr_row *r, const double *w, uint64_t ldw, const double *bias,
                                   uint32_t K, bool f32, double *z) {
  bool padded = ldw % 4 == 0;
  for (uint32_t c0 = 0; c0 < K; c0 += 12) {
#define LR_SCORES(full, half) scores_group(r, w, ldw, bias, K, c0, full, half, f32, padded, z)
    LR_BY_SHAPE(K - c0, LR_SCORES)
#undef LR_SCORES
  }
}

AVX2 static void scores_avx2(const struct lr_row *r, const double *w, uint64_t ldw, const double *bias, uint32_t K,
                             double *z) {
  if (r->vf)
    scores_avx2_typed(r, w, ldw, bias, K, true, z);
  else
    scores_avx2_typed(r, w, ldw, bias, K, false, z);
}

/* One entry's update of a gradient row p in a (full, half) shape (the
 * half vector's extra lane is padding); `loads_first` runs between the
 * loads and the stores. */
#define LR_GRAD_ROW(p, x, loads_first)                                                \
  do {                                                                                \
    __m256d q0 = _mm256_setzero_pd(), q1 = q0, q2 = q0;                               \
    __m128d qh = _mm_setzero_pd();                                                    \
    if (full > 0)                                                                     \
      q0 = _mm256_loadu_pd(p);                                                        \
    if (full > 1)                                                                     \
      q1 = _mm256_loadu_pd((p) + 4);                                                  \
    if (full > 2)                                                                     \
      q2 = _mm256_loadu_pd((p) + 8);                                                  \
    if (half)                                                                         \
      qh = _mm_loadu_pd((p) + 4 * full);                                              \
    loads_first;                                                                      \
    if (full > 0)                                                                     \
      _mm256_storeu_pd(p, _mm256_fmadd_pd(x, g0, q0));                                \
    if (full > 1)                                                                     \
      _mm256_storeu_pd((p) + 4, _mm256_fmadd_pd(x, g1, q1));                          \
    if (full > 2)                                                                     \
      _mm256_storeu_pd((p) + 8, _mm256_fmadd_pd(x, g2, q2));                          \
    if (half)                                                                         \
      _mm_storeu_pd((p) + 4 * full, _mm_fmadd_pd(_mm256_castpd256_pd128(x), gh, qh)); \
  } while (0)

/* K <= 12 in a (full, half) shape: the gradient's vectors stay in
 * registers; two entries at a time, the second's row loaded before the
 * first's is stored (their rows differ: a row's features are distinct). */
AVX2_INLINE void grad_small(const struct lr_row *r, const double *gz, int full, bool half, bool f32, double *part) {
  const uint32_t Kp = 4 * (uint32_t)(full + half); /* a constant once inlined */
  __m256d g0 = _mm256_setzero_pd(), g1 = g0, g2 = g0;
  __m128d gh = _mm_setzero_pd();
  if (full > 0)
    g0 = _mm256_loadu_pd(gz);
  if (full > 1)
    g1 = _mm256_loadu_pd(gz + 4);
  if (full > 2)
    g2 = _mm256_loadu_pd(gz + 8);
  if (half)
    gh = _mm_loadu_pd(gz + 4 * full);
  const uint32_t *col = r->col;
  uint64_t e = 0, n = r->n;
  for (; e + 2 <= n; e += 2) {
    __m256d x = val_avx2(r, e, f32), y = val_avx2(r, e + 1, f32);
    double *p = part + (uint64_t)col[e] * Kp, *q = part + (uint64_t)col[e + 1] * Kp;
    __m256d b0 = _mm256_setzero_pd(), b1 = b0, b2 = b0;
    __m128d bh = _mm_setzero_pd();
    LR_GRAD_ROW(p, x, {
      if (full > 0)
        b0 = _mm256_loadu_pd(q);
      if (full > 1)
        b1 = _mm256_loadu_pd(q + 4);
      if (full > 2)
        b2 = _mm256_loadu_pd(q + 8);
      if (half)
        bh = _mm_loadu_pd(q + 4 * full);
    });
    if (full > 0)
      _mm256_storeu_pd(q, _mm256_fmadd_pd(y, g0, b0));
    if (full > 1)
      _mm256_storeu_pd(q + 4, _mm256_fmadd_pd(y, g1, b1));
    if (full > 2)
      _mm256_storeu_pd(q + 8, _mm256_fmadd_pd(y, g2, b2));
    if (half)
      _mm_storeu_pd(q + 4 * full, _mm_fmadd_pd(_mm256_castpd256_pd128(y), gh, bh));
  }
  if (e < n) {
    __m256d x = val_avx2(r, e, f32);
    double *p = part + (uint64_t)col[e] * Kp;
    LR_GRAD_ROW(p, x, (void)0);
  }
}

AVX2_INLINE void grad_avx2_typed(const struct lr_row *r, const double *gz, uint32_t K, bool f32, double *part) {
  if (K <= 12) {
#define LR_GRAD(full, half) grad_small(r, gz, full, half, f32, part)
    LR_BY_SHAPE(K, LR_GRAD)
#undef LR_GRAD
    return;
  }
  uint32_t Kp = lr_padded(K);
  for (uint64_t e = 0; e < r->n; e++) {
    __m256d x = val_avx2(r, e, f32);
    double *p = part + (uint64_t)r->col[e] * Kp;
    for (uint32_t c = 0; c < Kp; c += 4)
      _mm256_storeu_pd(p + c, _mm256_fmadd_pd(x, _mm256_loadu_pd(gz + c), _mm256_loadu_pd(p + c)));
  }
}

AVX2 static void grad_avx2(const struct lr_row *r, const double *gz, uint32_t K, double *part) {
  if (r->vf)
    grad_avx2_typed(r, gz, K, true, part);
  else
    grad_avx2_typed(r, gz, K, false, part);
}

bool lr_rows_simd(void) { return app_cpu_level() >= APP_CPU_AVX2; }

void lr_row_scores(const struct lr_row *r, const double *w, uint64_t ldw, const double *bias, uint32_t K, double *z) {
  if (lr_rows_simd())
    scores_avx2(r, w, ldw, bias, K, z);
  else
    lr_row_scores_portable(r, w, ldw, bias, K, z);
}

void lr_row_grad(const struct lr_row *r, const double *gz, uint32_t K, double *part) {
  if (lr_rows_simd())
    grad_avx2(r, gz, K, part);
  else
    lr_row_grad_portable(r, gz, K, part);
}

#else /* no vector kernel for this machine */

bool lr_rows_simd(void) { return false; }

void lr_row_scores(const struct lr_row *r, const double *w, uint64_t ldw, const double *bias, uint32_t K, double *z) {
  lr_row_scores_portable(r, w, ldw, bias, K, z);
}

void lr_row_grad(const struct lr_row *r, const double *gz, uint32_t K, double *part) {
  lr_row_grad_portable(r, gz, K, part);
}

#endif
