/*
 * test_runtime_mirror_shared.c - a worker's mirror taking shared-buffer
 * answers (PULL_REPLY with WIRE_F_SHARED): the values of the piece's keys
 * are in the sending server's buffer, mapped through the rt_env (here:
 * test memory standing for each server's shard, see
 * mirror_test_fixture.h), once per server, table and buffer, when the
 * worker first asks that server for the table (so an answer that arrives
 * after its server released the buffer is still read), and released by
 * mirror_fini(). Bad shared answers are dropped like any bad piece. Where
 * the servers' buffers are slices of one region, values are read in place.
 *
 * Two servers; table 0: 100 keys of width 1, table 1: 40 keys of width 3,
 * table 2: 100 keys with every fourth unread; chunks of 10 keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mirror_test_fixture.h"

#define CK 10

static uint64_t quarter_unread[100 / 64 + 1];

static struct spec shared_spec(bool share) {
  memset(quarter_unread, 0, sizeof quarter_unread);
  for (uint64_t k = 0; k < 100; k += 4)
    quarter_unread[k / 64] |= 1ull << (k % 64);
  return (struct spec){.n_servers = 2,
                       .chunk_keys = CK,
                       .n_tables = 3,
                       .t = {{100, 1, 0, 0}, {40, 3, 0, 0}, {100, 1, 0, 0}},
                       .share = share,
                       .unread = {NULL, NULL, quarter_unread}};
}

static int setup_share(void **state) {
  struct spec sp = shared_spec(true);
  return fixture_make(state, &sp);
}

static int setup_no_share(void **state) {
  struct spec sp = shared_spec(false);
  return fixture_make(state, &sp);
}

/* Server s's buffer b of table t, holding iter's values tagged. */
static void fill_buffer(struct fixture *f, uint32_t s, uint32_t t, uint32_t b, uint32_t iter, double tag) {
  uint64_t lo, hi;
  uint32_t w = width_of(f, t);
  shard_range(f->job.tables[t].n_keys, f->n_servers, s, &lo, &hi);
  if (!f->shm[s][t][b])
    f->shm[s][t][b] = calloc((hi - lo) * w, sizeof(double));
  assert_non_null(f->shm[s][t][b]);
  for (uint64_t k = lo; k < hi; k++)
    for (uint32_t j = 0; j < w; j++)
      f->shm[s][t][b][(k - lo) * w + j] = val(iter, k, j, tag);
}

/* Server s answers keys [lo, hi) of t for iter from its buffer b. */
static void shared_piece(struct fixture *f, uint32_t s, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi,
                         uint32_t b) {
  struct wire_hdr h = reply_hdr(s, t, iter, lo, hi);
  h.flags = WIRE_F_SHARED;
  h.buffer = b;
  offer(f, s, &h, NULL);
}

static void give_shared(struct fixture *f, uint32_t s, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi,
                        uint32_t b) {
  shared_piece(f, s, t, iter, lo, hi, b);
}

/* Chunks from the buffers: values placed by key, every server's buffer
 * mapped once (when asked), no bytes counted as received; mixed with
 * plain pieces. */
static void test_shared_answers(void **state) {
  struct fixture *f = *state;
  fill_buffer(f, 0, 0, 0, 1, 1);
  fill_buffer(f, 1, 0, 0, 1, 1);
  request(f, 0, 1); /* the PULLs say shared answers are welcome; both servers' buffer 0 mapped */
  assert_int_equal(f->maps, 2);
  give_shared(f, 0, 0, 1, 0, 10, 0);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 0));
  give_shared(f, 0, 0, 1, 10, 15, 0);
  give_shared(f, 0, 0, 1, 15, 20, 0);
  for (uint64_t c = 2; c < 5; c++)
    give_shared(f, 0, 0, 1, c * CK, (c + 1) * CK, 0);
  give_shared(f, 1, 0, 1, 50, 60, 0);
  assert_int_equal(f->maps, 2);       /* mapped once */
  assert_int_equal(f->m.bytes_in, 0); /* shared buffers cross no link */
  for (uint64_t c = 6; c < 10; c++)
    give(f, 1, 0, 1, c * CK, (c + 1) * CK, 1); /* the rest as plain pieces */
  assert_true(mirror_ready(&f->m, 0, 1, 0, 100));
  check_values(f, 0, 1, 0, 100, 1);
  assert_int_equal(f->m.bytes_in, 4 * (WIRE_HDR_BYTES + 8 * CK));
  give_shared(f, 0, 0, 1, 0, 10, 0); /* twice is still a duplicate */
  check_values(f, 0, 1, 0, 100, 1);

  /* width 3: the buffer holds three values per key */
  fill_buffer(f, 0, 1, 0, 1, 2);
  fill_buffer(f, 1, 1, 0, 1, 2);
  request(f, 1, 1);
  for (uint64_t c = 0; c < 4; c++)
    give_shared(f, c < 2 ? 0 : 1, 1, 1, c * CK, (c + 1) * CK, 0);
  assert_true(mirror_ready(&f->m, 1, 1, 0, 40));
  check_values(f, 1, 1, 0, 40, 2);
  assert_int_equal(f->maps, 4);
}

