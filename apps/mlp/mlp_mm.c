/*
 * mlp_mm.c - the dense block products of the MLP app (mlp_mm.h): a layer's
 * forward product Z = A B + b (and the backward D W^T, the same form),
 * and a layer's weight gradient A^T D added exactly into a task's push;
 * the portable and AVX2 kernels, and the helpers the AVX-512 ones
 * (mlp_mm512.c) share; mlp_mm_pick.c chooses (apps/common/cpu.h).
 *
 * Every kernel gives the same bits, so a model does not depend on which
 * machine of a cluster ran a block: the portable one calls C's fmaf(), the
 * vector ones fused multiply-adds, in the same order. The order of every
 * output element is a single chain of fused multiply-adds in float over
 * the reduction index, ascending, from the bias (or 0); the vector kernels
 * compute 4 x 24 (AVX2) or 4 x 64 (AVX-512) outputs at once, one lane
 * each, which is the same chain. Indices at which a whole group
 * of 4 rows (nn) or 4 columns (tn) of A is 0 are skipped by all (ReLU
 * outputs and images are about half zeros), the same groups in all.
 * A gradient's blocks leave as fixed-point pairs (struct mlp_fix), which
 * all round the same way.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define MLP_HAVE_AVX2_KERNEL 1
#endif

#include "mlp_mm.h"

/* j < n at which one of A's 4 rows from `a` (lda apart) is not 0, into idx; their count. */
uint32_t mlp_nonzero_cols(const float *a, uint64_t lda, uint32_t n, uint32_t *idx) {
  uint32_t m = 0;
  for (uint32_t j = 0; j < n; j++) {
    idx[m] = j;
    m += (a[j] != 0) | (a[lda + j] != 0) | (a[2 * lda + j] != 0) | (a[3 * lda + j] != 0);
  }
  return m;
}

/* s < rows at which A[s][j..j+3] (from `a`) is not all 0, into idx; their count. */
uint32_t mlp_nonzero_rows(const float *a, uint64_t lda, uint32_t rows, uint32_t *idx) {
  uint32_t m = 0;
  for (uint32_t s = 0; s < rows; s++) {
    const float *p = a + s * lda;
    idx[m] = s;
    m += (p[0] != 0) | (p[1] != 0) | (p[2] != 0) | (p[3] != 0);
  }
  return m;
}

struct mlp_fix mlp_fix_for(uint64_t n_blocks) {
  int lg = 0;
  while (lg < 40 && (1ull << lg) < n_blocks)
    lg++;
  int k = 32 - lg, m = 52 - lg;
  return (struct mlp_fix){.k_up = ldexp(1, k),
                          .m_up = ldexp(1, m),
                          .lim = ldexp(1, 51 - lg),
                          .hi_val = ldexp(1, -k),
                          .lo_val = ldexp(1, -k - m)};
}

/* v rounded to the nearest integer, ties to even, for |v| <= 2^51: the
 * sum's rounding in the default mode (which dsana never changes) leaves
 * no fraction at 1.5 * 2^52, and taking it off again is exact. The
 * vector kernel does the same two operations. */
static inline double round_int(double v) {
  const double magic = 0x1.8p52;
  return (v + magic) - magic;
}

/* y = x 2^K (exact); |y| < lim keeps h and l in round_int()'s range and
 * their sums exact; y - h is exact (h is y's nearest integer). */
void mlp_fix_add(const struct mlp_fix *f, double x, double *oh, double *ol) {
  double y = x * f->k_up;
  if (!(fabs(y) < f->lim)) {
    *oh = NAN;
    return;
  }
  double h = round_int(y);
  *oh += h;
  *ol += round_int((y - h) * f->m_up);
}

