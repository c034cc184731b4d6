/*
 * dataset_open.c - dsana_dataset_open(): pick the reader by content (binary
 * by magic, memory-mapped and fully checked; IDX refused with a pointer to
 * the pair reader; anything else libsvm text through the block reader,
 * plain or gzip), plus what every dataset source shares: taking over heap
 * arrays, the n_features options, and dsana_dataset_fini().
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dsana/dsana.h"
#include "io/dataset_internal.h"

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
    return graph_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", name);
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
    return graph_errf(err, errlen, DSANA_EINVAL, "%s: n_features_min %llu above the limit %llu", ds_name(ds),
                      (unsigned long long)opts->n_features_min, (unsigned long long)DSANA_DATASET_MAX_FEATURES);
  if (opts->n_features_max && opts->n_features_min > opts->n_features_max)
    return graph_errf(err, errlen, DSANA_EINVAL, "%s: n_features_min %llu above n_features_max %llu", ds_name(ds),
                      (unsigned long long)opts->n_features_min, (unsigned long long)opts->n_features_max);
  if (opts->n_features_max && ds->n_features > opts->n_features_max)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: %llu features, more than the %llu allowed", ds_name(ds),
                      (unsigned long long)ds->n_features, (unsigned long long)opts->n_features_max);
  if (ds->n_features < opts->n_features_min)
    ds->n_features = opts->n_features_min;
  return 0;
}

void dsana_dataset_fini(struct dsana_dataset *ds) {
  if (!ds)
    return;
  for (int i = 0; i < 4; i++)
    free(ds->priv_heap[i]);
  if (ds->priv_map)
    munmap(ds->priv_map, ds->priv_map_len);
  free(ds->priv_name);
  memset(ds, 0, sizeof *ds);
}

/* A mapped binary file, checked whole, with opts applied. */
static int open_binary(const char *path, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds,
                       char *err, size_t errlen) {
  int rc = dsana_dataset_map_binary(path, ds, err, errlen);
  if (rc)
    return rc;
  rc = dsana_dataset_check(ds, 0, ds->n_rows, err, errlen);
  if (!rc)
    rc = ds_apply_opts(ds, opts, err, errlen);
  if (rc)
    dsana_dataset_fini(ds);
  return rc;
}

/* IDX magic (unsigned bytes, 1 or 3 dimensions), plain or inflated. */
static bool looks_like_idx(const char *p, const char *end) {
  return end - p >= 4 && p[0] == 0 && p[1] == 0 && p[2] == 8 && (p[3] == 1 || p[3] == 3);
}

int dsana_dataset_open(const char *path, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds,
                       char *err, size_t errlen) {
  struct graph_text t;
  const char *p, *end;
  memset(ds, 0, sizeof *ds);
  if (!path)
    return graph_errf(err, errlen, DSANA_EINVAL, "dataset_open: NULL path");
  if (dsana_dataset_is_binary(path))
    return open_binary(path, opts, ds, err, errlen);
  int rc = graph_text_open(&t, path, err, errlen);
  if (rc)
    return rc;
  rc = graph_text_next(&t, &p, &end, err, errlen);
  if (rc == 1 && looks_like_idx(p, end))
    rc = graph_errf(err, errlen, DSANA_EFORMAT,
                    "%s: offset 0: an IDX file (MNIST format): read images and labels together "
                    "(dsana data convert --idx IMAGES LABELS OUT)",
                    path);
  else if (rc == 1 && end - p >= 8 && memcmp(p, "DSNADATA", 8) == 0)
    rc = graph_errf(err, errlen, DSANA_EFORMAT,
                    "%s: offset 0: a compressed binary dataset: decompress it, the binary format is mapped as is",
                    path);
  else if (rc >= 0) {
    t.replay = true;
    rc = ds_parse_libsvm(&t, opts, ds, err, errlen);
  }
  graph_text_close(&t);
  return rc;
}
