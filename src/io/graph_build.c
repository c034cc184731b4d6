/*
 * graph_build.c - the CSC builder every graph source ends in.
 *
 * Edges arrive as two id arrays in any order. Two counting sorts make the
 * CSC in O(n + m): first by source (giving, per source, its destinations in
 * input order), then a scatter by destination while walking sources in
 * ascending order, which leaves the sources of every destination sorted and
 * multi-edges adjacent. Each pass runs on up to two threads; thread t owns a
 * range of vertices and scans all edges, so the result is the same whatever
 * the thread count. Also: dedup, stats, graph_from_edges, graph_fini.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dsana/dsana.h"
#include "io/graph_internal.h"

int graph_errf(char *err, size_t errlen, int code, const char *fmt, ...) {
  if (err && errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
  }
  return code;
}

void graph_token(const char *p, char *out, size_t outlen) {
  size_t i = 0;
  if (!outlen)
    return;
  while (i + 1 < outlen && *p != '\n' && *p != ' ' && *p != '\t' && *p != '\r') {
    unsigned char c = (unsigned char)*p++;
    out[i++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  out[i] = '\0';
}

void *graph_big_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (p && bytes >= (8u << 20)) {
    /* Only the 2 MiB-aligned interior: madvise wants page alignment. */
    uintptr_t a = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)((2u << 20) - 1);
    if (e > a)
      madvise((void *)a, e - a, MADV_HUGEPAGE);
  }
  return p;
}

void *graph_big_calloc(size_t bytes) {
  void *p = graph_big_alloc(bytes);
  if (p)
    memset(p, 0, bytes);
  return p;
}

unsigned graph_threads(void) {
  /* DSANA_IO_THREADS overrides (tests use it to show results do not depend on it). */
  const char *e = getenv("DSANA_IO_THREADS");
  long t = e ? strtol(e, NULL, 10) : 2;
  return t < 1 ? 1u : t > 8 ? 8u : (unsigned)t;
}

struct par_job {
  void (*fn)(void *, unsigned, unsigned);
  void *arg;
  unsigned t, nthreads;
};

static void *par_main(void *p) {
  struct par_job *j = p;
  j->fn(j->arg, j->t, j->nthreads);
  return NULL;
}

void graph_parallel(void (*fn)(void *arg, unsigned t, unsigned nthreads), void *arg, unsigned nthreads) {
  enum { MAXT = 8 };
  pthread_t tid[MAXT];
  struct par_job jobs[MAXT];
  bool started[MAXT] = {false};
  if (nthreads > MAXT)
    nthreads = MAXT;
  for (unsigned t = 1; t < nthreads; t++) {
    jobs[t] = (struct par_job){fn, arg, t, nthreads};
    started[t] = pthread_create(&tid[t], NULL, par_main, &jobs[t]) == 0;
  }
  fn(arg, 0, nthreads);
  for (unsigned t = 1; t < nthreads; t++) {
    if (started[t])
      pthread_join(tid[t], NULL);
    else
      fn(arg, t, nthreads);
  }
}

/* Shared state of the build passes. */
struct build {
  uint64_t n, m;
  const uint32_t *src, *dst;
  uint32_t *out_cnt, *in_cnt;
  uint64_t *out_off, *in_off, *cur;
  uint32_t *out_dst, *in_src;
  uint64_t bound[9]; /* vertex range boundaries of the current pass */
};

/* Pass 1: thread t counts the vertices in [t*n/T, (t+1)*n/T). */
static void count_pass(void *arg, unsigned t, unsigned nt) {
  struct build *b = arg;
  uint32_t lo = (uint32_t)(b->n * t / nt), hi = (uint32_t)(b->n * (t + 1) / nt);
  uint32_t span = hi - lo;
  for (uint64_t i = 0; i < b->m; i++) {
    uint32_t s = b->src[i] - lo, d = b->dst[i] - lo;
    if (s < span)
      b->out_cnt[s + lo]++;
    if (d < span)
      b->in_cnt[d + lo]++;
  }
}

/* Pass 2: bucket destinations by source, input order within a source. */
static void out_pass(void *arg, unsigned t, unsigned nthreads) {
  struct build *b = arg;
  uint32_t lo = (uint32_t)b->bound[t], span = (uint32_t)(b->bound[t + 1] - b->bound[t]);
  uint64_t *cur = b->cur;
  for (uint64_t i = 0; i < b->m; i++) {
    uint32_t s = b->src[i];
    if (s - lo < span)
      b->out_dst[cur[s]++] = b->dst[i];
  }
}

