/*
 * test_apps_mlp_mm.c - the MLP app's block products (apps/mlp/mlp_mm.c):
 * the vector kernels give the same bits as the portable ones that call
 * fmaf() in the documented order (floats), for widths that are and are not
 * multiples of the vector tiles, rows with and without zero groups, and
 * several blocks at once; the gradient product's fixed-point sums do not
 * depend on how the blocks are grouped into calls or their order (the
 * property that keeps a model independent of the task count); and the
 * fixed-point pairs give back their values and refuse what is too big,
 * and their squares (|W|^2) are the same bits by either loop. Every
 * level of apps/common/cpu.h up to what this CPU has (scalar, AVX2,
 * AVX-512) runs on the same cases and must give the portable bits;
 * shapes cover every tile width and tail of each kernel (columns 4..68,
 * odd inputs, blocks of odd rows) and A with and without zero groups;
 * the AVX-512 forward product also with B packed beforehand (a view's way:
 * from the parameters' doubles, and from their transpose).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/mlp/mlp.h"
#include "util/numeric/splitmix.h"

static uint64_t next(uint64_t *s) { return splitmix64_mix(*s += SPLITMIX64_GOLDEN); }
/* A value in (-1, 1) with a full mantissa, 0 with probability `zeros` / 8. */
static float rnd(uint64_t *s, unsigned zeros) {
  return next(s) % 8 < zeros ? 0 : (float)((double)(int64_t)next(s) / 9.3e18);
}

static float *matrix(uint64_t *s, size_t rows, size_t ld, size_t cols, unsigned zeros) {
  float *m = aligned_alloc(64, (rows * ld * sizeof(float) + 63) & ~(size_t)63);
  assert_non_null(m);
  for (size_t i = 0; i < rows; i++)
    for (size_t j = 0; j < ld; j++)
      m[i * ld + j] = j < cols ? rnd(s, zeros) : 0;
  return m;
}

static void check_nn(uint32_t rows, uint32_t n_in, uint32_t cols, unsigned zeros, bool bias, uint64_t *s,
                     enum app_cpu level) {
  uint32_t lda = mlp_pad4(n_in) + 4, ldb = cols + 4;
  float *A = matrix(s, rows, lda, n_in, zeros), *B = matrix(s, n_in, ldb, cols, 0), *b = matrix(s, 1, cols, cols, 0);
  float *Z1 = calloc((size_t)rows * ldb, sizeof(float)), *Z2 = calloc((size_t)rows * ldb, sizeof(float));
  uint32_t *idx = malloc(sizeof(uint32_t) * MLP_IDX(n_in));
  assert_true(Z1 && Z2 && idx);
  mlp_mm_nn_at(level, rows, n_in, cols, A, lda, B, ldb, bias ? b : NULL, Z1, ldb, idx);
  mlp_mm_nn_portable(rows, n_in, cols, A, lda, B, ldb, bias ? b : NULL, Z2, ldb, idx);
  assert_memory_equal(Z1, Z2, sizeof(float) * rows * ldb);
  if (level == APP_CPU_AVX512) { /* B packed once from doubles (B's values, exact), and from B^T */
    float *Bp = aligned_alloc(64, sizeof(float) * mlp_packed_b_floats(n_in, cols));
    double *Bd = malloc(sizeof(double) * n_in * ldb + 1), *Td = malloc(sizeof(double) * cols * n_in + 1);
    assert_true(Bp && Bd && Td);
    for (size_t j = 0; j < n_in; j++)
      for (size_t c = 0; c < ldb; c++) {
        Bd[j * ldb + c] = B[j * ldb + c];
        if (c < cols)
          Td[c * n_in + j] = B[j * ldb + c];
      }
    for (int t = 0; t < 2; t++) {
      if (t == 0)
        mlp_pack_b(n_in, cols, Bd, ldb, Bp);
      else
        mlp_pack_bt(n_in, cols, Td, n_in, Bp);
      memset(Z1, 0, sizeof(float) * rows * ldb);
      mlp_mm_nn_avx512_packed(rows, n_in, cols, A, lda, Bp, bias ? b : NULL, Z1, ldb, idx);
      assert_memory_equal(Z1, Z2, sizeof(float) * rows * ldb);
    }
    free(Bp), free(Bd), free(Td);
  }
  free(A), free(B), free(b), free(Z1), free(Z2), free(idx);
}

