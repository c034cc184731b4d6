/*
 * dataset_out.c - the atomic output file under the dataset writers: data
 * goes to "PATH.tmp.XXXXXX" in the same folder, is fsync'd, and is renamed
 * over PATH only when complete, so a reader sees the old file or the whole
 * new one, never a torn one; on failure the temporary file is removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/dsana.h"
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
  size_t plen = strlen(path);
  o->path = path;
  o->fd = -1;
  o->tmp = malloc(plen + 16);
  if (!o->tmp)
    return graph_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", path);
  snprintf(o->tmp, plen + 16, "%s.tmp.XXXXXX", path);
  o->fd = mkstemp(o->tmp);
  if (o->fd < 0 || fchmod(o->fd, 0644) != 0) {
    int rc = graph_errf(err, errlen, DSANA_EIO, "%s: cannot create a temporary file beside it: %s", path,
                        strerror(errno));
    if (o->fd >= 0) {
      close(o->fd);
      unlink(o->tmp);
    }
    free(o->tmp);
    o->tmp = NULL;
    return rc;
  }
  return 0;
}

/* fsync the folder holding path, so the rename itself is durable. */
static void sync_dir(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path == 0 ? 1 : slash - path), path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

int ds_out_finish(struct ds_out *o, bool ok, int saved_errno, char *err, size_t errlen) {
  if (ok && fsync(o->fd) != 0) {
    saved_errno = errno;
    ok = false;
  }
  if (close(o->fd) != 0 && ok) {
    saved_errno = errno;
    ok = false;
  }
  if (ok && rename(o->tmp, o->path) != 0) {
    saved_errno = errno;
    ok = false;
  }
  if (!ok)
    unlink(o->tmp);
  free(o->tmp);
  o->tmp = NULL;
  o->fd = -1;
  if (!ok)
    return graph_errf(err, errlen, DSANA_EIO, "%s: write failed: %s", o->path,
                      strerror(saved_errno ? saved_errno : EIO));
  sync_dir(o->path);
  return 0;
}
