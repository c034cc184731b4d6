/*
 * dataset_core.c - what every dataset source shares (the bottom of the
 * dataset files): a dataset's name for messages, taking over heap arrays,
 * the n_features options, and dsana_dataset_fini().
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"

const char *ds_name(const struct dsana_dataset *ds) { return ds->priv_name ? ds->priv_name : "generated data"; }

int ds_adopt(struct dsana_dataset *ds, const char *name, uint64_t n_rows, uint64_t n_features, uint64_t nnz,
             uint64_t *row_off, uint32_t *col, void *val, bool f32, double *label, char *err, size_t errlen) {
  memset(ds, 0, sizeof *ds);
  char *copy = name ? strdup(name) : NULL;
  if (name && !copy) {
    free(row_off);
    free(col);
    free(val);
    free(label);
    return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", name);
  }
  ds->n_rows = n_rows;
  ds->n_features = n_features;
  ds->nnz = nnz;
  ds->row_off = row_off;
  ds->col = col;
  ds->val_f32 = f32 ? val : NULL;
  ds->val_f64 = f32 ? NULL : val;
  ds->label = label;
  ds->priv_heap[DS_HEAP_ROW_OFF] = row_off;
  ds->priv_heap[DS_HEAP_COL] = col;
  ds->priv_heap[DS_HEAP_VAL] = val;
  ds->priv_heap[DS_HEAP_LABEL] = label;
  ds->priv_name = copy;
  return 0;
}

int ds_apply_opts(struct dsana_dataset *ds, const struct dsana_dataset_opts *opts, char *err, size_t errlen) {
  if (!opts)
    return 0;
  if (opts->n_features_min > DSANA_DATASET_MAX_FEATURES)
    return io_errf(err, errlen, DSANA_EINVAL, "%s: n_features_min %llu above the limit %llu", ds_name(ds),
                   (unsigned long long)opts->n_features_min, (unsigned long long)DSANA_DATASET_MAX_FEATURES);
  if (opts->n_features_max && opts->n_features_min > opts->n_features_max)
    return io_errf(err, errlen, DSANA_EINVAL, "%s: n_features_min %llu above n_features_max %llu", ds_name(ds),
                   (unsigned long long)opts->n_features_min, (unsigned long long)opts->n_features_max);
  if (opts->n_features_max && ds->n_features > opts->n_features_max)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: %llu features, more than the %llu allowed", ds_name(ds),
                   (unsigned long long)ds->n_features, (unsigned long long)opts->n_features_max);
  if (ds->n_features < opts->n_features_min)
    ds->n_features = opts->n_features_min;
  return 0;
}

void dsana_dataset_forget_pages(const struct dsana_dataset *ds) {
  if (ds && ds->priv_map)
    madvise(ds->priv_map, ds->priv_map_len, MADV_DONTNEED); /* clean shared file pages: dropped, never lost */
}

void dsana_dataset_fini(struct dsana_dataset *ds) {
  if (!ds)
    return;
  if (!ds->priv_heap[DS_HEAP_COL])
    ds_dense_cols_release(ds->col);
  for (int i = 0; i < 4; i++)
    free(ds->priv_heap[i]);
  if (ds->priv_map)
    io_unmap_shared(ds->priv_map, ds->priv_map_len);
  free(ds->priv_name);
  memset(ds, 0, sizeof *ds);
}
