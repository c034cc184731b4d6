/*
 * dataset_mem.c - datasets over arrays the caller already holds: CSR
 * arrays (a scipy.sparse CSR matrix) borrowed whole, or a dense row-major
 * matrix whose values are borrowed in place, every entry stored (zeros
 * too), with the row offsets and column indices built here. Registered
 * with dsana_dataset_mem_register (mem_source.c), it is an app's TRAIN or
 * DATA like any file; the app's checks (finite values and labels,
 * ascending columns) then run on it as on a mapped file.
 */
#include <stdlib.h>
#include <string.h>

#include "dsana/dataset.h"
#include "dsana/error.h"
#include "io/graph_internal.h"

static int check_shape(uint64_t n_rows, uint64_t n_features, const double *label, char *err, size_t errlen) {
  if (n_rows == 0 || !label)
    return graph_errf(err, errlen, DSANA_EINVAL, "in-memory dataset: no rows");
  if (n_features == 0 || n_features > DSANA_DATASET_MAX_FEATURES)
    return graph_errf(err, errlen, DSANA_EINVAL, "in-memory dataset: %llu features (want 1 to %llu)",
                      (unsigned long long)n_features, (unsigned long long)DSANA_DATASET_MAX_FEATURES);
  return 0;
}

int dsana_dataset_from_csr(uint64_t n_rows, uint64_t n_features, const uint64_t *row_off, const uint32_t *col,
                           const double *val, const double *label, struct dsana_dataset *ds, char *err, size_t errlen) {
  memset(ds, 0, sizeof *ds);
  int rc = check_shape(n_rows, n_features, label, err, errlen);
  if (rc)
    return rc;
  if (!row_off || row_off[0] != 0 || (row_off[n_rows] && (!col || !val)))
    return graph_errf(err, errlen, DSANA_EINVAL, "in-memory dataset: row offsets do not start at 0");
  *ds = (struct dsana_dataset){.n_rows = n_rows,
                               .n_features = n_features,
                               .nnz = row_off[n_rows],
                               .row_off = row_off,
                               .col = col,
                               .val_f64 = val,
                               .label = label};
  return 0;
}

int dsana_dataset_from_dense(uint64_t n_rows, uint64_t n_features, const double *x, const double *label,
                             struct dsana_dataset *ds, char *err, size_t errlen) {
  memset(ds, 0, sizeof *ds);
  int rc = check_shape(n_rows, n_features, label, err, errlen);
  if (rc)
    return rc;
  uint64_t nnz = n_rows * n_features;
  if (nnz / n_features != n_rows || nnz > ((uint64_t)1 << 40))
    return graph_errf(err, errlen, DSANA_ERANGE, "in-memory dataset: %llu x %llu entries is too many",
                      (unsigned long long)n_rows, (unsigned long long)n_features);
  uint64_t *off = graph_big_alloc((n_rows + 1) * sizeof *off);
  uint32_t *col = graph_big_alloc(nnz * sizeof *col + 1);
  if (!off || !col) {
    free(off);
    free(col);
    return graph_errf(err, errlen, DSANA_ENOMEM, "in-memory dataset: out of memory");
  }
  for (uint64_t i = 0; i <= n_rows; i++)
    off[i] = i * n_features;
  for (uint64_t i = 0; i < n_rows; i++)
    for (uint64_t j = 0; j < n_features; j++)
      col[i * n_features + j] = (uint32_t)j;
  *ds = (struct dsana_dataset){.n_rows = n_rows,
                               .n_features = n_features,
                               .nnz = nnz,
                               .row_off = off,
                               .col = col,
                               .val_f64 = x,
                               .label = label,
                               .priv_heap = {off, col}};
  return 0;
}
