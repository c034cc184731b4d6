/*
 * graph_build.c - the CSC builder every graph source ends in.
 *
 * Edges arrive as two id arrays (and optionally weights) in input order.
 * Two counting sorts make the CSC in O(n + m): first by source (giving, per
 * source, its destinations in input order), then a scatter by destination
 * while walking sources in ascending order, which leaves the sources of
 * every destination sorted and multi-edges adjacent in input order (so
 * dedup can keep the last weight read). Weights ride along in both passes.
 * Each pass runs on up to two threads; thread t owns a range of vertices
 * and scans all edges, so the result is the same whatever the thread count.
 * Undirected input is mirrored first (graph_mirror), interleaved so that
 * input order is kept; out_w is summed last, in CSC order.
 */
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/graph/graph_internal.h"

/* Shared state of the build passes. */
struct build {
  uint64_t n, m;
  const uint32_t *src, *dst;
  const double *w;
  uint32_t *out_cnt, *in_cnt;
  uint64_t *out_off, *in_off, *cur;
  uint32_t *out_dst, *in_src;
  double *out_wt, *in_w; /* weights bucketed by source, then by destination */
  uint64_t bound[9];     /* vertex range boundaries of the current pass */
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

/* Pass 2: bucket destinations (and weights) by source, input order within a source. */
static void out_pass(void *arg, unsigned t, unsigned nthreads) {
  struct build *b = arg;
  uint32_t lo = (uint32_t)b->bound[t], span = (uint32_t)(b->bound[t + 1] - b->bound[t]);
  uint64_t *cur = b->cur;
  for (uint64_t i = 0; i < b->m; i++) {
    uint32_t s = b->src[i];
    if (s - lo < span) {
      uint64_t k = cur[s]++;
      b->out_dst[k] = b->dst[i];
      if (b->w)
        b->out_wt[k] = b->w[i];
    }
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
      if (d - lo < span) {
        uint64_t j = cur[d]++;
        b->in_src[j] = (uint32_t)u;
        if (b->out_wt)
          b->in_w[j] = b->out_wt[k];
      }
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

void graph_dedup_in_place(uint64_t n, uint64_t *in_off, uint32_t *in_src, double *in_w, uint32_t *out_deg,
                          uint64_t *m) {
  uint64_t w = 0;
  memset(out_deg, 0, n * sizeof *out_deg);
  for (uint64_t v = 0; v < n; v++) {
    uint64_t k = in_off[v], e = in_off[v + 1], start = w;
    in_off[v] = w;
    for (; k < e; k++) {
      if (w > start && in_src[w - 1] == in_src[k]) {
        if (in_w)
          in_w[w - 1] = in_w[k]; /* networkx DiGraph: the last weight read wins */
        continue;
      }
      if (in_w)
        in_w[w] = in_w[k];
      in_src[w++] = in_src[k];
      out_deg[in_src[k]]++;
    }
  }
  in_off[n] = w;
  *m = w;
}

/* Free the input arrays e owns (all of them after a failure). */
static void release_inputs(struct graph_edges *e) {
  if (e->owned) {
    free(e->src);
    free(e->dst);
    free(e->w);
  }
  e->src = e->dst = NULL;
  e->w = NULL;
}

static void build_free(struct build *b) {
  free(b->in_cnt);
  free(b->out_off);
  free(b->cur);
  free(b->out_dst);
  free(b->out_wt);
  free(b->in_off);
  free(b->in_src);
  free(b->in_w);
  free(b->out_cnt);
}

static const char *prefix_of(const struct graph_edges *e, char *buf, size_t len) {
  if (!e->path)
    return "";
  io_errf(buf, len, 0, "%s: ", e->path);
  return buf;
}

/* The two counting sorts: b gets in_off, in_src, in_w (if weighted) and
 * out_cnt (the out-degrees). Consumes e's input arrays. */
static int build_csc(struct graph_edges *e, struct build *b, char *err, size_t errlen) {
  uint64_t n = e->n, m = e->m;
  unsigned nt = m < (1u << 16) ? 1 : graph_threads();
  char where[300];
  *b = (struct build){.n = n, .m = m, .src = e->src, .dst = e->dst, .w = e->w};
  b->out_cnt = graph_big_calloc(n * sizeof *b->out_cnt);
  b->in_cnt = graph_big_calloc(n * sizeof *b->in_cnt);
  b->out_off = graph_big_alloc((n + 1) * sizeof *b->out_off);
  b->in_off = graph_big_alloc((n + 1) * sizeof *b->in_off);
  b->cur = graph_big_alloc(n * sizeof *b->cur);
  b->out_dst = graph_big_alloc(m * sizeof *b->out_dst);
  b->out_wt = e->w ? graph_big_alloc(m * sizeof *b->out_wt) : NULL;
  if (!b->out_cnt || !b->in_cnt || !b->out_off || !b->in_off || !b->cur || !b->out_dst || (e->w && !b->out_wt))
    goto oom;
  graph_parallel(count_pass, b, nt);
  if (!prefix(b->out_cnt, n, m, b->out_off) || !prefix(b->in_cnt, n, m, b->in_off)) {
    release_inputs(e);
    return io_errf(err, errlen, DSANA_ERANGE, "%sa vertex has 2^32 or more edges", prefix_of(e, where, sizeof where));
  }
  memcpy(b->cur, b->out_off, n * sizeof *b->cur);
  balance(b->out_off, n, nt, b->bound);
  graph_parallel(out_pass, b, nt);
  if (e->owned) {
    /* src and w are dead now and have the sizes of in_src and in_w: reuse
     * them, which saves the kernel zeroing fresh pages. */
    b->in_src = e->src;
    b->in_w = e->w;
    free(e->dst);
    e->src = e->dst = NULL;
    e->w = NULL;
  } else {
    b->in_src = graph_big_alloc(m * sizeof *b->in_src);
    b->in_w = b->out_wt ? graph_big_alloc(m * sizeof *b->in_w) : NULL;
    e->src = e->dst = NULL;
    e->w = NULL;
  }
  b->src = b->dst = NULL;
  b->w = NULL;
  if (!b->in_src || (b->out_wt && !b->in_w))
    goto oom;
  memcpy(b->cur, b->in_off, n * sizeof *b->cur);
  balance(b->in_off, n, nt, b->bound);
  graph_parallel(in_pass, b, nt);
  return 0;
oom:
  release_inputs(e);
  return io_errf(err, errlen, DSANA_ENOMEM, "%sout of memory building a graph of %llu vertices, %llu edges",
                 prefix_of(e, where, sizeof where), (unsigned long long)n, (unsigned long long)m);
}

/* Interleave the mirror arcs into e (see mirror): new arrays, owned. */
static int graph_mirror(struct graph_edges *e, char *err, size_t errlen) {
  uint64_t m2 = 0;
  for (uint64_t i = 0; i < e->m; i++)
    m2 += 1 + (e->src[i] != e->dst[i]);
  uint32_t *s = graph_big_alloc(m2 * sizeof *s), *d = graph_big_alloc(m2 * sizeof *d);
  double *w = e->w ? graph_big_alloc(m2 * sizeof *w) : NULL;
  if (!s || !d || (e->w && !w)) {
    free(s);
    free(d);
    free(w);
    release_inputs(e);
    return io_errf(err, errlen, DSANA_ENOMEM, "%s%sout of memory mirroring %llu edges", e->path ? e->path : "",
                   e->path ? ": " : "", (unsigned long long)e->m);
  }
  for (uint64_t i = 0, k = 0; i < e->m; i++) {
    s[k] = e->src[i];
    d[k] = e->dst[i];
    if (w)
      w[k] = e->w[i];
    k++;
    if (e->src[i] == e->dst[i])
      continue;
    s[k] = e->dst[i];
    d[k] = e->src[i];
    if (w)
      w[k] = e->w[i];
    k++;
  }
  release_inputs(e);
  e->src = s;
  e->dst = d;
  e->w = w;
  e->m = m2;
  e->owned = true;
  e->mirror = false;
  return 0;
}

/* Shrink an array after dedup (keep the old block if realloc fails). */
static void *shrink(void *p, uint64_t count, size_t size) {
  void *q = realloc(p, (count ? count : 1) * size);
  return q ? q : p;
}

int graph_build(struct graph_edges *e, struct dsana_graph *g, char *err, size_t errlen) {
  struct build b = {0};
  double *out_w = NULL;
  int rc = 0;
  memset(g, 0, sizeof *g);
  if (e->n > GRAPH_MAX_VERTICES) {
    rc = io_errf(err, errlen, DSANA_ERANGE, "%s%s%llu vertices: more than %llu supported", e->path ? e->path : "",
                 e->path ? ": " : "", (unsigned long long)e->n, (unsigned long long)GRAPH_MAX_VERTICES);
    goto out;
  }
  if (e->mirror && (rc = graph_mirror(e, err, errlen)) != 0)
    goto out;
  if ((rc = build_csc(e, &b, err, errlen)) != 0)
    goto out;
  uint64_t m = e->m;
  if (e->dedup) {
    graph_dedup_in_place(e->n, b.in_off, b.in_src, b.in_w, b.out_cnt, &m);
    b.in_src = shrink(b.in_src, m, sizeof *b.in_src);
    if (b.in_w)
      b.in_w = shrink(b.in_w, m, sizeof *b.in_w);
  }
  if (b.in_w && (rc = graph_sum_out_w(e->path, e->n, b.in_off, b.in_src, b.in_w, e->orig_id, &out_w, err, errlen)) != 0)
    goto out;
  g->n = e->n;
  g->m = m;
  g->in_off = g->priv_heap[GRAPH_HEAP_IN_OFF] = b.in_off;
  g->in_src = g->priv_heap[GRAPH_HEAP_IN_SRC] = b.in_src;
  g->out_deg = g->priv_heap[GRAPH_HEAP_OUT_DEG] = b.out_cnt;
  g->orig_id = g->priv_heap[GRAPH_HEAP_ORIG_ID] = e->orig_id;
  g->in_w = g->priv_heap[GRAPH_HEAP_IN_W] = b.in_w;
  g->out_w = g->priv_heap[GRAPH_HEAP_OUT_W] = out_w;
  b.in_off = NULL;
  b.in_src = NULL;
  b.in_w = NULL;
  b.out_cnt = NULL;
  e->orig_id = NULL;
out:
  build_free(&b);
  release_inputs(e);
  free(e->orig_id);
  e->orig_id = NULL;
  return rc;
}