bool mlp_fix_squares_portable(const struct mlp_fix *f, const double *x, size_t stride, size_t n, double *oh,
                              double *ol) {
  double h[4] = {0}, l[4] = {0}, far = 0; /* four chains: integer sums, exact in any order */
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int r = 0; r < 4; r++) {
      double v = x[(i + r) * stride], y = v * v * f->k_up, q = round_int(y);
      far = y < f->lim ? far : 1; /* NaN too */
      h[r] += q;
      l[r] += round_int((y - q) * f->m_up);
    }
  for (; i < n; i++) {
    double v = x[i * stride], y = v * v * f->k_up, q = round_int(y);
    far = y < f->lim ? far : 1;
    h[0] += q;
    l[0] += round_int((y - q) * f->m_up);
  }
  if (far != 0)
    return false;
  *oh += (h[0] + h[1]) + (h[2] + h[3]);
  *ol += (l[0] + l[1]) + (l[2] + l[3]);
  return true;
}

/* The 4 x w tile at (j, c) of a gradient, into oh, ol where it is real. */
void mlp_add_tile(const float *t, uint32_t w, uint32_t j, uint32_t c, uint32_t n_j, uint32_t n_c,
                  const struct mlp_fix *f, bool store, double *oh, double *ol, uint64_t ldo) {
  for (uint32_t r = 0; r < 4 && j + r < n_j; r++)
    for (uint32_t k = 0; k < w && c + k < n_c; k++) {
      uint64_t at = (uint64_t)(j + r) * ldo + c + k;
      if (store)
        oh[at] = ol[at] = 0;
      mlp_fix_add(f, (double)t[r * w + k], oh + at, ol + at); /* exact: a float is a double */
    }
}

void mlp_zero_out(uint32_t n_j, uint32_t n_c, double *oh, double *ol, uint64_t ldo) {
  for (uint32_t j = 0; j < n_j; j++) {
    memset(oh + (uint64_t)j * ldo, 0, sizeof(double) * n_c);
    memset(ol + (uint64_t)j * ldo, 0, sizeof(double) * n_c);
  }
}

void mlp_mm_nn_portable(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B,
                        uint64_t ldb, const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
  for (uint32_t s0 = 0; s0 < rows; s0 += 4) {
    uint32_t m = mlp_nonzero_cols(A + s0 * lda, lda, n_in, idx);
    for (uint32_t r = 0; r < 4; r++)
      for (uint32_t c = 0; c < cols; c++) {
        float z = bias ? bias[c] : 0;
        for (uint32_t q = 0; q < m; q++)
          z = fmaf(A[(s0 + r) * lda + idx[q]], B[idx[q] * ldb + c], z);
        Z[(s0 + r) * ldz + c] = z;
      }
  }
}

void mlp_mm_tn_fix_portable(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f,
                            double *oh, double *ol, uint64_t ldo, uint32_t *idx) {
  uint32_t ncp = mlp_pad4(n_c), m[MLP_MAX_BLOCKS];
  if (bk->store)
    mlp_zero_out(n_j, n_c, oh, ol, ldo);
  for (uint32_t j = 0; j < n_j; j += 4) {
    for (uint32_t b = 0; b < bk->n; b++)
      m[b] = mlp_nonzero_rows(bk->a + b * bk->a_step + j, bk->lda, bk->rows[b], idx + b * MLP_BLOCK);
    for (uint32_t c = 0; c < ncp; c += 4)
      for (uint32_t b = 0; b < bk->n; b++) {
        const float *A = bk->a + b * bk->a_step, *D = bk->d + b * bk->d_step;
        const uint32_t *ix = idx + b * MLP_BLOCK;
        float t[16];
        for (uint32_t r = 0; r < 4; r++)
          for (uint32_t k = 0; k < 4; k++) {
            float g = 0;
            for (uint32_t q = 0; q < m[b]; q++)
              g = fmaf(A[ix[q] * bk->lda + j + r], D[ix[q] * bk->ldd + c + k], g);
            t[r * 4 + k] = g;
          }
        mlp_add_tile(t, 4, j, c, n_j, n_c, f, false, oh, ol, ldo);
      }
  }
}

#ifdef MLP_HAVE_AVX2_KERNEL
#define AVX2 __attribute__((target("avx2,fma")))
#define AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) static inline

