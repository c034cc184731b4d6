/*
 * wire.c - encode and validate dsana's 64-byte message header (wire.h).
 *
 * The byte layout is written out field by field in little-endian order, so
 * the format does not depend on the host's struct padding or endianness.
 * Every rule a received header must satisfy lives in wire_decode(); the
 * per-type payload rules come from the WIRE_TYPE_MAP table in wire.h.
 */
#include "net/wire/wire.h"

#include <string.h>

#include "dsana/error.h"

struct wire_type_info {
  const char *name;
  enum wire_rule rule;
  uint64_t bytes;
};

static const struct wire_type_info wire_types[WIRE_TYPE_END] = {
#define WIRE_TYPE_INFO(name, val, rule, bytes) [val] = {#name, rule, (uint64_t)(bytes)},
    WIRE_TYPE_MAP(WIRE_TYPE_INFO)
#undef WIRE_TYPE_INFO
};

static const struct wire_type_info *wire_type_info(uint16_t type) {
  if (type == 0 || type >= WIRE_TYPE_END || wire_types[type].name == NULL)
    return NULL;
  return &wire_types[type];
}

const char *wire_type_name(uint16_t type) {
  const struct wire_type_info *t = wire_type_info(type);
  return t ? t->name : "UNKNOWN";
}

void wire_put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

void wire_put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

uint32_t wire_get_u32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++)
    v |= (uint32_t)p[i] << (8 * i);
  return v;
}

uint64_t wire_get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Doubles travel as their IEEE-754 bit pattern in a little-endian u64. */
void wire_put_f64(uint8_t *p, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  wire_put_u64(p, bits);
}

double wire_get_f64(const uint8_t *p) {
  uint64_t bits = wire_get_u64(p);
  double v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

static void wire_put_u16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}

static uint16_t wire_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

struct wire_hdr wire_hdr_make(enum wire_type type, uint32_t sender) {
  struct wire_hdr h;
  memset(&h, 0, sizeof h);
  h.magic = WIRE_MAGIC;
  h.version = WIRE_VERSION;
  h.type = (uint16_t)type;
  h.sender = sender;
  return h;
}

void wire_encode(const struct wire_hdr *h, uint8_t out[WIRE_HDR_BYTES]) {
  wire_put_u32(out + 0, h->magic);
  wire_put_u16(out + 4, h->version);
  wire_put_u16(out + 6, h->type);
  wire_put_u32(out + 8, h->sender);
  wire_put_u32(out + 12, h->table);
  wire_put_u32(out + 16, h->iter);
  wire_put_u32(out + 20, h->task);
  wire_put_u32(out + 24, h->chunk);
  wire_put_u32(out + 28, h->flags);
  wire_put_u64(out + 32, h->key_lo);
  wire_put_u64(out + 40, h->key_hi);
  wire_put_u32(out + 48, h->count);
  wire_put_u32(out + 52, h->buffer);
  wire_put_u64(out + 56, h->payload_bytes);
}

static void wire_unpack(const uint8_t *b, struct wire_hdr *h) {
  h->magic = wire_get_u32(b + 0);
  h->version = wire_get_u16(b + 4);
  h->type = wire_get_u16(b + 6);
  h->sender = wire_get_u32(b + 8);
  h->table = wire_get_u32(b + 12);
  h->iter = wire_get_u32(b + 16);
  h->task = wire_get_u32(b + 20);
  h->chunk = wire_get_u32(b + 24);
  h->flags = wire_get_u32(b + 28);
  h->key_lo = wire_get_u64(b + 32);
  h->key_hi = wire_get_u64(b + 40);
  h->count = wire_get_u32(b + 48);
  h->buffer = wire_get_u32(b + 52);
  h->payload_bytes = wire_get_u64(b + 56);
}

/* Where the compression flags may be (NULL: they are fine). */
static const char *wire_check_zstd(const struct wire_hdr *h) {
  uint32_t z = h->flags & (WIRE_F_ZSTD | WIRE_F_DELTA);
  if (!z)
    return NULL;
  if (h->type != WIRE_PULL && h->type != WIRE_PULL_REPLY)
    return "compression flags on a message that carries no values";
  if (!(z & WIRE_F_ZSTD))
    return "delta flag without compression";
  return h->flags & WIRE_F_SHARED ? "a shared-buffer answer cannot be compressed" : NULL;
}

/* The type's payload rule; key_lo <= key_hi is already checked. */
static const char *wire_check_rule(const struct wire_type_info *t, const struct wire_hdr *h, uint64_t max_payload) {
  if (h->type == WIRE_PULL_REPLY && (h->flags & WIRE_F_ZSTD)) /* encoded values: any length */
    return h->payload_bytes ? NULL : "compressed answer without a payload";
  switch (t->rule) {
  case WIRE_P_NONE:
    return h->payload_bytes == 0 ? NULL : "payload not allowed for this type";
  case WIRE_P_FIXED:
    return h->payload_bytes == t->bytes ? NULL : "payload length differs from the type's size";
  case WIRE_P_WORDS:
    return h->payload_bytes % 8 == 0 ? NULL : "payload is not a whole number of 8-byte words";
  case WIRE_P_VAR:
    return h->payload_bytes <= t->bytes ? NULL : "payload longer than the type allows";
  }
  return "bad payload rule";
}

/* NULL if the unpacked header is acceptable, else the reason. */
static const char *wire_validate(const struct wire_hdr *h, uint64_t max_payload) {
  const struct wire_type_info *t;
  if (h->magic != WIRE_MAGIC)
    return "bad magic";
  if (h->version != WIRE_VERSION)
    return "unsupported version";
  if ((t = wire_type_info(h->type)) == NULL)
    return "unknown message type";
  if (h->key_lo > h->key_hi)
    return "key_lo > key_hi";
  if (h->flags & ~WIRE_F_ALL)
    return "unknown flags";
  const char *reason = wire_check_zstd(h);
  if (!reason)
    reason = wire_check_rule(t, h, max_payload);
  if (reason)
    return reason;
  if (h->payload_bytes > max_payload)
    return "payload over limit";
  return NULL;
}

int wire_decode(const uint8_t *buf, size_t len, uint64_t max_payload, struct wire_hdr *h, const char **why) {
  const char *reason = "bad header length";
  if (len == WIRE_HDR_BYTES) {
    wire_unpack(buf, h);
    reason = wire_validate(h, max_payload);
  }
  if (why)
    *why = reason;
  return reason ? DSANA_EPROTO : 0;
}

int wire_check_payload(const struct wire_hdr *h, size_t received, const char **why) {
  if ((uint64_t)received != h->payload_bytes) {
    if (why)
      *why = "payload frame size differs from header";
    return DSANA_EPROTO;
  }
  if (why)
    *why = NULL;
  return 0;
}
