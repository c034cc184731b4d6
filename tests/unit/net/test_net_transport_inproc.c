/*
 * test_net_transport_inproc.c - what only some transports do: the inproc
 * transport's manual delivery (net_inproc.h: links pending, per-link FIFO
 * under any delivery order, what closing a socket or switching manual
 * delivery off does with waiting messages) and its endpoint rules, and
 * shared buffers (net_buffer_*): files in the local folder on ipc://,
 * process memory on inproc://, DSANA_ENOTSUP on tcp://; and lent payloads
 * (net_send_lent): no copy on inproc://, released once either way; and a
 * received message moved to another (net_msg_move) with its payload, on
 * every scheme.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/inproc/net_inproc.h"
#include "net_test_fixture.h"

static int setup_manual(void **state) {
  int rc = setup_inproc(state);
  net_inproc_set_manual(true);
  return rc;
}

static int teardown_manual(void **state) {
  net_inproc_set_manual(false);
  return teardown(state);
}

/* A PUSH from dialer `from` carrying its sequence number n in chunk and value. */
static void send_seq(struct net_sock *s, const struct net_peer *to, uint32_t from, uint32_t n) {
  struct wire_hdr h = values_hdr(WIRE_PUSH, from, n, 1);
  h.chunk = n;
  double v = from * 1000.0 + n;
  assert_int_equal(net_send(s, to, &h, &v, sizeof v), 0);
}

/* The next message on s (already delivered): its sender and sequence. */
static void expect_seq(struct net_sock *s, uint32_t from, uint32_t n) {
  struct net_msg m;
  assert_int_equal(net_recv(s, &m, 0), 0);
  assert_int_equal(m.hdr.sender, from);
  assert_int_equal(m.hdr.chunk, n);
  assert_true(*(const double *)m.payload == from * 1000.0 + n);
  net_msg_fini(&m);
}

static void expect_nothing(struct net_sock *s) {
  struct net_msg m;
  bool ready = true;
  assert_int_equal(net_poll(&s, 1, NULL, 0, 0, 0, &ready, NULL), 0);
  assert_false(ready);
  assert_int_equal(net_recv(s, &m, 0), DSANA_EAGAIN);
}

static void manual_links(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct net_sock *d1 = dial(f, bound, 1), *d2 = dial(f, bound, 2);
  assert_int_equal(net_inproc_links_pending(), 0);
  for (uint32_t n = 0; n < 3; n++)
    send_seq(d1, NULL, 1, n);
  send_seq(d2, NULL, 2, 0);
  send_seq(d2, NULL, 2, 1);
  assert_int_equal(net_inproc_links_pending(), 2); /* d1 -> l, d2 -> l */
  expect_nothing(l);

  /* links are numbered by their oldest waiting message: d2's is link 1 */
  net_inproc_deliver(1);
  expect_seq(l, 2, 0);
  expect_nothing(l);
  assert_int_equal(net_inproc_links_pending(), 2);
  net_inproc_deliver(1);
  expect_seq(l, 2, 1);
  assert_int_equal(net_inproc_links_pending(), 1);
  net_inproc_deliver(1); /* no such link: nothing happens */
  net_inproc_deliver(SIZE_MAX);
  expect_nothing(l);
  assert_int_equal(net_inproc_links_pending(), 1);

  /* a reply opens a link of its own, after d1's */
  struct net_peer to1 = {5, "D\x01\0\0\0"};
  send_seq(l, &to1, 0, 0);
  assert_int_equal(net_inproc_links_pending(), 2);
  net_inproc_deliver(1);
  expect_seq(d1, 0, 0);
  expect_nothing(d2);
  net_inproc_deliver(0);
  net_inproc_deliver(0);
  expect_seq(l, 1, 0);
  expect_seq(l, 1, 1);
  assert_int_equal(net_inproc_links_pending(), 1);

  /* closing the receiver forgets what waits for it; nothing else */
  send_seq(l, &to1, 0, 1);
  send_seq(d2, NULL, 2, 2);
  assert_int_equal(net_inproc_links_pending(), 3);
  net_close(d1);
  assert_int_equal(net_inproc_links_pending(), 2); /* d1 -> l (its seq 2) and d2 -> l */
  net_inproc_deliver(0);
  net_inproc_deliver(0);
  expect_seq(l, 1, 2);
  expect_seq(l, 2, 2);
  assert_int_equal(net_inproc_links_pending(), 0);
  net_close(d2);
  net_close(l);
}

