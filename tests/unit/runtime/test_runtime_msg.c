/*
 * test_runtime_msg.c - the control-message payloads (runtime/msg/msg.c on
 * codec.c): registration and cluster map round trips, every truncation and
 * out-of-range field refused; TASK_DONE records with their sums; sums and
 * globals bit-exact; and the exact sums themselves (dsana_xsum).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/wire/wire.h"
#include "policy/sched.h"
#include "runtime/msg/event.h"
#include "runtime/msg/msg.h"

/* An exact sum holding the 128-bit integer v (sign-extended to 192 bits). */
static dsana_xsum xsum_of(__int128 v) { return (dsana_xsum){.lo = (unsigned __int128)v, .hi = v < 0 ? UINT64_MAX : 0}; }

static bool xsum_eq(const dsana_xsum *a, const dsana_xsum *b) {
  return a->lo == b->lo && a->hi == b->hi && a->flags == b->flags;
}

static void test_register_roundtrip_and_truncation(void **state) {
  (void)state;
  struct msg_register a = {.role = ROLE_SERVER, .index = 3, .pid = 4242, .threads = 2}, b;
  strcpy(a.addr, "tcp://127.0.0.1:5555");
  strcpy(a.host, "node-7");
  uint8_t buf[1024];
  size_t len;
  assert_int_equal(msg_register_encode(&a, buf, sizeof buf, &len), 0);
  assert_int_equal(len, 4 + 4 + 4 + strlen(a.addr) + 4 + strlen(a.host) + 4 + 4);
  assert_int_equal(msg_register_decode(buf, len, &b), 0);
  assert_int_equal(b.role, ROLE_SERVER);
  assert_int_equal(b.index, 3);
  assert_int_equal(b.pid, 4242);
  assert_int_equal(b.threads, 2);
  assert_string_equal(b.addr, a.addr);
  assert_string_equal(b.host, a.host);
  for (size_t cut = 0; cut < len; cut++)
    assert_int_equal(msg_register_decode(buf, cut, &b), DSANA_EPROTO);
  uint8_t longer[1025];
  memcpy(longer, buf, len);
  longer[len] = 0;
  assert_int_equal(msg_register_decode(longer, len + 1, &b), DSANA_EPROTO); /* a trailing byte */
  /* only servers and workers register */
  const uint32_t roles[] = {ROLE_SCHEDULER, 3, 9, UINT32_MAX};
  for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
    wire_put_u32(buf, roles[i]);
    assert_int_equal(msg_register_decode(buf, len, &b), DSANA_EPROTO);
  }
  wire_put_u32(buf, ROLE_WORKER);
  assert_int_equal(msg_register_decode(buf, len, &b), 0);
  /* a worker runs 1..MSG_MAX_THREADS compute threads */
  const uint32_t threads[] = {0, MSG_MAX_THREADS + 1, UINT32_MAX};
  for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
    wire_put_u32(buf + len - 4, threads[i]);
    assert_int_equal(msg_register_decode(buf, len, &b), DSANA_EPROTO);
  }
  wire_put_u32(buf + len - 4, MSG_MAX_THREADS);
  assert_int_equal(msg_register_decode(buf, len, &b), 0);
  /* an address length beyond its field is refused, not trusted */
  wire_put_u32(buf + 8, CONFIG_ADDR_MAX);
  assert_int_equal(msg_register_decode(buf, len, &b), DSANA_EPROTO);
  wire_put_u32(buf + 8, UINT32_MAX);
  assert_int_equal(msg_register_decode(buf, len, &b), DSANA_EPROTO);
  /* too small a buffer to encode into */
  assert_int_equal(msg_register_encode(&a, buf, 10, &len), DSANA_ERANGE);
}

