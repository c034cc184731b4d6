/*
 * test_net_wire.c - the wire codec: exact byte layout, round trips for every
 * message type, and every malformed header rejected with its reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dsana/dsana.h"
#include "net/wire.h"

#define MAXP WIRE_DEFAULT_MAX_PAYLOAD

struct type_case {
  uint16_t type;
  const char *name;
  enum wire_rule rule;
  uint64_t bytes;
};

static const struct type_case all_types[] = {
#define TYPE_CASE(name, val, rule, bytes) {val, #name, rule, bytes},
    WIRE_TYPE_MAP(TYPE_CASE)
#undef TYPE_CASE
};
#define NTYPES (sizeof all_types / sizeof all_types[0])

/* A valid header of type t, with every field non-zero where allowed. */
static struct wire_hdr valid_hdr(const struct type_case *t) {
  struct wire_hdr h = wire_hdr_make((enum wire_type)t->type, 0x01020304u);
  h.table = 7;
  h.iter = 0xfffffffeu;
  h.chunk = 42;
  h.key_lo = 1000;
  h.key_hi = 1000;
  switch (t->rule) {
  case WIRE_P_NONE:
    h.key_hi = 2000;
    break;
  case WIRE_P_FIXED:
    h.payload_bytes = t->bytes;
    break;
  case WIRE_P_KEYS:
    h.key_hi = 1000 + 512;
    h.payload_bytes = 8 * 512;
    break;
  case WIRE_P_SOME_KEYS:
    h.key_hi = 1000 + 512;
    h.payload_bytes = 8 * 100;
    break;
  case WIRE_P_VAR:
    h.payload_bytes = t->bytes / 2;
    break;
  }
  return h;
}

static int decode_hdr(const struct wire_hdr *h, uint64_t max_payload, const char **why) {
  uint8_t buf[WIRE_HDR_BYTES];
  struct wire_hdr out;
  wire_encode(h, buf);
  return wire_decode(buf, sizeof buf, max_payload, &out, why);
}

static void expect_reject(const struct wire_hdr *h, uint64_t max_payload, const char *reason) {
  const char *why = NULL;
  assert_int_equal(decode_hdr(h, max_payload, &why), DSANA_EPROTO);
  assert_non_null(why);
  assert_string_equal(why, reason);
}

static void test_layout_is_little_endian(void **state) {
  (void)state;
  struct wire_hdr h = wire_hdr_make(WIRE_PUSH, 0x11223344u);
  h.table = 0x55667788u;
  h.iter = 0x99aabbccu;
  h.chunk = 0xddeeff00u;
  h.key_lo = 0x0102030405060708ull;
  h.key_hi = 0x0102030405060709ull;
  h.payload_bytes = 8;
  uint8_t b[WIRE_HDR_BYTES];
  wire_encode(&h, b);
  static const uint8_t want[WIRE_HDR_BYTES] = {
      'D',  'S',  'N',  'A',  WIRE_VERSION, 0, 8, 0,    0x44, 0x33, 0x22, 0x11,
      0x88, 0x77, 0x66, 0x55, 0xcc, 0xbb, 0xaa, 0x99, 0x00, 0xff, 0xee, 0xdd,
      8,    7,    6,    5,    4,    3,    2,    1,    9,    7,    6,    5,
      4,    3,    2,    1,    8,    0,    0,    0,    0,    0,    0,    0};
  assert_memory_equal(b, want, sizeof want);
}

static void test_round_trip_every_type(void **state) {
  (void)state;
  assert_int_equal(NTYPES, WIRE_TYPE_END - 1);
  for (size_t i = 0; i < NTYPES; i++) {
    struct wire_hdr h = valid_hdr(&all_types[i]), out;
    uint8_t buf[WIRE_HDR_BYTES];
    const char *why = "unset";
    wire_encode(&h, buf);
    memset(&out, 0xa5, sizeof out);
    assert_int_equal(wire_decode(buf, sizeof buf, MAXP, &out, &why), 0);
    assert_null(why);
    assert_int_equal(out.magic, WIRE_MAGIC);
    assert_int_equal(out.version, WIRE_VERSION);
    assert_int_equal(out.type, all_types[i].type);
    assert_int_equal(out.sender, h.sender);
    assert_int_equal(out.table, h.table);
    assert_int_equal(out.iter, h.iter);
    assert_int_equal(out.chunk, h.chunk);
    assert_int_equal(out.key_lo, h.key_lo);
    assert_int_equal(out.key_hi, h.key_hi);
    assert_int_equal(out.payload_bytes, h.payload_bytes);
    assert_int_equal(wire_check_payload(&out, (size_t)h.payload_bytes, &why), 0);
    assert_string_equal(wire_type_name(out.type), all_types[i].name);
  }
}

