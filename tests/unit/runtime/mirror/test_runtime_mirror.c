/*
 * test_runtime_mirror.c - a worker's mirror of dense tables
 * (runtime/mirror/mirror.c, mirror_take.c), driven directly: the PULLs it emits
 * into its rt_outq are checked, and hand-made PULL_REPLY pieces, good and
 * bad, are offered to mirror_take() as servers would send them. Every bad
 * piece must be taken and dropped: it must neither count towards a
 * chunk's completeness nor overwrite values already received.
 *
 * Tables of N = 100 keys in chunks of 10 unless said otherwise; the job is
 * declared through the app API (mirror_test_fixture.h). Shared-buffer
 * answers: test_runtime_mirror_shared.c; sparse tables:
 * test_runtime_mirror_sparse.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mirror_test_fixture.h"

#define N 100
#define CK 10

/* Tables 0 and 1 read whole by every task; table 2 read by none. */
static int setup1(void **state) {
  struct spec sp = {.n_servers = 1, .chunk_keys = CK, .n_tables = 3, .t = {{N, 1, 0, 0}, {N, 1, 0, 0}, {N, 1, 0, -1}}};
  return fixture_make(state, &sp);
}

static int setup2(void **state) {
  struct spec sp = {.n_servers = 2, .chunk_keys = CK, .n_tables = 1, .t = {{N, 1, 0, 0}}};
  return fixture_make(state, &sp);
}

/* Send the whole table from server 0 (one piece per chunk, chunk 2 in two). */
static void send_all(struct fixture *f, uint32_t t, uint32_t iter, double tag) {
  for (uint64_t c = 0; c < N / CK; c++) {
    if (c == 2) {
      give(f, 0, t, iter, 20, 24, tag);
      give(f, 0, t, iter, 24, 30, tag);
    } else {
      give(f, 0, t, iter, c * CK, (c + 1) * CK, tag);
    }
  }
}

/* A correct sequence: chunks become ready one by one, then the table. */
static void test_correct_sequence(void **state) {
  struct fixture *f = *state;
  assert_int_equal(f->m.t[0].n_chunks, N / CK);
  assert_true(f->m.t[0].used && f->m.t[1].used && !f->m.t[2].used);
  assert_false(mirror_ready(&f->m, 0, 1, 0, N));
  request(f, 0, 1);
  assert_false(mirror_ready(&f->m, 0, 1, 0, N));
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  /* asking again for the same iteration sends nothing */
  assert_int_equal(mirror_request(&f->m, 0, 1, &f->q), 0);
  expect_no_pull(f);

  give(f, 0, 0, 1, 30, 40, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 3));
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 2));
  assert_true(mirror_ready(&f->m, 0, 1, 30, 40));
  assert_true(mirror_ready(&f->m, 0, 1, 31, 35));
  assert_false(mirror_ready(&f->m, 0, 1, 25, 35));
  assert_false(mirror_ready(&f->m, 0, 1, 0, N));
  assert_false(mirror_chunk_ready(&f->m, 0, 2, 3));      /* another iteration */
  assert_false(mirror_chunk_ready(&f->m, 0, 1, N / CK)); /* no such chunk */
  check_values(f, 0, 1, 30, 40, 1);

  give(f, 0, 0, 1, 20, 24, 1); /* chunk 2 in two pieces */
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 2));
  give(f, 0, 0, 1, 24, 30, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 2));
  assert_true(mirror_ready(&f->m, 0, 1, 20, 40));
  assert_int_equal(chunks_ready(f, 0, 1), 2);

  for (uint64_t c = 0; c < N / CK; c++)
    if (c != 2 && c != 3)
      give(f, 0, 0, 1, c * CK, (c + 1) * CK, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  assert_int_equal(chunks_ready(f, 0, 1), N / CK);
  assert_int_equal(mirror_missing(&f->m, 0), 0);
  check_values(f, 0, 1, 0, N, 1);
  assert_int_equal(f->m.bytes_in, 11 * WIRE_HDR_BYTES + 8 * N);
  assert_int_equal(mirror_kick(&f->m, &f->q), 0);
  expect_no_pull(f);

  /* next iteration: not ready until its own pieces arrive */
  request(f, 0, 2);
  assert_false(mirror_ready(&f->m, 0, 2, 0, N));
  assert_int_equal(chunks_ready(f, 0, 2), 0);
  /* fetching ahead: iteration 1.s values stay readable in the other buffer */
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  send_all(f, 0, 2, 1);
  assert_true(mirror_ready(&f->m, 0, 2, 0, N));
  check_values(f, 0, 2, 0, N, 1);
  /* a prefetch asks again for every dense table used before, here table 0 */
  assert_int_equal(mirror_prefetch(&f->m, 3, &f->q), 0);
  expect_pulls(f, 0, 3, 0, N);
}

