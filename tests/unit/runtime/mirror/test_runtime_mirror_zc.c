/*
 * test_runtime_mirror_zc.c - compressed answers to a worker's dense pulls
 * (runtime/mirror/mirror_zc.c with mirror.c and mirror_take.c): which pulls ask
 * for WIRE_F_ZSTD and WIRE_F_DELTA; compressed pieces, XORed with the
 * previous iteration's values or alone, packed or not, decode to exactly
 * the values a plain piece carries; and every bad one (corrupted,
 * truncated, the wrong count, XORed with values this worker no longer
 * holds, not asked for) is dropped without touching the values or the
 * chunk's completeness, after which a good piece is still taken; those
 * that do not decode are asked for again, uncompressed.
 *
 * Table 0: N = 400 keys in chunks of 40, one server, read whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mirror_test_fixture.h"
#include "net/wire/zcodec.h"

#define N 400
#define CK 40

static int setup(void **state) {
  struct spec sp = {.n_servers = 1, .chunk_keys = CK, .n_tables = 1, .t = {{N, 1, 0, 0}}};
  int rc = fixture_make(state, &sp);
  return rc ? rc : mirror_set_compress(&((struct fixture *)*state)->m, 1 << 20);
}

static int setup_plain(void **state) {
  struct spec sp = {.n_servers = 1, .chunk_keys = CK, .n_tables = 1, .t = {{N, 1, 0, 0}}};
  return fixture_make(state, &sp);
}

/* Every other key of table 0 unread (even keys are read); width 2. */
static const uint64_t odd_unread[(N + 63) / 64] = {0xaaaaaaaaaaaaaaaaull, 0xaaaaaaaaaaaaaaaaull, 0xaaaaaaaaaaaaaaaaull,
                                                   0xaaaaaaaaaaaaaaaaull, 0xaaaaaaaaaaaaaaaaull, 0xaaaaaaaaaaaaaaaaull,
                                                   0xaaaaaaaaaaaaaaaaull};
static int setup_packed(void **state) {
  struct spec sp = {.n_servers = 1, .chunk_keys = CK, .n_tables = 1, .t = {{N, 2, 0, 0}}, .unread = {odd_unread}};
  int rc = fixture_make(state, &sp);
  return rc ? rc : mirror_set_compress(&((struct fixture *)*state)->m, 1 << 20);
}

/* Values of a converging run: iteration `iter`'s value of (k, j). */
static double conv(uint32_t iter, uint64_t k, uint32_t j) { return 1.0 + (double)(k % 3) + 0.125 * iter + j; }

/* The one PULL queued: its flags; the queue is emptied. */
static uint32_t pull_flags(struct fixture *f, uint32_t iter) {
  assert_int_equal(f->q.n, 1);
  assert_int_equal(f->q.v[0].hdr.type, WIRE_PULL);
  assert_int_equal(f->q.v[0].hdr.iter, iter);
  uint32_t fl = f->q.v[0].hdr.flags;
  rt_outq_clear(&f->q);
  return fl;
}

/* The values of the read keys of [lo, hi) for iter, packed when the table
 * has unread keys; *n gets how many values. Caller frees. */
static double *values_of(struct fixture *f, uint32_t iter, uint64_t lo, uint64_t hi, uint64_t *n) {
  uint32_t w = width_of(f, 0);
  const uint64_t *unread = f->m.t[0].unread;
  double *v = malloc((hi - lo) * w * sizeof *v);
  assert_non_null(v);
  *n = 0;
  for (uint64_t k = lo; k < hi; k++)
    if (keymask_read(unread, k))
      for (uint32_t j = 0; j < w; j++)
        v[(*n)++] = conv(iter, k, j);
  return v;
}

/* Encode [lo, hi) of iter (XOR iter-1's values when delta) as a server
 * does; the header, payload in *out (caller frees). */
