/* chunk.c - see chunk.h. */
#include "policy/chunk.h"

#define CHUNK_MIN_BYTES ((uint64_t)8 << 10)
#define CHUNK_MAX_PER_SHARD 16     /* the pipeline's fill and drain are 1/16 of a shard: more buys little */
#define LOOPBACK_BYTES_PER_S 1.5e9 /* assumed when the link is not throttled */
#define CHUNK_SQRT2 1.4142135623730951

uint64_t chunk_auto_count(const struct chunk_inputs *in) {
  uint64_t shards = in->n_shards ? in->n_shards : 1, shard = (in->table_bytes + shards - 1) / shards;
  double bw = in->bandwidth_bytes_per_s > 0 ? in->bandwidth_bytes_per_s : LOOPBACK_BYTES_PER_S;
  double frac = in->overhead_fraction > 0 ? in->overhead_fraction : 0.05;
  /* overhead / (bytes / bw) = frac  =>  bytes = overhead * bw / frac */
  double want = in->msg_overhead_s > 0 ? in->msg_overhead_s * bw / frac : 1;
  /* the power of two of chunks nearest shard / want (in ratio: chunks of
   * want / sqrt 2 to want sqrt 2); halving a chunk below that only adds
   * messages (a 32 KB shard at want = 25 KB stays whole, not 2 x 16 KB) */
  uint64_t chunks = 1;
  while ((double)(shard / (chunks * 2)) * CHUNK_SQRT2 >= want && shard / (chunks * 2) >= CHUNK_MIN_BYTES &&
         chunks < CHUNK_MAX_PER_SHARD)
    chunks *= 2;
  return chunks;
}

uint64_t chunk_keys_for(const struct chunk_request *r) {
  uint64_t n = r->n_keys, per = r->bytes_per_key ? r->bytes_per_key : 8, bytes;
  if (r->mode == CHUNK_OFF)
    return 0;
  if (r->mode == CHUNK_FIXED) {
    bytes = r->fixed_bytes;
  } else {
    double bw = r->bandwidth_bytes_per_s;
    if (bw == 0 && r->local_unthrottled)
      return n;
    struct chunk_inputs in = {.table_bytes = r->read_bytes,
                              .n_shards = r->n_servers,
                              .bandwidth_bytes_per_s = bw > 0 ? bw : CHUNK_UNKNOWN_LINK_BYTES_PER_S,
                              .msg_overhead_s = CHUNK_MSG_OVERHEAD_S,
                              .overhead_fraction = CHUNK_OVERHEAD_FRACTION};
    uint64_t chunks = chunk_auto_count(&in), shard_keys = (n + r->n_servers - 1) / r->n_servers;
    bytes = (shard_keys + chunks - 1) / chunks * per;
  }
  uint64_t keys = bytes / per;
  return keys == 0 ? 1 : keys >= n ? n : keys;
}