/* Any delivery order keeps each link's messages in order: three dialers
 * and the listener's replies, links picked by a seeded generator. */
static void manual_any_order_keeps_link_fifo(void **state) {
  struct fixture *f = *state;
  char bound[256];
  enum { D = 3, N = 20 };
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct net_sock *d[D];
  struct net_peer to[D];
  for (uint32_t i = 0; i < D; i++) {
    d[i] = dial(f, bound, i);
    to[i] = (struct net_peer){5, {'D', (uint8_t)i, 0, 0, 0}};
  }
  for (uint32_t n = 0; n < N; n++)
    for (uint32_t i = 0; i < D; i++) {
      send_seq(d[i], NULL, i, n);
      send_seq(l, &to[i], 100 + i, n);
    }
  uint32_t next_in[D] = {0}, next_back[D] = {0};
  uint64_t rng = 12345;
  size_t delivered = 0;
  while (net_inproc_links_pending() > 0) {
    size_t links = net_inproc_links_pending();
    assert_true(links <= 2 * D);
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    net_inproc_deliver((size_t)(rng >> 33) % links);
    delivered++;
    struct net_msg m;
    while (net_recv(l, &m, 0) == 0) {
      uint32_t i = m.hdr.sender;
      assert_true(i < D);
      assert_int_equal(m.hdr.chunk, next_in[i]++);
      net_msg_fini(&m);
    }
    for (uint32_t i = 0; i < D; i++)
      while (net_recv(d[i], &m, 0) == 0) {
        assert_int_equal(m.hdr.sender, 100 + i);
        assert_int_equal(m.hdr.chunk, next_back[i]++);
        net_msg_fini(&m);
      }
  }
  assert_int_equal(delivered, 2 * D * N);
  for (uint32_t i = 0; i < D; i++) {
    assert_int_equal(next_in[i], N);
    assert_int_equal(next_back[i], N);
    net_close(d[i]);
  }
  net_close(l);
}

/* Switching manual delivery off delivers what waits, in order, before
 * anything sent afterwards. */
static void manual_off_keeps_order(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct net_sock *d = dial(f, bound, 1);
  send_seq(d, NULL, 1, 0);
  send_seq(d, NULL, 1, 1);
  net_inproc_set_manual(false);
  send_seq(d, NULL, 1, 2);
  assert_int_equal(net_inproc_links_pending(), 0);
  expect_seq(l, 1, 0);
  expect_seq(l, 1, 1);
  expect_seq(l, 1, 2);
  expect_nothing(l);
  net_close(d);
  net_close(l);
}

/* Endpoint rules: one listener per name; dialing before the listener
 * exists queues for it; a closed listener's queue is gone; readiness is
 * level-triggered. */
static void endpoints(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *d = dial(f, f->addr, 4);
  send_seq(d, NULL, 4, 0);
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct net_sock *again = NULL;
  assert_int_equal(net_listen(f->ctx, f->addr, &again), DSANA_ENET);
  assert_null(again);
  send_seq(d, NULL, 4, 1);
  bool ready = false;
  assert_int_equal(net_poll(&l, 1, NULL, 0, 0, 0, &ready, NULL), 1);
  expect_seq(l, 4, 0);
  assert_int_equal(net_poll(&l, 1, NULL, 0, 0, 0, &ready, NULL), 1); /* one still waits */
  assert_true(ready);
  expect_seq(l, 4, 1);
  expect_nothing(l);
  assert_int_equal(net_poll(&l, 1, NULL, 0, 0, 0, &ready, NULL), 0); /* emptied: its wake-up read back */
  expect_nothing(l);                                                 /* and an empty queue's recv leaves it so */
  assert_int_equal(net_poll(&l, 1, NULL, 0, 0, 0, &ready, NULL), 0);
  send_seq(d, NULL, 4, 2);
  net_close(l);
  l = listen_on(f, f->addr, bound, sizeof bound); /* the name is free again, its queue empty */
  expect_nothing(l);
  struct net_peer gone = {5, "D\x04\0\0\0"};
  net_close(d);
  struct wire_hdr h = wire_hdr_make(WIRE_STOP, 0);
  assert_int_equal(net_send(l, &gone, &h, NULL, 0), DSANA_ENET); /* its dialer closed */
  net_close(l);
}

