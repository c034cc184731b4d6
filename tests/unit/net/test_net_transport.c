/*
 * test_net_transport.c - the transport seam (net/transport/transport.h), the same
 * behaviours over every transport of this build: tcp:// and ipc://
 * (ZeroMQ) and inproc://, each test once per scheme, in one process and
 * thread. Round trips and counters, bound and fresh addresses, aligned
 * payloads of every size regime, replies routed by the dialer's identity,
 * receive timeouts, signals, net_poll over sockets, descriptors and
 * timers, send errors, and the context's scheme rules.
 *
 * Malformed input from raw ZeroMQ peers: test_net_transport_zmq.c; shared
 * buffers and inproc manual delivery: test_net_transport_inproc.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/time.h>

#include <cmocka.h>

#include "net_test_fixture.h"
#include "util/thread/clock.h"

static void round_trip(void **state) {
  struct fixture *f = *state;
  char bound[256];
  const uint32_t id = 0x02000007u; /* a worker's dial id: every byte counts */
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct net_sock *d = dial(f, bound, id);
  double v[4];
  fill(v, 4, 1.0);
  struct wire_hdr h = values_hdr(WIRE_PUSH, 7, 100, 4);
  h.flags = WIRE_F_END;
  assert_int_equal(net_send(d, NULL, &h, v, sizeof v), 0);
  memset(v, 0, sizeof v); /* sent means copied */

  struct net_msg m;
  assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.type, WIRE_PUSH);
  assert_int_equal(m.hdr.sender, 7);
  assert_int_equal(m.hdr.table, 1);
  assert_int_equal(m.hdr.iter, 3);
  assert_int_equal(m.hdr.task, 11);
  assert_int_equal(m.hdr.chunk, 9);
  assert_int_equal(m.hdr.flags, WIRE_F_END);
  assert_int_equal(m.hdr.key_lo, 100);
  assert_int_equal(m.hdr.key_hi, 104);
  assert_int_equal(m.hdr.count, 4);
  assert_int_equal(m.from.len, 5);
  assert_memory_equal(m.from.id, "D\x07\0\0\x02", 5);
  uint32_t who = 0;
  assert_int_equal(net_peer_id(&m.from, &who), 0);
  assert_int_equal(who, id);
  check_payload(&m, 4, 1.0);

  double r[4];
  fill(r, 4, -8.0);
  struct wire_hdr rh = values_hdr(WIRE_PULL_REPLY, 0, 100, 4);
  assert_int_equal(net_send(l, &m.from, &rh, r, sizeof r), 0);
  struct wire_hdr stop = wire_hdr_make(WIRE_STOP, 0);
  assert_int_equal(net_send(l, &m.from, &stop, NULL, 0), 0);
  /* owned payloads: taken over, freed by the transport (ASan checks) */
  double *owned = malloc(2 * sizeof *owned);
  assert_non_null(owned);
  fill(owned, 2, 5.0);
  struct wire_hdr oh = values_hdr(WIRE_PULL_REPLY, 0, 0, 2);
  assert_int_equal(net_send_owned(l, &m.from, &oh, owned, 2 * sizeof *owned), 0);
  net_msg_fini(&m);

  struct net_msg a;
  assert_int_equal(net_recv(d, &a, WAIT_MS), 0);
  assert_int_equal(a.hdr.type, WIRE_PULL_REPLY);
  check_payload(&a, 4, -8.0);
  net_msg_fini(&a);
  assert_int_equal(net_recv(d, &a, WAIT_MS), 0);
  assert_int_equal(a.hdr.type, WIRE_STOP);
  assert_null(a.payload);
  assert_int_equal(a.hdr.payload_bytes, 0);
  net_msg_fini(&a);
  assert_int_equal(net_recv(d, &a, WAIT_MS), 0);
  check_payload(&a, 2, 5.0);
  net_msg_fini(&a);
  assert_int_equal(net_recv(d, &a, 0), DSANA_EAGAIN);

  struct net_stats sl, sd;
  net_get_stats(l, &sl);
  net_get_stats(d, &sd);
  assert_int_equal(sd.msgs_out, 1);
  assert_int_equal(sd.bytes_out, WIRE_HDR_BYTES + 32);
  assert_int_equal(sl.msgs_in, 1);
  assert_int_equal(sl.bytes_in, WIRE_HDR_BYTES + 32);
  assert_int_equal(sl.msgs_out, 3);
  assert_int_equal(sl.bytes_out, 3 * WIRE_HDR_BYTES + 32 + 16);
  assert_int_equal(sd.msgs_in, 3);
  assert_int_equal(sd.bytes_in, sl.bytes_out);
  assert_int_equal(sl.dropped + sd.dropped + sl.refused + sd.refused, 0);
  net_close(d);
  net_close(l);
}

