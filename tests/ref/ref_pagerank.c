/*
 * ref_pagerank.c - an independent, sequential reference PageRank for the
 * integration tests. It shares no code with dsana: only libc, zlib and libm.
 * Written to be obviously right rather than fast.
 *
 * Usage:
 *   ref_pagerank GRAPH [--damping 0.85] [--tol 1e-6] [--max-iter 100] [--dedup]
 *       Reads a SNAP edge list (plain or gzip, via gzopen), prints
 *       "vertex<TAB>rank" (%.12g) for every vertex in ascending original id.
 *   ref_pagerank --compare A B [--max-diff 1e-9]
 *       Compares two such outputs: same ids in the same order; prints
 *       "max_abs_diff=.. sum_a=.. sum_b=.. top_a=.. top_b=..".
 *       Exit 0 if max abs diff <= max-diff, 1 otherwise, 2 on unreadable or
 *       malformed files.
 *
 * Input: '#' starts a comment line; blank lines are ignored; an edge line has
 * exactly two whitespace-separated non-negative decimal ids (CR ignored).
 * Directed; the vertices are the distinct ids that occur in edges; self loops
 * are kept and count in the out-degree; duplicate edges are multi-edges unless
 * --dedup.
 *
 * PageRank: n vertices, r0 = 1/n; per iteration D = sum of r(u) over dangling
 * u (out-degree 0), r'(v) = (1-d)/n + d*(sum_{u->v} r(u)/out(u) + D/n),
 * residual = sum_v |r'(v) - r(v)|; stop after the iteration whose residual is
 * < tol, or after max-iter iterations.
 *
 * Exit codes: 0 ok, 1 (compare only) difference too large, 2 usage or input
 * error (one line on stderr).
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

static void fail(const char *fmt, ...) {
  va_list ap;
  fputs("ref_pagerank: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(2);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) fail("out of memory");
  return q;
}

/* ---------------------------------------------------------------- reading */

struct edge {
  uint64_t src, dst;
};

/* Reads one line (without the '\n') into *buf; returns 0 at EOF, 1 otherwise. */
static int read_line(gzFile f, const char *path, char **buf, size_t *cap) {
  size_t len = 0;
  if (*cap < 256) {
    *cap = 256;
    *buf = xrealloc(*buf, *cap);
  }
  for (;;) {
    if (!gzgets(f, *buf + len, (int)(*cap - len))) {
      int errnum = 0;
      const char *msg = gzerror(f, &errnum);
      if (errnum != Z_OK && errnum != Z_STREAM_END)
        fail("%s: read error: %s", path, errnum == Z_ERRNO ? strerror(errno) : msg);
      if (len == 0) return 0; /* clean EOF */
      (*buf)[len] = '\0';
      return 1; /* last line without newline */
    }
    len += strlen(*buf + len);
    if (len > 0 && (*buf)[len - 1] == '\n') {
      (*buf)[len - 1] = '\0';
      return 1;
    }
    if (gzeof(f)) {
      int errnum = 0;
      const char *msg = gzerror(f, &errnum);
      if (errnum != Z_OK && errnum != Z_STREAM_END)
        fail("%s: read error: %s", path, errnum == Z_ERRNO ? strerror(errno) : msg);
      return 1;
    }
    if (len + 1 >= *cap) {
      *cap *= 2;
      *buf = xrealloc(*buf, *cap);
    }
  }
}

static int is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parses a non-negative decimal id token [s, e). */
static uint64_t parse_id(const char *s, const char *e, const char *path, unsigned long long lineno) {
  uint64_t v = 0;
  if (s == e) fail("%s:%llu: empty vertex id", path, lineno);
  for (const char *p = s; p < e; p++) {
    if (*p < '0' || *p > '9')
      fail("%s:%llu: bad vertex id '%.*s'", path, lineno, (int)(e - s), s);
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10) fail("%s:%llu: vertex id too large '%.*s'", path, lineno, (int)(e - s), s);
    v = v * 10 + d;
  }
  return v;
}

