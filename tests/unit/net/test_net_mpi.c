/*
 * test_net_mpi.c - the mpi:// transport (net_mpi.c) between three real
 * ranks: addresses, replies routed to the right one of two dialers of a
 * process, per-link order, 8-aligned payloads, invalid messages dropped
 * and counted (short, bad header, over the limit), sends that do not wait
 * for a receiver, refusals, polling, and a close that does not hang on a
 * send nobody receives.
 *
 * CTest runs it as a plain program: it then starts itself again under
 * `mpirun -n 3` (leak detection off there: Open MPI's own allocations).
 * It exits 77 (skipped, for CTest), saying why, when this build has no MPI,
 * mpirun is not installed, or valgrind runs it (valgrind would follow
 * mpirun into Open MPI). The ranks keep in step with MPI_Barrier between tests.
 */
#include <errno.h>
#include <limits.h>
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
#include "net/transport/transport.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

/* The exit status CTest counts as skipped (SKIP_RETURN_CODE, tests/CMakeLists.txt). */
#define SKIPPED 77

#ifdef DSANA_HAVE_MPI
#include <mpi.h>

/* A safety net against a hung test, never synchronization. */
#define WAIT_MS 20000
#define MAX_PAYLOAD (1u << 20)
#define TAG_LISTENER 0x4453 /* net_mpi.c's listener tag: raw messages for the drop test */
#define N_MSGS 20

static struct net_ctx *ctx;
static int rank, size;

static void barrier(void) { assert_int_equal(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS); }

static struct wire_hdr values_hdr(enum wire_type t, uint32_t task, uint64_t n) {
  struct wire_hdr h = wire_hdr_make(t, 1);
  h.task = task;
  h.key_hi = n;
  h.count = (uint32_t)n;
  h.payload_bytes = 8 * n;
  return h;
}

static double *values(uint64_t n, double base) {
  double *v = malloc(8 * (n ? n : 1));
  assert_non_null(v);
  for (uint64_t i = 0; i < n; i++)
    v[i] = base + (double)i;
  return v;
}

static void check_values(const struct net_msg *m, uint64_t n, double base) {
  assert_int_equal(m->hdr.payload_bytes, 8 * n);
  assert_non_null(m->payload);
  assert_int_equal((uintptr_t)m->payload % 8, 0);
  const double *v = m->payload;
  for (uint64_t i = 0; i < n; i++)
    assert_true(v[i] == base + (double)i);
}

static void send_values(struct net_sock *s, const struct net_peer *to, enum wire_type t, uint32_t task, uint64_t n,
                        double base) {
  struct wire_hdr h = values_hdr(t, task, n);
  double *v = values(n, base);
  assert_int_equal(net_send_owned(s, to, &h, v, 8 * n), 0);
}

/* Sizes from a few doubles to a rendezvous-sized 320 KB. */
static uint64_t n_of(uint32_t seq) { return seq == 10 ? 40000 : 1 + seq % 7; }

static int group_setup(void **state) {
  (void)state;
  log_set_level(LOG_ERROR); /* drops log warnings by design */
  struct net_opts o = {.max_payload = MAX_PAYLOAD};
  if (net_ctx_create("mpi://0", &o, &ctx) != 0)
    return -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size == 3 ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  net_ctx_destroy(ctx); /* finalises MPI, cancelling what was never received */
  return 0;
}

