/*
 * chunk.h - choosing the transfer chunk size (pure: no I/O, no clocks).
 *
 * A chunk must be large enough that the fixed cost of a message stays a
 * small fraction of its transfer time, and small enough that every server's
 * shard splits into as many chunks as that allows, so that computation on
 * one chunk overlaps the transfer of the next (a server streams its shard
 * chunk by chunk: one chunk per shard would not pipeline at all).
 */
#ifndef DSANA_POLICY_CHUNK_H
#define DSANA_POLICY_CHUNK_H

#include <stdint.h>

struct chunk_inputs {
  uint64_t table_bytes;
  uint32_t n_shards;            /* servers the table is split over (0 = 1) */
  double bandwidth_bytes_per_s; /* 0 = unknown / unthrottled */
  double msg_overhead_s;        /* per-message cost measured or assumed */
  double overhead_fraction;     /* allowed overhead per chunk, e.g. 0.05 */
};

/* Chunks per server shard: a power of two, the fewest whose count reaches
 * shard / (the size at which a message's overhead is overhead_fraction of
 * its transfer), so the overhead stays under about twice the fraction and
 * chunks line up with the shards; none smaller than 64 KiB. table_bytes is
 * what a transfer of the whole table carries. */
uint64_t chunk_auto_count(const struct chunk_inputs *in);

#endif
