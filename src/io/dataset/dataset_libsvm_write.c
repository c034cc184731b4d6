/*
 * dataset_libsvm_write.c - dsana_dataset_write_libsvm(): a dataset as
 * libsvm text ("label idx:val ...", 1-based indices), plain or gzip,
 * through the atomic output file of dataset_out.c. Numbers are printed so
 * they read back exactly: doubles with "%.15g" when that round-trips (most
 * data: "0.1", not "0.10000000000000001"), else "%.17g"; floats with "%.9g".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"
#include "util/text/fdwrite.h"
#include "util/text/str.h"

enum { SINK_BYTES = 1 << 20, ENTRY_BYTES_MAX = 64 };

struct sink {
  int fd;
  gzFile z; /* NULL: plain */
  char *buf;
  size_t cap; /* flushed once len passes it; buf has 2 * ENTRY_BYTES_MAX more */
  size_t len;
  bool ok;
  int saved_errno;
};

static void sink_flush(struct sink *s) {
  if (s->ok && s->len) {
    if (s->z)
      s->ok = gzwrite(s->z, s->buf, (unsigned)s->len) == (int)s->len;
    else
      s->ok = fd_write_all(s->fd, s->buf, s->len);
    if (!s->ok)
      s->saved_errno = errno ? errno : EIO;
  }
  s->len = 0;
}

/* Shortest of %.15g / %.17g that reads back as x. */
static int put_f64(char *p, double x) {
  int n = snprintf(p, ENTRY_BYTES_MAX / 2, "%.15g", x);
  if (strtod(p, NULL) != x)
    n = snprintf(p, ENTRY_BYTES_MAX / 2, "%.17g", x);
  return n;
}

static void put_row(struct sink *s, const struct dsana_dataset *ds, uint64_t r) {
  s->len += (size_t)put_f64(s->buf + s->len, ds->label[r]);
  for (uint64_t k = ds->row_off[r]; k < ds->row_off[r + 1]; k++) {
    char *p = s->buf + s->len;
    int n = 0;
    p[n++] = ' ';
    n = (int)(str_put_u64(p + n, (uint64_t)ds->col[k] + 1) - p);
    p[n++] = ':';
    if (ds->val_f32)
      n += snprintf(p + n, ENTRY_BYTES_MAX / 2, "%.9g", (double)ds->val_f32[k]);
    else
      n += put_f64(p + n, ds->val_f64[k]);
    s->len += (size_t)n;
    if (s->len > s->cap)
      sink_flush(s);
  }
  s->buf[s->len++] = '\n';
  if (s->len > s->cap)
    sink_flush(s);
}

/* SINK_BYTES, or less when the whole text is bound to fit in less (a
 * label and a newline per row, an entry per value, each at most
 * ENTRY_BYTES_MAX): a small dataset does not allocate 1 MiB. */
static size_t sink_bytes(const struct dsana_dataset *ds) {
  uint64_t nnz = ds->row_off[ds->n_rows];
  if (ds->n_rows >= SINK_BYTES / ENTRY_BYTES_MAX || nnz >= SINK_BYTES / ENTRY_BYTES_MAX)
    return SINK_BYTES;
  uint64_t bound = (ds->n_rows + nnz) * ENTRY_BYTES_MAX;
  return bound < SINK_BYTES ? (size_t)bound : SINK_BYTES;
}

int dsana_dataset_write_libsvm(const struct dsana_dataset *ds, const char *path, char *err, size_t errlen) {
  struct ds_out o;
  if (!ds || !path || !ds->row_off || !ds->label || (!ds->val_f32) == (!ds->val_f64))
    return io_errf(err, errlen, DSANA_EINVAL, "%s: dataset_write_libsvm: not a dataset", path ? path : "?");
  struct sink s = {.ok = true, .cap = sink_bytes(ds)};
  s.buf = malloc(s.cap + 2 * ENTRY_BYTES_MAX);
  if (!s.buf)
    return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", path);
  int rc = ds_out_open(&o, path, err, errlen);
  if (rc) {
    free(s.buf);
    return rc;
  }
  s.fd = o.fd;
  if (str_ends_with(path, ".gz")) {
    int fd2 = dup(o.fd);
    s.z = fd2 >= 0 ? gzdopen(fd2, "wb6") : NULL;
    if (!s.z) {
      s.ok = false;
      s.saved_errno = errno ? errno : ENOMEM;
      if (fd2 >= 0)
        close(fd2);
    }
  }
  for (uint64_t r = 0; r < ds->n_rows && s.ok; r++)
    put_row(&s, ds, r);
  sink_flush(&s);
  if (s.z && gzclose(s.z) != Z_OK && s.ok) {
    s.ok = false;
    s.saved_errno = errno ? errno : EIO;
  }
  free(s.buf);
  return ds_out_finish(&o, s.ok, s.saved_errno, err, errlen);
}