/* A piece arriving twice is dropped: not counted twice, values kept. */
static void test_duplicate_rejected(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);

  /* a whole chunk twice, the second copy with different values */
  give(f, 0, 0, 1, 10, 20, 1);
  give(f, 0, 0, 1, 10, 20, 2);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 1));
  check_values(f, 0, 1, 10, 20, 1);

  /* half a chunk twice: the duplicate must not make the chunk look complete */
  give(f, 0, 0, 1, 0, 5, 1);
  give(f, 0, 0, 1, 0, 5, 2);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  assert_false(mirror_ready(&f->m, 0, 1, 0, 10));
  assert_false(mirror_ready(&f->m, 0, 1, 3, 7));
  check_values(f, 0, 1, 0, 5, 1);
  check_untouched(f, 0, 5, 10);

  /* an overlapping piece (keys 3..7, half of them already here) is dropped too */
  give(f, 0, 0, 1, 3, 8, 2);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_values(f, 0, 1, 0, 5, 1);
  check_untouched(f, 0, 5, 10);

  give(f, 0, 0, 1, 5, 10, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_values(f, 0, 1, 0, 10, 1);

  for (uint64_t c = 2; c < N / CK; c++)
    give(f, 0, 0, 1, c * CK, (c + 1) * CK, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_values(f, 0, 1, 0, N, 1);
  /* a duplicate after completion changes nothing either */
  give(f, 0, 0, 1, 40, 50, 2);
  check_values(f, 0, 1, 0, N, 1);
  assert_int_equal(mirror_missing(&f->m, 0), 0);
  /* bytes_in counts accepted pieces only: chunk 0 came in two pieces */
  assert_int_equal(f->m.bytes_in, 11 * WIRE_HDR_BYTES + 8 * N);
}

/* Pieces of another iteration (stale or future) are dropped. */
static void test_wrong_iteration_rejected(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  send_all(f, 0, 1, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));

  request(f, 0, 2);
  give(f, 0, 0, 1, 0, 10, 3);  /* stale: a late copy of iteration 1's chunk 0 */
  give(f, 0, 0, 3, 10, 20, 3); /* future: iteration 3 before it was asked for */
  give(f, 0, 0, 0, 20, 30, 3); /* never asked: iteration 0 */
  assert_int_equal(chunks_ready(f, 0, 2), 0);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 0)); /* the late copy was a duplicate */
  assert_false(mirror_chunk_ready(&f->m, 0, 3, 1));
  assert_int_equal(mirror_missing(&f->m, 0), N);
  /* iteration 1's values are still what they were (nothing was overwritten) */
  check_values(f, 0, 1, 0, N, 1);

  send_all(f, 0, 2, 1);
  assert_true(mirror_ready(&f->m, 0, 2, 0, N));
  check_values(f, 0, 2, 0, N, 1);
  /* asking for 3 empties the buffer of 1: its late pieces are superseded */
  request(f, 0, 3);
  give(f, 0, 0, 3, 0, 10, 1);
  give(f, 0, 0, 2, 0, 10, 5);  /* a duplicate of 2: dropped */
  give(f, 0, 0, 1, 10, 20, 5); /* two behind the front */
  check_values(f, 0, 3, 0, 10, 1);
  check_values(f, 0, 2, 10, N, 1);
}

/* Fetching ahead: iteration 2's pieces land in the other buffer while
 * iteration 1's stay readable whole (a task of 1 handed late reads them);
 * asking for 3 empties the buffer of 1, whose late pieces are then
 * superseded; nothing is ever held back. */