static void bound_addr(void **state) {
  struct fixture *f = *state;
  char bound[256], small[8];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  if (strcmp(f->scheme, "tcp") == 0) {
    assert_true(strncmp(bound, "tcp://127.0.0.1:", 16) == 0);
    assert_true(atoi(bound + 16) > 0); /* "*" resolved */
  } else {
    assert_string_equal(bound, f->addr);
  }
  assert_int_equal(net_bound_addr(l, small, sizeof small), DSANA_ERANGE);
  assert_string_equal(net_ctx_scheme(f->ctx), f->scheme);
  net_close(l);
}

/* A listener on NULL gets a fresh address of the context's scheme (ipc:
 * in opts.local_dir, tcp: on opts.bind_host), distinct each time, that
 * dialers reach. */
static void listen_fresh(void **state) {
  struct fixture *f = *state;
  char a1[256], a2[256];
  struct net_sock *l1 = listen_on(f, NULL, a1, sizeof a1);
  struct net_sock *l2 = listen_on(f, NULL, a2, sizeof a2);
  assert_string_not_equal(a1, a2);
  char prefix[128];
  if (strcmp(f->scheme, "ipc") == 0)
    snprintf(prefix, sizeof prefix, "ipc://%s/", f->dir);
  else if (strcmp(f->scheme, "tcp") == 0)
    snprintf(prefix, sizeof prefix, "tcp://127.0.0.1:");
  else
    snprintf(prefix, sizeof prefix, "inproc://");
  assert_true(strncmp(a1, prefix, strlen(prefix)) == 0);
  assert_true(strncmp(a2, prefix, strlen(prefix)) == 0);
  assert_true(strlen(a1) > strlen(prefix));
  struct net_sock *d = dial(f, a2, 1);
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 1);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  struct net_msg m;
  assert_int_equal(net_recv(l2, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.type, WIRE_HEARTBEAT);
  net_msg_fini(&m);
  assert_int_equal(net_recv(l1, &m, 0), DSANA_EAGAIN);
  net_close(d);
  net_close(l2);
  net_close(l1);
}

/* Sizes around ZeroMQ's inline (33 B), shared-buffer (8 KiB) and separate
 * allocation regimes, and net_msg's inline store: every payload must
 * arrive intact and 8-aligned, in order. */
