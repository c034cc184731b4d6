/*
 * test_net_outbox.c - the link-emulating send queue (src/net/link/outbox.c).
 *
 * A dialer sends through the outbox to a listener in the same thread over
 * ipc://. Timing is checked without sleeping: net_outbox_pump() is driven
 * with explicit now_ns values and the expected departure times (next_ns)
 * are computed from the model in outbox.h:
 *   a message queued at t is ready at t + L; it starts when ready and the
 *   link is free, and occupies the link for (WIRE_HDR_BYTES + len) / B
 *   seconds (a 64-byte header).
 * The queue time t is only known to lie between clock readings taken just
 * before and after net_outbox_send(), so the first departure is checked
 * within that window and every later one exactly.
 *
 * Receive timeouts are safety nets against a hung test, never
 * synchronization: every message waited for has been sent already.
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
#include "net/link/outbox.h"
#include "net/transport/transport.h"
#include "util/thread/clock.h"

#define WAIT_MS 20000

struct fixture {
  struct net_ctx *ctx;
  struct net_sock *l, *d;
  char dir[64];
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  snprintf(f->dir, sizeof f->dir, "/tmp/dsana_outbox_XXXXXX");
  char addr[128];
  if (!mkdtemp(f->dir))
    return -1;
  snprintf(addr, sizeof addr, "ipc://%s/l.sock", f->dir);
  if (net_ctx_create(addr, NULL, &f->ctx) != 0)
    return -1;
  if (net_listen(f->ctx, addr, &f->l) != 0 || net_dial(f->ctx, addr, 3, &f->d) != 0)
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  net_close(f->d);
  net_close(f->l);
  net_ctx_destroy(f->ctx);
  char path[128];
  snprintf(path, sizeof path, "%s/l.sock", f->dir);
  unlink(path);
  rmdir(f->dir);
  free(f);
  return 0;
}

/* Payload of n doubles; message `id` is carried in hdr.chunk. */
static struct wire_hdr msg_hdr(uint32_t id, uint64_t n_doubles) {
  struct wire_hdr h = wire_hdr_make(WIRE_PUSH, 3);
  h.chunk = id;
  h.key_lo = 0;
  h.key_hi = n_doubles;
  h.payload_bytes = 8 * n_doubles;
  return h;
}

static int send_id(struct net_outbox *o, struct fixture *f, uint32_t id, uint64_t n_doubles, uint64_t prio) {
  double v[256];
  assert_true(n_doubles <= 256);
  for (uint64_t i = 0; i < n_doubles; i++)
    v[i] = id * 1000.0 + (double)i;
  struct wire_hdr h = msg_hdr(id, n_doubles);
  int rc = net_outbox_send(o, f->d, NULL, &h, v, 8 * n_doubles, prio);
  /* the outbox copies: scribbling over the buffer must not change what leaves */
  memset(v, 0xff, sizeof v);
  return rc;
}

/* Receive one message (it must already have been sent) and return its id. */
static uint32_t recv_id(struct fixture *f) {
  struct net_msg m;
  assert_int_equal(net_recv(f->l, &m, WAIT_MS), 0);
  uint32_t id = m.hdr.chunk;
  uint64_t n = m.hdr.key_hi - m.hdr.key_lo;
  const double *v = m.payload;
  for (uint64_t i = 0; i < n; i++)
    assert_true(v[i] == id * 1000.0 + (double)i);
  net_msg_fini(&m);
  return id;
}

static void expect_nothing(struct fixture *f) {
  struct net_msg m;
  assert_int_equal(net_recv(f->l, &m, 50), DSANA_EAGAIN);
}

/* Link time of one message as outbox.c computes it. */
static uint64_t dur_ns(uint64_t payload_bytes, double bw) {
  return (uint64_t)((double)(WIRE_HDR_BYTES + payload_bytes) / bw * 1e9);
}

static void test_no_emulation_sends_at_once(void **state) {
  struct fixture *f = *state;
  struct net_outbox *o = NULL;
  assert_int_equal(net_outbox_create(0, 0, &o), 0);
  assert_int_equal(net_outbox_emulating(o), 0);
  for (uint32_t i = 0; i < 5; i++)
    assert_int_equal(send_id(o, f, i, 4, 100 - i), 0); /* priority is irrelevant here */
  assert_int_equal(net_outbox_pending(o), 0);
  assert_int_equal(net_outbox_due_ns(o), 0);
  uint64_t next = 123;
  assert_int_equal(net_outbox_pump(o, 0, &next), 0);
  assert_int_equal(next, 0);
  for (uint32_t i = 0; i < 5; i++)
    assert_int_equal(recv_id(f), i); /* in send order, already sent */
  expect_nothing(f);
  net_outbox_destroy(o);

  /* a NULL outbox is "no emulation" too */
  assert_int_equal(net_outbox_emulating(NULL), 0);
  assert_int_equal(send_id(NULL, f, 9, 1, 0), 0);
  assert_int_equal(recv_id(f), 9);
}