/* ---- shared buffers --------------------------------------------------- */

/* Create, fill, map from a second context of the same job, see writes
 * through the mapping; wrong sizes and names refused; release. */
static void buffers_shared(void **state) {
  struct fixture *f = *state;
  assert_true(net_can_share(f->ctx));
  struct net_ctx *peer = NULL;
  struct net_opts o = {.local_dir = f->dir};
  assert_int_equal(net_ctx_create(f->addr, &o, &peer), 0);
  char name[32];
  snprintf(name, sizeof name, "s0-t1-b%d", (int)getpid() % 1000);
  double *w = NULL;
  const double *r = NULL, *r2 = NULL;
  assert_int_equal(net_buffer_create(f->ctx, name, 10 * sizeof(double), &w), 0);
  assert_non_null(w);
  for (int i = 0; i < 10; i++)
    assert_true(w[i] == 0.0); /* zeroed */
  for (int i = 0; i < 10; i++)
    w[i] = 1.5 * i;
  assert_int_equal(net_buffer_map(peer, name, 10 * sizeof(double), &r), 0);
  assert_int_equal(net_buffer_map(peer, name, 4 * sizeof(double), &r2), 0); /* a prefix */
  for (int i = 0; i < 10; i++)
    assert_true(r[i] == 1.5 * i);
  w[3] = -7.0; /* writes after mapping are seen: one memory */
  assert_true(r[3] == -7.0 && r2[3] == -7.0);
  const double *none = NULL;
  assert_int_not_equal(net_buffer_map(peer, name, 11 * sizeof(double), &none), 0);
  assert_int_not_equal(net_buffer_map(peer, "no-such-buffer", 8, &none), 0);
  assert_null(none);
  net_buffer_release(peer, r2, 4 * sizeof(double));
  net_buffer_release(f->ctx, w, 10 * sizeof(double));
  assert_true(r[3] == -7.0); /* the mapper's reference keeps it alive */
  net_buffer_release(peer, r, 10 * sizeof(double));
  net_buffer_release(peer, NULL, 8); /* harmless */
  net_ctx_destroy(peer);
}

/* An empty buffer is valid too. */
static void buffers_empty(void **state) {
  struct fixture *f = *state;
  double *w = NULL;
  const double *r = NULL;
  assert_int_equal(net_buffer_create(f->ctx, "empty-0", 0, &w), 0);
  assert_non_null(w);
  assert_int_equal(net_buffer_map(f->ctx, "empty-0", 0, &r), 0);
  assert_non_null(r);
  net_buffer_release(f->ctx, r, 0);
  net_buffer_release(f->ctx, w, 0);
}

/* inproc: once every reference is released, the name is gone. */
static void buffers_inproc_refcount(void **state) {
  struct fixture *f = *state;
  double *w = NULL;
  const double *r = NULL;
  assert_int_equal(net_buffer_create(f->ctx, "rc-0", 16, &w), 0);
  assert_int_equal(net_buffer_map(f->ctx, "rc-0", 16, &r), 0);
  assert_ptr_equal(r, w);
  net_buffer_release(f->ctx, w, 16);
  net_buffer_release(f->ctx, r, 16);
  r = NULL;
  assert_int_not_equal(net_buffer_map(f->ctx, "rc-0", 16, &r), 0);
}

/* Slices [0, 6) and [6, 10) of region `name` of 10 doubles joined, the
 * first holding 1..6, and the whole mapped by name. */
