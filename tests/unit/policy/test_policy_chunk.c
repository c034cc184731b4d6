/*
 * test_policy_chunk.c - chunk_auto_count (src/policy/chunk.c): every
 * server's shard in a power of two of equal chunks, the power of two
 * nearest (in ratio) the count that keeps a message's overhead at the
 * allowed fraction of its transfer time, none below 8 KiB, at most 16.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policy/chunk.h"

/* The runtime's figures: 0.1 ms per message, half the transfer time: a
 * message should carry 0.2 ms of transfer. */
static uint64_t count(uint64_t table, uint32_t shards, double bw) {
  struct chunk_inputs in = {.table_bytes = table,
                            .n_shards = shards,
                            .bandwidth_bytes_per_s = bw,
                            .msg_overhead_s = CHUNK_MSG_OVERHEAD_S,
                            .overhead_fraction = CHUNK_OVERHEAD_FRACTION};
  uint64_t c = chunk_auto_count(&in), shard = (table + (shards ? shards : 1) - 1) / (shards ? shards : 1);
  assert_true(c >= 1 && c <= 16 && (c & (c - 1)) == 0); /* a power of two: equal chunks */
  assert_true(c == 1 || shard / c >= 8192);             /* none under 8 KiB */
  return c;
}

static void test_examples(void **unused) {
  /* the before-stop hook's overlap case: 128 KiB read from one server over
   * 400 Mbit/s; 0.2 ms carry 10 000 bytes: 16 chunks of 8 KiB */
  assert_int_equal(count(131072, 1, 50e6), 16);
  /* p2p-Gnutella31's read keys (about 120 KB) over two servers at 1 Gbit/s:
   * 0.2 ms carry 25 000 bytes, each 60 KB shard in 2 chunks of 30 KB (the
   * nearest power of two; 4 of 15 KB would be 0.6 of the bytes a message
   * should carry) */
  assert_int_equal(count(120000, 2, 125e6), 2);
  /* a shard under 0.2 ms of transfer is one chunk; so is one of 32 KB (1.3
   * messages' worth: two chunks would carry 0.65 each) */
  assert_int_equal(count(40000, 2, 125e6), 1);
  assert_int_equal(count(65536, 2, 125e6), 1);
  /* the boundary between 2 and 4 chunks is 2 sqrt 2 messages' worth */
  assert_int_equal(count(70000, 1, 125e6), 2); /* 2.80: 2 of 35 KB */
  assert_int_equal(count(72000, 1, 125e6), 4); /* 2.88: 4 of 18 KB */
  /* a fast link wants big chunks: 8 MiB at 100 Gbit/s, 2.5 MB a message */
  assert_int_equal(count(8u << 20, 1, 12.5e9), 4);
  /* a large table on a slow link: no more than 16 */
  assert_int_equal(count(8u << 20, 1, 2510e6 / 8), 16);
  /* small shards are never cut */
  assert_int_equal(count(8192, 1, 1e3), 1);
  assert_int_equal(count(16000, 2, 1e3), 1);
  assert_int_equal(count(1000, 1, 1e3), 1);
}

static void test_floor_and_ceiling(void **unused) {
  /* a slow link would want tiny chunks: 8 KiB at the least */
  assert_int_equal(count(65536, 1, 1e3), 8);
  assert_int_equal(count(8u << 20, 1, 1e3), 16);
  /* odd sizes and any bandwidth: the checks in count() hold */
  for (uint32_t shards = 1; shards <= 3; shards++)
    for (uint64_t table = 9000; table < 20000000; table = table * 3 + 8)
      for (double bw = 1e5; bw < 1e11; bw *= 7)
        count(table, shards, bw);
}

static void test_unknown_bandwidth(void **unused) {
  /* 0 = unthrottled: assumes loopback speed (300 KB per message), so 16 */
  struct chunk_inputs in = {
      .table_bytes = 8u << 20, .msg_overhead_s = CHUNK_MSG_OVERHEAD_S, .overhead_fraction = CHUNK_OVERHEAD_FRACTION};
  assert_int_equal(chunk_auto_count(&in), 16);
  in.table_bytes = 600000; /* two messages' worth */
  assert_int_equal(chunk_auto_count(&in), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_examples),
      cmocka_unit_test(test_floor_and_ceiling),
      cmocka_unit_test(test_unknown_bandwidth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
