/*
 * test_runtime_mirror.c - a worker's chunked table mirror (src/runtime/mirror.c)
 * against a fake server: a real net listener on ipc:// in a mkdtemp
 * directory, whose dialer is the mirror's server socket.
 *
 * The fake server takes the mirror's PULL requests and answers with
 * hand-made PULL_REPLY pieces, good and bad. Every bad piece must be taken
 * (counted by mirror_recv's *got) and dropped: it must neither count
 * towards a chunk's completeness nor overwrite values already received.
 *
 * Table: N = 100 keys, chunks of 10 keys. Receive timeouts are safety nets;
 * every message waited for has been sent already.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "dsana/dsana.h"
#include "net/transport.h"
#include "runtime/job.h"
#include "runtime/mirror.h"
#include "util/log.h"

#define WAIT_MS 20000
#define N 100
#define CK 10
#define MAX_SERVERS 2

struct fixture {
  struct net_ctx *ctx;
  char dir[64];
  uint32_t n_servers;
  struct net_sock *l[MAX_SERVERS]; /* fake servers */
  struct net_sock *d[MAX_SERVERS]; /* the mirror's server sockets */
  struct net_peer worker[MAX_SERVERS];
  int have_worker[MAX_SERVERS];
  struct mirror m;
};

static int setup_n(void **state, uint32_t n_servers, uint32_t n_tables) {
  struct fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  log_set_level(LOG_ERROR); /* the rejections below log warnings by design */
  snprintf(f->dir, sizeof f->dir, "/tmp/dsana_mirror_XXXXXX");
  if (!mkdtemp(f->dir) || net_ctx_create(&f->ctx) != 0)
    return -1;
  f->n_servers = n_servers;
  for (uint32_t s = 0; s < n_servers; s++) {
    char addr[128];
    snprintf(addr, sizeof addr, "ipc://%s/s%u.sock", f->dir, s);
    if (net_listen(f->ctx, addr, &f->l[s]) != 0 || net_dial(f->ctx, addr, 5, &f->d[s]) != 0)
      return -1;
  }
  if (mirror_init(&f->m, n_tables, N, CK, f->d, n_servers, NULL, 5, 5.0) != 0)
    return -1;
  *state = f;
  return 0;
}

static int setup1(void **state) { return setup_n(state, 1, 2); }
static int setup2(void **state) { return setup_n(state, 2, 1); }

static int teardown(void **state) {
  struct fixture *f = *state;
  mirror_fini(&f->m);
  for (uint32_t s = 0; s < f->n_servers; s++) {
    net_close(f->d[s]);
    net_close(f->l[s]);
    char path[128];
    snprintf(path, sizeof path, "%s/s%u.sock", f->dir, s);
    unlink(path);
  }
  net_ctx_destroy(f->ctx);
  rmdir(f->dir);
  free(f);
  return 0;
}

/* Value of key k in a piece tagged `tag` (tags tell duplicates apart). */
static double val(uint32_t iter, uint64_t k, double tag) { return tag * 1e6 + iter * 1e3 + (double)k; }

/* The mirror requests table t for iter; fake server s sees the PULL. */
static void request(struct fixture *f, uint32_t t, uint32_t iter) {
  assert_int_equal(mirror_request(&f->m, t, iter), 0);
  for (uint32_t s = 0; s < f->n_servers; s++) {
    struct net_msg msg;
    assert_int_equal(net_recv(f->l[s], &msg, WAIT_MS), 0);
    assert_int_equal(msg.hdr.type, WIRE_PULL);
    assert_int_equal(msg.hdr.table, t);
    assert_int_equal(msg.hdr.iter, iter);
    uint64_t lo, hi;
    shard_range(N, f->n_servers, s, &lo, &hi);
    assert_int_equal(msg.hdr.key_lo, lo);
    assert_int_equal(msg.hdr.key_hi, hi);
    f->worker[s] = msg.from;
    f->have_worker[s] = 1;
    net_msg_fini(&msg);
  }
}