static void test_fetch_ahead(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  give(f, 0, 0, 1, 0, 10, 1); /* chunk 0 of 1; the rest still on the wire */
  request(f, 0, 2);           /* asked at once: no chunk of 1 must be read first */
  assert_int_equal(f->m.t[0].iter, 2);

  give(f, 0, 0, 2, 0, 10, 2); /* chunk 0 of 2 beside chunk 0 of 1 */
  give(f, 0, 0, 2, 60, 70, 2);
  assert_true(mirror_chunk_ready(&f->m, 0, 2, 0));
  assert_true(mirror_chunk_ready(&f->m, 0, 2, 6));
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 0));
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 6));
  check_values(f, 0, 1, 0, 10, 1);
  check_values(f, 0, 2, 0, 10, 2);
  /* the rest of 1 still comes in after 2's pieces */
  for (uint64_t c = 1; c < N / CK; c++)
    give(f, 0, 0, 1, c * CK, (c + 1) * CK, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_values(f, 0, 1, 0, N, 1);
  check_values(f, 0, 2, 60, 70, 2);
  assert_int_equal(mirror_missing(&f->m, 0), N - 2 * CK); /* of the front, 2 */
  /* asking for either again sends nothing */
  assert_int_equal(mirror_request(&f->m, 0, 1, &f->q), 0);
  assert_int_equal(mirror_request(&f->m, 0, 2, &f->q), 0);
  expect_no_pull(f);

  /* the worker moved on to 2 and asks for 3: the buffer of 1 starts afresh */
  request(f, 0, 3);
  assert_false(mirror_ready(&f->m, 0, 1, 0, N));
  assert_int_equal(chunks_ready(f, 0, 3), 0);
  give(f, 0, 0, 1, 10, 20, 5); /* a late copy of 1: superseded, stored nowhere */
  assert_int_equal(chunks_ready(f, 0, 3), 0);
  give(f, 0, 0, 3, 10, 20, 3);
  assert_true(mirror_chunk_ready(&f->m, 0, 3, 1));
  check_values(f, 0, 3, 10, 20, 3);
  check_values(f, 0, 2, 60, 70, 2); /* 2 untouched by 3 */
  for (uint64_t c = 0; c < N / CK; c++)
    if (c != 0 && c != 6)
      give(f, 0, 0, 2, c * CK, (c + 1) * CK, 2);
  assert_true(mirror_ready(&f->m, 0, 2, 0, N));
  check_values(f, 0, 2, 0, N, 2);
  /* a piece of an iteration never asked for (4) is dropped */
  give(f, 0, 0, 4, 0, 10, 4);
  assert_false(mirror_chunk_ready(&f->m, 0, 4, 0));
  check_values(f, 0, 2, 0, 10, 2);
}

/* Pieces straddling a chunk boundary, empty, beyond the table, or whose
 * count or payload do not match their key range are dropped. */