static struct msg_cluster_map *sample_map(void) {
  struct msg_cluster_map *a = calloc(1, sizeof *a);
  assert_non_null(a);
  a->n_servers = 2;
  a->n_workers = 3;
  a->your_index = 1;
  a->sched = SCHED_DYNAMIC;
  a->tasks_per_worker = 8;
  a->flags = MAP_F_FETCH_AHEAD | MAP_F_COMPRESS;
  a->n_spaces = 3;
  a->chunk_keys[0] = 4096;
  a->chunk_keys[1] = 0;
  a->chunk_keys[2] = (uint64_t)1 << 40;
  a->peer_timeout_s = 10;
  a->heartbeat_s = 0.5;
  a->max_payload = 64 << 20;
  strcpy(a->app, "pagerank");
  strcpy(a->scenario_path, "/tmp/scenario.json");
  strcpy(a->trace_path, "/tmp/trace.json");
  strcpy(a->checkpoint_dir, "/tmp/ckpt");
  a->checkpoint_every = 5;
  strcpy(a->resume_dir, "/tmp/old");
  a->resume_iter = 15;
  a->args.n = 2;
  strcpy(a->args.value[0], "graph.bin");
  strcpy(a->args.name[1], "tol");
  strcpy(a->args.value[1], "1e-9");
  strcpy(a->server_addr[0], "ipc:///tmp/a");
  strcpy(a->server_addr[1], "ipc:///tmp/b");
  return a;
}

/* Offset of the app name's length: 7 words, the chunk sizes, 3 eights. */
static size_t app_len_at(const struct msg_cluster_map *m) { return 28 + 8 * (size_t)m->n_spaces + 24; }

static void test_map_roundtrip_and_truncation(void **state) {
  (void)state;
  struct msg_cluster_map *a = sample_map(), *b = calloc(1, sizeof *b);
  uint8_t *buf = malloc(1 << 20);
  size_t len;
  assert_int_equal(msg_map_encode(a, buf, 1 << 20, &len), 0);
  assert_int_equal(msg_map_decode(buf, len, b), 0);
  assert_int_equal(b->n_servers, 2);
  assert_int_equal(b->n_workers, 3);
  assert_int_equal(b->your_index, 1);
  assert_int_equal(b->sched, SCHED_DYNAMIC);
  assert_int_equal(b->tasks_per_worker, 8);
  assert_int_equal(b->flags, MAP_F_FETCH_AHEAD | MAP_F_COMPRESS);
  assert_int_equal(b->n_spaces, 3);
  for (int i = 0; i < 3; i++)
    assert_int_equal(b->chunk_keys[i], a->chunk_keys[i]);
  assert_true(b->peer_timeout_s == 10 && b->heartbeat_s == 0.5);
  assert_int_equal(b->max_payload, 64 << 20);
  assert_string_equal(b->app, "pagerank");
  assert_string_equal(b->scenario_path, a->scenario_path);
  assert_string_equal(b->trace_path, a->trace_path);
  assert_string_equal(b->checkpoint_dir, a->checkpoint_dir);
  assert_int_equal(b->checkpoint_every, 5);
  assert_string_equal(b->resume_dir, a->resume_dir);
  assert_int_equal(b->resume_iter, 15);
  assert_int_equal(b->args.n, 2);
  assert_string_equal(b->args.name[0], "");
  assert_string_equal(b->args.value[0], "graph.bin");
  assert_string_equal(b->args.name[1], "tol");
  assert_string_equal(b->args.value[1], "1e-9");
  assert_string_equal(b->server_addr[0], "ipc:///tmp/a");
  assert_string_equal(b->server_addr[1], "ipc:///tmp/b");
  assert_int_equal(wire_get_u32(buf + app_len_at(a)), strlen("pagerank"));
  for (size_t cut = 0; cut < len; cut++)
    assert_int_equal(msg_map_decode(buf, cut, b), DSANA_EPROTO);
  buf[len] = 0;
  assert_int_equal(msg_map_decode(buf, len + 1, b), DSANA_EPROTO);
  /* a huge string length must be refused, not trusted */
  memset(buf + app_len_at(a), 0xff, 4);
  assert_int_equal(msg_map_decode(buf, len, b), DSANA_EPROTO);
  assert_int_equal(msg_map_encode(a, buf, 100, &len), DSANA_ERANGE);
  free(buf);
  free(a);
  free(b);
}

