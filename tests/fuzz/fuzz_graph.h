/*
 * fuzz_graph.h - what every accepted graph must satisfy, for the parser
 * fuzz targets: a consistent CSC (offsets, sources in range), out-degrees
 * adding up to the edge count, stats that agree, no duplicates after dedup;
 * weights (when asked for) positive and finite with out_w the sums in CSC
 * order; every arc mirrored for undirected input. Each target adds its own
 * check of the original ids. Also: the reader options a target takes from
 * the input's length, and a warning sink that checks the one-line contract.
 */
#ifndef DSANA_FUZZ_GRAPH_H
#define DSANA_FUZZ_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/graph.h"
#include "io/graph/graph_internal.h"

/* Options from the input length: bit 0 dedup, bit 1 weighted, bit 2
 * undirected (the length, unlike the first byte, leaves the content a
 * valid file; any mutation that adds or drops bytes flips them). */
static inline struct dsana_graph_opts fuzz_opts(size_t size, void (*warn)(void *, const char *), void *ctx) {
  return (struct dsana_graph_opts){
      .dedup = size & 1, .weighted = (size >> 1) & 1, .undirected = (size >> 2) & 1, .warn = warn, .warn_ctx = ctx};
}

/* Warnings: at most one per file, one non-empty line each. */
static inline void fuzz_warn(void *ctx, const char *msg) {
  int *count = ctx;
  if (++*count > 1 || !msg[0] || strchr(msg, '\n'))
    abort();
}

static inline void fuzz_check_weights(const struct dsana_graph *g) {
  double *sum = calloc(g->n, sizeof *sum);
  if (!sum)
    return;
  for (uint64_t v = 0; v < g->n; v++)
    for (uint64_t k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
      if (!(g->in_w[k] > 0.0 && g->in_w[k] <= 1.7976931348623157e308))
        abort();
      sum[g->in_src[k]] += g->in_w[k];
    }
  if (memcmp(sum, g->out_w, g->n * sizeof *sum) != 0)
    abort();
  free(sum);
}

static inline int fuzz_cmp_arc(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return (*x > *y) - (*x < *y);
}

/* Undirected input: as many u->v arcs as v->u arcs, for every pair. */
static inline void fuzz_check_symmetric(const struct dsana_graph *g) {
  uint64_t *arc = malloc((g->m ? g->m : 1) * sizeof *arc), *rev = malloc((g->m ? g->m : 1) * sizeof *rev);
  if (!arc || !rev) {
    free(arc);
    free(rev);
    return;
  }
  for (uint64_t v = 0, i = 0; v < g->n; v++)
    for (uint64_t k = g->in_off[v]; k < g->in_off[v + 1]; k++, i++) {
      arc[i] = (uint64_t)g->in_src[k] << 32 | v;
      rev[i] = v << 32 | g->in_src[k];
    }
  qsort(arc, g->m, sizeof *arc, fuzz_cmp_arc);
  qsort(rev, g->m, sizeof *rev, fuzz_cmp_arc);
  if (memcmp(arc, rev, g->m * sizeof *arc) != 0)
    abort();
  free(arc);
  free(rev);
}

static inline void fuzz_check_csc(const struct dsana_graph *g, const struct dsana_graph_opts *o) {
  char err[256];
  if (g->n == 0 || g->in_off[0] != 0 || g->in_off[g->n] != g->m ||
      dsana_graph_check_range(g, 0, g->n, err, sizeof err) != 0)
    abort();
  uint64_t out = 0;
  for (uint64_t v = 0; v < g->n; v++)
    out += g->out_deg[v];
  struct dsana_graph_stats st;
  dsana_graph_stats(g, &st);
  if (out != g->m || st.n != g->n || st.m != g->m || (o->dedup && st.duplicates != 0))
    abort();
  if (o->weighted != (g->in_w != NULL) || o->weighted != (g->out_w != NULL))
    abort();
  if (g->in_w)
    fuzz_check_weights(g);
  if (o->undirected)
    fuzz_check_symmetric(g);
}

/* A plain-text dense-id line declaring K + 1 vertices with FUZZ_MAX_DENSE_IDS
 * <= K < GRAPH_MAX_VERTICES (at or past that limit the reader fails at
 * once). The reader does O(K) work for it, as it should, but under the
 * fuzzer's comparison tracing that is about 0.6 s per million vertices (a
 * 138-byte file declaring 16.5 M timed out), and a big K reaches no code a
 * small one does not: such inputs are skipped (the snap target, and the
 * binary target, which opens any graph file). A gzip input's line is not
 * looked at; the 24 MB allocation cap of common.sh bounds it. */
#define FUZZ_MAX_DENSE_IDS ((uint64_t)1 << 16)

static inline bool fuzz_dense_too_big(const uint8_t *data, size_t size) {
  static const char line[] = "# dsana graph: dense ids 0..";
  size_t i = sizeof line - 1;
  uint64_t k = 0;
  if (size < i || memcmp(data, line, i) != 0)
    return false;
  for (; i < size && data[i] >= '0' && data[i] <= '9'; i++)
    k = k > UINT64_MAX / 10 - 1 ? UINT64_MAX : k * 10 + (uint64_t)(data[i] - '0');
  return k >= FUZZ_MAX_DENSE_IDS && k < GRAPH_MAX_VERTICES;
}

#endif