static void test_bad_ranges_rejected(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  give(f, 0, 0, 1, 5, 15, 2);     /* straddles chunks 0 and 1 */
  give(f, 0, 0, 1, 0, 20, 2);     /* two whole chunks in one piece */
  give(f, 0, 0, 1, 95, N + 5, 2); /* runs past the table (and the shard) */
  give(f, 0, 0, 1, N, N + 10, 2); /* entirely beyond the table */
  give(f, 0, 0, 1, 40, 40, 2);    /* empty */
  double v[2 * CK] = {0};
  struct wire_hdr h = reply_hdr(0, 0, 1, 0, CK);
  h.count = CK + 1; /* one key too many */
  h.payload_bytes = 8 * (CK + 1);
  offer(f, 0, &h, v);
  h.count = CK; /* right count, payload one value short */
  h.payload_bytes = 8 * (CK - 1);
  offer(f, 0, &h, v);
  h.count = CK - 1; /* both one short */
  offer(f, 0, &h, v);
  h.count = 0; /* no values at all */
  h.payload_bytes = 0;
  offer(f, 0, &h, NULL);
  h = reply_hdr(0, 0, 1, 0, CK);
  h.flags = WIRE_F_PACKED; /* packed, but every key is read: still CK values */
  h.count = CK - 2;
  h.payload_bytes = 8 * (CK - 2);
  offer(f, 0, &h, v);
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  assert_int_equal(mirror_missing(&f->m, 0), N);
  check_untouched(f, 0, 0, N);
  assert_int_equal(f->m.bytes_in, 0);

  send_all(f, 0, 1, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_values(f, 0, 1, 0, N, 1);
}

/* A piece for a table that was not requested, is read by no task here, or
 * does not exist; another message type; a server that does not exist. */
static void test_unrequested_table_rejected(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  give(f, 0, 1, 1, 0, 10, 2); /* table 1 is read but was not requested */
  give(f, 0, 2, 1, 0, 10, 2); /* table 2 is read by no task */
  give(f, 0, 7, 1, 0, 10, 2); /* table 7 does not exist (3 tables) */
  give(f, 0, 9999, 1, 0, 10, 2);
  give(f, 1, 0, 1, 0, 10, 2); /* server 1 of 1 */
  double v[CK] = {0};
  struct wire_hdr push = reply_hdr(0, 0, 1, 0, CK);
  push.type = WIRE_PUSH;
  push.count = CK;
  push.payload_bytes = sizeof v;
  offer(f, 0, &push, v);
  assert_false(mirror_chunk_ready(&f->m, 1, 1, 0));
  assert_false(mirror_ready(&f->m, 1, 1, 0, N));
  assert_null(f->m.t[1].values);
  assert_null(f->m.t[2].values);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  assert_int_equal(mirror_missing(&f->m, 0), N);
  check_untouched(f, 0, 0, N);

  /* the other table, once requested, is independent of table 0 */
  request(f, 1, 1);
  give(f, 0, 1, 1, 0, 10, 4);
  assert_true(mirror_chunk_ready(&f->m, 1, 1, 0));
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_values(f, 1, 1, 0, 10, 4);
  check_untouched(f, 0, 0, N);
}

/* Two servers: a piece of the other server's shard is dropped. */
static void test_outside_shard_rejected(void **state) {
  struct fixture *f = *state;
  uint64_t lo0, hi0, lo1, hi1;
  shard_range(N, 2, 0, &lo0, &hi0);
  shard_range(N, 2, 1, &lo1, &hi1);
  assert_int_equal(hi0, 50);
  assert_int_equal(lo1, 50);
  request(f, 0, 1);            /* one PULL per server, each for its shard */
  give(f, 1, 0, 1, 0, 10, 2);  /* server 1 sends keys of server 0 */
  give(f, 0, 0, 1, 60, 70, 2); /* server 0 sends keys of server 1 */
  give(f, 0, 0, 1, 45, 55, 2); /* across the shard boundary */
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  check_untouched(f, 0, 0, N);

  for (uint64_t c = 0; c < 5; c++)
    give(f, 0, 0, 1, c * CK, (c + 1) * CK, 1);
  for (uint64_t c = 5; c < 10; c++)
    give(f, 1, 0, 1, c * CK, (c + 1) * CK, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_values(f, 0, 1, 0, N, 1);
}

/* Keys no task reads: every third key, and all of chunk 5. */
static uint64_t test_unread[N / 64 + 1];
static bool unread_key(uint64_t k) { return k % 3 == 0 || (k >= 50 && k < 60); }

static int setup_packed(void **state) {
  memset(test_unread, 0, sizeof test_unread);
  for (uint64_t k = 0; k < N; k++)
    if (unread_key(k))
      test_unread[k / 64] |= 1ull << (k % 64);
  struct spec sp = {.n_servers = 1, .chunk_keys = CK, .n_tables = 1, .t = {{N, 1, 0, 0}}, .unread = {test_unread}};
  return fixture_make(state, &sp);
}

/* Server 0 sends the read keys of [lo, hi) packed: `count` says extra_count
 * more (or fewer) than the read keys, the payload extra_values more. */
static void packed_piece(struct fixture *f, uint32_t iter, uint64_t lo, uint64_t hi, double tag, int extra_count,
                         int extra_values) {
  double v[N + 16];
  uint64_t n = 0;
  for (uint64_t k = lo; k < hi; k++)
    if (!unread_key(k))
      v[n++] = val(iter, k, 0, tag);
  for (int i = 0; i < extra_values; i++)
    v[n + (uint64_t)i] = -1.0;
  struct wire_hdr h = reply_hdr(0, 0, iter, lo, hi);
  h.flags = WIRE_F_PACKED;
  h.count = (uint32_t)((int64_t)n + extra_count);
  h.payload_bytes = 8 * (uint64_t)((int64_t)n + extra_values);
  offer(f, 0, &h, v);
}

/* Packed pieces (keys the app never reads are not sent): values land at
 * the read keys only, a chunk is complete once its read keys are in (one
 * with none at once), and a packed piece whose count or payload does not
 * match the read keys of its range is dropped. */
static void test_packed_pieces(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 5)); /* nothing in it is read */
  assert_int_equal(chunks_ready(f, 0, 1), 1);
  packed_piece(f, 1, 0, 10, 1, 1, 1);   /* one value too many */
  packed_piece(f, 1, 0, 10, 1, -1, -1); /* one too few */
  packed_piece(f, 1, 0, 10, 1, 0, 1);   /* count right, payload long */
  packed_piece(f, 1, 0, 10, 1, 1, 0);   /* payload right, count high */
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_untouched(f, 0, 0, 10);
  packed_piece(f, 1, 0, 10, 1, 0, 0);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 0));
  for (uint64_t k = 0; k < 10; k++)
    assert_true(mirror_values(&f->m, 0, 1)[k] == (unread_key(k) ? 0.0 : val(1, k, 0, 1)));
  packed_piece(f, 1, 0, 10, 2, 0, 0); /* again: keys received twice */
  assert_true(mirror_values(&f->m, 0, 1)[1] == val(1, 1, 0, 1));
  assert_int_equal(f->m.bytes_in, WIRE_HDR_BYTES + 8 * 6);
  /* the rest, chunk 5 as the server sends it (no values), chunk 2 in two
   * pieces, one of them a plain piece with every key */
  for (uint64_t c = 1; c < N / CK; c++) {
    if (c == 2) {
      packed_piece(f, 1, 20, 24, 1, 0, 0);
      give(f, 0, 0, 1, 24, 30, 1);
    } else {
      packed_piece(f, 1, c * CK, (c + 1) * CK, 1, 0, 0);
    }
  }
  assert_int_equal(chunks_ready(f, 0, 1), N / CK);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  assert_int_equal(mirror_missing(&f->m, 0), 0);
  for (uint64_t k = 0; k < N; k++)
    if (!unread_key(k))
      assert_true(mirror_values(&f->m, 0, 1)[k] == val(1, k, 0, 1));
  /* fetching ahead, chunk 5 switches with its empty piece like any other */
  request(f, 0, 2);
  for (uint64_t c = 0; c < N / CK; c++)
    packed_piece(f, 2, c * CK, (c + 1) * CK, 3, 0, 0);
  assert_int_equal(chunks_ready(f, 0, 2), N / CK);
  assert_int_equal(mirror_request(&f->m, 0, 3, &f->q), 0);
  expect_pulls(f, 0, 3, 0, N);
}

