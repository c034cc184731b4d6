/*
 * wire.h - dsana's versioned binary wire format (the net layer's codec).
 *
 * Every message is one fixed 48-byte little-endian header, optionally
 * followed by one payload frame. Nothing received is used before
 * wire_decode() and wire_check_payload() accept it: magic, version, known
 * type, sane key range, and a payload length that matches the header and the
 * type's rule and stays under the configured limit.
 *
 * Header layout (offsets in bytes, all little-endian):
 *   0 magic u32 ("DSNA" = 0x414e5344)   4 version u16   6 type u16
 *   8 sender u32   12 table u32   16 iter u32   20 chunk u32
 *  24 key_lo u64   32 key_hi u64   40 payload_bytes u64
 */
#ifndef DSANA_NET_WIRE_H
#define DSANA_NET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_MAGIC 0x414e5344u
#define WIRE_VERSION 2 /* 2: PULL_PACKED */
#define WIRE_HDR_BYTES 48
#define WIRE_DEFAULT_MAX_PAYLOAD ((uint64_t)64 << 20)

/* Payload rules: none, exactly N bytes, 8 bytes per key of [key_lo,key_hi),
 * 8 bytes per key of some of them (a multiple of 8, at most that: which
 * keys is the receiver's to check), or any length up to N bytes. */
enum wire_rule { WIRE_P_NONE, WIRE_P_FIXED, WIRE_P_KEYS, WIRE_P_SOME_KEYS, WIRE_P_VAR };

/* X(name, value, rule, bytes) */
#define WIRE_TYPE_MAP(X)                          \
  X(REGISTER, 1, WIRE_P_VAR, 1024)                \
  X(CLUSTER_MAP, 2, WIRE_P_VAR, 1 << 20)          \
  X(ITER_START, 3, WIRE_P_FIXED, 64)              \
  X(TASK, 4, WIRE_P_NONE, 0)                      \
  X(TASK_DONE, 5, WIRE_P_FIXED, 56)               \
  X(PULL, 6, WIRE_P_NONE, 0)                      \
  X(PULL_REPLY, 7, WIRE_P_KEYS, 0)                \
  X(PUSH, 8, WIRE_P_KEYS, 0)                      \
  X(PUSH_ACK, 9, WIRE_P_NONE, 0)                  \
  X(ITER_END, 10, WIRE_P_NONE, 0)                 \
  X(SHARD_REPORT, 11, WIRE_P_FIXED, 128)          \
  X(STOP, 12, WIRE_P_NONE, 0)                     \
  X(FINAL_DATA, 13, WIRE_P_KEYS, 0)               \
  X(HEARTBEAT, 14, WIRE_P_NONE, 0)                \
  X(ABORT, 15, WIRE_P_VAR, 512)                   \
  X(BYE, 16, WIRE_P_NONE, 0)                      \
  X(PULL_SHM, 17, WIRE_P_NONE, 0)                 \
  X(CKPT_DONE, 18, WIRE_P_NONE, 0)                \
  X(FETCH_AHEAD, 19, WIRE_P_NONE, 0)              \
  X(PULL_PACKED, 20, WIRE_P_SOME_KEYS, 0)

enum wire_type {
#define WIRE_TYPE_ENUM(name, val, rule, bytes) WIRE_##name = (val),
  WIRE_TYPE_MAP(WIRE_TYPE_ENUM)
#undef WIRE_TYPE_ENUM
      WIRE_TYPE_END
};

struct wire_hdr {
  uint32_t magic;
  uint16_t version;
  uint16_t type;
  uint32_t sender;
  uint32_t table;
  uint32_t iter;
  uint32_t chunk;
  uint64_t key_lo, key_hi;
  uint64_t payload_bytes;
};

/* A header of `type` with magic and version filled, everything else 0. */
struct wire_hdr wire_hdr_make(enum wire_type type, uint32_t sender);

/* Encode into exactly WIRE_HDR_BYTES bytes. */
void wire_encode(const struct wire_hdr *h, uint8_t out[WIRE_HDR_BYTES]);

/* Decode and validate a header frame of `len` bytes: length, magic,
 * version, known type, key_lo <= key_hi, payload rule satisfied by
 * payload_bytes, payload_bytes <= max_payload. Returns 0 or DSANA_EPROTO
 * with a short reason in *why (static string). */
int wire_decode(const uint8_t *buf, size_t len, uint64_t max_payload, struct wire_hdr *h,
                const char **why);

/* Check that the payload frame actually received has h->payload_bytes. */
int wire_check_payload(const struct wire_hdr *h, size_t received, const char **why);

/* "PUSH", "PULL_REPLY", ... or "UNKNOWN". */
const char *wire_type_name(uint16_t type);

/* Little-endian helpers for structured payloads (bounds are the caller's). */
void wire_put_u32(uint8_t *p, uint32_t v);
void wire_put_u64(uint8_t *p, uint64_t v);
uint32_t wire_get_u32(const uint8_t *p);
uint64_t wire_get_u64(const uint8_t *p);
void wire_put_f64(uint8_t *p, double v);
double wire_get_f64(const uint8_t *p);

#endif
