/*
 * keymask.h - which keys of a table some task reads, and table values
 * packed down to those keys.
 *
 * An app may declare keys that no task ever reads (dsana_job_set_unread:
 * PageRank's contributions of vertices without out-edges, which appear in
 * no in-edge list). A mask is then a bitmap of the table's keys, bit k set
 * when key k is never read; NULL means every key is read. Servers answer
 * pulls of such a table with the read keys' values only, in key order
 * (WIRE_PULL_PACKED), and workers put them back in place: the values of
 * unread keys never travel. Pure functions, no state.
 */
#ifndef DSANA_RUNTIME_KEYMASK_H
#define DSANA_RUNTIME_KEYMASK_H

#include <stdbool.h>
#include <stdint.h>

/* Words of a mask for n keys. */
static inline uint64_t keymask_words(uint64_t n_keys) { return n_keys / 64 + 1; }
/* Key k is read by some task. */
static inline bool keymask_read(const uint64_t *unread, uint64_t k) {
  return !unread || !(unread[k / 64] >> (k % 64) & 1);
}
/* Read keys in [lo, hi). */
uint64_t keymask_count(const uint64_t *unread, uint64_t lo, uint64_t hi);
/* Copy the values of the read keys of [lo, hi) from src (indexed by key)
 * to dst, in key order; returns how many. */
uint64_t keymask_pack(const uint64_t *unread, const double *src, uint64_t lo, uint64_t hi, double *dst);
/* The same for keys of `width` values each (width 1: keymask_pack). */
uint64_t keymask_pack_wide(const uint64_t *unread, const double *src, uint32_t width, uint64_t lo, uint64_t hi,
                           double *dst);
/* The reverse: the packed values in src to dst[k] for the read keys k of
 * [lo, hi) (dst indexed by key); unread keys of dst are left alone. */
void keymask_unpack(const uint64_t *unread, const double *src, uint64_t lo, uint64_t hi, double *dst);

#endif