static void test_invalid_create(void **state) {
  (void)state;
  struct net_outbox *o = NULL;
  assert_int_equal(net_outbox_create(-1, 0, &o), DSANA_EINVAL);
  assert_int_equal(net_outbox_create(0, -1, &o), DSANA_EINVAL);
  assert_int_equal(net_outbox_create(0.0 / 0.0, 0, &o), DSANA_EINVAL);
}

/* N messages of S bytes at B: departures serialized at (64 + S) / B each.
 * The pumps are driven with explicit times, so a message's link time costs
 * no wall time: it is a second, far longer than queueing the N messages
 * takes even under valgrind on a loaded machine (at 1 ms it did not always
 * hold, and the ready time of a late-queued message set its departure). */
static void test_bandwidth_serialized(void **state) {
  struct fixture *f = *state;
  const double bw = 1e3;          /* bytes per second */
  const uint64_t n_doubles = 117; /* 936 + 64 = 1000 bytes = 1 s at 1 kB/s */
  const uint64_t d = dur_ns(8 * n_doubles, bw);
  assert_int_equal(d, 1000000000);
  enum { N = 6 };
  struct net_outbox *o = NULL;
  assert_int_equal(net_outbox_create(bw, 0, &o), 0);
  assert_int_equal(net_outbox_emulating(o), 1);
  uint64_t t0 = clock_now_ns();
  for (uint32_t i = 0; i < N; i++)
    assert_int_equal(send_id(o, f, i, n_doubles, 0), 0);
  uint64_t t1 = clock_now_ns();
  assert_int_equal(net_outbox_pending(o), N);

  /* nothing may leave before the first message has crossed the link */
  uint64_t next = 0;
  assert_int_equal(net_outbox_pump(o, t1, &next), 0);
  assert_int_equal(net_outbox_pending(o), N);
  assert_true(next >= t0 + d);
  assert_true(next <= t1 + d);
  expect_nothing(f);

  uint64_t last_due = 0;
  for (uint32_t i = 0; i < N; i++) {
    uint64_t due = next, again = 0;
    last_due = due;
    /* one nanosecond early: still waiting, same due time */
    assert_int_equal(net_outbox_pump(o, due - 1, &again), 0);
    assert_int_equal(again, due);
    assert_int_equal(net_outbox_pending(o), N - i);
    /* on time: exactly one leaves; the next is due one link time later
     * (the link is busy until `due`, and every message was ready long ago) */
    assert_int_equal(net_outbox_pump(o, due, &next), 0);
    assert_int_equal(net_outbox_pending(o), N - 1 - i);
    assert_int_equal(recv_id(f), i);
    if (i + 1 < N)
      assert_int_equal(next, due + d);
    else
      assert_int_equal(next, 0);
  }
  expect_nothing(f);
  assert_int_equal(net_outbox_due_ns(o), 0);

  /* the link stays busy until the last departure we drove it to: a message
   * queued now starts no sooner than that, even if the wall clock is behind
   * (the choice of what starts then is made then: something better may
   * still come), and crosses a link time later */
  assert_int_equal(send_id(o, f, 77, n_doubles, 0), 0);
  assert_int_equal(net_outbox_pump(o, 0, &next), 0);
  assert_true(next >= last_due);
  assert_int_equal(net_outbox_pump(o, next, &next), 0);
  assert_true(next >= last_due + d);
  assert_int_equal(net_outbox_pump(o, UINT64_MAX, &next), 0);
  assert_int_equal(next, 0);
  assert_int_equal(recv_id(f), 77);
  net_outbox_destroy(o);
}

/* Pumping late sends everything whose schedule has passed, in one call. */
static void test_pump_late_sends_all_due(void **state) {
  struct fixture *f = *state;
  const double bw = 1e5; /* 10 ms per message: queueing five takes far less */
  const uint64_t d = dur_ns(8 * 119, bw);
  struct net_outbox *o = NULL;
  assert_int_equal(net_outbox_create(bw, 0, &o), 0);
  uint64_t t0 = clock_now_ns();
  for (uint32_t i = 0; i < 5; i++)
    assert_int_equal(send_id(o, f, i, 119, 0), 0);
  uint64_t t1 = clock_now_ns();
  uint64_t next = 0;
  /* by t1 + 3d at least three have left (each ready by t1), at most three
   * (the fourth ends at >= t0 + 4d > t1 + 3d when t1 - t0 < d) */
  assert_true(t1 - t0 < d);
  assert_int_equal(net_outbox_pump(o, t1 + 3 * d, &next), 0);
  assert_int_equal(net_outbox_pending(o), 2);
  assert_true(next >= t0 + 4 * d && next <= t1 + 4 * d);
  for (uint32_t i = 0; i < 3; i++)
    assert_int_equal(recv_id(f), i);
  assert_int_equal(net_outbox_pump(o, next + d, &next), 0);
  assert_int_equal(net_outbox_pending(o), 0);
  assert_int_equal(next, 0);
  assert_int_equal(recv_id(f), 3);
  assert_int_equal(recv_id(f), 4);
  net_outbox_destroy(o);
}