/* Pass 3: walk sources ascending, scatter each into its destination. */
static void in_pass(void *arg, unsigned t, unsigned nthreads) {
  struct build *b = arg;
  uint32_t lo = (uint32_t)b->bound[t], span = (uint32_t)(b->bound[t + 1] - b->bound[t]);
  uint64_t *cur = b->cur;
  for (uint64_t u = 0; u < b->n; u++) {
    for (uint64_t k = b->out_off[u], e = b->out_off[u + 1]; k < e; k++) {
      uint32_t d = b->out_dst[k];
      if (d - lo < span)
        b->in_src[cur[d]++] = (uint32_t)u;
    }
  }
}

/* Exclusive prefix sum of cnt into off (n+1); false if a count wrapped. */
static bool prefix(const uint32_t *cnt, uint64_t n, uint64_t m, uint64_t *off) {
  uint64_t s = 0;
  for (uint64_t v = 0; v < n; v++) {
    off[v] = s;
    s += cnt[v];
  }
  off[n] = s;
  return s == m;
}

/* Split [0, n) into nt ranges of about equal edge counts by off. */
static void balance(const uint64_t *off, uint64_t n, unsigned nt, uint64_t *bound) {
  uint64_t m = off[n], v = 0;
  bound[0] = 0;
  for (unsigned t = 1; t < nt; t++) {
    uint64_t want = m / nt * t;
    while (v < n && off[v] < want)
      v++;
    bound[t] = v;
  }
  bound[nt] = n;
}

/* Collapse adjacent equal sources in place; recount out-degrees. */
static void dedup_in_place(uint64_t n, uint64_t *in_off, uint32_t *in_src, uint32_t *out_deg, uint64_t *m) {
  uint64_t w = 0;
  memset(out_deg, 0, n * sizeof *out_deg);
  for (uint64_t v = 0; v < n; v++) {
    uint64_t k = in_off[v], e = in_off[v + 1], start = w;
    in_off[v] = w;
    for (; k < e; k++) {
      if (w > start && in_src[w - 1] == in_src[k])
        continue;
      in_src[w++] = in_src[k];
      out_deg[in_src[k]]++;
    }
  }
  in_off[n] = w;
  *m = w;
}

static void build_free(struct build *b) {
  free(b->in_cnt);
  free(b->out_off);
  free(b->cur);
  free(b->out_dst);
}

int graph_build(uint64_t n, uint64_t m, uint32_t *src, uint32_t *dst, bool owned, uint64_t *orig_id,
                bool dedup, struct dsana_graph *g, char *err, size_t errlen) {
  struct build b = {.n = n, .m = m, .src = src, .dst = dst};
  unsigned nt = graph_threads();
  int rc = 0;
  memset(g, 0, sizeof *g);
  if (n > GRAPH_MAX_VERTICES) {
    rc = graph_errf(err, errlen, DSANA_ERANGE, "%llu vertices: more than %llu supported",
                    (unsigned long long)n, (unsigned long long)GRAPH_MAX_VERTICES);
    goto out;
  }
  if (m < (1u << 16))
    nt = 1;
  b.out_cnt = graph_big_calloc(n * sizeof *b.out_cnt);
  b.in_cnt = graph_big_calloc(n * sizeof *b.in_cnt);
  b.out_off = graph_big_alloc((n + 1) * sizeof *b.out_off);
  b.in_off = graph_big_alloc((n + 1) * sizeof *b.in_off);
  b.cur = graph_big_alloc(n * sizeof *b.cur);
  b.out_dst = graph_big_alloc(m * sizeof *b.out_dst);
  if (!b.out_cnt || !b.in_cnt || !b.out_off || !b.in_off || !b.cur || !b.out_dst)
    goto oom;

  graph_parallel(count_pass, &b, nt);
  if (!prefix(b.out_cnt, n, m, b.out_off) || !prefix(b.in_cnt, n, m, b.in_off)) {
    rc = graph_errf(err, errlen, DSANA_ERANGE, "a vertex has 2^32 or more edges");
    goto out;
  }
  memcpy(b.cur, b.out_off, n * sizeof *b.cur);
  balance(b.out_off, n, nt, b.bound);
  graph_parallel(out_pass, &b, nt);
  if (owned) {
    /* src is dead now and has the size of in_src: reuse it, which saves
     * the kernel zeroing another 4m bytes of fresh pages. */
    b.in_src = src;
    free(dst);
    src = dst = NULL;
    b.src = b.dst = NULL;
  } else {
    b.in_src = graph_big_alloc(m * sizeof *b.in_src);
  }
  if (!b.in_src)
    goto oom;
  memcpy(b.cur, b.in_off, n * sizeof *b.cur);
  balance(b.in_off, n, nt, b.bound);
  graph_parallel(in_pass, &b, nt);
  if (dedup) {
    dedup_in_place(n, b.in_off, b.in_src, b.out_cnt, &m);
    uint32_t *shrunk = realloc(b.in_src, (m ? m : 1) * sizeof *b.in_src);
    if (shrunk)
      b.in_src = shrunk;
  }
  g->n = n;
  g->m = m;
  g->in_off = g->priv_heap[GRAPH_HEAP_IN_OFF] = b.in_off;
  g->in_src = g->priv_heap[GRAPH_HEAP_IN_SRC] = b.in_src;
  g->out_deg = g->priv_heap[GRAPH_HEAP_OUT_DEG] = b.out_cnt;
  g->orig_id = g->priv_heap[GRAPH_HEAP_ORIG_ID] = orig_id;
  b.in_off = NULL;
  b.in_src = NULL;
  b.out_cnt = NULL;
  orig_id = NULL;
  goto out;
oom:
  rc = graph_errf(err, errlen, DSANA_ENOMEM, "out of memory building a graph of %llu vertices, %llu edges",
                  (unsigned long long)n, (unsigned long long)m);
out:
  build_free(&b);
  free(b.in_off);
  free(b.in_src);
  free(b.out_cnt);
  free(orig_id);
  if (owned) {
    free(src);
    free(dst);
  }
  return rc;
}

