/*
 * pr_block.h - a task's in-edges regrouped by source chunk (worker side).
 *
 * For chunk c, the block lists groups (destination v, its in-edges whose
 * source lies in chunk c), destinations ascending, sources ascending within
 * a group. Running the blocks of chunks 0, 1, ... in order adds every
 * vertex's in-edges in exactly the CSC order (ascending source), so the sums
 * are bit-identical to the plain kernel's, whatever the chunk size. A block
 * can run as soon as its chunk of contributions has arrived, and its random
 * reads stay inside one chunk (cache blocking).
 */
#ifndef DSANA_APPS_PR_BLOCK_H
#define DSANA_APPS_PR_BLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "dsana/graph.h"

struct pr_block {
  uint64_t chunk_keys, n_chunks;
  uint64_t *chunk_grp; /* n_chunks+1: first group of each chunk */
  uint32_t *grp_dst;   /* per group: destination vertex */
  uint64_t *grp_end;   /* per group: end of its edges in src (start = previous end) */
  uint32_t *src;       /* the task's edges, chunk-major */
  double *w;           /* their weights, aligned with src, or NULL (unweighted) */
  uint32_t *edge_dst;  /* per edge: its group's destination, when groups are short (see
                        * PR_BLOCK_EDGE_MAJOR), else NULL */
  uint64_t n_groups, n_edges;
};

/* Groups of fewer edges than this on average run edge by edge: one add
 * into acc[] per edge, no loop per group (whose exit a branch predictor
 * misses when most groups hold one or two edges, as a chunk of a sparse
 * graph's in-edges does). The same additions in the same order: the same
 * bits. */
#define PR_BLOCK_EDGE_MAJOR 3

/* Build the blocks of destinations [lo, hi) of g for chunks of chunk_keys
 * source keys (weighted: with g's in_w per edge). Returns 0 or DSANA_ENOMEM. */
int pr_block_build(struct pr_block *b, const struct dsana_graph *g, uint64_t lo, uint64_t hi, uint64_t chunk_keys,
                   bool weighted);
void pr_block_fini(struct pr_block *b);

/* Edges of the block of chunk c. */
static inline uint64_t pr_block_edges(const struct pr_block *b, uint64_t c) {
  uint64_t from = b->chunk_grp[c] ? b->grp_end[b->chunk_grp[c] - 1] : 0;
  uint64_t to = b->chunk_grp[c + 1] ? b->grp_end[b->chunk_grp[c + 1] - 1] : 0;
  return to - from;
}

/* acc[v] += sum of contrib[u] over the block of chunk c (acc indexed by key). */
static inline void pr_block_run(const struct pr_block *b, uint64_t c, const double *contrib, double *acc) {
  /* edges of chunk c start where the last group of earlier chunks ended */
  uint64_t e = b->chunk_grp[c] ? b->grp_end[b->chunk_grp[c] - 1] : 0;
  if (b->edge_dst) {
    for (uint64_t end = e + pr_block_edges(b, c); e < end; e++)
      acc[b->edge_dst[e]] += contrib[b->src[e]];
    return;
  }
  for (uint64_t g = b->chunk_grp[c], end = b->chunk_grp[c + 1]; g < end; g++) {
    double s = acc[b->grp_dst[g]];
    for (uint64_t stop = b->grp_end[g]; e < stop; e++)
      s += contrib[b->src[e]];
    acc[b->grp_dst[g]] = s;
  }
}

/* The same with weights: acc[v] += w(u,v) * contrib[u], in the same order. */
static inline void pr_block_run_weighted(const struct pr_block *b, uint64_t c, const double *contrib, double *acc) {
  uint64_t e = b->chunk_grp[c] ? b->grp_end[b->chunk_grp[c] - 1] : 0;
  if (b->edge_dst) {
    for (uint64_t end = e + pr_block_edges(b, c); e < end; e++)
      acc[b->edge_dst[e]] += b->w[e] * contrib[b->src[e]];
    return;
  }
  for (uint64_t g = b->chunk_grp[c], end = b->chunk_grp[c + 1]; g < end; g++) {
    double s = acc[b->grp_dst[g]];
    for (uint64_t stop = b->grp_end[g]; e < stop; e++)
      s += b->w[e] * contrib[b->src[e]];
    acc[b->grp_dst[g]] = s;
  }
}

#endif
