/*
 * mlp_mm.h - the MLP app's dense block products, private to its files:
 * the block size, the fixed-point pairs a block's gradient leaves as
 * (struct mlp_fix), the blocks of a gradient (struct mlp_blocks), the
 * products and their kernels (mlp_mm.c: portable, AVX2, and the helpers
 * the kernels share; mlp_mm512.c: AVX-512; mlp_mm_pick.c: which runs).
 * mlp.h includes it; the kernels' files include only this.
 */
#ifndef DSANA_APPS_MLP_MM_H
#define DSANA_APPS_MLP_MM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apps/common/cpu.h"

#define MLP_BLOCK 64      /* batch positions per exact partial sum */
#define MLP_MAX_BLOCKS 64 /* blocks of one task at most */

/*
 * A block's gradient x enters a task's push as two integers:
 *   h = round(x 2^K),  l = round((x 2^K - h) 2^M)      (to nearest, even)
 * With n_blocks <= 2^lg blocks a batch, K = 32 - lg and M = 52 - lg, every
 * sum of them stays below 2^51: exact in doubles in any order, so a task's
 * push adds them plainly (vectors too) and the servers sum them as ISUM
 * tables. x = (h + l 2^-M) 2^-K within 2^-(K+M+1) (2^-79 for a batch of
 * 256, finer than a double's rounding of most gradients); |x| must stay
 * below 2^19 (a block of 64 rows' gradient): beyond, or NaN, the push
 * gets a NaN and the job stops as diverged.
 */
struct mlp_fix {
  double k_up, m_up; /* 2^K, 2^M */
  double lim;        /* |x 2^K| < lim = 2^(51 - lg) */
  double hi_val;     /* 2^-K: the value of a unit of h */
  double lo_val;     /* 2^-(K + M): of l */
};

/* Row-major floats (a task's network in single precision: mlp.h); every
 * implementation gives the same bits. */
/* Z[s][c] = (bias ? bias[c] : 0) + sum over j < n_in, ascending, of
 * A[s][j] B[j][c] (one fused multiply-add each, in float), for s < rows
 * (a multiple of 4) and c < cols (a multiple of 4). For each group of 4
 * rows, a j at which all 4 rows of A are 0 is skipped. */
void mlp_mm_nn(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B, uint64_t ldb,
               const float *bias, float *Z, uint64_t ldz, uint32_t *idx);
/* Blocks of rows for a gradient: block b's A at a + b * a_step (rows[b]
 * rows, lda apart), its D at d + b * d_step (ldd apart). */
struct mlp_blocks {
  uint32_t n, rows[MLP_MAX_BLOCKS];
  bool store; /* the first block's pairs written over oh, ol, not added: the
               * same values as added into zeros, without zeroing first */
  const float *a, *d;
  uint64_t a_step, d_step, lda, ldd;
};
/* For each block, G[j][c] = sum over its s < rows[b], ascending, of
 * A[s][j] D[s][c] (fused multiply-adds in float from 0; for each group of
 * 4 j, an s at which A[s][j..j+3] are all 0 is skipped), added as fixed-point pairs
 * (mlp_fix_add) into oh, ol [j * ldo + c] (bk->store: the first block's
 * written over them) for j < n_j, c < n_c; A has a
 * multiple of 4 columns >= n_j, D a multiple of 4 >= n_c. A tile of out
 * takes every block's share before the next tile (it stays in cache).
 * Both products take idx, scratch of MLP_IDX(n) entries (lists of indices,
 * and the forward product's packed rows), n the widest
 * n_in; rows <= MLP_BLOCK. */
void mlp_mm_tn_fix(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f, double *oh,
                   double *ol, uint64_t ldo, uint32_t *idx);
#define MLP_IDX(n) (((size_t)(n) / 4 + 1) * MLP_MAX_BLOCKS * (MLP_BLOCK + 1))
/* The products and the squares by the kernels of `level` (at most
 * app_cpu_detect()'s; mlp_mm_nn and the others take app_cpu_level()'s):
 * the same bits at every level. For tests and benchmarks. */
void mlp_mm_nn_at(enum app_cpu level, uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda,
                  const float *B, uint64_t ldb, const float *bias, float *Z, uint64_t ldz, uint32_t *idx);
void mlp_mm_tn_fix_at(enum app_cpu level, const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c,
                      const struct mlp_fix *f, double *oh, double *ol, uint64_t ldo, uint32_t *idx);
bool mlp_fix_squares_at(enum app_cpu level, const struct mlp_fix *f, const double *x, size_t stride, size_t n,
                        double *oh, double *ol);
/* The kernels themselves (mlp_mm.c: portable, AVX2; mlp_mm512.c: AVX-512),
 * and the helpers they share (mlp_mm.c). */
void mlp_mm_nn_avx2(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B,
                    uint64_t ldb, const float *bias, float *Z, uint64_t ldz, uint32_t *idx);
void mlp_mm_tn_fix_avx2(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f, double *oh,
                        double *ol, uint64_t ldo, uint32_t *idx);
bool mlp_fix_squares_avx2(const struct mlp_fix *f, const double *x, size_t stride, size_t n, double *oh, double *ol);
void mlp_mm_nn_avx512(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B,
                      uint64_t ldb, const float *bias, float *Z, uint64_t ldz, uint32_t *idx);