/* Fetching ahead, the next iteration's values are in the other buffer. */
static void test_shared_ahead_other_buffer(void **state) {
  struct fixture *f = *state;
  for (uint32_t s = 0; s < 2; s++) {
    fill_buffer(f, s, 0, 0, 1, 1);
    fill_buffer(f, s, 0, 1, 2, 3);
  }
  request(f, 0, 1);
  for (uint64_t c = 0; c < 10; c++)
    give_shared(f, c < 5 ? 0 : 1, 0, 1, c * CK, (c + 1) * CK, 0);
  int looks = f->region_looks;
  request(f, 0, 2);
  assert_int_equal(f->region_looks, looks); /* servers' own buffers mapped: no region to look for */
  give_shared(f, 0, 0, 2, 0, 10, 1);
  check_values(f, 0, 2, 0, 10, 3);
  check_values(f, 0, 1, 0, 100, 1); /* all of 1 still readable */
  for (uint64_t c = 1; c < 10; c++)
    give_shared(f, c < 5 ? 0 : 1, 0, 2, c * CK, (c + 1) * CK, 1);
  assert_true(mirror_ready(&f->m, 0, 2, 0, 100));
  check_values(f, 0, 2, 0, 100, 3);
  assert_int_equal(f->maps, 4); /* two servers, two buffers */
}

/* A table with unread keys: a shared answer carries every key of its range
 * in place (the buffer is the shard); the chunk counts its read keys. */
static void test_shared_with_unread_keys(void **state) {
  struct fixture *f = *state;
  fill_buffer(f, 0, 2, 0, 1, 4);
  fill_buffer(f, 1, 2, 0, 1, 4);
  request(f, 2, 1);
  for (uint64_t c = 0; c < 10; c++)
    give_shared(f, c < 5 ? 0 : 1, 2, 1, c * CK, (c + 1) * CK, 0);
  assert_true(mirror_ready(&f->m, 2, 1, 0, 100));
  assert_int_equal(mirror_missing(&f->m, 2), 0);
  for (uint64_t k = 1; k < 100; k++)
    if (k % 4 != 0)
      assert_true(mirror_values(&f->m, 2, 1)[k] == val(1, k, 0, 4));
}

/* Bad shared answers: a buffer index beyond the two, a payload, the
 * packed flag, a buffer that cannot be mapped, keys outside the shard. */
static void test_shared_rejected(void **state) {
  struct fixture *f = *state;
  fill_buffer(f, 0, 0, 0, 1, 1);
  fill_buffer(f, 1, 0, 0, 1, 1);
  request(f, 0, 1);
  give_shared(f, 0, 0, 1, 0, 10, 2);
  give_shared(f, 0, 0, 1, 0, 10, UINT32_MAX);
  struct wire_hdr h = reply_hdr(0, 0, 1, 0, 10);
  h.flags = WIRE_F_SHARED;
  h.count = 10;
  h.payload_bytes = 80; /* values and a buffer */
  double v[10] = {0};
  offer(f, 0, &h, v);
  h.flags = WIRE_F_SHARED | WIRE_F_PACKED; /* the buffer is never packed */
  h.count = 0;
  h.payload_bytes = 0;
  offer(f, 0, &h, NULL);
  give_shared(f, 0, 0, 1, 50, 60, 0); /* server 0's buffer holds keys [0, 50) */
  give_shared(f, 1, 0, 1, 40, 50, 0);
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  check_untouched(f, 0, 0, 100);
}

/* A buffer that could not be mapped when asked: the answer tries again,
 * dropped while it still cannot, taken once it can. */