#define MLP_NN_KC 128 /* inputs j per pass of the forward product (its B panel stays in L1) */

/* The lanes of a vector of 8 floats that are real: all, or (half) the first 4. */
AVX2_INLINE __m256i lanes_avx2(bool half) {
  return half ? _mm256_setr_epi32(-1, -1, -1, -1, 0, 0, 0, 0) : _mm256_set1_epi32(-1);
}

/* Four rows x 8 nv columns of Z at c (the last vector's lanes: `half`,
 * its first 4 only), over the listed j (ap: the 4 rows' values at them,
 * packed 4 a j), continuing each output's chain from Z (or, with
 * `first`, from the bias). */
AVX2_INLINE void nn_tile_avx2(const float *ap, const uint32_t *idx, uint32_t m, const float *B, uint64_t ldb,
                              const float *bias, bool first, uint32_t c, int nv, bool half, float *Z, uint64_t ldz) {
  __m256 z[4][3];
  const __m256i all = lanes_avx2(false), last = lanes_avx2(half);
  for (int r = 0; r < 4; r++)
    for (int v = 0; v < nv; v++) {
      __m256i k = v == nv - 1 ? last : all;
      z[r][v] = first ? (bias ? _mm256_maskload_ps(bias + c + 8 * v, k) : _mm256_setzero_ps())
                      : _mm256_maskload_ps(Z + r * ldz + c + 8 * v, k);
    }
  for (uint32_t q = 0; q < m; q++) {
    const float *b = B + idx[q] * ldb + c, *a = ap + 4 * q;
    __m256 w[3];
    for (int v = 0; v < nv; v++)
      w[v] = v == nv - 1 && half ? _mm256_maskload_ps(b + 8 * v, last) : _mm256_loadu_ps(b + 8 * v);
    for (int r = 0; r < 4; r++) {
      __m256 x = _mm256_broadcast_ss(a + r);
      for (int v = 0; v < nv; v++)
        z[r][v] = _mm256_fmadd_ps(x, w[v], z[r][v]);
    }
  }
  for (int r = 0; r < 4; r++)
    for (int v = 0; v < nv; v++)
      _mm256_maskstore_ps(Z + r * ldz + c + 8 * v, v == nv - 1 ? last : all, z[r][v]);
}

/* nn_tile_avx2 for the columns from c: 24 of them, or the rest (< 24, a multiple of 4). */
AVX2 static void nn_tile_any_avx2(const float *ap, const uint32_t *idx, uint32_t m, const float *B, uint64_t ldb,
                                  const float *bias, bool first, uint32_t c, uint32_t w, float *Z, uint64_t ldz) {
  int nv = (int)(w + 7) / 8;
  bool half = w % 8 != 0;
  if (nv == 3)
    nn_tile_avx2(ap, idx, m, B, ldb, bias, first, c, 3, half, Z, ldz);
  else if (nv == 2)
    nn_tile_avx2(ap, idx, m, B, ldb, bias, first, c, 2, half, Z, ldz);
  else
    nn_tile_avx2(ap, idx, m, B, ldb, bias, first, c, 1, half, Z, ldz);
}

/* Group g's listed j (m of them at idx) with their 4 rows of A, packed. */
void mlp_pack_group(const float *A, uint64_t lda, const uint32_t *idx, uint32_t m, float *ap) {
  for (uint32_t q = 0; q < m; q++)
    for (uint32_t r = 0; r < 4; r++)
      ap[4 * q + r] = A[r * lda + idx[q]];
}

/* The scratch at idx: per group its list (n_in entries), then per group
 * its packed rows (4 n_in floats), 32-byte aligned. */
