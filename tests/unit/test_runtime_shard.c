/* test_runtime_shard.c - key-range sharding, task declarations, control
 * message codecs and exact sums. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/job.h"
#include "runtime/msg.h"

static void test_shards_cover_exactly_once(void **state) {
  (void)state;
  static const uint64_t sizes[] = {1, 2, 3, 7, 100, 1000003, (uint64_t)1 << 40};
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
}

static void test_tasks_must_partition(void **state) {
  (void)state;
  struct dsana_job job;
  job_init(&job, 2, 1, 4, "test");
  uint32_t t;
  assert_int_equal(dsana_job_add_table(&job, "x", 10, DSANA_RULE_ASSIGN, &t), 0);
  struct dsana_task_decl ok[2] = {{0, 4, 1.0}, {4, 10, 2.0}};
  struct dsana_task_decl gap[2] = {{0, 4, 1.0}, {5, 10, 2.0}};
  struct dsana_task_decl short_[2] = {{0, 4, 1.0}, {4, 9, 2.0}};
  struct dsana_task_decl zero_cost[2] = {{0, 4, 0.0}, {4, 10, 2.0}};
  assert_int_equal(dsana_job_set_tasks(&job, t, gap, 2), DSANA_EINVAL);
  assert_int_equal(dsana_job_set_tasks(&job, t, short_, 2), DSANA_EINVAL);
  assert_int_equal(dsana_job_set_tasks(&job, t, zero_cost, 2), DSANA_EINVAL);
  assert_int_equal(dsana_job_set_tasks(&job, t + 1, ok, 2), DSANA_EINVAL);
  assert_int_equal(dsana_job_set_tasks(&job, t, ok, 2), 0);
  char err[256];
  assert_int_equal(job_validate(&job, err, sizeof err), DSANA_EINVAL); /* no result table */
  assert_int_equal(dsana_job_set_result_table(&job, t), 0);
  assert_int_equal(job_validate(&job, err, sizeof err), 0);
  job_fini(&job);
}

static void test_register_roundtrip_and_truncation(void **state) {
  (void)state;
  struct msg_register a = {.role = ROLE_SERVER, .index = 3}, b;
  strcpy(a.addr, "tcp://127.0.0.1:5555");
  uint8_t buf[1024];
  size_t len;
  assert_int_equal(msg_register_encode(&a, buf, sizeof buf, &len), 0);
  assert_int_equal(msg_register_decode(buf, len, &b), 0);
  assert_int_equal(b.role, ROLE_SERVER);
  assert_int_equal(b.index, 3);
  assert_string_equal(b.addr, a.addr);
  for (size_t cut = 0; cut < len; cut++)
    assert_int_equal(msg_register_decode(buf, cut, &b), DSANA_EPROTO);
  buf[0] = 9; /* unknown role */
  assert_int_equal(msg_register_decode(buf, len, &b), DSANA_EPROTO);
}

static void test_map_roundtrip_and_garbage(void **state) {
  (void)state;
  struct msg_cluster_map *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
  a->n_servers = 2;
  a->n_workers = 3;
  a->your_index = 1;
  a->mode = MODE_DSANA;
  a->sched = SCHED_DYNAMIC;
  a->tasks_per_worker = 8;
  a->peer_timeout_s = 10;
  a->heartbeat_s = 0.5;
  strcpy(a->app, "pagerank");
  a->args.n = 2;
  strcpy(a->args.value[0], "graph.bin");
  strcpy(a->args.name[1], "tol");
  strcpy(a->args.value[1], "1e-9");
  strcpy(a->server_addr[0], "ipc:///tmp/a");
  strcpy(a->server_addr[1], "ipc:///tmp/b");
  uint8_t *buf = malloc(1 << 20);
  size_t len;
  assert_int_equal(msg_map_encode(a, buf, 1 << 20, &len), 0);
  assert_int_equal(msg_map_decode(buf, len, b), 0);
  assert_int_equal(b->n_workers, 3);
  assert_string_equal(b->args.name[1], "tol");
  assert_string_equal(b->server_addr[1], "ipc:///tmp/b");
  for (size_t cut = 0; cut < len; cut += 7)
    assert_int_equal(msg_map_decode(buf, cut, b), DSANA_EPROTO);
  /* a huge string length must be refused, not trusted */
  memset(buf + 48, 0xff, 4); /* the app name's length */
  assert_int_equal(msg_map_decode(buf, len, b), DSANA_EPROTO);
  free(buf);
  free(a);
  free(b);
}

