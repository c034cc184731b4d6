/*
 * test_net_transport_zmq.c - what the ZeroMQ transports (tcp://, ipc://)
 * do with malformed input from raw ZeroMQ peers: a listener drops, logs
 * and counts every bad message (bad header, frames that disagree with it,
 * extra frames, identities too long, frames over the limit) and still
 * takes the good one after them; a dialer does the same with garbage from
 * its listener. Each test runs over tcp and ipc.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <zmq.h>

#include "net_test_fixture.h"

#define PER_ZMQ(fn) \
  {#fn "/tcp", fn, setup_tcp, teardown, NULL}, { #fn "/ipc", fn, setup_ipc, teardown, NULL }

static void raw_send(void *z, const struct wire_hdr *h, const void *p, size_t len, int extra) {
  uint8_t b[WIRE_HDR_BYTES];
  wire_encode(h, b);
  assert_true(zmq_send(z, b, sizeof b, (p || extra) ? ZMQ_SNDMORE : 0) >= 0);
  if (p)
    assert_true(zmq_send(z, p, len, extra ? ZMQ_SNDMORE : 0) >= 0);
  if (extra)
    assert_true(zmq_send(z, "x", 1, 0) >= 0);
}

/* A raw DEALER connected to addr, with routing id `rid` (NULL: ZeroMQ's). */
static void *raw_dealer(void *zctx, const char *addr, const void *rid, size_t rid_len) {
  void *z = zmq_socket(zctx, ZMQ_DEALER);
  assert_non_null(z);
  int zero = 0;
  assert_int_equal(zmq_setsockopt(z, ZMQ_LINGER, &zero, sizeof zero), 0);
  if (rid)
    assert_int_equal(zmq_setsockopt(z, ZMQ_ROUTING_ID, rid, rid_len), 0);
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

/* A listener whose context accepts payloads up to 4 KiB. */
static struct net_sock *small_listener(struct fixture *f, struct net_ctx **ctx, char *bound, size_t len) {
  struct net_opts o = {.max_payload = 4096, .local_dir = f->dir};
  assert_int_equal(net_ctx_create(f->addr, &o, ctx), 0);
  struct net_sock *l = NULL;
  assert_int_equal(net_listen(*ctx, f->addr, &l), 0);
  assert_int_equal(net_bound_addr(l, bound, len), 0);
  return l;
}

static void garbage_dropped(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_ctx *ctx = NULL;
  struct net_sock *l = small_listener(f, &ctx, bound, sizeof bound);
  void *zctx = zmq_ctx_new();
  void *raw = raw_dealer(zctx, bound, "D\x05\0\0\0", 5);
  static double big[1024]; /* 8 KiB: within ZeroMQ's limit (4 KiB + slack), over ours */
  double two[2] = {1, 2};
  int sent_bad = 0;

  struct wire_hdr h = values_hdr(WIRE_PUSH, 5, 0, 2);
  h.magic ^= 1; /* bad magic */
  raw_send(raw, &h, two, sizeof two, 0), sent_bad++;
  h = values_hdr(WIRE_PUSH, 5, 0, 2);
  h.version = 2; /* the previous version */
  raw_send(raw, &h, two, sizeof two, 0), sent_bad++;
  h = values_hdr(WIRE_PUSH, 5, 0, 2);
  h.flags = 1u << 8; /* unknown flag */
  raw_send(raw, &h, two, sizeof two, 0), sent_bad++;
  h = values_hdr(WIRE_PUSH, 5, 0, 2);
  raw_send(raw, &h, two, 8, 0), sent_bad++; /* payload frame shorter than the header says */
  h = values_hdr(WIRE_PUSH, 5, 0, 2);
  h.payload_bytes = 12; /* not whole words */
  raw_send(raw, &h, two, 12, 0), sent_bad++;
  h = values_hdr(WIRE_PUSH, 5, 0, 2);
  raw_send(raw, &h, NULL, 0, 0), sent_bad++; /* missing payload frame */
  h = wire_hdr_make(WIRE_HEARTBEAT, 5);
  raw_send(raw, &h, two, sizeof two, 0), sent_bad++; /* payload frame, none announced */
  h = wire_hdr_make(WIRE_HEARTBEAT, 5);
  raw_send(raw, &h, NULL, 0, 1), sent_bad++; /* extra frame, no payload allowed */
  h = values_hdr(WIRE_PUSH, 5, 0, 2);
  raw_send(raw, &h, two, sizeof two, 1), sent_bad++; /* extra frame after payload */
  h = values_hdr(WIRE_PUSH, 5, 0, 1024);
  raw_send(raw, &h, big, sizeof big, 0), sent_bad++;          /* over the context's max_payload */
  assert_true(zmq_send(raw, "short", 5, 0) == 5), sent_bad++; /* truncated header */
  uint8_t v2[48] = {'D', 'S', 'N', 'A', 2, 0, 13, 0};         /* a whole version-2 HEARTBEAT */
  assert_true(zmq_send(raw, v2, sizeof v2, 0) == 48), sent_bad++;

  h = values_hdr(WIRE_PUSH, 5, 40, 2);
  raw_send(raw, &h, two, sizeof two, 0); /* finally a valid one */

  struct net_msg m;
  assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.key_lo, 40);
  assert_int_equal(m.hdr.sender, 5);
  uint32_t who;
  assert_int_equal(net_peer_id(&m.from, &who), 0);
  assert_int_equal(who, 5);
  assert_true(((const double *)m.payload)[0] == 1 && ((const double *)m.payload)[1] == 2);
  net_msg_fini(&m);
  struct net_stats st;
  net_get_stats(l, &st);
  assert_int_equal(st.dropped, sent_bad);
  assert_int_equal(st.msgs_in, 1);
  assert_int_equal(st.bytes_in, WIRE_HDR_BYTES + 16);

  /* A frame beyond ZMQ_MAXMSGSIZE is refused by ZeroMQ (it drops that
   * connection); it must never be handed out, and others still get in. */
  void *huge_peer = raw_dealer(zctx, bound, NULL, 0);
  void *mon = monitor(zctx, huge_peer);
  size_t huge_len = 4096 + 4096 + 1024;
  uint8_t *huge = calloc(1, huge_len);
  h = values_hdr(WIRE_PUSH, 6, 0, huge_len / 8);
  raw_send(huge_peer, &h, huge, huge_len, 0);
  wait_event(mon, ZMQ_EVENT_DISCONNECTED); /* the listener hung up on it */
  struct net_sock *d = NULL;
  assert_int_equal(net_dial(ctx, bound, 3, &d), 0);
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
  net_ctx_destroy(ctx);
}