/* Each field out of its range makes the whole map refused. */
static void test_map_fields_refused(void **state) {
  (void)state;
  uint8_t *buf = malloc(1 << 20);
  struct msg_cluster_map *b = calloc(1, sizeof *b);
  size_t len;
  for (int field = 0; field < 15; field++) {
    struct msg_cluster_map *a = sample_map();
    switch (field) {
    case 0:
      a->n_servers = 0;
      break;
    case 1:
      a->n_servers = MSG_MAX_SERVERS + 1;
      break;
    case 2:
      a->n_workers = 0;
      break;
    case 3:
      a->sched = SCHED_DYNAMIC + 1;
      break;
    case 4:
      a->tasks_per_worker = 0;
      break;
    case 5:
      a->peer_timeout_s = 0;
      break;
    case 6:
      a->heartbeat_s = -1;
      break;
    case 7:
      a->heartbeat_s = NAN;
      break;
    case 8:
      a->max_payload = 4095;
      break;
    case 9:
      a->flags = MAP_F_ALL + 1; /* the next bit, unknown */
      break;
    case 10:
      a->n_spaces = DSANA_MAX_TABLES + 1;
      break;
    case 11:
      a->args.n = MSG_MAX_ARGS + 1;
      break;
    case 12:
      a->peer_timeout_s = NAN;
      break;
    case 13:
      a->flags = 1u << 31;
      break;
    case 14:
      a->n_spaces = UINT32_MAX;
      break;
    }
    if (field == 11) { /* the encoder writes what it is given: forge the count */
      a->args.n = 0;
      assert_int_equal(msg_map_encode(a, buf, 1 << 20, &len), 0);
      size_t at = app_len_at(a) + 4 + strlen(a->app);
      for (int s = 0; s < 4; s++) /* scenario, trace, checkpoint dir, resume dir */
        at += 4 + wire_get_u32(buf + at) + (s == 2 ? 4 : 0);
      at += 4; /* resume_iter */
      assert_int_equal(wire_get_u32(buf + at), 0);
      wire_put_u32(buf + at, MSG_MAX_ARGS + 1);
    } else {
      (void)msg_map_encode(a, buf, 1 << 20, &len);
    }
    if (msg_map_decode(buf, len, b) != DSANA_EPROTO)
      fail_msg("field case %d accepted", field);
    free(a);
  }
  struct msg_cluster_map *a = sample_map();
  a->n_spaces = 0; /* no chunking at all is fine */
  a->max_payload = 4096;
  a->flags = 0;
  assert_int_equal(msg_map_encode(a, buf, 1 << 20, &len), 0);
  assert_int_equal(msg_map_decode(buf, len, b), 0);
  assert_int_equal(b->n_spaces, 0);
  free(a);
  free(b);
  free(buf);
}

static void test_task_done_records(void **state) {
  (void)state;
  const uint32_t counts[] = {0, 1, 8, DSANA_MAX_SUMS};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    uint32_t n = counts[c];
    size_t bytes = msg_task_done_bytes(n);
    assert_int_equal(bytes, 72 + MSG_XSUM_BYTES * (size_t)n);
    struct msg_task_done a, b;
    memset(&a, 0, sizeof a);
    a.task = 0xfffffffeu;
    a.compute_ns = 1;
    a.setup_ns = UINT64_MAX;
    a.idle_ns = 3;
    a.bytes_in = (uint64_t)1 << 40;
    a.bytes_out = 5;
    a.overlap_ns = 6;
    a.overrun_ns = 7;
    a.bytes_in_raw = ((uint64_t)1 << 41) + 8;
    for (uint32_t k = 0; k < DSANA_MAX_SUMS; k++)
      a.sums[k] = xsum_of(((__int128)k - 3) * ((__int128)1 << 100) + k);
    uint8_t *buf = malloc(bytes + 16);
    memset(buf, 0xee, bytes + 16);
    msg_task_done_encode(&a, n, buf);
    assert_int_equal(buf[bytes], 0xee);         /* nothing written past the record */
    assert_int_equal(wire_get_u32(buf + 4), 0); /* reserved */
    memset(&b, 0x5a, sizeof b);
    msg_task_done_decode(buf, n, &b);
    assert_int_equal(b.task, a.task);
    assert_true(b.compute_ns == 1 && b.setup_ns == UINT64_MAX && b.idle_ns == 3);
    assert_true(b.bytes_in == a.bytes_in && b.bytes_out == 5 && b.overlap_ns == 6 && b.overrun_ns == 7);
    assert_true(b.bytes_in_raw == a.bytes_in_raw);
    for (uint32_t k = 0; k < DSANA_MAX_SUMS; k++)
      assert_true(xsum_eq(&b.sums[k], k < n ? &a.sums[k] : &(dsana_xsum){0})); /* the rest zeroed */
    /* records follow each other in a TASK_DONE payload */
    uint8_t *two = malloc(2 * bytes);
    msg_task_done_encode(&a, n, two);
    a.task = 9;
    msg_task_done_encode(&a, n, two + bytes);
    msg_task_done_decode(two + bytes, n, &b);
    assert_int_equal(b.task, 9);
    free(two);
    free(buf);
  }
}