/* Fake server s sends a piece [lo, hi) of table t for iter, values tagged. */
static void piece(struct fixture *f, uint32_t s, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi, double tag) {
  assert_true(f->have_worker[s]);
  double v[N + 16];
  assert_true(hi >= lo && hi - lo <= N + 16);
  for (uint64_t k = lo; k < hi; k++)
    v[k - lo] = val(iter, k, tag);
  struct wire_hdr h = wire_hdr_make(WIRE_PULL_REPLY, s);
  h.table = t;
  h.iter = iter;
  h.chunk = (uint32_t)(lo / CK);
  h.key_lo = lo;
  h.key_hi = hi;
  h.payload_bytes = 8 * (hi - lo);
  assert_int_equal(net_send(f->l[s], &f->worker[s], &h, v, 8 * (hi - lo)), 0);
}

/* Let the mirror take exactly `n` messages (all already sent). */
static void take(struct fixture *f, int n) {
  int total = 0;
  while (total < n) {
    int got = 0;
    assert_int_equal(mirror_recv(&f->m, WAIT_MS, &got), 0);
    assert_true(got > 0);
    total += got;
  }
  assert_int_equal(total, n);
}

static void check_values(struct fixture *f, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi, double tag) {
  const double *v = f->m.t[t].values;
  assert_non_null(v);
  for (uint64_t k = lo; k < hi; k++)
    assert_true(v[k] == val(iter, k, tag));
}

static void check_untouched(struct fixture *f, uint32_t t, uint64_t lo, uint64_t hi) {
  const double *v = f->m.t[t].values;
  assert_non_null(v);
  for (uint64_t k = lo; k < hi; k++)
    assert_true(v[k] == 0.0);
}

static uint64_t chunks_ready(struct fixture *f, uint32_t t, uint32_t iter) {
  uint64_t n = 0;
  for (uint64_t c = 0; c < N / CK; c++)
    n += mirror_chunk_ready(&f->m, t, iter, c);
  return n;
}

/* Send the whole table (one piece per chunk, chunk 2 in two pieces). */
static void send_all(struct fixture *f, uint32_t t, uint32_t iter, double tag) {
  for (uint64_t c = 0; c < N / CK; c++) {
    if (c == 2) {
      piece(f, 0, t, iter, 20, 24, tag);
      piece(f, 0, t, iter, 24, 30, tag);
    } else {
      piece(f, 0, t, iter, c * CK, (c + 1) * CK, tag);
    }
  }
}

/* A correct sequence: chunks become ready one by one, then the table. */
static void test_correct_sequence(void **state) {
  struct fixture *f = *state;
  assert_int_equal(f->m.n_chunks, N / CK);
  assert_false(mirror_ready(&f->m, 0, 1, 0, N));
  request(f, 0, 1);
  assert_false(mirror_ready(&f->m, 0, 1, 0, N));
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  /* asking again for the same iteration sends nothing */
  assert_int_equal(mirror_request(&f->m, 0, 1), 0);
  struct net_msg msg;
  assert_int_equal(net_recv(f->l[0], &msg, 50), DSANA_EAGAIN);

  piece(f, 0, 0, 1, 30, 40, 1);
  take(f, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 3));
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 2));
  assert_true(mirror_ready(&f->m, 0, 1, 30, 40));
  assert_true(mirror_ready(&f->m, 0, 1, 31, 35));
  assert_false(mirror_ready(&f->m, 0, 1, 25, 35));
  assert_false(mirror_ready(&f->m, 0, 1, 0, N));
  assert_false(mirror_chunk_ready(&f->m, 0, 2, 3)); /* another iteration */
  check_values(f, 0, 1, 30, 40, 1);

  piece(f, 0, 0, 1, 20, 24, 1); /* chunk 2 in two pieces */
  take(f, 1);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 2));
  piece(f, 0, 0, 1, 24, 30, 1);
  take(f, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 2));
  assert_true(mirror_ready(&f->m, 0, 1, 20, 40));
  assert_int_equal(chunks_ready(f, 0, 1), 2);

  for (uint64_t c = 0; c < N / CK; c++)
    if (c != 2 && c != 3)
      piece(f, 0, 0, 1, c * CK, (c + 1) * CK, 1);
  take(f, 8);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  assert_int_equal(chunks_ready(f, 0, 1), N / CK);
  assert_int_equal(f->m.t[0].missing, 0);
  check_values(f, 0, 1, 0, N, 1);
  assert_int_equal(f->m.bytes_in, 11 * WIRE_HDR_BYTES + 8 * N);

  /* next iteration: not ready until its own pieces arrive (no task reads
   * iteration 1 any more) */
  request(f, 0, 2);
  mirror_release(&f->m);
  assert_false(mirror_ready(&f->m, 0, 2, 0, N));
  assert_int_equal(chunks_ready(f, 0, 2), 0);
  /* fetching ahead: iteration 1's values stay readable until chunks switch */
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  send_all(f, 0, 2, 1);
  take(f, 11);
  assert_true(mirror_ready(&f->m, 0, 2, 0, N));
  check_values(f, 0, 2, 0, N, 1);
}