static void test_xsum_order_independent(void **state) {
  (void)state;
  enum { N = 10000 };
  double *x = malloc(sizeof *x * N);
  uint64_t s = 42;
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (double)(s >> 11) / 9007199254740992.0 * 1e-3 * ((s & 1) ? 1 : -1);
  }
  dsana_xsum fwd = {0}, back = {0}, parts[3] = {{0}, {0}, {0}};
  for (int i = 0; i < N; i++) {
    dsana_xsum_add(&fwd, x[i]);
    dsana_xsum_add(&back, x[N - 1 - i]);
    dsana_xsum_add(&parts[i % 3], x[i]);
  }
  dsana_xsum merged = {0};
  for (int k = 2; k >= 0; k--)
    dsana_xsum_merge(&merged, &parts[k]);
  assert_true(fwd.acc == back.acc);
  assert_true(fwd.acc == merged.acc);
  double plain = 0;
  for (int i = 0; i < N; i++)
    plain += x[i];
  assert_true(fabs(dsana_xsum_value(&fwd) - plain) < 1e-15);
  dsana_xsum one = {0};
  dsana_xsum_add(&one, 1.0);
  assert_true(dsana_xsum_value(&one) == 1.0);
  free(x);
}

/* The inline fast path of dsana_xsum_add must add exactly what the general
 * (IEEE-754 bits) path adds, on both sides of its 2^-17 switch-over, for
 * subnormals, signs, zeros and the limits of the contract. */
static void test_xsum_fast_path_matches_bits(void **state) {
  (void)state;
  const double edge[] = {0.0, -0.0, 0x1p-17, -0x1p-17, 0x1.fffffffffffffp-18, 0x1p-80, 0x1.8p-81, 0x1p-81,
                         4.9e-324, -4.9e-324, 2.2250738585072014e-308, 1.0, -1.0, 0x1p40, -0x1p40, 0x1p47,
                         1e-300, 3.0e-25, -7.5e-7};
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
    dsana_xsum a = {0}, b = {0};
    dsana_xsum_add(&a, edge[i]);
    dsana_xsum_add_bits(&b, edge[i]);
    assert_true(a.acc == b.acc);
  }
  uint64_t s = 7;
  for (int i = 0; i < 200000; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    /* random magnitudes from 2^-90 to 2^40, random signs */
    double x = ldexp((double)(s >> 11) / 9007199254740992.0, (int)((s >> 3) % 131) - 90) * ((s & 1) ? 1 : -1);
    dsana_xsum a = {0}, b = {0};
    dsana_xsum_add(&a, x);
    dsana_xsum_add_bits(&b, x);
    assert_true(a.acc == b.acc);
  }
}

static void test_report_roundtrip(void **state) {
  (void)state;
  struct msg_report a, b;
  for (int k = 0; k < DSANA_MAX_SUMS; k++)
    a.sums[k].acc = (__int128)(k - 3) * ((__int128)1 << 90) + k * 12345;
  uint8_t buf[128];
  msg_report_encode(&a, buf);
  msg_report_decode(buf, &b);
  for (int k = 0; k < DSANA_MAX_SUMS; k++)
    assert_true(a.sums[k].acc == b.sums[k].acc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shards_cover_exactly_once), cmocka_unit_test(test_shard_of_every_key),
      cmocka_unit_test(test_tasks_must_partition),      cmocka_unit_test(test_register_roundtrip_and_truncation),
      cmocka_unit_test(test_map_roundtrip_and_garbage), cmocka_unit_test(test_xsum_order_independent),
      cmocka_unit_test(test_xsum_fast_path_matches_bits), cmocka_unit_test(test_report_roundtrip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
