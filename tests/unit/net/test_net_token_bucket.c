/*
 * test_net_token_bucket.c - the link emulator's rate limiter (the outbox's
 * pacing), driven by a simulated clock: long-run rate over a long send,
 * burst, unlimited rate, clock steps back, peeking.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "net/link/token_bucket.h"

#define KIB 1024.0
#define SEC 1000000000ull

/* Send `total` bytes in `piece`-byte sends back to back, each sender
 * waiting as told, and return the simulated time that took. */
static uint64_t simulate(struct token_bucket *tb, uint64_t total, uint64_t piece, uint64_t start_ns) {
  uint64_t now = start_ns;
  for (uint64_t sent = 0; sent < total; sent += piece)
    now += token_bucket_take(tb, piece, now);
  return now - start_ns;
}

static void test_long_run_rate(void **state) {
  (void)state;
  const double rates[] = {1e6, 12.5e6, 125e6, 1.25e9};
  const uint64_t total = (uint64_t)1 << 30, piece = 64 * 1024;
  for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
    struct token_bucket tb;
    token_bucket_init(&tb, rates[i], 64 * KIB, 5 * SEC);
    double secs = (double)simulate(&tb, total, piece, 5 * SEC) * 1e-9;
    double rate = (double)total / secs;
    assert_true(rate > rates[i] * 0.99 && rate < rates[i] * 1.01);
  }
}

static void test_odd_piece_sizes_keep_rate(void **state) {
  (void)state;
  /* Sends larger than the burst and not multiples of anything. */
  struct token_bucket tb;
  token_bucket_init(&tb, 10e6, 64 * KIB, 0);
  uint64_t now = 0, total = 0;
  for (int i = 0; i < 5000; i++) {
    uint64_t piece = 1 + (uint64_t)(i * 7919 % 300000);
    now += token_bucket_take(&tb, piece, now);
    total += piece;
  }
  double rate = (double)total / ((double)now * 1e-9);
  assert_true(rate > 10e6 * 0.99 && rate < 10e6 * 1.01);
}

static void test_burst(void **state) {
  (void)state;
  struct token_bucket tb;
  token_bucket_init(&tb, 1e6, 64 * KIB, 0);
  /* A full bucket lets the burst out at once ... */
  for (int i = 0; i < 64; i++)
    assert_int_equal(token_bucket_take(&tb, 1024, 0), 0);
  /* ... then one more KiB costs exactly its time at the rate. */
  assert_int_equal(token_bucket_take(&tb, 1000, 0), 1000000);
  /* Idle time refills, but never past the burst. */
  token_bucket_init(&tb, 1e6, 64 * KIB, 0);
  assert_int_equal(token_bucket_take(&tb, 65536, 0), 0);
  assert_int_equal(token_bucket_take(&tb, 65536, 3600 * SEC), 0);
  assert_int_equal(token_bucket_take(&tb, 1000, 3600 * SEC), 1000000);
}

static void test_wait_pays_debt(void **state) {
  (void)state;
  struct token_bucket tb;
  token_bucket_init(&tb, 1e6, 0, 0);
  uint64_t w = token_bucket_take(&tb, 2000, 0);
  assert_int_equal(w, 2000000);
  /* Coming back after the wait, the next send waits only for itself. */
  assert_int_equal(token_bucket_take(&tb, 500, w), 500000);
  /* Coming back early, it also waits out the rest of the old debt. */
  token_bucket_init(&tb, 1e6, 0, 0);
  (void)token_bucket_take(&tb, 2000, 0);
  assert_int_equal(token_bucket_take(&tb, 500, 1000000), 1500000);
}

static void test_unlimited_never_waits(void **state) {
  (void)state;
  struct token_bucket tb;
  token_bucket_init(&tb, 0, 0, 0);
  for (uint64_t i = 0; i < 1000; i++)
    assert_int_equal(token_bucket_take(&tb, (uint64_t)1 << 40, i), 0);
  token_bucket_init(&tb, -5, 1e6, 0);
  assert_int_equal(token_bucket_take(&tb, UINT64_MAX, 0), 0);
}

static void test_clock_stepping_back(void **state) {
  (void)state;
  struct token_bucket tb;
  token_bucket_init(&tb, 1e6, 0, 10 * SEC);
  assert_int_equal(token_bucket_take(&tb, 1000, 10 * SEC), 1000000);
  /* An earlier timestamp earns nothing and is not an error: the bytes
   * still queue behind the first ones, whose last leaves at 10 s + 1 ms. */
  assert_int_equal(token_bucket_take(&tb, 1000, 9 * SEC), SEC + 2000000);
}

static void test_peek_takes_nothing(void **state) {
  (void)state;
  struct token_bucket tb;
  token_bucket_init(&tb, 1e6, 0, 0);
  assert_int_equal(token_bucket_peek(&tb, 3000, 0), 3000000);
  assert_int_equal(token_bucket_peek(&tb, 3000, 0), 3000000);
  assert_int_equal(token_bucket_take(&tb, 3000, 0), 3000000);
  /* back to back: the next send ends exactly its own time later */
  assert_int_equal(token_bucket_peek(&tb, 1000, 3000000), 1000000);
  assert_int_equal(token_bucket_peek(&tb, 1000, 0), 4000000);
}

static void test_huge_wait_saturates(void **state) {
  (void)state;
  struct token_bucket tb;
  token_bucket_init(&tb, 1e-9, 0, 0);
  assert_int_equal(token_bucket_take(&tb, UINT64_MAX, 0), UINT64_MAX);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_long_run_rate),
      cmocka_unit_test(test_odd_piece_sizes_keep_rate),
      cmocka_unit_test(test_burst),
      cmocka_unit_test(test_wait_pays_debt),
      cmocka_unit_test(test_unlimited_never_waits),
      cmocka_unit_test(test_clock_stepping_back),
      cmocka_unit_test(test_huge_wait_saturates),
      cmocka_unit_test(test_peek_takes_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
