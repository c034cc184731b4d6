/*
 * refbuf.h - a buffer of doubles with a reference count, for memory that
 * several parties hold at once (a worker's push, lent to the messages that
 * carry its slices): the last to drop it frees it. Drops may come from any
 * thread.
 */
#ifndef DSANA_UTIL_REFBUF_H
#define DSANA_UTIL_REFBUF_H

#include <stdbool.h>
#include <stddef.h>

struct refbuf;

/* Room for n doubles (64-byte aligned), one reference; NULL when out of memory. */
struct refbuf *refbuf_new(size_t n);
double *refbuf_data(struct refbuf *b);
size_t refbuf_cap(const struct refbuf *b);
/* Another reference. */
void refbuf_hold(struct refbuf *b);
/* Drop a reference (b: a struct refbuf *, or NULL); the last frees it. */
void refbuf_drop(void *b);
/* Whether a reference other than the caller's is held. */
bool refbuf_shared(const struct refbuf *b);

#endif
