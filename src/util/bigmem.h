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

#endif
