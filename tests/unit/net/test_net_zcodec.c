/*
 * test_net_zcodec.c - the values codec (net/wire/zcodec.h): bit-exact round
 * trips (random, constant, converging sequences, NaN payloads, infinities,
 * denormals, -0.0; with and without a base, decoding in place), the size
 * bound (strictly smaller than the values, or DSANA_ERANGE), and every
 * corrupted, truncated, extended, unchecked or mis-sized payload rejected
 * with the output untouched (or, for a flip that changes nothing, decoded
 * to the same bits).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zstd.h>

#include "dsana/dsana.h"
#include "net/wire/zcodec.h"

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static double from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

static int setup(void **state) { return zcodec_create((struct zcodec **)state) == 0 ? 0 : -1; }

static int teardown(void **state) {
  zcodec_destroy(*state);
  return 0;
}

/* Encode vals (XOR base), decode, compare bits; returns the encoded size
 * or 0 when the encoder declined (DSANA_ERANGE). */
static size_t round_trip(struct zcodec *z, const double *vals, const double *base, uint64_t n) {
  uint8_t *enc = malloc(n * 8);
  double *dec = malloc(n * 8);
  assert_non_null(enc);
  assert_non_null(dec);
  size_t len = 0;
  int rc = zcodec_encode(z, vals, base, n, enc, n * 8, &len);
  if (rc == DSANA_ERANGE) {
    free(enc);
    free(dec);
    return 0;
  }
  assert_int_equal(rc, 0);
  assert_true(len > 0 && len < n * 8);
  const char *why = "unset";
  assert_int_equal(zcodec_decode(z, enc, len, base, dec, n, &why), 0);
  assert_memory_equal(dec, vals, n * 8);
  if (base) { /* in place: the base becomes the values */
    double *b = malloc(n * 8);
    assert_non_null(b);
    memcpy(b, base, n * 8);
    assert_int_equal(zcodec_decode(z, enc, len, b, b, n, &why), 0);
    assert_memory_equal(b, vals, n * 8);
    free(b);
  }
  free(enc);
  free(dec);
  return len;
}

static void test_random_values(void **state) {
  uint64_t s = 1;
  const uint64_t sizes[] = {1, 2, 7, 64, 1000, 100003};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    uint64_t n = sizes[k];
    double *v = malloc(n * 8), *b = malloc(n * 8);
    for (uint64_t i = 0; i < n; i++) {
      v[i] = from_bits(rng_next(&s));
      b[i] = from_bits(rng_next(&s));
    }
    /* random bits do not compress: declined, or a correct round trip */
    round_trip(*state, v, NULL, n);
    round_trip(*state, v, b, n);
    /* values of one magnitude compress a little (shared high planes) */
    for (uint64_t i = 0; i < n; i++)
      v[i] = 1.0 + (double)(rng_next(&s) >> 11) * 0x1p-53;
    size_t len = round_trip(*state, v, NULL, n);
    if (n >= 1000)
      assert_true(len > 0 && len < n * 8 * 9 / 10); /* 12 of 64 bits shared */
    free(v);
    free(b);
  }
}

static void test_constant_values(void **state) {
  uint64_t n = 50000;
  double *v = malloc(n * 8);
  for (uint64_t i = 0; i < n; i++)
    v[i] = 0.15 / 3.0;
  size_t len = round_trip(*state, v, NULL, n);
  assert_true(len > 0 && len < n * 8 / 100);
  /* XOR with itself: all zero words */
  len = round_trip(*state, v, v, n);
  assert_true(len > 0 && len < n * 8 / 100);
  free(v);
}

/* A converging sequence: each iteration moves every value by less, so
 * XOR with the previous one leaves more zero high bits. */
static void test_converging_sequence(void **state) {
  uint64_t n = 20000, s = 7;
  double *prev = malloc(n * 8), *cur = malloc(n * 8);
  for (uint64_t i = 0; i < n; i++)
    prev[i] = 1.0 / (double)(1 + rng_next(&s) % 1000);
  size_t last = SIZE_MAX;
  for (int it = 1; it <= 6; it++) {
    double step = pow(10.0, -2.0 * it);
    for (uint64_t i = 0; i < n; i++)
      cur[i] = prev[i] * (1.0 + step * ((double)(rng_next(&s) % 2001) - 1000.0) / 1000.0);
    size_t len = round_trip(*state, cur, prev, n);
    assert_true(len > 0 && len < n * 8);
    assert_true(len < last); /* closer values, fewer bytes */
    last = len;
    memcpy(prev, cur, n * 8);
  }
  free(prev);
  free(cur);
}

