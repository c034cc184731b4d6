/*
 * fuzz_zcodec.c - libFuzzer target for the values codec (net/wire/zcodec.h),
 * the decoder of compressed PULL_REPLY payloads.
 *
 * Input: a selector byte (bit 0: decode against a base; bits 1-7 with the
 * next byte: the value count announced, 1..32768), then the payload. The
 * decoder must reject it (leaving the output as it was) or accept it; an
 * accepted payload must decode to values that encode and decode again to
 * the same bits. The same input bytes, read as doubles, must survive an
 * encode-decode round trip bit for bit.
 *
 * Build and run: tests/fuzz/run.sh SECONDS zcodec
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "net/wire/zcodec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SENTINEL 0x5au
#define MAX_VALUES 32768 /* the most a selector announces */

static struct zcodec *codec(void) {
  static struct zcodec *z;
  if (!z && zcodec_create(&z) != 0)
    abort();
  return z;
}

/* Tables built once, copied or compared per run with memcpy/memcmp (loops
 * over up to 256 KiB per run, instrumented for coverage, took most of the
 * time): the base values and an output left untouched. */
static double base_values[MAX_VALUES];
static uint8_t sentinel_bytes[MAX_VALUES * 8];

static void init_tables(void) {
  static int done;
  if (done)
    return;
  for (uint64_t i = 0; i < MAX_VALUES; i++) {
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;
    memcpy(base_values + i, &x, 8);
  }
  memset(sentinel_bytes, SENTINEL, sizeof sentinel_bytes);
  done = 1;
}

/* A base that is not all zero: value i has bits i * a constant. */
static void fill_base(double *b, uint64_t n) {
  if (n <= MAX_VALUES) {
    memcpy(b, base_values, n * 8);
    return;
  }
  for (uint64_t i = 0; i < n; i++) {
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;
    memcpy(b + i, &x, 8);
  }
}

/* Encode v[0..n) against base and decode it: the same bits or declined. */
static void round_trip(const double *v, const double *base, uint64_t n) {
  uint8_t *enc = malloc(n * 8);
  double *dec = malloc(n * 8);
  size_t len = 0;
  const char *why = NULL;
  if (!enc || !dec)
    abort();
  int rc = zcodec_encode(codec(), v, base, n, enc, n * 8, &len);
  if (rc == 0) {
    if (len >= n * 8 || zcodec_decode(codec(), enc, len, base, dec, n, &why) != 0 || memcmp(dec, v, n * 8) != 0)
      abort();
  } else if (rc != DSANA_ERANGE && rc != DSANA_ENOMEM) {
    abort();
  }
  free(enc);
  free(dec);
}

static void decode_payload(const uint8_t *p, size_t len, uint64_t n, int with_base) {
  double *out = malloc(n * 8), *base = with_base ? malloc(n * 8) : NULL;
  if (!out || (with_base && !base))
    abort();
  if (base)
    fill_base(base, n);
  memset(out, SENTINEL, n * 8);
  const char *why = NULL;
  int rc = zcodec_decode(codec(), p, len, base, out, n, &why);
  if (rc == DSANA_EPROTO) {
    if (!why)
      abort();
    if (memcmp(out, sentinel_bytes, n * 8) != 0)
      abort(); /* a rejected payload must not be applied */
  } else if (rc == 0) {
    round_trip(out, base, n);
  } else if (rc != DSANA_ENOMEM) {
    abort();
  }
  free(out);
  free(base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2)
    return 0;
  init_tables();
  int with_base = data[0] & 1;
  uint64_t n = 1 + (((uint64_t)(data[0] >> 1) << 8 | data[1]) & 0x7fff);
  decode_payload(data + 2, size - 2, n, with_base);
  uint64_t words = (size - 2) / 8;
  if (words) {
    double *v = malloc(words * 8), *base = malloc(words * 8);
    if (!v || !base)
      abort();
    memcpy(v, data + 2, words * 8);
    fill_base(base, words);
    round_trip(v, with_base ? base : NULL, words);
    free(v);
    free(base);
  }
  return 0;
}
