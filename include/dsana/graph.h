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
 * dsana_graph_opts.dedup collapses them (as a networkx DiGraph does). For a
 * weighted graph, dedup keeps the weight of the LAST line read for the pair,
 * as a networkx DiGraph does when add_edges_from / read_weighted_edgelist
 * meets the pair again (the edge's data dict is updated: last write wins);
 * multi-edges of a pair stay in the order they were read.
 *
 * Weights (opts.weighted): the third column of a SNAP line, the value of a
 * Matrix Market real/integer entry; each a positive finite decimal number.
 * in_w[k] is the weight of the arc in_src[k] -> v; out_w[u] sums u's out-arc
 * weights in one fixed order (ascending destination, then in_src order), so
 * it is the same on every run and every machine.
 *
 * Undirected input (opts.undirected): every edge u-v read becomes the arcs
 * u->v and v->u (a self loop once, weight on both arcs), the view of a
 * networkx Graph turned into a DiGraph (to_directed). A symmetric Matrix
 * Market file is already read that way; a binary graph is stored as arcs.
 *
 * Dense ids: dsana's own SNAP writer (`dsana graph gen --out x.txt`) starts
 * the file with the line "# dsana graph: dense ids 0..K". A SNAP file whose
 * FIRST line is exactly that keeps ids as indices 0..K (n = K+1, isolated
 * vertices included, orig_id NULL) instead of remapping to the ids seen, so
 * the text and the binary output of one generator are the same graph. Any
 * id above K is then an error; the line anywhere else is a plain comment.
 *
 * Errors: functions return 0 or a negative DSANA_E* code and, on failure,
 * write one line into err naming the file and line (text) or byte offset
 * (binary), e.g. "g.txt:17: non-numeric vertex id 'x1'". Warnings (input
 * accepted but partly ignored) go to opts->warn, one line per file, never
 * to stderr from inside the library.
 */
#ifndef DSANA_GRAPH_H
#define DSANA_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/export.h"

struct dsana_graph {
  uint64_t n;              /* vertices 0..n-1 */
  uint64_t m;              /* edges (arcs), multi-edges and self loops included */
  const uint64_t *in_off;  /* n+1 offsets into in_src, by destination */
  const uint32_t *in_src;  /* m sources, ascending within each destination */
  const uint32_t *out_deg; /* n out-degrees */
  const uint64_t *orig_id; /* n original ids for output, or NULL: id == index */
  const double *in_w;      /* m weights aligned with in_src, or NULL: unweighted */
  const double *out_w;     /* n sums of out-arc weights (0 when dangling), or NULL */
  /* private: how the arrays are owned (heap or a mapping) */
  void *priv_heap[6];
  void *priv_map;
  size_t priv_map_len;
};

struct dsana_graph_opts {
  bool dedup;      /* collapse duplicate edges (weighted: the last weight read wins) */
  bool weighted;   /* read edge weights (see the top); binary: require them */
  bool undirected; /* each edge u-v read gives u->v and v->u; not for binary files */
  /* Called with one line (no newline, names the file) per warning, e.g.
   * "g.txt: extra columns after the first two ignored (...)"; NULL drops
   * warnings. Called on the caller's thread, before the reader returns. */
  void (*warn)(void *warn_ctx, const char *msg);
  void *warn_ctx;
};

/* Every function below leaves *g zeroed on failure; on success release it
 * with dsana_graph_fini(). n is limited to < 2^32 vertices. */

/* Open any supported format: binary (by magic), Matrix Market (by its
 * "%%MatrixMarket" banner), else SNAP edge list; ".gz" (or gzip magic) is
 * decompressed on the fly. SNAP ids are remapped to 0..n-1 in ascending
 * order of original id (n = distinct ids seen) unless the file carries
 * dsana's dense-id line (see the top); Matrix Market keeps its 1-based
 * indices as original ids (n = max(rows, cols)).
 * opts may be NULL (all false). Weighted: a missing, non-numeric, zero,
 * negative or infinite weight is an error naming the file and line; a
 * pattern Matrix Market file or a binary graph without weights is an error.
 * Unweighted: a SNAP file's columns after the second are ignored with one
 * warning; a binary graph's weights are hidden (in_w, out_w NULL).
 * undirected on a binary graph is an error (convert the text with it). */
DSANA_API int dsana_graph_open(const char *path, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                               size_t errlen);

/* Write g in the binary format, atomically (temporary file + rename):
 * version 3, every section under a CRC32, with the in_w and out_w
 * sections when g has weights. */
DSANA_API int dsana_graph_write_binary(const struct dsana_graph *g, const char *path, char *err, size_t errlen);

/* Write g as a SNAP edge list, gzip when path ends in ".gz" (not atomic:
 * removed on failure). Lines: the dense-id line when g->orig_id is NULL
 * (so reading the file back gives the same CSC arrays, isolated vertices
 * included), comment as given (NULL or whole '#' lines), "# Nodes: N
 * Edges: M", a column line, then "src<TAB>dst[<TAB>weight]" per arc in CSC
 * order with original ids and weights printed with 17 significant digits. */
DSANA_API int dsana_graph_write_snap(const struct dsana_graph *g, const char *path, const char *comment, char *err,
                                     size_t errlen);

/* Memory-map a binary graph (version 3; versions 1 and 2 are refused with
 * a word to reconvert); checks magic, version, sizes and section bounds,
 * then, the first time this process maps the file, its whole body: every
 * section's CRC32, offsets, sources below n and ascending, out-degrees
 * equal to the edges' counts, distinct original ids, weights (O(file),
 * one pass). An error names the file and the section. Weights, when the
 * file has them, are always exposed.
 * One process maps a file once: graphs of the same file share the mapping
 * (read-only), unmapped when the last of them is released. */
DSANA_API int dsana_graph_map_binary(const char *path, struct dsana_graph *g, char *err, size_t errlen);

/* Check that offsets of destinations [lo, hi) are monotone and in bounds and
 * their sources are < n: O(edges in range). For a weighted graph also that
 * their in_w are positive and finite and, for v in [lo, hi), out_w[v] is
 * finite and positive exactly when out_deg[v] > 0. For heap graphs (a
 * mapped one passed all of this when mapped: 0 at once). Messages name
 * the array, not a file: callers prefix the path. */
DSANA_API int dsana_graph_check_range(const struct dsana_graph *g, uint64_t lo, uint64_t hi, char *err, size_t errlen);

/* true when the file starts with the binary graph magic. */
DSANA_API bool dsana_graph_is_binary(const char *path);

/* Graph500 Kronecker: 2^scale vertices, edge_factor * 2^scale edges,
 * initiator A=0.57 B=0.19 C=0.19, vertex ids permuted; deterministic for the
 * seed whatever the thread count. All 2^scale vertices are kept.
 * Generators honour opts->dedup and opts->undirected (mirroring the
 * generated edges); opts->weighted gives each generated edge a weight
 * uniform in (0, 1] (a multiple of 2^-53, from the seed, like Graph500's
 * SSSP weights but never 0). */
DSANA_API int dsana_graph_gen_kron(unsigned scale, unsigned edge_factor, uint64_t seed,
                                   const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                                   size_t errlen);
/* Uniform random: n vertices, m edges, endpoints independent uniform. */
DSANA_API int dsana_graph_gen_uniform(uint64_t n, uint64_t m, uint64_t seed, const struct dsana_graph_opts *opts,
                                      struct dsana_graph *g, char *err, size_t errlen);

/* Build a graph from an edge list already in memory (ids < n). Copies.
 * opts->weighted is ignored: weights come from dsana_graph_from_weighted_edges. */
DSANA_API int dsana_graph_from_edges(uint64_t n, uint64_t m, const uint32_t *src, const uint32_t *dst,
                                     const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                                     size_t errlen);
/* The same with w[i] the weight of edge i (positive finite, else DSANA_ERANGE). */
DSANA_API int dsana_graph_from_weighted_edges(uint64_t n, uint64_t m, const uint32_t *src, const uint32_t *dst,
                                              const double *w, const struct dsana_graph_opts *opts,
                                              struct dsana_graph *g, char *err, size_t errlen);

/* A graph over CSC arrays the caller holds (graph_mem.c): in_off (n+1,
 * from 0 to m, monotone), in_src (m sources, ascending within each
 * destination) and in_w (m positive finite weights, or NULL) are borrowed,
 * not copied, and must outlive g; out_deg and out_w are computed (owned by
 * g). DSANA_EINVAL or DSANA_ERANGE, one line naming the edge, otherwise. */
DSANA_API int dsana_graph_from_csc(uint64_t n, uint64_t m, const uint64_t *in_off, const uint32_t *in_src,
                                   const double *in_w, struct dsana_graph *g, char *err, size_t errlen);

/* In-memory sources (mem_source.c): register g under a new name (into
 * name[len], e.g. "dsana-mem:graph:1") that every reader above takes in
 * place of a path, as a mapped binary graph: a view of g's arrays. The
 * caller keeps g alive and unchanged until dsana_mem_unregister(name).
 * DSANA_ERANGE when 64 sources are registered already. Thread-safe. */
DSANA_API int dsana_graph_mem_register(const struct dsana_graph *g, char *name, size_t len);
/* The same for a personalization vector of n weights (v borrowed):
 * dsana_graph_load_personalization takes the name ("dsana-mem:vector:N")
 * in place of a file, v[i] the weight of vertex index i. */
DSANA_API int dsana_vector_mem_register(const double *v, uint64_t n, char *name, size_t len);
/* Forget an in-memory source (graph, dataset or vector) by name. */
DSANA_API void dsana_mem_unregister(const char *name);

/* Vertex orders for dsana_graph_reorder. */
enum dsana_graph_order {
  DSANA_GRAPH_ORDER_NONE = 0, /* keep the indices (a heap copy) */
  DSANA_GRAPH_ORDER_DEGREE,   /* descending in-degree, ties by ascending old index */
};

/* Renumber the vertices of in into out (a heap graph) for cache locality:
 * new index i is old vertex perm[i] by the order kind. Edges, weights and
 * multi-edge order follow their vertices; out->orig_id maps every new index
 * back to in's original id (set even when in->orig_id is NULL), so output
 * written through dsana_graph_orig_id() keeps the original ids. out_w is
 * re-summed in out's CSC order. Validates in completely first (a mapped
 * file may be corrupt). in is not changed. */
DSANA_API int dsana_graph_reorder(const struct dsana_graph *in, enum dsana_graph_order kind, struct dsana_graph *out,
                                  char *err, size_t errlen);

/* Vertices in ascending original id: *order = NULL when index order already
 * is (no orig_id, or ascending orig_id: every reader's output), else a
 * malloc'd array of the n indices (caller frees). For writers that must
 * list a reordered graph in original-id order. DSANA_ENOMEM on failure. */
DSANA_API int dsana_graph_orig_order(const struct dsana_graph *g, uint32_t **order, char *err, size_t errlen);

/* Read a personalization (teleport) vector for g from path (plain or gzip):
 * lines "vertex weight" (tab or spaces), '#' comment lines, blank lines;
 * vertex is an original id (mapped through orig_id), weight >= 0 finite.
 * *vec gets n doubles (malloc'd, caller frees) summing to 1 (each weight
 * divided by the sum of the weights in vertex index order); vertices not
 * listed get 0. Errors, naming the file and line: a malformed line (not
 * exactly two fields), a non-numeric vertex, a vertex not in g, a vertex
 * listed twice, a negative/non-numeric/infinite weight; naming the file:
 * all weights zero (or none listed), a sum that overflows. *vec is NULL on
 * failure. */
DSANA_API int dsana_graph_load_personalization(const char *path, const struct dsana_graph *g, double **vec, char *err,
                                               size_t errlen);

struct dsana_graph_stats {
  uint64_t n, m;
  uint64_t dangling; /* out-degree 0 */
  uint64_t isolated; /* in- and out-degree 0 */
  uint64_t self_loops;
  uint64_t duplicates; /* edges beyond the first between the same pair */
  uint64_t max_in, max_out, min_in, min_out;
};
DSANA_API void dsana_graph_stats(const struct dsana_graph *g, struct dsana_graph_stats *st);

/* Original id of vertex v (orig_id[v] or v). */
static inline uint64_t dsana_graph_orig_id(const struct dsana_graph *g, uint64_t v) {
  return g->orig_id ? g->orig_id[v] : v;
}

DSANA_API void dsana_graph_fini(struct dsana_graph *g);

#endif