static void join_two_slices(struct net_ctx *ctx, const char *name, double **a, double **b, const double **r) {
  assert_int_equal(net_buffer_join(ctx, name, 10 * sizeof(double), 0, 6 * sizeof(double), a), 0);
  for (int i = 0; i < 6; i++)
    (*a)[i] = i + 1;
  assert_int_equal(net_buffer_join(ctx, name, 10 * sizeof(double), 6 * sizeof(double), 4 * sizeof(double), b), 0);
  assert_int_equal(net_buffer_map(ctx, name, 10 * sizeof(double), r), 0);
}

/* inproc regions: slices joined into one buffer (each joiner's slice
 * zeroed, the rest untouched), mapped whole by name, gone once every
 * slice and mapping is released; a join of another size starts another
 * region; slices outside it and empty ones are refused. */
static void buffers_inproc_region(void **state) {
  struct fixture *f = *state;
  double *a = NULL, *b = NULL, *c = NULL;
  const double *r = NULL;
  join_two_slices(f->ctx, "rg-0", &a, &b, &r);
  assert_ptr_equal(b, a + 6);
  assert_ptr_equal(r, a);
  for (int i = 0; i < 10; i++)
    assert_true(r[i] == (i < 6 ? i + 1 : 0));
  assert_int_equal(net_buffer_join(f->ctx, "rg-0", 8 * sizeof(double), 0, 8, &c), 0); /* another size */
  assert_ptr_not_equal(c, a);
  net_buffer_release(f->ctx, c, 8);
  assert_int_equal(net_buffer_join(f->ctx, "rg-0", 10 * sizeof(double), 8 * sizeof(double), 3 * sizeof(double), &c),
                   DSANA_EINVAL);
  assert_int_equal(net_buffer_join(f->ctx, "rg-0", 10 * sizeof(double), 0, 0, &c), DSANA_EINVAL);
  net_buffer_release(f->ctx, a, 6 * sizeof(double));
  net_buffer_release(f->ctx, b, 4 * sizeof(double));                            /* a slice's pointer names its region */
  assert_int_equal(net_buffer_map(f->ctx, "rg-0", 10 * sizeof(double), &r), 0); /* still mapped once */
  net_buffer_release(f->ctx, r, 10 * sizeof(double));
  net_buffer_release(f->ctx, r, 10 * sizeof(double));
  r = NULL;
  assert_int_not_equal(net_buffer_map(f->ctx, "rg-0", 10 * sizeof(double), &r), 0);
}

/* ipc regions: one file, each joiner's slice zeroed (what a run before
 * left in it included), the whole mapped by name; a file of another size
 * is refused; a slice's pointer releases its mapping. */
static void buffers_ipc_region(void **state) {
  struct fixture *f = *state;
  double *a = NULL, *b = NULL, *c = NULL;
  const double *r = NULL;
  join_two_slices(f->ctx, "rg-1", &a, &b, &r);
  b[0] = 42; /* seen through the mapping of the whole */
  for (int i = 0; i < 10; i++)
    assert_true(r[i] == (i < 6 ? i + 1 : i == 6 ? 42 : 0));
  assert_int_not_equal(net_buffer_join(f->ctx, "rg-1", 8 * sizeof(double), 0, 8, &c), 0); /* another size */
  net_buffer_release(f->ctx, b, 4 * sizeof(double));
  assert_int_equal(net_buffer_join(f->ctx, "rg-1", 10 * sizeof(double), 6 * sizeof(double), 4 * sizeof(double), &b),
                   0); /* a server started again: its slice zeroed */
  assert_true(r[6] == 0 && r[0] == 1);
  net_buffer_release(f->ctx, a, 6 * sizeof(double));
  net_buffer_release(f->ctx, b, 4 * sizeof(double));
  net_buffer_release(f->ctx, r, 10 * sizeof(double));
}

/* Joiners racing: every one of 8 threads, started together, gets its
 * slice of one region (never a region of its own). */