static void payload_sizes_aligned(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct net_sock *d = dial(f, bound, 1);
  const uint64_t counts[] = {1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 1023, 1025, 5000, 200000};
  const size_t nc = sizeof counts / sizeof counts[0];
  double *v = malloc(200000 * sizeof *v);
  assert_non_null(v);
  for (size_t i = 0; i < nc; i++) {
    fill(v, counts[i], (double)i);
    struct wire_hdr h = values_hdr(WIRE_PUSH, 1, 0, counts[i]);
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

static void reply_routed_by_identity(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  const uint32_t ids[3] = {1, 0x01000002u, 0xfffffffeu};
  struct net_sock *ds[3];
  for (int i = 0; i < 3; i++)
    ds[i] = dial(f, bound, ids[i]);
  for (int i = 2; i >= 0; i--) {
    struct wire_hdr h = wire_hdr_make(WIRE_PULL, (uint32_t)i);
    assert_int_equal(net_send(ds[i], NULL, &h, NULL, 0), 0);
  }
  for (int i = 0; i < 3; i++) {
    struct net_msg m;
    assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
    uint32_t who;
    assert_int_equal(net_peer_id(&m.from, &who), 0);
    assert_int_equal(who, ids[m.hdr.sender]); /* net_peer_id gives the dialer's self_id */
    /* reply with the requester's index as the key, so each side can check */
    double v = (double)m.hdr.sender;
    struct wire_hdr r = values_hdr(WIRE_PULL_REPLY, 0, m.hdr.sender, 1);
    assert_int_equal(net_send(l, &m.from, &r, &v, sizeof v), 0);
    net_msg_fini(&m);
  }
  for (uint32_t i = 0; i < 3; i++) {
    struct net_msg m;
    assert_int_equal(net_recv(ds[i], &m, WAIT_MS), 0);
    assert_int_equal(m.hdr.key_lo, i);
    assert_true(*(const double *)m.payload == (double)i);
    net_msg_fini(&m);
    assert_int_equal(net_recv(ds[i], &m, 0), DSANA_EAGAIN);
    net_close(ds[i]);
  }
  net_close(l);
}

static void peer_id_rejects_others(void **state) {
  (void)state;
  uint32_t id = 99;
  struct net_peer p = {5, "D\x01\x02\x03\x04"};
  assert_int_equal(net_peer_id(&p, &id), 0);
  assert_int_equal(id, 0x04030201u);
  struct net_peer bad[] = {{0, ""}, {4, "D\1\2\3"}, {6, "D\1\2\3\4\5"}, {5, "E\1\2\3\4"}, {5, "\0\1\2\3\4"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    id = 99;
    assert_int_equal(net_peer_id(&bad[i], &id), DSANA_EINVAL);
    assert_int_equal(id, 99);
  }
}

static void recv_timeout(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
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

/* Signals (SIGCHLD and the like) interrupt waits; that is not an error,
 * and a stream of them does not stretch a wait beyond its timeout. */
static void survives_signals(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct sigaction sa = {.sa_handler = on_alarm}, old;
  sigemptyset(&sa.sa_mask); /* no SA_RESTART: calls fail with EINTR */
  assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
  struct itimerval every_ms = {{0, 1000}, {0, 1000}}, off = {{0, 0}, {0, 0}};
  alarms = 0;
  assert_int_equal(setitimer(ITIMER_REAL, &every_ms, NULL), 0);
  struct net_msg m;
  bool ready = true;
  int rc_recv = net_recv(l, &m, 100);
  int rc_poll = net_poll(&l, 1, NULL, 0, 50, 0, &ready, NULL);
  int rc_until = net_poll(&l, 1, NULL, 0, -1, clock_now_ns() + 30000000u, &ready, NULL);
  /* Stop the signals before asserting, so a failure cannot leak them; one
   * already raised may still be pending (valgrind delivers signals late):
   * take it while SIGALRM is blocked, then give back the old action. */
  assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
  sigset_t alrm, mask;
  sigemptyset(&alrm);
  sigaddset(&alrm, SIGALRM);
  assert_int_equal(sigprocmask(SIG_BLOCK, &alrm, &mask), 0);
  struct timespec now = {0, 0};
  while (sigtimedwait(&alrm, NULL, &now) == SIGALRM) {
  }
  assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
  assert_int_equal(sigprocmask(SIG_SETMASK, &mask, NULL), 0);
  assert_true(alarms > 0);
  assert_int_equal(rc_recv, DSANA_EAGAIN);
  assert_int_equal(rc_poll, 0);
  assert_int_equal(rc_until, 0);
  assert_false(ready);
  net_close(l);
}

static void poll_sockets(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct net_sock *d = dial(f, bound, 4);
  struct net_sock *socks[2] = {l, d};
  bool ready[2] = {true, true};
  assert_int_equal(net_poll(socks, 2, NULL, 0, 0, 0, ready, NULL), 0);
  assert_false(ready[0] || ready[1]);
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 4);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  assert_int_equal(net_poll(socks, 2, NULL, 0, WAIT_MS, 0, ready, NULL), 1);
  assert_true(ready[0]);
  assert_false(ready[1]);
  struct net_msg m;
  assert_int_equal(net_recv(l, &m, 0), 0);
  assert_int_equal(net_send(l, &m.from, &h, NULL, 0), 0);
  net_msg_fini(&m);
  assert_int_equal(net_poll(socks, 2, NULL, 0, WAIT_MS, 0, ready, NULL), 1);
  assert_false(ready[0]);
  assert_true(ready[1]);
  assert_int_equal(net_recv(d, &m, 0), 0);
  net_msg_fini(&m);
  assert_int_equal(net_poll(socks, 2, NULL, 0, 0, 0, ready, NULL), 0);
  /* nothing to wait for at all is a usage error */
  assert_int_equal(net_poll(NULL, 0, NULL, 0, -1, 0, NULL, NULL), DSANA_EINVAL);
  assert_int_equal(net_poll(socks, -1, NULL, 0, 0, 0, ready, NULL), DSANA_EINVAL);
  net_close(d);
  net_close(l);
}

/* Extra descriptors: an eventfd and a pipe, alone or with sockets. */
static void poll_fds(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), p[2];
  assert_true(efd >= 0);
  assert_int_equal(pipe(p), 0);
  int fds[2] = {efd, p[0]};
  bool ready = true, fd_ready[2] = {true, true};
  assert_int_equal(net_poll(&l, 1, fds, 2, 0, 0, &ready, fd_ready), 0);
  assert_false(ready || fd_ready[0] || fd_ready[1]);

  uint64_t one = 1;
  assert_int_equal(write(efd, &one, sizeof one), (ssize_t)sizeof one);
  assert_int_equal(net_poll(&l, 1, fds, 2, WAIT_MS, 0, &ready, fd_ready), 1);
  assert_false(ready);
  assert_true(fd_ready[0]);
  assert_false(fd_ready[1]);

  assert_int_equal(write(p[1], "x", 1), 1);
  struct net_sock *d = dial(f, bound, 2);
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 2);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  struct net_msg m;
  assert_int_equal(net_recv(l, &m, WAIT_MS), 0); /* the message is surely in */
  net_msg_fini(&m);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  /* once the second message is in, the socket and both descriptors are ready */
  assert_int_equal(net_poll(&l, 1, NULL, 0, WAIT_MS, 0, &ready, NULL), 1);
  assert_int_equal(net_poll(&l, 1, fds, 2, WAIT_MS, 0, &ready, fd_ready), 3);
  assert_true(ready && fd_ready[0] && fd_ready[1]);

  /* descriptors only (no socket) */
  uint64_t v;
  assert_int_equal(read(efd, &v, sizeof v), (ssize_t)sizeof v);
  assert_int_equal(net_poll(NULL, 0, fds, 2, WAIT_MS, 0, NULL, fd_ready), 1);
  assert_false(fd_ready[0]);
  assert_true(fd_ready[1]);
  char c;
  assert_int_equal(read(p[0], &c, 1), 1);
  assert_int_equal(net_poll(NULL, 0, fds, 2, 0, 0, NULL, fd_ready), 0);
  assert_false(fd_ready[0] || fd_ready[1]);
  assert_int_equal(net_recv(l, &m, 0), 0);
  net_msg_fini(&m);
  close(p[0]);
  close(p[1]);
  close(efd);
  net_close(d);
  net_close(l);
}

/* until_ns: the poll returns at that time, not before and well before its
 * timeout, with nothing ready; at once for a time already past; input and
 * descriptors still win over a time far ahead. */
static void poll_until(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  bool ready = true;
  uint64_t t0 = clock_now_ns(), until = t0 + 3000000; /* 3 ms */
  assert_int_equal(net_poll(&l, 1, NULL, 0, 20000, until, &ready, NULL), 0);
  uint64_t t1 = clock_now_ns();
  assert_false(ready);
  assert_true(t1 >= until);              /* not before its time */
  assert_true(t1 - t0 < 10000000000ull); /* and not at the 20 s timeout */
  /* no timeout at all (-1): the time alone ends the wait */
  until = clock_now_ns() + 2000000;
  assert_int_equal(net_poll(&l, 1, NULL, 0, -1, until, &ready, NULL), 0);
  assert_true(clock_now_ns() >= until);
  assert_int_equal(net_poll(&l, 1, NULL, 0, 20000, 1, &ready, NULL), 0); /* long past */
  assert_int_equal(net_poll(&l, 1, NULL, 0, 0, 0, &ready, NULL), 0);
  /* a timer only, no socket or descriptor */
  until = clock_now_ns() + 1000000;
  assert_int_equal(net_poll(NULL, 0, NULL, 0, -1, until, NULL, NULL), 0);
  assert_true(clock_now_ns() >= until);
  /* a shorter timeout ends the wait before a later time */
  t0 = clock_now_ns();
  assert_int_equal(net_poll(&l, 1, NULL, 0, 1, t0 + 60000000000ull, &ready, NULL), 0);
  assert_true(clock_now_ns() - t0 < 30000000000ull);
  /* input still wins over a time far ahead */
  struct net_sock *d = dial(f, bound, 4);
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 4);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  assert_int_equal(net_poll(&l, 1, NULL, 0, WAIT_MS, clock_now_ns() + 60000000000ull, &ready, NULL), 1);
  assert_true(ready);
  int efd = eventfd(1, EFD_CLOEXEC);
  bool fd_ready = false;
  assert_int_equal(net_poll(NULL, 0, &efd, 1, -1, clock_now_ns() + 60000000000ull, NULL, &fd_ready), 1);
  assert_true(fd_ready);
  close(efd);
  net_close(d);
  net_close(l);
}

