/*
 * ref_compare.c - `ref_pagerank --compare A B [--max-diff X]`: compare two
 * "vertex<TAB>rank" outputs (same ids in the same order) by the largest
 * absolute difference of their ranks.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"

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
    if (len > 0 && line[len - 1] == '\n')
      line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r')
      line[--len] = '\0';
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
    if (!out->id[out->n])
      fail("out of memory");
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
    if (r->rank[i] > r->rank[best] || isnan(r->rank[best]))
      best = i;
  return best;
}

int run_compare(int argc, char **argv) {
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
  if (!pa || !pb)
    fail("usage: ref_pagerank --compare A B [--max-diff X]");
  struct ranks a, b;
  if (load_ranks(pa, &a) != 0 || load_ranks(pb, &b) != 0)
    return 2;

  int ok = 1;
  if (a.n != b.n) {
    fprintf(stderr, "ref_pagerank: vertex count differs: %s has %zu, %s has %zu\n", pa, a.n, pb, b.n);
    ok = 0;
  }
  size_t n = a.n < b.n ? a.n : b.n;
  for (size_t i = 0; i < n; i++)
    if (strcmp(a.id[i], b.id[i]) != 0) {
      fprintf(stderr, "ref_pagerank: vertex ids differ at line %zu: %s has %s, %s has %s\n", i + 1, pa, a.id[i], pb,
              b.id[i]);
      ok = 0;
      break;
    }

  double maxd = 0.0, sa = 0.0, sb = 0.0;
  size_t worst = 0;
  for (size_t i = 0; i < a.n; i++)
    sa += a.rank[i];
  for (size_t i = 0; i < b.n; i++)
    sb += b.rank[i];
  for (size_t i = 0; i < n; i++) {
    double d = fabs(a.rank[i] - b.rank[i]);
    if (isnan(d))
      d = INFINITY;
    if (d > maxd) {
      maxd = d;
      worst = i;
    }
  }
  if (!(maxd <= max_diff))
    ok = 0;
  printf("max_abs_diff=%.3g sum_a=%.15g sum_b=%.15g top_a=%s top_b=%s\n", maxd, sa, sb, a.id[top_of(&a)],
         b.id[top_of(&b)]);
  if (maxd > max_diff)
    fprintf(stderr, "ref_pagerank: largest difference at vertex %s: %.17g vs %.17g\n", a.id[worst], a.rank[worst],
            b.rank[worst]);
  fflush(stdout);
  for (size_t i = 0; i < a.n; i++)
    free(a.id[i]);
  for (size_t i = 0; i < b.n; i++)
    free(b.id[i]);
  free(a.id);
  free(a.rank);
  free(b.id);
  free(b.rank);
  return ok ? 0 : 1;
}
