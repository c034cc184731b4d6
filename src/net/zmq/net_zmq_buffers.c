/*
 * net_zmq_buffers.c - shared buffers of the ipc:// transport (transport.h):
 * files in the context's private local folder, mapped shared by the server
 * that creates them and read-only by the workers of the same machine. A
 * region (net_buffer_join) is one file that every joiner maps whole and
 * writes its slice of; the process keeps its regions' mappings in a list,
 * so that a slice's pointer unmaps the whole mapping on release.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/error.h"
#include "net/zmq/net_zmq_internal.h"

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

/* This process's mapped regions (joined, not yet released). */
struct zn_region {
  struct zn_region *next;
  char *base;
  size_t bytes;
};
static pthread_mutex_t zn_regions_mu = PTHREAD_MUTEX_INITIALIZER;
static struct zn_region *zn_regions;

/* The region file at path, sized region_bytes (made so by whoever opens
 * it first; a file of another size is another region's: DSANA_EIO), mapped
 * read-write whole. */
static void *zn_region_map(const char *path, size_t region_bytes) {
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    return MAP_FAILED;
  struct stat st;
  void *p = MAP_FAILED;
  if (fstat(fd, &st) == 0 && (size_t)st.st_size <= region_bytes &&
      ((size_t)st.st_size == region_bytes || ftruncate(fd, (off_t)region_bytes) == 0))
    p = mmap(NULL, region_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  return p;
}

int zn_buffer_join(struct net_ctx *ctx, const char *name, size_t region_bytes, size_t offset, size_t bytes,
                   double **out) {
  char path[1400];
  int rc = zn_buffer_path(ctx, name, path, sizeof path);
  if (rc)
    return rc;
  if (bytes == 0)
    return DSANA_EINVAL;
  struct zn_region *r = malloc(sizeof *r);
  void *p = r ? zn_region_map(path, region_bytes) : MAP_FAILED;
  if (p == MAP_FAILED) {
    free(r);
    return r ? DSANA_EIO : DSANA_ENOMEM;
  }
  *r = (struct zn_region){.base = p, .bytes = region_bytes};
  pthread_mutex_lock(&zn_regions_mu);
  r->next = zn_regions;
  zn_regions = r;
  pthread_mutex_unlock(&zn_regions_mu);
  memset(r->base + offset, 0, bytes); /* the joiner's slice, whatever a run before left */
  *out = (double *)(void *)(r->base + offset);
  return 0;
}

/* Take out of the list the region that holds p: its mapping (NULL: p is
 * a buffer of its own). */
static struct zn_region *zn_region_take(const void *p) {
  const char *c = p;
  pthread_mutex_lock(&zn_regions_mu);
  struct zn_region *r = NULL;
  for (struct zn_region **pp = &zn_regions; *pp; pp = &(*pp)->next)
    if (c >= (*pp)->base && c < (*pp)->base + (*pp)->bytes) {
      r = *pp;
      *pp = r->next;
      break;
    }
  pthread_mutex_unlock(&zn_regions_mu);
  return r;
}

void zn_buffer_release(struct net_ctx *ctx, const void *p, size_t bytes) {
  (void)ctx;
  struct zn_region *r = zn_region_take(p);
  if (r) {
    munmap(r->base, r->bytes);
    free(r);
    return;
  }
  munmap((void *)p, bytes ? bytes : 8);
}
