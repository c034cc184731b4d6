/*
 * test_apps_kmeans.c - the pure parts of the k-means app (apps/kmeans/):
 * the nearest centroid of a row, ties to the lowest index, for float and
 * double data and more centroids than one kernel group; k-means++ with a
 * fixed seed (the same centres every time, rows of the data, one per
 * far-apart group, and the seed's known picks); random initial rows
 * (distinct); the centroid file reader (comments, commas, gzip-less text)
 * and its one-line errors; the rows per exact partial sum; and the
 * distance kernel's levels (scalar, AVX2, AVX-512 where this CPU has
 * them: apps/common/cpu.h) give the same nearest centroid and the same
 * distance bits on random sparse rows of both value types, for every
 * k from 1 to 40 (each vector width and tail), empty and odd-length rows
 * and duplicate centroids (ties).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "apps/kmeans/kmeans.h"

/* A dataset over caller-owned arrays (nothing for dsana_dataset_fini). */
static struct dsana_dataset make_ds(uint64_t rows, uint64_t features, const uint64_t *off, const uint32_t *col,
                                    const double *v64, const float *v32) {
  struct dsana_dataset ds;
  memset(&ds, 0, sizeof ds);
  ds.n_rows = rows;
  ds.n_features = features;
  ds.nnz = off[rows];
  ds.row_off = off;
  ds.col = col;
  ds.val_f64 = v64;
  ds.val_f32 = v32;
  return ds;
}

static uint32_t nearest(const struct dsana_dataset *ds, uint64_t row, const double *c, uint32_t k, double *dist) {
  struct km_centres cs;
  double dot[64];
  assert_int_equal(km_centres_init(&cs, c, k, ds->n_features), 0);
  uint32_t m = km_nearest(&cs, ds, row, dot, dist);
  km_centres_fini(&cs);
  return m;
}

/* Rows (0,0) [no entries], (1,1), (1,0) in two dimensions. */
static const uint64_t TIE_OFF[] = {0, 0, 2, 3};
static const uint32_t TIE_COL[] = {0, 1, 0};
static const double TIE_V64[] = {1, 1, 1};
static const float TIE_V32[] = {1, 1, 1};

static void check_ties(const struct dsana_dataset *ds) {
  double d;
  const double around[] = {1, 0, 0, 1, -1, 0}; /* all at distance 1 of (0,0) */
  assert_int_equal(nearest(ds, 0, around, 3, &d), 0);
  assert_true(d == 1);
  const double two[] = {0, 1, 1, 0, 1, 1}; /* (1,1): distances 1, 1, 0 */
  assert_int_equal(nearest(ds, 1, two, 3, &d), 2);
  assert_true(d == 0);
  const double dup[] = {5, 5, 1, 1, 1, 1}; /* the same centroid twice: the first */
  assert_int_equal(nearest(ds, 1, dup, 3, &d), 1);
  const double mid[] = {2, 0, 0, 0, 3, 5}; /* (1,0): 1 from (2,0) and from (0,0) */
  assert_int_equal(nearest(ds, 2, mid, 3, &d), 0);
  assert_true(d == 1);
}

static void test_nearest_ties_lowest_index(void **state) {
  (void)state;
  struct dsana_dataset f64 = make_ds(3, 2, TIE_OFF, TIE_COL, TIE_V64, NULL);
  struct dsana_dataset f32 = make_ds(3, 2, TIE_OFF, TIE_COL, NULL, TIE_V32);
  check_ties(&f64);
  check_ties(&f32);
}

/* More centroids than a kernel group (padding), the nearest the last. */
static void test_nearest_many_centroids(void **state) {
  (void)state;
  const uint64_t off[] = {0, 3};
  const uint32_t col[] = {0, 2, 4};
  const double v[] = {1.5, -2, 0.25};
  struct dsana_dataset ds = make_ds(1, 5, off, col, v, NULL);
  double c[9 * 5], d;
  for (int m = 0; m < 9; m++)
    for (int j = 0; j < 5; j++)
      c[m * 5 + j] = m == 8 ? v[j / 2] * (j % 2 == 0) : 10.0 + m + j;
  assert_int_equal(nearest(&ds, 0, c, 9, &d), 8);
  assert_true(d == 0);
  c[8 * 5] = 2.5; /* now 1 away in feature 0 */
  assert_int_equal(nearest(&ds, 0, c, 9, &d), 8);
  assert_true(d == 1);
}

/* 3 groups of 10 rows far apart: around (0,0), (100,0), (0,100). */
static uint64_t G_OFF[31];
static uint32_t G_COL[60];
static double G_VAL[60];

