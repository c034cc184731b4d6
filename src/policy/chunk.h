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

/* Chunks per server shard: a power of two, the one nearest (in ratio)
 * shard / (the size at which a message's overhead is overhead_fraction of
 * its transfer), so the overhead stays within sqrt 2 of the fraction either
 * way (the fewest reaching it could halve a chunk that was only 1.3
 * messages' worth) and chunks line up with the shards; none smaller than
 * 8 KiB, at most 16. An
 * iteration's transfer waits for one chunk at its start (the first must be
 * in before work begins) and its end (the last task's last block): 16
 * chunks keep that to a sixteenth. table_bytes is what a transfer of the
 * whole table carries. */
uint64_t chunk_auto_count(const struct chunk_inputs *in);

/* How a run asked for chunks (--chunk). */
enum chunk_mode { CHUNK_OFF = 0, CHUNK_AUTO = 1, CHUNK_FIXED = 2 };

struct chunk_request {
  enum chunk_mode mode;
  uint64_t fixed_bytes;   /* CHUNK_FIXED */
  uint64_t n_keys;        /* keys of the key space */
  uint64_t bytes_per_key; /* 8 * width of its widest table read */
  uint64_t read_bytes;    /* what a transfer of its tables carries */
  uint32_t n_servers;
  double bandwidth_bytes_per_s; /* the slowest emulated link, 0 = none */
  int local_unthrottled;        /* every role on this machine, no emulated link */
};

/* Per-message cost and overhead share chunk sizing aims for: ~0.1 ms per
 * piece, measured by chunk-size sweeps on this machine (bench/overlap.sh,
 * real graphs over 1 Gbit/s). That cost is the sender's and receiver's
 * CPU, which overlaps the link's transfer of other pieces: a chunk of 0.2
 * ms of transfer keeps it under half the link's time (the before-stop
 * hook's overlap case, Kronecker 15 over 400 Mbit/s: 16 KiB chunks ran at
 * 0.73-0.76 of max(compute, transfer), 64 KiB at 0.67, 128 KiB at 0.57). */
#define CHUNK_MSG_OVERHEAD_S 100e-6
#define CHUNK_OVERHEAD_FRACTION 0.5
/* Links of unknown speed across machines: a common cloud VM's 1 Gbit/s. A
 * guess too slow makes chunks finer than needed, which costs little; one
 * too fast leaves a slow link without overlap (bench/pagerank/netns.sh at 1 Gbit/s:
 * 2 chunks of 2.2 MB took 0.211 s per iteration, 4 of 2 MiB 0.174 s). */
#define CHUNK_UNKNOWN_LINK_BYTES_PER_S 1.25e8

/* Keys per chunk of a key space: 0 = chunking off (whole tables, plain BSP
 * transfers). A chunk as large as the space is one chunk, still pipelined
 * across the barrier. Auto on one machine without an emulated link: one
 * chunk (a table moves in milliseconds; more chunks would only add
 * per-block work, while one still saves a pull's latency per iteration);
 * else chunk_auto_count() chunks per server shard. */
uint64_t chunk_keys_for(const struct chunk_request *r);

#endif