static void addresses(void **state) {
  (void)state;
  struct net_sock *s = NULL, *t = NULL;
  char self[32], other[32], bound[32];
  snprintf(self, sizeof self, "mpi://%d", rank);
  snprintf(other, sizeof other, "mpi://%d", (rank + 1) % size);
  assert_int_equal(net_listen(ctx, other, &s), DSANA_EINVAL);
  const char *bad[] = {"mpi://3", "mpi://-1", "mpi://1x", "mpi://", "tcp://127.0.0.1:1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(net_dial(ctx, bad[i], 1, &s), DSANA_EINVAL);
  assert_null(s);
  assert_int_equal(net_listen(ctx, NULL, &s), 0);
  assert_int_equal(net_bound_addr(s, bound, sizeof bound), 0);
  assert_string_equal(bound, self);
  assert_int_equal(net_bound_addr(s, bound, 4), DSANA_ERANGE);
  assert_int_equal(net_listen(ctx, self, &t), DSANA_ENET); /* one listener per rank */
  net_close(s);
  assert_int_equal(net_listen(ctx, self, &s), 0);
  net_close(s);
  assert_int_equal(net_dial(ctx, "mpi://0", 7, &s), 0);
  assert_int_equal(net_dial(ctx, "mpi://0", 7, &t), DSANA_EINVAL); /* same rank, same identity */
  assert_int_equal(net_dial(ctx, "mpi://0", 8, &t), 0);
  net_close(s);
  net_close(t);
  barrier();
}

/* Rank 0: a listener and a dialer to itself; ranks 1 and 2: two dialers
 * each to rank 0. Every message is answered; replies reach the dialer that
 * sent, in order, although both of a process's dialers share rank 0. */
static const uint32_t peer_ids[] = {0x900, 0x102, 0x103, 0x104, 0x105};
#define N_PEERS (sizeof peer_ids / sizeof peer_ids[0])

static void serve_all(struct net_sock *l) {
  uint32_t next[N_PEERS] = {0};
  for (size_t got = 0; got < N_PEERS * N_MSGS; got++) {
    struct net_msg m;
    uint32_t id;
    assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
    assert_int_equal(net_peer_id(&m.from, &id), 0);
    size_t p = 0;
    while (p < N_PEERS && peer_ids[p] != id)
      p++;
    assert_true(p < N_PEERS);
    uint32_t seq = m.hdr.task;
    assert_int_equal(seq, next[p]++); /* FIFO per link */
    check_values(&m, n_of(seq), id * 1000.0 + seq);
    send_values(l, &m.from, WIRE_PULL_REPLY, seq, n_of(seq), id * 2000.0 + seq);
    net_msg_fini(&m);
  }
}

static void expect_replies(struct net_sock *d, uint32_t id) {
  for (uint32_t seq = 0; seq < N_MSGS; seq++) {
    struct net_msg m;
    assert_int_equal(net_recv(d, &m, WAIT_MS), 0);
    assert_int_equal(m.hdr.type, WIRE_PULL_REPLY);
    assert_int_equal(m.hdr.task, seq);
    check_values(&m, n_of(seq), id * 2000.0 + seq);
    net_msg_fini(&m);
  }
}

static void routing(void **state) {
  (void)state;
  struct net_sock *l = NULL, *a = NULL, *b = NULL;
  uint32_t ida = rank == 0 ? 0x900 : 0x100 + 2 * (uint32_t)rank, idb = ida + 1;
  if (rank == 0)
    assert_int_equal(net_listen(ctx, NULL, &l), 0);
  assert_int_equal(net_dial(ctx, "mpi://0", ida, &a), 0);
  if (rank != 0)
    assert_int_equal(net_dial(ctx, "mpi://0", idb, &b), 0);
  for (uint32_t seq = 0; seq < N_MSGS; seq++) {
    send_values(a, NULL, WIRE_PUSH, seq, n_of(seq), ida * 1000.0 + seq);
    if (b)
      send_values(b, NULL, WIRE_PUSH, seq, n_of(seq), idb * 1000.0 + seq);
  }
  if (rank == 0)
    serve_all(l);
  if (b)
    expect_replies(b, idb); /* a's replies are received on the way */
  expect_replies(a, ida);
  struct net_stats st;
  net_get_stats(a, &st);
  assert_int_equal(st.msgs_in, N_MSGS);
  assert_int_equal(st.dropped, 0);
  net_close(a);
  net_close(b);
  net_close(l);
  barrier();
}

/* Rank 1 sends rank 0's listener a short message, a bad header and a
 * message over the limit, then a good one: only the good one arrives. */
static void drops(void **state) {
  (void)state;
  if (rank == 1) {
    struct net_sock *d = NULL;
    unsigned char raw[68] = {0};
    assert_int_equal(net_dial(ctx, "mpi://0", 0x55, &d), 0);
    assert_int_equal(MPI_Send(raw, 10, MPI_BYTE, 0, TAG_LISTENER, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(MPI_Send(raw, 68, MPI_BYTE, 0, TAG_LISTENER, MPI_COMM_WORLD), MPI_SUCCESS);
    send_values(d, NULL, WIRE_PUSH, 1, 2 * MAX_PAYLOAD / 8, 0); /* the receiver's limit, not ours */
    send_values(d, NULL, WIRE_PUSH, 77, 3, 5);
    net_close(d);
  } else if (rank == 0) {
    struct net_sock *l = NULL;
    struct net_msg m;
    struct net_stats st;
    assert_int_equal(net_listen(ctx, NULL, &l), 0);
    assert_int_equal(net_recv(l, &m, WAIT_MS), 0);
    assert_int_equal(m.hdr.task, 77);
    check_values(&m, 3, 5);
    net_msg_fini(&m);
    net_get_stats(l, &st);
    assert_int_equal(st.dropped, 3);
    assert_int_equal(st.msgs_in, 1);
    assert_int_equal(net_recv(l, &m, 0), DSANA_EAGAIN);
    net_close(l);
  }
  barrier();
}

/* Rank 2 sends 4 MB that rank 0 receives only after both passed a
 * barrier: net_send must not wait for the receiver. */
static void sends_do_not_wait(void **state) {
  (void)state;
  enum { K = 8, N = 65536 };
  struct net_sock *s = NULL;
  if (rank == 2) {
    assert_int_equal(net_dial(ctx, "mpi://0", 0x77, &s), 0);
    for (uint32_t i = 0; i < K; i++) {
      struct wire_hdr h = values_hdr(WIRE_PUSH, i, N);
      double *v = values(N, i * 1e6);
      assert_int_equal(net_send(s, NULL, &h, v, 8 * N), 0); /* a copy: v is free to go */
      free(v);
    }
  }
  barrier();
  if (rank == 0) {
    assert_int_equal(net_listen(ctx, NULL, &s), 0);
    for (uint32_t i = 0; i < K; i++) {
      struct net_msg m;
      assert_int_equal(net_recv(s, &m, WAIT_MS), 0);
      assert_int_equal(m.hdr.task, i);
      check_values(&m, N, i * 1e6);
      net_msg_fini(&m);
    }
  }
  net_close(s);
  barrier();
}

static void refusals_and_polling(void **state) {
  (void)state;
  struct net_sock *l = NULL, *d = NULL;
  assert_int_equal(net_listen(ctx, NULL, &l), 0);
  assert_int_equal(net_dial(ctx, "mpi://0", 0x99, &d), 0);
  /* a listener cannot answer a peer it never heard from */
  struct net_peer stranger = {.len = 5, .id = {'D', 1, 2, 3, 4}};
  struct wire_hdr h = values_hdr(WIRE_PUSH, 0, 1);
  double one = 1;
  assert_int_equal(net_send(l, &stranger, &h, &one, 8), DSANA_ENET);
  /* over INT_MAX bytes: refused before the payload is read */
  struct wire_hdr big = wire_hdr_make(WIRE_PUSH, 1);
  big.payload_bytes = (uint64_t)INT_MAX + 1;
  assert_int_equal(net_send(d, NULL, &big, &one, (size_t)big.payload_bytes), DSANA_ERANGE);
  assert_int_equal(net_send_owned(d, NULL, &big, malloc(8), (size_t)big.payload_bytes), DSANA_ERANGE);
  /* polling: a timeout, a deadline, a descriptor */
  int fds[2];
  bool ready[1], fd_ready[1];
  assert_int_equal(pipe(fds), 0);
  struct net_sock *socks[1] = {l};
  assert_int_equal(net_poll(socks, 1, &fds[0], 1, 5, 0, ready, fd_ready), 0);
  assert_int_equal(net_poll(socks, 1, &fds[0], 1, -1, clock_now_ns() + 3000000, ready, fd_ready), 0);
  assert_int_equal(write(fds[1], "x", 1), 1);
  assert_int_equal(net_poll(socks, 1, &fds[0], 1, WAIT_MS, 0, ready, fd_ready), 1);
  assert_true(fd_ready[0]);
  assert_false(ready[0]);
  close(fds[0]);
  close(fds[1]);
  net_close(d);
  net_close(l);
  barrier();
}

/* Rank 1 sends rank 2, which never receives, a message too large to go
 * eagerly; closing and finalising must not hang on it. */
static void close_with_a_send_pending(void **state) {
  (void)state;
  if (rank == 1) {
    struct net_sock *d = NULL;
    assert_int_equal(net_dial(ctx, "mpi://2", 0x42, &d), 0);
    send_values(d, NULL, WIRE_PUSH, 0, 65536, 0);
    uint64_t t0 = clock_now_ns();
    net_close(d);
    assert_true(clock_now_ns() - t0 < 10000000000ull);
  }
  barrier();
}

static int run_ranks(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(addresses),
      cmocka_unit_test(routing),
      cmocka_unit_test(drops),
      cmocka_unit_test(sends_do_not_wait),
      cmocka_unit_test(refusals_and_polling),
      cmocka_unit_test(close_with_a_send_pending),
  };
  return cmocka_run_group_tests_name("net_mpi", tests, group_setup, group_teardown);
}

/* Start this program again as three ranks of mpirun. */
static int relaunch(void) {
  const char *preload = getenv("LD_PRELOAD");
  if (preload && strstr(preload, "vgpreload")) {
    printf("test_net_mpi: skipped under valgrind (it would follow mpirun into Open MPI)\n");
    return SKIPPED;
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return 1;
  self[n] = 0;
  /* Open MPI's allocations are not ours: no leak report in sanitizer builds */
  char asan[1024];
  const char *prev = getenv("ASAN_OPTIONS");
  snprintf(asan, sizeof asan, "%s%sdetect_leaks=0", prev ? prev : "", prev && prev[0] ? ":" : "");
  setenv("ASAN_OPTIONS", asan, 1);
  fflush(stdout);
  char *argv[] = {"mpirun", "--allow-run-as-root", "--oversubscribe", "-x", "ASAN_OPTIONS", "-n", "3", self, NULL};
  execvp("mpirun", argv);
  if (errno == ENOENT) {
    printf("test_net_mpi: skipped: mpirun not found (install openmpi-bin)\n");
    return SKIPPED;
  }
  perror("test_net_mpi: mpirun");
  return 1;
}

int main(void) {
  if (!getenv("OMPI_COMM_WORLD_RANK") && !getenv("PMI_RANK"))
    return relaunch();
  return run_ranks();
}

#else

int main(void) {
  printf("test_net_mpi: skipped: this build has no MPI transport\n");
  return SKIPPED;
}

#endif