static struct dsana_dataset groups(void) {
  for (uint32_t i = 0; i < 30; i++) {
    G_OFF[i + 1] = 2 * (i + 1);
    G_COL[2 * i] = 0;
    G_COL[2 * i + 1] = 1;
    G_VAL[2 * i] = (i / 10 == 1 ? 100 : 0) + 0.1 * (i % 10);
    G_VAL[2 * i + 1] = (i / 10 == 2 ? 100 : 0) + 0.05 * (i % 7);
  }
  return make_ds(30, 2, G_OFF, G_COL, G_VAL, NULL);
}

/* The row of ds centre c is (-1 if none). */
static int row_of(const struct dsana_dataset *ds, const double *c) {
  for (uint32_t i = 0; i < ds->n_rows; i++)
    if (G_VAL[2 * i] == c[0] && G_VAL[2 * i + 1] == c[1])
      return (int)i;
  return -1;
}

static void test_plusplus_fixed_seed(void **state) {
  (void)state;
  struct dsana_dataset ds = groups();
  double a[6], b[6];
  assert_int_equal(km_seed_plusplus(&ds, 3, 1, a), 0);
  assert_int_equal(km_seed_plusplus(&ds, 3, 1, b), 0);
  assert_memory_equal(a, b, sizeof a);
  bool seen[3] = {false, false, false};
  for (int m = 0; m < 3; m++) {
    int r = row_of(&ds, a + 2 * m);
    assert_true(r >= 0);
    seen[r / 10] = true;
  }
  assert_true(seen[0] && seen[1] && seen[2]); /* D(x)^2 sampling finds every group */
  /* seed 1's picks (splitmix64, 2 + ln 3 = 3 candidates per centre), as an independent
   * port of the algorithm (Python, scikit-learn's steps) picks them */
  assert_int_equal(row_of(&ds, a), 16);
  assert_int_equal(row_of(&ds, a + 2), 21);
  assert_int_equal(row_of(&ds, a + 4), 4);
  for (uint64_t seed = 2; seed < 40; seed++) {
    assert_int_equal(km_seed_plusplus(&ds, 3, seed, b), 0);
    bool s2[3] = {false, false, false};
    for (int m = 0; m < 3; m++)
      s2[row_of(&ds, b + 2 * m) / 10] = true;
    assert_true(s2[0] && s2[1] && s2[2]);
  }
}

static void test_random_distinct_rows(void **state) {
  (void)state;
  struct dsana_dataset ds = groups();
  double c[30 * 2];
  assert_int_equal(km_seed_random(&ds, 30, 7, c), 0);
  bool seen[30] = {false};
  for (int m = 0; m < 30; m++) {
    int r = row_of(&ds, c + 2 * m);
    assert_true(r >= 0 && !seen[r]);
    seen[r] = true;
  }
}

static char tmp_path[256];

static void write_tmp_bytes(const char *text, size_t len) {
  FILE *f = fopen(tmp_path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(text, 1, len, f), len);
  fclose(f);
}

static void write_tmp(const char *text) { write_tmp_bytes(text, strlen(text)); }

static void expect_error_bytes(const char *text, size_t len, uint64_t k, const char *want) {
  double c[16];
  char err[512], full[600];
  write_tmp_bytes(text, len);
  assert_int_not_equal(km_read_centroids(tmp_path, k, 2, c, err, sizeof err), 0);
  snprintf(full, sizeof full, "%s%s", tmp_path, want);
  if (strcmp(err, full) != 0)
    fail_msg("got '%s', expected '%s'", err, full);
}

static void expect_error(const char *text, uint64_t k, const char *want) {
  expect_error_bytes(text, strlen(text), k, want);
}

static void test_centroid_file(void **state) {
  (void)state;
  double c[6];
  char err[512];
  write_tmp("# centroids\n1 2\n\n3.5,-4e-1\r\n  5\t6  \n");
  assert_int_equal(km_read_centroids(tmp_path, 3, 2, c, err, sizeof err), 0);
  const double want[] = {1, 2, 3.5, -0.4, 5, 6};
  assert_memory_equal(c, want, sizeof want);
  expect_error("1 2\n1 x\n", 2, ":2: value 2 'x' is not a finite number");
  expect_error("1 2\n1 2 3\n", 2, ":2: 3 values, expected 2 (the data's features)");
  expect_error("1 2\n1\n", 2, ":2: 1 values, expected 2 (the data's features)");
  expect_error("1 2\n", 2, ": only 1 of the 2 centroids --k asks for");
  expect_error("1 2\n3 4\n5 6\n", 2, ":3: more than the 2 centroids --k asks for");
  expect_error("1 2\n3 4\n# the end\n5 6\n", 2, ":4: more than the 2 centroids --k asks for");
  /* only finite decimal numbers: strtod's inf, nan and hex are refused */
  expect_error("1 inf\n", 1, ":1: value 2 'inf' is not a finite number");
  expect_error("nan 1\n", 1, ":1: value 1 'nan' is not a finite number");
  expect_error("1 -INFINITY\n", 1, ":1: value 2 '-INFINITY' is not a finite number");
  expect_error("0x1p3 1\n", 1, ":1: value 1 '0x1p3' is not a finite number");
  expect_error("1 1e999\n", 1, ":1: value 2 '1e999' is not a finite number");
  expect_error("1 2 # two\n", 1, ":1: value 3 '#' is not a finite number");
  expect_error("1 2abc\n", 1, ":1: value 2 '2abc' is not a finite number");
  /* NUL bytes and lines longer than the data's width can take (/dev/zero) */
  expect_error_bytes("1 2\n3\0 4\n", 10, 2, ":2: NUL byte at column 2");
  expect_error_bytes("\0\0\0\0", 4, 1, ":1: NUL byte at column 1");
  static char long_line[5000];
  memset(long_line, ' ', sizeof long_line - 1);
  expect_error(long_line, 1, ":1: line longer than 4192 bytes");
}

