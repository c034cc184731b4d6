/*
 * test_runtime_shard.c - key-range sharding (shard_range, shard_of) and
 * the job an app declares (runtime/core/job.c, job_index.c): what the
 * dsana_job_* calls refuse at once, what job_finalize() refuses (naming
 * the tables and tasks), DSANA_ALL_TASKS expansion, the per-task index of
 * read and write ranges, and key spaces. Control-message codecs and exact
 * sums: test_runtime_msg.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dsana/dataset.h"
#include "runtime/core/job.h"

static void test_shards_cover_exactly_once(void **state) {
  (void)state;
  static const uint64_t sizes[] = {1, 2, 3, 7, 100, 1000003, (uint64_t)1 << 40, UINT64_MAX / 3};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (uint32_t s_n = 1; s_n <= 17; s_n++) {
      uint64_t next = 0;
      for (uint32_t s = 0; s < s_n; s++) {
        uint64_t lo, hi;
        shard_range(sizes[i], s_n, s, &lo, &hi);
        assert_int_equal(lo, next);
        assert_true(hi >= lo);
        /* balanced: sizes differ by at most one */
        assert_true(hi - lo <= sizes[i] / s_n + 1);
        assert_true(hi - lo >= sizes[i] / s_n);
        if (hi > lo) {
          assert_int_equal(shard_of(sizes[i], s_n, lo), s);
          assert_int_equal(shard_of(sizes[i], s_n, hi - 1), s);
        }
        next = hi;
      }
      assert_int_equal(next, sizes[i]);
    }
}

static void test_shard_of_every_key(void **state) {
  (void)state;
  for (uint32_t s_n = 1; s_n <= 9; s_n++)
    for (uint64_t k = 0; k < 1000; k++) {
      uint32_t s = shard_of(1000, s_n, k);
      uint64_t lo, hi;
      shard_range(1000, s_n, s, &lo, &hi);
      assert_true(k >= lo && k < hi);
    }
  /* more servers than keys: some shards are empty, keys still found */
  for (uint64_t k = 0; k < 3; k++) {
    uint32_t s = shard_of(3, 8, k);
    uint64_t lo, hi;
    shard_range(3, 8, s, &lo, &hi);
    assert_true(k >= lo && k < hi);
  }
}

/* ---- declarations ----------------------------------------------------- */

struct jfix {
  struct dsana_job job;
  char err[256];
};

static int jsetup(void **state) {
  struct jfix *j = calloc(1, sizeof *j);
  if (!j)
    return -1;
  job_init(&j->job, 2, 2, 4, "test");
  *state = j;
  return 0;
}

static int jteardown(void **state) {
  struct jfix *j = *state;
  job_fini(&j->job);
  free(j);
  return 0;
}

static uint32_t add_table(struct dsana_job *job, const char *name, uint64_t n, uint32_t w, enum dsana_rule rule) {
  uint32_t id = UINT32_MAX;
  assert_int_equal(dsana_job_add_table(job, name, n, w, rule, &id), 0);
  return id;
}

static void set_tasks(struct dsana_job *job, uint32_t n) {
  struct dsana_task_decl t[8];
  assert_true(n <= 8);
  for (uint32_t i = 0; i < n; i++)
    t[i] = (struct dsana_task_decl){10 * i, 10 * i + 10, 1.0 + i};
  assert_int_equal(dsana_job_set_tasks(job, t, n), 0);
}

/* A fresh job in the fixture (a refusal sticks to the job it was made on). */
static void fresh(struct jfix *j) {
  job_fini(&j->job);
  job_init(&j->job, 2, 2, 4, "test");
}

/* job_finalize refuses; its message contains every one of the words. */
static void expect_refused(struct jfix *j, const char *w1, const char *w2) {
  memset(j->err, 0, sizeof j->err);
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), DSANA_EINVAL);
  if (!strstr(j->err, w1) || (w2 && !strstr(j->err, w2)))
    fail_msg("'%s' lacks '%s' or '%s'", j->err, w1, w2 ? w2 : "");
}

