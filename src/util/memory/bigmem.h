/*
 * bigmem.h - zeroed allocations for large arrays read at random (a
 * worker's copy of a table, a server's shard): aligned to 2 MiB and
 * advised as transparent huge pages, so random reads over megabytes miss
 * the TLB far less often (one entry covers 2 MiB instead of 4 KiB). Small
 * requests are calloc. Either way every page is touched before it returns,
 * so that page faults are paid when a role allocates (while the job loads),
 * not in its first iterations, and the result is released with free().
 */
#ifndef DSANA_UTIL_BIGMEM_H
#define DSANA_UTIL_BIGMEM_H

#include <stddef.h>

/* n elements of size bytes, zeroed; NULL when memory runs out or n * size
 * overflows. */
void *big_calloc(size_t n, size_t size);

/* Grow the calling thread's malloc heap by `bytes`, every page touched,
 * and free it again. Where malloc keeps what is freed (the command's
 * main() raises M_TRIM_THRESHOLD and M_MMAP_THRESHOLD), the buffers the
 * thread allocates in its first iterations then take pages already
 * resident instead of faulting on each (11 us a fault on a VM, 0.2 us
 * resident); elsewhere malloc returns the pages at once and this only
 * costs the touching. A role calls it once it has loaded. */
void heap_prefault(size_t bytes);

#endif