AVX2 void mlp_mm_nn_avx2(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B,
                         uint64_t ldb, const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
  uint32_t groups = rows / 4, m[MLP_BLOCK / 4], at[MLP_BLOCK / 4];
  float *pack = (float *)(void *)(idx + (((size_t)groups * n_in + 7) & ~(size_t)7));
  for (uint32_t g = 0; g < groups; g++) {
    m[g] = mlp_nonzero_cols(A + 4 * g * lda, lda, n_in, idx + (size_t)g * n_in);
    mlp_pack_group(A + 4 * g * lda, lda, idx + (size_t)g * n_in, m[g], pack + (size_t)g * 4 * n_in);
    at[g] = 0;
  }
  /* j in passes of MLP_NN_KC: a panel of B (MLP_NN_KC x 24) stays in L1
   * over the row groups; each output's chain goes on from pass to pass */
  for (uint32_t j0 = 0; j0 < n_in || j0 == 0; j0 += MLP_NN_KC) {
    uint32_t end[MLP_BLOCK / 4];
    for (uint32_t g = 0; g < groups; g++) {
      const uint32_t *ix = idx + (size_t)g * n_in;
      end[g] = at[g];
      while (end[g] < m[g] && ix[end[g]] < j0 + MLP_NN_KC)
        end[g]++;
    }
    for (uint32_t c = 0; c < cols; c += 24) /* three B vectors a j for four broadcasts */
      for (uint32_t g = 0; g < groups; g++)
        nn_tile_any_avx2(pack + (size_t)g * 4 * n_in + 4 * at[g], idx + (size_t)g * n_in + at[g], end[g] - at[g], B,
                         ldb, bias, j0 == 0, c, cols - c < 24 ? cols - c : 24, Z + 4 * g * ldz, ldz);
    for (uint32_t g = 0; g < groups; g++)
      at[g] = end[g];
  }
}

/* mlp_fix_add() on 4 lanes, into oh[0..3], ol[0..3]; a lane out of range
 * sets its bit in *bad instead (the caller then makes the push NaN). */
AVX2 static void fix_add4(const struct mlp_fix *f, __m256d x, double *oh, double *ol, __m256d *bad) {
  const __m256d magic = _mm256_set1_pd(0x1.8p52), sign = _mm256_set1_pd(-0.0);
  __m256d y = _mm256_mul_pd(x, _mm256_set1_pd(f->k_up));
  *bad = _mm256_or_pd(*bad, _mm256_cmp_pd(_mm256_andnot_pd(sign, y), _mm256_set1_pd(f->lim), _CMP_NLT_UQ));
  __m256d h = _mm256_sub_pd(_mm256_add_pd(y, magic), magic);
  __m256d l = _mm256_mul_pd(_mm256_sub_pd(y, h), _mm256_set1_pd(f->m_up));
  l = _mm256_sub_pd(_mm256_add_pd(l, magic), magic);
  _mm256_storeu_pd(oh, _mm256_add_pd(_mm256_loadu_pd(oh), h));
  _mm256_storeu_pd(ol, _mm256_add_pd(_mm256_loadu_pd(ol), l));
}

/* Four squares' pairs (lanes of x) into the chains h, l; out of range into far. */
AVX2 static inline void square4(const struct mlp_fix *f, __m256d x, __m256d *h, __m256d *l, __m256d *far) {
  const __m256d magic = _mm256_set1_pd(0x1.8p52);
  __m256d y = _mm256_mul_pd(_mm256_mul_pd(x, x), _mm256_set1_pd(f->k_up));
  *far = _mm256_or_pd(*far, _mm256_cmp_pd(y, _mm256_set1_pd(f->lim), _CMP_NLT_UQ));
  __m256d q = _mm256_sub_pd(_mm256_add_pd(y, magic), magic);
  __m256d r = _mm256_mul_pd(_mm256_sub_pd(y, q), _mm256_set1_pd(f->m_up));
  *h = _mm256_add_pd(*h, q);
  *l = _mm256_add_pd(*l, _mm256_sub_pd(_mm256_add_pd(r, magic), magic));
}

/* Stride 1 or 2, 8 values a pass in two chains (a stride-2 pass loads
 * 16 doubles, so it stops before reading past the last value); the rest
 * by the portable loop. The lanes' order differs from the portable
 * loop's: integer sums, the same bits. */