static void test_assign_overlap_names_tasks(void **state) {
  struct jfix *j = *state;
  uint32_t x = add_table(&j->job, "ranks", 100, 1, DSANA_RULE_ASSIGN);
  uint32_t s = add_table(&j->job, "sums", 100, 1, DSANA_RULE_SUM);
  set_tasks(&j->job, 4);
  assert_int_equal(dsana_job_set_result_table(&j->job, x), 0);
  /* tasks 1 and 3 overlap in [60, 70); tasks 0, 2 and 1 only touch */
  assert_int_equal(dsana_job_task_writes(&j->job, 0, x, 0, 20), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, 2, x, 20, 35), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, 3, x, 60, 100), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, 1, x, 35, 70), 0);
  /* SUM tables may be written by every task everywhere */
  assert_int_equal(dsana_job_task_writes(&j->job, DSANA_ALL_TASKS, s, 0, 100), 0);
  expect_refused(j, "tasks 1 and 3", "[60, 70)");
  assert_non_null(strstr(j->err, "'ranks'"));
}

static void test_assign_disjoint_accepted(void **state) {
  struct jfix *j = *state;
  uint32_t x = add_table(&j->job, "x", 100, 2, DSANA_RULE_ASSIGN);
  set_tasks(&j->job, 4);
  assert_int_equal(dsana_job_set_result_table(&j->job, x), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, 3, x, 0, 25), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, 0, x, 25, 25), 0); /* empty: owns nothing */
  assert_int_equal(dsana_job_task_writes(&j->job, 1, x, 25, 100), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, 2, x, 50, 50), 0); /* empty, inside task 1's */
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), 0);
  struct job_range r;
  assert_true(job_task_writes(&j->job, 3, x, &r));
  assert_true(r.table == x && r.lo == 0 && r.hi == 25);
  assert_true(job_task_writes(&j->job, 1, x, &r) && r.lo == 25 && r.hi == 100);
  assert_false(job_task_reads(&j->job, 1, x, &r));
  assert_false(job_task_writes(&j->job, 4, x, &r)); /* no task 4 */
}

/* Writes into DERIVED tables and any use of STATE tables are refused when
 * declared, and the refusal is what job_finalize reports. */
static void test_derived_and_state_not_for_tasks(void **state) {
  struct jfix *j = *state;
  for (int write = 0; write < 2; write++) {
    fresh(j);
    uint32_t d = add_table(&j->job, "deg", 100, 1, DSANA_RULE_DERIVED);
    uint32_t st = add_table(&j->job, "hist", 100, 4, DSANA_RULE_STATE);
    set_tasks(&j->job, 2);
    assert_int_equal(dsana_job_set_result_table(&j->job, d), 0);
    assert_null(dsana_job_error(&j->job));
    assert_int_equal(dsana_job_task_reads(&j->job, DSANA_ALL_TASKS, d, 0, 100), 0); /* reading is fine */
    if (write) {
      assert_int_equal(dsana_job_task_writes(&j->job, 0, d, 0, 10), DSANA_EINVAL);
      expect_refused(j, "'deg'", "DERIVED");
    } else {
      assert_int_equal(dsana_job_task_reads(&j->job, 0, st, 0, 10), DSANA_EINVAL);
      expect_refused(j, "'hist'", "STATE");
    }
  }
}

/* One refused declaration per job: each case's message names what is wrong. */
static void test_ranges_outside_tables(void **state) {
  struct jfix *j = *state;
  static const struct {
    uint32_t task, table;
    uint64_t lo, hi;
    bool write;
    const char *why;
  } bad[] = {{0, 0, 0, 101, true, "[0, 101)"},
             {0, 0, 50, 40, true, "[50, 40)"},
             {0, 1, 0, 10, true, "no table 1"},
             {2, 0, 0, 10, true, "no task 2"},
             {1, 0, UINT64_MAX, UINT64_MAX, false, "outside the table"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fresh(j);
    uint32_t x = add_table(&j->job, "x", 100, 1, DSANA_RULE_SUM);
    set_tasks(&j->job, 2);
    assert_int_equal(dsana_job_task_writes(&j->job, 0, x, 100, 100), 0); /* empty at the end is inside */
    int rc = bad[i].write ? dsana_job_task_writes(&j->job, bad[i].task, bad[i].table, bad[i].lo, bad[i].hi)
                          : dsana_job_task_reads(&j->job, bad[i].task, bad[i].table, bad[i].lo, bad[i].hi);
    assert_int_equal(rc, DSANA_EINVAL);
    assert_non_null(strstr(dsana_job_error(&j->job), bad[i].why));
    assert_int_equal(dsana_job_set_result_table(&j->job, x), DSANA_EINVAL); /* a no-op now */
    expect_refused(j, bad[i].why, NULL);                                    /* the first refusal is remembered */
  }
  /* before the tasks: only DSANA_ALL_TASKS can be named */
  fresh(j);
  uint32_t x = add_table(&j->job, "x", 100, 1, DSANA_RULE_SUM);
  assert_int_equal(dsana_job_task_reads(&j->job, DSANA_ALL_TASKS, x, 0, 100), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, 0, x, 0, 10), DSANA_EINVAL);
  assert_non_null(strstr(dsana_job_error(&j->job), "no task 0"));
}

