/*
 * graph.h - directed graphs in compressed sparse columns (CSC) by
 * destination: the input side of the io layer (public: apps read graphs through it).
 *
 * A graph is read from a SNAP edge list (plain or gzip), a Matrix Market
 * coordinate file, or dsana's own versioned binary format (memory-mapped),
 * or generated (Graph500 Kronecker, uniform). In-edges of each destination
 * are sorted by source id, so every consumer sums them in one fixed order.
 *
 * Policy: self loops are kept (they count in the out-degree). Duplicate edges
 * are kept as multi-edges by default (as igraph and SNAP's edge counts do);
 * dsana_graph_opts.dedup collapses them (as a networkx DiGraph does).
 *
 * Errors: functions return 0 or a negative DSANA_E* code and, on failure,
 * write one line into err naming the file and line (text) or byte offset
 * (binary), e.g. "g.txt:17: non-numeric vertex id 'x1'".
 */
#ifndef DSANA_GRAPH_H
#define DSANA_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dsana_graph {
  uint64_t n;              /* vertices 0..n-1 */
  uint64_t m;              /* edges (arcs), multi-edges and self loops included */
  const uint64_t *in_off;  /* n+1 offsets into in_src, by destination */
  const uint32_t *in_src;  /* m sources, ascending within each destination */
  const uint32_t *out_deg; /* n out-degrees */
  const uint64_t *orig_id; /* n original ids for output, or NULL: id == index */
  /* private: how the arrays are owned (heap or a mapping) */
  void *priv_heap[4];
  void *priv_map;
  size_t priv_map_len;
};

struct dsana_graph_opts {
  bool dedup; /* collapse duplicate edges */
};

/* Every function below leaves *g zeroed on failure; on success release it
 * with dsana_graph_fini(). n is limited to < 2^32 vertices. */

/* Open any supported format: binary (by magic), Matrix Market (by its
 * "%%MatrixMarket" banner), else SNAP edge list; ".gz" (or gzip magic) is
 * decompressed on the fly. SNAP ids are remapped to 0..n-1 in ascending
 * order of original id (n = distinct ids seen); Matrix Market keeps its
 * 1-based indices as original ids (n = max(rows, cols)). */
int dsana_graph_open(const char *path, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
               size_t errlen);

/* Write g in the binary format, atomically (temporary file + rename). */
int dsana_graph_write_binary(const struct dsana_graph *g, const char *path, char *err, size_t errlen);

/* Memory-map a binary graph; checks magic, version, sizes and section
 * bounds (O(1)); dsana_graph_check_range() validates a destination range. */
int dsana_graph_map_binary(const char *path, struct dsana_graph *g, char *err, size_t errlen);

/* Check that offsets of destinations [lo, hi) are monotone and in bounds and
 * their sources are < n: O(edges in range). For mapped files. */
int dsana_graph_check_range(const struct dsana_graph *g, uint64_t lo, uint64_t hi, char *err, size_t errlen);

/* true when the file starts with the binary graph magic. */
bool dsana_graph_is_binary(const char *path);

/* Graph500 Kronecker: 2^scale vertices, edge_factor * 2^scale edges,
 * initiator A=0.57 B=0.19 C=0.19, vertex ids permuted; deterministic for the
 * seed whatever the thread count. All 2^scale vertices are kept. */
int dsana_graph_gen_kron(unsigned scale, unsigned edge_factor, uint64_t seed, const struct dsana_graph_opts *opts,
                   struct dsana_graph *g, char *err, size_t errlen);
/* Uniform random: n vertices, m edges, endpoints independent uniform. */
int dsana_graph_gen_uniform(uint64_t n, uint64_t m, uint64_t seed, const struct dsana_graph_opts *opts,
                      struct dsana_graph *g, char *err, size_t errlen);

/* Build a graph from an edge list already in memory (ids < n). Copies. */
int dsana_graph_from_edges(uint64_t n, uint64_t m, const uint32_t *src, const uint32_t *dst,
                     const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err, size_t errlen);

struct dsana_graph_stats {
  uint64_t n, m;
  uint64_t dangling;    /* out-degree 0 */
  uint64_t isolated;    /* in- and out-degree 0 */
  uint64_t self_loops;
  uint64_t duplicates;  /* edges beyond the first between the same pair */
  uint64_t max_in, max_out, min_in, min_out;
};
void dsana_graph_stats(const struct dsana_graph *g, struct dsana_graph_stats *st);

/* Original id of vertex v (orig_id[v] or v). */
static inline uint64_t dsana_graph_orig_id(const struct dsana_graph *g, uint64_t v) {
  return g->orig_id ? g->orig_id[v] : v;
}

void dsana_graph_fini(struct dsana_graph *g);

#endif
