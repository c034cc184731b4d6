/*
 * mlp_mm.c - the dense block products of the MLP app (mlp.h): a layer's
 * forward product Z = A B + b (and the backward D W^T, the same form),
 * and a layer's weight gradient A^T D added exactly into a task's push.
 *
 * Two implementations give the same bits, so a model does not depend on
 * which machine of a cluster ran a block: AVX2 with fused multiply-adds
 * (chosen at run time when the CPU has them) and a portable one calling
 * C's fma() in the same order. The order of every output element is a
 * single chain of fused multiply-adds over the reduction index, ascending,
 * from the bias (or 0); the vector kernel computes 4 x 8 outputs at once,
 * one lane each, which is the same chain. Indices at which a whole group
 * of 4 rows (nn) or 4 columns (tn) of A is 0 are skipped by both (ReLU
 * outputs and images are about half zeros), the same groups in both.
 * A gradient's blocks leave as fixed-point pairs (struct mlp_fix), which
 * both round the same way.
 */
#include <math.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define MLP_HAVE_AVX2_KERNEL 1
#endif

#include "mlp.h"

/* j < n at which one of A's 4 rows from `a` (lda apart) is not 0, into idx; their count. */
static uint32_t nonzero_cols(const double *a, uint64_t lda, uint32_t n, uint32_t *idx) {
  uint32_t m = 0;
  for (uint32_t j = 0; j < n; j++) {
    idx[m] = j;
    m += (a[j] != 0) | (a[lda + j] != 0) | (a[2 * lda + j] != 0) | (a[3 * lda + j] != 0);
  }
  return m;
}

/* s < rows at which A[s][j..j+3] (from `a`) is not all 0, into idx; their count. */
static uint32_t nonzero_rows(const double *a, uint64_t lda, uint32_t rows, uint32_t *idx) {
  uint32_t m = 0;
  for (uint32_t s = 0; s < rows; s++) {
    const double *p = a + s * lda;
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
                          .lim = ldexp(1, 52 - lg),
                          .hi_val = ldexp(1, -k),
                          .lo_val = ldexp(1, -k - m)};
}

/* nearbyint() rounds to nearest, ties to even (the default mode, which
 * dsana never changes), as the vector kernel's _mm256_round_pd; the
 * products by powers of two, y - h and the sums of integers are exact. */
void mlp_fix_add(const struct mlp_fix *f, double x, double *o) {
  double y = x * f->k_up, h = nearbyint(y), l = nearbyint((y - h) * f->m_up);
  o[0] = fabs(h) < f->lim ? o[0] + h : NAN;
  o[1] += l;
}

/* The 4 x w tile at (j, c) of a gradient, into out where it is real. */
static void add_tile(const double *t, uint32_t w, uint32_t j, uint32_t c, uint32_t n_j, uint32_t n_c,
                     const struct mlp_fix *f, double *out, uint64_t ldo) {
  for (uint32_t r = 0; r < 4 && j + r < n_j; r++)
    for (uint32_t k = 0; k < w && c + k < n_c; k++)
      mlp_fix_add(f, t[r * w + k], out + 2 * ((uint64_t)(j + r) * ldo + c + k));
}

void mlp_mm_nn_portable(uint32_t rows, uint32_t n_in, uint32_t cols, const double *A, uint64_t lda, const double *B,
                        uint64_t ldb, const double *bias, double *Z, uint64_t ldz, uint32_t *idx) {
  for (uint32_t s0 = 0; s0 < rows; s0 += 4) {
    uint32_t m = nonzero_cols(A + s0 * lda, lda, n_in, idx);
    for (uint32_t r = 0; r < 4; r++)
      for (uint32_t c = 0; c < cols; c++) {
        double z = bias ? bias[c] : 0;
        for (uint32_t q = 0; q < m; q++)
          z = fma(A[(s0 + r) * lda + idx[q]], B[idx[q] * ldb + c], z);
        Z[(s0 + r) * ldz + c] = z;
      }
  }
}