static void test_hdr_make(void **state) {
  (void)state;
  struct wire_hdr h = wire_hdr_make(WIRE_STOP, 9);
  assert_int_equal(h.magic, WIRE_MAGIC);
  assert_int_equal(h.version, WIRE_VERSION);
  assert_int_equal(h.type, WIRE_STOP);
  assert_int_equal(h.sender, 9);
  assert_int_equal(h.table | h.iter | h.chunk, 0);
  assert_int_equal(h.key_lo | h.key_hi | h.payload_bytes, 0);
}

static void test_free_fields_take_any_value(void **state) {
  (void)state;
  for (size_t i = 0; i < NTYPES; i++) {
    struct wire_hdr h = valid_hdr(&all_types[i]);
    h.sender = h.table = h.iter = h.chunk = UINT32_MAX;
    assert_int_equal(decode_hdr(&h, MAXP, NULL), 0);
  }
}

static void test_bad_length(void **state) {
  (void)state;
  struct wire_hdr h = valid_hdr(&all_types[0]), out;
  uint8_t buf[WIRE_HDR_BYTES + 1] = {0};
  wire_encode(&h, buf);
  const size_t lens[] = {0, 1, WIRE_HDR_BYTES - 1, WIRE_HDR_BYTES + 1};
  for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
    const char *why = NULL;
    assert_int_equal(wire_decode(buf, lens[i], MAXP, &out, &why), DSANA_EPROTO);
    assert_string_equal(why, "bad header length");
  }
}

static void test_bad_magic_each_byte(void **state) {
  (void)state;
  struct wire_hdr h = valid_hdr(&all_types[5]), out;
  for (int byte = 0; byte < 4; byte++) {
    uint8_t buf[WIRE_HDR_BYTES];
    const char *why = NULL;
    wire_encode(&h, buf);
    buf[byte] ^= 0x20;
    assert_int_equal(wire_decode(buf, sizeof buf, MAXP, &out, &why), DSANA_EPROTO);
    assert_string_equal(why, "bad magic");
  }
}

static void test_bad_version(void **state) {
  (void)state;
  const uint16_t versions[] = {0, WIRE_VERSION + 1, 0x0100, UINT16_MAX};
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
    struct wire_hdr h = valid_hdr(&all_types[0]);
    h.version = versions[i];
    expect_reject(&h, MAXP, "unsupported version");
  }
}

static void test_unknown_type(void **state) {
  (void)state;
  const uint16_t types[] = {0, WIRE_TYPE_END, WIRE_TYPE_END + 1, 0x0100, UINT16_MAX};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    struct wire_hdr h = wire_hdr_make(WIRE_TASK, 1);
    h.type = types[i];
    expect_reject(&h, MAXP, "unknown message type");
    assert_string_equal(wire_type_name(types[i]), "UNKNOWN");
  }
}

static void test_key_range_inverted(void **state) {
  (void)state;
  for (size_t i = 0; i < NTYPES; i++) {
    struct wire_hdr h = valid_hdr(&all_types[i]);
    h.key_lo = h.key_hi + 1;
    expect_reject(&h, MAXP, "key_lo > key_hi");
  }
  struct wire_hdr h = wire_hdr_make(WIRE_PULL, 0);
  h.key_lo = UINT64_MAX;
  h.key_hi = 0;
  expect_reject(&h, MAXP, "key_lo > key_hi");
}

