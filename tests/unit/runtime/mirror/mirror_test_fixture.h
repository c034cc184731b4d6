/*
 * mirror_test_fixture.h - what the mirror tests (test_runtime_mirror*.c)
 * share: a job declared through the app API (job_init, dsana_job_*,
 * job_finalize) as a worker sees it, a mirror set up from it, the queue of
 * PULLs it emits, an rt_env whose shared buffers are test memory, and
 * hand-made PULL_REPLY pieces offered to mirror_take() as a server would
 * send them. Header-only: each test is one executable.
 *
 * Values tell where they belong: val(iter, key, j, tag), tags telling
 * duplicates apart.
 */
#ifndef DSANA_TESTS_MIRROR_TEST_FIXTURE_H
#define DSANA_TESTS_MIRROR_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "runtime/core/job.h"
#include "runtime/core/keymask.h"
#include "runtime/mirror/mirror.h"
#include "util/text/log.h"

#define MAX_SERVERS 4
#define SELF 5 /* the worker's index */

/* A table of the job: read by every task over [read_lo, read_hi) (both 0:
 * the whole table; read_hi < 0: not read at all). */
struct table_spec {
  uint64_t n_keys;
  uint32_t width;
  int64_t read_lo, read_hi;
};

struct spec {
  uint32_t n_servers;
  uint64_t chunk_keys;
  uint32_t n_tables;
  struct table_spec t[4];
  uint32_t sparse; /* bit t: table t read by key lists */
  bool share;
  const uint64_t *unread[4]; /* per table, or NULL */
};

struct fixture {
  struct dsana_job job;
  struct mirror m;
  struct rt_outq q;
  struct rt_env env;
  uint32_t n_servers;
  uint64_t chunk_keys[DSANA_MAX_TABLES];
  /* shared buffers: the servers' (test memory), what the mirror did */
  double *shm[MAX_SERVERS][4][2];
  double *region[4][2]; /* every server's buffer b of table t as slices of one (NULL: none) */
  int maps, releases, map_fails;
  int region_looks; /* buffer_map calls for a region's name */
  size_t released_bytes;
  char last_map[48];
};

static inline uint64_t fake_now(void *arg) {
  (void)arg;
  return 1;
}

static inline int fake_map(void *arg, const char *name, size_t bytes, const double **out) {
  struct fixture *f = arg;
  unsigned s, t, b;
  snprintf(f->last_map, sizeof f->last_map, "%s", name);
  if (sscanf(name, "t%u-b%u", &t, &b) == 2) {
    f->region_looks++;
    if (f->map_fails || t >= 4 || b > 1 || !f->region[t][b])
      return DSANA_EIO;
    assert_int_equal(bytes, f->job.tables[t].n_keys * f->job.tables[t].width * sizeof(double));
    f->maps++;
    *out = f->region[t][b];
    return 0;
  }
  if (f->map_fails || sscanf(name, "s%u-t%u-b%u", &s, &t, &b) != 3 || s >= MAX_SERVERS || t >= 4 || b > 1 ||
      !f->shm[s][t][b])
    return DSANA_EIO;
  uint64_t lo, hi;
  shard_range(f->job.tables[t].n_keys, f->n_servers, s, &lo, &hi);
  assert_int_equal(bytes, (hi - lo) * f->job.tables[t].width * sizeof(double));
  f->maps++;
  *out = f->shm[s][t][b];
  return 0;
}

static inline void fake_release(void *arg, const void *p, size_t bytes) {
  struct fixture *f = arg;
  (void)p;
  f->releases++;
  f->released_bytes += bytes;
}

