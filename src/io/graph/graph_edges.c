/*
 * graph_edges.c - graphs from edge arrays in memory, heap copies of a graph
 * (dedup of a mapped file, unweighted views), statistics, and release.
 * Everything here ends in graph_build (graph_build.c) or reads a finished
 * graph.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dsana/error.h"
#include "io/graph/graph_internal.h"

static int check_ids(uint64_t n, uint64_t m, const uint32_t *src, const uint32_t *dst, char *err, size_t errlen) {
  if (m && (!src || !dst))
    return io_errf(err, errlen, DSANA_EINVAL, "graph_from_edges: NULL edge arrays");
  for (uint64_t i = 0; i < m; i++) {
    if (src[i] >= n || dst[i] >= n)
      return io_errf(err, errlen, DSANA_ERANGE, "edge %llu: (%u, %u) has an id >= n = %llu", (unsigned long long)i,
                     src[i], dst[i], (unsigned long long)n);
  }
  return 0;
}

int dsana_graph_from_edges(uint64_t n, uint64_t m, const uint32_t *src, const uint32_t *dst,
                           const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  int rc = check_ids(n, m, src, dst, err, errlen);
  if (rc)
    return rc;
  struct graph_edges e = {.n = n,
                          .m = m,
                          .src = (uint32_t *)src,
                          .dst = (uint32_t *)dst,
                          .dedup = opts && opts->dedup,
                          .mirror = opts && opts->undirected};
  return graph_build(&e, g, err, errlen);
}

int dsana_graph_from_weighted_edges(uint64_t n, uint64_t m, const uint32_t *src, const uint32_t *dst, const double *w,
                                    const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                                    size_t errlen) {
  memset(g, 0, sizeof *g);
  int rc = check_ids(n, m, src, dst, err, errlen);
  if (rc)
    return rc;
  if (m && !w)
    return io_errf(err, errlen, DSANA_EINVAL, "graph_from_weighted_edges: NULL weights");
  for (uint64_t i = 0; i < m; i++)
    if (!graph_weight_ok(w[i]))
      return io_errf(err, errlen, DSANA_ERANGE, "edge %llu: weight %g is not a " GRAPH_WEIGHT_RANGE,
                     (unsigned long long)i, w[i]);
  static double no_edges[1]; /* w may be NULL without edges; the graph is weighted all the same */
  struct graph_edges e = {.n = n,
                          .m = m,
                          .src = (uint32_t *)src,
                          .dst = (uint32_t *)dst,
                          .w = w ? (double *)w : no_edges,
                          .dedup = opts && opts->dedup,
                          .mirror = opts && opts->undirected};
  return graph_build(&e, g, err, errlen);
}

static void *dup_array(const void *p, size_t bytes) {
  void *q = graph_big_alloc(bytes);
  if (q && bytes)
    memcpy(q, p, bytes);
  return q;
}

int graph_copy(const struct dsana_graph *in, bool dedup, bool weights, struct dsana_graph *out, char *err,
               size_t errlen) {
  uint64_t n = in->n, m = in->m;
  bool w = weights && in->in_w;
  uint64_t *off = dup_array(in->in_off, (n + 1) * sizeof *off);
  uint32_t *srcs = dup_array(in->in_src, m * sizeof *srcs);
  uint32_t *deg = dup_array(in->out_deg, n * sizeof *deg);
  uint64_t *orig = in->orig_id ? dup_array(in->orig_id, n * sizeof *orig) : NULL;
  double *in_w = w ? dup_array(in->in_w, m * sizeof *in_w) : NULL, *out_w = NULL;
  memset(out, 0, sizeof *out);
  int rc = 0;
  if (!off || !srcs || !deg || (in->orig_id && !orig) || (w && !in_w)) {
    rc = io_errf(err, errlen, DSANA_ENOMEM, "out of memory copying a graph of %llu edges", (unsigned long long)m);
    goto fail;
  }
  if (dedup)
    graph_dedup_in_place(n, off, srcs, in_w, deg, &m);
  if (w && (rc = graph_sum_out_w(NULL, n, off, srcs, in_w, orig, &out_w, err, errlen)) != 0)
    goto fail;
  out->n = n;
  out->m = m;
  out->in_off = out->priv_heap[GRAPH_HEAP_IN_OFF] = off;
  out->in_src = out->priv_heap[GRAPH_HEAP_IN_SRC] = srcs;
  out->out_deg = out->priv_heap[GRAPH_HEAP_OUT_DEG] = deg;
  out->orig_id = out->priv_heap[GRAPH_HEAP_ORIG_ID] = orig;
  out->in_w = out->priv_heap[GRAPH_HEAP_IN_W] = in_w;
  out->out_w = out->priv_heap[GRAPH_HEAP_OUT_W] = out_w;
  return 0;
fail:
  free(off);
  free(srcs);
  free(deg);
  free(orig);
  free(in_w);
  return rc;
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
  for (int i = 0; i < GRAPH_HEAP_SLOTS; i++)
    free(g->priv_heap[i]);
  if (g->priv_map)
    io_unmap_shared(g->priv_map, g->priv_map_len);
  memset(g, 0, sizeof *g);
}