/* A piece arriving twice is dropped: not counted twice, values kept. */
static void test_duplicate_rejected(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);

  /* a whole chunk twice, the second copy with different values */
  piece(f, 0, 0, 1, 10, 20, 1);
  piece(f, 0, 0, 1, 10, 20, 2);
  take(f, 2);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 1));
  check_values(f, 0, 1, 10, 20, 1);

  /* half a chunk twice: the duplicate must not make the chunk look complete */
  piece(f, 0, 0, 1, 0, 5, 1);
  piece(f, 0, 0, 1, 0, 5, 2);
  take(f, 2);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  assert_false(mirror_ready(&f->m, 0, 1, 0, 10));
  assert_false(mirror_ready(&f->m, 0, 1, 3, 7));
  check_values(f, 0, 1, 0, 5, 1);
  check_untouched(f, 0, 5, 10);

  /* an overlapping piece (keys 3..7, half of them already here) is dropped too */
  piece(f, 0, 0, 1, 3, 8, 2);
  take(f, 1);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_values(f, 0, 1, 0, 5, 1);
  check_untouched(f, 0, 5, 10);

  piece(f, 0, 0, 1, 5, 10, 1);
  take(f, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_values(f, 0, 1, 0, 10, 1);

  for (uint64_t c = 2; c < N / CK; c++)
    piece(f, 0, 0, 1, c * CK, (c + 1) * CK, 1);
  take(f, 8);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_values(f, 0, 1, 0, N, 1);
  /* a duplicate after completion changes nothing either */
  piece(f, 0, 0, 1, 40, 50, 2);
  take(f, 1);
  check_values(f, 0, 1, 0, N, 1);
  assert_int_equal(f->m.t[0].missing, 0);
  /* bytes_in counts accepted pieces only: chunk 0 came in two pieces */
  assert_int_equal(f->m.bytes_in, 11 * WIRE_HDR_BYTES + 8 * N);
}

/* Pieces of another iteration (stale or future) are dropped. */
static void test_wrong_iteration_rejected(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  send_all(f, 0, 1, 1);
  take(f, 11);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));

  request(f, 0, 2);
  mirror_release(&f->m);
  /* stale: a late copy of iteration 1's chunk 0 */
  piece(f, 0, 0, 1, 0, 10, 3);
  /* future: iteration 3 before it was asked for */
  piece(f, 0, 0, 3, 10, 20, 3);
  /* never asked: iteration 0 */
  piece(f, 0, 0, 0, 20, 30, 3);
  take(f, 3);
  assert_int_equal(chunks_ready(f, 0, 2), 0);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 0)); /* the late copy was a duplicate */
  assert_false(mirror_chunk_ready(&f->m, 0, 3, 1));
  assert_int_equal(f->m.t[0].missing, N);
  /* iteration 1's values are still what they were (nothing was overwritten) */
  check_values(f, 0, 1, 0, N, 1);

  send_all(f, 0, 2, 1);
  take(f, 11);
  assert_true(mirror_ready(&f->m, 0, 2, 0, N));
  check_values(f, 0, 2, 0, N, 1);
}

/* No PULL reached fake server s within a short wait. */
static void no_request(struct fixture *f, uint32_t s) {
  struct net_msg msg;
  assert_int_equal(net_recv(f->l[s], &msg, 50), DSANA_EAGAIN);
}

/* Receive for a short while; returns the pieces taken. */
static int take_some(struct fixture *f) {
  int got = 0;
  assert_int_equal(mirror_recv(&f->m, 100, &got), 0);
  return got;
}

/* Fetching ahead: a chunk switches to the next iteration only once the
 * worker no longer reads it; a piece for a chunk still read is held back
 * (and what follows it from that server waits behind it); a chunk needed
 * again after it switched makes the mirror fetch the old iteration anew;
 * the front moves on only after every chunk switched. */