/* Latency is pipelined: two messages queued together are both ready at
 * t + L, not t + 2L. */
static void test_latency_pipelined(void **state) {
  struct fixture *f = *state;
  const uint64_t L = 50 * 1000000ull; /* 50 ms */
  struct net_outbox *o = NULL;
  assert_int_equal(net_outbox_create(0, 0.05, &o), 0);
  assert_int_equal(net_outbox_emulating(o), 1);
  uint64_t t0 = clock_now_ns();
  assert_int_equal(send_id(o, f, 1, 8, 0), 0);
  assert_int_equal(send_id(o, f, 2, 8, 0), 0);
  uint64_t t1 = clock_now_ns();

  uint64_t next = 0;
  assert_int_equal(net_outbox_pump(o, t1, &next), 0);
  assert_int_equal(net_outbox_pending(o), 2);
  assert_true(next >= t0 + L && next <= t1 + L);
  assert_int_equal(net_outbox_pump(o, t0 + L - 1, &next), 0);
  assert_int_equal(net_outbox_pending(o), 2);
  expect_nothing(f);

  /* at t1 + L both have left (a serial model would hold the second until t + 2L) */
  assert_int_equal(net_outbox_pump(o, t1 + L, &next), 0);
  assert_int_equal(net_outbox_pending(o), 0);
  assert_int_equal(next, 0);
  assert_int_equal(recv_id(f), 1);
  assert_int_equal(recv_id(f), 2);

  /* latency and bandwidth together: ready at t + L, then serialized */
  const double bw = 1e6;
  const uint64_t d = dur_ns(8 * 119, bw);
  struct net_outbox *o2 = NULL;
  assert_int_equal(net_outbox_create(bw, 0.05, &o2), 0);
  t0 = clock_now_ns();
  assert_int_equal(send_id(o2, f, 3, 119, 0), 0);
  assert_int_equal(send_id(o2, f, 4, 119, 0), 0);
  t1 = clock_now_ns();
  assert_int_equal(net_outbox_pump(o2, t1, &next), 0);
  assert_true(next >= t0 + L + d && next <= t1 + L + d);
  uint64_t first = next;
  assert_int_equal(net_outbox_pump(o2, first, &next), 0);
  assert_int_equal(net_outbox_pending(o2), 1);
  assert_int_equal(next, first + d); /* not first + L + d */
  assert_int_equal(net_outbox_pump(o2, next, &next), 0);
  assert_int_equal(net_outbox_pending(o2), 0);
  assert_int_equal(recv_id(f), 3);
  assert_int_equal(recv_id(f), 4);
  net_outbox_destroy(o2);
  net_outbox_destroy(o);
}

/* A lower priority value queued later leaves first; equal priorities keep
 * their order. The first one queued finds the link idle and leaves first
 * whatever its priority: the link does not wait for a better one. */
