/*
 * infile.c - dsana/infile.h: the public face of the text readers' byte
 * source (infile_src.c), so that the apps' model and centroid readers
 * take gzip as the graph and dataset readers do, trailing garbage refused
 * included, without a second gzip reader.
 */
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "dsana/infile.h"
#include "io/file/file_internal.h"

struct dsana_infile {
  struct infile_src src; /* src.path points at path */
  char path[];
};

int dsana_infile_open(const char *path, struct dsana_infile **in, char *err, size_t errlen) {
  size_t len = strlen(path) + 1;
  struct dsana_infile *f = malloc(sizeof *f + len);
  *in = NULL;
  if (!f)
    return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", path);
  memcpy(f->path, path, len);
  int rc = infile_src_open(&f->src, f->path, err, errlen);
  if (rc) {
    free(f);
    return rc;
  }
  *in = f;
  return 0;
}

int dsana_infile_read(struct dsana_infile *in, void *buf, size_t want, size_t *got, char *err, size_t errlen) {
  return infile_src_read(&in->src, buf, want, got, err, errlen);
}

void dsana_infile_close(struct dsana_infile *in) {
  if (!in)
    return;
  infile_src_close(&in->src);
  free(in);
}
