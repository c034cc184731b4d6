/*
 * test_apps_lr_rows.c - logreg's row kernels (apps/logreg/lr_rows.c): the
 * vector kernel gives the same bits as the portable one that calls fma()
 * in the documented order, for every class count up to 13 and a wide one,
 * float and double values, rows of W padded or not, rows of every length
 * up to 9 entries (odd and even tails); so a model never depends on which
 * CPU of a cluster ran a row. Skips when the CPU lacks the vector kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/logreg/logreg.h"
#include "util/numeric/splitmix.h"

#define N_FEAT 37

static uint64_t next(uint64_t *s) { return splitmix64_mix(*s += SPLITMIX64_GOLDEN); }
/* A value in (-1, 1) with a full mantissa, so that any change of rounding shows. */
static double rnd(uint64_t *s) { return (double)(int64_t)next(s) / 9.3e18; }

struct row_case {
  uint32_t col[N_FEAT];
  float vf[N_FEAT];
  double vd[N_FEAT];
};

/* n ascending distinct features out of N_FEAT, and their values. */
static void make_row(uint64_t *s, uint32_t n, struct row_case *rc) {
  uint32_t k = 0;
  for (uint32_t j = 0; j < N_FEAT && k < n; j++)
    if (next(s) % (N_FEAT - j) < n - k)
      rc->col[k++] = j;
  for (uint32_t e = 0; e < n; e++) {
    rc->vd[e] = rnd(s);
    rc->vf[e] = (float)rnd(s);
  }
}

static void check_scores(uint32_t K, uint64_t ldw, bool f32, uint32_t n, uint64_t *s) {
  struct row_case rc;
  make_row(s, n, &rc);
  struct lr_row r = {.col = rc.col, .vf = f32 ? rc.vf : NULL, .vd = f32 ? NULL : rc.vd, .n = n};
  double *w = aligned_alloc(64, ((N_FEAT + 1) * ldw * sizeof(double) + 63) & ~(size_t)63);
  assert_non_null(w);
  for (uint64_t i = 0; i < (N_FEAT + 1) * ldw; i++)
    w[i] = rnd(s);
  double z1[24], z2[24];
  lr_row_scores(&r, w, ldw, w + N_FEAT * ldw, K, z1);
  lr_row_scores_portable(&r, w, ldw, w + N_FEAT * ldw, K, z2);
  assert_memory_equal(z1, z2, K * sizeof(double));
  free(w);
}

static void check_grad(uint32_t K, bool f32, uint32_t n, uint64_t *s) {
  struct row_case rc;
  make_row(s, n, &rc);
  struct lr_row r = {.col = rc.col, .vf = f32 ? rc.vf : NULL, .vd = f32 ? NULL : rc.vd, .n = n};
  uint32_t Kp = lr_padded(K);
  double gz[24] = {0}, p1[N_FEAT * 24], p2[N_FEAT * 24];
  for (uint32_t c = 0; c < K; c++)
    gz[c] = rnd(s);
  for (uint32_t i = 0; i < N_FEAT * Kp; i++)
    p1[i] = p2[i] = (i % Kp) < K ? rnd(s) : 0;
  lr_row_grad(&r, gz, K, p1);
  lr_row_grad_portable(&r, gz, K, p2);
  for (uint32_t j = 0; j < N_FEAT; j++)
    assert_memory_equal(p1 + j * Kp, p2 + j * Kp, K * sizeof(double));
}

static void vector_kernel_matches_portable_bits(void **state) {
  (void)state;
  if (!lr_rows_simd())
    skip();
  uint64_t s = 42;
  uint32_t classes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 22};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    for (uint32_t n = 0; n <= 9; n++)
      for (int f32 = 0; f32 <= 1; f32++) {
        uint32_t K = classes[i];
        check_scores(K, K, f32, n, &s);
        check_scores(K, lr_padded(K), f32, n, &s);
        check_grad(K, f32, n, &s);
      }
}

/* The order is what the comment in lr_rows.c says: two accumulators,
 * entries alternating (one chain in order would give 1 + 2^-52). */
static void scores_follow_the_documented_order(void **state) {
  (void)state;
  uint32_t col[3] = {0, 1, 2};
  double vd[3] = {1e-16, 1e-16, 1}, w[4] = {1, 1, 1, 0}, z;
  struct lr_row r = {.col = col, .vd = vd, .n = 3};
  lr_row_scores(&r, w, 1, w + 3, 1, &z);
  /* a0 = 1e-16, then fma(1, 1, 1e-16) = 1 (rounded); a1 = 1e-16: z = 0 + (1 + 1e-16) = 1 */
  assert_true(z == 1.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(vector_kernel_matches_portable_bits),
      cmocka_unit_test(scores_follow_the_documented_order),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
