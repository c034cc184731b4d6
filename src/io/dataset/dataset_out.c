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

#include "dsana/error.h"
#include "dsana/outfile.h"
#include "io/dataset/dataset_internal.h"

int ds_out_open(struct ds_out *o, const char *path, char *err, size_t errlen) {
  o->path = path;
  int rc = dsana_outfile_open(path, 0, &o->out, err, errlen);
  o->fd = rc ? -1 : dsana_outfile_fd(o->out);
  return rc;
}

int ds_out_finish(struct ds_out *o, bool ok, int saved_errno, char *err, size_t errlen) {
  int rc = 0;
  if (!ok) {
    rc = io_errf(err, errlen, DSANA_EIO, "%s: write failed: %s", o->path, strerror(saved_errno ? saved_errno : EIO));
    dsana_outfile_discard(o->out);
  } else {
    rc = dsana_outfile_commit(o->out, err, errlen);
  }
  o->out = NULL;
  o->fd = -1;
  return rc;
}
