/*
 * net_test_fixture.h - what the transport tests (test_net_transport*.c)
 * share: a cmocka fixture per scheme (tcp, ipc in a mkdtemp folder that is
 * emptied afterwards, inproc with a fresh name), socket helpers and
 * payloads of doubles that tell their position. Header-only: each test is
 * one executable.
 */
#ifndef DSANA_TESTS_NET_TEST_FIXTURE_H
#define DSANA_TESTS_NET_TEST_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsana/dsana.h"
#include "net/transport/transport.h"
#include "util/text/log.h"

/* A safety net against a hung test, never synchronization: every message
 * waited for has been sent already. */
#define WAIT_MS 20000

struct fixture {
  const char *scheme;
  struct net_ctx *ctx;
  char dir[64];   /* ipc: endpoints and shared buffers */
  char addr[256]; /* a listen address of the scheme */
};

static inline int fixture_setup(void **state, const char *scheme) {
  static unsigned seq;
  struct fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  log_set_level(LOG_ERROR); /* drops and refusals log warnings by design */
  f->scheme = scheme;
  snprintf(f->dir, sizeof f->dir, "/tmp/dsana_net_XXXXXX");
  if (!mkdtemp(f->dir))
    return -1;
  if (strcmp(scheme, "ipc") == 0)
    snprintf(f->addr, sizeof f->addr, "ipc://%s/l.sock", f->dir);
  else if (strcmp(scheme, "tcp") == 0)
    snprintf(f->addr, sizeof f->addr, "tcp://127.0.0.1:*");
  else
    snprintf(f->addr, sizeof f->addr, "inproc://test-%d-%u", (int)getpid(), seq++);
  struct net_opts o = {.local_dir = f->dir};
  if (net_ctx_create(f->addr, &o, &f->ctx) != 0)
    return -1;
  *state = f;
  return 0;
}

static inline int setup_tcp(void **state) { return fixture_setup(state, "tcp"); }
static inline int setup_ipc(void **state) { return fixture_setup(state, "ipc"); }
static inline int setup_inproc(void **state) { return fixture_setup(state, "inproc"); }

static inline int teardown(void **state) {
  struct fixture *f = *state;
  net_ctx_destroy(f->ctx);
  DIR *d = opendir(f->dir);
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", f->dir, e->d_name);
    if (e->d_name[0] != '.')
      unlink(path);
  }
  if (d)
    closedir(d);
  rmdir(f->dir);
  free(f);
  return 0;
}

/* A test run once per scheme, named test/scheme. */
#define PER_SCHEME(fn)                                                                        \
  {#fn "/tcp", fn, setup_tcp, teardown, NULL}, {#fn "/ipc", fn, setup_ipc, teardown, NULL}, { \
#fn "/inproc", fn, setup_inproc, teardown, NULL                                           \
  }

static inline struct net_sock *listen_on(struct fixture *f, const char *addr, char *bound, size_t len) {
  struct net_sock *l = NULL;
  assert_int_equal(net_listen(f->ctx, addr, &l), 0);
  assert_int_equal(net_bound_addr(l, bound, len), 0);
  return l;
}

static inline struct net_sock *dial(struct fixture *f, const char *addr, uint32_t id) {
  struct net_sock *d = NULL;
  assert_int_equal(net_dial(f->ctx, addr, id, &d), 0);
  return d;
}

/* A header for values of keys [lo, lo+n) with a payload of n doubles. */
static inline struct wire_hdr values_hdr(enum wire_type t, uint32_t sender, uint64_t lo, uint64_t n) {
  struct wire_hdr h = wire_hdr_make(t, sender);
  h.table = 1;
  h.iter = 3;
  h.task = 11;
  h.chunk = 9;
  h.key_lo = lo;
  h.key_hi = lo + n;
  h.count = (uint32_t)n;
  h.payload_bytes = 8 * n;
  return h;
}

static inline void fill(double *v, uint64_t n, double base) {
  for (uint64_t i = 0; i < n; i++)
    v[i] = base + (double)i * 0.5;
}

static inline void check_payload(const struct net_msg *m, uint64_t n, double base) {
  assert_int_equal(m->hdr.payload_bytes, 8 * n);
  assert_non_null(m->payload);
  assert_int_equal((uintptr_t)m->payload % 8, 0);
  const double *v = m->payload;
  for (uint64_t i = 0; i < n; i++)
    assert_true(v[i] == base + (double)i * 0.5);
}

#endif
