/*
 * chunk.h - choosing the transfer chunk size (pure: no I/O, no clocks).
 *
 * A chunk must be large enough that the fixed cost of a message (per-message
 * overhead plus, without pipelining, the link latency) stays a small
 * fraction of its transfer time, and small enough that a table splits into
 * enough chunks for computation on one chunk to overlap the transfer of the
 * next.
 */
#ifndef DSANA_POLICY_CHUNK_H
#define DSANA_POLICY_CHUNK_H

#include <stdint.h>

struct chunk_inputs {
  uint64_t table_bytes;
  double bandwidth_bytes_per_s; /* 0 = unknown / unthrottled */
  double msg_overhead_s;        /* per-message cost measured or assumed */
  double overhead_fraction;     /* allowed overhead per chunk, e.g. 0.05 */
  uint32_t min_chunks;          /* wanted chunks per table, e.g. 8 */
};

/* Chunk size in bytes, a multiple of 8 (one double per key), at least 64
 * KiB (or the whole table if smaller). */
uint64_t chunk_auto_bytes(const struct chunk_inputs *in);

#endif
