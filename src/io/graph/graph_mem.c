/*
 * graph_mem.c - a graph over arrays the caller already holds in CSC by
 * destination (a scipy.sparse CSC matrix of u -> v entries, say): the
 * offsets, sources and weights are borrowed, not copied; only the
 * out-degrees and out-weights are computed, in the order every reader
 * computes them, so the same graph read from a file has the same bits.
 * Registered with dsana_graph_mem_register (mem_source.c), it is an app's
 * GRAPH like any file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "dsana/graph.h"
#include "io/graph/graph_internal.h"

/* Offsets monotone from 0 to m, sources below n and ascending within each
 * destination: what every consumer's fixed summing order relies on. */
static int check_csc(uint64_t n, uint64_t m, const uint64_t *in_off, const uint32_t *in_src, char *err, size_t errlen) {
  if (in_off[0] != 0 || in_off[n] != m)
    return io_errf(err, errlen, DSANA_EINVAL, "in-memory graph: offsets run from %llu to %llu, expected 0 to %llu",
                   (unsigned long long)in_off[0], (unsigned long long)in_off[n], (unsigned long long)m);
  for (uint64_t v = 0; v < n; v++) {
    if (in_off[v + 1] < in_off[v])
      return io_errf(err, errlen, DSANA_EINVAL, "in-memory graph: offsets of vertex %llu decrease",
                     (unsigned long long)v);
    for (uint64_t e = in_off[v]; e < in_off[v + 1]; e++)
      if (in_src[e] >= n || (e > in_off[v] && in_src[e] < in_src[e - 1]))
        return io_errf(err, errlen, DSANA_EINVAL, "in-memory graph: edge %llu: source %u %s", (unsigned long long)e,
                       in_src[e], in_src[e] >= n ? "is not a vertex" : "out of order");
  }
  return 0;
}

/* Out-degrees and (weighted) out-weights, summed by ascending destination
 * then in_src order, as graph_build does. */
static int count_out(struct dsana_graph *g, const double *in_w, char *err, size_t errlen) {
  uint32_t *deg = graph_big_calloc(g->n * sizeof *deg + 1);
  double *ow = in_w ? graph_big_calloc(g->n * sizeof *ow + 1) : NULL;
  g->priv_heap[0] = deg;
  g->priv_heap[1] = ow;
  if (!deg || (in_w && !ow))
    return io_errf(err, errlen, DSANA_ENOMEM, "in-memory graph: out of memory");
  for (uint64_t e = 0; e < g->m; e++) {
    if (in_w && !(in_w[e] > 0 && isfinite(in_w[e])))
      return io_errf(err, errlen, DSANA_ERANGE, "in-memory graph: edge %llu: weight %.17g (want > 0, finite)",
                     (unsigned long long)e, in_w[e]);
    if (deg[g->in_src[e]]++ == UINT32_MAX)
      return io_errf(err, errlen, DSANA_ERANGE, "in-memory graph: vertex %u: too many out-edges", g->in_src[e]);
  }
  for (uint64_t v = 0; in_w && v < g->n; v++)
    for (uint64_t e = g->in_off[v]; e < g->in_off[v + 1]; e++)
      ow[g->in_src[e]] += in_w[e];
  g->out_deg = deg;
  g->out_w = ow;
  g->in_w = in_w;
  return 0;
}

int dsana_graph_from_csc(uint64_t n, uint64_t m, const uint64_t *in_off, const uint32_t *in_src, const double *in_w,
                         struct dsana_graph *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  if (n == 0 || n > GRAPH_MAX_VERTICES || !in_off || (m && !in_src))
    return io_errf(err, errlen, DSANA_EINVAL, "in-memory graph: %llu vertices (want 1 to %llu)", (unsigned long long)n,
                   (unsigned long long)GRAPH_MAX_VERTICES);
  int rc = check_csc(n, m, in_off, in_src, err, errlen);
  if (rc)
    return rc;
  g->n = n;
  g->m = m;
  g->in_off = in_off;
  g->in_src = in_src;
  if ((rc = count_out(g, in_w, err, errlen)) != 0)
    dsana_graph_fini(g);
  return rc;
}