void mlp_mm_tn_fix_portable(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f,
                            double *out, uint64_t ldo, uint32_t *idx) {
  uint32_t ncp = mlp_pad4(n_c), m[MLP_MAX_BLOCKS];
  for (uint32_t j = 0; j < n_j; j += 4) {
    for (uint32_t b = 0; b < bk->n; b++)
      m[b] = nonzero_rows(bk->a + b * bk->a_step + j, bk->lda, bk->rows[b], idx + b * MLP_BLOCK);
    for (uint32_t c = 0; c < ncp; c += 4)
      for (uint32_t b = 0; b < bk->n; b++) {
        const double *A = bk->a + b * bk->a_step, *D = bk->d + b * bk->d_step;
        const uint32_t *ix = idx + b * MLP_BLOCK;
        double t[16];
        for (uint32_t r = 0; r < 4; r++)
          for (uint32_t k = 0; k < 4; k++) {
            double g = 0;
            for (uint32_t q = 0; q < m[b]; q++)
              g = fma(A[ix[q] * bk->lda + j + r], D[ix[q] * bk->ldd + c + k], g);
            t[r * 4 + k] = g;
          }
        add_tile(t, 4, j, c, n_j, n_c, f, out, ldo);
      }
  }
}

#ifdef MLP_HAVE_AVX2_KERNEL
#define AVX2 __attribute__((target("avx2,fma")))
#define MLP_TN_J 64 /* columns of A per strip of the gradient product */

/* Four rows x 4 or 8 columns of Z at (s0, c), over the listed j. */
AVX2 static void nn_tile(const double *A, uint64_t lda, const double *B, uint64_t ldb, const uint32_t *idx, uint32_t m,
                         const double *bias, uint32_t c, bool wide, double *Z, uint64_t ldz) {
  __m256d z0[4], z1[4];
  __m256d b0 = bias ? _mm256_loadu_pd(bias + c) : _mm256_setzero_pd();
  __m256d b1 = bias && wide ? _mm256_loadu_pd(bias + c + 4) : _mm256_setzero_pd();
  for (int r = 0; r < 4; r++)
    z0[r] = b0, z1[r] = b1;
  const double *a0 = A, *a1 = A + lda, *a2 = A + 2 * lda, *a3 = A + 3 * lda;
  if (wide) {
    for (uint32_t q = 0; q < m; q++) {
      uint32_t j = idx[q];
      __m256d w0 = _mm256_loadu_pd(B + j * ldb + c), w1 = _mm256_loadu_pd(B + j * ldb + c + 4);
      __m256d x0 = _mm256_broadcast_sd(a0 + j), x1 = _mm256_broadcast_sd(a1 + j);
      __m256d x2 = _mm256_broadcast_sd(a2 + j), x3 = _mm256_broadcast_sd(a3 + j);
      z0[0] = _mm256_fmadd_pd(x0, w0, z0[0]), z1[0] = _mm256_fmadd_pd(x0, w1, z1[0]);
      z0[1] = _mm256_fmadd_pd(x1, w0, z0[1]), z1[1] = _mm256_fmadd_pd(x1, w1, z1[1]);
      z0[2] = _mm256_fmadd_pd(x2, w0, z0[2]), z1[2] = _mm256_fmadd_pd(x2, w1, z1[2]);
      z0[3] = _mm256_fmadd_pd(x3, w0, z0[3]), z1[3] = _mm256_fmadd_pd(x3, w1, z1[3]);
    }
  } else {
    for (uint32_t q = 0; q < m; q++) {
      uint32_t j = idx[q];
      __m256d w0 = _mm256_loadu_pd(B + j * ldb + c);
      z0[0] = _mm256_fmadd_pd(_mm256_broadcast_sd(a0 + j), w0, z0[0]);
      z0[1] = _mm256_fmadd_pd(_mm256_broadcast_sd(a1 + j), w0, z0[1]);
      z0[2] = _mm256_fmadd_pd(_mm256_broadcast_sd(a2 + j), w0, z0[2]);
      z0[3] = _mm256_fmadd_pd(_mm256_broadcast_sd(a3 + j), w0, z0[3]);
    }
  }
  for (int r = 0; r < 4; r++) {
    _mm256_storeu_pd(Z + r * ldz + c, z0[r]);
    if (wide)
      _mm256_storeu_pd(Z + r * ldz + c + 4, z1[r]);
  }
}