/* Peers that are not dsana dialers: a routing id over net_peer's 31 bytes
 * (dropped, whatever it sends), and ZeroMQ's own ids (taken, but
 * net_peer_id says they name no dialer, and replies still reach them). */
static void foreign_identities(void **state) {
  struct fixture *f = *state;
  char bound[256];
  struct net_sock *l = listen_on(f, f->addr, bound, sizeof bound);
  void *zctx = zmq_ctx_new();
  char long_id[40];
  memset(long_id, 'D', sizeof long_id);
  void *longer = raw_dealer(zctx, bound, long_id, 32);
  void *anon = raw_dealer(zctx, bound, NULL, 0);
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 1);
  raw_send(longer, &h, NULL, 0, 0);
  double one = 1.0;
  struct wire_hdr p = values_hdr(WIRE_PUSH, 1, 0, 1);
  raw_send(longer, &p, &one, sizeof one, 0);
  struct net_msg m;
  /* the anonymous peer's message comes after the long id's two have been
   * drained: ZeroMQ queues per peer, so wait for it, then check the count */
  h.sender = 2;
  raw_send(anon, &h, NULL, 0, 0);
  assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.sender, 2);
  uint32_t who = 77;
  assert_true(m.from.len > 0);
  assert_int_equal(net_peer_id(&m.from, &who), DSANA_EINVAL);
  assert_int_equal(who, 77);
  struct wire_hdr stop = wire_hdr_make(WIRE_STOP, 0);
  assert_int_equal(net_send(l, &m.from, &stop, NULL, 0), 0);
  net_msg_fini(&m);
  uint8_t b[WIRE_HDR_BYTES + 1];
  assert_int_equal(zmq_recv(anon, b, sizeof b, 0), WIRE_HDR_BYTES);
  struct wire_hdr back;
  assert_int_equal(wire_decode(b, WIRE_HDR_BYTES, WIRE_DEFAULT_MAX_PAYLOAD, &back, NULL), 0);
  assert_int_equal(back.type, WIRE_STOP);
  /* the long id's messages are dropped as they are read (ZeroMQ queues
   * per peer: some may still be waiting); nothing else is returned */
  struct net_stats st;
  for (net_get_stats(l, &st); st.dropped < 2; net_get_stats(l, &st)) {
    bool ready = false;
    assert_int_equal(net_poll(&l, 1, NULL, 0, WAIT_MS, 0, &ready, NULL), 1);
    assert_int_equal(net_recv(l, &m, 0), DSANA_EAGAIN);
  }
  assert_int_equal(st.dropped, 2);
  assert_int_equal(st.msgs_in, 1);
  zmq_close(longer);
  zmq_close(anon);
  zmq_ctx_term(zctx);
  net_close(l);
}

