/*
 * ref_pagerank.c - an independent, sequential reference PageRank for the
 * integration tests. It shares no code with dsana: only libc, zlib and libm.
 * Written to be obviously right rather than fast.
 *
 * Usage:
 *   ref_pagerank GRAPH [--damping 0.85] [--tol 1e-6] [--max-iter 100] [--dedup]
 *                      [--weighted] [--undirected] [--personalization FILE]
 *       Reads a SNAP edge list (plain or gzip, via gzopen), prints
 *       "vertex<TAB>rank" (%.12g) for every vertex in ascending original id.
 *   ref_pagerank --compare A B [--max-diff 1e-9]
 *       Compares two such outputs: same ids in the same order; prints
 *       "max_abs_diff=.. sum_a=.. sum_b=.. top_a=.. top_b=..".
 *       Exit 0 if max abs diff <= max-diff, 1 otherwise, 2 on unreadable or
 *       malformed files.
 *
 * Input: '#' starts a comment line; blank lines are ignored; an edge line has
 * exactly two whitespace-separated non-negative decimal ids (CR ignored), and
 * with --weighted exactly three: the third a positive finite decimal weight.
 * Directed; the vertices are the distinct ids that occur in edges, except
 * when the file's first line is "# dsana graph: dense ids 0..K" (written by
 * `dsana graph gen`): then they are 0..K, isolated ones included. Self loops
 * are kept and count in the out-degree; duplicate edges are multi-edges unless
 * --dedup (weighted: the weight of the last such line wins, as in a networkx
 * DiGraph). --undirected: a line u v is the arcs u->v and v->u (u->u once),
 * as networkx's Graph.to_directed().
 *
 * PageRank: n vertices, r0 = 1/n; per iteration D = sum of r(u) over dangling
 * u (out-degree 0), r'(v) = (1-d)/n + d*(sum_{u->v} r(u)/out(u) + D/n),
 * residual = sum_v |r'(v) - r(v)|; stop after the iteration whose residual is
 * < tol, or after max-iter iterations. --weighted: out(u) is the sum of u's
 * out-edge weights and an edge u->v carries r(u)*w(u,v)/out(u) (networkx
 * pagerank(G, weight='weight')). --personalization FILE ("vertex weight"
 * lines, '#' comments; weights >= 0, normalised to sum 1; unlisted vertices
 * 0): r'(v) = (1-d)*p(v) + d*(sum ... + D*p(v)), i.e. teleports and dangling
 * mass both follow p (networkx's default when dangling is None).
 *
 * Exit codes: 0 ok, 1 (compare only) difference too large, 2 usage or input
 * error (one line on stderr).
 *
 * Files: this one (options, PageRank), ref_input.c (readers), ref_compare.c.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ref.h"

void fail(const char *fmt, ...) {
  va_list ap;
  fputs("ref_pagerank: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(2);
}

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q)
    fail("out of memory");
  return q;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_edge(const void *a, const void *b) {
  const struct edge *x = a, *y = b;
  if (x->src != y->src)
    return (x->src > y->src) - (x->src < y->src);
  if (x->dst != y->dst)
    return (x->dst > y->dst) - (x->dst < y->dst);
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static size_t index_of(const uint64_t *ids, size_t n, uint64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo >= n || ids[lo] != id)
    fail("internal error: id %llu not found", (unsigned long long)id);
  return lo;
}

/* --------------------------------------------------------------- pagerank */

double parse_double_opt(const char *name, const char *s) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
    fail("bad value for %s: '%s'", name, s);
  return v;
}

static long parse_long_opt(const char *name, const char *s) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE)
    fail("bad value for %s: '%s'", name, s);
  return v;
}

/* Index of id in the sorted ids, or n if absent. */

static size_t dedup_edges(struct edge *e, size_t m) {
  qsort(e, m, sizeof *e, cmp_edge);
  size_t k = 0;
  for (size_t i = 0; i < m; i++) {
    if (k == 0 || e[i].src != e[k - 1].src || e[i].dst != e[k - 1].dst)
      e[k++] = e[i];
    else
      e[k - 1] = e[i];
  }
  return k;
}

/* Vertices: 0..K for a dense-id file, else the distinct ids in edges, ascending. */
static uint64_t *vertex_ids(const struct edge *e, size_t m, const struct input *in, size_t *n_out) {
  size_t n = 0;
  if (in->dense) {
    if (in->dense_k >= UINT32_MAX)
      fail("dense ids 0..%llu: too many vertices", (unsigned long long)in->dense_k);
    n = (size_t)in->dense_k + 1;
    uint64_t *ids = xrealloc(NULL, n * sizeof *ids);
    for (size_t v = 0; v < n; v++)
      ids[v] = v;
    *n_out = n;
    return ids;
  }
  uint64_t *ids = xrealloc(NULL, 2 * m * sizeof *ids);
  for (size_t i = 0; i < m; i++) {
    ids[2 * i] = e[i].src;
    ids[2 * i + 1] = e[i].dst;
  }
  qsort(ids, 2 * m, sizeof *ids, cmp_u64);
  for (size_t i = 0; i < 2 * m; i++)
    if (n == 0 || ids[i] != ids[n - 1])
      ids[n++] = ids[i];
  *n_out = n;
  return ids;
}