struct joiner {
  struct net_ctx *ctx;
  pthread_barrier_t *go;
  uint32_t i;
  double *slice;
};

static void *join_slice(void *arg) {
  struct joiner *j = arg;
  pthread_barrier_wait(j->go);
  if (net_buffer_join(j->ctx, "race-0", 8 * sizeof(double), j->i * sizeof(double), sizeof(double), &j->slice))
    j->slice = NULL;
  return NULL;
}

static void buffers_inproc_region_joiners_race(void **state) {
  struct fixture *f = *state;
  for (int round = 0; round < 20; round++) {
    pthread_barrier_t go;
    pthread_t th[8];
    struct joiner j[8];
    assert_int_equal(pthread_barrier_init(&go, NULL, 8), 0);
    for (uint32_t i = 0; i < 8; i++) {
      j[i] = (struct joiner){.ctx = f->ctx, .go = &go, .i = i};
      assert_int_equal(pthread_create(&th[i], NULL, join_slice, &j[i]), 0);
    }
    for (int i = 0; i < 8; i++)
      pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    for (uint32_t i = 0; i < 8; i++)
      assert_ptr_equal(j[i].slice, j[0].slice + i);
    for (uint32_t i = 0; i < 8; i++)
      net_buffer_release(f->ctx, j[i].slice, sizeof(double));
    const double *r = NULL;
    assert_int_not_equal(net_buffer_map(f->ctx, "race-0", 8 * sizeof(double), &r), 0); /* all gone */
  }
}

/* No shared buffers where peers need not share the machine. */
static void buffers_unsupported(void **state) {
  struct fixture *f = *state;
  double *w = NULL;
  const double *r = NULL;
  struct net_ctx *ctx = NULL;
  if (strcmp(f->scheme, "tcp") == 0) {
    ctx = f->ctx;
  } else {
    /* ipc without a local folder has nowhere to put them */
    assert_int_equal(net_ctx_create(f->addr, NULL, &ctx), 0);
  }
  assert_false(net_can_share(ctx));
  assert_int_equal(net_buffer_create(ctx, "b", 8, &w), DSANA_ENOTSUP);
  assert_int_equal(net_buffer_map(ctx, "b", 8, &r), DSANA_ENOTSUP);
  assert_int_equal(net_buffer_join(ctx, "b", 16, 0, 8, &w), DSANA_ENOTSUP);
  assert_null(w);
  assert_null(r);
  if (ctx != f->ctx)
    net_ctx_destroy(ctx);
}

/* Counts net_send_lent()'s releases. */
static void count_release(void *arg) { ++*(int *)arg; }

/* A lent payload: inproc:// hands the sender's memory itself to the
 * receiver and releases it once, when the receiver is done (net_msg_fini);
 * tcp:// and ipc:// copy it and release at once; a send refused here, or to
 * nobody, releases it too. */
static void lent_payloads(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound), *d = dial(f, bound, 1);
  bool inproc = strcmp(f->scheme, "inproc") == 0;
  double v[4] = {1, 2, 3, 4};
  int released = 0;
  struct wire_hdr h = values_hdr(WIRE_PUSH, 1, 0, 4);
  assert_int_equal(net_send_lent(d, NULL, &h, v, sizeof v, (struct net_release){count_release, &released}), 0);
  assert_int_equal(released, inproc ? 0 : 1);
  struct net_msg m;
  assert_int_equal(net_recv(l, &m, 2000), 0);
  assert_memory_equal(m.payload, v, sizeof v);
  assert_true(inproc == (m.payload == (const void *)v));
  net_msg_fini(&m);
  assert_int_equal(released, 1);
  h.payload_bytes = 8; /* does not match the 32 bytes given: refused, released */
  assert_int_equal(net_send_lent(d, NULL, &h, v, sizeof v, (struct net_release){count_release, &released}),
                   DSANA_EINVAL);
  assert_int_equal(released, 2);
  net_close(d);
  net_close(l);
}