static void dialer_drops_garbage_from_listener(void **state) {
  struct fixture *f = *state;
  void *zctx = zmq_ctx_new();
  void *router = zmq_socket(zctx, ZMQ_ROUTER);
  int zero = 0;
  zmq_setsockopt(router, ZMQ_LINGER, &zero, sizeof zero);
  const char *at = strcmp(f->scheme, "tcp") == 0 ? "tcp://127.0.0.1:*" : f->addr;
  assert_int_equal(zmq_bind(router, at), 0);
  char bound[256];
  size_t blen = sizeof bound;
  assert_int_equal(zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, bound, &blen), 0);
  struct net_sock *d = dial(f, bound, 11);
  struct wire_hdr h = wire_hdr_make(WIRE_REGISTER, 11);
  assert_int_equal(net_send(d, NULL, &h, NULL, 0), 0);
  uint8_t id[32], b[WIRE_HDR_BYTES];
  int idlen = zmq_recv(router, id, sizeof id, 0);
  assert_int_equal(idlen, 5);
  assert_memory_equal(id, "D\x0b\0\0\0", 5); /* 'D' + self_id, little-endian */
  assert_int_equal(zmq_recv(router, b, sizeof b, 0), WIRE_HDR_BYTES);

  int sent_bad = 0;
  struct wire_hdr bad = wire_hdr_make(WIRE_STOP, 0);
  bad.payload_bytes = 3; /* no payload allowed */
  wire_encode(&bad, b);
  zmq_send(router, id, (size_t)idlen, ZMQ_SNDMORE);
  zmq_send(router, b, sizeof b, ZMQ_SNDMORE);
  zmq_send(router, "abc", 3, 0), sent_bad++;
  zmq_send(router, id, (size_t)idlen, ZMQ_SNDMORE);
  zmq_send(router, "garbage", 7, 0), sent_bad++;
  struct wire_hdr pr = values_hdr(WIRE_PULL_REPLY, 0, 0, 2);
  wire_encode(&pr, b);
  zmq_send(router, id, (size_t)idlen, ZMQ_SNDMORE);
  zmq_send(router, b, sizeof b, ZMQ_SNDMORE);
  zmq_send(router, "0123456789abcdef", 16, ZMQ_SNDMORE);
  zmq_send(router, "x", 1, 0), sent_bad++; /* an extra frame */
  struct wire_hdr stop = wire_hdr_make(WIRE_STOP, 0);
  wire_encode(&stop, b);
  zmq_send(router, id, (size_t)idlen, ZMQ_SNDMORE);
  zmq_send(router, b, sizeof b, 0);

  struct net_msg m;
  assert_int_equal(net_recv(d, &m, WAIT_MS), 0);
  assert_int_equal(m.hdr.type, WIRE_STOP);
  assert_int_equal(m.from.len, 0); /* a dialer's messages come from its listener */
  net_msg_fini(&m);
  struct net_stats st;
  net_get_stats(d, &st);
  assert_int_equal(st.dropped, sent_bad);
  assert_int_equal(st.msgs_in, 1);
  net_close(d);
  zmq_close(router);
  zmq_ctx_term(zctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      PER_ZMQ(garbage_dropped),
      PER_ZMQ(foreign_identities),
      PER_ZMQ(dialer_drops_garbage_from_listener),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
