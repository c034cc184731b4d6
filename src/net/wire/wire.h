/*
 * wire.h - dsana's versioned binary wire format (the net layer's codec).
 *
 * Every message is one fixed 64-byte little-endian header, optionally
 * followed by one payload. Nothing received is used before wire_decode()
 * accepts the header (magic, version, known type, sane key range, a payload
 * length that fits the type's rule and the configured limit) and the
 * payload's length matches it. What the payload must contain given the job
 * (widths, shards) is checked by the runtime before use.
 *
 * Header layout (offsets in bytes, all little-endian):
 *   0 magic u32 ("DSNA")   4 version u16   6 type u16
 *   8 sender u32 (index of the sending role)   12 table u32
 *  16 iter u32   20 task u32   24 chunk u32   28 flags u32
 *  32 key_lo u64   40 key_hi u64
 *  48 count u32 (keys or records carried)   52 buffer u32 (a shared buffer)
 *  56 payload_bytes u64
 * Each field has one meaning in every message that uses it; unused ones
 * are 0. `chunk` is the hand-out epoch: in TASKS, ITER_START and
 * FETCH_AHEAD the number of workers the scheduler has declared lost so
 * far, in PUSH the highest such number its worker has heard. A task is
 * handed to another worker only after its holder was declared lost, so the
 * re-run's pushes carry a higher epoch than any of the lost holder's: a
 * server drops pushes of a task from a worker with a lower (or equal)
 * epoch than the one it takes the task's pushes from (a replaced peer).
 */
#ifndef DSANA_NET_WIRE_H
#define DSANA_NET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_MAGIC 0x414e5344u
#define WIRE_VERSION \
  10 /* 3: typed task/chunk/flags/count/buffer fields; 4: BYE carries the role's usage;
                          5: exact sums are 32 bytes (192 bits and flags); 6: WIRE_F_THROUGH; 7: READY;
                          8: hand-out epochs (chunk of PUSH, TASKS, ITER_START, FETCH_AHEAD), BYE carries
                          the messages a role dropped; 9: a task list's values are each task's range, which
                          need not touch; 10: WIRE_F_HANDED_ALL */
#define WIRE_HDR_BYTES 64
#define WIRE_DEFAULT_MAX_PAYLOAD ((uint64_t)64 << 20)

/* Payload rules: none; exactly N bytes; a multiple of 8 bytes (values,
 * keys) up to the limit; any length up to N bytes. */
enum wire_rule { WIRE_P_NONE, WIRE_P_FIXED, WIRE_P_WORDS, WIRE_P_VAR };

/* X(name, value, rule, bytes) */
#define WIRE_TYPE_MAP(X)                   \
  X(REGISTER, 1, WIRE_P_VAR, 1024)         \
  X(CLUSTER_MAP, 2, WIRE_P_VAR, 1 << 20)   \
  X(ITER_START, 3, WIRE_P_WORDS, 0)        \
  X(TASKS, 4, WIRE_P_VAR, 1 << 22)         \
  X(TASK_DONE, 5, WIRE_P_VAR, 1 << 22)     \
  X(PULL, 6, WIRE_P_WORDS, 0)              \
  X(PULL_REPLY, 7, WIRE_P_WORDS, 0)        \
  X(PUSH, 8, WIRE_P_WORDS, 0)              \
  X(ITER_END, 9, WIRE_P_WORDS, 0)          \
  X(SHARD_REPORT, 10, WIRE_P_VAR, 1 << 16) \
  X(STOP, 11, WIRE_P_NONE, 0)              \
  X(FINAL_DATA, 12, WIRE_P_WORDS, 0)       \
  X(HEARTBEAT, 13, WIRE_P_NONE, 0)         \
  X(ABORT, 14, WIRE_P_VAR, 512)            \
  X(BYE, 15, WIRE_P_VAR, 64)               \
  X(CKPT_DONE, 16, WIRE_P_NONE, 0)         \
  X(FETCH_AHEAD, 17, WIRE_P_VAR, 1 << 22)  \
  X(READY, 18, WIRE_P_NONE, 0)

