/*
 * test_apps_lr_sgd.c - the batches of logreg's mini-batch SGD
 * (apps/logreg/lr_sgd.c): every epoch's batches partition the rows (each
 * row in exactly one batch), a task finds the same rows of a batch whether
 * it lists the batch (a task wider than the batch) or tests each of its
 * rows (narrower), epochs and seeds give other orders, the last batch of
 * an epoch holds the remainder and the last iteration every row.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/logreg/logreg.h"

static void init_app(struct lr_app *a, uint64_t rows, uint64_t batch, uint64_t seed) {
  memset(a, 0, sizeof *a);
  a->d.train.n_rows = rows;
  a->batch = batch;
  a->seed = seed;
  a->max_iter = 1000000;
}

/* Rows of iteration `iter` that the tasks of width `width` find, marked in
 * seen[] (counted); returns how many. */
static uint64_t collect(const struct lr_app *a, uint32_t iter, uint64_t width, uint32_t *seen) {
  uint64_t total = 0;
  for (uint64_t lo = 0; lo < a->d.train.n_rows; lo += width) {
    struct dsana_task_ctx ctx = {
        .iter = iter, .lo = lo, .hi = lo + width < a->d.train.n_rows ? lo + width : a->d.train.n_rows};
    uint64_t *rows, n;
    assert_int_equal(lr_sgd_task_rows(a, &ctx, &rows, &n), 0);
    for (uint64_t k = 0; k < n; k++) {
      assert_true(rows[k] >= ctx.lo && rows[k] < ctx.hi);
      assert_true(k == 0 || rows[k] > rows[k - 1]); /* ascending */
      seen[rows[k]]++;
    }
    total += n;
    free(rows);
  }
  return total;
}

static void epoch_partitions(uint64_t rows, uint64_t batch) {
  struct lr_app a;
  init_app(&a, rows, batch, 1);
  uint64_t spe = (rows + batch - 1) / batch;
  uint32_t *wide = calloc(rows, sizeof *wide), *narrow = calloc(rows, sizeof *narrow);
  assert_non_null(wide);
  assert_non_null(narrow);
  for (uint32_t epoch = 0; epoch < 2; epoch++) {
    memset(wide, 0, rows * sizeof *wide);
    memset(narrow, 0, rows * sizeof *narrow);
    for (uint64_t j = 0; j < spe; j++) {
      uint32_t iter = (uint32_t)(epoch * spe + j + 1);
      uint64_t want = j + 1 < spe ? batch : rows - (spe - 1) * batch;
      assert_int_equal(lr_sgd_batch_rows(&a, iter), want);
      assert_int_equal(collect(&a, iter, batch * 3 + 1, wide), want);               /* lists the batch */
      assert_int_equal(collect(&a, iter, batch > 1 ? batch / 2 : 1, narrow), want); /* tests its rows */
      for (uint64_t i = 0; i < rows; i++)
        assert_int_equal(wide[i], narrow[i]); /* both ways find the same rows */
    }
    for (uint64_t i = 0; i < rows; i++)
      assert_int_equal(wide[i], 1); /* the epoch visits every row once */
  }
  free(wide);
  free(narrow);
}

static void test_partition(void **unused) {
  (void)unused;
  epoch_partitions(1000, 64); /* a remainder: 15 batches of 64, one of 40 */
  epoch_partitions(1024, 256);
  epoch_partitions(7, 1);
  epoch_partitions(5, 5);
  epoch_partitions(1, 1);
  epoch_partitions(3001, 4096); /* a batch above the rows: the whole set */
}

/* The first batch's rows of iteration iter with seed s, as one task sees them. */
static uint64_t first_row(uint64_t seed, uint32_t iter) {
  struct lr_app a;
  init_app(&a, 100000, 100, seed);
  struct dsana_task_ctx ctx = {.iter = iter, .lo = 0, .hi = 100000};
  uint64_t *rows, n, r;
  assert_int_equal(lr_sgd_task_rows(&a, &ctx, &rows, &n), 0);
  assert_int_equal(n, 100);
  r = rows[0] ^ rows[50] << 20 ^ rows[99] << 40;
  free(rows);
  return r;
}

static void test_orders_differ(void **unused) {
  (void)unused;
  assert_int_equal(first_row(1, 1), first_row(1, 1)); /* deterministic */
  assert_true(first_row(1, 1) != first_row(2, 1));    /* another seed */
  assert_true(first_row(1, 1) != first_row(1, 1001)); /* epoch 1's first batch */
  assert_true(first_row(1, 1) != first_row(1, 2));    /* the next batch */
}

static void test_last_iteration_is_full(void **unused) {
  (void)unused;
  struct lr_app a;
  init_app(&a, 1000, 64, 1);
  a.max_iter = 20;
  assert_int_equal(lr_sgd_batch_rows(&a, 19), 64);
  assert_int_equal(lr_sgd_batch_rows(&a, 20), 1000);
  assert_true(lr_sgd_scores_test(&a, 1));
  assert_false(lr_sgd_scores_test(&a, 2));
  assert_true(lr_sgd_scores_test(&a, 17)); /* 16 batches an epoch: epoch 1 starts */
  assert_true(lr_sgd_scores_test(&a, 20));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_partition),
      cmocka_unit_test(test_orders_differ),
      cmocka_unit_test(test_last_iteration_is_full),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