/* After the first refusal every declaration does nothing and returns the
 * first code; dsana_job_status gives it with its message, prefixed. */
static void test_first_error_kept(void **state) {
  struct jfix *j = *state;
  assert_int_equal(dsana_job_status(&j->job, "data.txt", j->err, sizeof j->err), 0);
  uint32_t x = add_table(&j->job, "x", 100, 1, DSANA_RULE_SUM);
  j->job.max_keys = 1000;
  uint32_t id = 99;
  assert_int_equal(dsana_job_add_table(&j->job, "big", 1001, 1, DSANA_RULE_SUM, &id), DSANA_ERANGE);
  assert_int_equal(dsana_job_add_table(&j->job, "small", 10, 1, DSANA_RULE_SUM, &id), DSANA_ERANGE);
  assert_int_equal(id, 99);
  assert_int_equal(j->job.n_tables, 1);
  struct dsana_task_decl t = {0, 10, 1.0};
  assert_int_equal(dsana_job_set_tasks(&j->job, &t, 1), DSANA_ERANGE);
  assert_int_equal(j->job.n_tasks, 0);
  assert_int_equal(dsana_job_task_writes(&j->job, DSANA_ALL_TASKS, x, 0, 100), DSANA_ERANGE);
  assert_int_equal(j->job.n_decls, 0);
  assert_int_equal(dsana_job_set_result_table(&j->job, x), DSANA_ERANGE);
  assert_int_equal(j->job.result_table, JOB_NONE);
  assert_int_equal(dsana_job_set_sums(&j->job, 3), DSANA_ERANGE);
  assert_int_equal(dsana_job_add_fact(&j->job, "rows", 1), DSANA_ERANGE);
  assert_int_equal(dsana_job_fail(&j->job, DSANA_ENOMEM, "later"), DSANA_ERANGE);
  assert_int_equal(dsana_job_status(&j->job, "data.txt", j->err, sizeof j->err), DSANA_ERANGE);
  assert_string_equal(j->err, "data.txt: table 'big' has 1001 keys, more than --max-keys 1000");
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), DSANA_ERANGE);
  /* the app's own failure is kept the same way */
  fresh(j);
  assert_int_equal(dsana_job_fail(&j->job, DSANA_ENOMEM, "out of memory for the tasks"), DSANA_ENOMEM);
  assert_int_equal(dsana_job_add_table(&j->job, "x", 10, 1, DSANA_RULE_SUM, &id), DSANA_ENOMEM);
  assert_int_equal(dsana_job_status(&j->job, NULL, j->err, sizeof j->err), DSANA_ENOMEM);
  assert_string_equal(j->err, "out of memory for the tasks");
}

static void test_two_ranges_of_one_table(void **state) {
  struct jfix *j = *state;
  uint32_t a = add_table(&j->job, "a", 100, 1, DSANA_RULE_SUM);
  uint32_t b = add_table(&j->job, "b", 100, 1, DSANA_RULE_SUM);
  set_tasks(&j->job, 3);
  assert_int_equal(dsana_job_set_result_table(&j->job, a), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, DSANA_ALL_TASKS, a, 0, 100), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, 2, b, 0, 10), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, 1, a, 0, 10), 0); /* task 1 reads a twice */
  expect_refused(j, "task 1", "two read ranges of table 'a'");
}