static void test_fetch_ahead(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  send_all(f, 0, 1, 1);
  take(f, 11);
  request(f, 0, 2);
  assert_int_equal(mirror_need(&f->m, 0, 1, 5), 0); /* tasks of 1 still read chunks 5.. */

  piece(f, 0, 0, 2, 0, 10, 2); /* chunk 0: read by nobody, switches */
  assert_int_equal(take_some(f), 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 2, 0));
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_values(f, 0, 2, 0, 10, 2);

  piece(f, 0, 0, 2, 60, 70, 2); /* chunk 6: still read for iteration 1 */
  piece(f, 0, 0, 2, 10, 20, 2); /* behind it on the same stream */
  assert_int_equal(take_some(f), 0);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 6));
  check_values(f, 0, 1, 10, 20, 1);
  check_values(f, 0, 1, 60, 70, 1);

  /* a new request for 3 must wait: chunks are still behind the front */
  assert_int_equal(mirror_request(&f->m, 0, 3), 0);
  no_request(f, 0);

  assert_int_equal(mirror_need(&f->m, 0, 1, 7), 0); /* the tasks moved past chunk 6 */
  assert_int_equal(take_some(f), 2);
  assert_true(mirror_chunk_ready(&f->m, 0, 2, 6));
  assert_true(mirror_chunk_ready(&f->m, 0, 2, 1));
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 7));
  check_values(f, 0, 2, 60, 70, 2);

  /* a task of iteration 1 starting from chunk 0 (which switched): fetched anew */
  assert_int_equal(mirror_need(&f->m, 0, 1, 0), 0);
  struct net_msg msg;
  assert_int_equal(net_recv(f->l[0], &msg, WAIT_MS), 0);
  assert_int_equal(msg.hdr.type, WIRE_PULL);
  assert_int_equal(msg.hdr.iter, 1);
  net_msg_fini(&msg);
  assert_int_equal(f->m.t[0].iter, 1);
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  assert_int_equal(chunks_ready(f, 0, 2), 0);
  send_all(f, 0, 1, 4);
  take(f, 11);
  check_values(f, 0, 1, 0, N, 4);

  /* ahead again; every chunk switches, and only then may the front move on */
  request(f, 0, 2);
  assert_int_equal(mirror_need(&f->m, 0, 1, UINT64_MAX), 0);
  assert_int_equal(mirror_request(&f->m, 0, 3), 0);
  no_request(f, 0);
  send_all(f, 0, 2, 5);
  take(f, 11);
  assert_true(mirror_ready(&f->m, 0, 2, 0, N));
  assert_int_equal(take_some(f), 0); /* issues the request for 3 */
  assert_int_equal(net_recv(f->l[0], &msg, WAIT_MS), 0);
  assert_int_equal(msg.hdr.iter, 3);
  net_msg_fini(&msg);
}

/* Pieces straddling a chunk boundary, empty, or beyond the table are dropped. */
static void test_bad_ranges_rejected(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  piece(f, 0, 0, 1, 5, 15, 2);      /* straddles chunks 0 and 1 */
  piece(f, 0, 0, 1, 0, 20, 2);      /* two whole chunks in one piece */
  piece(f, 0, 0, 1, 95, N + 5, 2);  /* runs past the table (and the shard) */
  piece(f, 0, 0, 1, N, N + 10, 2);  /* entirely beyond the table */
  piece(f, 0, 0, 1, 40, 40, 2);     /* empty */
  take(f, 5);
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  assert_int_equal(f->m.t[0].missing, N);
  check_untouched(f, 0, 0, N);
  assert_int_equal(f->m.bytes_in, 0);

  send_all(f, 0, 1, 1);
  take(f, 11);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_values(f, 0, 1, 0, N, 1);
}