static struct wire_hdr encode_piece(struct fixture *f, uint32_t iter, uint64_t lo, uint64_t hi, bool delta,
                                    uint8_t **out) {
  uint64_t n;
  double *v = values_of(f, iter, lo, hi, &n), *b = values_of(f, iter - 1, lo, hi, &n);
  struct zcodec *z;
  assert_int_equal(zcodec_create(&z), 0);
  *out = malloc(n * 8 + 64);
  size_t len = 0;
  assert_int_equal(zcodec_encode(z, v, delta ? b : NULL, n, *out, n * 8 + 64, &len), 0);
  zcodec_destroy(z);
  free(v);
  free(b);
  struct wire_hdr h = reply_hdr(0, 0, iter, lo, hi);
  h.flags = WIRE_F_ZSTD | (delta ? WIRE_F_DELTA : 0) | (f->m.t[0].unread ? WIRE_F_PACKED : 0);
  h.count = (uint32_t)(n / width_of(f, 0));
  h.payload_bytes = len;
  return h;
}

/* Offer [lo, hi) of iter compressed. */
static void zpiece(struct fixture *f, uint32_t iter, uint64_t lo, uint64_t hi, bool delta) {
  uint8_t *p;
  struct wire_hdr h = encode_piece(f, iter, lo, hi, delta, &p);
  offer(f, 0, &h, (const double *)p);
  free(p);
}

static void check_conv(struct fixture *f, uint32_t iter, uint64_t lo, uint64_t hi) {
  uint32_t w = width_of(f, 0);
  for (uint64_t k = lo; k < hi; k++)
    for (uint32_t j = 0; j < w; j++)
      if (keymask_read(f->m.t[0].unread, k))
        assert_true(mirror_values(&f->m, 0, iter)[k * w + j] == conv(iter, k, j));
}

/* mirror_kick() asks n times for keys of [3 CK, 4 CK) of iteration 2
 * without compression, and nothing else. */
static void expect_refetch(struct fixture *f, size_t n) {
  assert_int_equal(mirror_kick(&f->m, &f->q), 0);
  assert_int_equal(f->q.n, n);
  for (size_t i = 0; i < n; i++) {
    const struct wire_hdr *h = &f->q.v[i].hdr;
    assert_int_equal(h->type, WIRE_PULL);
    assert_true(h->table == 0 && h->iter == 2 && h->key_lo == 3 * CK && h->key_hi <= 4 * CK && h->flags == 0);
  }
  rt_outq_clear(&f->q);
  assert_int_equal(mirror_kick(&f->m, &f->q), 0);
  assert_int_equal(f->q.n, 0);
}

/* Iteration 1 whole, compressed alone (nothing to XOR yet). */
static void first_iteration(struct fixture *f) {
  assert_int_equal(mirror_request(&f->m, 0, 1, &f->q), 0);
  assert_int_equal(pull_flags(f, 1), WIRE_F_ZSTD);
  for (uint64_t c = 0; c < N / CK; c++)
    zpiece(f, 1, c * CK, (c + 1) * CK, false);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_conv(f, 1, 0, N);
}

static void test_asks_and_decodes(void **state) {
  struct fixture *f = *state;
  first_iteration(f);
  uint64_t raw = f->m.bytes_in_raw, sent = f->m.bytes_in;
  assert_int_equal(raw, N / CK * WIRE_HDR_BYTES + 8 * N);
  assert_true(sent < raw);
  /* every chunk holds iteration 1: iteration 2 may come XORed with it */
  assert_int_equal(mirror_request(&f->m, 0, 2, &f->q), 0);
  assert_int_equal(pull_flags(f, 2), WIRE_F_ZSTD | WIRE_F_DELTA);
  for (uint64_t c = 0; c < N / CK; c++) {
    if (c == 4) { /* a chunk in two pieces: the second XORs values still iteration 1's */
      zpiece(f, 2, 4 * CK, 4 * CK + 15, true);
      zpiece(f, 2, 4 * CK + 15, 5 * CK, true);
    } else {
      zpiece(f, 2, c * CK, (c + 1) * CK, c % 2 == 0); /* either kind */
    }
  }
  assert_true(mirror_ready(&f->m, 0, 2, 0, N));
  check_conv(f, 2, 0, N);
  assert_int_equal(f->m.bytes_in_raw - raw, 11 * WIRE_HDR_BYTES + 8 * N);
  assert_true(f->m.bytes_in - sent < f->m.bytes_in_raw - raw);
  /* starting afresh (a jump): nothing to XOR */
  assert_int_equal(mirror_request(&f->m, 0, 7, &f->q), 0);
  assert_int_equal(pull_flags(f, 7), WIRE_F_ZSTD);
}

