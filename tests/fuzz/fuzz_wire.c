/*
 * fuzz_wire.c - libFuzzer target for the wire codec (net/wire/wire.h, version
 * 3: a 64-byte header).
 *
 * Input: one selector byte for the payload limit, then a candidate header
 * frame; the bytes after its first 64 stand for the payload frame. Beyond
 * "no crash", it checks what an accepted header promises: it re-encodes
 * to the same bytes, carries only known flags (the compression flags only
 * where they belong), and its payload length obeys its type's rule (none,
 * fixed, whole 8-byte words, bounded; a compressed PULL_REPLY: not empty)
 * and the limit, so the transport and the runtime may trust it.
 *
 * Build and run: tests/fuzz/run.sh SECONDS wire
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "net/wire/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_rule {
  int known;
  enum wire_rule rule;
  uint64_t bytes;
};

/* The payload rule of each type, straight from wire.h's table. */
static const struct fuzz_rule fuzz_rules[WIRE_TYPE_END] = {
#define FUZZ_RULE(name, val, rule, bytes) [val] = {1, rule, (uint64_t)(bytes)},
    WIRE_TYPE_MAP(FUZZ_RULE)
#undef FUZZ_RULE
};

static uint64_t fuzz_limit(uint8_t sel) {
  switch (sel % 4) {
  case 0:
    return WIRE_DEFAULT_MAX_PAYLOAD;
  case 1:
    return UINT64_MAX;
  case 2:
    return 0;
  default:
    return (uint64_t)sel * 8 + 1;
  }
}

static void fuzz_check_accepted(const uint8_t *frame, const struct wire_hdr *h, uint64_t max) {
  uint8_t again[WIRE_HDR_BYTES];
  wire_encode(h, again);
  if (memcmp(again, frame, WIRE_HDR_BYTES) != 0)
    abort();
  if (h->magic != WIRE_MAGIC || h->version != WIRE_VERSION || h->key_lo > h->key_hi || h->payload_bytes > max ||
      (h->flags & ~WIRE_F_ALL) != 0)
    abort();
  if (h->type == 0 || h->type >= WIRE_TYPE_END || !fuzz_rules[h->type].known ||
      strcmp(wire_type_name(h->type), "UNKNOWN") == 0)
    abort();
  uint32_t z = h->flags & (WIRE_F_ZSTD | WIRE_F_DELTA);
  if (z && ((h->type != WIRE_PULL && h->type != WIRE_PULL_REPLY) || !(z & WIRE_F_ZSTD) || (h->flags & WIRE_F_SHARED)))
    abort();
  if (h->type == WIRE_PULL_REPLY && z) {
    if (h->payload_bytes == 0)
      abort();
    return; /* encoded values: any length */
  }
  const struct fuzz_rule *r = &fuzz_rules[h->type];
  switch (r->rule) {
  case WIRE_P_NONE:
    if (h->payload_bytes != 0)
      abort();
    break;
  case WIRE_P_FIXED:
    if (h->payload_bytes != r->bytes)
      abort();
    break;
  case WIRE_P_WORDS:
    if (h->payload_bytes % 8 != 0)
      abort();
    break;
  case WIRE_P_VAR:
    if (h->payload_bytes > r->bytes)
      abort();
    break;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  uint64_t max = fuzz_limit(data[0]);
  const uint8_t *frame = data + 1;
  size_t len = size - 1;
  struct wire_hdr h;
  const char *why = NULL;
  /* The whole input as one frame: exercises the length check. */
  if (wire_decode(frame, len, max, &h, &why) != 0) {
    if (!why)
      abort();
  } else {
    if (why || len != WIRE_HDR_BYTES)
      abort();
    fuzz_check_accepted(frame, &h, max);
  }
  /* The first 64 bytes as the header, the rest as its payload frame. */
  if (len >= WIRE_HDR_BYTES && wire_decode(frame, WIRE_HDR_BYTES, max, &h, &why) == 0) {
    fuzz_check_accepted(frame, &h, max);
    size_t received = len - WIRE_HDR_BYTES;
    int rc = wire_check_payload(&h, received, &why);
    if ((rc == 0) != (h.payload_bytes == received) || (rc != 0 && !why) || (rc == 0 && why))
      abort();
  }
  (void)wire_type_name((uint16_t)(len > 1 ? frame[0] | frame[1] << 8 : 0));
  return 0;
}
