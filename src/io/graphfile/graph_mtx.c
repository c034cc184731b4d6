/*
 * graph_mtx.c - Matrix Market coordinate files as graphs: entry (i, j) is
 * the edge i -> j (row to column); pattern, real and integer fields, general
 * or symmetric (symmetric adds j -> i for i != j, with the same value).
 * Values are checked whatever the options (a finite decimal number, an
 * integer in an integer file) and ignored unless opts->weighted, which
 * reads each as the edge weight (positive finite; a pattern file is then
 * an error). A field after the value (after the column in a pattern file)
 * is refused: the format has none, and one usually means the banner names
 * the wrong field type. undirected
 * mirrors the entries of a general file (a symmetric file already is).
 * Indices are 1-based and kept as original ids: vertex v has orig_id v + 1,
 * n = max(rows, cols).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"

struct mtx {
  const char *path;
  uint64_t line;
  int stage; /* 0 banner, 1 size line, 2 entries */
  bool symmetric, valued, integer, weighted;
  char field[32]; /* the banner's field word, for messages */
  uint64_t rows, cols, nnz, seen;
  uint32_t *src, *dst;
  double *w; /* weights when weighted */
  size_t len, cap;
};

static inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Next whitespace-separated word of the line at *pp into w (lowercased;
 * a NUL byte becomes '?', so that the word matches no keyword). */
static size_t word(const char **pp, char *w, size_t wlen) {
  const char *p = *pp;
  size_t i = 0;
  while (is_blank(*p))
    p++;
  while (!is_blank(*p) && *p != '\n') {
    if (i + 1 < wlen)
      w[i++] = (char)((*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p ? *p : '?');
    p++;
  }
  w[i] = '\0';
  *pp = p;
  return i;
}

static int banner(struct mtx *x, const char *p, char *err, size_t errlen) {
  char w[6][32];
  for (int i = 0; i < 6; i++)
    word(&p, w[i], sizeof w[i]);
  if (strcmp(w[0], "%%matrixmarket") != 0 || strcmp(w[1], "matrix") != 0)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:1: bad Matrix Market banner (want '%%%%MatrixMarket matrix ...')",
                   x->path);
  if (w[5][0])
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:1: extra word '%s' after the Matrix Market banner's symmetry",
                   x->path, w[5]);
  if (strcmp(w[2], "coordinate") != 0)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:1: unsupported Matrix Market format '%s' (only coordinate)", x->path,
                   w[2]);
  if (strcmp(w[3], "pattern") == 0)
    x->valued = false;
  else if (strcmp(w[3], "real") == 0 || strcmp(w[3], "integer") == 0 || strcmp(w[3], "double") == 0)
    x->valued = true;
  else
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:1: unsupported Matrix Market field '%s'", x->path, w[3]);
  x->integer = strcmp(w[3], "integer") == 0;
  memcpy(x->field, w[3], sizeof x->field);
  if (strcmp(w[4], "general") == 0)
    x->symmetric = false;
  else if (strcmp(w[4], "symmetric") == 0)
    x->symmetric = true;
  else
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:1: unsupported Matrix Market symmetry '%s'", x->path, w[4]);
  if (x->weighted && !x->valued)
    return io_errf(err, errlen, DSANA_EFORMAT,
                   "%s:1: a pattern Matrix Market file has no values to read as edge weights (want real or integer)",
                   x->path);
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
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: bad size line (want 'rows cols entries'), at '%s'", x->path,
                   (unsigned long long)x->line, tok);
  while (is_blank(*p))
    p++;
  if (*p != '\n') {
    graph_token(p, tok, sizeof tok);
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: extra field '%s' after 'rows cols entries'", x->path,
                   (unsigned long long)x->line, tok);
  }
  uint64_t n = x->rows > x->cols ? x->rows : x->cols;
  if (n > GRAPH_MAX_VERTICES)
    return io_errf(err, errlen, DSANA_ERANGE, "%s:%llu: %llu vertices: more than %llu supported", x->path,
                   (unsigned long long)x->line, (unsigned long long)n, (unsigned long long)GRAPH_MAX_VERTICES);
  if (x->symmetric && x->rows != x->cols)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: symmetric matrix is not square (%llu x %llu)", x->path,
                   (unsigned long long)x->line, (unsigned long long)x->rows, (unsigned long long)x->cols);
  return 0;
}

static bool push(struct mtx *x, uint32_t s, uint32_t d, double w) {
  if (x->len == x->cap) {
    size_t ncap = x->cap ? x->cap * 2 : 1024;
    uint32_t *ns = realloc(x->src, ncap * sizeof *ns);
    if (!ns)
      return false;
    x->src = ns;
    uint32_t *nd = realloc(x->dst, ncap * sizeof *nd);
    if (!nd)
      return false;
    x->dst = nd;
    if (x->weighted) {
      double *nw = realloc(x->w, ncap * sizeof *nw);
      if (!nw)
        return false;
      x->w = nw;
    }
    x->cap = ncap;
  }
  x->src[x->len] = s;
  if (x->weighted)
    x->w[x->len] = w;
  x->dst[x->len++] = d;
  return true;
}

