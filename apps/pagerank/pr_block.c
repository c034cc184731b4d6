/* pr_block.c - building the chunk-major blocks of a task (see pr_block.h). */
#include "pr_block.h"

#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"

void pr_block_fini(struct pr_block *b) {
  free(b->chunk_grp);
  free(b->grp_dst);
  free(b->grp_end);
  free(b->src);
  free(b->w);
  free(b->edge_dst);
  memset(b, 0, sizeof *b);
}

/* Pass 1: groups and edges per chunk (runs of equal chunk in each list). */
static void pr_block_count(const struct dsana_graph *g, uint64_t lo, uint64_t hi, uint64_t k, uint64_t *grp_n,
                           uint64_t *edge_n) {
  for (uint64_t v = lo; v < hi; v++) {
    uint64_t prev = UINT64_MAX;
    for (uint64_t e = g->in_off[v]; e < g->in_off[v + 1]; e++) {
      uint64_t c = g->in_src[e] / k;
      grp_n[c] += c != prev;
      edge_n[c]++;
      prev = c;
    }
  }
}

int pr_block_build(struct pr_block *b, const struct dsana_graph *g, uint64_t lo, uint64_t hi, uint64_t chunk_keys,
                   bool weighted) {
  memset(b, 0, sizeof *b);
  uint64_t k = chunk_keys ? chunk_keys : g->n, nc = (g->n + k - 1) / k;
  b->chunk_keys = k;
  b->n_chunks = nc;
  b->n_edges = g->in_off[hi] - g->in_off[lo];
  uint64_t *grp_at = calloc(nc + 1, sizeof *grp_at), *edge_at = calloc(nc + 1, sizeof *edge_at);
  b->chunk_grp = calloc(nc + 1, sizeof *b->chunk_grp);
  if (!grp_at || !edge_at || !b->chunk_grp)
    goto nomem;
  pr_block_count(g, lo, hi, k, grp_at + 1, edge_at + 1);
  for (uint64_t c = 0; c < nc; c++) {
    grp_at[c + 1] += grp_at[c];
    edge_at[c + 1] += edge_at[c];
  }
  memcpy(b->chunk_grp, grp_at, sizeof *grp_at * (nc + 1));
  b->n_groups = grp_at[nc];
  b->grp_dst = malloc(sizeof *b->grp_dst * (b->n_groups ? b->n_groups : 1));
  b->grp_end = malloc(sizeof *b->grp_end * (b->n_groups ? b->n_groups : 1));
  b->src = malloc(sizeof *b->src * (b->n_edges ? b->n_edges : 1));
  if (weighted)
    b->w = malloc(sizeof *b->w * (b->n_edges ? b->n_edges : 1));
  bool edge_major = b->n_edges && b->n_edges < (uint64_t)PR_BLOCK_EDGE_MAJOR * b->n_groups;
  if (edge_major)
    b->edge_dst = malloc(sizeof *b->edge_dst * b->n_edges);
  if (!b->grp_dst || !b->grp_end || !b->src || (weighted && !b->w) || (edge_major && !b->edge_dst))
    goto nomem;
  /* Pass 2: destinations ascending, so each chunk's groups come out sorted. */
  for (uint64_t v = lo; v < hi; v++) {
    uint64_t prev = UINT64_MAX;
    for (uint64_t e = g->in_off[v]; e < g->in_off[v + 1]; e++) {
      uint64_t c = g->in_src[e] / k;
      if (c != prev)
        b->grp_dst[grp_at[c]++] = (uint32_t)v;
      if (b->w)
        b->w[edge_at[c]] = g->in_w[e];
      if (b->edge_dst)
        b->edge_dst[edge_at[c]] = (uint32_t)v;
      b->src[edge_at[c]++] = g->in_src[e];
      b->grp_end[grp_at[c] - 1] = edge_at[c];
      prev = c;
    }
  }
  free(grp_at);
  free(edge_at);
  return 0;
nomem:
  free(grp_at);
  free(edge_at);
  pr_block_fini(b);
  return DSANA_ENOMEM;
}