AVX2 bool mlp_fix_squares_avx2(const struct mlp_fix *f, const double *x, size_t stride, size_t n, double *oh,
                               double *ol) {
  __m256d h0 = _mm256_setzero_pd(), h1 = h0, l0 = h0, l1 = h0, far = h0;
  size_t i = 0;
  if (stride == 1)
    for (; i + 8 <= n; i += 8) {
      square4(f, _mm256_loadu_pd(x + i), &h0, &l0, &far);
      square4(f, _mm256_loadu_pd(x + i + 4), &h1, &l1, &far);
    }
  else
    for (; i + 9 <= n; i += 8) {   /* p[15] = x[2 i + 15] <= x[2 (n - 1)] */
      const double *p = x + 2 * i; /* values at p[0], p[2], ..., p[14] */
      square4(f, _mm256_unpacklo_pd(_mm256_loadu_pd(p), _mm256_loadu_pd(p + 4)), &h0, &l0, &far);
      square4(f, _mm256_unpacklo_pd(_mm256_loadu_pd(p + 8), _mm256_loadu_pd(p + 12)), &h1, &l1, &far);
    }
  double hs[4], ls[4], rest[2] = {0, 0};
  if (_mm256_movemask_pd(far) || !mlp_fix_squares_portable(f, x + i * stride, stride, n - i, &rest[0], &rest[1]))
    return false;
  _mm256_storeu_pd(hs, _mm256_add_pd(h0, h1));
  _mm256_storeu_pd(ls, _mm256_add_pd(l0, l1));
  *oh += ((hs[0] + hs[1]) + (hs[2] + hs[3])) + rest[0];
  *ol += ((ls[0] + ls[1]) + (ls[2] + ls[3])) + rest[1];
  return true;
}

/* fix_add4() on the 8 lanes of x (floats, exact as doubles), into oh[0..7], ol[0..7]. */
AVX2_INLINE void fix_add8f(const struct mlp_fix *f, __m256 x, double *oh, double *ol, __m256d *bad) {
  fix_add4(f, _mm256_cvtps_pd(_mm256_castps256_ps128(x)), oh, ol, bad);
  fix_add4(f, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), oh + 4, ol + 4, bad);
}

#define TN_W 16 /* columns of the AVX2 gradient tile, and of its panels of D */

/* The 4 x TN_W gradient tile over the listed s (A: its 4 columns, rows
 * lda apart; dp: the packed panel of D, TN_W a row), into oh and ol (rows
 * ldo apart) when `real` (the whole tile is in the output), else into t
 * (4 rows of TN_W). */
AVX2 static void tn_tile_avx2(const float *A, uint64_t lda, const float *dp, const uint32_t *idx, uint32_t m, bool real,
                              const struct mlp_fix *f, double *oh, double *ol, uint64_t ldo, __m256d *bad, float *t) {
  __m256 g0[4], g1[4];
  for (int r = 0; r < 4; r++)
    g0[r] = g1[r] = _mm256_setzero_ps();
  for (uint32_t q = 0; q < m; q++) {
    const float *a = A + idx[q] * lda, *d = dp + (size_t)idx[q] * TN_W;
    __m256 d0 = _mm256_load_ps(d), d1 = _mm256_load_ps(d + 8);
    for (int r = 0; r < 4; r++) {
      __m256 x = _mm256_broadcast_ss(a + r);
      g0[r] = _mm256_fmadd_ps(x, d0, g0[r]);
      g1[r] = _mm256_fmadd_ps(x, d1, g1[r]);
    }
  }
  for (int r = 0; r < 4; r++) {
    if (real) {
      fix_add8f(f, g0[r], oh + r * ldo, ol + r * ldo, bad);
      fix_add8f(f, g1[r], oh + r * ldo + 8, ol + r * ldo + 8, bad);
      continue;
    }
    _mm256_storeu_ps(t + r * TN_W, g0[r]);
    _mm256_storeu_ps(t + r * TN_W + 8, g1[r]);
  }
}

