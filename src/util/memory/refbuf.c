/* refbuf.c - a buffer of doubles with a reference count (refbuf.h). */
#include "util/memory/refbuf.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct refbuf {
  atomic_uint refs;
  size_t cap;
  _Alignas(64) double data[];
};

struct refbuf *refbuf_new(size_t n) {
  if (n > (SIZE_MAX - sizeof(struct refbuf)) / sizeof(double))
    return NULL;
  size_t bytes = (sizeof(struct refbuf) + n * sizeof(double) + 63) & ~(size_t)63;
  struct refbuf *b = aligned_alloc(64, bytes);
  if (!b)
    return NULL;
  atomic_init(&b->refs, 1);
  b->cap = n;
  return b;
}

double *refbuf_data(struct refbuf *b) { return b->data; }
size_t refbuf_cap(const struct refbuf *b) { return b->cap; }
void refbuf_hold(struct refbuf *b) { atomic_fetch_add(&b->refs, 1); }

void refbuf_drop(void *p) {
  struct refbuf *b = p;
  if (b && atomic_fetch_sub(&b->refs, 1) == 1)
    free(b);
}

bool refbuf_shared(const struct refbuf *b) { return atomic_load(&((struct refbuf *)b)->refs) > 1; }