int dsana_graph_from_edges(uint64_t n, uint64_t m, const uint32_t *src, const uint32_t *dst,
                     const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  if (m && (!src || !dst))
    return graph_errf(err, errlen, DSANA_EINVAL, "graph_from_edges: NULL edge arrays");
  for (uint64_t i = 0; i < m; i++) {
    if (src[i] >= n || dst[i] >= n)
      return graph_errf(err, errlen, DSANA_ERANGE, "edge %llu: (%u, %u) has an id >= n = %llu",
                        (unsigned long long)i, src[i], dst[i], (unsigned long long)n);
  }
  return graph_build(n, m, (uint32_t *)src, (uint32_t *)dst, false, NULL, opts && opts->dedup, g, err,
                     errlen);
}

int graph_dedup_copy(const struct dsana_graph *in, struct dsana_graph *out, char *err, size_t errlen) {
  uint64_t n = in->n, m = in->m;
  uint64_t *off = malloc((n + 1) * sizeof *off);
  uint32_t *srcs = malloc((m ? m : 1) * sizeof *srcs);
  uint32_t *deg = malloc((n ? n : 1) * sizeof *deg);
  uint64_t *orig = in->orig_id ? malloc((n ? n : 1) * sizeof *orig) : NULL;
  memset(out, 0, sizeof *out);
  if (!off || !srcs || !deg || (in->orig_id && !orig)) {
    free(off);
    free(srcs);
    free(deg);
    free(orig);
    return graph_errf(err, errlen, DSANA_ENOMEM, "out of memory copying a graph of %llu edges",
                      (unsigned long long)m);
  }
  memcpy(off, in->in_off, (n + 1) * sizeof *off);
  memcpy(srcs, in->in_src, m * sizeof *srcs);
  if (orig)
    memcpy(orig, in->orig_id, n * sizeof *orig);
  dedup_in_place(n, off, srcs, deg, &m);
  out->n = n;
  out->m = m;
  out->in_off = out->priv_heap[GRAPH_HEAP_IN_OFF] = off;
  out->in_src = out->priv_heap[GRAPH_HEAP_IN_SRC] = srcs;
  out->out_deg = out->priv_heap[GRAPH_HEAP_OUT_DEG] = deg;
  out->orig_id = out->priv_heap[GRAPH_HEAP_ORIG_ID] = orig;
  return 0;
}

void dsana_graph_stats(const struct dsana_graph *g, struct dsana_graph_stats *st) {
  memset(st, 0, sizeof *st);
  st->n = g->n;
  st->m = g->m;
  st->min_in = st->min_out = g->n ? UINT64_MAX : 0;
  for (uint64_t v = 0; v < g->n; v++) {
    uint64_t lo = g->in_off[v], hi = g->in_off[v + 1], in = hi - lo, out = g->out_deg[v];
    for (uint64_t k = lo; k < hi; k++) {
      if (g->in_src[k] == v)
        st->self_loops++;
      if (k > lo && g->in_src[k] == g->in_src[k - 1])
        st->duplicates++;
    }
    st->dangling += out == 0;
    st->isolated += out == 0 && in == 0;
    if (in > st->max_in)
      st->max_in = in;
    if (in < st->min_in)
      st->min_in = in;
    if (out > st->max_out)
      st->max_out = out;
    if (out < st->min_out)
      st->min_out = out;
  }
}

void dsana_graph_fini(struct dsana_graph *g) {
  if (!g)
    return;
  for (int i = 0; i < 4; i++)
    free(g->priv_heap[i]);
  if (g->priv_map)
    munmap(g->priv_map, g->priv_map_len);
  memset(g, 0, sizeof *g);
}