/* [+-]digits up to end: an integer field's value. */
static bool integer_syntax(const char *p, const char *end) {
  p += *p == '+' || *p == '-';
  if (p == end)
    return false;
  for (; p < end; p++)
    if ((unsigned)(*p - '0') > 9)
      return false;
  return true;
}

/* The value field at *pp, checked as the banner's field says whether or
 * not it is used: the weight when weighted. *pp moves past it. */
static int value(struct mtx *x, const char **pp, double *w, char *err, size_t errlen) {
  char tok[48];
  unsigned long long ln = (unsigned long long)x->line;
  const char *p = *pp, *end = p;
  double v = 0;
  while (is_blank(*p))
    p++;
  if (*p == '\n')
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: missing value", x->path, ln);
  bool num = graph_scan_number(p, &end, &v) && isfinite(v);
  if (!num || (x->integer && !integer_syntax(p, end))) {
    graph_token(p, tok, sizeof tok);
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: value '%s' is not %s (the banner says %s)", x->path, ln, tok,
                   x->integer ? "an integer" : "a finite decimal number", x->field);
  }
  if (x->weighted && !graph_weight_ok(v)) {
    graph_token(p, tok, sizeof tok);
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: edge weight '%s' is not a " GRAPH_WEIGHT_RANGE, x->path, ln,
                   tok);
  }
  *w = v;
  *pp = end;
  return 0;
}

/* Nothing but blanks after the entry's last field at p. */
static int line_end(const struct mtx *x, const char *p, char *err, size_t errlen) {
  char tok[48];
  while (is_blank(*p))
    p++;
  if (*p == '\n')
    return 0;
  graph_token(p, tok, sizeof tok);
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: extra field '%s' after 'row col%s' (the banner says %s)",
                 x->path, (unsigned long long)x->line, tok, x->valued ? " value" : "", x->field);
}

static int entry(struct mtx *x, const char *p, char *err, size_t errlen) {
  char tok[48];
  uint64_t i, j;
  double w = 0;
  unsigned long long ln = (unsigned long long)x->line;
  if (x->seen == x->nnz)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: more entries than the %llu declared", x->path, ln,
                   (unsigned long long)x->nnz);
  if (!field_u64(&p, &i, tok, sizeof tok) || !field_u64(&p, &j, tok, sizeof tok)) {
    if (!tok[0])
      return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: expected 'row col%s', found fewer fields", x->path, ln,
                     x->valued ? " value" : "");
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: bad index '%s'", x->path, ln, tok);
  }
  int rc = x->valued ? value(x, &p, &w, err, errlen) : 0;
  if (!rc)
    rc = line_end(x, p, err, errlen);
  if (rc)
    return rc;
  if (i == 0 || j == 0)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: index 0 (Matrix Market indices start at 1)", x->path, ln);
  if (i > x->rows || j > x->cols)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: entry (%llu, %llu) outside the declared %llu x %llu", x->path,
                   ln, (unsigned long long)i, (unsigned long long)j, (unsigned long long)x->rows,
                   (unsigned long long)x->cols);
  x->seen++;
  uint32_t r = (uint32_t)(i - 1), c = (uint32_t)(j - 1);
  if (!push(x, r, c, w) || (x->symmetric && i != j && !push(x, c, r, w)))
    return io_errf(err, errlen, DSANA_ENOMEM, "%s:%llu: out of memory", x->path, ln);
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
  struct mtx x = {.path = t->path, .weighted = opts && opts->weighted};
  const char *p, *end;
  int rc;
  memset(g, 0, sizeof *g);
  while ((rc = graph_text_next(t, x.line, &p, &end, err, errlen)) == 1) {
    rc = parse_block(&x, p, end, err, errlen);
    if (rc)
      break;
  }
  if (rc)
    goto fail;
  if (x.stage < 2) {
    rc = io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: missing size line", t->path, (unsigned long long)x.line);
    goto fail;
  }
  if (x.seen != x.nnz) {
    rc = io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: %llu entries declared, %llu found", t->path,
                 (unsigned long long)x.line, (unsigned long long)x.nnz, (unsigned long long)x.seen);
    goto fail;
  }
  if (x.len == 0) {
    rc = io_errf(err, errlen, DSANA_EFORMAT, "%s: empty graph (no edges)", t->path);
    goto fail;
  }
  uint64_t n = x.rows > x.cols ? x.rows : x.cols;
  uint64_t *orig = malloc(n * sizeof *orig);
  if (!orig) {
    rc = io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", t->path);
    goto fail;
  }
  for (uint64_t v = 0; v < n; v++)
    orig[v] = v + 1;
  struct graph_edges e = {.path = t->path,
                          .n = n,
                          .m = x.len,
                          .src = x.src,
                          .dst = x.dst,
                          .w = x.w,
                          .orig_id = orig,
                          .owned = true,
                          .dedup = opts && opts->dedup,
                          .mirror = opts && opts->undirected && !x.symmetric};
  return graph_build(&e, g, err, errlen);
fail:
  free(x.src);
  free(x.dst);
  free(x.w);
  return rc;
}