static struct edge *read_edges(const char *path, size_t *m_out) {
  gzFile f = gzopen(path, "rb");
  if (!f) fail("%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
  gzbuffer(f, 1 << 17);
  char *line = NULL;
  size_t cap = 0;
  unsigned long long lineno = 0;
  struct edge *e = NULL;
  size_t m = 0, ecap = 0;
  while (read_line(f, path, &line, &cap)) {
    lineno++;
    const char *tok[3];
    const char *end[3];
    int ntok = 0;
    const char *p = line;
    while (*p && is_space(*p)) p++;
    if (*p == '\0' || *p == '#') continue;
    while (*p) {
      if (is_space(*p)) {
        p++;
        continue;
      }
      const char *s = p;
      while (*p && !is_space(*p)) p++;
      if (ntok < 3) {
        tok[ntok] = s;
        end[ntok] = p;
      }
      ntok++;
    }
    if (ntok != 2) fail("%s:%llu: expected 2 fields, got %d", path, lineno, ntok);
    if (m == ecap) {
      ecap = ecap ? ecap * 2 : 1024;
      e = xrealloc(e, ecap * sizeof *e);
    }
    e[m].src = parse_id(tok[0], end[0], path, lineno);
    e[m].dst = parse_id(tok[1], end[1], path, lineno);
    m++;
  }
  free(line);
  int rc = gzclose(f);
  if (rc != Z_OK) fail("%s: read error on close (%d)", path, rc);
  if (m == 0) fail("%s: no edges", path);
  *m_out = m;
  return e;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_edge(const void *a, const void *b) {
  const struct edge *x = a, *y = b;
  if (x->src != y->src) return (x->src > y->src) - (x->src < y->src);
  return (x->dst > y->dst) - (x->dst < y->dst);
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
  if (lo >= n || ids[lo] != id) fail("internal error: id %llu not found", (unsigned long long)id);
  return lo;
}

/* --------------------------------------------------------------- pagerank */

static double parse_double_opt(const char *name, const char *s) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v)) fail("bad value for %s: '%s'", name, s);
  return v;
}

static long parse_long_opt(const char *name, const char *s) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE) fail("bad value for %s: '%s'", name, s);
  return v;
}

static int run_pagerank(int argc, char **argv) {
  const char *path = NULL;
  double damping = 0.85, tol = 1e-6;
  long max_iter = 100;
  int dedup = 0;
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
    else if (a[0] == '-' && a[1] == '-')
      fail("unknown option or missing value: %s", a);
    else if (!path)
      path = a;
    else
      fail("more than one graph given: %s", a);
  }
  if (!path) fail("usage: ref_pagerank GRAPH [--damping D] [--tol T] [--max-iter K] [--dedup]");
  if (!(damping >= 0.0 && damping <= 1.0)) fail("--damping must be in [0, 1]");
  if (!(tol >= 0.0)) fail("--tol must be >= 0");
  if (max_iter < 1) fail("--max-iter must be >= 1");

  size_t m;
  struct edge *e = read_edges(path, &m);

  if (dedup) {
    qsort(e, m, sizeof *e, cmp_edge);
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
      if (k == 0 || e[i].src != e[k - 1].src || e[i].dst != e[k - 1].dst) e[k++] = e[i];
    m = k;
  }

  /* Vertices: distinct ids appearing in edges, ascending. */
  uint64_t *ids = xrealloc(NULL, 2 * m * sizeof *ids);
  for (size_t i = 0; i < m; i++) {
    ids[2 * i] = e[i].src;
    ids[2 * i + 1] = e[i].dst;
  }
  qsort(ids, 2 * m, sizeof *ids, cmp_u64);
  size_t n = 0;
  for (size_t i = 0; i < 2 * m; i++)
    if (n == 0 || ids[i] != ids[n - 1]) ids[n++] = ids[i];

  size_t *src = xrealloc(NULL, m * sizeof *src);
  size_t *dst = xrealloc(NULL, m * sizeof *dst);
  double *outdeg = xrealloc(NULL, n * sizeof *outdeg);
  for (size_t v = 0; v < n; v++) outdeg[v] = 0.0;
  for (size_t i = 0; i < m; i++) {
    src[i] = index_of(ids, n, e[i].src);
    dst[i] = index_of(ids, n, e[i].dst);
    outdeg[src[i]] += 1.0;
  }
  free(e);

  double *r = xrealloc(NULL, n * sizeof *r);
  double *acc = xrealloc(NULL, n * sizeof *acc);
  double *contrib = xrealloc(NULL, n * sizeof *contrib);
  const double nd = (double)n;
  for (size_t v = 0; v < n; v++) r[v] = 1.0 / nd;

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
    for (size_t i = 0; i < m; i++) acc[dst[i]] += contrib[src[i]];
    double residual = 0.0;
    for (size_t v = 0; v < n; v++) {
      double nv = (1.0 - damping) / nd + damping * (acc[v] + dangling / nd);
      residual += fabs(nv - r[v]);
      r[v] = nv;
    }
    if (residual < tol) break;
  }

  for (size_t v = 0; v < n; v++) printf("%llu\t%.12g\n", (unsigned long long)ids[v], r[v]);
  if (fflush(stdout) != 0 || ferror(stdout)) fail("write error on stdout: %s", strerror(errno));

  free(ids);
  free(src);
  free(dst);
  free(outdeg);
  free(r);
  free(acc);
  free(contrib);
  return 0;
}

/* ---------------------------------------------------------------- compare */

struct ranks {
  char **id; /* id tokens as written */
  double *rank;
  size_t n;
};