enum wire_type {
#define WIRE_TYPE_ENUM(name, val, rule, bytes) WIRE_##name = (val),
  WIRE_TYPE_MAP(WIRE_TYPE_ENUM)
#undef WIRE_TYPE_ENUM
      WIRE_TYPE_END
};

/* flags */
#define WIRE_F_END 1u       /* PUSH: the task's last message to this server */
#define WIRE_F_KEYS 2u      /* PULL, PUSH: the payload starts with `count` u64 keys */
#define WIRE_F_PACKED 4u    /* PULL_REPLY: values of the requested keys of [key_lo, key_hi) only */
#define WIRE_F_SHARED 8u    /* PULL_REPLY: values are in the server's shared buffer `buffer` */
#define WIRE_F_SHARE_OK 16u /* PULL: shared-buffer answers welcome */
#define WIRE_F_XSUM 32u     /* PUSH: exact partial sums, 16 bytes (two u64 words, low first) per value */
#define WIRE_F_TASKS \
  64u /* PUSH: the payload starts with u64 n and n u64 task ids, then each task's values over its range in the shard, in that order: the message ends them all */
#define WIRE_F_AHEAD 128u /* ITER_START: after these tasks, fetch the next iteration's input (FETCH_AHEAD) */
/* PULL: compressed answers welcome. PULL_REPLY: the payload is the values
 * (count of them, width each) encoded by net/wire/zcodec.h, any length */
#define WIRE_F_ZSTD 256u
/* with WIRE_F_ZSTD: PULL: the worker holds iteration iter-1's values of
 * every key asked for; PULL_REPLY: the values were XORed with those */
#define WIRE_F_DELTA 512u
/* ABORT from the scheduler: register again. To every role when the job
 * rolls back to its last checkpoint (a server was lost: the scheduler
 * restarts); to one worker it had given up on and hears from again */
#define WIRE_F_ROLLBACK 1024u
/* ABORT from the scheduler: the job was stopped on purpose (the scheduler
 * was interrupted): nothing failed, end with success */
#define WIRE_F_ENDED 2048u
/* PUSH: the task has now sent this server every value it writes below key_hi
 * (in every table of this table's key space): those keys may be final before
 * its last message (WIRE_F_END) arrives. Dense values only. */
#define WIRE_F_THROUGH 4096u
/* ITER_START, TASKS: with these, the scheduler has handed out every task
 * of the iteration: the worker reports the tasks it ran once, when the
 * last one it holds is done (an earlier report would only ask for more) */
#define WIRE_F_HANDED_ALL 8192u
#define WIRE_F_ALL 16383u

struct wire_hdr {
  uint32_t magic;
  uint16_t version;
  uint16_t type;
  uint32_t sender;
  uint32_t table;
  uint32_t iter;
  uint32_t task;
  uint32_t chunk;
  uint32_t flags;
  uint64_t key_lo, key_hi;
  uint32_t count;
  uint32_t buffer;
  uint64_t payload_bytes;
};

/* A header of `type` with magic and version filled, everything else 0. */
struct wire_hdr wire_hdr_make(enum wire_type type, uint32_t sender);

/* Encode into exactly WIRE_HDR_BYTES bytes. */
void wire_encode(const struct wire_hdr *h, uint8_t out[WIRE_HDR_BYTES]);

/* Decode and validate a header of `len` bytes: length, magic, version,
 * known type, known flags (ZSTD and DELTA only on PULL and PULL_REPLY,
 * DELTA only with ZSTD, never on a shared-buffer answer), key_lo <=
 * key_hi, the payload rule (a compressed PULL_REPLY: any length but 0),
 * payload_bytes <= max_payload. Returns 0 or DSANA_EPROTO with a short
 * reason in *why (static string). */
int wire_decode(const uint8_t *buf, size_t len, uint64_t max_payload, struct wire_hdr *h, const char **why);

/* Check that the payload actually received has h->payload_bytes. */
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
