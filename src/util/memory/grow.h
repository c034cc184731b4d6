/*
 * grow.h - room for one more element in a growable array (doubling).
 */
#ifndef DSANA_UTIL_GROW_H
#define DSANA_UTIL_GROW_H

#include <stddef.h>

/* items holds *cap elements of elem_size bytes, n of them in use. Returns
 * the array with room for at least n+1 (items itself when it has room; a
 * reallocation doubling *cap, or of first_cap when empty), or NULL with
 * items and *cap untouched when memory runs out. */
void *grow_for_one(void *items, size_t *cap, size_t n, size_t elem_size, size_t first_cap);

#endif