/* Bad compressed pieces of chunk 3 of iteration 2: dropped, chunk
 * incomplete, values still iteration 1's; then the good piece is taken. */
static void test_bad_pieces_dropped(void **state) {
  struct fixture *f = *state;
  first_iteration(f);
  assert_int_equal(mirror_request(&f->m, 0, 2, &f->q), 0);
  rt_outq_clear(&f->q);
  uint64_t sent = f->m.bytes_in;
  uint8_t *p;
  struct wire_hdr good = encode_piece(f, 2, 3 * CK, 4 * CK, true, &p), h;
  size_t len = good.payload_bytes;
  uint8_t *bad = malloc(len + 8);
  assert_non_null(bad);
  /* truncated, trailing bytes, the wrong count */
  h = good;
  h.payload_bytes = len - 1;
  offer(f, 0, &h, (const double *)p);
  memcpy(bad, p, len);
  memset(bad + len, 0, 8);
  h = good;
  h.payload_bytes = len + 8;
  offer(f, 0, &h, (const double *)bad);
  h = good;
  h.count = CK - 1;
  h.key_hi = 4 * CK - 1;
  offer(f, 0, &h, (const double *)p);
  h = good;
  h.count = CK + 1;
  offer(f, 0, &h, (const double *)p);
  assert_false(mirror_chunk_ready(&f->m, 0, 2, 3));
  assert_int_equal(f->m.bytes_in, sent);
  check_conv(f, 1, 3 * CK, 4 * CK);
  /* the pieces that did not decode (truncated, trailing bytes, one key
   * short) are asked for again, uncompressed */
  expect_refetch(f, 3);
  /* the good piece still goes in */
  offer(f, 0, &good, (const double *)p);
  assert_true(mirror_chunk_ready(&f->m, 0, 2, 3));
  check_conv(f, 2, 3 * CK, 4 * CK);
  /* and a second copy of it is refused (keys received twice) */
  offer(f, 0, &good, (const double *)p);
  check_conv(f, 2, 3 * CK, 4 * CK);
  free(bad);
  free(p);
}

/* Every byte of a good DELTA piece of chunk 3 flipped in turn, each on a
 * fresh mirror holding iteration 1: the piece is dropped with the values
 * untouched and the chunk incomplete, or (a bit zstd's entropy tables do
 * not use) decodes to exactly the good values. */
static void test_flipped_bytes(void **state) {
  struct fixture *f = *state;
  uint8_t *p;
  first_iteration(f);
  struct wire_hdr good = encode_piece(f, 2, 3 * CK, 4 * CK, true, &p);
  size_t len = good.payload_bytes, rejected = 0;
  uint8_t *bad = malloc(len);
  assert_non_null(bad);
  for (size_t i = 0; i < len; i++) {
    void *g = NULL;
    assert_int_equal(setup(&g), 0);
    first_iteration(g);
    assert_int_equal(mirror_request(&((struct fixture *)g)->m, 0, 2, &((struct fixture *)g)->q), 0);
    rt_outq_clear(&((struct fixture *)g)->q);
    memcpy(bad, p, len);
    bad[i] ^= 0x10;
    offer(g, 0, &good, (const double *)bad);
    if (mirror_chunk_ready(&((struct fixture *)g)->m, 0, 2, 3)) {
      check_conv(g, 2, 3 * CK, 4 * CK);
    } else {
      check_conv(g, 1, 3 * CK, 4 * CK);
      expect_refetch(g, 1);
      rejected++;
    }
    teardown(&g);
  }
  assert_true(rejected + 2 >= len); /* nearly every flip is caught */
  free(bad);
  free(p);
}

