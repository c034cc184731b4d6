/*
 * sim_heap.h - a binary min-heap of items keyed by (key, key2, seq): the
 * simulator's event queue (key = time) and its links' queues (key = ready
 * time, or key2 = priority). seq, given at push, breaks every tie, so the
 * order of equal keys is the order of pushes: runs are deterministic.
 */
#ifndef DSANA_SIM_SIM_HEAP_H
#define DSANA_SIM_SIM_HEAP_H

#include <stddef.h>
#include <stdint.h>

struct sim_hitem {
  double key;
  uint64_t key2, seq;
  uint32_t a, b; /* the owner's */
  void *p;       /* the owner's (not freed by the heap) */
};

struct sim_heap {
  struct sim_hitem *v;
  size_t n, cap;
};

/* Add an item (copied). Returns 0 or DSANA_ENOMEM. */
int sim_heap_push(struct sim_heap *h, const struct sim_hitem *it);
/* Remove the least item into *out; returns 0, or DSANA_EAGAIN when empty. */
int sim_heap_pop(struct sim_heap *h, struct sim_hitem *out);
/* The least item, or NULL when empty. */
const struct sim_hitem *sim_heap_top(const struct sim_heap *h);
/* Frees the array (not what items point to). */
void sim_heap_fini(struct sim_heap *h);

#endif