static void test_two_write_ranges_of_one_table(void **state) {
  struct jfix *j = *state;
  uint32_t a = add_table(&j->job, "a", 100, 1, DSANA_RULE_SUM);
  set_tasks(&j->job, 3);
  assert_int_equal(dsana_job_set_result_table(&j->job, a), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, 2, a, 0, 10), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, 2, a, 0, 10), 0); /* reading it too is fine */
  assert_int_equal(dsana_job_task_writes(&j->job, 2, a, 20, 30), 0);
  expect_refused(j, "task 2", "two write ranges of table 'a'");
}

static void test_block_table_read_by_every_task(void **state) {
  struct jfix *j = *state;
  uint32_t a = add_table(&j->job, "a", 100, 1, DSANA_RULE_SUM);
  uint32_t blk = add_table(&j->job, "blocks", 64, 1, DSANA_RULE_DERIVED);
  set_tasks(&j->job, 3);
  assert_int_equal(dsana_job_set_result_table(&j->job, a), 0);
  assert_int_equal(dsana_job_set_block_table(&j->job, blk), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, 0, blk, 0, 64), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, 2, blk, 0, 32), 0);
  expect_refused(j, "task 1", "block table 'blocks'");
  assert_int_equal(dsana_job_task_reads(&j->job, 1, blk, 32, 64), 0);
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), 0); /* finalize may be redone */
  assert_int_equal(j->job.block_table, blk);
  fresh(j);
  add_table(&j->job, "a", 100, 1, DSANA_RULE_SUM);
  assert_int_equal(dsana_job_set_block_table(&j->job, 7), DSANA_EINVAL);
  assert_non_null(strstr(dsana_job_error(&j->job), "no table 7"));
}

static void test_no_result_table_tables_or_tasks(void **state) {
  struct jfix *j = *state;
  expect_refused(j, "no tables", NULL);
  uint32_t a = add_table(&j->job, "a", 100, 1, DSANA_RULE_SUM);
  expect_refused(j, "no tasks", NULL);
  set_tasks(&j->job, 2);
  expect_refused(j, "no result table", NULL);
  assert_int_equal(dsana_job_set_result_table(&j->job, a), 0);
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), 0);
  assert_int_equal(j->job.result_table, a);
  assert_int_equal(dsana_job_set_result_table(&j->job, 3), DSANA_EINVAL);
  assert_non_null(strstr(dsana_job_error(&j->job), "no table 3"));
}

/* DSANA_ALL_TASKS stands for every task, declared before or after them,
 * next to per-task ranges of other tables; ranges come in table order. */
static void test_all_tasks_expansion(void **state) {
  struct jfix *j = *state;
  uint32_t a = add_table(&j->job, "a", 100, 1, DSANA_RULE_ASSIGN);
  uint32_t b = add_table(&j->job, "b", 30, 2, DSANA_RULE_SUM);
  uint32_t c = add_table(&j->job, "c", 100, 1, DSANA_RULE_DERIVED);
  assert_int_equal(dsana_job_task_reads(&j->job, DSANA_ALL_TASKS, c, 0, 100), 0);
  set_tasks(&j->job, 5);
  for (uint32_t t = 0; t < 5; t++)
    assert_int_equal(dsana_job_task_writes(&j->job, t, a, 20 * t, 20 * t + 20), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, DSANA_ALL_TASKS, b, 5, 25), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, DSANA_ALL_TASKS, b, 0, 30), 0);
  assert_int_equal(dsana_job_set_result_table(&j->job, a), 0);
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), 0);
  for (uint32_t t = 0; t < 5; t++) {
    struct job_range r;
    assert_true(job_task_reads(&j->job, t, c, &r) && r.lo == 0 && r.hi == 100);
    assert_true(job_task_reads(&j->job, t, b, &r) && r.lo == 5 && r.hi == 25);
    assert_false(job_task_reads(&j->job, t, a, &r));
    assert_true(job_task_writes(&j->job, t, a, &r) && r.lo == 20 * t && r.hi == 20 * t + 20);
    assert_true(job_task_writes(&j->job, t, b, &r) && r.lo == 0 && r.hi == 30);
    /* the index: two reads and two writes each, in table order */
    assert_int_equal(j->job.rd_off[t + 1] - j->job.rd_off[t], 2);
    assert_int_equal(j->job.wr_off[t + 1] - j->job.wr_off[t], 2);
    assert_int_equal(j->job.rd[j->job.rd_off[t]].table, b);
    assert_int_equal(j->job.rd[j->job.rd_off[t] + 1].table, c);
    assert_int_equal(j->job.wr[j->job.wr_off[t]].table, a);
    assert_int_equal(j->job.wr[j->job.wr_off[t] + 1].table, b);
  }
  /* one more range of a for every task: each now has two */
  assert_int_equal(dsana_job_task_writes(&j->job, DSANA_ALL_TASKS, a, 0, 1), 0);
  expect_refused(j, "two write ranges", "'a'");
}

