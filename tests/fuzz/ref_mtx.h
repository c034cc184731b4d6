/*
 * ref_mtx.h - the fuzz target's reference reader for Matrix Market files,
 * written from the format (NIST's "The Matrix Market Exchange Formats")
 * and README.md ("Graphs"), not from src/io/graphfile/graph_mtx.c:
 *
 * - Line 1 is the banner, exactly five words (case does not matter):
 *   %%MatrixMarket matrix coordinate FIELD SYMMETRY, FIELD pattern, real,
 *   integer or double, SYMMETRY general or symmetric.
 * - Then comment lines (first field starting with '%') and blank lines,
 *   and the size line: exactly "rows cols entries", digits each;
 *   max(rows, cols) < 2^32; a symmetric matrix is square.
 * - Then exactly `entries` entries (comments and blank lines between
 *   them skipped): "i j" and, unless pattern, a value; nothing after. i
 *   in 1..rows, j in 1..cols. The value: integer digits with an optional
 *   sign for integer, a decimal number for real and double; finite either
 *   way, and with --weighted from 2.2250738585072014e-308 to
 *   1.7976931348623157e+308 (a pattern file has none: refused).
 * - Entry (i, j) is the arc i-1 -> j-1; symmetric adds j-1 -> i-1 for i != j.
 *   n = max(rows, cols), vertex v's original id v + 1. No entry refuses.
 *
 * Leniencies of dsana the reference shares (docs/fuzzing.md says why):
 * blanks before the banner, comments after the size line, "double" as a
 * synonym of real, entries above the diagonal of a symmetric file.
 */
#ifndef DSANA_FUZZ_REF_MTX_H
#define DSANA_FUZZ_REF_MTX_H

#include <float.h>
#include <math.h>
#include <strings.h>

#include "ref_graph.h"
#include "ref_text.h"

struct ref_mtx {
  struct ref_graph *g;
  int stage; /* 1 size line next, 2 entries */
  bool valued, integer, symmetric;
  uint64_t rows, cols, nnz, seen;
};

static bool ref_word(struct ref_field f, const char *word) {
  return f.n == strlen(word) && strncasecmp(f.p, word, f.n) == 0;
}

static int ref_mtx_banner(struct ref_mtx *x, const struct ref_field *f, size_t count) {
  if (count != 5 || !ref_word(f[0], "%%MatrixMarket") || !ref_word(f[1], "matrix") || !ref_word(f[2], "coordinate"))
    return REF_REFUSE;
  x->integer = ref_word(f[3], "integer");
  x->valued = x->integer || ref_word(f[3], "real") || ref_word(f[3], "double");
  if (!x->valued && !ref_word(f[3], "pattern"))
    return REF_REFUSE;
  x->symmetric = ref_word(f[4], "symmetric");
  if (!x->symmetric && !ref_word(f[4], "general"))
    return REF_REFUSE;
  return x->g->weighted && !x->valued ? REF_REFUSE : REF_ACCEPT;
}

static int ref_mtx_size(struct ref_mtx *x, const struct ref_field *f, size_t count) {
  if (count != 3 || !ref_uint(f[0], &x->rows) || !ref_uint(f[1], &x->cols) || !ref_uint(f[2], &x->nnz))
    return REF_REFUSE;
  x->g->n = x->rows > x->cols ? x->rows : x->cols;
  if (x->g->n > UINT32_MAX || (x->symmetric && x->rows != x->cols))
    return REF_REFUSE;
  return REF_ACCEPT;
}

static bool ref_mtx_value(const struct ref_mtx *x, struct ref_field f, double *w) {
  size_t i = f.n && (f.p[0] == '+' || f.p[0] == '-');
  if (x->integer) {
    if (i == f.n)
      return false;
    for (; i < f.n; i++)
      if (!ref_digit(f.p[i]))
        return false;
  }
  if (!ref_decimal(f, w) || !isfinite(*w))
    return false;
  return !x->g->weighted || (*w >= DBL_MIN && *w <= DBL_MAX);
}

static int ref_mtx_entry(struct ref_mtx *x, const struct ref_field *f, size_t count) {
  uint64_t i, j;
  double w = 0;
  if (x->seen == x->nnz || count != 2u + x->valued || !ref_uint(f[0], &i) || !ref_uint(f[1], &j))
    return REF_REFUSE;
  if ((x->valued && !ref_mtx_value(x, f[2], &w)) || i == 0 || j == 0 || i > x->rows || j > x->cols)
    return REF_REFUSE;
  x->seen++;
  ref_graph_push(x->g, (uint32_t)(i - 1), (uint32_t)(j - 1), w);
  if (x->symmetric && i != j)
    ref_graph_push(x->g, (uint32_t)(j - 1), (uint32_t)(i - 1), w);
  return REF_ACCEPT;
}

static int ref_mtx_line(void *ctx, uint64_t lineno, const char *p, size_t n) {
  struct ref_mtx *x = ctx;
  struct ref_field f[REF_MAX_FIELDS];
  size_t count;
  ref_split(p, n, f, &count);
  if (lineno == 1)
    return ref_mtx_banner(x, f, count);
  if (count == 0 || f[0].p[0] == '%')
    return REF_ACCEPT;
  if (x->stage++ == 0)
    return ref_mtx_size(x, f, count);
  x->stage = 2;
  return ref_mtx_entry(x, f, count);
}

/* Read data as a Matrix Market file into g (zeroed first; ref_graph_fini it). */
static int ref_mtx_read(const uint8_t *data, size_t size, bool weighted, struct ref_graph *g) {
  struct ref_bytes b;
  struct ref_mtx x = {.g = g};
  memset(g, 0, sizeof *g);
  g->weighted = weighted;
  int v = ref_read_bytes(data, size, &b);
  if (v == REF_ACCEPT)
    v = ref_lines(&b, (size_t)1 << 20, &x, ref_mtx_line);
  free(b.owned);
  if (v == REF_ACCEPT && (x.stage == 0 || x.seen != x.nnz || x.nnz == 0))
    v = REF_REFUSE;
  g->one_based = true;
  g->mirrored = x.symmetric;
  return v;
}

#endif