/* A DELTA piece for a table started afresh since: the base is gone. */
static void test_delta_without_base_dropped(void **state) {
  struct fixture *f = *state;
  assert_int_equal(mirror_request(&f->m, 0, 2, &f->q), 0); /* fresh: chunks hold nothing */
  assert_int_equal(pull_flags(f, 2), WIRE_F_ZSTD);
  zpiece(f, 2, 0, CK, true);
  assert_false(mirror_chunk_ready(&f->m, 0, 2, 0));
  check_untouched(f, 0, 0, CK);
  zpiece(f, 2, 0, CK, false);
  assert_true(mirror_chunk_ready(&f->m, 0, 2, 0));
  check_conv(f, 2, 0, CK);
}

/* The ask for iteration 2 waits until all of 1 is in (its pieces XORed
 * with nothing decode in the buffer 2 would empty): then it goes, once,
 * XORed with 1. An ask for 3 meanwhile sends the waiting one first. */
static void test_ask_waits_for_base(void **state) {
  struct fixture *f = *state;
  assert_int_equal(mirror_request(&f->m, 0, 1, &f->q), 0);
  assert_int_equal(pull_flags(f, 1), WIRE_F_ZSTD);
  zpiece(f, 1, 0, CK, false);
  assert_int_equal(mirror_request(&f->m, 0, 2, &f->q), 0);
  assert_int_equal(f->q.n, 0); /* waits */
  for (uint64_t c = 1; c < N / CK; c++) {
    assert_int_equal(mirror_kick(&f->m, &f->q), 0);
    assert_int_equal(f->q.n, 0);
    zpiece(f, 1, c * CK, (c + 1) * CK, false);
  }
  assert_int_equal(mirror_kick(&f->m, &f->q), 0);
  assert_int_equal(pull_flags(f, 2), WIRE_F_ZSTD | WIRE_F_DELTA);
  assert_int_equal(mirror_kick(&f->m, &f->q), 0);
  assert_int_equal(f->q.n, 0); /* once */
  zpiece(f, 2, 0, CK, true);
  assert_true(mirror_chunk_ready(&f->m, 0, 2, 0));
  check_conv(f, 2, 0, CK);
  check_conv(f, 1, 0, N);
  /* 3 waits for the rest of 2; an ask for 4 sends 3 at once (plain: 2 is
   * not whole), and 4 waits for 3 */
  assert_int_equal(mirror_request(&f->m, 0, 3, &f->q), 0);
  assert_int_equal(f->q.n, 0);
  assert_int_equal(mirror_request(&f->m, 0, 4, &f->q), 0);
  assert_int_equal(pull_flags(f, 3), WIRE_F_ZSTD);
  for (uint64_t c = 0; c < N / CK; c++)
    zpiece(f, 3, c * CK, (c + 1) * CK, false);
  assert_int_equal(mirror_kick(&f->m, &f->q), 0);
  assert_int_equal(pull_flags(f, 4), WIRE_F_ZSTD | WIRE_F_DELTA);
  check_conv(f, 3, 0, N);
}

/* Width 2, every other key unread: pieces are packed, and so is the base. */
static void test_packed_delta(void **state) {
  struct fixture *f = *state;
  first_iteration(f);
  assert_int_equal(mirror_request(&f->m, 0, 2, &f->q), 0);
  assert_int_equal(pull_flags(f, 2), WIRE_F_ZSTD | WIRE_F_DELTA);
  for (uint64_t c = 0; c < N / CK; c++)
    zpiece(f, 2, c * CK, (c + 1) * CK, true);
  assert_true(mirror_ready(&f->m, 0, 2, 0, N));
  check_conv(f, 2, 0, N);
}

/* A mirror that did not ask for compression refuses compressed pieces. */
static void test_not_asked(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1); /* plain pulls: no compression flag */
  zpiece(f, 1, 0, CK, false);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_untouched(f, 0, 0, CK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_asks_and_decodes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_pieces_dropped, setup, teardown),
      cmocka_unit_test_setup_teardown(test_flipped_bytes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delta_without_base_dropped, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ask_waits_for_base, setup, teardown),
      cmocka_unit_test_setup_teardown(test_packed_delta, setup_packed, teardown),
      cmocka_unit_test_setup_teardown(test_not_asked, setup_plain, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