/* net_msg_move: a received message's payload moves with it, not copied
 * (the same bytes at the same place for a large one), outlives the
 * original's net_msg_fini and later messages on the socket, and a lent
 * inproc payload is released once, when the moved message is finished;
 * a small one (a zmq frame's bytes inside the zmq_msg_t) stays readable
 * and 8-aligned. */
static void moved_messages(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound), *d = dial(f, bound, 1);
  enum { BIG = 1000 };
  double *big = malloc(sizeof(double) * BIG), one = 7.5, lent[4] = {1, 2, 3, 4};
  assert_non_null(big);
  fill(big, BIG, 3);
  struct wire_hdr hb = values_hdr(WIRE_PUSH, 1, 0, BIG), h1 = values_hdr(WIRE_PUSH, 1, 0, 1);
  struct wire_hdr hl = values_hdr(WIRE_PUSH, 1, 0, 4);
  int released = 0;
  assert_int_equal(net_send(d, NULL, &hb, big, sizeof(double) * BIG), 0);
  assert_int_equal(net_send(d, NULL, &h1, &one, sizeof one), 0);
  assert_int_equal(net_send_lent(d, NULL, &hl, lent, sizeof lent, (struct net_release){count_release, &released}), 0);
  struct net_msg m, kept[3];
  for (int i = 0; i < 3; i++) {
    assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
    assert_true(net_msg_owns_payload(&m));
    const void *at = m.payload;
    net_msg_move(&kept[i], &m);
    assert_null(m.payload);
    assert_false(net_msg_owns_payload(&m));
    if (i == 0)
      assert_ptr_equal(kept[i].payload, at); /* moved, not copied */
    net_msg_fini(&m);                        /* holds nothing now */
  }
  bool inproc = strcmp(f->scheme, "inproc") == 0;
  assert_int_equal(released, inproc ? 0 : 1); /* tcp://, ipc:// copied it when sent */
  for (int i = 0; i < 3; i++) {               /* later traffic does not touch the kept payloads */
    assert_int_equal(net_send(d, NULL, &hb, big, sizeof(double) * BIG), 0);
    assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
    net_msg_fini(&m);
  }
  check_payload(&kept[0], BIG, 3);
  check_payload(&kept[1], 1, 7.5);
  assert_memory_equal(kept[2].payload, lent, sizeof lent);
  for (int i = 0; i < 3; i++)
    net_msg_fini(&kept[i]);
  assert_int_equal(released, 1);
  free(big);
  net_close(d);
  net_close(l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      PER_SCHEME(moved_messages),
      cmocka_unit_test_setup_teardown(manual_links, setup_manual, teardown_manual),
      cmocka_unit_test_setup_teardown(manual_any_order_keeps_link_fifo, setup_manual, teardown_manual),
      cmocka_unit_test_setup_teardown(manual_off_keeps_order, setup_manual, teardown_manual),
      cmocka_unit_test_setup_teardown(endpoints, setup_inproc, teardown),
      {"buffers_shared/ipc", buffers_shared, setup_ipc, teardown, NULL},
      {"buffers_shared/inproc", buffers_shared, setup_inproc, teardown, NULL},
      {"buffers_empty/ipc", buffers_empty, setup_ipc, teardown, NULL},
      {"buffers_empty/inproc", buffers_empty, setup_inproc, teardown, NULL},
      cmocka_unit_test_setup_teardown(buffers_inproc_refcount, setup_inproc, teardown),
      cmocka_unit_test_setup_teardown(buffers_inproc_region, setup_inproc, teardown),
      cmocka_unit_test_setup_teardown(buffers_inproc_region_joiners_race, setup_inproc, teardown),
      cmocka_unit_test_setup_teardown(buffers_ipc_region, setup_ipc, teardown),
      {"buffers_unsupported/tcp", buffers_unsupported, setup_tcp, teardown, NULL},
      {"buffers_unsupported/ipc", buffers_unsupported, setup_ipc, teardown, NULL},
      {"lent_payloads/inproc", lent_payloads, setup_inproc, teardown, NULL},
      {"lent_payloads/tcp", lent_payloads, setup_tcp, teardown, NULL},
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