static void test_shared_unmappable(void **state) {
  struct fixture *f = *state;
  fill_buffer(f, 0, 0, 0, 1, 1);
  f->map_fails = 1;
  request(f, 0, 1);
  give_shared(f, 0, 0, 1, 10, 20, 0);
  assert_int_equal(chunks_ready(f, 0, 1), 0);
  check_untouched(f, 0, 0, 100);
  assert_int_equal(f->maps, 0);
  f->map_fails = 0; /* a later answer maps it */
  give_shared(f, 0, 0, 1, 10, 20, 0);
  assert_true(mirror_chunk_ready(&f->m, 0, 1, 1));
  check_values(f, 0, 1, 10, 20, 1);
  assert_int_equal(f->maps, 1);
  assert_int_equal(f->m.bytes_in, 0);
}

/* The end of a job: a worker fetching ahead asks for iteration 2, the
 * servers finish (their buffers can no longer be mapped) and then the
 * answers arrive. They are read from the buffers mapped when asked, not
 * dropped with "cannot map the server's shared buffer". */
static void test_shared_answer_after_server_left(void **state) {
  struct fixture *f = *state;
  for (uint32_t s = 0; s < 2; s++) {
    fill_buffer(f, s, 0, 0, 1, 1);
    fill_buffer(f, s, 0, 1, 2, 3);
  }
  request(f, 0, 1);
  for (uint64_t c = 0; c < 10; c++)
    give_shared(f, c < 5 ? 0 : 1, 0, 1, c * CK, (c + 1) * CK, 0);
  request(f, 0, 2); /* ahead */
  f->map_fails = 1; /* the servers left */
  for (uint64_t c = 0; c < 10; c++)
    give_shared(f, c < 5 ? 0 : 1, 0, 2, c * CK, (c + 1) * CK, 1);
  assert_true(mirror_ready(&f->m, 0, 2, 0, 100));
  check_values(f, 0, 2, 0, 100, 3);
  assert_int_equal(f->maps, 4);
}

/* mirror_fini releases every buffer it mapped, with the size it mapped. */
static void test_shared_released(void **state) {
  struct fixture *f = *state;
  fill_buffer(f, 0, 0, 0, 1, 1);
  fill_buffer(f, 1, 1, 1, 1, 1);
  request(f, 0, 1);
  request(f, 1, 1);
  give_shared(f, 0, 0, 1, 0, 10, 0);
  give_shared(f, 1, 1, 1, 20, 30, 1);
  assert_int_equal(f->maps, 2);
  mirror_fini(&f->m);
  assert_int_equal(f->releases, 2);
  assert_int_equal(f->released_bytes, 50 * 8 + 20 * 3 * 8);
  assert_int_equal(mirror_init(&f->m, &f->job, f->chunk_keys, 0, 2, SELF, &f->env, true), 0);
}

/* Table t's region b: every server's buffer b as slices of one, holding
 * iter's values tagged. */
static void fill_region(struct fixture *f, uint32_t t, uint32_t b, uint32_t iter, double tag) {
  uint32_t w = width_of(f, t);
  uint64_t n = f->job.tables[t].n_keys;
  if (!f->region[t][b])
    f->region[t][b] = calloc(n * w, sizeof(double));
  assert_non_null(f->region[t][b]);
  for (uint64_t k = 0; k < n; k++)
    for (uint32_t j = 0; j < w; j++)
      f->region[t][b][k * w + j] = val(iter, k, j, tag);
}

static void give_all_shared(struct fixture *f, uint32_t t, uint32_t iter, uint32_t b) {
  for (uint64_t c = 0; c < 10; c++)
    give_shared(f, c < 5 ? 0 : 1, t, iter, c * CK, (c + 1) * CK, b);
}

/* Servers whose buffers are slices of one region: an iteration's values
 * are read in place there (mirror_values is the region: nothing copied,
 * nothing counted as received), each region mapped once for all servers
 * and released once. */
static void test_region_read_in_place(void **state) {
  struct fixture *f = *state;
  fill_region(f, 0, 1, 1, 1); /* iteration i reads server buffer i & 1 (server.c) */
  fill_region(f, 0, 0, 2, 3);
  request(f, 0, 1);
  assert_int_equal(f->maps, 2);                     /* both regions, no server's buffer of its own */
  const double *early = mirror_values(&f->m, 0, 1); /* a task may take it before any chunk is in */
  assert_ptr_equal(early, f->region[0][1]);
  give_all_shared(f, 0, 1, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, 100));
  assert_ptr_equal(mirror_values(&f->m, 0, 1), early);
  request(f, 0, 2);
  give_all_shared(f, 0, 2, 0);
  assert_ptr_equal(mirror_values(&f->m, 0, 2), f->region[0][0]);
  check_values(f, 0, 1, 0, 100, 1);
  check_values(f, 0, 2, 0, 100, 3);
  assert_int_equal(f->maps, 2);
  assert_int_equal(f->m.bytes_in, 0);
  mirror_fini(&f->m);
  assert_int_equal(f->releases, 2);
  assert_int_equal(f->released_bytes, 2 * 100 * 8);
  assert_int_equal(mirror_init(&f->m, &f->job, f->chunk_keys, 0, 2, SELF, &f->env, true), 0);
}

