/*
 * mlp_mm512.c - the MLP app's block products in AVX-512 (mlp_mm.h): the
 * forward product Z = A B + b and the gradient A^T D as fixed-point
 * pairs, the same bits as mlp_mm.c's portable and AVX2 kernels: every
 * output element is one chain of fused multiply-adds over the reduction
 * index, ascending, from the bias (or 0), one lane each; the same zero
 * groups skipped (4 rows of A in the forward product, 4 columns in the
 * gradient); the same rounding into pairs (mlp_fix_add's two operations).
 *
 * What is wider here: tiles of 4 rows x 64 columns (16 vector
 * accumulators of 16 floats, out of 32 registers), so a step loads 4
 * vectors of B and 4 broadcasts for 16 fused multiply-adds; and B's panel
 * of 64 x 64 is packed contiguous first (from the parameters' doubles,
 * rounded to floats on the way): the weights' rows are a power of two
 * apart (1 KiB for 256 units), and a panel read in place falls into a few
 * cache sets and thrashes L1.
 *
 * Any thread; the scratch at idx is the caller's (MLP_IDX, mlp_mm.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlp_mm.h"

#define NN_KC 64 /* j per pass of the forward product */
#define NN_W 64  /* columns of a panel of B (and of D): 4 vectors of 16 floats */

uint32_t mlp_pack_b_parts(uint32_t n_in, uint32_t cols) {
  return (n_in + NN_KC - 1) / NN_KC * ((cols + NN_W - 1) / NN_W);
}

size_t mlp_packed_b_floats(uint32_t n_in, uint32_t cols) {
  size_t passes = n_in ? (n_in + NN_KC - 1) / NN_KC : 1, panels = (cols + NN_W - 1) / NN_W;
  return passes * panels * NN_KC * NN_W;
}

/* Panel (pass p, columns from c) of B^T into its place: plain loops (the
 * layers above the first are narrow; a column of T is a row of B). */
void mlp_pack_bt(uint32_t n_in, uint32_t cols, const double *T, uint64_t ldt, float *Bp) {
  uint32_t panels = (cols + NN_W - 1) / NN_W;
  for (uint32_t j0 = 0, p = 0; j0 < n_in; j0 += NN_KC, p++)
    for (uint32_t c = 0; c < cols; c += NN_W) {
      float *o = Bp + ((size_t)p * panels + c / NN_W) * NN_KC * NN_W;
      uint32_t kc = n_in - j0 < NN_KC ? n_in - j0 : NN_KC;
      for (uint32_t q = 0; q < kc; q++)
        for (uint32_t k = 0; k < NN_W; k++)
          o[(size_t)q * NN_W + k] = c + k < cols ? (float)T[(uint64_t)(c + k) * ldt + j0 + q] : 0;
    }
}

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")))
#define AVX512_INLINE \
  __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"), always_inline)) static inline

static inline __mmask16 lane_mask(int v, int nv, __mmask16 last) { return v == nv - 1 ? last : (__mmask16)0xffff; }

/* The mask of the first n (<= 16) lanes. */
static inline __mmask16 first_lanes(uint32_t n) { return (__mmask16)(n >= 16 ? 0xffff : (1u << n) - 1); }

/* mlp_nonzero_cols() 16 j at a time: the same list (x != 0 as C's, NaN
 * included, -0 not), written by a compressing store. */
AVX512 static uint32_t nonzero_cols(const float *a, uint64_t lda, uint32_t n, uint32_t *idx) {
  const __m512 zero = _mm512_setzero_ps();
  const __m512i step = _mm512_set1_epi32(16);
  __m512i j16 = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  uint32_t m = 0, j = 0;
  for (; j + 16 <= n; j += 16) {
    __mmask16 k = _mm512_cmp_ps_mask(_mm512_loadu_ps(a + j), zero, _CMP_NEQ_UQ);
    k |= _mm512_cmp_ps_mask(_mm512_loadu_ps(a + lda + j), zero, _CMP_NEQ_UQ);
    k |= _mm512_cmp_ps_mask(_mm512_loadu_ps(a + 2 * lda + j), zero, _CMP_NEQ_UQ);
    k |= _mm512_cmp_ps_mask(_mm512_loadu_ps(a + 3 * lda + j), zero, _CMP_NEQ_UQ);
    _mm512_mask_compressstoreu_epi32(idx + m, k, j16);
    m += (uint32_t)__builtin_popcount(k);
    j16 = _mm512_add_epi32(j16, step);
  }
  for (; j < n; j++) {
    idx[m] = j;
    m += (a[j] != 0) | (a[lda + j] != 0) | (a[2 * lda + j] != 0) | (a[3 * lda + j] != 0);
  }
  return m;
}

