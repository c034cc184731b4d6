/*
 * test_apps_pr_layout.c - the block layouts a PageRank worker holds
 * (apps/pagerank/pr_layouts.c): the first begin builds the task's layout
 * and spares for the other tasks, each equal, array for array, to one
 * built alone for that task; a later begin of a spare builds nothing (its
 * arrays stay where they were); a new chunk size rebuilds; spares past
 * the memory budget are left unbuilt. Blocks of short groups run edge by
 * edge (PR_BLOCK_EDGE_MAJOR), others group by group: both give the bits of
 * the plain sum over each vertex's in-edges in CSC order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/pagerank/pagerank.h"

#define N 600
#define TASKS 6

/* A graph where vertex v has in-edges from (v * 7 + i * 13) % N, i < v % 5 + 1, ascending. */
struct fixture {
  uint64_t in_off[N + 1];
  uint32_t in_src[N * 5];
  uint32_t out_deg[N];
  uint64_t task_lo[TASKS + 1];
  struct pr_app pr;
};

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static struct fixture *make(void) {
  struct fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  uint64_t m = 0;
  for (uint32_t v = 0; v < N; v++) {
    f->in_off[v] = m;
    uint32_t k = v % 5 + 1;
    for (uint32_t i = 0; i < k; i++)
      f->in_src[m + i] = (v * 7 + i * 13) % N;
    qsort(f->in_src + m, k, sizeof *f->in_src, cmp_u32);
    for (uint32_t i = 0; i < k; i++)
      f->out_deg[f->in_src[m + i]]++;
    m += k;
  }
  f->in_off[N] = m;
  for (uint32_t t = 0; t <= TASKS; t++)
    f->task_lo[t] = (uint64_t)N * t / TASKS;
  f->pr.g = (struct dsana_graph){.n = N, .m = m, .in_off = f->in_off, .in_src = f->in_src, .out_deg = f->out_deg};
  f->pr.n_tasks = TASKS;
  f->pr.task_lo = f->task_lo;
  f->pr.blocks = calloc(TASKS, sizeof *f->pr.blocks);
  assert_non_null(f->pr.blocks);
  assert_int_equal(pthread_mutex_init(&f->pr.blocks_mu, NULL), 0);
  return f;
}

static void drop(struct fixture *f) {
  for (uint32_t t = 0; t < TASKS; t++)
    pr_block_fini(&f->pr.blocks[t]);
  free(f->pr.blocks);
  pthread_mutex_destroy(&f->pr.blocks_mu);
  free(f);
}

/* b holds the layout of task t for chunks of k keys, as a fresh build does. */
static void assert_layout(struct fixture *f, const struct pr_block *b, uint32_t t, uint64_t k) {
  struct pr_block want;
  assert_int_equal(pr_block_build(&want, &f->pr.g, f->task_lo[t], f->task_lo[t + 1], k, false), 0);
  assert_non_null(b->chunk_grp);
  assert_int_equal(b->chunk_keys, want.chunk_keys);
  assert_int_equal(b->n_chunks, want.n_chunks);
  assert_int_equal(b->n_groups, want.n_groups);
  assert_int_equal(b->n_edges, want.n_edges);
  assert_memory_equal(b->chunk_grp, want.chunk_grp, (want.n_chunks + 1) * sizeof *want.chunk_grp);
  assert_memory_equal(b->grp_dst, want.grp_dst, want.n_groups * sizeof *want.grp_dst);
  assert_memory_equal(b->grp_end, want.grp_end, want.n_groups * sizeof *want.grp_end);
  assert_memory_equal(b->src, want.src, want.n_edges * sizeof *want.src);
  pr_block_fini(&want);
}

static void test_first_begin_builds_every_task(void **state) {
  (void)state;
  struct fixture *f = make();
  int rc = -1;
  const struct pr_block *b = pr_layout(&f->pr, 2, 64, &rc);
  assert_int_equal(rc, 0);
  assert_ptr_equal(b, &f->pr.blocks[2]);
  for (uint32_t t = 0; t < TASKS; t++)
    assert_layout(f, &f->pr.blocks[t], t, 64);
  drop(f);
}

