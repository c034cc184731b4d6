/*
 * dataset_libsvm.c - the libsvm/svmlight text reader: "label idx:val ..."
 * per line, 1-based strictly ascending indices, '#' comments, blank lines
 * skipped, '\r' ignored, "qid:" refused. A hand-written scanner over the
 * big blocks of whole lines that graph_text.c hands out (each ends in
 * '\n', the scanner's sentinel); numbers are decimal (no hex, inf or
 * nan) and take Clinger's exact fast path
 * (a mantissa below 2^53 times or over a power of ten up to 10^22, one
 * correctly rounded operation) and fall back to strtod otherwise, so every
 * value is the double nearest its decimal text, as strtod gives it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"

/* The CSR under construction: rows and entries grow by doubling. */
struct svm_build {
  const char *path;
  uint64_t line;
  uint64_t feature_limit; /* indices above it are refused */
  uint64_t max_index;     /* largest index seen (= n_features so far) */
  uint64_t *row_off;
  double *label;
  size_t n_rows, rows_cap;
  uint32_t *col;
  double *val;
  size_t nnz, nnz_cap;
};

static inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static inline bool ends_field(char c) { return is_blank(c) || c == '\n' || c == '#'; }
static inline bool is_digit(char c) { return (unsigned)(c - '0') <= 9; }

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Clinger's fast path for [+-]digits[.digits][(e|E)[+-]digits]; false
 * when the text is outside it (the caller then asks strtod). */
static bool fast_double(const char *p, const char **endp, double *out) {
  bool neg = *p == '-';
  p += (*p == '-' || *p == '+');
  uint64_t mant = 0;
  int digits = 0, exp10 = 0;
  const char *start = p;
  for (; is_digit(*p); p++, digits++)
    mant = mant * 10 + (uint64_t)(*p - '0');
  if (*p == '.')
    for (p++; is_digit(*p); p++, digits++, exp10--)
      mant = mant * 10 + (uint64_t)(*p - '0');
  if (p == start || (p == start + 1 && *start == '.') || digits > 19 || mant > (1ull << 53))
    return false;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    bool eneg = *q == '-';
    q += (*q == '-' || *q == '+');
    if (!is_digit(*q) || (is_digit(q[1]) && is_digit(q[2])))
      return false; /* no digits, or three or more: strtod knows */
    int e = *q++ - '0';
    if (is_digit(*q))
      e = e * 10 + (*q++ - '0');
    exp10 += eneg ? -e : e;
    p = q;
  }
  if (exp10 < -22 || exp10 > 22)
    return false;
  double v = (double)mant;
  v = exp10 < 0 ? v / POW10[-exp10] : v * POW10[exp10];
  *out = neg ? -v : v;
  *endp = p;
  return true;
}

/* Decimal syntax only: strtod also takes hexadecimal ("0x1p3"). */
static bool decimal_chars(const char *p) {
  for (; !ends_field(*p); p++)
    if (!is_digit(*p) && *p != '.' && *p != 'e' && *p != 'E' && *p != '+' && *p != '-')
      return false;
  return true;
}

/* A decimal number ending at a field end. 0 ok, 1 not a number, 2 not finite. */
static int scan_double(const char **pp, double *out) {
  const char *p = *pp, *end;
  double v;
  bool fast = fast_double(p, &end, &v) && ends_field(*end);
  if (!fast) {
    char *e;           /* long mantissas, big exponents, hex, inf, nan or junk */
    v = strtod(p, &e); /* stops at the block's final '\n' at the latest */
    end = e;
  }
  if (end == p || !ends_field(*end))
    return 1;
  if (!isfinite(v))
    return 2;
  if (!fast && !decimal_chars(p))
    return 1;
  *pp = end;
  *out = v;
  return 0;
}

/* "PATH:LINE: what 'token'after" for the token at p. */
static int tok_err(const struct svm_build *b, char *err, size_t errlen, const char *what, const char *p,
                   const char *after) {
  char tok[48];
  graph_token(p, tok, sizeof tok);
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: %s '%s'%s", b->path, (unsigned long long)b->line, what, tok,
                 after);
}

