/*
 * fuzz_file.h - for fuzz targets whose code under test opens a path: the
 * input as a file, one memfd for the whole run (shared by the file-based
 * targets; include once per target).
 */
#ifndef DSANA_FUZZ_FILE_H
#define DSANA_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *fuzz_file(const char *name, const uint8_t *data, size_t size) {
  static int fd = -1;
  static char path[64];
  if (fd < 0) {
    fd = memfd_create(name, 0);
    if (fd < 0)
      abort();
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  }
  if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
    abort();
  return path;
}

#endif
