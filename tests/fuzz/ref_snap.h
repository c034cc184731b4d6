/*
 * ref_snap.h - the fuzz target's reference reader for SNAP edge lists,
 * written from README.md ("Graphs") and include/dsana/graph.h, not from
 * src/io/graphfile/graph_snap.c:
 *
 * - A line of blanks only is skipped; one whose first field starts with
 *   '#' or '%' is a comment.
 * - Otherwise: source and destination, each digits only (any uint64, no
 *   sign), then with --weighted a weight, a decimal number from
 *   2.2250738585072014e-308 to 1.7976931348623157e+308. More fields are
 *   ignored (one warning per file).
 * - A FIRST line that is exactly "# dsana graph: dense ids 0..K" (K digits,
 *   K + 1 < 2^32, an optional '\r') keeps ids as indices 0..K: ids must be
 *   below K + 1, n = K + 1, no original ids. A first line that starts so
 *   but is otherwise refuses the file.
 * - Else the distinct ids, ascending, are the vertices (at most 2^32 - 1).
 * - No edge (and no dense-id line) refuses the file; so does a line over
 *   1 MiB.
 */
#ifndef DSANA_FUZZ_REF_SNAP_H
#define DSANA_FUZZ_REF_SNAP_H

#include <float.h>

#include "ref_graph.h"
#include "ref_text.h"

struct ref_snap {
  struct ref_graph *g;
  uint64_t dense_n;
  uint64_t *src, *dst; /* original ids, in file order */
  double *w;
  uint64_t len, cap;
};

static const char REF_DENSE[] = "# dsana graph: dense ids 0..";

/* The dense-id line; REF_ACCEPT also when line 1 is not one. */
static int ref_snap_dense(struct ref_snap *s, const char *p, size_t n) {
  size_t k = sizeof REF_DENSE - 1;
  uint64_t K;
  if (n < k || memcmp(p, REF_DENSE, k) != 0)
    return REF_ACCEPT;
  if (n > k && p[n - 1] == '\r')
    n--;
  if (!ref_uint((struct ref_field){p + k, n - k}, &K) || K >= UINT32_MAX)
    return REF_REFUSE;
  s->dense_n = K + 1;
  return REF_ACCEPT;
}

static void ref_snap_push(struct ref_snap *s, uint64_t a, uint64_t b, double w) {
  if (s->len == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->src = realloc(s->src, s->cap * sizeof *s->src);
    s->dst = realloc(s->dst, s->cap * sizeof *s->dst);
    s->w = realloc(s->w, s->cap * sizeof *s->w);
    if (!s->src || !s->dst || !s->w)
      abort();
  }
  s->src[s->len] = a;
  s->dst[s->len] = b;
  s->w[s->len++] = w;
}

static int ref_snap_line(void *ctx, uint64_t lineno, const char *p, size_t n) {
  struct ref_snap *s = ctx;
  struct ref_field f[REF_MAX_FIELDS];
  size_t count;
  uint64_t a, b;
  double w = 0;
  if (lineno == 1 && ref_snap_dense(s, p, n) != REF_ACCEPT)
    return REF_REFUSE;
  ref_split(p, n, f, &count);
  if (count == 0 || f[0].p[0] == '#' || f[0].p[0] == '%')
    return REF_ACCEPT;
  size_t want = s->g->weighted ? 3 : 2;
  if (count < want || !ref_uint(f[0], &a) || !ref_uint(f[1], &b))
    return REF_REFUSE;
  if (s->dense_n && (a >= s->dense_n || b >= s->dense_n))
    return REF_REFUSE;
  if (s->g->weighted && (!ref_decimal(f[2], &w) || !(w >= DBL_MIN && w <= DBL_MAX)))
    return REF_REFUSE;
  if (count > want)
    s->g->extra_fields = true;
  ref_snap_push(s, a, b, w);
  return REF_ACCEPT;
}

static int ref_u64_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static uint32_t ref_rank(const uint64_t *ids, uint64_t n, uint64_t id) {
  const uint64_t *hit = bsearch(&id, ids, n, sizeof *ids, ref_u64_cmp);
  if (!hit)
    abort();
  return (uint32_t)(hit - ids);
}

/* Ids to vertices: the dense ones as they are, or ranks among the distinct ids. */
static int ref_snap_vertices(struct ref_snap *s) {
  struct ref_graph *g = s->g;
  uint64_t k = 0;
  if (s->dense_n) {
    g->n = s->dense_n;
    for (uint64_t i = 0; i < s->len; i++)
      ref_graph_push(g, (uint32_t)s->src[i], (uint32_t)s->dst[i], s->w[i]);
    return REF_ACCEPT;
  }
  uint64_t *ids = malloc((2 * s->len + 1) * sizeof *ids);
  if (!ids)
    abort();
  for (uint64_t i = 0; i < s->len; i++) {
    ids[2 * i] = s->src[i];
    ids[2 * i + 1] = s->dst[i];
  }
  qsort(ids, 2 * s->len, sizeof *ids, ref_u64_cmp);
  for (uint64_t i = 0; i < 2 * s->len; i++)
    if (k == 0 || ids[k - 1] != ids[i])
      ids[k++] = ids[i];
  g->orig = ids;
  g->n = k;
  if (k > UINT32_MAX)
    return REF_REFUSE;
  for (uint64_t i = 0; i < s->len; i++)
    ref_graph_push(g, ref_rank(ids, k, s->src[i]), ref_rank(ids, k, s->dst[i]), s->w[i]);
  return REF_ACCEPT;
}

/* Read data as a SNAP edge list into g (zeroed first; ref_graph_fini it). */
static int ref_snap_read(const uint8_t *data, size_t size, bool weighted, struct ref_graph *g) {
  struct ref_bytes b;
  struct ref_snap s = {.g = g};
  memset(g, 0, sizeof *g);
  g->weighted = weighted;
  int v = ref_read_bytes(data, size, &b);
  if (v == REF_ACCEPT)
    v = ref_lines(&b, (size_t)1 << 20, &s, ref_snap_line);
  if (v == REF_ACCEPT)
    v = s.len == 0 && !s.dense_n ? REF_REFUSE : ref_snap_vertices(&s);
  free(b.owned);
  free(s.src);
  free(s.dst);
  free(s.w);
  return v;
}

#endif