/* Tasks declared again, fewer of them: ranges of the tasks gone are
 * refused, never indexed (they would land past the per-task index). */
static void test_ranges_of_tasks_gone(void **state) {
  struct jfix *j = *state;
  uint32_t a = add_table(&j->job, "a", 100, 1, DSANA_RULE_SUM);
  set_tasks(&j->job, 8);
  assert_int_equal(dsana_job_set_result_table(&j->job, a), 0);
  assert_int_equal(dsana_job_task_reads(&j->job, DSANA_ALL_TASKS, a, 0, 100), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, 7, a, 0, 10), 0);
  set_tasks(&j->job, 2);
  expect_refused(j, "task 7", NULL);
  set_tasks(&j->job, 8); /* back to eight: fine again */
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), 0);
  struct job_range r;
  assert_true(job_task_writes(&j->job, 7, a, &r) && r.hi == 10);
}

static void test_all_tasks_overlap_on_assign(void **state) {
  struct jfix *j = *state;
  uint32_t a = add_table(&j->job, "a", 100, 1, DSANA_RULE_ASSIGN);
  set_tasks(&j->job, 3);
  assert_int_equal(dsana_job_set_result_table(&j->job, a), 0);
  assert_int_equal(dsana_job_task_writes(&j->job, DSANA_ALL_TASKS, a, 0, 10), 0);
  expect_refused(j, "tasks 0 and 1", "[0, 10)");
}

/* Tables of equal key counts form a key space, whatever their widths. */
static void test_key_spaces(void **state) {
  struct jfix *j = *state;
  const uint64_t keys[] = {100, 50, 100, 50, 7, 100};
  const uint32_t widths[] = {1, 1, 3, 2, 1, 4};
  const uint32_t space[] = {0, 1, 0, 1, 2, 0};
  for (uint32_t t = 0; t < 6; t++) {
    char name[16];
    snprintf(name, sizeof name, "t%u", t);
    assert_int_equal(add_table(&j->job, name, keys[t], widths[t], DSANA_RULE_SUM), t);
  }
  set_tasks(&j->job, 1);
  assert_int_equal(dsana_job_set_result_table(&j->job, 0), 0);
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), 0);
  assert_int_equal(j->job.n_spaces, 3);
  assert_int_equal(j->job.space_keys[0], 100);
  assert_int_equal(j->job.space_keys[1], 50);
  assert_int_equal(j->job.space_keys[2], 7);
  for (uint32_t t = 0; t < 6; t++) {
    assert_int_equal(j->job.tables[t].space, space[t]);
    assert_int_equal(j->job.tables[t].width, widths[t]);
    assert_int_equal(j->job.tables[t].n_keys, keys[t]);
  }
}

/* Tables declared with the app's own ids: in order they are taken, an id
 * out of order is refused naming the table and the id it would have. */
static void test_table_ids_in_order(void **state) {
  struct jfix *j = *state;
  enum { T_X, T_G, T_STATE };
  assert_int_equal(dsana_job_add_table_id(&j->job, T_X, "x", 10, 1, DSANA_RULE_DERIVED), 0);
  assert_int_equal(dsana_job_add_table_id(&j->job, T_G, "g", 10, 2, DSANA_RULE_SUM), 0);
  assert_int_equal(j->job.n_tables, 2);
  assert_int_equal(j->job.tables[T_G].width, 2);
  assert_int_equal(dsana_job_add_table_id(&j->job, 5, "state", 10, 1, DSANA_RULE_STATE), DSANA_EINVAL);
  assert_int_equal(j->job.n_tables, 2);
  if (!strstr(dsana_job_error(&j->job), "'state'") || !strstr(dsana_job_error(&j->job), "id 5") ||
      !strstr(dsana_job_error(&j->job), "this is 2"))
    fail_msg("%s", dsana_job_error(&j->job));
  fresh(j);
  assert_int_equal(dsana_job_add_table_id(&j->job, T_G, "g", 10, 1, DSANA_RULE_SUM), DSANA_EINVAL); /* 0 first */
  fresh(j); /* the table's own checks still hold */
  assert_int_equal(dsana_job_add_table_id(&j->job, T_X, "x", 0, 1, DSANA_RULE_SUM), DSANA_EINVAL);
}

