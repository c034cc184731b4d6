/* shm.c - see shm.h. */
#include "runtime/shm.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/dsana.h"

void shm_path(char *buf, size_t len, const char *dir, uint32_t server, uint32_t table, uint32_t which) {
  snprintf(buf, len, "%s/shm-s%u-t%u-b%u", dir, server, table, which);
}

int shm_create(const char *path, size_t bytes, double **out) {
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

int shm_open_ro(const char *path, size_t bytes, const double **out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return DSANA_EIO;
  struct stat st;
  size_t len = bytes ? bytes : 8;
  void *p = fstat(fd, &st) == 0 && (size_t)st.st_size >= len ? mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0)
                                                               : MAP_FAILED;
  close(fd);
  if (p == MAP_FAILED)
    return DSANA_EIO;
  *out = p;
  return 0;
}

void shm_unmap(const void *p, size_t bytes) {
  if (p)
    munmap((void *)p, bytes ? bytes : 8);
}