/* Four rows x 16 nv columns of Z (from Z, rows ldz apart), over the listed
 * j (idx; ap: the 4 rows' values at them, packed 4 a j; bp: B's packed
 * panel, row j - j0 at bp + (j - j0) NN_W), each output's chain going on
 * from Z (or, with `first`, from the bias); `last`: the lanes of the last
 * vector that are real. */
AVX512_INLINE void nn_tile(const float *ap, const uint32_t *idx, uint32_t m, uint32_t j0, const float *bp, int nv,
                           __mmask16 last, const float *bias, bool first, float *Z, uint64_t ldz) {
  __m512 z[4][4];
  for (int r = 0; r < 4; r++)
    for (int v = 0; v < nv; v++) {
      __mmask16 k = lane_mask(v, nv, last);
      z[r][v] = first ? (bias ? _mm512_maskz_loadu_ps(k, bias + 16 * v) : _mm512_setzero_ps())
                      : _mm512_maskz_loadu_ps(k, Z + r * ldz + 16 * v);
    }
  for (uint32_t q = 0; q < m; q++) {
    const float *b = bp + (size_t)(idx[q] - j0) * NN_W, *a = ap + 4 * q;
    __m512 w[4];
    for (int v = 0; v < nv; v++)
      w[v] = _mm512_load_ps(b + 16 * v);
    for (int r = 0; r < 4; r++) {
      __m512 x = _mm512_set1_ps(a[r]);
      for (int v = 0; v < nv; v++)
        z[r][v] = _mm512_fmadd_ps(x, w[v], z[r][v]);
    }
  }
  for (int r = 0; r < 4; r++)
    for (int v = 0; v < nv; v++)
      _mm512_mask_storeu_ps(Z + r * ldz + 16 * v, lane_mask(v, nv, last), z[r][v]);
}

AVX512 static void nn_tile_any(const float *ap, const uint32_t *idx, uint32_t m, uint32_t j0, const float *bp,
                               uint32_t w, const float *bias, bool first, float *Z, uint64_t ldz) {
  int nv = (int)(w + 15) / 16;
  __mmask16 last = first_lanes(w % 16 ? w % 16 : 16);
  if (nv == 4)
    nn_tile(ap, idx, m, j0, bp, 4, last, bias, first, Z, ldz);
  else if (nv == 3)
    nn_tile(ap, idx, m, j0, bp, 3, last, bias, first, Z, ldz);
  else if (nv == 2)
    nn_tile(ap, idx, m, j0, bp, 2, last, bias, first, Z, ldz);
  else
    nn_tile(ap, idx, m, j0, bp, 1, last, bias, first, Z, ldz);
}

/* Rows [j0, j0 + kc) x columns [c, c + w) of B (floats: Bf, or doubles
 * rounded to floats: Bd) into bp, NN_W a row, zeros past w: vector moves
 * (a 256-byte memcpy pays a string move's start-up for each row). */
AVX512 static void pack_panel(const float *Bf, const double *Bd, uint64_t ldb, uint32_t j0, uint32_t kc, uint32_t c,
                              uint32_t w, float *bp) {
  for (uint32_t q = 0; q < kc; q++) {
    float *o = bp + (size_t)q * NN_W;
    if (Bf) {
      const float *b = Bf + (j0 + q) * ldb + c;
      for (uint32_t v = 0; v < NN_W / 16; v++)
        _mm512_store_ps(o + 16 * v, _mm512_maskz_loadu_ps(first_lanes(w > 16 * v ? w - 16 * v : 0), b + 16 * v));
      continue;
    }
    const double *b = Bd + (j0 + q) * ldb + c;
    for (uint32_t v = 0; v < NN_W / 8; v++) {
      __mmask8 k = (__mmask8)first_lanes(w > 8 * v ? (w - 8 * v < 8 ? w - 8 * v : 8) : 0);
      _mm256_store_ps(o + 8 * v, _mm512_cvtpd_ps(_mm512_maskz_loadu_pd(k, b + 8 * v)));
    }
  }
}

