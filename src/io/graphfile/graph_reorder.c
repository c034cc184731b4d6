/*
 * graph_reorder.c - vertex renumbering for cache locality, and the
 * original-id order output writers need afterwards.
 *
 * dsana_graph_reorder: with DSANA_GRAPH_ORDER_DEGREE, vertices are numbered
 * by descending in-degree, ties by ascending old index (a counting sort, so
 * deterministic), the usual "hub first" order of graph frameworks: the
 * sources a destination reads crowd into the front of the table. The edges
 * are re-emitted in the old CSC order with new ids and rebuilt by
 * graph_build, whose counting sorts are stable, so multi-edges keep their
 * order and weights follow their edges.
 */
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"

/* perm[new] = old by descending in-degree, ties by ascending old index. */
static int degree_order(const struct dsana_graph *g, uint32_t *perm) {
  uint64_t max_in = 0, n = g->n;
  for (uint64_t v = 0; v < n; v++)
    if (g->in_off[v + 1] - g->in_off[v] > max_in)
      max_in = g->in_off[v + 1] - g->in_off[v];
  uint64_t *start = calloc(max_in + 2, sizeof *start);
  if (!start)
    return DSANA_ENOMEM;
  /* bucket d holds in-degree max_in - d: buckets in ascending key order */
  for (uint64_t v = 0; v < n; v++)
    start[max_in - (g->in_off[v + 1] - g->in_off[v]) + 1]++;
  for (uint64_t d = 1; d <= max_in + 1; d++)
    start[d] += start[d - 1];
  for (uint64_t v = 0; v < n; v++)
    perm[start[max_in - (g->in_off[v + 1] - g->in_off[v])]++] = (uint32_t)v;
  free(start);
  return 0;
}

/* The renumbered edges of g in its CSC order, and the new orig_id. */
static int renumber(const struct dsana_graph *g, const uint32_t *perm, struct graph_edges *e) {
  uint64_t n = g->n, m = g->m;
  uint32_t *inv = malloc((n ? n : 1) * sizeof *inv);
  e->src = graph_big_alloc(m * sizeof *e->src);
  e->dst = graph_big_alloc(m * sizeof *e->dst);
  e->w = g->in_w ? graph_big_alloc(m * sizeof *e->w) : NULL;
  e->orig_id = malloc((n ? n : 1) * sizeof *e->orig_id);
  e->owned = true;
  if (!inv || !e->src || !e->dst || (g->in_w && !e->w) || !e->orig_id) {
    free(inv);
    return DSANA_ENOMEM;
  }
  for (uint64_t i = 0; i < n; i++)
    inv[perm[i]] = (uint32_t)i;
  for (uint64_t i = 0; i < n; i++)
    e->orig_id[i] = dsana_graph_orig_id(g, perm[i]);
  for (uint64_t v = 0; v < n; v++) {
    for (uint64_t k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
      e->src[k] = inv[g->in_src[k]];
      e->dst[k] = inv[v];
    }
  }
  if (e->w)
    memcpy(e->w, g->in_w, m * sizeof *e->w);
  free(inv);
  e->n = n;
  e->m = m;
  return 0;
}

int dsana_graph_reorder(const struct dsana_graph *in, enum dsana_graph_order kind, struct dsana_graph *out, char *err,
                        size_t errlen) {
  char why[300];
  memset(out, 0, sizeof *out);
  if (kind != DSANA_GRAPH_ORDER_NONE && kind != DSANA_GRAPH_ORDER_DEGREE)
    return io_errf(err, errlen, DSANA_EINVAL, "graph_reorder: unknown order %d", (int)kind);
  int rc = dsana_graph_check_range(in, 0, in->n, why, sizeof why);
  if (rc)
    return io_errf(err, errlen, rc, "graph_reorder: %s", why);
  if (kind == DSANA_GRAPH_ORDER_NONE)
    return graph_copy(in, false, true, out, err, errlen);
  uint32_t *perm = malloc((in->n ? in->n : 1) * sizeof *perm);
  struct graph_edges e = {0};
  rc = perm ? degree_order(in, perm) : DSANA_ENOMEM;
  if (!rc)
    rc = renumber(in, perm, &e);
  free(perm);
  if (rc) {
    free(e.src);
    free(e.dst);
    free(e.w);
    free(e.orig_id);
    return io_errf(err, errlen, rc, "graph_reorder: out of memory for %llu vertices, %llu edges",
                   (unsigned long long)in->n, (unsigned long long)in->m);
  }
  return graph_build(&e, out, err, errlen);
}

struct id_index {
  uint64_t id;
  uint32_t v;
};

static int cmp_id_index(const void *a, const void *b) {
  const struct id_index *x = a, *y = b;
  if (x->id != y->id)
    return (x->id > y->id) - (x->id < y->id);
  return (x->v > y->v) - (x->v < y->v);
}

int dsana_graph_orig_order(const struct dsana_graph *g, uint32_t **order, char *err, size_t errlen) {
  *order = NULL;
  if (!g->orig_id)
    return 0;
  uint64_t v = 1;
  while (v < g->n && g->orig_id[v - 1] < g->orig_id[v])
    v++;
  if (v >= g->n)
    return 0;
  struct id_index *pairs = malloc(g->n * sizeof *pairs);
  uint32_t *o = malloc(g->n * sizeof *o);
  if (!pairs || !o) {
    free(pairs);
    free(o);
    return io_errf(err, errlen, DSANA_ENOMEM, "out of memory ordering %llu vertices", (unsigned long long)g->n);
  }
  for (uint64_t i = 0; i < g->n; i++)
    pairs[i] = (struct id_index){g->orig_id[i], (uint32_t)i};
  qsort(pairs, g->n, sizeof *pairs, cmp_id_index);
  for (uint64_t i = 0; i < g->n; i++)
    o[i] = pairs[i].v;
  free(pairs);
  *order = o;
  return 0;
}