static inline int fixture_make(void **state, const struct spec *sp) {
  struct fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  log_set_level(getenv("MIRROR_TEST_LOG") ? LOG_DEBUG : LOG_ERROR); /* the rejections below log warnings by design */
  f->n_servers = sp->n_servers;
  f->env = (struct rt_env){.arg = f, .now_ns = fake_now, .buffer_map = fake_map, .buffer_release = fake_release};
  job_init(&f->job, 2, sp->n_servers, 1, "worker");
  struct dsana_task_decl tasks[2] = {{0, 50, 1.0}, {50, 100, 1.0}};
  if (dsana_job_set_tasks(&f->job, tasks, 2) != 0)
    return -1;
  for (uint32_t t = 0; t < sp->n_tables; t++) {
    const struct table_spec *ts = &sp->t[t];
    uint32_t id;
    char name[16];
    snprintf(name, sizeof name, "t%u", t);
    if (dsana_job_add_table(&f->job, name, ts->n_keys, ts->width, DSANA_RULE_ASSIGN, &id) != 0 || id != t)
      return -1;
    if (ts->read_hi < 0)
      continue;
    uint64_t lo = (uint64_t)ts->read_lo, hi = ts->read_hi ? (uint64_t)ts->read_hi : ts->n_keys;
    uint64_t mid = lo + (hi - lo) / 2; /* two tasks, half of the range each */
    if (dsana_job_task_reads(&f->job, 0, t, lo, mid) != 0 || dsana_job_task_reads(&f->job, 1, t, mid, hi) != 0)
      return -1;
    if (sp->unread[t] && dsana_job_set_unread(&f->job, t, sp->unread[t]) != 0)
      return -1;
  }
  char err[256];
  if (dsana_job_set_result_table(&f->job, 0) != 0 || job_finalize(&f->job, err, sizeof err) != 0) {
    fprintf(stderr, "job: %s\n", err);
    return -1;
  }
  for (uint32_t s = 0; s < DSANA_MAX_TABLES; s++)
    f->chunk_keys[s] = sp->chunk_keys;
  if (mirror_init(&f->m, &f->job, f->chunk_keys, sp->sparse, sp->n_servers, SELF, &f->env, sp->share) != 0)
    return -1;
  *state = f;
  return 0;
}

static inline int teardown(void **state) {
  struct fixture *f = *state;
  mirror_fini(&f->m);
  rt_outq_fini(&f->q);
  job_fini(&f->job);
  for (int s = 0; s < MAX_SERVERS; s++)
    for (int t = 0; t < 4; t++)
      for (int b = 0; b < 2; b++)
        free(f->shm[s][t][b]);
  for (int t = 0; t < 4; t++)
    for (int b = 0; b < 2; b++)
      free(f->region[t][b]);
  free(f);
  return 0;
}

/* Value j of key k in a piece tagged `tag`. */
static inline double val(uint32_t iter, uint64_t k, uint32_t j, double tag) {
  return tag * 1e6 + iter * 1e3 + (double)k + j / 8.0;
}

static inline uint32_t width_of(struct fixture *f, uint32_t t) { return f->job.tables[t].width; }

/* Offer a PULL_REPLY with header h and payload v from server s (taken
 * or dropped: the tests look at the values and the chunks). */
static inline void offer(struct fixture *f, uint32_t s, const struct wire_hdr *h, const double *v) {
  struct net_msg msg;
  memset(&msg, 0, sizeof msg);
  msg.hdr = *h;
  msg.payload = h->payload_bytes ? v : NULL;
  mirror_take(&f->m, s, &msg);
}

static inline struct wire_hdr reply_hdr(uint32_t s, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi) {
  struct wire_hdr h = wire_hdr_make(WIRE_PULL_REPLY, s);
  h.table = t;
  h.iter = iter;
  h.key_lo = lo;
  h.key_hi = hi;
  return h;
}

