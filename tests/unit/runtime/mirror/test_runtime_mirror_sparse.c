/*
 * test_runtime_mirror_sparse.c - a worker's mirror of tables read by key
 * lists (runtime/mirror/mirror_sparse.c): a task's keys are asked for in one PULL
 * per server (WIRE_F_KEYS, the keys as payload, named by the task); keys an
 * earlier request of the same iteration asked for are not asked again, and
 * a task's ticket is ready once every request up to the last one holding
 * its keys is answered. Answers (packed, per key range) place values by the
 * request's keys; wrong counts, duplicates and strangers are dropped; a
 * new iteration forgets the old requests.
 *
 * Two servers (shards [0, 50) and [50, 100)); table 0: 100 keys of width
 * 2, read by key lists; table 1: dense.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mirror_test_fixture.h"

#define T 0 /* the sparse table */

static int setup_sparse(void **state) {
  struct spec sp = {
      .n_servers = 2, .chunk_keys = 10, .n_tables = 2, .t = {{100, 2, 0, 0}, {100, 1, 0, 0}}, .sparse = 1u << T};
  return fixture_make(state, &sp);
}

static uint32_t ask(struct fixture *f, uint32_t iter, uint32_t task, const uint64_t *keys, uint64_t n) {
  uint32_t ticket = 12345;
  assert_int_equal(mirror_sparse_request(&f->m, T, iter, task, keys, n, &ticket, &f->q), 0);
  return ticket;
}

/* Queued message i is server s's PULL of keys[0..n) for task and iter. */
static void expect_keys_pull(struct fixture *f, size_t i, uint32_t s, uint32_t iter, uint32_t task,
                             const uint64_t *keys, uint64_t n) {
  assert_true(i < f->q.n);
  const struct rt_out *o = &f->q.v[i];
  assert_int_equal(o->role, ROLE_SERVER);
  assert_int_equal(o->index, s);
  assert_int_equal(o->hdr.type, WIRE_PULL);
  assert_int_equal(o->hdr.sender, SELF);
  assert_int_equal(o->hdr.table, T);
  assert_int_equal(o->hdr.iter, iter);
  assert_int_equal(o->hdr.task, task);
  assert_int_equal(o->hdr.flags, WIRE_F_KEYS);
  assert_int_equal(o->hdr.count, n);
  assert_int_equal(o->hdr.key_lo, keys[0]);
  assert_int_equal(o->hdr.key_hi, keys[n - 1] + 1);
  assert_int_equal(o->hdr.payload_bytes, n * 8);
  assert_memory_equal(o->payload, keys, n * 8);
}

/* Server s answers task's request for iter over [lo, hi): the values of
 * keys[0..n) (the request's keys inside the range), `count` claimed. */
static void answer(struct fixture *f, uint32_t s, uint32_t iter, uint32_t task, uint64_t lo, uint64_t hi,
                   const uint64_t *keys, uint64_t n, uint32_t count, double tag) {
  double v[2 * 64];
  assert_true(n <= 64);
  for (uint64_t i = 0; i < n; i++)
    for (uint32_t j = 0; j < 2; j++)
      v[2 * i + j] = val(iter, keys[i], j, tag);
  struct wire_hdr h = reply_hdr(s, T, iter, lo, hi);
  h.task = task;
  h.flags = WIRE_F_PACKED;
  h.count = count;
  h.payload_bytes = n * 2 * sizeof(double);
  offer(f, s, &h, v);
}

static void good_answer(struct fixture *f, uint32_t s, uint32_t iter, uint32_t task, uint64_t lo, uint64_t hi,
                        const uint64_t *keys, uint64_t n, double tag) {
  answer(f, s, iter, task, lo, hi, keys, n, (uint32_t)n, tag);
}

/* Keys [0, 100) hold iter's values (tag) at keys[0..n), zeros elsewhere. */
static void check_only(struct fixture *f, uint32_t iter, const uint64_t *keys, uint64_t n, double tag) {
  const double *v = f->m.t[T].values;
  assert_non_null(v);
  uint64_t i = 0;
  for (uint64_t k = 0; k < 100; k++) {
    bool have = i < n && keys[i] == k;
    for (uint32_t j = 0; j < 2; j++)
      assert_true(v[2 * k + j] == (have ? val(iter, k, j, tag) : 0.0));
    i += have;
  }
}

static bool ready(struct fixture *f, uint32_t iter, uint32_t ticket) {
  return mirror_sparse_ready(&f->m, T, iter, ticket);
}

/* One task's keys across both shards: one request per server; ready once
 * both are answered, in pieces. */