static void test_forward_product_same_bits(void **state) {
  (void)state;
  const uint32_t shapes[][3] = {{4, 1, 4},    {4, 7, 12},    {8, 30, 16},   {32, 33, 20}, {32, 64, 256},
                                {12, 5, 4},   {8, 10, 28},   {4, 3, 36},    {8, 65, 44},  {16, 70, 60},
                                {4, 130, 68}, {64, 129, 32}, {64, 784, 40}, {4, 0, 8},    {8, 200, 100}};
  for (int level = APP_CPU_AVX2; level <= (int)app_cpu_detect(); level++) {
    uint64_t s = 1;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
      for (unsigned zeros = 0; zeros <= 8; zeros += 3) {
        check_nn(shapes[i][0], shapes[i][1], shapes[i][2], zeros, true, &s, (enum app_cpu)level);
        check_nn(shapes[i][0], shapes[i][1], shapes[i][2], zeros, false, &s, (enum app_cpu)level);
      }
  }
  if (app_cpu_detect() < APP_CPU_AVX2)
    skip();
}

/* nb blocks of rows[b] rows; A n_j (padded) columns, D n_c (padded). */
struct grad_case {
  struct mlp_blocks bk;
  float *A, *D;
};

static void make_grad(struct grad_case *g, uint64_t *s, uint32_t nb, uint32_t n_j, uint32_t n_c, unsigned zeros) {
  memset(g, 0, sizeof *g);
  uint32_t lda = mlp_pad4(n_j), ldd = mlp_pad4(n_c);
  g->bk.n = nb;
  for (uint32_t b = 0; b < nb; b++)
    g->bk.rows[b] = 1 + (uint32_t)(next(s) % MLP_BLOCK);
  g->A = matrix(s, (size_t)nb * MLP_BLOCK, lda, n_j, zeros);
  g->D = matrix(s, (size_t)nb * MLP_BLOCK, ldd, n_c, 1);
  g->bk.a = g->A, g->bk.d = g->D;
  g->bk.lda = lda, g->bk.ldd = ldd;
  g->bk.a_step = (uint64_t)MLP_BLOCK * lda, g->bk.d_step = (uint64_t)MLP_BLOCK * ldd;
}

/* With bk->store the product writes over whatever its output holds (here
 * NaN-like garbage, a row wider than n_c around it) the bits `want` (the
 * product added into zeros, rows n_c apart), and nothing else. */
static void check_tn_store(const struct mlp_blocks *bk, uint32_t n_j, uint32_t n_c, const struct mlp_fix *f,
                           const double *want, uint32_t *idx, enum app_cpu level) {
  uint64_t ldo = n_c + 3, n = (uint64_t)n_j * ldo;
  double *o = malloc(sizeof(double) * 2 * n);
  assert_non_null(o);
  memset(o, 0xff, sizeof(double) * 2 * n);
  struct mlp_blocks st = *bk;
  st.store = true;
  mlp_mm_tn_fix_at(level, &st, n_j, n_c, f, o, o + n, ldo, idx);
  for (uint64_t j = 0; j < n_j; j++)
    for (uint64_t c = 0; c < ldo; c++)
      for (int half = 0; half < 2; half++) {
        double got = o[half * n + j * ldo + c];
        if (c < n_c)
          assert_memory_equal(&got, &want[half * (uint64_t)n_j * n_c + j * n_c + c], sizeof got);
        else
          assert_true(got != got); /* untouched: still all ones, a NaN */
      }
  free(o);
}

