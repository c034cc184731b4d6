/*
 * ref_graph.h - what a reference graph reader (ref_snap.h, ref_mtx.h)
 * yields, and the comparison of dsana's graph with it: the fuzz targets'
 * semantic mode. The reference gives the edges in file order; the graph
 * dsana must build from them follows include/dsana/graph.h: undirected
 * makes edge i the arcs s->d then d->s (once for a loop), every
 * destination lists its sources ascending with multi-edges in that order,
 * dedup keeps the last of equal arcs (its weight). Here that is a stable
 * sort, not dsana's counting sorts. Any difference aborts, naming the
 * first one on stderr.
 */
#ifndef DSANA_FUZZ_REF_GRAPH_H
#define DSANA_FUZZ_REF_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "dsana/graph.h"
#include "ref_text.h"

struct ref_graph {
  uint64_t n;
  uint64_t *orig; /* n original ids, or NULL (dense ids: vertex v is id v) */
  bool one_based; /* no orig: vertex v is id v + 1 (Matrix Market) */
  bool mirrored;  /* both arcs of each entry are there (symmetric Matrix Market): undirected adds none */
  uint64_t m, cap;
  uint32_t *src, *dst; /* m arcs in file order */
  double *w;           /* m weights when weighted, else NULL */
  bool weighted;
  bool extra_fields; /* a line had fields the reader ignores (a warning is due) */
};

static void ref_graph_fini(struct ref_graph *r) {
  free(r->orig);
  free(r->src);
  free(r->dst);
  free(r->w);
  memset(r, 0, sizeof *r);
}

static void ref_graph_push(struct ref_graph *r, uint32_t s, uint32_t d, double w) {
  if (r->m == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 64;
    r->src = realloc(r->src, r->cap * sizeof *r->src);
    r->dst = realloc(r->dst, r->cap * sizeof *r->dst);
    r->w = realloc(r->w, r->cap * sizeof *r->w);
    if (!r->src || !r->dst || !r->w)
      abort();
  }
  r->src[r->m] = s;
  r->dst[r->m] = d;
  r->w[r->m++] = w;
}

struct ref_arc {
  uint32_t s, d;
  uint64_t order;
  double w;
};

static int ref_arc_cmp(const void *a, const void *b) {
  const struct ref_arc *x = a, *y = b;
  if (x->d != y->d)
    return x->d < y->d ? -1 : 1;
  if (x->s != y->s)
    return x->s < y->s ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

__attribute__((noreturn)) static void ref_differs(const char *what, uint64_t at, double want, double got) {
  fprintf(stderr, "semantic mismatch: %s [%llu]: reference %.17g, dsana %.17g\n", what, (unsigned long long)at, want,
          got);
  abort();
}

/* The arcs of r as the CSC must hold them; *len of them. */
static struct ref_arc *ref_expected_arcs(const struct ref_graph *r, bool undirected, bool dedup, uint64_t *len) {
  struct ref_arc *a = malloc((2 * r->m + 1) * sizeof *a);
  uint64_t k = 0;
  if (!a)
    abort();
  for (uint64_t i = 0; i < r->m; i++) {
    a[k] = (struct ref_arc){r->src[i], r->dst[i], k, r->w[i]};
    k++;
    if (undirected && r->src[i] != r->dst[i]) {
      a[k] = (struct ref_arc){r->dst[i], r->src[i], k, r->w[i]};
      k++;
    }
  }
  qsort(a, k, sizeof *a, ref_arc_cmp);
  if (dedup) {
    uint64_t j = 0;
    for (uint64_t i = 0; i < k; i++) {
      if (j > 0 && a[j - 1].s == a[i].s && a[j - 1].d == a[i].d)
        a[j - 1] = a[i]; /* the last one read wins */
      else
        a[j++] = a[i];
    }
    k = j;
  }
  *len = k;
  return a;
}

/* Past this many vertices the comparison stops at the count: a header
 * declaring millions of them (Matrix Market's size line) makes the O(n)
 * loops below cost seconds under the fuzzer's instrumentation, on top of
 * the reader's own O(n) work (a timeout on a busy machine), and such a
 * graph has no more arcs than a small one. */
#define REF_COMPARE_MAX_VERTICES ((uint64_t)1 << 20)

/* abort() unless g is the graph r describes under opts. */
static void ref_graph_compare(const struct ref_graph *r, const struct dsana_graph *g,
                              const struct dsana_graph_opts *o) {
  uint64_t len;
  if (g->n != r->n)
    ref_differs("vertex count", 0, (double)r->n, (double)g->n);
  if (r->n > REF_COMPARE_MAX_VERTICES)
    return;
  for (uint64_t v = 0; v < r->n; v++) {
    bool has = r->orig || r->one_based;
    uint64_t id = r->orig ? r->orig[v] : v + 1;
    if (has != (g->orig_id != NULL) || (has && id != g->orig_id[v]))
      ref_differs("original id of vertex", v, has ? (double)id : -1.0, g->orig_id ? (double)g->orig_id[v] : -1.0);
  }
  struct ref_arc *a = ref_expected_arcs(r, o->undirected && !r->mirrored, o->dedup, &len);
  if (g->m != len)
    ref_differs("arc count", 0, (double)len, (double)g->m);
  uint64_t *deg = calloc(r->n + 1, sizeof *deg);
  if (!deg)
    abort();
  for (uint64_t k = 0; k < len; k++) {
    deg[a[k].s]++;
    if (k >= g->in_off[a[k].d + 1] || k < g->in_off[a[k].d])
      ref_differs("destination of arc", k, a[k].d, -1.0);
    if (g->in_src[k] != a[k].s)
      ref_differs("source of arc", k, a[k].s, g->in_src[k]);
    if (o->weighted && memcmp(&g->in_w[k], &a[k].w, sizeof a[k].w) != 0)
      ref_differs("weight of arc", k, a[k].w, g->in_w[k]);
  }
  for (uint64_t v = 0; v < r->n; v++)
    if (g->out_deg[v] != deg[v])
      ref_differs("out-degree of vertex", v, (double)deg[v], g->out_deg[v]);
  free(deg);
  free(a);
}

/* A refusal names the input; an input the reference accepts is refused
 * only for a limit (memory, vertex count), never as malformed. */
static void ref_check_refusal(int verdict, int rc, const char *err, const char *path) {
  if (!strstr(err, path)) {
    fprintf(stderr, "semantic mismatch: the message does not name %s: %s\n", path, err);
    abort();
  }
  if (verdict == REF_ACCEPT && rc == DSANA_EFORMAT) {
    fprintf(stderr, "semantic mismatch: the reference accepts, dsana refuses: %s\n", err);
    abort();
  }
}

#endif
