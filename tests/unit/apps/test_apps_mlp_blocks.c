/*
 * test_apps_mlp_blocks.c - how the MLP app cuts a batch into blocks
 * (mlp_block_rows, apps/mlp/mlp_net.c): ceil(B / MLP_BLOCK) blocks of
 * consecutive batch positions whose sizes differ by at most one row, so
 * that tasks of equally many blocks do equal work (a batch of 200 as 4
 * blocks of 50, where blocks of 64 gave 2 tasks 128 and 72 rows); the
 * blocks together are the batch's positions in order; blocks past a
 * short batch (an epoch's last) are empty. And the order a block's rows
 * take (mlp_group_rows): by how many bands of features they have values
 * in, then which, ties in batch order; the same whether the bands are kept
 * or computed each time, for rows stored sparse or dense.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
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

/* 128 features: bands of 8 (16 of them). Rows 0-6 sparse, row 7 dense
 * (every feature stored, one not 0). */
enum { N_ROWS = 8, N_FEAT = 128 };
static uint64_t row_off[N_ROWS + 1];
static uint32_t col[4 * N_FEAT];
static double val[4 * N_FEAT];

static void add(uint64_t *e, uint32_t c, double v) {
  col[*e] = c;
  val[(*e)++] = v;
}

static void grouping_data(struct mlp_app *a) {
  uint64_t e = 0;
  row_off[0] = 0;
  for (uint32_t c = 0; c < N_FEAT; c += 2) /* row 0: every band */
    add(&e, c, 1);
  row_off[1] = e;
  add(&e, 0, 1), add(&e, 8, 2); /* row 1: bands 0, 1 */
  row_off[2] = e;
  add(&e, 64, 1); /* row 2: band 8 */
  row_off[3] = e;
  add(&e, 3, 1); /* row 3: band 0 */
  row_off[4] = e;
  add(&e, 17, 0); /* row 4: an explicit 0 only: no band */
  row_off[5] = e;
  add(&e, 0, 0), add(&e, 120, -1); /* row 5: band 15 */
  row_off[6] = e;
  add(&e, 5, 3); /* row 6: band 0, as row 3 */
  row_off[7] = e;
  for (uint32_t c = 0; c < N_FEAT; c++) /* row 7, dense: band 1 */
    add(&e, c, c == 9 ? 0.5 : 0);
  row_off[8] = e;
  memset(a, 0, sizeof *a);
  a->d.train.n_rows = N_ROWS;
  a->d.train.n_features = N_FEAT;
  a->d.train.row_off = row_off;
  a->d.train.col = col;
  a->d.train.val_f64 = val;
}

static void check_order(const struct mlp_app *a, const uint64_t *in, uint32_t m, const uint64_t *want) {
  uint64_t rows[MLP_BLOCK];
  memcpy(rows, in, sizeof(uint64_t) * m);
  mlp_group_rows(a, rows, m);
  for (uint32_t s = 0; s < m; s++)
    assert_int_equal(rows[s], want[s]);
}

static void test_a_blocks_rows_go_by_their_bands(void **state) {
  (void)state;
  struct mlp_app a;
  grouping_data(&a);
  const uint64_t in[] = {0, 1, 2, 3, 4, 5, 6, 7}, want[] = {4, 3, 6, 7, 2, 5, 1, 0};
  const uint64_t in2[] = {6, 2, 3}, want2[] = {6, 3, 2}; /* 6 and 3 tie: batch order */
  check_order(&a, in, N_ROWS, want);
  check_order(&a, in2, 3, want2);
  a.bands = calloc(N_ROWS, sizeof *a.bands); /* kept: the same order, twice */
  assert_non_null(a.bands);
  check_order(&a, in, N_ROWS, want);
  assert_true(a.bands[7] == (MLP_BANDS_SET | 2u) && a.bands[4] == MLP_BANDS_SET &&
              a.bands[0] == (MLP_BANDS_SET | 0xffffu));
  check_order(&a, in, N_ROWS, want);
  check_order(&a, in2, 3, want2);
  free(a.bands);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_batch_of_200_is_four_blocks_of_50),
      cmocka_unit_test(test_blocks_are_even_and_cover_the_batch),
      cmocka_unit_test(test_a_short_batch_leaves_blocks_empty),
      cmocka_unit_test(test_a_blocks_rows_go_by_their_bands),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
