/*
 * zcodec.h - lossless compression of a run of doubles for the wire (the
 * payload of a PULL_REPLY flagged WIRE_F_ZSTD).
 *
 * Encoding: every value's 64 bits XOR the same key's value in a base the
 * receiver holds too (its copy of the previous iteration; no base: XOR 0),
 * the 8 bytes of each word shuffled into 8 byte planes (all low bytes, then
 * the next ones ..., as blosc does), then one zstd frame (level
 * ZCODEC_LEVEL) that records its content size and an XXH64 checksum.
 * Converging values share their sign, exponent and high mantissa bits with
 * the base, so the high planes are runs of zeros.
 *
 * Decoding trusts nothing: the input must be exactly one frame whose
 * content is exactly 8n bytes and which carries a checksum that matches;
 * anything else is rejected before the output is written, so a corrupted
 * or truncated payload is never applied.
 *
 * A codec holds zstd's contexts and a scratch buffer reused across calls
 * (no allocation once warm); one per thread.
 */
#ifndef DSANA_NET_ZCODEC_H
#define DSANA_NET_ZCODEC_H

#include <stddef.h>
#include <stdint.h>

/* zstd's level: measured on PageRank contributions, XORed with the
 * previous iteration's (see zcodec.c), 1 compresses as well as 3 at 1.4x
 * the speed, and better than the negative levels and lz4. */
#define ZCODEC_LEVEL 1

struct zcodec;

/* A codec, or DSANA_ENOMEM. Free with zcodec_destroy() (NULL is fine). */
int zcodec_create(struct zcodec **out);
void zcodec_destroy(struct zcodec *z);

/* The caller's side of a piece: its values and their base, packed (the
 * input of zcodec_encode, the output and base of zcodec_decode), grown as
 * pieces grow and reused. Zeroed: empty. */
struct zcodec_piece {
  double *vals, *base;
  uint64_t cap; /* doubles each holds */
};
/* Room for n doubles in vals and in base: 0, or DSANA_ENOMEM (what each
 * held is kept). */
int zcodec_piece_reserve(struct zcodec_piece *p, uint64_t n);
void zcodec_piece_fini(struct zcodec_piece *p);

/* Encode vals[0..n) XOR base[0..n) (base NULL: XOR 0) into out[0..cap).
 * Returns 0 with *len < 8n bytes written; DSANA_ERANGE when the encoding
 * would not be smaller than 8n bytes or cap (send the values as they are);
 * DSANA_ENOMEM; DSANA_EINVAL for n == 0. */
int zcodec_encode(struct zcodec *z, const double *vals, const double *base, uint64_t n, uint8_t *out, size_t cap,
                  size_t *len);

/* Decode in[0..len), which must encode exactly n values, into out[0..n),
 * each XOR base[i] (base NULL: 0; out may be base). 0, or DSANA_EPROTO
 * with a short reason in *why (static) and out untouched, or
 * DSANA_ENOMEM. */
int zcodec_decode(struct zcodec *z, const uint8_t *in, size_t len, const double *base, double *out, uint64_t n,
                  const char **why);

#endif