static void test_sums_roundtrip(void **state) {
  (void)state;
  dsana_xsum a[7], b[7];
  const __int128 max = (__int128)(((unsigned __int128)1 << 127) - 1);
  a[0] = xsum_of(0);
  a[1] = xsum_of(-1);
  a[2] = xsum_of(max);
  a[3] = xsum_of(-max - 1);
  a[4] = xsum_of((__int128)0x0123456789abcdefll << 64 | 0xfedcba9876543210ull);
  a[5] = xsum_of(-12345);
  a[6] = (dsana_xsum){.lo = 7, .hi = 0x8000000000000001ull, .flags = DSANA_XSUM_INVALID};
  uint8_t buf[7 * MSG_XSUM_BYTES];
  msg_sums_encode(a, 7, buf);
  /* MSG_XSUM_BYTES each: little-endian words, low first, then hi, flags */
  assert_int_equal(MSG_XSUM_BYTES, 32);
  assert_int_equal(wire_get_u64(buf + 4 * 32), 0xfedcba9876543210ull);
  assert_int_equal(wire_get_u64(buf + 4 * 32 + 8), 0x0123456789abcdefull);
  assert_int_equal(wire_get_u64(buf + 32), UINT64_MAX);
  assert_int_equal(wire_get_u64(buf + 32 + 8), UINT64_MAX);
  assert_int_equal(wire_get_u64(buf + 32 + 16), UINT64_MAX); /* -1: the sign through all 192 bits */
  assert_int_equal(wire_get_u64(buf + 6 * 32 + 16), 0x8000000000000001ull);
  assert_int_equal(wire_get_u64(buf + 6 * 32 + 24), DSANA_XSUM_INVALID);
  msg_sums_decode(buf, 7, b);
  for (int k = 0; k < 7; k++)
    assert_true(xsum_eq(&a[k], &b[k]));
}

static void test_globals_roundtrip(void **state) {
  (void)state;
  double g[DSANA_MAX_GLOBALS], back[DSANA_MAX_GLOBALS];
  static uint8_t buf[MSG_GLOBALS_BYTES];
  assert_int_equal(MSG_GLOBALS_BYTES, 8 * DSANA_MAX_GLOBALS);
  for (int i = 0; i < DSANA_MAX_GLOBALS; i++)
    g[i] = (i % 3 ? 1.0 : -1.0) * ldexp(1.0 + i / 1024.0, i % 200 - 100);
  g[0] = -0.0;
  g[1] = INFINITY;
  g[DSANA_MAX_GLOBALS - 1] = 4.9e-324;
  msg_globals_encode(g, buf);
  for (int i = 0; i < DSANA_MAX_GLOBALS; i++) { /* each in the wire's layout, whatever the host */
    double v = wire_get_f64(buf + 8 * i);
    assert_memory_equal(&v, &g[i], sizeof v);
  }
  msg_globals_decode(buf, back);
  assert_memory_equal(back, g, sizeof g); /* bit-exact, -0.0 included */
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
  assert_true(xsum_eq(&fwd, &back));
  assert_true(xsum_eq(&fwd, &merged));
  double plain = 0;
  for (int i = 0; i < N; i++)
    plain += x[i];
  assert_true(fabs(dsana_xsum_value(&fwd) - plain) < 1e-15);
  dsana_xsum one = {0};
  dsana_xsum_add(&one, 1.0);
  assert_true(dsana_xsum_value(&one) == 1.0);
  /* and through the wire: partial sums encoded, decoded and merged */
  uint8_t buf[3 * MSG_XSUM_BYTES];
  dsana_xsum dec[3], total = {0};
  msg_sums_encode(parts, 3, buf);
  msg_sums_decode(buf, 3, dec);
  for (int k = 0; k < 3; k++)
    dsana_xsum_merge(&total, &dec[k]);
  assert_true(xsum_eq(&total, &fwd));
  free(x);
}

/* Far beyond 2^47: totals up to 2^111 are exact, and an addend that
 * cannot be summed (NaN, infinite, beyond 2^90) makes the sum invalid in
 * every partition, through merges and the wire: its value is NaN, never
 * a silently wrong number. */
