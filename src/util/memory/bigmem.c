/* bigmem.c - huge-page-advised zeroed allocations (bigmem.h). */
#define _GNU_SOURCE
#include "util/memory/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_BYTES ((size_t)2 << 20)
#define PAGE_BYTES ((size_t)4096)

/* Write a byte of every page of [p, p + bytes): a fresh mapping faults on
 * its first write, so the faults are taken now (volatile: the stores stay). */
static void touch_pages(volatile char *p, size_t bytes) {
  for (size_t at = 0; p && at < bytes; at += PAGE_BYTES)
    p[at] = 0;
}

void *big_calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size)
    return NULL;
  size_t bytes = n * size;
  if (bytes < 2 * HUGE_BYTES) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    touch_pages(p, bytes);
    return p;
  }
  size_t round = (bytes + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;
  void *p = NULL;
  if (posix_memalign(&p, HUGE_BYTES, round) != 0)
    return NULL;
  (void)madvise(p, round, MADV_HUGEPAGE); /* advice: refused where THP is off */
  memset(p, 0, bytes);
  return p;
}

void heap_prefault(size_t bytes) {
  if (!bytes)
    return;
  void *p = malloc(bytes);
  touch_pages(p, bytes); /* its stores keep the block from being optimised away */
  free(p);
}