static void check_tn(uint32_t nb, uint32_t n_j, uint32_t n_c, unsigned zeros, uint64_t *s, enum app_cpu level) {
  struct grad_case g;
  make_grad(&g, s, nb, n_j, n_c, zeros);
  size_t n_out = (size_t)n_j * n_c * 2; /* h then l */
  struct mlp_fix f = mlp_fix_for(MLP_MAX_BLOCKS);
  double *o1 = calloc(n_out, sizeof *o1), *o2 = calloc(n_out, sizeof *o2), *o3 = calloc(n_out, sizeof *o3);
  uint32_t *idx = malloc(sizeof(uint32_t) * MLP_IDX(n_j));
  assert_true(o1 && o2 && o3 && idx);
  size_t l = n_out / 2;
  mlp_mm_tn_fix_at(level, &g.bk, n_j, n_c, &f, o1, o1 + l, n_c, idx);
  mlp_mm_tn_fix_portable(&g.bk, n_j, n_c, &f, o2, o2 + l, n_c, idx);
  for (uint32_t b = nb; b-- > 0;) { /* one block a call, the last first: the same sums */
    struct mlp_blocks one = g.bk;
    one.n = 1;
    one.rows[0] = g.bk.rows[b];
    one.a = g.A + b * g.bk.a_step, one.d = g.D + b * g.bk.d_step;
    mlp_mm_tn_fix_at(level, &one, n_j, n_c, &f, o3, o3 + l, n_c, idx);
  }
  assert_memory_equal(o1, o2, sizeof(double) * n_out);
  assert_memory_equal(o1, o3, sizeof(double) * n_out);
  check_tn_store(&g.bk, n_j, n_c, &f, o1, idx, level);
  free(g.A), free(g.D), free(o1), free(o2), free(o3), free(idx);
}

static void test_gradient_product_same_bits_any_grouping(void **state) {
  (void)state;
  const uint32_t shapes[][3] = {{1, 4, 4},   {3, 7, 10},  {8, 30, 16}, {2, 64, 12}, {5, 9, 256}, {MLP_MAX_BLOCKS, 4, 8},
                                {2, 13, 36}, {3, 20, 44}, {1, 8, 60},  {4, 5, 68},  {2, 17, 33}, {2, 784, 40}};
  for (int level = APP_CPU_SCALAR; level <= (int)app_cpu_detect(); level++) {
    uint64_t s = 7;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
      for (unsigned zeros = 0; zeros <= 7; zeros += 7)
        check_tn(shapes[i][0], shapes[i][1], shapes[i][2], zeros, &s, (enum app_cpu)level);
  }
}

/* A pair sums back to its value within the grid; pairs of any order of
 * addition are the same bits; a value beyond the range is NaN. */
static void test_fixed_point_pairs(void **state) {
  (void)state;
  struct mlp_fix f = mlp_fix_for(8);
  uint64_t s = 11;
  double xs[8], fwd[2] = {0, 0}, back[2] = {0, 0}, exact = 0;
  for (int i = 0; i < 8; i++) {
    xs[i] = rnd(&s, 0) * (i % 2 ? 3e4 : 1e-9);
    exact += xs[i]; /* near enough for the bound below */
    mlp_fix_add(&f, xs[i], &fwd[0], &fwd[1]);
  }
  for (int i = 8; i-- > 0;)
    mlp_fix_add(&f, xs[i], &back[0], &back[1]);
  assert_memory_equal(fwd, back, sizeof fwd);
  double v = mlp_fix_value(&f, fwd[0], fwd[1]), err = v - exact;
  assert_true(err < 1e-11 && err > -1e-11);
  double one[2] = {0, 0};
  mlp_fix_add(&f, 0.1, &one[0], &one[1]);
  assert_true(mlp_fix_value(&f, one[0], one[1]) == 0.1);
  double big[2] = {0, 0};
  mlp_fix_add(&f, 0x1p19, &big[0], &big[1]);
  assert_true(big[0] != big[0]);
  struct grad_case g; /* the gradient product flags it too */
  uint64_t s2 = 5;
  make_grad(&g, &s2, 1, 4, 4, 0);
  g.A[0] = 0x1p30;
  uint32_t idx[MLP_IDX(4)];
  double oh[16] = {0}, ol[16] = {0};
  mlp_mm_tn_fix(&g.bk, 4, 4, &f, oh, ol, 4, idx);
  assert_true(oh[0] != oh[0]);
  free(g.A), free(g.D);
}

/* The squares' pairs: the vector loop's are the portable loop's bits for
 * strides 1 and 2 and every tail length, and both refuse (adding
 * nothing) when one square is beyond the range. */
