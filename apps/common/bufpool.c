/* bufpool.c - large scratch buffers kept for reuse (bufpool.h). */
#include "apps/common/bufpool.h"

#include <stdlib.h>

void bufpool_init(struct bufpool *bp) {
  pthread_mutex_init(&bp->mu, NULL);
  bp->n = 0;
}

void bufpool_fini(struct bufpool *bp) {
  for (unsigned i = 0; i < bp->n; i++)
    free(bp->kept[i].p);
  bp->n = 0;
  pthread_mutex_destroy(&bp->mu);
}

void *bufpool_get(struct bufpool *bp, size_t bytes, size_t *cap) {
  bytes = (bytes + 63) & ~(size_t)63; /* aligned_alloc's rule */
  if (bp) {
    pthread_mutex_lock(&bp->mu);
    for (unsigned i = 0; i < bp->n; i++)
      if (bp->kept[i].bytes >= bytes) {
        void *p = bp->kept[i].p;
        *cap = bp->kept[i].bytes;
        bp->kept[i] = bp->kept[--bp->n];
        pthread_mutex_unlock(&bp->mu);
        return p;
      }
    pthread_mutex_unlock(&bp->mu);
  }
  *cap = bytes;
  return aligned_alloc(64, bytes ? bytes : 64);
}

void bufpool_put(struct bufpool *bp, void *p, size_t cap) {
  if (!p)
    return;
  if (bp) {
    pthread_mutex_lock(&bp->mu);
    if (bp->n < BUFPOOL_KEEP) {
      bp->kept[bp->n].p = p;
      bp->kept[bp->n++].bytes = cap;
      p = NULL;
    }
    pthread_mutex_unlock(&bp->mu);
  }
  free(p);
}
