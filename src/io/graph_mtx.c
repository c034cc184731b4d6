/*
 * graph_mtx.c - Matrix Market coordinate files as graphs: entry (i, j) is
 * the edge i -> j (row to column); pattern, real and integer fields
 * (values are ignored), general or symmetric (symmetric adds j -> i for
 * i != j). Indices are 1-based and kept as original ids: vertex v has
 * orig_id v + 1, n = max(rows, cols).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dsana/dsana.h"
#include "io/graph_internal.h"

struct mtx {
  const char *path;
  uint64_t line;
  int stage;        /* 0 banner, 1 size line, 2 entries */
  bool symmetric, valued;
  uint64_t rows, cols, nnz, seen;
  uint32_t *src, *dst;
  size_t len, cap;
};

static inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Next whitespace-separated word of the line at *pp into w (lowercased). */
static size_t word(const char **pp, char *w, size_t wlen) {
  const char *p = *pp;
  size_t i = 0;
  while (is_blank(*p))
    p++;
  while (!is_blank(*p) && *p != '\n') {
    if (i + 1 < wlen)
      w[i++] = (char)((*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p);
    p++;
  }
  w[i] = '\0';
  *pp = p;
  return i;
}

static int banner(struct mtx *x, const char *p, char *err, size_t errlen) {
  char w[5][32];
  for (int i = 0; i < 5; i++)
    word(&p, w[i], sizeof w[i]);
  if (strcmp(w[0], "%%matrixmarket") != 0 || strcmp(w[1], "matrix") != 0)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:1: bad Matrix Market banner (want '%%%%MatrixMarket matrix ...')",
                      x->path);
  if (strcmp(w[2], "coordinate") != 0)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:1: unsupported Matrix Market format '%s' (only coordinate)",
                      x->path, w[2]);
  if (strcmp(w[3], "pattern") == 0)
    x->valued = false;
  else if (strcmp(w[3], "real") == 0 || strcmp(w[3], "integer") == 0 || strcmp(w[3], "double") == 0)
    x->valued = true;
  else
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:1: unsupported Matrix Market field '%s'", x->path, w[3]);
  if (strcmp(w[4], "general") == 0)
    x->symmetric = false;
  else if (strcmp(w[4], "symmetric") == 0)
    x->symmetric = true;
  else
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:1: unsupported Matrix Market symmetry '%s'", x->path, w[4]);
  return 0;
}

/* Parse an unsigned decimal field; false if not one. */
static bool field_u64(const char **pp, uint64_t *out, char *tok, size_t toklen) {
  const char *p = *pp;
  uint64_t v = 0;
  while (is_blank(*p))
    p++;
  graph_token(p, tok, toklen);
  if ((unsigned)(*p - '0') > 9)
    return false;
  while ((unsigned)(*p - '0') <= 9) {
    unsigned d = (unsigned)(*p - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
    p++;
  }
  if (!is_blank(*p) && *p != '\n')
    return false;
  *pp = p;
  *out = v;
  return true;
}

static int size_line(struct mtx *x, const char *p, char *err, size_t errlen) {
  char tok[48];
  if (!field_u64(&p, &x->rows, tok, sizeof tok) || !field_u64(&p, &x->cols, tok, sizeof tok) ||
      !field_u64(&p, &x->nnz, tok, sizeof tok))
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: bad size line (want 'rows cols entries'), at '%s'",
                      x->path, (unsigned long long)x->line, tok);
  uint64_t n = x->rows > x->cols ? x->rows : x->cols;
  if (n > GRAPH_MAX_VERTICES)
    return graph_errf(err, errlen, DSANA_ERANGE, "%s:%llu: %llu vertices: more than %llu supported", x->path,
                      (unsigned long long)x->line, (unsigned long long)n, (unsigned long long)GRAPH_MAX_VERTICES);
  if (x->symmetric && x->rows != x->cols)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: symmetric matrix is not square (%llu x %llu)", x->path,
                      (unsigned long long)x->line, (unsigned long long)x->rows, (unsigned long long)x->cols);
  return 0;
}

