/*
 * dataset_open.c - dsana_dataset_open(): pick the reader by content (binary
 * by magic, memory-mapped and fully checked; IDX refused with a pointer to
 * the pair reader; anything else libsvm text through the block reader,
 * plain or gzip). What every dataset source shares is in dataset_core.c.
 */
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"

/* A mapped binary file, checked whole, with opts applied. */
static int open_binary(const char *path, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds, char *err,
                       size_t errlen) {
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

int dsana_dataset_open(const char *path, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds, char *err,
                       size_t errlen) {
  struct graph_text t;
  const char *p, *end;
  memset(ds, 0, sizeof *ds);
  if (!path)
    return io_errf(err, errlen, DSANA_EINVAL, "dataset_open: NULL path");
  if (dsana_dataset_is_binary(path))
    return open_binary(path, opts, ds, err, errlen);
  int rc = graph_text_open(&t, path, err, errlen);
  if (rc)
    return rc;
  t.max_line = DS_LIBSVM_MAX_LINE; /* (the block peeked at is the parser's first) */
  rc = graph_text_next(&t, 0, &p, &end, err, errlen);
  if (rc == 1 && looks_like_idx(p, end))
    rc = io_errf(err, errlen, DSANA_EFORMAT,
                 "%s: offset 0: an IDX file (MNIST format): read images and labels together "
                 "(dsana data convert --idx IMAGES LABELS OUT)",
                 path);
  else if (rc == 1 && end - p >= 8 && memcmp(p, "DSNADATA", 8) == 0)
    rc = io_errf(err, errlen, DSANA_EFORMAT,
                 "%s: offset 0: a compressed binary dataset: decompress it, the binary format is mapped as is", path);
  else if (rc >= 0) {
    t.replay = true;
    rc = ds_parse_libsvm(&t, opts, ds, err, errlen);
  }
  graph_text_close(&t);
  return rc;
}
