/*
 * test_net_transport.c - the ZeroMQ transport in one process and thread:
 * round trips over ipc:// and tcp://, routing replies by identity, dropping
 * malformed messages from a raw ZeroMQ peer, timeouts and send errors.
 *
 * Receive timeouts here are generous safety nets against a hung test, never
 * synchronization: every message waited for has been sent already.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>
#include <zmq.h>

#include "dsana/dsana.h"
#include "net/transport.h"
#include "util/clock.h"

#define WAIT_MS 20000

struct fixture {
  struct net_ctx *ctx;
  char dir[64];
  char ipc[128];
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/dsana_net_XXXXXX");
  if (!mkdtemp(f->dir) || net_ctx_create(&f->ctx) != 0)
    return -1;
  snprintf(f->ipc, sizeof f->ipc, "ipc://%s/l.sock", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  net_ctx_destroy(f->ctx);
  char path[128];
  snprintf(path, sizeof path, "%s/l.sock", f->dir);
  unlink(path);
  rmdir(f->dir);
  free(f);
  return 0;
}

static struct net_sock *listen_on(struct fixture *f, const char *addr, char *bound, size_t len) {
  struct net_sock *l = NULL;
  assert_int_equal(net_listen(f->ctx, addr, &l), 0);
  assert_int_equal(net_bound_addr(l, bound, len), 0);
  return l;
}

static struct net_sock *dial(struct fixture *f, const char *addr, uint32_t id) {
  struct net_sock *d = NULL;
  assert_int_equal(net_dial(f->ctx, addr, id, &d), 0);
  return d;
}

/* A KEYS-type header for [lo, lo+n) and its payload of doubles. */
static struct wire_hdr keys_hdr(enum wire_type t, uint32_t sender, uint64_t lo, uint64_t n) {
  struct wire_hdr h = wire_hdr_make(t, sender);
  h.table = 1;
  h.iter = 3;
  h.chunk = 9;
  h.key_lo = lo;
  h.key_hi = lo + n;
  h.payload_bytes = 8 * n;
  return h;
}

static void fill(double *v, uint64_t n, double base) {
  for (uint64_t i = 0; i < n; i++)
    v[i] = base + (double)i * 0.5;
}

static void check_payload(const struct net_msg *m, uint64_t n, double base) {
  assert_non_null(m->payload);
  assert_int_equal((uintptr_t)m->payload % 8, 0);
  const double *v = m->payload;
  for (uint64_t i = 0; i < n; i++)
    assert_true(v[i] == base + (double)i * 0.5);
}

static void round_trip(struct fixture *f, const char *addr) {
  char bound[256];
  struct net_sock *l = listen_on(f, addr, bound, sizeof bound);
  struct net_sock *d = dial(f, bound, 7);
  double v[4];
  fill(v, 4, 1.0);
  struct wire_hdr h = keys_hdr(WIRE_PUSH, 7, 100, 4);
  assert_int_equal(net_send(d, NULL, &h, v, sizeof v), 0);

  struct net_msg m;
  assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.type, WIRE_PUSH);
  assert_int_equal(m.hdr.sender, 7);
  assert_int_equal(m.hdr.chunk, 9);
  assert_int_equal(m.hdr.key_lo, 100);
  assert_int_equal(m.hdr.key_hi, 104);
  assert_int_equal(m.from.len, 5);
  assert_memory_equal(m.from.id, "D\x07\0\0\0", 5);
  check_payload(&m, 4, 1.0);

  double r[4];
  fill(r, 4, -8.0);
  struct wire_hdr rh = keys_hdr(WIRE_PULL_REPLY, 0, 100, 4);
  assert_int_equal(net_send(l, &m.from, &rh, r, sizeof r), 0);
  struct wire_hdr ack = wire_hdr_make(WIRE_PUSH_ACK, 0);
  assert_int_equal(net_send(l, &m.from, &ack, NULL, 0), 0);
  net_msg_fini(&m);

  struct net_msg a;
  assert_int_equal(net_recv(d, &a, WAIT_MS), 0);
  assert_int_equal(a.hdr.type, WIRE_PULL_REPLY);
  check_payload(&a, 4, -8.0);
  net_msg_fini(&a);
  assert_int_equal(net_recv(d, &a, WAIT_MS), 0);
  assert_int_equal(a.hdr.type, WIRE_PUSH_ACK);
  assert_null(a.payload);
  assert_int_equal(a.has_payload, 0);
  net_msg_fini(&a);

  struct net_stats sl, sd;
  net_get_stats(l, &sl);
  net_get_stats(d, &sd);
  assert_int_equal(sd.msgs_out, 1);
  assert_int_equal(sd.bytes_out, WIRE_HDR_BYTES + 32);
  assert_int_equal(sl.msgs_in, 1);
  assert_int_equal(sl.bytes_in, WIRE_HDR_BYTES + 32);
  assert_int_equal(sl.msgs_out, 2);
  assert_int_equal(sl.bytes_out, 2 * WIRE_HDR_BYTES + 32);
  assert_int_equal(sd.msgs_in, 2);
  assert_int_equal(sd.bytes_in, sl.bytes_out);
  assert_int_equal(sl.dropped + sd.dropped, 0);
  net_close(d);
  net_close(l);
}

