/*
 * fuzz_graph.h - what every accepted graph must satisfy, for the parser
 * fuzz targets: a consistent CSC (offsets, sources in range), out-degrees
 * adding up to the edge count, stats that agree, no duplicates after dedup.
 * Each target adds its own check of the original ids.
 */
#ifndef DSANA_FUZZ_GRAPH_H
#define DSANA_FUZZ_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "dsana/graph.h"

static void fuzz_check_csc(const struct dsana_graph *g, bool dedup) {
  char err[256];
  if (g->n == 0 || g->m == 0 || g->in_off[0] != 0 || g->in_off[g->n] != g->m ||
      dsana_graph_check_range(g, 0, g->n, err, sizeof err) != 0)
    abort();
  uint64_t out = 0;
  for (uint64_t v = 0; v < g->n; v++)
    out += g->out_deg[v];
  struct dsana_graph_stats st;
  dsana_graph_stats(g, &st);
  if (out != g->m || st.n != g->n || st.m != g->m || (dedup && st.duplicates != 0))
    abort();
}

#endif