/* Tables of width > 1: a key carries `width` values, `count` counts keys.
 * Table 0: 40 keys of width 3, chunks of 8, two servers; table 1: 40 keys
 * of width 2, keys k % 4 == 1 unread (packed pieces). */
static uint64_t wide_unread[1];
static int setup_wide(void **state) {
  wide_unread[0] = 0;
  for (uint64_t k = 1; k < 40; k += 4)
    wide_unread[0] |= 1ull << k;
  struct spec sp = {.n_servers = 2,
                    .chunk_keys = 8,
                    .n_tables = 2,
                    .t = {{40, 3, 0, 0}, {40, 2, 0, 0}},
                    .unread = {NULL, wide_unread}};
  return fixture_make(state, &sp);
}

static void test_wide_tables(void **state) {
  struct fixture *f = *state;
  assert_int_equal(f->m.t[0].width, 3);
  assert_int_equal(f->m.t[0].n_chunks, 5);
  request(f, 0, 1);
  /* count in values instead of keys, and a payload of one value per key */
  double v[8 * 3] = {0};
  struct wire_hdr h = reply_hdr(0, 0, 1, 0, 8);
  h.count = 8 * 3;
  h.payload_bytes = sizeof v;
  offer(f, 0, &h, v);
  h.count = 8;
  h.payload_bytes = 8 * 8;
  offer(f, 0, &h, v);
  check_untouched(f, 0, 0, 40);
  /* shards [0, 20) and [20, 40): chunk 2 [16, 24) is cut between them */
  give(f, 0, 0, 1, 0, 8, 1);
  give(f, 0, 0, 1, 8, 16, 1);
  give(f, 0, 0, 1, 16, 20, 1);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 2));
  give(f, 1, 0, 1, 16, 24, 9); /* server 1 claims server 0's keys too */
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 2));
  give(f, 1, 0, 1, 20, 24, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 2));
  give(f, 1, 0, 1, 24, 32, 1);
  give(f, 1, 0, 1, 32, 40, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, 40));
  check_values(f, 0, 1, 0, 40, 1);
  assert_int_equal(f->m.bytes_in, 6 * WIRE_HDR_BYTES + 40 * 3 * 8);

  /* width 2, packed: the read keys' two values each, in key order */
  request(f, 1, 1);
  for (uint32_t s = 0; s < 2; s++)
    for (uint64_t lo = 20 * s; lo < 20 * (s + 1);) {
      uint64_t hi = (lo / 8 + 1) * 8 < 20 * (s + 1) ? (lo / 8 + 1) * 8 : 20 * (s + 1);
      double pv[16];
      uint64_t n = 0;
      for (uint64_t k = lo; k < hi; k++)
        if (k % 4 != 1) {
          pv[2 * n] = val(1, k, 0, 1);
          pv[2 * n + 1] = val(1, k, 1, 1);
          n++;
        }
      struct wire_hdr ph = reply_hdr(s, 1, 1, lo, hi);
      ph.flags = WIRE_F_PACKED;
      ph.count = (uint32_t)n;
      ph.payload_bytes = 8 * n; /* one value per key: too short */
      offer(f, s, &ph, pv);
      ph.payload_bytes = 16 * n;
      offer(f, s, &ph, pv);
      lo = hi;
    }
  assert_true(mirror_ready(&f->m, 1, 1, 0, 40));
  for (uint64_t k = 0; k < 40; k++)
    for (uint32_t j = 0; j < 2; j++)
      assert_true(mirror_values(&f->m, 1, 1)[k * 2 + j] == (k % 4 == 1 ? 0.0 : val(1, k, j, 1)));
}