/* A plain piece among pieces read in place: what was read in place is
 * copied into the worker's buffer first (the region may change after:
 * the copy stays), and the rest of the iteration is copied too. */
static void test_region_then_plain_pieces(void **state) {
  struct fixture *f = *state;
  fill_region(f, 0, 1, 1, 1);
  request(f, 0, 1);
  for (uint64_t c = 0; c < 3; c++)
    give_shared(f, 0, 0, 1, c * CK, (c + 1) * CK, 1);
  assert_ptr_equal(mirror_values(&f->m, 0, 1), f->region[0][1]);
  give(f, 1, 0, 1, 50, 60, 1); /* a plain piece: buffer 1 is the worker's own from now */
  const double *own = mirror_values(&f->m, 0, 1);
  assert_ptr_not_equal(own, f->region[0][1]);
  for (uint64_t k = 0; k < 100; k++)
    f->region[0][1][k] = -1; /* the copy does not follow the region */
  check_values(f, 0, 1, 0, 30, 1);
  check_values(f, 0, 1, 50, 60, 1);
  fill_region(f, 0, 1, 1, 1);
  for (uint64_t c = 3; c < 10; c++)
    if (c != 5)
      give_shared(f, c < 5 ? 0 : 1, 0, 1, c * CK, (c + 1) * CK, 1); /* shared answers now copied */
  assert_true(mirror_ready(&f->m, 0, 1, 0, 100));
  assert_ptr_equal(mirror_values(&f->m, 0, 1), own);
  check_values(f, 0, 1, 0, 100, 1);
  request(f, 0, 3); /* buffer 1 emptied: read in place again */
  give_all_shared(f, 0, 3, 1);
  assert_ptr_equal(mirror_values(&f->m, 0, 3), f->region[0][1]);
}

/* A worker that asks before the servers made their region (they are
 * still loading): the iteration's answers, read from the region once it
 * is there, are copied (a task may hold the worker's own buffer); the next
 * ask reads in place. */
static void test_region_made_after_the_ask(void **state) {
  struct fixture *f = *state;
  request(f, 0, 1);
  assert_int_equal(f->maps, 0);
  fill_region(f, 0, 1, 1, 1);
  const double *own = mirror_values(&f->m, 0, 1);
  assert_ptr_not_equal(own, f->region[0][1]);
  give_all_shared(f, 0, 1, 1);
  assert_true(mirror_ready(&f->m, 0, 1, 0, 100));
  assert_ptr_equal(mirror_values(&f->m, 0, 1), own);
  check_values(f, 0, 1, 0, 100, 1);
  assert_int_equal(f->maps, 1);
  fill_region(f, 0, 0, 2, 3);
  request(f, 0, 2);
  give_all_shared(f, 0, 2, 0);
  assert_ptr_equal(mirror_values(&f->m, 0, 2), f->region[0][0]);
  check_values(f, 0, 2, 0, 100, 3);
}

/* A worker that did not welcome shared answers drops them. */
static void test_shared_not_expected(void **state) {
  struct fixture *f = *state;
  fill_buffer(f, 0, 0, 0, 1, 1);
  request(f, 0, 1); /* no WIRE_F_SHARE_OK */
  give_shared(f, 0, 0, 1, 0, 10, 0);
  assert_int_equal(f->maps, 0);
  assert_false(mirror_chunk_ready(&f->m, 0, 1, 0));
  check_untouched(f, 0, 0, 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_shared_answers, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_shared_ahead_other_buffer, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_shared_with_unread_keys, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_shared_rejected, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_shared_unmappable, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_shared_answer_after_server_left, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_shared_released, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_region_read_in_place, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_region_then_plain_pieces, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_region_made_after_the_ask, setup_share, teardown),
      cmocka_unit_test_setup_teardown(test_shared_not_expected, setup_no_share, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