/* For every group of 4 columns j and block b, the rows s at which
 * A_b[s][j..j+3] is not all 0: list (jg, b) at idx + (jg * nb + b) * MLP_BLOCK,
 * its length at m[jg * nb + b] (MLP_BLOCK fits a byte). */
void mlp_list_rows(const struct mlp_blocks *bk, uint32_t n_j, uint8_t *m, uint32_t *idx) {
  for (uint32_t j = 0; j < n_j; j += 4)
    for (uint32_t b = 0; b < bk->n; b++) {
      size_t at = (size_t)(j / 4) * bk->n + b;
      m[at] = (uint8_t)mlp_nonzero_rows(bk->a + b * bk->a_step + j, bk->lda, bk->rows[b], idx + at * MLP_BLOCK);
    }
}

void mlp_pack_d(const struct mlp_blocks *bk, uint32_t ncp, uint32_t width, float *dp) {
  uint32_t n_panels = (ncp + width - 1) / width;
  for (uint32_t b = 0; b < bk->n; b++)
    for (uint32_t p = 0; p < n_panels; p++) {
      float *o = dp + ((size_t)b * n_panels + p) * MLP_BLOCK * width;
      const float *d = bk->d + b * bk->d_step + (size_t)width * p;
      uint32_t w = ncp - width * p < width ? ncp - width * p : width;
      for (uint32_t s = 0; s < bk->rows[b]; s++) {
        memcpy(o + (size_t)width * s, d + s * bk->ldd, sizeof(float) * w);
        memset(o + (size_t)width * s + w, 0, sizeof(float) * (width - w));
      }
    }
}

AVX2 void mlp_mm_tn_fix_avx2(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f,
                             double *oh, double *ol, uint64_t ldo, uint32_t *idx) {
  uint32_t ncp = mlp_pad4(n_c), n_panels = (ncp + TN_W - 1) / TN_W;
  uint8_t *m = (uint8_t *)(idx + (size_t)(n_j / 4 + 1) * bk->n * MLP_BLOCK);
  float t[4 * TN_W];
  __m256d bad = _mm256_setzero_pd();
  float *dp = aligned_alloc(64, sizeof(float) * bk->n * n_panels * MLP_BLOCK * TN_W);
  if (!dp) {
    mlp_mm_tn_fix_portable(bk, n_j, n_c, f, oh, ol, ldo, idx);
    return;
  }
  if (bk->store)
    mlp_zero_out(n_j, n_c, oh, ol, ldo);
  mlp_pack_d(bk, ncp, TN_W, dp); /* rows 64 bytes apart */
  mlp_list_rows(bk, n_j, m, idx);
  /* rows j..j+3 of the push are done in one pass, left to right (they
   * stream; a panel of a column across many rows would thrash L1 at the
   * rows' power-of-two stride), every block's share of a tile at once;
   * the blocks' packed D stays in L2 */
  for (uint32_t j = 0; j < n_j; j += 4)
    for (uint32_t c = 0; c < ncp; c += TN_W) {
      bool real = j + 4 <= n_j && c + TN_W <= n_c;
      uint64_t at = (uint64_t)j * ldo + c;
      for (uint32_t b = 0; b < bk->n; b++) {
        size_t l = (size_t)(j / 4) * bk->n + b;
        const float *d = dp + ((size_t)b * n_panels + c / TN_W) * MLP_BLOCK * TN_W;
        tn_tile_avx2(bk->a + b * bk->a_step + j, bk->lda, d, idx + l * MLP_BLOCK, m[l], real, f, oh + at, ol + at, ldo,
                     &bad, t);
        if (!real)
          mlp_add_tile(t, TN_W, j, c, n_j, n_c, f, false, oh, ol, ldo); /* lanes past ncp are past n_c */
      }
    }
  free(dp);
  if (_mm256_movemask_pd(bad))
    oh[0] = NAN; /* a block's gradient out of range: the job stops as diverged */
}

#endif
