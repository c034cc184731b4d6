/* chunk.c - see chunk.h. */
#include "policy/chunk.h"

#define CHUNK_MIN_BYTES ((uint64_t)64 << 10)
#define LOOPBACK_BYTES_PER_S 1.5e9 /* assumed when the link is not throttled */

uint64_t chunk_auto_bytes(const struct chunk_inputs *in) {
  if (in->table_bytes <= CHUNK_MIN_BYTES)
    return in->table_bytes;
  double bw = in->bandwidth_bytes_per_s > 0 ? in->bandwidth_bytes_per_s : LOOPBACK_BYTES_PER_S;
  double frac = in->overhead_fraction > 0 ? in->overhead_fraction : 0.05;
  /* overhead / (bytes / bw) <= frac  =>  bytes >= overhead * bw / frac */
  double want = in->msg_overhead_s * bw / frac;
  uint64_t by_count = in->table_bytes / (in->min_chunks ? in->min_chunks : 8);
  uint64_t bytes = want > (double)by_count ? by_count : (uint64_t)want;
  if (bytes < CHUNK_MIN_BYTES)
    bytes = CHUNK_MIN_BYTES;
  return bytes & ~(uint64_t)7;
}