static void test_round_trip_ipc(void **state) {
  struct fixture *f = *state;
  round_trip(f, f->ipc);
}

static void test_round_trip_tcp(void **state) { round_trip(*state, "tcp://127.0.0.1:*"); }

static void test_bound_addr_resolves_port(void **state) {
  struct fixture *f = *state;
  char bound[256], small[8];
  struct net_sock *l = listen_on(f, "tcp://127.0.0.1:*", bound, sizeof bound);
  assert_true(strncmp(bound, "tcp://127.0.0.1:", 16) == 0);
  assert_true(atoi(bound + 16) > 0);
  assert_int_equal(net_bound_addr(l, small, sizeof small), DSANA_ERANGE);
  net_close(l);
  l = listen_on(f, f->ipc, bound, sizeof bound);
  assert_string_equal(bound, f->ipc);
  net_close(l);
}

/* Sizes around ZeroMQ's inline (33 B), shared-buffer (8 KiB) and separate
 * allocation regimes: every payload must arrive intact and 8-aligned. */
static void test_payload_sizes_aligned(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, "tcp://127.0.0.1:*", bound, sizeof bound);
  struct net_sock *d = dial(f, bound, 1);
  const uint64_t counts[] = {1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 1023, 1025, 5000, 200000};
  const size_t nc = sizeof counts / sizeof counts[0];
  double *v = malloc(200000 * sizeof *v);
  assert_non_null(v);
  for (size_t i = 0; i < nc; i++) {
    fill(v, counts[i], (double)i);
    struct wire_hdr h = keys_hdr(WIRE_PUSH, 1, 0, counts[i]);
    assert_int_equal(net_send(d, NULL, &h, v, 8 * counts[i]), 0);
  }
  for (size_t i = 0; i < nc; i++) {
    struct net_msg m;
    assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
    assert_int_equal(m.hdr.key_hi, counts[i]);
    check_payload(&m, counts[i], (double)i);
    net_msg_fini(&m);
  }
  free(v);
  net_close(d);
  net_close(l);
}

static void test_reply_routed_by_identity(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->ipc, bound, sizeof bound);
  struct net_sock *d1 = dial(f, bound, 1), *d2 = dial(f, bound, 2);
  struct wire_hdr h1 = wire_hdr_make(WIRE_PULL, 1), h2 = wire_hdr_make(WIRE_PULL, 2);
  assert_int_equal(net_send(d2, NULL, &h2, NULL, 0), 0);
  assert_int_equal(net_send(d1, NULL, &h1, NULL, 0), 0);
  for (int i = 0; i < 2; i++) {
    struct net_msg m;
    assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
    /* Reply with the requester's id as the key, so each side can check. */
    double v = (double)m.hdr.sender;
    struct wire_hdr r = keys_hdr(WIRE_PULL_REPLY, 0, m.hdr.sender, 1);
    assert_int_equal(net_send(l, &m.from, &r, &v, sizeof v), 0);
    net_msg_fini(&m);
  }
  struct net_sock *ds[2] = {d1, d2};
  for (uint32_t i = 0; i < 2; i++) {
    struct net_msg m;
    assert_int_equal(net_recv(ds[i], &m, WAIT_MS), 0);
    assert_int_equal(m.hdr.key_lo, i + 1);
    assert_true(*(const double *)m.payload == (double)(i + 1));
    net_msg_fini(&m);
    assert_int_equal(net_recv(ds[i], &m, 0), DSANA_EAGAIN);
  }
  net_close(d1);
  net_close(d2);
  net_close(l);
}

/* ---- malformed input from a raw ZeroMQ peer ----------------------------- */