static void send_errors(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  struct wire_hdr h = wire_hdr_make(WIRE_STOP, 0);
  struct net_peer nobody = {5, "D\x09\x09\x09\x09"}, stranger = {3, "abc"};
  assert_int_equal(net_send(l, &nobody, &h, NULL, 0), DSANA_ENET);
  assert_int_equal(net_send(l, &stranger, &h, NULL, 0), DSANA_ENET);
  assert_int_equal(net_send(l, NULL, &h, NULL, 0), DSANA_EINVAL);
  struct net_peer empty = {0, ""};
  assert_int_equal(net_send(l, &empty, &h, NULL, 0), DSANA_EINVAL);
  double v[2] = {0};
  struct wire_hdr p = values_hdr(WIRE_PUSH, 0, 0, 2);
  assert_int_equal(net_send(l, &nobody, &p, v, 8), DSANA_EINVAL);     /* length mismatch */
  assert_int_equal(net_send(l, &nobody, &p, NULL, 16), DSANA_EINVAL); /* no buffer */
  p.flags = 1u << 20;
  assert_int_equal(net_send(l, &nobody, &p, v, 16), DSANA_EINVAL); /* invalid header */
  p = values_hdr(WIRE_PUSH, 0, 0, 2);
  p.payload_bytes = 12;
  assert_int_equal(net_send(l, &nobody, &p, v, 12), DSANA_EINVAL); /* not whole words */
  /* an owned payload is freed on every failure (ASan would report a leak) */
  double *owned = malloc(16);
  assert_non_null(owned);
  assert_int_equal(net_send_owned(l, &nobody, &p, owned, 12), DSANA_EINVAL);
  owned = malloc(16);
  assert_non_null(owned);
  p.payload_bytes = 16;
  assert_int_equal(net_send_owned(l, &nobody, &p, owned, 16), DSANA_ENET);
  struct net_stats st;
  net_get_stats(l, &st);
  assert_int_equal(st.msgs_out, 0);
  assert_int_equal(st.bytes_out, 0);
  net_close(l);
}

