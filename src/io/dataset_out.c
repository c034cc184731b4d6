/*
 * dataset_out.c - the output file under the dataset writers, through
 * dsana/outfile.h: a regular file is replaced atomically only when
 * complete (a reader sees the old file or the whole new one), a FIFO or
 * device is written in place; on failure nothing is left behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/dsana.h"
#include "dsana/outfile.h"
#include "io/dataset_internal.h"

bool ds_write_all(int fd, const void *p, uint64_t len) {
  const char *c = p;
  while (len) {
    size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
    ssize_t w = write(fd, c, chunk);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = EIO;
      return false;
    }
    c += w;
    len -= (uint64_t)w;
  }
  return true;
}

int ds_out_open(struct ds_out *o, const char *path, char *err, size_t errlen) {
  o->path = path;
  int rc = dsana_outfile_open(path, 0, &o->out, err, errlen);
  o->fd = rc ? -1 : dsana_outfile_fd(o->out);
  return rc;
}

int ds_out_finish(struct ds_out *o, bool ok, int saved_errno, char *err, size_t errlen) {
  int rc = 0;
  if (!ok) {
    rc = graph_errf(err, errlen, DSANA_EIO, "%s: write failed: %s", o->path, strerror(saved_errno ? saved_errno : EIO));
    dsana_outfile_discard(o->out);
  } else {
    rc = dsana_outfile_commit(o->out, err, errlen);
  }
  o->out = NULL;
  o->fd = -1;
  return rc;
}