AVX2 static void mm_nn_avx2(uint32_t rows, uint32_t n_in, uint32_t cols, const double *A, uint64_t lda, const double *B,
                            uint64_t ldb, const double *bias, double *Z, uint64_t ldz, uint32_t *idx) {
  uint32_t groups = rows / 4, m[MLP_BLOCK / 4];
  for (uint32_t g = 0; g < groups; g++)
    m[g] = nonzero_cols(A + 4 * g * lda, lda, n_in, idx + (size_t)g * n_in);
  for (uint32_t c = 0; c < cols; c += 8) /* a panel of B stays in cache over the row groups */
    for (uint32_t g = 0; g < groups; g++)
      nn_tile(A + 4 * g * lda, lda, B, ldb, idx + (size_t)g * n_in, m[g], bias, c, c + 8 <= cols, Z + 4 * g * ldz, ldz);
}

/* The 4 x 4 or 4 x 8 gradient tile at (j, c) over the listed s, into t. */
AVX2 static void tn_tile(const double *A, uint64_t lda, const double *D, uint64_t ldd, const uint32_t *idx, uint32_t m,
                         uint32_t c, bool wide, double *t) {
  __m256d g0[4], g1[4];
  for (int r = 0; r < 4; r++)
    g0[r] = g1[r] = _mm256_setzero_pd();
  for (uint32_t q = 0; q < m; q++) {
    const double *a = A + idx[q] * lda, *d = D + idx[q] * ldd + c;
    __m256d d0 = _mm256_loadu_pd(d), d1 = wide ? _mm256_loadu_pd(d + 4) : d0;
    for (int r = 0; r < 4; r++) {
      __m256d x = _mm256_broadcast_sd(a + r);
      g0[r] = _mm256_fmadd_pd(x, d0, g0[r]);
      if (wide)
        g1[r] = _mm256_fmadd_pd(x, d1, g1[r]);
    }
  }
  uint32_t w = wide ? 8 : 4;
  for (int r = 0; r < 4; r++) {
    _mm256_storeu_pd(t + r * w, g0[r]);
    if (wide)
      _mm256_storeu_pd(t + r * w + 4, g1[r]);
  }
}

/* mlp_fix_add() on 4 lanes: x's pairs into the 4 pairs at o, computed in
 * the lane order 0 2 1 3 that de-interleaving o's pairs gives. */
AVX2 static void fix_add4(const struct mlp_fix *f, __m256d x, double *o) {
  const int near = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  const __m256d sign = _mm256_set1_pd(-0.0);
  __m256d y = _mm256_mul_pd(_mm256_permute4x64_pd(x, 0xd8), _mm256_set1_pd(f->k_up));
  __m256d h = _mm256_round_pd(y, near);
  __m256d l = _mm256_round_pd(_mm256_mul_pd(_mm256_sub_pd(y, h), _mm256_set1_pd(f->m_up)), near);
  __m256d bad = _mm256_cmp_pd(_mm256_andnot_pd(sign, h), _mm256_set1_pd(f->lim), _CMP_NLT_UQ);
  __m256d o0 = _mm256_loadu_pd(o), o1 = _mm256_loadu_pd(o + 4); /* h0 l0 h1 l1 | h2 l2 h3 l3 */
  __m256d hs = _mm256_add_pd(h, _mm256_unpacklo_pd(o0, o1));    /* h0 h2 h1 h3 */
  __m256d ls = _mm256_add_pd(l, _mm256_unpackhi_pd(o0, o1));
  hs = _mm256_blendv_pd(hs, _mm256_set1_pd(NAN), bad);
  _mm256_storeu_pd(o, _mm256_unpacklo_pd(hs, ls));
  _mm256_storeu_pd(o + 4, _mm256_unpackhi_pd(hs, ls));
}

/* The 4 x w tile t at (j, c) of a gradient into out: whole vectors where
 * the tile is real throughout, else add_tile(). */