static void test_request_split_and_answered(void **state) {
  struct fixture *f = *state;
  assert_true(f->m.t[T].sparse);
  const uint64_t keys[] = {3, 10, 49, 50, 77};
  uint32_t t0 = ask(f, 1, 7, keys, 5);
  assert_int_equal(t0, 1);
  assert_int_equal(f->q.n, 2);
  expect_keys_pull(f, 0, 0, 1, 7, keys, 3);
  expect_keys_pull(f, 1, 1, 1, 7, keys + 3, 2);
  rt_outq_clear(&f->q);
  assert_false(ready(f, 1, t0));

  good_answer(f, 0, 1, 7, 0, 20, keys, 2, 1); /* keys 3, 10 */
  assert_false(ready(f, 1, t0));
  good_answer(f, 0, 1, 7, 20, 50, keys + 2, 1, 1); /* key 49 */
  assert_false(ready(f, 1, t0));                   /* server 1's part is missing */
  check_only(f, 1, keys, 3, 1);
  good_answer(f, 1, 1, 7, 50, 100, keys + 3, 2, 1);
  assert_true(ready(f, 1, t0));
  assert_false(ready(f, 2, t0)); /* another iteration */
  check_only(f, 1, keys, 5, 1);
  assert_int_equal(f->m.bytes_in, 3 * WIRE_HDR_BYTES + 5 * 2 * 8);
  /* a late copy: that request is closed */
  good_answer(f, 1, 1, 7, 50, 100, keys + 3, 2, 2);
  check_only(f, 1, keys, 5, 1);
}

/* Keys asked for by an earlier request of the iteration are not asked
 * again; tickets wait for the requests holding the task's keys. */
static void test_dedup_and_tickets(void **state) {
  struct fixture *f = *state;
  const uint64_t a[] = {3, 10, 49, 50, 77}, b[] = {10, 20, 77, 90}, c[] = {3, 50}, b_new[] = {20, 90};
  uint32_t ta = ask(f, 1, 0, a, 5);
  rt_outq_clear(&f->q);
  uint32_t tb = ask(f, 1, 1, b, 4); /* only 20 and 90 are new */
  assert_int_equal(f->q.n, 2);
  expect_keys_pull(f, 0, 0, 1, 1, b_new, 1);
  expect_keys_pull(f, 1, 1, 1, 1, b_new + 1, 1);
  rt_outq_clear(&f->q);
  uint32_t tc = ask(f, 1, 2, c, 2); /* nothing new: waits for a's request */
  expect_no_pull(f);
  uint32_t td = ask(f, 1, 3, NULL, 0); /* no keys: ready at once */
  expect_no_pull(f);
  assert_int_equal(ta, 1);
  assert_int_equal(tb, 2);
  assert_int_equal(tc, 1);
  assert_int_equal(td, 0);
  assert_true(ready(f, 1, td));
  assert_false(ready(f, 1, ta) || ready(f, 1, tb) || ready(f, 1, tc));

  /* b's own request first: b still waits for a's (keys 10 and 77) */
  good_answer(f, 0, 1, 1, 20, 21, b_new, 1, 1);
  good_answer(f, 1, 1, 1, 90, 91, b_new + 1, 1, 1);
  assert_false(ready(f, 1, tb));
  assert_false(ready(f, 1, ta) || ready(f, 1, tc));
  good_answer(f, 0, 1, 0, 0, 50, a, 3, 1);
  assert_false(ready(f, 1, ta));
  good_answer(f, 1, 1, 0, 50, 100, a + 3, 2, 1);
  assert_true(ready(f, 1, ta) && ready(f, 1, tb) && ready(f, 1, tc));
  const uint64_t all[] = {3, 10, 20, 49, 50, 77, 90};
  check_only(f, 1, all, 7, 1);
}

/* Answers that do not match the request are dropped whole: a count or a
 * payload that differs from the request's keys in the range, no packed
 * flag, an empty range, keys twice, another task, server or iteration. */
static void test_bad_answers_rejected(void **state) {
  struct fixture *f = *state;
  const uint64_t keys[] = {3, 10, 49};
  uint32_t t = ask(f, 1, 4, keys, 3);
  rt_outq_clear(&f->q);
  answer(f, 0, 1, 4, 0, 50, keys, 3, 2, 9);  /* count 2 for 3 keys */
  answer(f, 0, 1, 4, 0, 50, keys, 2, 3, 9);  /* 2 keys' values, count 3 */
  answer(f, 0, 1, 4, 0, 20, keys, 3, 3, 9);  /* 3 for a range holding 2 */
  answer(f, 0, 1, 4, 10, 10, keys, 0, 0, 9); /* empty range */
  struct wire_hdr h = reply_hdr(0, T, 1, 0, 50);
  h.task = 4;
  h.count = 3;
  h.payload_bytes = 3 * 8; /* one value per key, width is 2 */
  h.flags = WIRE_F_PACKED;
  double v[6] = {0};
  offer(f, 0, &h, v);
  h.flags = 0; /* not packed */
  h.payload_bytes = 6 * 8;
  offer(f, 0, &h, v);
  answer(f, 0, 1, 5, 0, 50, keys, 3, 3, 9); /* task 5 asked nothing */
  answer(f, 1, 1, 4, 0, 50, keys, 3, 3, 9); /* asked of server 0 */
  answer(f, 0, 2, 4, 0, 50, keys, 3, 3, 9); /* iteration 2 */
  answer(f, 2, 1, 4, 0, 50, keys, 3, 3, 9); /* no server 2 */
  assert_false(ready(f, 1, t));
  check_only(f, 1, keys, 0, 9);
  assert_int_equal(f->m.bytes_in, 0);

  good_answer(f, 0, 1, 4, 0, 11, keys, 2, 1);
  good_answer(f, 0, 1, 4, 5, 12, keys + 1, 1, 9); /* key 10 again */
  assert_false(ready(f, 1, t));
  check_only(f, 1, keys, 2, 1);
  good_answer(f, 0, 1, 4, 11, 50, keys + 2, 1, 1);
  assert_true(ready(f, 1, t));
  check_only(f, 1, keys, 3, 1);
}