void mlp_mm_tn_fix_avx512(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f, double *oh,
                          double *ol, uint64_t ldo, uint32_t *idx);
/* B (n_in x cols doubles, ldb apart: the parameters themselves) rounded
 * to floats in the AVX-512 forward product's panels, into Bp
 * (mlp_packed_b_floats() of them, 64-byte aligned; zeros past cols up to
 * the panel's width), so that a view packs its weights once for all its
 * blocks; whether the kernels of this process take such a B; the product
 * with it (the same bits as mlp_mm_nn with B rounded to floats, for any
 * cols' up to mlp_pad4(cols)). */
size_t mlp_packed_b_floats(uint32_t n_in, uint32_t cols);
void mlp_pack_b(uint32_t n_in, uint32_t cols, const double *B, uint64_t ldb, float *Bp);
/* The same of B^T, B given as its transpose T (cols x n_in doubles, ldt apart). */
void mlp_pack_bt(uint32_t n_in, uint32_t cols, const double *T, uint64_t ldt, float *Bp);
/* mlp_pack_b in parts that threads can share: the parts' count (panels of
 * 64 x 64 values), and part u (< that count) into its place in Bp. */
uint32_t mlp_pack_b_parts(uint32_t n_in, uint32_t cols);
void mlp_pack_b_part(uint32_t n_in, uint32_t cols, const double *B, uint64_t ldb, float *Bp, uint32_t u);
bool mlp_mm_takes_packed(void);
void mlp_mm_nn_packed(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *Bp,
                      const float *bias, float *Z, uint64_t ldz, uint32_t *idx);
void mlp_mm_nn_avx512_packed(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *Bp,
                             const float *bias, float *Z, uint64_t ldz, uint32_t *idx);
/* j < n at which one of A's 4 rows from `a` (lda apart) is not 0, into idx; their count. */
uint32_t mlp_nonzero_cols(const float *a, uint64_t lda, uint32_t n, uint32_t *idx);
/* s < rows at which A[s][j..j+3] (from `a`) is not all 0, into idx; their count. */
uint32_t mlp_nonzero_rows(const float *a, uint64_t lda, uint32_t rows, uint32_t *idx);
/* The listed j (m of them at idx) of 4 rows of A (lda apart), packed 4 a j into ap. */
void mlp_pack_group(const float *A, uint64_t lda, const uint32_t *idx, uint32_t m, float *ap);
/* For every group of 4 columns j and block b, the rows at which
 * A_b[s][j..j+3] is not all 0: list (jg, b) at idx + (jg * nb + b) *
 * MLP_BLOCK, its length at m[jg * nb + b]. */
void mlp_list_rows(const struct mlp_blocks *bk, uint32_t n_j, uint8_t *m, uint32_t *idx);
/* Each block's D as panels of `width` columns (zeros past ncp, the padded
 * n_c): panel p of block b at dp + (b * n_panels + p) * MLP_BLOCK * width,
 * n_panels = ceil(ncp / width). */
void mlp_pack_d(const struct mlp_blocks *bk, uint32_t ncp, uint32_t width, float *dp);
/* The 4 x w tile t at (j, c) of a gradient, into oh, ol where it is real
 * (j + r < n_j, c + k < n_c), by mlp_fix_add (store: into zeros). */
void mlp_add_tile(const float *t, uint32_t w, uint32_t j, uint32_t c, uint32_t n_j, uint32_t n_c,
                  const struct mlp_fix *f, bool store, double *oh, double *ol, uint64_t ldo);
/* oh, ol [j * ldo + c] = 0 for j < n_j, c < n_c. */
void mlp_zero_out(uint32_t n_j, uint32_t n_c, double *oh, double *ol, uint64_t ldo);
void mlp_mm_nn_portable(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B,
                        uint64_t ldb, const float *bias, float *Z, uint64_t ldz, uint32_t *idx);
void mlp_mm_tn_fix_portable(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f,
                            double *oh, double *ol, uint64_t ldo, uint32_t *idx);
static inline uint32_t mlp_pad4(uint64_t n) { return (uint32_t)((n + 3) & ~3ull); }
/* The fixed point for batches of n_blocks blocks. */
struct mlp_fix mlp_fix_for(uint64_t n_blocks);
/* x as the pair (h, l) added into *oh, *ol (out of range: *oh = NaN). */
void mlp_fix_add(const struct mlp_fix *f, double x, double *oh, double *ol);
/* The squares of x[0], x[stride], ... (n of them) as pairs, added into
 * *oh, *ol: false, adding nothing, when one is beyond the range (or NaN). */
bool mlp_fix_squares(const struct mlp_fix *f, const double *x, size_t stride, size_t n, double *oh, double *ol);
/* The same in plain C (mlp_fix_squares takes the vector loop where it can). */
bool mlp_fix_squares_portable(const struct mlp_fix *f, const double *x, size_t stride, size_t n, double *oh,
                              double *ol);
/* The value of a key's summed pair: both products are exact, the sum
 * rounds once. */
static inline double mlp_fix_value(const struct mlp_fix *f, double hi, double lo) {
  return hi * f->hi_val + lo * f->lo_val;
}

#endif