static void test_squares_same_bits(void **state) {
  (void)state;
  struct mlp_fix f = mlp_fix_for(1000);
  uint64_t s = 17;
  double x[2 * 40];
  for (size_t i = 0; i < 2 * 40; i++)
    x[i] = rnd(&s, 1) * (i % 3 ? 1e-3 : 2.0);
  for (size_t stride = 1; stride <= 2; stride++)
    for (size_t n = 0; n <= 40; n++) {
      double v[2] = {1, 2}, p[2] = {1, 2};
      assert_true(mlp_fix_squares_at(app_cpu_detect(), &f, x, stride, n, &v[0], &v[1]));
      assert_true(mlp_fix_squares_portable(&f, x, stride, n, &p[0], &p[1]));
      assert_memory_equal(v, p, sizeof v);
    }
  x[2 * 13] = 0x1p20; /* its square is beyond the range */
  double v[2] = {1, 2};
  assert_false(mlp_fix_squares(&f, x, 2, 40, &v[0], &v[1]));
  assert_false(mlp_fix_squares(&f, x, 1, 40, &v[0], &v[1]));
  assert_true(v[0] == 1 && v[1] == 2);
}

/* A gradient of one row whose A is 1: its pairs are mlp_fix_add()'s of
 * D's values themselves, at every level, for the values where rounding
 * could part ways: ties at the grid's half (to even), floats too small
 * for the grid and below float's normal range, -0, integers past 2^24
 * once scaled, values with a residual for the low integer, and large ones
 * near the range's limit. */
static void test_gradient_pairs_of_edge_values(void **state) {
  (void)state;
  struct mlp_fix f = mlp_fix_for(MLP_MAX_BLOCKS); /* K = 26, M = 46 */
  const float edge[] = {0x1p-27f, 0x3p-27f,       0x5p-27f,       -0x1p-27f,       1e-40f, -1e-30f,  1e-20f,
                        -0.0f,    0x1p18f,        0x1p18f + 0.3f, -(0x1p18f + 1),  0.1f,   1.0f / 3, -0.7f,
                        3.14159f, 0x1.fffffep18f, 0x1p-2f,        -0x1.000002p-1f, 7e-9f,  -3e-12f};
  enum { NC = 68, NE = sizeof edge / sizeof edge[0] };
  float *A = aligned_alloc(64, 64 * sizeof(float)), *D = aligned_alloc(64, 128 * sizeof(float) * 4);
  assert_true(A && D);
  for (int j = 0; j < 4; j++)
    A[j] = 1;
  for (int c = 0; c < NC; c++)
    D[c] = edge[c % NE] * (c / NE % 2 ? -1.0f : 1.0f);
  struct mlp_blocks bk = {.n = 1, .rows = {1}, .a = A, .d = D, .a_step = 4, .d_step = NC, .lda = 4, .ldd = NC};
  double want[2][4 * NC] = {{0}}, got[2][4 * NC];
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < NC; c++)
      mlp_fix_add(&f, (double)D[c], &want[0][r * NC + c], &want[1][r * NC + c]);
  uint32_t *idx = malloc(sizeof(uint32_t) * MLP_IDX(4));
  assert_non_null(idx);
  for (int level = APP_CPU_SCALAR; level <= (int)app_cpu_detect(); level++)
    for (int store = 0; store < 2; store++) {
      memset(got, 0, sizeof got);
      bk.store = store;
      mlp_mm_tn_fix_at((enum app_cpu)level, &bk, 4, NC, &f, got[0], got[1], NC, idx);
      assert_memory_equal(got, want, sizeof got);
    }
  free(A), free(D), free(idx);
}

/* A small product against plain loops: the documented order is a sum. */
static void test_forward_product_is_the_product(void **state) {
  (void)state;
  uint64_t s = 3;
  uint32_t rows = 8, n_in = 6, cols = 8, lda = 8;
  float *A = matrix(&s, rows, lda, n_in, 2), *B = matrix(&s, n_in, cols, cols, 0), Z[64];
  uint32_t idx[MLP_IDX(8)];
  mlp_mm_nn(rows, n_in, cols, A, lda, B, cols, NULL, Z, cols, idx);
  for (uint32_t r = 0; r < rows; r++)
    for (uint32_t c = 0; c < cols; c++) {
      double z = 0; /* in double: the product's floats within float's rounding of it */
      for (uint32_t j = 0; j < n_in; j++)
        z += (double)A[r * lda + j] * B[j * cols + c];
      assert_true(fabs(z - Z[r * cols + c]) < 1e-6);
    }
  free(A), free(B);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_forward_product_same_bits),
      cmocka_unit_test(test_gradient_product_same_bits_any_grouping),
      cmocka_unit_test(test_forward_product_is_the_product),
      cmocka_unit_test(test_fixed_point_pairs),
      cmocka_unit_test(test_gradient_pairs_of_edge_values),
      cmocka_unit_test(test_squares_same_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