/* A new iteration forgets the old requests: its keys are asked again,
 * tickets count from 1 again, late answers of the old one are dropped. */
static void test_new_iteration_forgets(void **state) {
  struct fixture *f = *state;
  const uint64_t keys[] = {3, 60};
  uint32_t t1 = ask(f, 1, 0, keys, 2);
  rt_outq_clear(&f->q);
  good_answer(f, 0, 1, 0, 0, 50, keys, 1, 1); /* half answered */
  uint32_t t2 = ask(f, 2, 0, keys, 2);
  assert_int_equal(t2, 1);
  assert_int_equal(f->q.n, 2);
  expect_keys_pull(f, 0, 0, 2, 0, keys, 1);
  expect_keys_pull(f, 1, 1, 2, 0, keys + 1, 1);
  rt_outq_clear(&f->q);
  assert_false(ready(f, 1, t1));
  good_answer(f, 1, 1, 0, 50, 100, keys + 1, 1, 1); /* late: dropped */
  assert_false(ready(f, 1, t1));
  assert_false(ready(f, 2, t2));
  assert_true(f->m.t[T].values[2 * 60] == 0.0);
  good_answer(f, 0, 2, 0, 0, 50, keys, 1, 2);
  good_answer(f, 1, 2, 0, 50, 100, keys + 1, 1, 2);
  assert_true(ready(f, 2, t2));
  check_only(f, 2, keys, 2, 2);
  /* and back: asking for iteration 1 again starts it afresh too */
  uint32_t t3 = ask(f, 1, 0, keys, 2);
  assert_int_equal(f->q.n, 2);
  rt_outq_clear(&f->q);
  assert_false(ready(f, 1, t3));
  assert_false(ready(f, 2, t2));
}

/* Key lists must be ascending and inside the table. */
static void test_bad_key_lists(void **state) {
  struct fixture *f = *state;
  uint32_t ticket = 0;
  const uint64_t down[] = {5, 4}, twice[] = {5, 5}, outside[] = {5, 100};
  assert_int_equal(mirror_sparse_request(&f->m, T, 1, 0, down, 2, &ticket, &f->q), DSANA_EINVAL);
  assert_int_equal(mirror_sparse_request(&f->m, T, 1, 0, twice, 2, &ticket, &f->q), DSANA_EINVAL);
  assert_int_equal(mirror_sparse_request(&f->m, T, 1, 0, outside, 2, &ticket, &f->q), DSANA_EINVAL);
  expect_no_pull(f);
}

/* The dense table next to it is fetched by ranges as usual. */
static void test_dense_table_alongside(void **state) {
  struct fixture *f = *state;
  const uint64_t keys[] = {1};
  uint32_t t = ask(f, 1, 0, keys, 1);
  rt_outq_clear(&f->q);
  request(f, 1, 1);
  for (uint64_t c = 0; c < 10; c++)
    give(f, c < 5 ? 0 : 1, 1, 1, c * 10, c * 10 + 10, 1);
  assert_true(mirror_ready(&f->m, 1, 1, 0, 100));
  assert_false(ready(f, 1, t));
  /* a range answer for the sparse table is not an answer to a request */
  give(f, 0, T, 1, 0, 10, 1);
  assert_false(ready(f, 1, t));
  assert_int_equal(mirror_prefetch(&f->m, 2, &f->q), 0); /* dense tables only */
  expect_pulls(f, 1, 2, 0, 100);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_request_split_and_answered, setup_sparse, teardown),
      cmocka_unit_test_setup_teardown(test_dedup_and_tickets, setup_sparse, teardown),
      cmocka_unit_test_setup_teardown(test_bad_answers_rejected, setup_sparse, teardown),
      cmocka_unit_test_setup_teardown(test_new_iteration_forgets, setup_sparse, teardown),
      cmocka_unit_test_setup_teardown(test_bad_key_lists, setup_sparse, teardown),
      cmocka_unit_test_setup_teardown(test_dense_table_alongside, setup_sparse, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