static void test_rule_none(void **state) {
  (void)state;
  for (size_t i = 0; i < NTYPES; i++) {
    if (all_types[i].rule != WIRE_P_NONE)
      continue;
    const uint64_t bad[] = {1, 8, UINT64_MAX};
    for (size_t j = 0; j < 3; j++) {
      struct wire_hdr h = valid_hdr(&all_types[i]);
      h.payload_bytes = bad[j];
      expect_reject(&h, MAXP, "payload not allowed for this type");
    }
  }
}

static void test_rule_fixed(void **state) {
  (void)state;
  for (size_t i = 0; i < NTYPES; i++) {
    if (all_types[i].rule != WIRE_P_FIXED)
      continue;
    const uint64_t n = all_types[i].bytes;
    const uint64_t bad[] = {0, n - 1, n + 1, 2 * n, UINT64_MAX};
    for (size_t j = 0; j < 5; j++) {
      struct wire_hdr h = valid_hdr(&all_types[i]);
      h.payload_bytes = bad[j];
      expect_reject(&h, MAXP, "payload length differs from the type's size");
    }
  }
}

static void test_rule_var(void **state) {
  (void)state;
  for (size_t i = 0; i < NTYPES; i++) {
    if (all_types[i].rule != WIRE_P_VAR)
      continue;
    struct wire_hdr h = valid_hdr(&all_types[i]);
    h.payload_bytes = 0;
    assert_int_equal(decode_hdr(&h, MAXP, NULL), 0);
    h.payload_bytes = all_types[i].bytes;
    assert_int_equal(decode_hdr(&h, MAXP, NULL), 0);
    h.payload_bytes = all_types[i].bytes + 1;
    expect_reject(&h, MAXP, "payload longer than the type allows");
    h.payload_bytes = UINT64_MAX;
    expect_reject(&h, MAXP, "payload longer than the type allows");
  }
}

static void test_rule_keys(void **state) {
  (void)state;
  for (size_t i = 0; i < NTYPES; i++) {
    if (all_types[i].rule != WIRE_P_KEYS)
      continue;
    struct wire_hdr h = valid_hdr(&all_types[i]);
    const uint64_t n = h.payload_bytes;
    const uint64_t bad[] = {0, n - 1, n + 1, n - 8, n + 8, n + 4};
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
      h.payload_bytes = bad[j];
      expect_reject(&h, MAXP, "payload length does not match key range");
    }
    /* An empty key range carries an empty payload. */
    h.key_hi = h.key_lo;
    h.payload_bytes = 0;
    assert_int_equal(decode_hdr(&h, MAXP, NULL), 0);
    h.payload_bytes = 8;
    expect_reject(&h, MAXP, "payload length does not match key range");
  }
}

static void test_keys_overflowing_range(void **state) {
  (void)state;
  /* 8 * (2^61 + 1) wraps to 8 in 64 bits: must not pass as one key, even
   * with no payload limit at all. */
  struct wire_hdr h = wire_hdr_make(WIRE_PUSH, 0);
  h.key_lo = 0;
  h.key_hi = ((uint64_t)1 << 61) + 1;
  h.payload_bytes = 8;
  expect_reject(&h, UINT64_MAX, "key range exceeds payload limit");
  expect_reject(&h, MAXP, "key range exceeds payload limit");
  h.key_lo = 5;
  h.key_hi = UINT64_MAX;
  h.payload_bytes = 8 * (UINT64_MAX - 5); /* wrapped */
  expect_reject(&h, UINT64_MAX, "key range exceeds payload limit");
  /* The largest range that cannot overflow is still checked exactly. */
  h.key_lo = 0;
  h.key_hi = UINT64_MAX / 8;
  h.payload_bytes = 8 * h.key_hi;
  assert_int_equal(decode_hdr(&h, UINT64_MAX, NULL), 0);
  h.payload_bytes -= 8;
  expect_reject(&h, UINT64_MAX, "payload length does not match key range");
}

