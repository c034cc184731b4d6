/*
 * test_policy_chunk.c - chunk_auto_count (src/policy/chunk.c): every
 * server's shard in a power of two of equal chunks, as many as keep a
 * message's overhead near the allowed fraction of its transfer time, none
 * below 64 KiB.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policy/chunk.h"

/* 0.1 ms per message, 5%: a message should carry 2 ms of transfer. */
static uint64_t count(uint64_t table, uint32_t shards, double bw) {
  struct chunk_inputs in = {.table_bytes = table,
                            .n_shards = shards,
                            .bandwidth_bytes_per_s = bw,
                            .msg_overhead_s = 100e-6,
                            .overhead_fraction = 0.05};
  uint64_t c = chunk_auto_count(&in), shard = (table + (shards ? shards : 1) - 1) / (shards ? shards : 1);
  assert_true(c >= 1 && (c & (c - 1)) == 0); /* a power of two: equal chunks */
  assert_true(c == 1 || shard / c >= 65536); /* none under 64 KiB */
  return c;
}

static void test_examples(void **unused) {
  /* bench/overlap.sh before packed pulls: 8 MiB from one server over
   * 2510 Mbit/s; 2 ms carry 627 500 bytes: 16 chunks of 512 KiB (8 of
   * 1 MiB would carry more) */
  assert_int_equal(count(8u << 20, 1, 2510e6 / 8), 16);
  /* half the keys read (packed pulls): half the bytes, half the chunks */
  assert_int_equal(count(4u << 20, 1, 2510e6 / 8), 8);
  /* soc-Slashdot0902 (657 344 bytes) over two servers at 1 Gbit/s: each
   * 328 672-byte shard is more than 2 ms (250 000 bytes): two chunks each */
  assert_int_equal(count(657344, 2, 125e6), 2);
  /* a shard under 2 ms of transfer is one chunk */
  assert_int_equal(count(400000, 2, 125e6), 1);
  assert_int_equal(count(400000, 1, 125e6), 2); /* one server: 1.6 x 2 ms, two chunks */
  /* a fast link wants big chunks: 8 MiB at 100 Gbit/s is one chunk */
  assert_int_equal(count(8u << 20, 1, 12.5e9), 1);
  /* small shards are never cut */
  assert_int_equal(count(65536, 1, 1e3), 1);
  assert_int_equal(count(100000, 2, 1e3), 1);
  assert_int_equal(count(1000, 1, 1e3), 1);
}

static void test_floor(void **unused) {
  /* a slow link would want tiny chunks: 64 KiB at the least */
  assert_int_equal(count(8u << 20, 1, 1e3), 128);
  /* odd sizes and any bandwidth: the checks in count() hold */
  for (uint32_t shards = 1; shards <= 3; shards++)
    for (uint64_t table = 70000; table < 20000000; table = table * 3 + 8)
      for (double bw = 1e5; bw < 1e11; bw *= 7)
        count(table, shards, bw);
}

static void test_unknown_bandwidth(void **unused) {
  /* 0 = unthrottled: assumes loopback speed (3 MB per message), so big chunks */
  struct chunk_inputs in = {.table_bytes = 8u << 20, .msg_overhead_s = 100e-6, .overhead_fraction = 0.05};
  assert_int_equal(chunk_auto_count(&in), 4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_examples),
      cmocka_unit_test(test_floor),
      cmocka_unit_test(test_unknown_bandwidth),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