/* dsana_job_add_row_tasks without a data set: rows cut at block edges,
 * task i of k starting at block floor(B * i / k) (the MLP's cut), fewer
 * tasks than blocks never; costs per row; whole-table uses declared for
 * every task of the group. */
static void test_row_tasks_cut_evenly(void **state) {
  struct jfix *j = *state;
  uint32_t g = add_table(&j->job, "g", 50, 1, DSANA_RULE_SUM);
  uint32_t w = add_table(&j->job, "w", 50, 1, DSANA_RULE_DERIVED);
  struct dsana_row_tasks rows = {.n_rows = 10, .cost_row = 64, .tables = {{g, DSANA_ROWS_WRITE}, {w, DSANA_ROWS_READ}}};
  uint32_t first = 99, n = 99;
  assert_int_equal(dsana_job_add_row_tasks(&j->job, &rows, &first, &n), 0);
  assert_int_equal(first, 0);
  assert_int_equal(n, 8); /* 0: n_workers (2) x tasks_per_worker (4) */
  struct dsana_task_decl t;
  for (uint32_t i = 0; i < n; i++) {
    assert_int_equal(dsana_job_get_task(&j->job, i, &t), 0);
    assert_int_equal(t.lo, 10 * i / 8);
    assert_int_equal(t.hi, 10 * (i + 1) / 8);
    assert_true(t.cost == 64.0 * (double)(t.hi - t.lo));
  }
  assert_int_equal(dsana_job_get_task(&j->job, 8, &t), DSANA_EINVAL);
  assert_int_equal(dsana_job_set_result_table(&j->job, w), 0);
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), 0);
  struct job_range r;
  assert_true(job_task_writes(&j->job, 7, g, &r) && r.lo == 0 && r.hi == 50);
  assert_true(job_task_reads(&j->job, 3, w, &r) && r.lo == 0 && r.hi == 50);
  fresh(j); /* blocks of 4 rows: 3 blocks, so 3 tasks; the last ends at the rows' end */
  g = add_table(&j->job, "g", 50, 1, DSANA_RULE_SUM);
  rows = (struct dsana_row_tasks){.n_rows = 10, .block = 4, .cost_task = 1};
  assert_int_equal(dsana_job_add_row_tasks(&j->job, &rows, NULL, &n), 0);
  assert_int_equal(n, 3);
  assert_int_equal(dsana_job_get_task(&j->job, 2, &t), 0);
  assert_true(t.lo == 8 && t.hi == 10 && t.cost == 1.0);
  fresh(j);
  rows.n_rows = 0;
  assert_int_equal(dsana_job_add_row_tasks(&j->job, &rows, NULL, &n), DSANA_EINVAL);
  assert_int_equal(n, 0);
  assert_non_null(strstr(dsana_job_error(&j->job), "no rows"));
}

/* With a data set: the cut is dsana_dataset_cut_rows's, costs count the
 * entries; a second group (test rows) comes after the first, each task
 * reading and writing its own rows where asked; a bad table is refused. */