static bool push(struct mtx *x, uint32_t s, uint32_t d) {
  if (x->len == x->cap) {
    size_t ncap = x->cap ? x->cap * 2 : (1u << 16);
    uint32_t *ns = realloc(x->src, ncap * sizeof *ns);
    if (!ns)
      return false;
    x->src = ns;
    uint32_t *nd = realloc(x->dst, ncap * sizeof *nd);
    if (!nd)
      return false;
    x->dst = nd;
    x->cap = ncap;
  }
  x->src[x->len] = s;
  x->dst[x->len++] = d;
  return true;
}

static int entry(struct mtx *x, const char *p, char *err, size_t errlen) {
  char tok[48];
  uint64_t i, j;
  unsigned long long ln = (unsigned long long)x->line;
  if (x->seen == x->nnz)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: more entries than the %llu declared", x->path, ln,
                      (unsigned long long)x->nnz);
  if (!field_u64(&p, &i, tok, sizeof tok) || !field_u64(&p, &j, tok, sizeof tok)) {
    if (!tok[0])
      return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: expected 'row col%s', found fewer fields", x->path,
                        ln, x->valued ? " value" : "");
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: bad index '%s'", x->path, ln, tok);
  }
  if (x->valued && !word(&p, tok, sizeof tok))
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: missing value", x->path, ln);
  if (i < 1 || j < 1 || i > x->rows || j > x->cols)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: entry (%llu, %llu) outside the declared %llu x %llu",
                      x->path, ln, (unsigned long long)i, (unsigned long long)j, (unsigned long long)x->rows,
                      (unsigned long long)x->cols);
  x->seen++;
  if (!push(x, (uint32_t)(i - 1), (uint32_t)(j - 1)) || (x->symmetric && i != j && !push(x, (uint32_t)(j - 1), (uint32_t)(i - 1))))
    return graph_errf(err, errlen, DSANA_ENOMEM, "%s:%llu: out of memory", x->path, ln);
  return 0;
}

static int parse_block(struct mtx *x, const char *p, const char *end, char *err, size_t errlen) {
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    x->line++;
    int rc = 0;
    if (x->stage == 0) {
      rc = banner(x, p, err, errlen);
      x->stage = 1;
    } else {
      const char *q = p;
      while (is_blank(*q))
        q++;
      if (*q == '%' || *q == '\n') {
        p = nl + 1;
        continue;
      }
      if (x->stage == 1) {
        rc = size_line(x, q, err, errlen);
        x->stage = 2;
      } else {
        rc = entry(x, q, err, errlen);
      }
    }
    if (rc)
      return rc;
    p = nl + 1;
  }
  return 0;
}

int graph_parse_mtx(struct graph_text *t, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                    size_t errlen) {
  struct mtx x = {.path = t->path};
  const char *p, *end;
  int rc;
  memset(g, 0, sizeof *g);
  while ((rc = graph_text_next(t, &p, &end, err, errlen)) == 1) {
    rc = parse_block(&x, p, end, err, errlen);
    if (rc)
      break;
  }
  if (rc)
    goto fail;
  if (x.stage < 2) {
    rc = graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: missing size line", t->path, (unsigned long long)x.line);
    goto fail;
  }
  if (x.seen != x.nnz) {
    rc = graph_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: %llu entries declared, %llu found", t->path,
                    (unsigned long long)x.line, (unsigned long long)x.nnz, (unsigned long long)x.seen);
    goto fail;
  }
  if (x.len == 0) {
    rc = graph_errf(err, errlen, DSANA_EFORMAT, "%s: empty graph (no edges)", t->path);
    goto fail;
  }
  uint64_t n = x.rows > x.cols ? x.rows : x.cols;
  uint64_t *orig = malloc(n * sizeof *orig);
  if (!orig) {
    rc = graph_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", t->path);
    goto fail;
  }
  for (uint64_t v = 0; v < n; v++)
    orig[v] = v + 1;
  return graph_build(n, x.len, x.src, x.dst, true, orig, opts && opts->dedup, g, err, errlen);
fail:
  free(x.src);
  free(x.dst);
  return rc;
}