/* Addresses of another scheme (or none) are refused by a context. */
static void foreign_addresses(void **state) {
  struct fixture *f = *state;
  struct net_sock *bad = NULL;
  const char *foreign = strcmp(f->scheme, "inproc") == 0 ? "tcp://127.0.0.1:*" : "inproc://elsewhere";
  assert_int_not_equal(net_listen(f->ctx, "nonsense://x", &bad), 0);
  assert_int_not_equal(net_dial(f->ctx, "nonsense://x", 1, &bad), 0);
  assert_int_equal(net_listen(f->ctx, foreign, &bad), DSANA_EINVAL);
  assert_int_equal(net_dial(f->ctx, foreign, 1, &bad), DSANA_EINVAL);
  assert_null(bad);
}

static void context_schemes(void **state) {
  (void)state;
  struct net_ctx *ctx = NULL;
  const char *unknown[] = {"nonsense://x", "tcp:/x", "127.0.0.1:5555", "", "udp://1.2.3.4:5"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    assert_int_equal(net_ctx_create(unknown[i], NULL, &ctx), DSANA_EINVAL);
    assert_false(net_addr_valid(unknown[i]));
  }
  assert_int_equal(net_ctx_create(NULL, NULL, &ctx), DSANA_EINVAL);
  assert_false(net_addr_valid(NULL));
#ifndef DSANA_HAVE_MPI
  assert_int_equal(net_ctx_create("mpi://0", NULL, &ctx), DSANA_ENOTSUP);
#endif
  assert_null(ctx);
  const char *good[] = {"tcp://127.0.0.1:1", "ipc:///tmp/x", "inproc://a"};
  const char *scheme[] = {"tcp", "ipc", "inproc"};
  for (int i = 0; i < 3; i++) {
    assert_true(net_addr_valid(good[i]));
    assert_int_equal(net_ctx_create(good[i], NULL, &ctx), 0);
    assert_string_equal(net_ctx_scheme(ctx), scheme[i]);
    net_ctx_destroy(ctx);
    ctx = NULL;
  }
  assert_false(net_addr_valid("tcp://")); /* a scheme and nothing else */
  /* a bad CURVE secret is refused when the context is made */
  struct net_opts o = {.curve_secret = "too short"};
  assert_int_equal(net_ctx_create("tcp://127.0.0.1:1", &o, &ctx), DSANA_EINVAL);
  net_ctx_destroy(NULL);
}