static void test_row_tasks_of_a_dataset(void **state) {
  struct jfix *j = *state;
  static const uint64_t off[] = {0, 1, 5, 6, 6, 9, 20, 21, 22, 30, 31, 33, 34, 40, 41, 45, 47};
  struct dsana_dataset ds = {.n_rows = 16, .nnz = 47, .row_off = off};
  uint32_t lab = add_table(&j->job, "labels", 16, 1, DSANA_RULE_ASSIGN);
  uint32_t g = add_table(&j->job, "g", 3, 1, DSANA_RULE_SUM);
  struct dsana_row_tasks train = {
      .ds = &ds,
      .block = 2,
      .max_tasks = 3,
      .cost_entry = 2,
      .cost_row = 0.5,
      .tables = {{lab, DSANA_ROWS_READ | DSANA_ROWS_WRITE | DSANA_ROWS_OWN}, {g, DSANA_ROWS_WRITE}}};
  struct dsana_row_tasks test = {.ds = &ds, .block = 2, .max_tasks = 2, .cost_task = 1};
  uint32_t first, n, n_test;
  assert_int_equal(dsana_job_add_row_tasks(&j->job, &train, &first, &n), 0);
  assert_int_equal(dsana_job_add_row_tasks(&j->job, &test, &first, &n_test), 0);
  assert_int_equal(first, n);
  uint64_t cut[4];
  assert_int_equal(dsana_dataset_cut_rows(&ds, 2, 3, cut), n);
  struct dsana_task_decl t;
  for (uint32_t i = 0; i < n; i++) {
    assert_int_equal(dsana_job_get_task(&j->job, i, &t), 0);
    assert_true(t.lo == cut[i] && t.hi == cut[i + 1] && t.lo % 2 == 0);
    assert_true(t.cost == 2.0 * (double)(off[t.hi] - off[t.lo]) + 0.5 * (double)(t.hi - t.lo));
  }
  assert_int_equal(dsana_dataset_cut_rows(&ds, 2, 2, cut), n_test);
  assert_int_equal(dsana_job_get_task(&j->job, first + 1, &t), 0);
  assert_true(t.lo == cut[1] && t.hi == cut[2] && t.cost == 1.0);
  assert_int_equal(dsana_job_set_result_table(&j->job, lab), 0);
  assert_int_equal(job_finalize(&j->job, j->err, sizeof j->err), 0); /* own rows: disjoint ASSIGN ranges */
  struct job_range r;
  assert_int_equal(dsana_job_get_task(&j->job, 1, &t), 0);
  assert_true(job_task_reads(&j->job, 1, lab, &r) && r.lo == t.lo && r.hi == t.hi);
  assert_true(job_task_writes(&j->job, 1, lab, &r) && r.lo == t.lo && r.hi == t.hi);
  assert_true(job_task_writes(&j->job, 1, g, &r) && r.lo == 0 && r.hi == 3);
  assert_false(job_task_writes(&j->job, first, g, &r)); /* test tasks write nothing */
  fresh(j);
  train.tables[1].table = 5;
  add_table(&j->job, "labels", 16, 1, DSANA_RULE_ASSIGN);
  assert_int_equal(dsana_job_add_row_tasks(&j->job, &train, NULL, &n), DSANA_EINVAL);
  assert_int_equal(n, 0);
  assert_non_null(strstr(dsana_job_error(&j->job), "no table 5"));
}