static int run_pagerank(int argc, char **argv) {
  const char *path = NULL, *pers_path = NULL;
  double damping = 0.85, tol = 1e-6;
  long max_iter = 100;
  int dedup = 0;
  struct input in = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--damping") && i + 1 < argc)
      damping = parse_double_opt(a, argv[++i]);
    else if (!strcmp(a, "--tol") && i + 1 < argc)
      tol = parse_double_opt(a, argv[++i]);
    else if (!strcmp(a, "--max-iter") && i + 1 < argc)
      max_iter = parse_long_opt(a, argv[++i]);
    else if (!strcmp(a, "--dedup"))
      dedup = 1;
    else if (!strcmp(a, "--weighted"))
      in.weighted = 1;
    else if (!strcmp(a, "--undirected"))
      in.undirected = 1;
    else if (!strcmp(a, "--personalization") && i + 1 < argc)
      pers_path = argv[++i];
    else if (a[0] == '-' && a[1] == '-')
      fail("unknown option or missing value: %s", a);
    else if (!path)
      path = a;
    else
      fail("more than one graph given: %s", a);
  }
  if (!path)
    fail("usage: ref_pagerank GRAPH [--damping D] [--tol T] [--max-iter K] [--dedup] [--weighted] [--undirected] "
         "[--personalization FILE]");
  if (!(damping >= 0.0 && damping <= 1.0))
    fail("--damping must be in [0, 1]");
  if (!(tol >= 0.0))
    fail("--tol must be >= 0");
  if (max_iter < 1)
    fail("--max-iter must be >= 1");

  size_t m, n;
  struct edge *e = read_edges(path, &in, &m);
  if (dedup)
    m = dedup_edges(e, m);
  uint64_t *ids = vertex_ids(e, m, &in, &n);

  size_t *src = xrealloc(NULL, m * sizeof *src);
  size_t *dst = xrealloc(NULL, m * sizeof *dst);
  double *w = xrealloc(NULL, m * sizeof *w);
  double *outdeg = xrealloc(NULL, n * sizeof *outdeg);
  for (size_t v = 0; v < n; v++)
    outdeg[v] = 0.0;
  for (size_t i = 0; i < m; i++) {
    src[i] = index_of(ids, n, e[i].src);
    dst[i] = index_of(ids, n, e[i].dst);
    w[i] = e[i].w;
    outdeg[src[i]] += in.weighted ? w[i] : 1.0;
  }
  free(e);
  for (size_t v = 0; v < n; v++)
    if (!isfinite(outdeg[v]))
      fail("%s: out-edge weights of vertex %llu sum to infinity", path, (unsigned long long)ids[v]);
  double *pers = pers_path ? read_personalization(pers_path, ids, n) : NULL;

  double *r = xrealloc(NULL, n * sizeof *r);
  double *acc = xrealloc(NULL, n * sizeof *acc);
  double *contrib = xrealloc(NULL, n * sizeof *contrib);
  const double nd = (double)n;
  for (size_t v = 0; v < n; v++)
    r[v] = 1.0 / nd;

  for (long it = 0; it < max_iter; it++) {
    double dangling = 0.0;
    for (size_t u = 0; u < n; u++) {
      if (outdeg[u] == 0.0) {
        dangling += r[u];
        contrib[u] = 0.0;
      } else {
        contrib[u] = r[u] / outdeg[u];
      }
      acc[u] = 0.0;
    }
    if (in.weighted)
      for (size_t i = 0; i < m; i++)
        acc[dst[i]] += contrib[src[i]] * w[i];
    else
      for (size_t i = 0; i < m; i++)
        acc[dst[i]] += contrib[src[i]];
    double residual = 0.0;
    for (size_t v = 0; v < n; v++) {
      double nv = pers ? (1.0 - damping) * pers[v] + damping * (acc[v] + dangling * pers[v])
                       : (1.0 - damping) / nd + damping * (acc[v] + dangling / nd);
      residual += fabs(nv - r[v]);
      r[v] = nv;
    }
    if (residual < tol)
      break;
  }

  for (size_t v = 0; v < n; v++)
    printf("%llu\t%.12g\n", (unsigned long long)ids[v], r[v]);
  if (fflush(stdout) != 0 || ferror(stdout))
    fail("write error on stdout: %s", strerror(errno));

  free(ids);
  free(src);
  free(dst);
  free(w);
  free(outdeg);
  free(pers);
  free(r);
  free(acc);
  free(contrib);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--compare"))
    return run_compare(argc, argv);
  return run_pagerank(argc, argv);
}