static void test_special_values(void **state) {
  const double specials[] = {0.0,
                             -0.0,
                             INFINITY,
                             -INFINITY,
                             NAN,
                             from_bits(0x7ff0000000000001ull) /* sNaN */,
                             from_bits(0xfff8dead0000beefull) /* NaN payload */,
                             DBL_MIN,
                             -DBL_MIN,
                             from_bits(1) /* smallest denormal */,
                             from_bits(0x000fffffffffffffull),
                             DBL_MAX,
                             -DBL_MAX,
                             1.0,
                             -1.0,
                             DBL_EPSILON};
  const uint64_t k = sizeof specials / sizeof specials[0], n = k * 64;
  double *v = malloc(n * 8), *b = malloc(n * 8);
  for (uint64_t i = 0; i < n; i++) {
    v[i] = specials[i % k];
    b[i] = specials[(i * 7 + 3) % k];
  }
  assert_true(round_trip(*state, v, NULL, n) > 0);
  assert_true(round_trip(*state, v, b, n) > 0);
  assert_true(round_trip(*state, v, v, n) > 0);
  free(v);
  free(b);
}

/* Never larger than the values: too small a room or too little to gain
 * is DSANA_ERANGE; n == 0 is refused. */
static void test_size_bound(void **state) {
  uint64_t n = 4096;
  double *v = calloc(n, 8);
  uint8_t *out = malloc(n * 8);
  size_t len = 0;
  assert_int_equal(zcodec_encode(*state, v, NULL, n, out, n * 8, &len), 0);
  assert_true(len < 64);
  assert_int_equal(zcodec_encode(*state, v, NULL, n, out, len - 1, &len), DSANA_ERANGE);
  assert_int_equal(zcodec_encode(*state, v, NULL, 1, out, 8, &len), DSANA_ERANGE); /* a frame is > 8 bytes */
  assert_int_equal(zcodec_encode(*state, v, NULL, 0, out, 8, &len), DSANA_EINVAL);
  free(v);
  free(out);
}

/* An encoding of n converging values and the values; the caller frees. */
static uint8_t *sample(struct zcodec *z, uint64_t n, double **vals, double **base, size_t *len) {
  uint64_t s = 3;
  *vals = malloc(n * 8);
  *base = malloc(n * 8);
  for (uint64_t i = 0; i < n; i++) {
    (*base)[i] = 1.0 / (double)(1 + rng_next(&s) % 977);
    (*vals)[i] = (*base)[i] * (1.0 + 1e-5 * (double)(rng_next(&s) % 100));
  }
  uint8_t *enc = malloc(n * 8 + 64);
  assert_int_equal(zcodec_encode(z, *vals, *base, n, enc, n * 8, len), 0);
  return enc;
}

/* Decoding in[0..len) either fails, leaving out as it was, or gives the
 * original values; returns 1 when it failed. */
static int decode_or_same(struct zcodec *z, const uint8_t *in, size_t len, const double *base, const double *vals,
                          uint64_t n, uint64_t n_dec) {
  double *out = malloc((n_dec ? n_dec : 1) * 8);
  for (uint64_t i = 0; i < n_dec; i++)
    out[i] = -12345.0;
  const char *why = NULL;
  int rc = zcodec_decode(z, in, len, base, out, n_dec, &why);
  if (rc) {
    assert_int_equal(rc, DSANA_EPROTO);
    assert_non_null(why);
    for (uint64_t i = 0; i < n_dec; i++)
      assert_true(out[i] == -12345.0);
  } else {
    assert_int_equal(n_dec, n);
    assert_memory_equal(out, vals, n * 8);
  }
  free(out);
  return rc != 0;
}

static void test_corruption_rejected(void **state) {
  uint64_t n = 3000;
  double *vals, *base;
  size_t len;
  uint8_t *enc = sample(*state, n, &vals, &base, &len);
  uint8_t *bad = malloc(len + 16);
  int rejected = 0;
  for (size_t i = 0; i < len; i++)
    for (int bit = 0; bit < 8; bit += 3) {
      memcpy(bad, enc, len);
      bad[i] ^= (uint8_t)(1u << bit);
      rejected += decode_or_same(*state, bad, len, base, vals, n, n);
    }
  assert_true(rejected > (int)len * 2); /* nearly every flip is caught */
  free(enc);
  free(bad);
  free(vals);
  free(base);
}

