/* chunk.c - see chunk.h. */
#include "policy/chunk.h"

#define CHUNK_MIN_BYTES ((uint64_t)64 << 10)
#define LOOPBACK_BYTES_PER_S 1.5e9 /* assumed when the link is not throttled */

uint64_t chunk_auto_count(const struct chunk_inputs *in) {
  uint64_t shards = in->n_shards ? in->n_shards : 1, shard = (in->table_bytes + shards - 1) / shards;
  double bw = in->bandwidth_bytes_per_s > 0 ? in->bandwidth_bytes_per_s : LOOPBACK_BYTES_PER_S;
  double frac = in->overhead_fraction > 0 ? in->overhead_fraction : 0.05;
  /* overhead / (bytes / bw) <= frac  =>  bytes >= overhead * bw / frac */
  double want = in->msg_overhead_s > 0 ? in->msg_overhead_s * bw / frac : 1;
  uint64_t chunks = 1;
  while ((double)chunks * want < (double)shard && shard / (chunks * 2) >= CHUNK_MIN_BYTES)
    chunks *= 2;
  return chunks;
}