/* Part u is pass u / panels (NN_KC rows from j0), panel u % panels. */
AVX512 void mlp_pack_b_part(uint32_t n_in, uint32_t cols, const double *B, uint64_t ldb, float *Bp, uint32_t u) {
  uint32_t panels = (cols + NN_W - 1) / NN_W, p = u / panels, c = u % panels * NN_W, j0 = p * NN_KC;
  uint32_t kc = n_in - j0 < NN_KC ? n_in - j0 : NN_KC, w = cols - c < NN_W ? cols - c : NN_W;
  pack_panel(NULL, B, ldb, j0, kc, c, w, Bp + ((size_t)p * panels + c / NN_W) * NN_KC * NN_W);
}

void mlp_pack_b(uint32_t n_in, uint32_t cols, const double *B, uint64_t ldb, float *Bp) {
  for (uint32_t u = 0, n = mlp_pack_b_parts(n_in, cols); u < n; u++)
    mlp_pack_b_part(n_in, cols, B, ldb, Bp, u);
}

/* The forward product over B's panels: packed whole in Bp (mlp_pack_b),
 * or, with Bp NULL, each packed from B when its turn comes into the
 * scratch. The scratch at idx: per group its list (n_in entries), then
 * per group its packed rows (4 n_in floats), then a panel (min(n_in,
 * NN_KC) x NN_W floats), 64-byte aligned. */
AVX512 static void nn_panels(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B,
                             uint64_t ldb, const float *Bp, const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
  uint32_t groups = rows / 4, m[MLP_BLOCK / 4], at[MLP_BLOCK / 4], panels = (cols + NN_W - 1) / NN_W;
  float *pack = (float *)(void *)(idx + (((size_t)groups * n_in + 15) & ~(size_t)15));
  float *bp = pack + (((size_t)groups * 4 * n_in + 15) & ~(size_t)15);
  bp = (float *)(((uintptr_t)bp + 63) & ~(uintptr_t)63);
  for (uint32_t g = 0; g < groups; g++) {
    m[g] = nonzero_cols(A + 4 * g * lda, lda, n_in, idx + (size_t)g * n_in);
    mlp_pack_group(A + 4 * g * lda, lda, idx + (size_t)g * n_in, m[g], pack + (size_t)g * 4 * n_in);
    at[g] = 0;
  }
  /* j in passes of NN_KC, columns in panels of NN_W: the packed panel
   * (16 KiB) stays in L1 over the row groups; each output's chain goes on
   * from pass to pass */
  for (uint32_t j0 = 0, p = 0; j0 < n_in || j0 == 0; j0 += NN_KC, p++) {
    uint32_t kc = n_in - j0 < NN_KC ? n_in - j0 : NN_KC, end[MLP_BLOCK / 4];
    for (uint32_t g = 0; g < groups; g++) {
      const uint32_t *ix = idx + (size_t)g * n_in;
      end[g] = at[g];
      while (end[g] < m[g] && ix[end[g]] < j0 + NN_KC)
        end[g]++;
    }
    for (uint32_t c = 0; c < cols; c += NN_W) {
      uint32_t w = cols - c < NN_W ? cols - c : NN_W;
      const float *panel = Bp ? Bp + ((size_t)p * panels + c / NN_W) * NN_KC * NN_W : bp;
      if (!Bp)
        pack_panel(B, NULL, ldb, j0, kc, c, w, bp);
      for (uint32_t g = 0; g < groups; g++)
        nn_tile_any(pack + (size_t)g * 4 * n_in + 4 * at[g], idx + (size_t)g * n_in + at[g], end[g] - at[g], j0, panel,
                    w, bias ? bias + c : NULL, j0 == 0, Z + 4 * g * ldz + c, ldz);
    }
    for (uint32_t g = 0; g < groups; g++)
      at[g] = end[g];
  }
}

void mlp_mm_nn_avx512(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B,
                      uint64_t ldb, const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
  nn_panels(rows, n_in, cols, A, lda, B, ldb, NULL, bias, Z, ldz, idx);
}

void mlp_mm_nn_avx512_packed(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *Bp,
                             const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
  nn_panels(rows, n_in, cols, A, lda, NULL, 0, Bp, bias, Z, ldz, idx);
}

/* mlp_fix_add()'s two roundings on the 8 doubles of x (floats widened)
 * in k, into oh[..], ol[..] (store: written over them, the same as into
 * zeros: h and l are never -0). Fused: x 2^K is exact, so fma(x, 2^K,
 * magic) rounds once as (x 2^K) + magic does, and fms(x, 2^K, h) is the
 * exact y - h. */
