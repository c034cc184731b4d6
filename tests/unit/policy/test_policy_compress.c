/*
 * test_policy_compress.c - compress_wanted (src/policy/compress.c): on and
 * off as asked; auto only under --chunk auto, never locally without a
 * link, and on exactly when the link is slower than the encoder; the
 * option's names round trip.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dsana/dsana.h"
#include "policy/compress.h"

static bool wanted(enum compress_mode m, enum chunk_mode c, double mbit, bool local) {
  struct compress_request r = {
      .mode = m, .chunk = c, .bandwidth_bytes_per_s = mbit * 1e6 / 8, .local_unthrottled = local};
  return compress_wanted(&r);
}

static void test_on_and_off_as_asked(void **unused) {
  const enum chunk_mode chunks[] = {CHUNK_OFF, CHUNK_AUTO, CHUNK_FIXED};
  for (int c = 0; c < 3; c++)
    for (int local = 0; local < 2; local++) {
      assert_true(wanted(COMPRESS_ON, chunks[c], 0, local));
      assert_true(wanted(COMPRESS_ON, chunks[c], 100000, local));
      assert_false(wanted(COMPRESS_OFF, chunks[c], 1000, local));
    }
}

static void test_auto(void **unused) {
  /* the paper's 1 Gbit/s clouds: the link is the bottleneck */
  assert_true(wanted(COMPRESS_AUTO, CHUNK_AUTO, 1000, true));
  assert_true(wanted(COMPRESS_AUTO, CHUNK_AUTO, 1000, false));
  /* just below and above the encoder's speed */
  double enc_mbit = COMPRESS_ENCODE_BYTES_PER_S * 8 / 1e6;
  assert_true(wanted(COMPRESS_AUTO, CHUNK_AUTO, enc_mbit * 0.99, true));
  assert_false(wanted(COMPRESS_AUTO, CHUNK_AUTO, enc_mbit * 1.01, true));
  assert_false(wanted(COMPRESS_AUTO, CHUNK_AUTO, 100000, false));
  /* locally without a link: memory beats the compressor */
  assert_false(wanted(COMPRESS_AUTO, CHUNK_AUTO, 0, true));
  /* across machines, no scenario: the 1 Gbit/s chunking assumes */
  assert_true(wanted(COMPRESS_AUTO, CHUNK_AUTO, 0, false));
  /* plain BSP (--chunk off) and fixed chunks stay uncompressed */
  assert_false(wanted(COMPRESS_AUTO, CHUNK_OFF, 1000, true));
  assert_false(wanted(COMPRESS_AUTO, CHUNK_FIXED, 1000, true));
}

static void test_names(void **unused) {
  const enum compress_mode modes[] = {COMPRESS_AUTO, COMPRESS_OFF, COMPRESS_ON};
  for (int i = 0; i < 3; i++) {
    enum compress_mode m = COMPRESS_OFF == modes[i] ? COMPRESS_ON : COMPRESS_OFF;
    assert_int_equal(compress_mode_parse(compress_mode_name(modes[i]), &m), 0);
    assert_int_equal(m, modes[i]);
  }
  enum compress_mode m = COMPRESS_ON;
  const char *bad[] = {"", "yes", "ON", "auto ", "1"};
  for (int i = 0; i < 5; i++)
    assert_int_equal(compress_mode_parse(bad[i], &m), DSANA_EINVAL);
  assert_int_equal(compress_mode_parse(NULL, &m), DSANA_EINVAL);
  assert_int_equal(m, COMPRESS_ON);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_on_and_off_as_asked),
      cmocka_unit_test(test_auto),
      cmocka_unit_test(test_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
