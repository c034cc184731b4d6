/*
 * ref_libsvm.h - the fuzz target's reference reader for libsvm text,
 * written from README.md ("Datasets") and include/dsana/dataset.h, not
 * from src/io/dataset/dataset_libsvm.c:
 *
 * - '#' starts a comment, to the end of its line; a line with no field
 *   before it is skipped.
 * - A row: a label, a finite decimal number (no ':' in it: "qid:..." or a
 *   pair where the label should be refuses the file), then "index:value"
 *   pairs: index digits only, 1-based, strictly ascending within the row,
 *   at most 2^32 - 1 and at most n_features_max when that is set; value a
 *   finite decimal number. Index i is feature i - 1.
 * - n_features: the largest index, raised to n_features_min. No row
 *   refuses the file; so does a line over 64 MiB.
 */
#ifndef DSANA_FUZZ_REF_LIBSVM_H
#define DSANA_FUZZ_REF_LIBSVM_H

#include <math.h>

#include "dsana/dataset.h"
#include "ref_text.h"

struct ref_libsvm {
  uint64_t n_rows, nnz, n_features;
  uint64_t *row_off; /* n_rows + 1 */
  double *label;
  uint32_t *col;
  double *val;
  uint64_t rows_cap, nnz_cap;
  uint64_t limit; /* the largest index taken */
};

static void ref_libsvm_fini(struct ref_libsvm *r) {
  free(r->row_off);
  free(r->label);
  free(r->col);
  free(r->val);
  memset(r, 0, sizeof *r);
}

static void ref_libsvm_grow(struct ref_libsvm *r) {
  if (r->n_rows + 1 >= r->rows_cap) {
    r->rows_cap = r->rows_cap ? 2 * r->rows_cap : 64;
    r->row_off = realloc(r->row_off, r->rows_cap * sizeof *r->row_off);
    r->label = realloc(r->label, r->rows_cap * sizeof *r->label);
  }
  if (r->nnz >= r->nnz_cap) {
    r->nnz_cap = r->nnz_cap ? 2 * r->nnz_cap : 64;
    r->col = realloc(r->col, r->nnz_cap * sizeof *r->col);
    r->val = realloc(r->val, r->nnz_cap * sizeof *r->val);
  }
  if (!r->row_off || !r->label || !r->col || !r->val)
    abort();
}

/* One "index:value" pair after index prev of its row. */
static int ref_libsvm_pair(struct ref_libsvm *r, struct ref_field f, uint64_t *prev) {
  const char *colon = memchr(f.p, ':', f.n);
  uint64_t idx;
  double v;
  if (!colon || !ref_uint((struct ref_field){f.p, (size_t)(colon - f.p)}, &idx))
    return REF_REFUSE;
  struct ref_field value = {colon + 1, f.n - (size_t)(colon + 1 - f.p)};
  if (!ref_decimal(value, &v) || !isfinite(v) || idx == 0 || idx > r->limit || idx <= *prev)
    return REF_REFUSE;
  ref_libsvm_grow(r);
  r->col[r->nnz] = (uint32_t)(idx - 1);
  r->val[r->nnz++] = v;
  if (idx > r->n_features)
    r->n_features = idx;
  *prev = idx;
  return REF_ACCEPT;
}

static int ref_libsvm_line(void *ctx, uint64_t lineno, const char *p, size_t n) {
  struct ref_libsvm *r = ctx;
  const char *hash = memchr(p, '#', n);
  size_t i = 0;
  uint64_t prev = 0;
  double label;
  if (hash)
    n = (size_t)(hash - p);
  while (i < n && ref_blank(p[i]))
    i++;
  if (i == n)
    return REF_ACCEPT;
  size_t s = i;
  while (i < n && !ref_blank(p[i]))
    i++;
  struct ref_field f = {p + s, i - s};
  if (memchr(f.p, ':', f.n) || !ref_decimal(f, &label) || !isfinite(label))
    return REF_REFUSE;
  ref_libsvm_grow(r);
  r->label[r->n_rows] = label;
  for (;;) {
    while (i < n && ref_blank(p[i]))
      i++;
    if (i == n)
      break;
    s = i;
    while (i < n && !ref_blank(p[i]))
      i++;
    if (ref_libsvm_pair(r, (struct ref_field){p + s, i - s}, &prev) != REF_ACCEPT)
      return REF_REFUSE;
  }
  r->row_off[++r->n_rows] = r->nnz;
  return REF_ACCEPT;
}

/* Read data as libsvm text into r (zeroed first; ref_libsvm_fini it). */
static int ref_libsvm_read(const uint8_t *data, size_t size, const struct dsana_dataset_opts *o, struct ref_libsvm *r) {
  struct ref_bytes b;
  memset(r, 0, sizeof *r);
  r->limit = o->n_features_max ? o->n_features_max : UINT32_MAX;
  ref_libsvm_grow(r);
  r->row_off[0] = 0;
  int v = ref_read_bytes(data, size, &b);
  if (v == REF_ACCEPT)
    v = ref_lines(&b, (size_t)64 << 20, r, ref_libsvm_line);
  free(b.owned);
  if (v == REF_ACCEPT && r->n_rows == 0)
    v = REF_REFUSE;
  if (r->n_features < o->n_features_min)
    r->n_features = o->n_features_min;
  return v;
}

#endif