static void test_block_rows(void **state) {
  (void)state;
  assert_int_equal(km_block_rows(10), KM_BLOCK_MIN);
  assert_int_equal(km_block_rows(128 * 64), 64);
  assert_int_equal(km_block_rows(128 * 64 + 1), 128);
  assert_int_equal(km_block_rows(60000), 512);
  assert_int_equal(km_block_rows(1ull << 40), KM_BLOCK_MAX);
}

static int setup(void **state) {
  (void)state;
  snprintf(tmp_path, sizeof tmp_path, "%s/dsana-km-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  int fd = mkstemp(tmp_path);
  if (fd < 0)
    return -1;
  close(fd);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return unlink(tmp_path);
}

/* Random sparse rows (lengths 0..2 d, some features repeated as ties
 * need) against k centroids, some duplicated: every level's nearest and
 * distance are the scalar level's bits. */
static void check_levels(uint32_t k, uint64_t d, uint64_t rows, bool f32, uint64_t *s) {
  uint64_t *off = malloc((rows + 1) * sizeof *off);
  uint32_t *col = malloc(rows * d * sizeof *col);
  double *v64 = malloc(rows * d * sizeof *v64), *c = malloc(k * d * sizeof *c), dot[64];
  float *v32 = malloc(rows * d * sizeof *v32);
  assert_true(off && col && v64 && v32 && c);
  off[0] = 0;
  for (uint64_t i = 0; i < rows; i++) {
    uint64_t e = off[i];
    for (uint64_t j = 0; j < d; j++)
      if ((*s = *s * 6364136223846793005ull + 1442695040888963407ull) >> 62 != 0 || i % 7 == 3) {
        col[e] = (uint32_t)j;
        v64[e] = (double)(int64_t)(*s >> 11) * 0x1p-50;
        v32[e] = (float)v64[e];
        e += i % 7 != 3; /* row 3 mod 7: empty */
      }
    off[i + 1] = e;
  }
  for (uint32_t m = 0; m < k; m++)
    for (uint64_t j = 0; j < d; j++)
      c[m * d + j] =
          m % 5 == 4 ? c[(m - 1) * d + j] : (double)(int64_t)(*s = *s * 6364136223846793005ull + 1) * 0x1p-62;
  struct dsana_dataset ds = make_ds(rows, d, off, col, f32 ? NULL : v64, f32 ? v32 : NULL);
  struct km_centres cs;
  assert_int_equal(km_centres_init(&cs, c, k, d), 0);
  for (uint64_t i = 0; i < rows; i++) {
    double d0, dl;
    uint32_t m0 = km_nearest_at(APP_CPU_SCALAR, &cs, &ds, i, dot, &d0);
    for (int l = APP_CPU_AVX2; l <= (int)app_cpu_detect(); l++) {
      assert_int_equal(km_nearest_at((enum app_cpu)l, &cs, &ds, i, dot, &dl), m0);
      assert_memory_equal(&dl, &d0, sizeof d0);
    }
  }
  km_centres_fini(&cs);
  free(off), free(col), free(v64), free(v32), free(c);
}

static void test_nearest_same_bits_every_level(void **state) {
  (void)state;
  uint64_t s = 9;
  for (uint32_t k = 1; k <= 40; k++)
    for (int f32 = 0; f32 <= 1; f32++)
      check_levels(k, 13 + k % 5, 20, f32, &s);
  if (app_cpu_detect() < APP_CPU_AVX2)
    skip();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nearest_ties_lowest_index),
      cmocka_unit_test(test_nearest_many_centroids),
      cmocka_unit_test(test_nearest_same_bits_every_level),
      cmocka_unit_test(test_plusplus_fixed_seed),
      cmocka_unit_test(test_random_distinct_rows),
      cmocka_unit_test(test_centroid_file),
      cmocka_unit_test(test_block_rows),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
