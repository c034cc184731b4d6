/*
 * bufpool.h - large scratch buffers kept for reuse across an app's tasks
 * (any thread). A task that allocates megabytes and frees them when it
 * ends gets fresh pages from the kernel each time where malloc returns
 * large blocks at once (in a process that does not raise malloc's
 * thresholds: a Python program): a page fault per 4 KiB, 11 us each on a
 * VM. A pool hands the same buffers out again.
 */
#ifndef DSANA_APPS_COMMON_BUFPOOL_H
#define DSANA_APPS_COMMON_BUFPOOL_H

#include <pthread.h>
#include <stddef.h>

/* Buffers kept at most: one per task that runs at once is enough. */
#define BUFPOOL_KEEP 16

struct bufpool {
  pthread_mutex_t mu;
  unsigned n;
  struct {
    void *p;
    size_t bytes;
  } kept[BUFPOOL_KEEP];
};

void bufpool_init(struct bufpool *bp);
/* Frees every buffer kept; no buffer may be out. */
void bufpool_fini(struct bufpool *bp);

/* At least `bytes` bytes, 64-byte aligned and not zeroed (a kept buffer
 * when one is large enough), its capacity in *cap; NULL when memory runs
 * out. bp NULL: a plain allocation. */
void *bufpool_get(struct bufpool *bp, size_t bytes, size_t *cap);
/* Back into the pool (freed when the pool is full, or bp is NULL). */
void bufpool_put(struct bufpool *bp, void *p, size_t cap);

#endif