static bool grow_rows(struct svm_build *b) {
  size_t cap = b->rows_cap ? b->rows_cap * 2 : 1024;
  uint64_t *ro = realloc(b->row_off, (cap + 1) * sizeof *ro);
  if (ro)
    b->row_off = ro;
  double *lb = ro ? realloc(b->label, cap * sizeof *lb) : NULL;
  if (lb)
    b->label = lb;
  if (!ro || !lb)
    return false;
  b->rows_cap = cap;
  return true;
}

static bool grow_nnz(struct svm_build *b) {
  size_t cap = b->nnz_cap ? b->nnz_cap * 2 : 4096;
  uint32_t *c = realloc(b->col, cap * sizeof *c);
  if (c)
    b->col = c;
  double *v = c ? realloc(b->val, cap * sizeof *v) : NULL;
  if (v)
    b->val = v;
  if (!c || !v)
    return false;
  b->nnz_cap = cap;
  return true;
}

/* The label at the start of a row. */
static int parse_label(struct svm_build *b, const char **pp, char *err, size_t errlen) {
  const char *p = *pp;
  const char *colon = p;
  while (!ends_field(*colon) && *colon != ':')
    colon++;
  if (*colon == ':') {
    if (colon - p == 3 && memcmp(p, "qid", 3) == 0)
      return tok_err(b, err, errlen, "ranking data (qid) is not supported:", p, "");
    return tok_err(b, err, errlen, "missing label: the line starts with the pair", p, "");
  }
  double v;
  int why = scan_double(&p, &v);
  if (why)
    return tok_err(b, err, errlen, why == 2 ? "non-finite label" : "non-numeric label", *pp, "");
  if (b->n_rows == b->rows_cap && !grow_rows(b))
    return io_errf(err, errlen, DSANA_ENOMEM, "%s:%llu: out of memory", b->path, (unsigned long long)b->line);
  b->label[b->n_rows] = v;
  *pp = p;
  return 0;
}

/* A 1-based index: digits then ':'. 0 ok (*idx capped above 2^32). */
static int parse_index(struct svm_build *b, const char **pp, uint64_t *idx, char *err, size_t errlen) {
  const char *p = *pp;
  uint64_t x = 0;
  if (!is_digit(*p)) {
    if (p[0] == 'q' && p[1] == 'i' && p[2] == 'd' && p[3] == ':') /* stops at '\n' */
      return tok_err(b, err, errlen, "ranking data (qid) is not supported:", p, "");
    return tok_err(b, err, errlen, "malformed pair", p, " (want index:value)");
  }
  for (; is_digit(*p); p++)
    x = x > UINT32_MAX ? x : x * 10 + (uint64_t)(*p - '0');
  if (*p != ':')
    return tok_err(b, err, errlen, "malformed pair", *pp, " (want index:value)");
  *idx = x;
  *pp = p + 1;
  return 0;
}

/* Index idx may follow prev (0 = none yet) on this row: 0, else the message. */
static int check_index(struct svm_build *b, uint64_t idx, uint64_t prev, const char *tok, char *err, size_t errlen) {
  const char *path = b->path;
  unsigned long long line = b->line;
  if (idx == 0)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: index 0 (libsvm indices start at 1)", path, line);
  if (idx > b->feature_limit) {
    char t[48];
    graph_token(tok, t, sizeof t);
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: index out of range in '%s' (at most %llu)", path, line, t,
                   (unsigned long long)b->feature_limit);
  }
  if (idx == prev)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: duplicate index %llu", path, line, (unsigned long long)idx);
  if (idx < prev)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: index %llu after index %llu (indices must ascend)", path, line,
                   (unsigned long long)idx, (unsigned long long)prev);
  return 0;
}