AVX512_INLINE void fix_add8(const struct mlp_fix *f, __m512d x, __mmask8 k, bool store, double *oh, double *ol) {
  const __m512d magic = _mm512_set1_pd(0x1.8p52), kup = _mm512_set1_pd(f->k_up);
  __m512d h = _mm512_sub_pd(_mm512_fmadd_pd(x, kup, magic), magic);
  __m512d r = _mm512_fmsub_pd(x, kup, h);
  __m512d l = _mm512_sub_pd(_mm512_fmadd_pd(r, _mm512_set1_pd(f->m_up), magic), magic);
  if (store) {
    _mm512_mask_storeu_pd(oh, k, h);
    _mm512_mask_storeu_pd(ol, k, l);
    return;
  }
  _mm512_mask_storeu_pd(oh, k, _mm512_add_pd(_mm512_maskz_loadu_pd(k, oh), h));
  _mm512_mask_storeu_pd(ol, k, _mm512_add_pd(_mm512_maskz_loadu_pd(k, ol), l));
}

/* fix_add8() on the 16 lanes of x (floats, exact as doubles) in k; a lane
 * out of range (|x 2^K| >= lim, that is |x| >= lim 2^-K, both powers of
 * two: the test is exact in float; NaN too) sets its bit in *bad instead
 * (the caller then makes the push NaN). */
AVX512_INLINE void fix_add16(const struct mlp_fix *f, __m512 x, __mmask16 k, bool store, double *oh, double *ol,
                             __mmask16 *bad) {
  *bad |= _mm512_mask_cmp_ps_mask(k, _mm512_abs_ps(x), _mm512_set1_ps((float)(f->lim * f->hi_val)), _CMP_NLT_UQ);
  fix_add8(f, _mm512_cvtps_pd(_mm512_castps512_ps256(x)), (__mmask8)k, store, oh, ol);
  if (k >> 8)
    fix_add8(f, _mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1)), (__mmask8)(k >> 8), store, oh + 8, ol + 8);
}

/* The 4 x 16 nv gradient tile over the listed s (A: its 4 columns, rows
 * lda apart; dp: the packed panel of D, NN_W a row), into oh and ol (rows
 * ldo apart; store: written over) when `real`, else into t (4 rows of NN_W). */
AVX512_INLINE void tn_tile(const float *A, uint64_t lda, const float *dp, const uint32_t *idx, uint32_t m, int nv,
                           __mmask16 last, bool real, bool store, const struct mlp_fix *f, double *oh, double *ol,
                           uint64_t ldo, __mmask16 *bad, float *t) {
  __m512 g[4][4];
  for (int r = 0; r < 4; r++)
    for (int v = 0; v < nv; v++)
      g[r][v] = _mm512_setzero_ps();
  for (uint32_t q = 0; q < m; q++) {
    const float *a = A + idx[q] * lda, *d = dp + (size_t)idx[q] * NN_W;
    __m512 w[4];
    for (int v = 0; v < nv; v++)
      w[v] = _mm512_load_ps(d + 16 * v);
    for (int r = 0; r < 4; r++) {
      __m512 x = _mm512_set1_ps(a[r]);
      for (int v = 0; v < nv; v++)
        g[r][v] = _mm512_fmadd_ps(x, w[v], g[r][v]);
    }
  }
  for (int r = 0; r < 4; r++)
    for (int v = 0; v < nv; v++)
      if (real)
        fix_add16(f, g[r][v], lane_mask(v, nv, last), store, oh + r * ldo + 16 * v, ol + r * ldo + 16 * v, bad);
      else
        _mm512_storeu_ps(t + r * NN_W + 16 * v, g[r][v]);
}

AVX512 static void tn_tile_any(const float *A, uint64_t lda, const float *dp, const uint32_t *idx, uint32_t m,
                               uint32_t w, bool real, bool store, const struct mlp_fix *f, double *oh, double *ol,
                               uint64_t ldo, __mmask16 *bad, float *t) {
  int nv = (int)(w + 15) / 16;
  __mmask16 last = first_lanes(w % 16 ? w % 16 : 16);
  if (nv == 4)
    tn_tile(A, lda, dp, idx, m, 4, last, real, store, f, oh, ol, ldo, bad, t);
  else if (nv == 3)
    tn_tile(A, lda, dp, idx, m, 3, last, real, store, f, oh, ol, ldo, bad, t);
  else if (nv == 2)
    tn_tile(A, lda, dp, idx, m, 2, last, real, store, f, oh, ol, ldo, bad, t);
  else
    tn_tile(A, lda, dp, idx, m, 1, last, real, store, f, oh, ol, ldo, bad, t);
}