/* A piece for a table that was not requested (or does not exist). */
static void test_unrequested_table_rejected(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  piece(f, 0, 1, 1, 0, 10, 2); /* table 1 exists but was not requested */
  piece(f, 0, 7, 1, 0, 10, 2); /* table 7 does not exist (n_tables = 2) */
  piece(f, 0, 9999, 1, 0, 10, 2);
  take(f, 3);
  assert_false(mirror_chunk_ready(&f->m, 1, 1, 0));
  assert_false(mirror_ready(&f->m, 1, 1, 0, N));
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  assert_int_equal(f->m.t[0].missing, N);
  check_untouched(f, 0, 0, N);

  /* the other table, once requested, is independent of table 0 */
  request(f, 1, 1);
  piece(f, 0, 1, 1, 0, 10, 4);
  take(f, 1);
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
  request(f, 0, 1);
  piece(f, 1, 0, 1, 0, 10, 2);   /* server 1 sends keys of server 0 */
  piece(f, 0, 0, 1, 60, 70, 2);  /* server 0 sends keys of server 1 */
  take(f, 2);
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  check_untouched(f, 0, 0, N);

  for (uint64_t c = 0; c < 5; c++)
    piece(f, 0, 0, 1, c * CK, (c + 1) * CK, 1);
  for (uint64_t c = 5; c < 10; c++)
    piece(f, 1, 0, 1, c * CK, (c + 1) * CK, 1);
  take(f, 10);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  check_values(f, 0, 1, 0, N, 1);
}

/* Keys no task reads: every third key, and all of chunk 5. */
static uint64_t test_unread[N / 64 + 1];
static bool unread_key(uint64_t k) { return k % 3 == 0 || (k >= 50 && k < 60); }

/* Fake server s sends the read keys of [lo, hi) packed, plus `extra`
 * values (negative: fewer) to make it malformed. */
static void packed_piece(struct fixture *f, uint32_t s, uint32_t iter, uint64_t lo, uint64_t hi, double tag,
                         int extra) {
  double v[N + 16];
  uint64_t n = 0;
  for (uint64_t k = lo; k < hi; k++)
    if (!unread_key(k))
      v[n++] = val(iter, k, tag);
  for (int i = 0; i < extra; i++)
    v[n++] = -1.0;
  n = (uint64_t)((int64_t)n + (extra < 0 ? extra : 0));
  struct wire_hdr h = wire_hdr_make(WIRE_PULL_PACKED, s);
  h.iter = iter;
  h.key_lo = lo;
  h.key_hi = hi;
  h.payload_bytes = 8 * n;
  assert_int_equal(net_send(f->l[s], &f->worker[s], &h, v, 8 * n), 0);
}

/* Packed pieces (keys the app never reads are not sent): values land at
 * the read keys only, a chunk is complete once its read keys are in (one
 * with none at once), and a packed piece whose value count does not match
 * the read keys of its range is dropped. */
static void test_packed_pieces(void **state) {
  struct fixture *f = *state;
  memset(test_unread, 0, sizeof test_unread);
  for (uint64_t k = 0; k < N; k++)
    if (unread_key(k))
      test_unread[k / 64] |= 1ull << (k % 64);
  mirror_set_unread(&f->m, 0, test_unread);
  request(f, 0, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 5)); /* nothing in it is read */
  assert_int_equal(chunks_ready(f, 0, 1), 1);
  packed_piece(f, 0, 1, 0, 10, 1, 1);  /* one value too many */
  packed_piece(f, 0, 1, 0, 10, 1, -1); /* one too few */
  take(f, 2);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_untouched(f, 0, 0, 10);
  packed_piece(f, 0, 1, 0, 10, 1, 0);
  take(f, 1);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 0));
  for (uint64_t k = 0; k < 10; k++)
    assert_true(f->m.t[0].values[k] == (unread_key(k) ? 0.0 : val(1, k, 1)));
  packed_piece(f, 0, 1, 0, 10, 2, 0); /* again: keys received twice */
  take(f, 1);
  assert_true(f->m.t[0].values[1] == val(1, 1, 1));
  /* the rest, chunk 2 in two pieces, one of them a full PULL_REPLY */
  for (uint64_t c = 1; c < N / CK; c++) {
    if (c == 5)
      continue;
    if (c == 2) {
      packed_piece(f, 0, 1, 20, 24, 1, 0);
      piece(f, 0, 0, 1, 24, 30, 1);
    } else {
      packed_piece(f, 0, 1, c * CK, (c + 1) * CK, 1, 0);
    }
  }
  take(f, N / CK - 1);
  assert_int_equal(chunks_ready(f, 0, 1), N / CK);
  assert_true(mirror_ready(&f->m, 0, 1, 0, N));
  assert_int_equal(f->m.t[0].missing, 0);
  for (uint64_t k = 0; k < N; k++)
    if (!unread_key(k))
      assert_true(f->m.t[0].values[k] == val(1, k, 1));
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
      cmocka_unit_test_setup_teardown(test_packed_pieces, setup1, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