static void test_spare_is_not_rebuilt(void **state) {
  (void)state;
  struct fixture *f = make();
  int rc = -1;
  assert_non_null(pr_layout(&f->pr, 0, 64, &rc));
  const uint32_t *src = f->pr.blocks[5].src;
  assert_non_null(src);
  assert_non_null(pr_layout(&f->pr, 5, 64, &rc));
  assert_int_equal(rc, 0);
  assert_ptr_equal(f->pr.blocks[5].src, src);
  drop(f);
}

static void test_new_chunk_size_rebuilds(void **state) {
  (void)state;
  struct fixture *f = make();
  int rc = -1;
  assert_non_null(pr_layout(&f->pr, 1, 64, &rc));
  const struct pr_block *b = pr_layout(&f->pr, 3, 100, &rc);
  assert_int_equal(rc, 0);
  assert_layout(f, b, 3, 100);
  drop(f);
}

static void test_spares_stop_at_the_budget(void **state) {
  (void)state;
  struct fixture *f = make();
  f->pr.spare_bytes = 1; /* no room for any spare */
  int rc = -1;
  assert_non_null(pr_layout(&f->pr, 4, 64, &rc));
  assert_int_equal(rc, 0);
  assert_layout(f, &f->pr.blocks[4], 4, 64);
  for (uint32_t t = 0; t < TASKS; t++)
    if (t != 4)
      assert_null(f->pr.blocks[t].chunk_grp);
  drop(f);
}

/* Every block of every chunk, in chunk order, over all N vertices: the
 * plain CSC-order sums (weighted: of w * contrib), bit for bit; and
 * whether the blocks ran edge by edge. */
static bool blocks_sum_exactly(struct fixture *f, uint64_t k, const double *w) {
  double contrib[N], acc[N], want[N];
  for (uint32_t v = 0; v < N; v++)
    contrib[v] = 1.0 / (3.0 + v * 0.37);
  f->pr.g.in_w = w;
  struct pr_block b;
  assert_int_equal(pr_block_build(&b, &f->pr.g, 0, N, k, w != NULL), 0);
  for (uint32_t v = 0; v < N; v++) {
    acc[v] = 0.0;
    double s = 0.0;
    for (uint64_t e = f->in_off[v]; e < f->in_off[v + 1]; e++)
      s += (w ? w[e] : 1.0) * contrib[f->in_src[e]];
    want[v] = s;
  }
  for (uint64_t c = 0; c < b.n_chunks; c++)
    if (w)
      pr_block_run_weighted(&b, c, contrib, acc);
    else
      pr_block_run(&b, c, contrib, acc);
  assert_memory_equal(acc, want, sizeof want);
  bool edge_major = b.edge_dst != NULL;
  pr_block_fini(&b);
  f->pr.g.in_w = NULL;
  return edge_major;
}

static void test_short_and_long_groups_same_bits(void **state) {
  (void)state;
  struct fixture *f = make();
  static double w[N * 5];
  for (uint64_t e = 0; e < f->in_off[N]; e++)
    w[e] = 0.5 + (double)(e % 7) / 3.0;
  /* chunks of 16 keys split a vertex's 1-5 in-edges into groups of about 1; one chunk keeps them whole (3 a group) */
  assert_true(blocks_sum_exactly(f, 16, NULL));
  assert_true(blocks_sum_exactly(f, 16, w));
  assert_false(blocks_sum_exactly(f, N, NULL));
  assert_false(blocks_sum_exactly(f, N, w));
  drop(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_begin_builds_every_task),   cmocka_unit_test(test_spare_is_not_rebuilt),
      cmocka_unit_test(test_new_chunk_size_rebuilds),         cmocka_unit_test(test_spares_stop_at_the_budget),
      cmocka_unit_test(test_short_and_long_groups_same_bits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