static void test_xsum_full_range_and_invalid(void **state) {
  (void)state;
  dsana_xsum a = {0};
  dsana_xsum_add(&a, 1e26);
  dsana_xsum_add(&a, 1.0);
  dsana_xsum_add(&a, -1e26);
  assert_true(dsana_xsum_valid(&a) && dsana_xsum_value(&a) == 1.0); /* plain doubles give 0 */
  dsana_xsum big = {0}, neg = {0};
  for (int i = 0; i < 1000; i++) {
    dsana_xsum_add(&big, 0x1p70);
    dsana_xsum_add(&neg, -0x1p70);
  }
  assert_true(dsana_xsum_value(&big) == 1000 * 0x1p70);
  assert_true(dsana_xsum_value(&neg) == -1000 * 0x1p70);
  dsana_xsum_merge(&big, &neg);
  assert_true(dsana_xsum_value(&big) == 0.0);
  /* 4e25 (a loss the 128-bit accumulator dropped) and its exact negation */
  dsana_xsum l = {0};
  dsana_xsum_add(&l, 4e25);
  assert_true(dsana_xsum_value(&l) == 4e25);
  dsana_xsum_add(&l, -4e25);
  dsana_xsum_add(&l, 0.5);
  assert_true(dsana_xsum_value(&l) == 0.5);
  const double bad[] = {NAN, INFINITY, -INFINITY, 0x1p90, -1e300};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dsana_xsum p[3] = {{0}, {0}, {0}}, total = {0};
    for (int k = 0; k < 9; k++)
      dsana_xsum_add(&p[k % 3], k == 4 ? bad[i] : (double)k);
    uint8_t buf[3 * MSG_XSUM_BYTES];
    msg_sums_encode(p, 3, buf);
    msg_sums_decode(buf, 3, p);
    for (int k = 0; k < 3; k++)
      dsana_xsum_merge(&total, &p[2 - k]);
    assert_false(dsana_xsum_valid(&total));
    assert_true(isnan(dsana_xsum_value(&total)));
  }
  dsana_xsum edge = {0};
  dsana_xsum_add(&edge, 0x1.fffffffffffffp89); /* the largest addend summed */
  assert_true(dsana_xsum_valid(&edge) && dsana_xsum_value(&edge) == 0x1.fffffffffffffp89);
}

/* The inline fast path of dsana_xsum_add must add exactly what the general
 * (IEEE-754 bits) path adds, on both sides of its switch-over, for
 * subnormals, signs, zeros and the limits of the contract. */
static void test_xsum_fast_path_matches_bits(void **state) {
  (void)state;
  const double edge[] = {0.0,
                         -0.0,
                         0x1p-17,
                         -0x1p-17,
                         0x1.fffffffffffffp-18,
                         0x1p-80,
                         0x1.8p-81,
                         0x1p-81,
                         4.9e-324,
                         -4.9e-324,
                         2.2250738585072014e-308,
                         1.0,
                         -1.0,
                         0x1p40,
                         -0x1p40,
                         0x1p47,
                         -0x1p47,
                         0x1.fffffffffffffp-18,
                         1e-300,
                         3.0e-25,
                         -7.5e-7};
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
    dsana_xsum a = {0}, b = {0};
    dsana_xsum_add(&a, edge[i]);
    dsana_xsum_add_bits(&b, edge[i]);
    assert_true(xsum_eq(&a, &b));
  }
  uint64_t s = 7;
  for (int i = 0; i < 200000; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    /* random magnitudes from 2^-90 to 2^40, random signs */
    double x = ldexp((double)(s >> 11) / 9007199254740992.0, (int)((s >> 3) % 131) - 90) * ((s & 1) ? 1 : -1);
    dsana_xsum a = {0}, b = {0};
    dsana_xsum_add(&a, x);
    dsana_xsum_add_bits(&b, x);
    assert_true(xsum_eq(&a, &b));
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_register_roundtrip_and_truncation),
      cmocka_unit_test(test_map_roundtrip_and_truncation),
      cmocka_unit_test(test_map_fields_refused),
      cmocka_unit_test(test_task_done_records),
      cmocka_unit_test(test_sums_roundtrip),
      cmocka_unit_test(test_globals_roundtrip),
      cmocka_unit_test(test_xsum_order_independent),
      cmocka_unit_test(test_xsum_fast_path_matches_bits),
      cmocka_unit_test(test_xsum_full_range_and_invalid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