static void test_payload_over_limit(void **state) {
  (void)state;
  /* KEYS: range one key over the limit, and exactly at it. */
  const uint64_t maxp = 4096;
  struct wire_hdr h = wire_hdr_make(WIRE_PULL_REPLY, 0);
  h.key_lo = 10;
  h.key_hi = 10 + maxp / 8;
  h.payload_bytes = maxp;
  assert_int_equal(decode_hdr(&h, maxp, NULL), 0);
  h.key_hi++;
  h.payload_bytes += 8;
  expect_reject(&h, maxp, "key range exceeds payload limit");
  /* SOME_KEYS: a long range with few keys carried is fine; more values than
   * keys, or a partial value, are not; the payload is held to the limit. */
  struct wire_hdr pk = wire_hdr_make(WIRE_PULL_PACKED, 0);
  pk.key_lo = 0;
  pk.key_hi = 1000000;
  pk.payload_bytes = 80;
  assert_int_equal(decode_hdr(&pk, maxp, NULL), 0);
  pk.payload_bytes = 0;
  assert_int_equal(decode_hdr(&pk, maxp, NULL), 0);
  pk.key_hi = 5;
  pk.payload_bytes = 48;
  expect_reject(&pk, maxp, "payload longer than the key range");
  pk.payload_bytes = 12;
  expect_reject(&pk, maxp, "payload longer than the key range");
  pk.key_hi = 1000000;
  pk.payload_bytes = maxp + 8;
  expect_reject(&pk, maxp, "payload over limit");
  /* VAR and FIXED types within their own rule but over the limit. */
  struct wire_hdr v = wire_hdr_make(WIRE_CLUSTER_MAP, 0);
  v.payload_bytes = 5000;
  assert_int_equal(decode_hdr(&v, MAXP, NULL), 0);
  expect_reject(&v, maxp, "payload over limit");
  struct wire_hdr f = wire_hdr_make(WIRE_SHARD_REPORT, 0);
  f.payload_bytes = 128;
  expect_reject(&f, 127, "payload over limit");
  assert_int_equal(decode_hdr(&f, 128, NULL), 0);
}

static void test_check_payload(void **state) {
  (void)state;
  struct wire_hdr h = wire_hdr_make(WIRE_REGISTER, 0);
  h.payload_bytes = 100;
  const char *why = NULL;
  assert_int_equal(wire_check_payload(&h, 100, &why), 0);
  assert_int_equal(wire_check_payload(&h, 99, &why), DSANA_EPROTO);
  assert_non_null(why);
  assert_int_equal(wire_check_payload(&h, 101, NULL), DSANA_EPROTO);
  assert_int_equal(wire_check_payload(&h, 0, NULL), DSANA_EPROTO);
}

static void test_scalar_helpers(void **state) {
  (void)state;
  uint8_t b[8];
  wire_put_u32(b, 0xdeadbeefu);
  assert_int_equal(b[0], 0xef);
  assert_int_equal(b[3], 0xde);
  assert_int_equal(wire_get_u32(b), 0xdeadbeefu);
  wire_put_u64(b, 0x0123456789abcdefull);
  assert_int_equal(b[0], 0xef);
  assert_int_equal(b[7], 0x01);
  assert_int_equal(wire_get_u64(b), 0x0123456789abcdefull);
  const double vals[] = {0.0, -0.0, 1.0, -2.5, 1e-310, 1.7976931348623157e308, 0.15};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    wire_put_f64(b, vals[i]);
    double back = wire_get_f64(b);
    assert_memory_equal(&back, &vals[i], sizeof back); /* bit-exact, keeps -0.0 */
  }
  wire_put_f64(b, 1.0); /* 0x3ff0000000000000 */
  assert_int_equal(b[7], 0x3f);
  assert_int_equal(b[6], 0xf0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_is_little_endian),
      cmocka_unit_test(test_round_trip_every_type),
      cmocka_unit_test(test_hdr_make),
      cmocka_unit_test(test_free_fields_take_any_value),
      cmocka_unit_test(test_bad_length),
      cmocka_unit_test(test_bad_magic_each_byte),
      cmocka_unit_test(test_bad_version),
      cmocka_unit_test(test_unknown_type),
      cmocka_unit_test(test_key_range_inverted),
      cmocka_unit_test(test_rule_none),
      cmocka_unit_test(test_rule_fixed),
      cmocka_unit_test(test_rule_var),
      cmocka_unit_test(test_rule_keys),
      cmocka_unit_test(test_keys_overflowing_range),
      cmocka_unit_test(test_payload_over_limit),
      cmocka_unit_test(test_check_payload),
      cmocka_unit_test(test_scalar_helpers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
