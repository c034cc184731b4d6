/*
 * dataset_check.c - dsana_dataset_check(): the O(entries) validation a
 * mapped dataset gets before its rows are trusted (a worker checks the rows
 * of its tasks; dsana_dataset_open checks them all, section CRCs included).
 * Messages name the file, the row and, for a mapping, the byte offset of
 * the offending item, so a damaged file can be inspected with a hex dump.
 */
#include <math.h>
#include <stdio.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"

/* " (offset N)" for an item of a mapped file, "" otherwise. */
static const char *where(const struct dsana_dataset *ds, const void *item, char *buf, size_t len) {
  buf[0] = '\0';
  if (ds->priv_map)
    snprintf(buf, len, " (offset %llu)", (unsigned long long)((const char *)item - (const char *)ds->priv_map));
  return buf;
}

static int row_err(const struct dsana_dataset *ds, uint64_t r, const void *item, const char *what, char *err,
                   size_t errlen) {
  char at[40];
  return io_errf(err, errlen, DSANA_EFORMAT, "%s: row %llu%s: %s", ds_name(ds), (unsigned long long)r,
                 where(ds, item, at, sizeof at), what);
}

/* The entries [a, b) of row r. */
static int check_entries(const struct dsana_dataset *ds, uint64_t r, uint64_t a, uint64_t b, char *err, size_t errlen) {
  char what[120];
  for (uint64_t k = a; k < b; k++) {
    uint32_t c = ds->col[k];
    if (c >= ds->n_features) {
      snprintf(what, sizeof what, "feature %u not below n_features = %llu", c, (unsigned long long)ds->n_features);
      return row_err(ds, r, &ds->col[k], what, err, errlen);
    }
    if (k > a && c <= ds->col[k - 1]) {
      snprintf(what, sizeof what, "feature %u after feature %u (features must ascend)", c, ds->col[k - 1]);
      return row_err(ds, r, &ds->col[k], what, err, errlen);
    }
    if (!isfinite(dsana_dataset_val(ds, k)))
      return row_err(ds, r, ds->val_f32 ? (const void *)&ds->val_f32[k] : (const void *)&ds->val_f64[k],
                     "value not finite", err, errlen);
  }
  return 0;
}

int dsana_dataset_check(const struct dsana_dataset *ds, uint64_t row_lo, uint64_t row_hi, char *err, size_t errlen) {
  if (row_lo > row_hi || row_hi > ds->n_rows)
    return io_errf(err, errlen, DSANA_ERANGE, "%s: rows [%llu, %llu) outside [0, %llu)", ds_name(ds),
                   (unsigned long long)row_lo, (unsigned long long)row_hi, (unsigned long long)ds->n_rows);
  if (io_mem_dataset_checked(ds)) /* in memory, unchanged since every row passed */
    return 0;
  bool whole = row_lo == 0 && row_hi == ds->n_rows;
  if (whole) {
    int rc = ds_binary_verify_crcs(ds, err, errlen);
    if (rc)
      return rc;
  }
  char what[120];
  for (uint64_t r = row_lo; r < row_hi; r++) {
    uint64_t a = ds->row_off[r], b = ds->row_off[r + 1];
    if (a > b || b > ds->nnz) {
      snprintf(what, sizeof what, "row_off %llu..%llu not monotone within %llu entries", (unsigned long long)a,
               (unsigned long long)b, (unsigned long long)ds->nnz);
      return row_err(ds, r, &ds->row_off[r], what, err, errlen);
    }
    if (!isfinite(ds->label[r]))
      return row_err(ds, r, &ds->label[r], "label not finite", err, errlen);
    int rc = check_entries(ds, r, a, b, err, errlen);
    if (rc)
      return rc;
  }
  if (whole)
    io_mem_dataset_mark_checked(ds);
  return 0;
}