AVX2 static void add_tile_avx2(const double *t, uint32_t w, uint32_t j, uint32_t c, uint32_t n_j, uint32_t n_c,
                               const struct mlp_fix *f, double *out, uint64_t ldo) {
  if (j + 4 > n_j || c + w > n_c) {
    add_tile(t, w, j, c, n_j, n_c, f, out, ldo);
    return;
  }
  for (uint32_t r = 0; r < 4; r++)
    for (uint32_t k = 0; k < w; k += 4)
      fix_add4(f, _mm256_loadu_pd(t + r * w + k), out + 2 * ((uint64_t)(j + r) * ldo + c + k));
}

/* For every group of 4 columns j and block b, the rows s at which
 * A_b[s][j..j+3] is not all 0: list (jg, b) at idx + (jg * nb + b) * MLP_BLOCK,
 * its length at m[jg * nb + b] (MLP_BLOCK fits a byte). */
static void list_rows(const struct mlp_blocks *bk, uint32_t n_j, uint8_t *m, uint32_t *idx) {
  for (uint32_t j = 0; j < n_j; j += 4)
    for (uint32_t b = 0; b < bk->n; b++) {
      size_t at = (size_t)(j / 4) * bk->n + b;
      m[at] = (uint8_t)nonzero_rows(bk->a + b * bk->a_step + j, bk->lda, bk->rows[b], idx + at * MLP_BLOCK);
    }
}

AVX2 static void mm_tn_fix_avx2(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f,
                                double *out, uint64_t ldo, uint32_t *idx) {
  uint32_t ncp = mlp_pad4(n_c);
  uint8_t *m = (uint8_t *)(idx + (size_t)(n_j / 4 + 1) * bk->n * MLP_BLOCK);
  double t[32];
  list_rows(bk, n_j, m, idx);
  /* a strip of MLP_TN_J columns of every block's A stays in L2 over the
   * panels of D, a panel of 8 columns of every block's D in L1 over the
   * strip, and a tile of out in L1 over the blocks */
  for (uint32_t j0 = 0; j0 < n_j; j0 += MLP_TN_J)
    for (uint32_t c = 0; c < ncp; c += 8) {
      bool wide = c + 8 <= ncp;
      for (uint32_t j = j0; j < n_j && j < j0 + MLP_TN_J; j += 4)
        for (uint32_t b = 0; b < bk->n; b++) {
          size_t at = (size_t)(j / 4) * bk->n + b;
          tn_tile(bk->a + b * bk->a_step + j, bk->lda, bk->d + b * bk->d_step, bk->ldd, idx + at * MLP_BLOCK, m[at], c,
                  wide, t);
          add_tile_avx2(t, wide ? 8 : 4, j, c, n_j, n_c, f, out, ldo);
        }
    }
}

bool mlp_mm_simd(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

void mlp_mm_nn(uint32_t rows, uint32_t n_in, uint32_t cols, const double *A, uint64_t lda, const double *B,
               uint64_t ldb, const double *bias, double *Z, uint64_t ldz, uint32_t *idx) {
  if (mlp_mm_simd())
    mm_nn_avx2(rows, n_in, cols, A, lda, B, ldb, bias, Z, ldz, idx);
  else
    mlp_mm_nn_portable(rows, n_in, cols, A, lda, B, ldb, bias, Z, ldz, idx);
}

void mlp_mm_tn_fix(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f, double *out,
                   uint64_t ldo, uint32_t *idx) {
  if (mlp_mm_simd())
    mm_tn_fix_avx2(bk, n_j, n_c, f, out, ldo, idx);
  else
    mlp_mm_tn_fix_portable(bk, n_j, n_c, f, out, ldo, idx);
}
#else
bool mlp_mm_simd(void) { return false; }

void mlp_mm_nn(uint32_t rows, uint32_t n_in, uint32_t cols, const double *A, uint64_t lda, const double *B,
               uint64_t ldb, const double *bias, double *Z, uint64_t ldz, uint32_t *idx) {
  mlp_mm_nn_portable(rows, n_in, cols, A, lda, B, ldb, bias, Z, ldz, idx);
}

void mlp_mm_tn_fix(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f, double *out,
                   uint64_t ldo, uint32_t *idx) {
  mlp_mm_tn_fix_portable(bk, n_j, n_c, f, out, ldo, idx);
}
#endif
