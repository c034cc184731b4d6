/*
 * test_apps_pr_sum.c - PageRank's exact range sums (apps/pagerank/pr_sum.h):
 * four plain 128-bit lanes must give the bits of adding every addend with
 * dsana_xsum_add, whatever the addends' magnitudes: below the xsum's grid
 * (2^-80, truncated), below 2^-17 (one 64-bit part), from 2^-17 to 2^-1
 * (two parts: every rank of a graph of fewer than 2^17 vertices), 2^-1
 * and above, negative, and the run's length not a multiple of four.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/common/cpu.h"
#include "apps/pagerank/pr_sum.h"

/* Addend v: x[v] (not inlined: GCC's loop analysis then warns of an
 * overflow at 2^61 iterations it cannot rule out). */
__attribute__((noinline)) static double at(const double *a, const void *b, uint64_t v) {
  (void)b;
  return a[v];
}

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A double in [2^lo, 2^hi) with a random full significand. */
static double in_binades(uint64_t *s, int lo, int hi) {
  double m = 1.0 + (double)(rng_next(s) >> 11) * 0x1p-53; /* [1, 2) */
  return __builtin_ldexp(m, lo + (int)(rng_next(s) % (uint64_t)(hi - lo)));
}

static void assert_same_xsum(dsana_xsum got, dsana_xsum want) {
  assert_true(got.lo == want.lo);
  assert_int_equal(got.hi, want.hi);
  assert_int_equal(got.flags, want.flags);
}

__attribute__((noinline)) static void assert_same_sum(const double *x, uint64_t n) {
  dsana_xsum want = {0};
  for (uint64_t i = 0; i < n; i++)
    dsana_xsum_add(&want, x[i]);
  for (int mixed = 0; mixed < 2; mixed++) {
    dsana_xsum got = pr_lanes_sum(at, x, NULL, 0, n, mixed);
    assert_true(got.lo == want.lo);
    assert_int_equal(got.hi, want.hi);
    assert_int_equal(got.flags, want.flags);
  }
  if (app_cpu_detect() >= APP_CPU_AVX512)
    assert_same_xsum(pr_sum_avx512(PR_ADDEND_VALUE, x, NULL, 0, n), want);
}

/* Each range of magnitudes alone, then all of them mixed. */
static void test_lanes_give_the_bits_of_xsum_add(void **state) {
  (void)state;
  static const int range[][2] = {{-1070, -80}, {-80, -17}, {-17, -1}, {-1, 40}};
  enum { N = 4099 };
  double *x = malloc(N * sizeof *x);
  assert_non_null(x);
  uint64_t seed = 42;
  for (size_t r = 0; r < sizeof range / sizeof range[0]; r++) {
    for (uint64_t i = 0; i < N; i++)
      x[i] = in_binades(&seed, range[r][0], range[r][1]);
    for (uint64_t n = 0; n <= 9; n++)
      assert_same_sum(x, n);
    assert_same_sum(x, N);
  }
  for (uint64_t i = 0; i < N; i++) {
    size_t r = rng_next(&seed) % (sizeof range / sizeof range[0]);
    x[i] = in_binades(&seed, range[r][0], range[r][1]) * (rng_next(&seed) % 7 == 0 ? -1 : 1);
  }
  x[5] = 0x1p-17; /* the edges between the parts */
  x[6] = 0x1p-1;
  x[7] = 0x1p-17 - 0x1p-70;
  x[8] = 0.0;
  assert_same_sum(x, N);
  free(x);
}

/* Many addends just below 2^-1 fill a lane's 128 bits far beyond 64. */
static void test_large_addends_carry_across_the_lanes(void **state) {
  (void)state;
  enum { N = 1 << 16 };
  double *x = malloc(N * sizeof *x);
  assert_non_null(x);
  for (uint64_t i = 0; i < N; i++)
    x[i] = 0x1p-1 - 0x1p-54 * (double)(i % 1000 + 1);
  assert_same_sum(x, N);
  free(x);
}

static double dangling(const double *a, const void *b, uint64_t v) {
  return ((const uint32_t *)b)[v] == 0 ? a[v] : 0.0;
}

static double change(const double *a, const void *b, uint64_t v) {
  return __builtin_fabs(a[v] - ((const double *)b)[v]);
}

/* The AVX-512 sums of the dangling mass and the L1 change: the scalar
 * lanes' bits over every start and length near the vectors' edges, with
 * ranks of every magnitude, -0, negative, infinite and NaN among them. */
static void test_vector_sums_give_the_scalar_bits(void **state) {
  (void)state;
  if (app_cpu_detect() < APP_CPU_AVX512)
    skip(); /* cmocka reports it as skipped: this CPU has no AVX-512 */
  enum { N = 517 };
  double *rank = malloc(N * sizeof *rank), *old = malloc(N * sizeof *old);
  uint32_t *deg = malloc(N * sizeof *deg);
  assert_true(rank && old && deg);
  uint64_t seed = 9;
  for (uint64_t i = 0; i < N; i++) {
    rank[i] = in_binades(&seed, -90, -1);
    old[i] = rng_next(&seed) % 3 ? in_binades(&seed, -90, -1) : rank[i];
    deg[i] = rng_next(&seed) % 4 ? 0 : (uint32_t)(rng_next(&seed) % 9);
  }
  for (int with_specials = 0; with_specials < 2; with_specials++) {
    if (with_specials) {
      double special[] = {-0.0, -1e-3, 0.75, __builtin_inf(), __builtin_nan(""), 0x1p-1, 0x1p-17};
      for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        rank[40 + 61 * i] = special[i], deg[40 + 61 * i] = 0;
    }
    for (uint64_t lo = 0; lo < 10; lo++)
      for (uint64_t hi = lo; hi < N; hi += hi < lo + 20 ? 1 : 37) {
        assert_same_xsum(pr_sum_avx512(PR_ADDEND_DANGLING, rank, deg, lo, hi),
                         pr_lanes_sum(dangling, rank, deg, lo, hi, true));
        assert_same_xsum(pr_sum_avx512(PR_ADDEND_CHANGE, rank, old, lo, hi),
                         pr_lanes_sum(change, rank, old, lo, hi, false));
      }
  }
  free(rank), free(old), free(deg);
}

/* Over 2^20 vectors the lanes are emptied into the total on the way:
 * addends just below 2^-1 (both parts large) still give the scalar bits. */
static void test_vector_sum_empties_its_lanes(void **state) {
  (void)state;
  if (app_cpu_detect() < APP_CPU_AVX512)
    skip(); /* cmocka reports it as skipped: this CPU has no AVX-512 */
  uint64_t n = 8 * (1u << 20) + 8 * 3 + 5;
  double *x = malloc(n * sizeof *x);
  assert_non_null(x);
  for (uint64_t i = 0; i < n; i++)
    x[i] = 0x1p-1 - 0x1p-53 * (double)(i % 4093 + 1);
  assert_same_xsum(pr_sum_avx512(PR_ADDEND_VALUE, x, NULL, 0, n), pr_lanes_sum(at, x, NULL, 0, n, true));
  free(x);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lanes_give_the_bits_of_xsum_add),
      cmocka_unit_test(test_large_addends_carry_across_the_lanes),
      cmocka_unit_test(test_vector_sums_give_the_scalar_bits),
      cmocka_unit_test(test_vector_sum_empties_its_lanes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