static void local_addresses(void **state) {
  (void)state;
  char buf[64];
  assert_int_equal(net_local_addr("ipc", "/tmp/j", "scheduler", buf, sizeof buf), 0);
  assert_string_equal(buf, "ipc:///tmp/j/scheduler");
  assert_int_equal(net_local_addr("inproc", "/tmp/j", "server-1", buf, sizeof buf), 0);
  assert_string_equal(buf, "inproc://server-1");
  assert_int_equal(net_local_addr("tcp", "/tmp/j", "x", buf, sizeof buf), DSANA_EINVAL);
  assert_int_equal(net_local_addr("ipc", "/tmp/j", "scheduler", buf, 10), DSANA_ERANGE);
  assert_int_equal(net_local_addr("ipc", "/tmp/j", "scheduler", buf, 22), DSANA_ERANGE);
  assert_int_equal(net_local_addr("ipc", "/tmp/j", "scheduler", buf, 23), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      PER_SCHEME(round_trip),
      PER_SCHEME(bound_addr),
      PER_SCHEME(listen_fresh),
      PER_SCHEME(payload_sizes_aligned),
      PER_SCHEME(reply_routed_by_identity),
      PER_SCHEME(recv_timeout),
      PER_SCHEME(survives_signals),
      PER_SCHEME(poll_sockets),
      PER_SCHEME(poll_fds),
      PER_SCHEME(poll_until),
      PER_SCHEME(send_errors),
      PER_SCHEME(foreign_addresses),
      cmocka_unit_test(peer_id_rejects_others),
      cmocka_unit_test(context_schemes),
      cmocka_unit_test(local_addresses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
