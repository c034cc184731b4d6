/*
 * test_apps_mlp_blocks.c - how the MLP app cuts a batch into blocks
 * (mlp_block_rows, apps/mlp/mlp_net.c): ceil(B / MLP_BLOCK) blocks of
 * consecutive batch positions whose sizes differ by at most one row, so
 * that tasks of equally many blocks do equal work (a batch of 200 as 4
 * blocks of 50, where blocks of 64 gave 2 tasks 128 and 72 rows); the
 * blocks together are the batch's positions in order; blocks past a
 * short batch (an epoch's last) are empty.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "apps/common/shuffle.h"
#include "apps/mlp/mlp.h"

static void app_of(struct mlp_app *a, uint64_t n_rows, uint64_t batch) {
  memset(a, 0, sizeof *a);
  a->d.train.n_rows = n_rows;
  a->batch = batch;
  a->seed = 7;
  uint64_t b = batch < n_rows ? batch : n_rows;
  a->n_blocks = (uint32_t)((b + MLP_BLOCK - 1) / MLP_BLOCK);
}

/* Step `step` (iteration step + 1) of n_rows rows in batches of `batch`
 * is n_blocks blocks (a full batch's) of want[b] rows, and one more block
 * is empty. */
static void check_sizes(uint64_t n_rows, uint64_t batch, uint64_t step, uint32_t n_blocks, const uint32_t *want) {
  struct mlp_app a;
  app_of(&a, n_rows, batch);
  assert_int_equal(a.n_blocks, n_blocks);
  uint64_t rows[MLP_BLOCK];
  for (uint32_t b = 0; b <= n_blocks; b++)
    assert_int_equal(mlp_block_rows(&a, (uint32_t)step + 1, b, rows), b < n_blocks ? want[b] : 0);
}

static void test_a_batch_of_200_is_four_blocks_of_50(void **state) {
  (void)state;
  check_sizes(60000, 200, 0, 4, (const uint32_t[]){50, 50, 50, 50});
}

/* For every batch size up to 5 blocks: at most MLP_BLOCK rows a block,
 * sizes within one row of each other, and the blocks in order are the
 * batch's shuffled positions [p0, p1). */
static void test_blocks_are_even_and_cover_the_batch(void **state) {
  (void)state;
  struct mlp_app a;
  for (uint64_t batch = 1; batch <= 5 * MLP_BLOCK; batch++) {
    app_of(&a, 100000, batch);
    struct shuffle_batch sb = shuffle_batch_of(a.d.train.n_rows, batch, 3);
    struct shuffle f;
    shuffle_init(&f, a.seed, sb.epoch, a.d.train.n_rows);
    uint64_t rows[MLP_BLOCK], p = sb.p0;
    uint32_t lo = MLP_BLOCK, hi = 0;
    for (uint32_t b = 0; b < a.n_blocks; b++) {
      uint32_t m = mlp_block_rows(&a, 4, b, rows);
      lo = m < lo ? m : lo;
      hi = m > hi ? m : hi;
      for (uint32_t s = 0; s < m; s++)
        assert_int_equal(rows[s], shuffle_row(&f, p++));
    }
    assert_int_equal(p, sb.p1);
    assert_true(hi <= MLP_BLOCK);
    assert_true(hi - lo <= 1);
  }
}

/* An epoch's last batch, shorter than the others, has fewer blocks: the
 * rest are empty. 1000 rows in batches of 300: the fourth is 100 rows,
 * 2 blocks of 50 of the 5 a full batch has. */
static void test_a_short_batch_leaves_blocks_empty(void **state) {
  (void)state;
  check_sizes(1000, 300, 3, 5, (const uint32_t[]){50, 50, 0, 0, 0});
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_batch_of_200_is_four_blocks_of_50),
      cmocka_unit_test(test_blocks_are_even_and_cover_the_batch),
      cmocka_unit_test(test_a_short_batch_leaves_blocks_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