/* Each bad declaration on a job of its own (a refusal sticks). */
static void test_table_and_task_declarations(void **state) {
  struct jfix *j = *state;
  static const struct {
    const char *name;
    uint64_t n_keys;
    uint32_t width;
    enum dsana_rule rule;
    int rc;
  } bad_tables[] = {{"w0", 10, 0, DSANA_RULE_SUM, DSANA_EINVAL},
                    {"k0", 0, 1, DSANA_RULE_SUM, DSANA_EINVAL},
                    {"", 10, 1, DSANA_RULE_SUM, DSANA_EINVAL},
                    {"a-name-of-thirty-two-characters!", 10, 1, DSANA_RULE_SUM, DSANA_EINVAL},
                    {"rule", 10, 1, (enum dsana_rule)9, DSANA_EINVAL},
                    {"huge", UINT64_MAX / 8, 2, DSANA_RULE_SUM, DSANA_ERANGE}};
  uint32_t id = 99;
  for (size_t i = 0; i < sizeof bad_tables / sizeof bad_tables[0]; i++) {
    fresh(j);
    assert_int_equal(dsana_job_add_table(&j->job, bad_tables[i].name, bad_tables[i].n_keys, bad_tables[i].width,
                                         bad_tables[i].rule, &id),
                     bad_tables[i].rc);
  }
  fresh(j);
  j->job.max_keys = 1000; /* --max-keys */
  assert_int_equal(dsana_job_add_table(&j->job, "big", 1001, 1, DSANA_RULE_SUM, &id), DSANA_ERANGE);
  assert_non_null(strstr(dsana_job_error(&j->job), "'big'"));
  assert_int_equal(id, 99);
  assert_int_equal(j->job.n_tables, 0);
  fresh(j);
  for (uint32_t t = 0; t < DSANA_MAX_TABLES; t++)
    assert_int_equal(add_table(&j->job, "t", 1000, 1, DSANA_RULE_SUM), t);
  assert_int_equal(dsana_job_add_table(&j->job, "one-too-many", 10, 1, DSANA_RULE_SUM, &id), DSANA_EINVAL);

  struct dsana_task_decl bad[][2] = {{{0, 4, 1.0}, {5, 4, 1.0}}, /* reversed */
                                     {{0, 4, 0.0}, {4, 10, 2.0}},
                                     {{0, 4, -1.0}, {4, 10, 2.0}},
                                     {{0, 4, NAN}, {4, 10, 2.0}},
                                     {{0, 4, INFINITY}, {4, 10, 2.0}}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fresh(j);
    assert_int_equal(dsana_job_set_tasks(&j->job, bad[i], 2), DSANA_EINVAL);
    assert_int_equal(j->job.n_tasks, 0);
  }
  fresh(j);
  assert_int_equal(dsana_job_set_tasks(&j->job, bad[0], 0), DSANA_EINVAL);
  fresh(j);
  struct dsana_task_decl ok[2] = {{0, 0, 0.5}, {0, 1000, 1e9}}; /* ranges are the app's: may overlap */
  assert_int_equal(dsana_job_set_tasks(&j->job, ok, 2), 0);
  assert_int_equal(j->job.n_tasks, 2);
  assert_true(j->job.tasks[1].cost == 1e9);
  assert_int_equal(dsana_job_set_sums(&j->job, DSANA_MAX_SUMS), 0);
  assert_int_equal(j->job.n_sums, DSANA_MAX_SUMS);
  assert_int_equal(dsana_job_set_sums(&j->job, DSANA_MAX_SUMS + 1), DSANA_EINVAL);
  struct dsana_job_info info;
  dsana_job_get_info(&j->job, &info);
  assert_int_equal(info.n_workers, 2);
  assert_int_equal(info.n_servers, 2);
  assert_int_equal(info.tasks_per_worker, 4);
  assert_string_equal(info.role, "test");
}

static void test_unread_keys_copied(void **state) {
  struct jfix *j = *state;
  uint32_t a = add_table(&j->job, "a", 130, 1, DSANA_RULE_SUM);
  uint64_t bits[3] = {5, 0, 1ull << 1}; /* keys 0, 2 and 129 */
  assert_int_equal(dsana_job_set_unread(&j->job, a, bits), 0);
  bits[0] = 0; /* the job keeps its own copy */
  assert_int_equal(j->job.tables[a].unread[0], 5);
  assert_int_equal(j->job.tables[a].unread[2], 2);
  assert_int_equal(dsana_job_set_unread(&j->job, 1, bits), DSANA_EINVAL);
  assert_non_null(strstr(dsana_job_error(&j->job), "table 1"));
  fresh(j);
  a = add_table(&j->job, "a", 130, 1, DSANA_RULE_SUM);
  assert_int_equal(dsana_job_set_unread(&j->job, a, NULL), DSANA_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shards_cover_exactly_once),
      cmocka_unit_test(test_shard_of_every_key),
      cmocka_unit_test_setup_teardown(test_assign_overlap_names_tasks, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_assign_disjoint_accepted, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_derived_and_state_not_for_tasks, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_ranges_outside_tables, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_first_error_kept, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_two_ranges_of_one_table, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_two_write_ranges_of_one_table, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_block_table_read_by_every_task, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_no_result_table_tables_or_tasks, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_all_tasks_expansion, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_all_tasks_overlap_on_assign, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_ranges_of_tasks_gone, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_key_spaces, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_table_and_task_declarations, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_table_ids_in_order, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_row_tasks_cut_evenly, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_row_tasks_of_a_dataset, jsetup, jteardown),
      cmocka_unit_test_setup_teardown(test_unread_keys_copied, jsetup, jteardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