static void raw_send(void *z, const struct wire_hdr *h, const void *p, size_t len, int extra) {
  uint8_t b[WIRE_HDR_BYTES];
  wire_encode(h, b);
  assert_true(zmq_send(z, b, sizeof b, (p || extra) ? ZMQ_SNDMORE : 0) >= 0);
  if (p)
    assert_true(zmq_send(z, p, len, extra ? ZMQ_SNDMORE : 0) >= 0);
  if (extra)
    assert_true(zmq_send(z, "x", 1, 0) >= 0);
}

static void *raw_dealer(void *zctx, const char *addr) {
  void *z = zmq_socket(zctx, ZMQ_DEALER);
  assert_non_null(z);
  int zero = 0;
  assert_int_equal(zmq_setsockopt(z, ZMQ_LINGER, &zero, sizeof zero), 0);
  assert_int_equal(zmq_connect(z, addr), 0);
  return z;
}

/* A PAIR socket receiving the events of z. */
static void *monitor(void *zctx, void *z) {
  static int n;
  char ep[64];
  snprintf(ep, sizeof ep, "inproc://mon%d", n++);
  assert_int_equal(zmq_socket_monitor(z, ep, ZMQ_EVENT_ALL), 0);
  void *mon = zmq_socket(zctx, ZMQ_PAIR);
  int ms = WAIT_MS, zero = 0;
  zmq_setsockopt(mon, ZMQ_RCVTIMEO, &ms, sizeof ms);
  zmq_setsockopt(mon, ZMQ_LINGER, &zero, sizeof zero);
  assert_int_equal(zmq_connect(mon, ep), 0);
  return mon;
}

/* Read monitor events until `event` (each is [u16 event, u32 value][addr]). */
static void wait_event(void *mon, int event) {
  for (;;) {
    uint8_t ev[6];
    char addr[256];
    assert_int_equal(zmq_recv(mon, ev, sizeof ev, 0), 6);
    assert_true(zmq_recv(mon, addr, sizeof addr, 0) >= 0);
    if ((ev[0] | ev[1] << 8) == event)
      return;
  }
}

static void test_garbage_dropped(void **state) {
  struct fixture *f = *state;
  char bound[256];
  net_ctx_set_max_payload(f->ctx, 4096); /* ZeroMQ refuses frames > 8 KiB */
  struct net_sock *l = listen_on(f, "tcp://127.0.0.1:*", bound, sizeof bound);
  void *zctx = zmq_ctx_new();
  void *raw = raw_dealer(zctx, bound);
  static double big[1024]; /* 8 KiB: within ZeroMQ's limit, over ours */
  double two[2] = {1, 2};
  int sent_bad = 0;

  struct wire_hdr h = keys_hdr(WIRE_PUSH, 5, 0, 2);
  h.magic ^= 1; /* bad magic */
  raw_send(raw, &h, two, sizeof two, 0), sent_bad++;
  h = keys_hdr(WIRE_PUSH, 5, 0, 2);
  h.version = WIRE_VERSION + 1; /* wrong version */
  raw_send(raw, &h, two, sizeof two, 0), sent_bad++;
  h = keys_hdr(WIRE_PUSH, 5, 0, 2);
  raw_send(raw, &h, two, 8, 0), sent_bad++; /* payload frame shorter than header */
  h = keys_hdr(WIRE_PUSH, 5, 0, 3);
  h.payload_bytes = 16; /* header disagrees with key range */
  raw_send(raw, &h, two, sizeof two, 0), sent_bad++;
  h = keys_hdr(WIRE_PUSH, 5, 0, 2);
  raw_send(raw, &h, NULL, 0, 0), sent_bad++; /* missing payload frame */
  h = wire_hdr_make(WIRE_HEARTBEAT, 5);
  raw_send(raw, &h, NULL, 0, 1), sent_bad++; /* extra frame, no payload allowed */
  h = keys_hdr(WIRE_PUSH, 5, 0, 2);
  raw_send(raw, &h, two, sizeof two, 1), sent_bad++; /* extra frame after payload */
  h = keys_hdr(WIRE_PUSH, 5, 0, 1024);
  raw_send(raw, &h, big, sizeof big, 0), sent_bad++; /* over net_set_max_payload */
  assert_true(zmq_send(raw, "short", 5, 0) == 5), sent_bad++; /* truncated header */

  h = keys_hdr(WIRE_PUSH, 5, 40, 2);
  raw_send(raw, &h, two, sizeof two, 0); /* finally a valid one */

  struct net_msg m;
  assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.key_lo, 40);
  assert_int_equal(m.hdr.sender, 5);
  assert_true(((const double *)m.payload)[0] == 1 && ((const double *)m.payload)[1] == 2);
  net_msg_fini(&m);
  struct net_stats st;
  net_get_stats(l, &st);
  assert_int_equal(st.dropped, sent_bad);
  assert_int_equal(st.msgs_in, 1);

  /* A frame beyond ZMQ_MAXMSGSIZE is refused by ZeroMQ (it drops that
   * connection); it must never be handed out, and others still get in. */
  void *huge_peer = raw_dealer(zctx, bound);
  void *mon = monitor(zctx, huge_peer);
  size_t huge_len = 4096 + 4096 + 1024;
  uint8_t *huge = calloc(1, huge_len);
  h = keys_hdr(WIRE_PUSH, 6, 0, huge_len / 8);
  raw_send(huge_peer, &h, huge, huge_len, 0);
  wait_event(mon, ZMQ_EVENT_DISCONNECTED); /* the listener hung up on it */
  struct net_sock *d = dial(f, bound, 3);
  struct wire_hdr ok = wire_hdr_make(WIRE_HEARTBEAT, 3);
  assert_int_equal(net_send(d, NULL, &ok, NULL, 0), 0);
  assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.type, WIRE_HEARTBEAT);
  assert_int_equal(m.hdr.sender, 3);
  net_msg_fini(&m);

  net_get_stats(l, &st);
  assert_int_equal(st.dropped, sent_bad); /* the huge frame never got this far */
  assert_int_equal(net_recv(l, &m, 0), DSANA_EAGAIN);

  free(huge);
  zmq_close(mon);
  zmq_close(huge_peer);
  zmq_close(raw);
  zmq_ctx_term(zctx);
  net_close(d);
  net_close(l);
}