/* One "idx:val" pair at *pp (not blank, not the line's end). */
static int parse_pair(struct svm_build *b, const char **pp, uint64_t *prev, char *err, size_t errlen) {
  const char *tok = *pp, *p = *pp;
  uint64_t idx = 0;
  double v = 0;
  int rc = parse_index(b, &p, &idx, err, errlen);
  if (rc)
    return rc;
  if (ends_field(*p))
    return tok_err(b, err, errlen, "malformed pair", tok, " (no value after ':')");
  int why = scan_double(&p, &v);
  if (why)
    return tok_err(b, err, errlen, why == 2 ? "non-finite value in pair" : "non-numeric value in pair", tok, "");
  if ((rc = check_index(b, idx, *prev, tok, err, errlen)) != 0)
    return rc;
  if (b->nnz == b->nnz_cap && !grow_nnz(b))
    return io_errf(err, errlen, DSANA_ENOMEM, "%s:%llu: out of memory", b->path, (unsigned long long)b->line);
  b->col[b->nnz] = (uint32_t)(idx - 1);
  b->val[b->nnz++] = v;
  if (idx > b->max_index)
    b->max_index = idx;
  *prev = idx;
  *pp = p;
  return 0;
}

/* One non-blank, non-comment line at *pp; leaves *pp after its '\n'. */
static int parse_row(struct svm_build *b, const char **pp, const char *end, char *err, size_t errlen) {
  const char *p = *pp;
  uint64_t prev = 0;
  int rc = parse_label(b, &p, err, errlen);
  while (!rc) {
    while (is_blank(*p))
      p++;
    if (*p == '\n' || *p == '#')
      break;
    rc = parse_pair(b, &p, &prev, err, errlen);
  }
  if (rc)
    return rc;
  b->row_off[++b->n_rows] = b->nnz;
  *pp = (const char *)memchr(p, '\n', (size_t)(end - p)) + 1;
  return 0;
}

static int parse_block(struct svm_build *b, const char *p, const char *end, char *err, size_t errlen) {
  while (p < end) {
    b->line++;
    while (is_blank(*p))
      p++;
    if (*p == '\n' || *p == '#') {
      p = (const char *)memchr(p, '\n', (size_t)(end - p)) + 1;
      continue;
    }
    int rc = parse_row(b, &p, end, err, errlen);
    if (rc)
      return rc;
  }
  return 0;
}

static void build_free(struct svm_build *b) {
  free(b->row_off);
  free(b->label);
  free(b->col);
  free(b->val);
}

/* Trim the arrays to size and hand them to ds. */
static int finish(struct svm_build *b, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds, char *err,
                  size_t errlen) {
  if (b->n_rows == 0) {
    build_free(b);
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: empty dataset (no rows)", b->path);
  }
  if (b->nnz < b->nnz_cap) { /* never to 0 bytes: the arrays stay non-NULL */
    size_t keep = b->nnz ? b->nnz : 1;
    uint32_t *c = realloc(b->col, keep * sizeof *c);
    b->col = c ? c : b->col;
    double *v = realloc(b->val, keep * sizeof *v);
    b->val = v ? v : b->val;
  }
  int rc =
      ds_adopt(ds, b->path, b->n_rows, b->max_index, b->nnz, b->row_off, b->col, b->val, false, b->label, err, errlen);
  if (rc)
    return rc;
  rc = ds_apply_opts(ds, opts, err, errlen);
  if (rc)
    dsana_dataset_fini(ds);
  return rc;
}

int ds_parse_libsvm(struct graph_text *t, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds, char *err,
                    size_t errlen) {
  struct svm_build b = {.path = t->path, .feature_limit = DSANA_DATASET_MAX_FEATURES};
  const char *p, *end;
  int rc;
  memset(ds, 0, sizeof *ds);
  t->max_line = DS_LIBSVM_MAX_LINE;
  if (opts && opts->n_features_max && opts->n_features_max < b.feature_limit)
    b.feature_limit = opts->n_features_max;
  if (!grow_rows(&b) || !grow_nnz(&b)) {
    build_free(&b);
    return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", t->path);
  }
  b.row_off[0] = 0;
  while ((rc = graph_text_next(t, b.line, &p, &end, err, errlen)) == 1)
    if ((rc = parse_block(&b, p, end, err, errlen)) != 0)
      break;
  if (rc) {
    build_free(&b);
    return rc;
  }
  return finish(&b, opts, ds, err, errlen);
}
