/*
 * test_runtime_keymask.c - the read-key masks (src/runtime/core/keymask.c):
 * counting, packing and unpacking the values of read keys agree with a
 * key-by-key reference on random masks and every kind of range (inside one
 * word, across words, empty, the whole table); a NULL mask means every key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/core/keymask.h"

#define N 1000

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void test_against_reference(void **unused) {
  static uint64_t unread[N / 64 + 1];
  static double src[N], packed[N], dst[N];
  uint64_t rng = 3;
  for (int round = 0; round < 50; round++) {
    /* densities from all-read to all-unread */
    uint64_t density = rng_next(&rng) % 5;
    for (uint64_t w = 0; w < N / 64 + 1; w++) {
      uint64_t bits = density == 0 ? 0 : density == 4 ? ~0ull : rng_next(&rng);
      for (uint64_t d = 1; d < density && density < 4; d++)
        bits &= rng_next(&rng);
      unread[w] = bits;
    }
    for (uint64_t k = 0; k < N; k++)
      src[k] = (double)k + 0.5;
    for (int r = 0; r < 40; r++) {
      uint64_t lo = rng_next(&rng) % (N + 1), hi = lo + rng_next(&rng) % (N + 1 - lo);
      if (r == 0) {
        lo = 0;
        hi = N;
      }
      uint64_t want = 0;
      for (uint64_t k = lo; k < hi; k++)
        if (keymask_read(unread, k))
          packed[want++] = src[k];
      assert_int_equal(keymask_count(unread, lo, hi), want);
      double out[N];
      assert_int_equal(keymask_pack(unread, src, lo, hi, out), want);
      assert_memory_equal(out, packed, want * sizeof(double));
      for (uint64_t k = 0; k < N; k++)
        dst[k] = -1.0;
      keymask_unpack(unread, out, lo, hi, dst);
      for (uint64_t k = 0; k < N; k++)
        assert_true(dst[k] == (k >= lo && k < hi && keymask_read(unread, k) ? src[k] : -1.0));
    }
  }
}

static void test_no_mask(void **unused) {
  double src[100], out[100], dst[100];
  for (int k = 0; k < 100; k++)
    src[k] = k;
  assert_true(keymask_read(NULL, 12345));
  assert_int_equal(keymask_count(NULL, 10, 70), 60);
  assert_int_equal(keymask_count(NULL, 70, 70), 0);
  assert_int_equal(keymask_pack(NULL, src, 10, 70, out), 60);
  assert_true(out[0] == 10 && out[59] == 69);
  memset(dst, 0, sizeof dst);
  keymask_unpack(NULL, out, 10, 70, dst);
  assert_true(dst[9] == 0 && dst[10] == 10 && dst[69] == 69 && dst[70] == 0);
  assert_int_equal(keymask_words(64), 2);
  assert_int_equal(keymask_words(63), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_reference),
      cmocka_unit_test(test_no_mask),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
