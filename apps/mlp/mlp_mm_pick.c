/*
 * mlp_mm_pick.c - which of the MLP app's product kernels runs (mlp_mm.h):
 * AVX-512 (mlp_mm512.c), AVX2 or portable (mlp_mm.c), by the apps' one
 * choice of CPU level (apps/common/cpu.h). They give the same bits, so
 * the choice is speed only.
 *
 * Any thread.
 */
#include "mlp_mm.h"

void mlp_mm_nn_at(enum app_cpu level, uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda,
                  const float *B, uint64_t ldb, const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
#if defined(__x86_64__)
  if (level == APP_CPU_AVX512) {
    mlp_mm_nn_avx512(rows, n_in, cols, A, lda, B, ldb, bias, Z, ldz, idx);
    return;
  }
  if (level == APP_CPU_AVX2) {
    mlp_mm_nn_avx2(rows, n_in, cols, A, lda, B, ldb, bias, Z, ldz, idx);
    return;
  }
#endif
  (void)level;
  mlp_mm_nn_portable(rows, n_in, cols, A, lda, B, ldb, bias, Z, ldz, idx);
}

void mlp_mm_tn_fix_at(enum app_cpu level, const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c,
                      const struct mlp_fix *f, double *oh, double *ol, uint64_t ldo, uint32_t *idx) {
#if defined(__x86_64__)
  if (level == APP_CPU_AVX512) {
    mlp_mm_tn_fix_avx512(bk, n_j, n_c, f, oh, ol, ldo, idx);
    return;
  }
  if (level == APP_CPU_AVX2) {
    mlp_mm_tn_fix_avx2(bk, n_j, n_c, f, oh, ol, ldo, idx);
    return;
  }
#endif
  (void)level;
  mlp_mm_tn_fix_portable(bk, n_j, n_c, f, oh, ol, ldo, idx);
}

/* AVX-512 adds nothing here (a loop bound by its additions): it takes the AVX2 loop. */
bool mlp_fix_squares_at(enum app_cpu level, const struct mlp_fix *f, const double *x, size_t stride, size_t n,
                        double *oh, double *ol) {
#if defined(__x86_64__)
  if (level >= APP_CPU_AVX2 && (stride == 1 || stride == 2))
    return mlp_fix_squares_avx2(f, x, stride, n, oh, ol);
#endif
  (void)level;
  return mlp_fix_squares_portable(f, x, stride, n, oh, ol);
}

void mlp_mm_nn(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *B, uint64_t ldb,
               const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
  mlp_mm_nn_at(app_cpu_level(), rows, n_in, cols, A, lda, B, ldb, bias, Z, ldz, idx);
}

void mlp_mm_tn_fix(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f, double *oh,
                   double *ol, uint64_t ldo, uint32_t *idx) {
  mlp_mm_tn_fix_at(app_cpu_level(), bk, n_j, n_c, f, oh, ol, ldo, idx);
}

bool mlp_fix_squares(const struct mlp_fix *f, const double *x, size_t stride, size_t n, double *oh, double *ol) {
  return mlp_fix_squares_at(app_cpu_level(), f, x, stride, n, oh, ol);
}

bool mlp_mm_takes_packed(void) { return app_cpu_level() >= APP_CPU_AVX512; }

void mlp_mm_nn_packed(uint32_t rows, uint32_t n_in, uint32_t cols, const float *A, uint64_t lda, const float *Bp,
                      const float *bias, float *Z, uint64_t ldz, uint32_t *idx) {
  mlp_mm_nn_avx512_packed(rows, n_in, cols, A, lda, Bp, bias, Z, ldz, idx);
}