/* mlp_list_rows()'s lists (the same: rows ascending in each), made row
 * by row (each read once, in order, where a list a group reads a column
 * of 64 rows 3 KiB apart): a group of 4 is in when one is != 0 as C's. */
AVX512 static void list_rows(const struct mlp_blocks *bk, uint32_t n_j, uint8_t *m, uint32_t *idx) {
  const __m128 zero = _mm_setzero_ps();
  uint32_t nb = bk->n;
  memset(m, 0, (size_t)(n_j + 3) / 4 * nb);
  for (uint32_t b = 0; b < nb; b++)
    for (uint32_t s = 0; s < bk->rows[b]; s++) {
      const float *p = bk->a + b * bk->a_step + s * bk->lda;
      for (uint32_t j = 0; j < n_j; j += 4) {
        size_t at = (size_t)(j / 4) * nb + b;
        idx[at * MLP_BLOCK + m[at]] = s;
        m[at] += _mm_cmp_ps_mask(_mm_loadu_ps(p + j), zero, _CMP_NEQ_UQ) != 0;
      }
    }
}

AVX512 void mlp_mm_tn_fix_avx512(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f,
                                 double *oh, double *ol, uint64_t ldo, uint32_t *idx) {
  uint32_t ncp = mlp_pad4(n_c), n_panels = (ncp + NN_W - 1) / NN_W;
  uint8_t *m = (uint8_t *)(idx + (size_t)(n_j / 4 + 1) * bk->n * MLP_BLOCK);
  float t[4 * NN_W];
  __mmask16 bad = 0;
  float *dp = aligned_alloc(64, sizeof(float) * bk->n * n_panels * MLP_BLOCK * NN_W);
  if (!dp) {
    mlp_mm_tn_fix_portable(bk, n_j, n_c, f, oh, ol, ldo, idx);
    return;
  }
  mlp_pack_d(bk, ncp, NN_W, dp); /* rows 256 bytes apart */
  list_rows(bk, n_j, m, idx);
  /* rows j..j+3 of the push in one pass, left to right, every block's
   * share of a tile at once; the blocks' packed D stays in L2 */
  for (uint32_t j = 0; j < n_j; j += 4)
    for (uint32_t c = 0; c < ncp; c += NN_W) {
      uint32_t w = ncp - c < NN_W ? ncp - c : NN_W;
      bool real = j + 4 <= n_j && c + w <= n_c;
      uint64_t at = (uint64_t)j * ldo + c;
      for (uint32_t b = 0; b < bk->n; b++) {
        size_t l = (size_t)(j / 4) * bk->n + b;
        const float *d = dp + ((size_t)b * n_panels + c / NN_W) * MLP_BLOCK * NN_W;
        bool store = bk->store && b == 0; /* the tile's first share: no zeroing before */
        tn_tile_any(bk->a + b * bk->a_step + j, bk->lda, d, idx + l * MLP_BLOCK, m[l], w, real, store, f, oh + at,
                    ol + at, ldo, &bad, t);
        if (!real)
          mlp_add_tile(t, NN_W, j, c, n_j, n_c, f, store, oh, ol, ldo); /* lanes past w are past n_c */
      }
    }
  free(dp);
  if (bad)
    oh[0] = NAN; /* a block's gradient out of range: the job stops as diverged */
}
#else /* no AVX-512 kernels: mlp_mm_takes_packed() is false, these are never called */
void mlp_pack_b(uint32_t n_in, uint32_t cols, const double *B, uint64_t ldb, float *Bp) {
  (void)n_in, (void)cols, (void)B, (void)ldb, (void)Bp;
}
void mlp_pack_b_part(uint32_t n_in, uint32_t cols, const double *B, uint64_t ldb, float *Bp, uint32_t u) {
  (void)n_in, (void)cols, (void)B, (void)ldb, (void)Bp, (void)u;
}
void mlp_mm_nn_avx512_packed(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *Bp,
                             const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
  (void)rows, (void)n_in, (void)cols, (void)A, (void)lda, (void)Bp, (void)bias, (void)Z, (void)ldz, (void)idx;
}
#endif