static void test_dialer_drops_garbage_from_server(void **state) {
  struct fixture *f = *state;
  void *zctx = zmq_ctx_new();
  void *router = zmq_socket(zctx, ZMQ_ROUTER);
  int zero = 0;
  zmq_setsockopt(router, ZMQ_LINGER, &zero, sizeof zero);
  assert_int_equal(zmq_bind(router, f->ipc), 0);
  struct net_sock *d = dial(f, f->ipc, 11);
  struct wire_hdr h = wire_hdr_make(WIRE_REGISTER, 11);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  uint8_t id[32], b[WIRE_HDR_BYTES];
  int idlen = zmq_recv(router, id, sizeof id, 0);
  assert_int_equal(idlen, 5);
  assert_int_equal(zmq_recv(router, b, sizeof b, 0), WIRE_HDR_BYTES);

  struct wire_hdr bad = wire_hdr_make(WIRE_STOP, 0);
  bad.payload_bytes = 3;
  wire_encode(&bad, b);
  zmq_send(router, id, (size_t)idlen, ZMQ_SNDMORE);
  zmq_send(router, b, sizeof b, ZMQ_SNDMORE);
  zmq_send(router, "abc", 3, 0);
  struct wire_hdr stop = wire_hdr_make(WIRE_STOP, 0);
  wire_encode(&stop, b);
  zmq_send(router, id, (size_t)idlen, ZMQ_SNDMORE);
  zmq_send(router, b, sizeof b, 0);

  struct net_msg m;
  assert_int_equal(net_recv(d, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.type, WIRE_STOP);
  net_msg_fini(&m);
  struct net_stats st;
  net_get_stats(d, &st);
  assert_int_equal(st.dropped, 1);
  net_close(d);
  zmq_close(router);
  zmq_ctx_term(zctx);
}

/* ---- timeouts, polling, errors ------------------------------------------ */

static void test_recv_timeout(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, "tcp://127.0.0.1:*", bound, sizeof bound);
  struct net_sock *d = dial(f, bound, 4);
  struct net_msg m;
  assert_int_equal(net_recv(l, &m, 0), DSANA_EAGAIN);
  assert_int_equal(net_recv(l, &m, 30), DSANA_EAGAIN);
  assert_int_equal(net_recv(d, &m, 30), DSANA_EAGAIN);
  net_msg_fini(&m); /* harmless after a failed receive */
  net_close(d);
  net_close(l);
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}