static void test_truncated_and_extended_rejected(void **state) {
  uint64_t n = 3000;
  double *vals, *base;
  size_t len;
  uint8_t *enc = sample(*state, n, &vals, &base, &len);
  for (size_t cut = 0; cut < len; cut++)
    assert_int_equal(decode_or_same(*state, enc, cut, base, vals, n, n), 1);
  uint8_t *longer = malloc(len + 8);
  memcpy(longer, enc, len);
  memset(longer + len, 0, 8);
  for (size_t extra = 1; extra <= 8; extra++)
    assert_int_equal(decode_or_same(*state, longer, len + extra, base, vals, n, n), 1);
  /* two frames back to back */
  uint8_t *two = malloc(2 * len);
  memcpy(two, enc, len);
  memcpy(two + len, enc, len);
  assert_int_equal(decode_or_same(*state, two, 2 * len, base, vals, n, n), 1);
  free(two);
  free(longer);
  free(enc);
  free(vals);
  free(base);
}

static void test_wrong_count_rejected(void **state) {
  uint64_t n = 3000;
  double *vals, *base;
  size_t len;
  uint8_t *enc = sample(*state, n, &vals, &base, &len);
  assert_int_equal(decode_or_same(*state, enc, len, base, vals, n, n - 1), 1);
  assert_int_equal(decode_or_same(*state, enc, len, base, vals, n, n + 1), 1);
  assert_int_equal(decode_or_same(*state, enc, len, base, vals, n, 0), 1);
  assert_int_equal(decode_or_same(*state, enc, len, base, vals, n, n), 0);
  free(enc);
  free(vals);
  free(base);
}

/* Frames from another encoder: without a checksum, without a content
 * size, or skippable: all refused. */
static void test_foreign_frames_rejected(void **state) {
  uint64_t n = 512;
  double *v = calloc(n, 8);
  size_t cap = ZSTD_compressBound(n * 8);
  uint8_t *f = malloc(cap);
  size_t len = ZSTD_compress(f, cap, v, n * 8, 1); /* no checksum */
  assert_false(ZSTD_isError(len));
  assert_int_equal(decode_or_same(*state, f, len, NULL, v, n, n), 1);
  ZSTD_CCtx *c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  ZSTD_CCtx_setPledgedSrcSize(c, ZSTD_CONTENTSIZE_UNKNOWN);
  ZSTD_outBuffer ob = {f, cap, 0};
  ZSTD_inBuffer ib = {v, n * 8, 0};
  assert_int_equal(ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_end), 0);
  assert_int_equal(decode_or_same(*state, f, ob.pos, NULL, v, n, n), 1); /* size unknown */
  ZSTD_freeCCtx(c);
  uint8_t skip[16] = {0x50, 0x2a, 0x4d, 0x18, 8, 0, 0, 0};
  assert_int_equal(decode_or_same(*state, skip, sizeof skip, NULL, v, n, n), 1);
  free(f);
  free(v);
}

/* A piece's scratch grows to what is asked, keeps its values while it
 * does not need to grow, and is empty again after fini. */
static void test_piece_reserve(void **state) {
  (void)state;
  struct zcodec_piece p = {0};
  assert_int_equal(zcodec_piece_reserve(&p, 0), 0);
  assert_int_equal(zcodec_piece_reserve(&p, 100), 0);
  assert_true(p.cap == 100 && p.vals && p.base);
  p.vals[99] = 1.5;
  p.base[99] = -2.5;
  double *v = p.vals;
  assert_int_equal(zcodec_piece_reserve(&p, 50), 0);
  assert_true(p.vals == v && p.cap == 100);
  assert_int_equal(zcodec_piece_reserve(&p, 1000), 0);
  assert_true(p.cap == 1000 && p.vals[99] == 1.5 && p.base[99] == -2.5);
  zcodec_piece_fini(&p);
  assert_true(!p.vals && !p.base && p.cap == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_random_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_constant_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_converging_sequence, setup, teardown),
      cmocka_unit_test_setup_teardown(test_special_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_size_bound, setup, teardown),
      cmocka_unit_test_setup_teardown(test_corruption_rejected, setup, teardown),
      cmocka_unit_test_setup_teardown(test_truncated_and_extended_rejected, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wrong_count_rejected, setup, teardown),
      cmocka_unit_test_setup_teardown(test_foreign_frames_rejected, setup, teardown),
      cmocka_unit_test(test_piece_reserve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