/* Server s's plain piece [lo, hi) of t for iter, values tagged. */
static inline void piece(struct fixture *f, uint32_t s, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi,
                         double tag) {
  uint32_t w = t < f->job.n_tables ? width_of(f, t % DSANA_MAX_TABLES) : 1; /* 1 for tables that do not exist */
  double *v = malloc(((hi > lo ? hi - lo : 0) * w + 1) * sizeof *v);
  assert_non_null(v);
  for (uint64_t k = lo; k < hi; k++)
    for (uint32_t j = 0; j < w; j++)
      v[(k - lo) * w + j] = val(iter, k, j, tag);
  struct wire_hdr h = reply_hdr(s, t, iter, lo, hi);
  h.count = (uint32_t)(hi > lo ? hi - lo : 0);
  h.payload_bytes = (hi > lo ? hi - lo : 0) * w * sizeof(double);
  offer(f, s, &h, v);
  free(v);
}

static inline void give(struct fixture *f, uint32_t s, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi,
                        double tag) {
  piece(f, s, t, iter, lo, hi, tag);
}

static inline void check_values(struct fixture *f, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi, double tag) {
  const double *v = mirror_values(&f->m, t, iter);
  uint32_t w = width_of(f, t);
  assert_non_null(v);
  for (uint64_t k = lo; k < hi; k++)
    for (uint32_t j = 0; j < w; j++)
      assert_true(v[k * w + j] == val(iter, k, j, tag));
}

/* Keys [lo, hi) of t hold nothing received, in every buffer. */
static inline void check_untouched(struct fixture *f, uint32_t t, uint64_t lo, uint64_t hi) {
  uint32_t w = width_of(f, t);
  for (uint32_t iter = 1; iter <= (f->m.t[t].sparse ? 1u : 2u); iter++) {
    const double *v = mirror_values(&f->m, t, iter);
    assert_non_null(v);
    for (uint64_t k = lo; k < hi; k++)
      for (uint32_t j = 0; j < w; j++)
        assert_true(v[k * w + j] == 0.0);
  }
}

static inline uint64_t chunks_ready(struct fixture *f, uint32_t t, uint32_t iter) {
  uint64_t n = 0;
  for (uint64_t c = 0; c < f->m.t[t].n_chunks; c++)
    n += mirror_chunk_ready(&f->m, t, iter, c);
  return n;
}

/* The queue holds exactly one range PULL of t for iter per server whose
 * shard meets [lo, hi); emptied afterwards. */
static inline void expect_pulls(struct fixture *f, uint32_t t, uint32_t iter, uint64_t lo, uint64_t hi) {
  size_t n = 0;
  for (uint32_t s = 0; s < f->n_servers; s++) {
    uint64_t slo, shi;
    shard_range(f->job.tables[t].n_keys, f->n_servers, s, &slo, &shi);
    slo = slo > lo ? slo : lo;
    shi = shi < hi ? shi : hi;
    if (slo >= shi)
      continue;
    assert_true(n < f->q.n);
    const struct rt_out *o = &f->q.v[n++];
    assert_int_equal(o->role, ROLE_SERVER);
    assert_int_equal(o->index, s);
    assert_int_equal(o->peer.len, 0);
    assert_int_equal(o->hdr.type, WIRE_PULL);
    assert_int_equal(o->hdr.sender, SELF);
    assert_int_equal(o->hdr.table, t);
    assert_int_equal(o->hdr.iter, iter);
    assert_int_equal(o->hdr.key_lo, slo);
    assert_int_equal(o->hdr.key_hi, shi);
    assert_int_equal(o->hdr.flags, f->m.share ? WIRE_F_SHARE_OK : 0);
    assert_int_equal(o->hdr.payload_bytes, 0);
  }
  assert_int_equal(f->q.n, n);
  rt_outq_clear(&f->q);
}

/* The mirror asks for the whole table t for iter. */
static inline void request(struct fixture *f, uint32_t t, uint32_t iter) {
  assert_int_equal(mirror_request(&f->m, t, iter, &f->q), 0);
  expect_pulls(f, t, iter, f->m.t[t].cover_lo, f->m.t[t].cover_hi);
}

static inline void expect_no_pull(struct fixture *f) { assert_int_equal(f->q.n, 0); }

#endif
