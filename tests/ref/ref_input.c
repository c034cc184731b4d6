/*
 * ref_input.c - the reference PageRank's readers (see ref_pagerank.c for
 * the formats): SNAP edge lists (plain or gzip, optional weights, dsana's
 * dense-id first line, undirected mirroring) and personalization files.
 * Line-at-a-time with gzgets: simple, not fast.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "ref.h"

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
      if (len == 0)
        return 0; /* clean EOF */
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

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Parses a non-negative decimal id token [s, e). */
static uint64_t parse_id(const char *s, const char *e, const char *path, unsigned long long lineno) {
  uint64_t v = 0;
  if (s == e)
    fail("%s:%llu: empty vertex id", path, lineno);
  for (const char *p = s; p < e; p++) {
    if (*p < '0' || *p > '9')
      fail("%s:%llu: bad vertex id '%.*s'", path, lineno, (int)(e - s), s);
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10)
      fail("%s:%llu: vertex id too large '%.*s'", path, lineno, (int)(e - s), s);
    v = v * 10 + d;
  }
  return v;
}

/* A positive finite decimal weight token [s, e); fails otherwise. */
static double parse_weight(const char *s, const char *e, const char *path, unsigned long long lineno) {
  char buf[128];
  char *end;
  size_t len = (size_t)(e - s);
  for (const char *p = s; p < e; p++)
    if (!strchr("0123456789.eE+-", *p))
      len = sizeof buf; /* not decimal: rejected below */
  if (len >= sizeof buf)
    fail("%s:%llu: bad edge weight '%.*s'", path, lineno, (int)(e - s), s);
  memcpy(buf, s, len);
  buf[len] = '\0';
  double w = strtod(buf, &end);
  if (end != buf + len || !isfinite(w) || !(w > 0.0))
    fail("%s:%llu: bad edge weight '%.*s'", path, lineno, (int)(e - s), s);
  return w;
}

/* Line 1 "# dsana graph: dense ids 0..K": sets in->dense, in->dense_k. */
static void dense_line(const char *line, struct input *in, const char *path) {
  static const char prefix[] = "# dsana graph: dense ids 0..";
  if (strncmp(line, prefix, sizeof prefix - 1) != 0)
    return;
  const char *p = line + sizeof prefix - 1, *s = p;
  while (*p >= '0' && *p <= '9')
    p++;
  if (p == s || (*p && strcmp(p, "\r") != 0))
    fail("%s:1: malformed dense-id line", path);
  in->dense_k = parse_id(s, p, path, 1);
  in->dense = 1;
}

static void push_edge(struct edge **e, size_t *m, size_t *ecap, uint64_t src, uint64_t dst, double w) {
  if (*m == *ecap) {
    *ecap = *ecap ? *ecap * 2 : 1024;
    *e = xrealloc(*e, *ecap * sizeof **e);
  }
  (*e)[*m].src = src;
  (*e)[*m].dst = dst;
  (*e)[*m].w = w;
  (*e)[*m].seq = *m;
  (*m)++;
}

struct edge *read_edges(const char *path, struct input *in, size_t *m_out) {
  gzFile f = gzopen(path, "rb");
  if (!f)
    fail("%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
  gzbuffer(f, 1 << 17);
  char *line = NULL;
  size_t cap = 0;
  unsigned long long lineno = 0;
  struct edge *e = NULL;
  size_t m = 0, ecap = 0;
  int want = in->weighted ? 3 : 2;
  while (read_line(f, path, &line, &cap)) {
    lineno++;
    if (lineno == 1)
      dense_line(line, in, path);
    const char *tok[3];
    const char *end[3];
    int ntok = 0;
    const char *p = line;
    while (*p && is_space(*p))
      p++;
    if (*p == '\0' || *p == '#')
      continue;
    while (*p) {
      if (is_space(*p)) {
        p++;
        continue;
      }
      const char *s = p;
      while (*p && !is_space(*p))
        p++;
      if (ntok < 3) {
        tok[ntok] = s;
        end[ntok] = p;
      }
      ntok++;
    }
    if (ntok != want)
      fail("%s:%llu: expected %d fields, got %d", path, lineno, want, ntok);
    uint64_t src = parse_id(tok[0], end[0], path, lineno);
    uint64_t dst = parse_id(tok[1], end[1], path, lineno);
    double w = in->weighted ? parse_weight(tok[2], end[2], path, lineno) : 1.0;
    if (in->dense && (src > in->dense_k || dst > in->dense_k))
      fail("%s:%llu: vertex id beyond the dense ids 0..%llu", path, lineno, (unsigned long long)in->dense_k);
    push_edge(&e, &m, &ecap, src, dst, w);
    if (in->undirected && src != dst)
      push_edge(&e, &m, &ecap, dst, src, w);
  }
  free(line);
  int rc = gzclose(f);
  if (rc != Z_OK)
    fail("%s: read error on close (%d)", path, rc);
  if (m == 0 && !in->dense)
    fail("%s: no edges", path);
  *m_out = m;
  return e;
}

static size_t find_id(const uint64_t *ids, size_t n, uint64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && ids[lo] == id ? lo : n;
}

/* The personalization vector of FILE over the vertices ids[0..n), summing to 1. */
double *read_personalization(const char *path, const uint64_t *ids, size_t n) {
  gzFile f = gzopen(path, "rb");
  if (!f)
    fail("%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
  double *p = xrealloc(NULL, n * sizeof *p);
  char *seen = xrealloc(NULL, n);
  for (size_t v = 0; v < n; v++) {
    p[v] = 0.0;
    seen[v] = 0;
  }
  char *line = NULL, *tok[3];
  size_t cap = 0;
  unsigned long long lineno = 0;
  while (read_line(f, path, &line, &cap)) {
    lineno++;
    int ntok = 0;
    for (char *q = strtok(line, " \t\r\v\f"); q; q = strtok(NULL, " \t\r\v\f"))
      if (ntok++ < 3)
        tok[ntok - 1] = q;
    if (ntok == 0 || tok[0][0] == '#')
      continue;
    if (ntok != 2)
      fail("%s:%llu: expected 'vertex weight', got %d fields", path, lineno, ntok);
    uint64_t id = parse_id(tok[0], tok[0] + strlen(tok[0]), path, lineno);
    size_t v = find_id(ids, n, id);
    if (v == n)
      fail("%s:%llu: vertex %llu is not in the graph", path, lineno, (unsigned long long)id);
    if (seen[v])
      fail("%s:%llu: vertex %llu listed twice", path, lineno, (unsigned long long)id);
    char *end;
    double w = strtod(tok[1], &end);
    if (*end || strspn(tok[1], "0123456789.eE+-") != strlen(tok[1]) || !isfinite(w) || w < 0.0)
      fail("%s:%llu: bad personalization weight '%s'", path, lineno, tok[1]);
    p[v] = w;
    seen[v] = 1;
  }
  free(line);
  free(seen);
  gzclose(f);
  double sum = 0.0;
  for (size_t v = 0; v < n; v++)
    sum += p[v];
  if (!(sum > 0.0) || !isfinite(sum))
    fail("%s: personalization weights are all zero or sum to infinity", path);
  for (size_t v = 0; v < n; v++)
    p[v] /= sum;
  return p;
}

/* Sort by (src, dst, input order) and keep one edge per pair: the last read. */
