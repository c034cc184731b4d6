/* grow.c - growable arrays (see grow.h). */
#include "util/memory/grow.h"

#include <stdlib.h>

void *grow_for_one(void *items, size_t *cap, size_t n, size_t elem_size, size_t first_cap) {
  if (n < *cap)
    return items;
  size_t want = *cap ? 2 * *cap : first_cap;
  void *p = realloc(items, want * elem_size);
  if (p)
    *cap = want;
  return p;
}