static int load_ranks(const char *path, struct ranks *out) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "ref_pagerank: %s: cannot open: %s\n", path, strerror(errno));
    return -1;
  }
  char *line = NULL;
  size_t cap = 0, rcap = 0;
  ssize_t len;
  unsigned long long lineno = 0;
  memset(out, 0, sizeof *out);
  while ((len = getline(&line, &cap, f)) != -1) {
    lineno++;
    if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    char *tab = strchr(line, '\t');
    if (!tab || tab == line || strchr(tab + 1, '\t')) {
      fprintf(stderr, "ref_pagerank: %s:%llu: expected 'vertex<TAB>rank'\n", path, lineno);
      goto bad;
    }
    *tab = '\0';
    for (char *p = line; *p; p++)
      if (!isdigit((unsigned char)*p)) {
        fprintf(stderr, "ref_pagerank: %s:%llu: bad vertex id '%s'\n", path, lineno, line);
        goto bad;
      }
    char *end;
    errno = 0;
    double v = strtod(tab + 1, &end);
    if (end == tab + 1 || *end != '\0') {
      fprintf(stderr, "ref_pagerank: %s:%llu: bad rank '%s'\n", path, lineno, tab + 1);
      goto bad;
    }
    if (out->n == rcap) {
      rcap = rcap ? rcap * 2 : 1024;
      out->id = xrealloc(out->id, rcap * sizeof *out->id);
      out->rank = xrealloc(out->rank, rcap * sizeof *out->rank);
    }
    out->id[out->n] = strdup(line);
    if (!out->id[out->n]) fail("out of memory");
    out->rank[out->n] = v;
    out->n++;
  }
  if (ferror(f)) {
    fprintf(stderr, "ref_pagerank: %s: read error: %s\n", path, strerror(errno));
    goto bad;
  }
  free(line);
  fclose(f);
  if (out->n == 0) {
    fprintf(stderr, "ref_pagerank: %s: no vertices\n", path);
    return -1;
  }
  return 0;
bad:
  free(line);
  fclose(f);
  return -1;
}

/* Index of the largest rank (first one on ties); NaN never wins. */
static size_t top_of(const struct ranks *r) {
  size_t best = 0;
  for (size_t i = 1; i < r->n; i++)
    if (r->rank[i] > r->rank[best] || isnan(r->rank[best])) best = i;
  return best;
}

static int run_compare(int argc, char **argv) {
  const char *pa = NULL, *pb = NULL;
  double max_diff = 1e-9;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--max-diff") && i + 1 < argc)
      max_diff = parse_double_opt(a, argv[++i]);
    else if (a[0] == '-' && a[1] == '-')
      fail("unknown option or missing value: %s", a);
    else if (!pa)
      pa = a;
    else if (!pb)
      pb = a;
    else
      fail("--compare takes two files");
  }
  if (!pa || !pb) fail("usage: ref_pagerank --compare A B [--max-diff X]");
  struct ranks a, b;
  if (load_ranks(pa, &a) != 0 || load_ranks(pb, &b) != 0) return 2;

  int ok = 1;
  if (a.n != b.n) {
    fprintf(stderr, "ref_pagerank: vertex count differs: %s has %zu, %s has %zu\n", pa, a.n, pb, b.n);
    ok = 0;
  }
  size_t n = a.n < b.n ? a.n : b.n;
  for (size_t i = 0; i < n; i++)
    if (strcmp(a.id[i], b.id[i]) != 0) {
      fprintf(stderr, "ref_pagerank: vertex ids differ at line %zu: %s has %s, %s has %s\n", i + 1, pa, a.id[i],
              pb, b.id[i]);
      ok = 0;
      break;
    }

  double maxd = 0.0, sa = 0.0, sb = 0.0;
  size_t worst = 0;
  for (size_t i = 0; i < a.n; i++) sa += a.rank[i];
  for (size_t i = 0; i < b.n; i++) sb += b.rank[i];
  for (size_t i = 0; i < n; i++) {
    double d = fabs(a.rank[i] - b.rank[i]);
    if (isnan(d)) d = INFINITY;
    if (d > maxd) {
      maxd = d;
      worst = i;
    }
  }
  if (!(maxd <= max_diff)) ok = 0;
  printf("max_abs_diff=%.3g sum_a=%.15g sum_b=%.15g top_a=%s top_b=%s\n", maxd, sa, sb, a.id[top_of(&a)],
         b.id[top_of(&b)]);
  if (maxd > max_diff)
    fprintf(stderr, "ref_pagerank: largest difference at vertex %s: %.17g vs %.17g\n", a.id[worst], a.rank[worst],
            b.rank[worst]);
  fflush(stdout);
  for (size_t i = 0; i < a.n; i++) free(a.id[i]);
  for (size_t i = 0; i < b.n; i++) free(b.id[i]);
  free(a.id);
  free(a.rank);
  free(b.id);
  free(b.rank);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "--compare")) return run_compare(argc, argv);
  return run_pagerank(argc, argv);
}
