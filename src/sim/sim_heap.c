/* sim_heap.c - binary min-heap (see sim_heap.h). */
#include "sim/sim_heap.h"

#include <stdbool.h>
#include <stdlib.h>

#include "dsana/dsana.h"
#include "util/memory/grow.h"

static bool less(const struct sim_hitem *x, const struct sim_hitem *y) {
  if (x->key != y->key)
    return x->key < y->key;
  if (x->key2 != y->key2)
    return x->key2 < y->key2;
  return x->seq < y->seq;
}

int sim_heap_push(struct sim_heap *h, const struct sim_hitem *it) {
  struct sim_hitem *v = grow_for_one(h->v, &h->cap, h->n, sizeof *v, 64);
  if (!v)
    return DSANA_ENOMEM;
  h->v = v;
  size_t i = h->n++;
  while (i > 0 && less(it, &v[(i - 1) / 2])) {
    v[i] = v[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  v[i] = *it;
  return 0;
}

int sim_heap_pop(struct sim_heap *h, struct sim_hitem *out) {
  if (h->n == 0)
    return DSANA_EAGAIN;
  struct sim_hitem *v = h->v, last = v[--h->n];
  *out = v[0];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && less(&v[c + 1], &v[c]))
      c++;
    if (!less(&v[c], &last))
      break;
    v[i] = v[c];
    i = c;
  }
  if (h->n > 0)
    v[i] = last;
  return 0;
}

const struct sim_hitem *sim_heap_top(const struct sim_heap *h) { return h->n ? &h->v[0] : NULL; }

void sim_heap_fini(struct sim_heap *h) {
  free(h->v);
  *h = (struct sim_heap){0};
}
