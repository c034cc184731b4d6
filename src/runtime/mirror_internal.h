/*
 * mirror_internal.h - what the files of the mirror (mirror.c: setup and
 * dense tables; mirror_take.c: answers; mirror_sparse.c: key-list
 * requests) share. Private to them.
 */
#ifndef DSANA_RUNTIME_MIRROR_INTERNAL_H
#define DSANA_RUNTIME_MIRROR_INTERNAL_H

#include "runtime/mirror.h"

/* Index of server s's buffer b of table t in mirror.shm. */
static inline size_t mirror_shm_slot(uint32_t s, uint32_t t, uint32_t b) {
  return ((size_t)s * DSANA_MAX_TABLES + t) * 2 + b;
}

/* mirror.c */
uint64_t mirror_chunk_len(const struct mirror_table *mt, uint64_t c);
/* Keys of [lo, hi) a dense fetch asks for (read keys inside the cover). */
uint64_t mirror_wanted_keys(const struct mirror_table *mt, uint64_t lo, uint64_t hi);
/* Chunk c holds iteration iter's complete values. */
bool mirror_chunk_in(const struct mirror_table *mt, uint32_t iter, uint64_t c);

/* mirror_sparse.c */
void mirror_sparse_free(struct mirror_table *mt);
/* An answer to a sparse request of table t from server s (see mirror_take). */
int mirror_sparse_take(struct mirror *m, uint32_t s, const struct net_msg *msg);

#endif