static void test_priority_order(void **state) {
  struct fixture *f = *state;
  /* 95 ms a message: queueing all of them (real time) must end before the
   * first leaves the wire, even under valgrind on a busy machine (at 1
   * Mbit/s, 0.95 ms, it once did not) */
  const double bw = 1e4;
  const uint64_t d = dur_ns(8 * 119, bw);
  struct net_outbox *o = NULL;
  assert_int_equal(net_outbox_create(bw, 0, &o), 0);
  const uint64_t prio[] = {5, 5, 9, 1, 5, 0, 1};
  const uint32_t expect[] = {0, 5, 3, 6, 1, 4, 2}; /* ids in order of departure */
  enum { N = sizeof prio / sizeof prio[0] };
  for (uint32_t i = 0; i < N; i++)
    assert_int_equal(send_id(o, f, i, 119, prio[i]), 0);
  uint64_t next = 0;
  assert_int_equal(net_outbox_pump(o, clock_now_ns(), &next), 0);
  for (uint32_t i = 0; i < N; i++) {
    uint64_t due = next;
    assert_int_equal(net_outbox_pump(o, due, &next), 0);
    assert_int_equal(net_outbox_pending(o), N - 1 - i);
    assert_int_equal(recv_id(f), expect[i]);
    if (i + 1 < N)
      assert_int_equal(next, due + d);
  }

  /* one queued late with a better priority overtakes what is still waiting
   * (11, while 10 is on an idle link's wire) */
  struct net_outbox *o3 = NULL;
  assert_int_equal(net_outbox_create(bw, 0, &o3), 0);
  assert_int_equal(send_id(o3, f, 10, 119, 3), 0);
  assert_int_equal(send_id(o3, f, 11, 119, 3), 0);
  assert_int_equal(net_outbox_pump(o3, clock_now_ns(), &next), 0);
  assert_int_equal(net_outbox_pending(o3), 2);     /* 10 on the link until next */
  assert_int_equal(send_id(o3, f, 12, 119, 2), 0); /* queued after 11, leaves before it */
  assert_int_equal(net_outbox_pump(o3, UINT64_MAX, &next), 0);
  assert_int_equal(recv_id(f), 10);
  assert_int_equal(recv_id(f), 12);
  assert_int_equal(recv_id(f), 11);
  net_outbox_destroy(o3);
  net_outbox_destroy(o);
}

/* A better message still in its latency holds up none that is ready: the
 * link, free once A has crossed, carries B (ready, worse priority) rather
 * than idle until C (better, queued late) is ready. */
static void test_latency_does_not_block_ready(void **state) {
  struct fixture *f = *state;
  const double bw = 1e5; /* 10 ms a message */
  const uint64_t d = dur_ns(8 * 119, bw), L = 1000000000ull;
  struct net_outbox *o = NULL;
  assert_int_equal(net_outbox_create(bw, 1.0, &o), 0);
  assert_int_equal(send_id(o, f, 1, 119, 5), 0); /* A */
  assert_int_equal(send_id(o, f, 2, 119, 9), 0); /* B */
  uint64_t t1 = clock_now_ns(), next = 0;
  assert_int_equal(net_outbox_pump(o, t1, &next), 0); /* A takes the link at its ready time */
  assert_true(next <= t1 + L + d);
  while (clock_now_ns() < t1 + 2 * d) /* let time pass: C is queued after A has left */
    ;
  assert_int_equal(send_id(o, f, 3, 119, 0), 0); /* C: ready only after A has crossed */
  assert_int_equal(net_outbox_pump(o, UINT64_MAX, &next), 0);
  assert_int_equal(recv_id(f), 1);
  assert_int_equal(recv_id(f), 2);
  assert_int_equal(recv_id(f), 3);
  net_outbox_destroy(o);
}

/* flush sends everything at once, whatever the link says. */
static void test_flush_sends_all(void **state) {
  struct fixture *f = *state;
  struct net_outbox *o = NULL;
  assert_int_equal(net_outbox_create(1000, 10.0, &o), 0); /* 1 kB/s, 10 s */
  for (uint32_t i = 0; i < 20; i++)
    assert_int_equal(send_id(o, f, i, 100, i % 3), 0);
  assert_int_equal(net_outbox_pending(o), 20);
  uint64_t next = 0;
  assert_int_equal(net_outbox_pump(o, clock_now_ns(), &next), 0);
  uint64_t due = net_outbox_due_ns(o);
  assert_true(due > clock_now_ns());
  assert_int_equal(next, due); /* the time a pump is due is the next delivery */
  assert_int_equal(net_outbox_pending(o), 20);
  expect_nothing(f);
  assert_int_equal(net_outbox_flush(o), 0);
  assert_int_equal(net_outbox_pending(o), 0);
  int seen[20] = {0};
  for (uint32_t i = 0; i < 20; i++) {
    uint32_t id = recv_id(f);
    assert_true(id < 20);
    assert_int_equal(seen[id], 0);
    seen[id] = 1;
  }
  expect_nothing(f);
  assert_int_equal(net_outbox_due_ns(o), 0);
  /* destroy with messages pending frees them (checked under ASan/valgrind) */
  assert_int_equal(send_id(o, f, 99, 100, 0), 0);
  net_outbox_destroy(o);
  expect_nothing(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_no_emulation_sends_at_once, setup, teardown),
      cmocka_unit_test(test_invalid_create),
      cmocka_unit_test_setup_teardown(test_bandwidth_serialized, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pump_late_sends_all_due, setup, teardown),
      cmocka_unit_test_setup_teardown(test_latency_pipelined, setup, teardown),
      cmocka_unit_test_setup_teardown(test_priority_order, setup, teardown),
      cmocka_unit_test_setup_teardown(test_latency_does_not_block_ready, setup, teardown),
      cmocka_unit_test_setup_teardown(test_flush_sends_all, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