/* Signals (SIGCHLD and the like) interrupt waits; that is not an error. */
static void test_recv_survives_signals(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->ipc, bound, sizeof bound);
  struct sigaction sa = {.sa_handler = on_alarm}, old;
  sigemptyset(&sa.sa_mask); /* no SA_RESTART: calls fail with EINTR */
  assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
  struct itimerval every_ms = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
  assert_int_equal(setitimer(ITIMER_REAL, &every_ms, NULL), 0);
  struct net_msg m;
  bool ready;
  int rc_recv = net_recv(l, &m, 100);
  int rc_poll = net_poll(&l, 1, 50, &ready);
  /* Stop the signals before asserting, so a failure cannot leak them. */
  assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
  assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
  assert_true(alarms > 0);
  assert_int_equal(rc_recv, DSANA_EAGAIN);
  assert_int_equal(rc_poll, 0);
  net_close(l);
}

static void test_poll(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, "tcp://127.0.0.1:*", bound, sizeof bound);
  struct net_sock *d = dial(f, bound, 4);
  struct net_sock *socks[2] = {l, d};
  bool ready[2] = {true, true};
  assert_int_equal(net_poll(socks, 2, 0, ready), 0);
  assert_false(ready[0] || ready[1]);
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 4);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  assert_int_equal(net_poll(socks, 2, WAIT_MS, ready), 1);
  assert_true(ready[0]);
  assert_false(ready[1]);
  struct net_msg m;
  assert_int_equal(net_recv(l, &m, 0), 0);
  net_msg_fini(&m);
  net_close(d);
  net_close(l);
}

static void test_send_errors(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->ipc, bound, sizeof bound);
  struct wire_hdr h = wire_hdr_make(WIRE_STOP, 0);
  struct net_peer nobody = {5, "Dzzzz"};
  assert_int_equal(net_send(l, &nobody, &h, NULL, 0), DSANA_ENET);
  assert_int_equal(net_send(l, NULL, &h, NULL, 0), DSANA_EINVAL);
  double v[2] = {0};
  struct wire_hdr p = keys_hdr(WIRE_PUSH, 0, 0, 2);
  assert_int_equal(net_send(l, &nobody, &p, v, 8), DSANA_EINVAL);   /* length mismatch */
  p.key_hi = 3;
  assert_int_equal(net_send(l, &nobody, &p, v, 16), DSANA_EINVAL);  /* invalid header */
  struct net_stats st;
  net_get_stats(l, &st);
  assert_int_equal(st.msgs_out, 0);
  struct net_sock *bad = NULL;
  assert_int_equal(net_listen(f->ctx, "nonsense://x", &bad), DSANA_ENET);
  assert_int_equal(net_dial(f->ctx, "nonsense://x", 1, &bad), DSANA_ENET);
  net_close(l);
}

/* net_poll_until returns at its time, well before the timeout, with
 * nothing ready; and at once for a time already past. */
static void test_poll_until(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->ipc, bound, sizeof bound);
  bool ready = true;
  uint64_t t0 = clock_now_ns(), until = t0 + 3000000; /* 3 ms */
  assert_int_equal(net_poll_until(&l, 1, 20000, until, &ready), 0);
  uint64_t t1 = clock_now_ns();
  assert_false(ready);
  assert_true(t1 >= until);                /* not before its time */
  assert_true(t1 - t0 < 10000000000ull);   /* and not at the 20 s timeout */
  assert_int_equal(net_poll_until(&l, 1, 20000, 1, &ready), 0); /* long past */
  assert_int_equal(net_poll_until(&l, 1, 0, 0, &ready), 0);
  /* input still wins over a time far ahead */
  struct net_sock *d = dial(f, bound, 4);
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 4);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  assert_int_equal(net_poll_until(&l, 1, WAIT_MS, clock_now_ns() + 60000000000ull, &ready), 1);
  assert_true(ready);
  net_close(d);
  net_close(l);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_round_trip_ipc, setup, teardown),
      cmocka_unit_test_setup_teardown(test_round_trip_tcp, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bound_addr_resolves_port, setup, teardown),
      cmocka_unit_test_setup_teardown(test_payload_sizes_aligned, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reply_routed_by_identity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_garbage_dropped, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dialer_drops_garbage_from_server, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recv_timeout, setup, teardown),
      cmocka_unit_test_setup_teardown(test_recv_survives_signals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_poll, setup, teardown),
      cmocka_unit_test_setup_teardown(test_send_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_poll_until, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
