/*
 * net_zmq_buffers.c - shared buffers of the ipc:// transport (transport.h):
 * files in the context's private local folder, mapped shared by the server
 * that creates them and read-only by the workers of the same machine.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/error.h"
#include "net/transport_impl.h"

static int zn_buffer_path(struct net_ctx *ctx, const char *name, char *path, size_t len) {
  if (strcmp(ctx->scheme, "ipc") != 0 || !ctx->local_dir[0])
    return DSANA_ENOTSUP;
  snprintf(path, len, "%s/buf-%s", ctx->local_dir, name);
  return 0;
}

int zn_buffer_create(struct net_ctx *ctx, const char *name, size_t bytes, double **out) {
  char path[1400];
  int rc = zn_buffer_path(ctx, name, path, sizeof path);
  if (rc)
    return rc;
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return DSANA_EIO;
  size_t len = bytes ? bytes : 8;
  void *p = ftruncate(fd, (off_t)len) == 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  close(fd);
  if (p == MAP_FAILED)
    return DSANA_EIO;
  *out = p;
  return 0;
}

int zn_buffer_map(struct net_ctx *ctx, const char *name, size_t bytes, const double **out) {
  char path[1400];
  int rc = zn_buffer_path(ctx, name, path, sizeof path);
  if (rc)
    return rc;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return DSANA_EIO;
  struct stat st;
  size_t len = bytes ? bytes : 8;
  void *p =
      fstat(fd, &st) == 0 && (size_t)st.st_size >= len ? mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  close(fd);
  if (p == MAP_FAILED)
    return DSANA_EIO;
  *out = p;
  return 0;
}

void zn_buffer_release(struct net_ctx *ctx, const void *p, size_t bytes) {
  (void)ctx;
  munmap((void *)p, bytes ? bytes : 8);
}