/* Tasks read only keys [20, 80) of the table: only those are asked for,
 * pieces outside are dropped, and chunks nobody reads are ready at once,
 * whether the table is fetched afresh or ahead; fetching ahead completes
 * once the read chunks switched, and the front moves on. */
static int setup_cover(void **state) {
  struct spec sp = {.n_servers = 2, .chunk_keys = CK, .n_tables = 1, .t = {{N, 1, 20, 80}}};
  return fixture_make(state, &sp);
}

static void test_partial_cover(void **state) {
  struct fixture *f = *state;
  assert_int_equal(f->m.t[0].cover_lo, 20);
  assert_int_equal(f->m.t[0].cover_hi, 80);
  request(f, 0, 1);                           /* server 0: [20, 50), server 1: [50, 80) */
  assert_int_equal(chunks_ready(f, 0, 1), 4); /* chunks 0, 1, 8 and 9 */
  give(f, 0, 0, 1, 10, 20, 2);                /* not asked for */
  give(f, 0, 0, 1, 15, 25, 2);                /* straddles */
  give(f, 1, 0, 1, 80, 90, 2);
  assert_int_equal(chunks_ready(f, 0, 1), 4);
  check_untouched(f, 0, 0, N);
  for (uint64_t c = 2; c < 8; c++)
    give(f, c < 5 ? 0 : 1, 0, 1, c * CK, (c + 1) * CK, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 20, 80));
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_values(f, 0, 1, 20, 80, 1);
  assert_int_equal(mirror_missing(&f->m, 0), 0);

  request(f, 0, 2);
  for (uint64_t c = 2; c < 8; c++)
    give(f, c < 5 ? 0 : 1, 0, 2, c * CK, (c + 1) * CK, 2);
  assert_true(mirror_ready(&f->m, 0, 2, 20, 80));
  assert_int_equal(chunks_ready(f, 0, 2), N / CK); /* as when fetched afresh */
  check_values(f, 0, 2, 20, 80, 2);
  assert_int_equal(mirror_request(&f->m, 0, 3, &f->q), 0); /* nothing behind the front */
  expect_pulls(f, 0, 3, 20, 80);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_correct_sequence, setup1, teardown),
      cmocka_unit_test_setup_teardown(test_duplicate_rejected, setup1, teardown),
      cmocka_unit_test_setup_teardown(test_wrong_iteration_rejected, setup1, teardown),
      cmocka_unit_test_setup_teardown(test_fetch_ahead, setup1, teardown),
      cmocka_unit_test_setup_teardown(test_bad_ranges_rejected, setup1, teardown),
      cmocka_unit_test_setup_teardown(test_unrequested_table_rejected, setup1, teardown),
      cmocka_unit_test_setup_teardown(test_outside_shard_rejected, setup2, teardown),
      cmocka_unit_test_setup_teardown(test_packed_pieces, setup_packed, teardown),
      cmocka_unit_test_setup_teardown(test_wide_tables, setup_wide, teardown),
      cmocka_unit_test_setup_teardown(test_partial_cover, setup_cover, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
