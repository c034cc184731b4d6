/*
 * compress.h - whether a run's values travel compressed (pure: no I/O, no
 * clocks). Servers answer pulls with the values encoded by net/wire/zcodec.h
 * when workers ask for it; this decides whether they ask.
 *
 * Compressing pays when the link is slower than the encoder: then the
 * encoder keeps ahead of the wire (a server encodes a chunk once, whatever
 * the number of workers pulling it, while the previous one is sent) and the
 * link carries fewer bytes. On one machine without an emulated link,
 * memory beats any compressor, and local roles share buffers anyway.
 */
#ifndef DSANA_POLICY_COMPRESS_H
#define DSANA_POLICY_COMPRESS_H

#include <stdbool.h>

#include "policy/chunk.h"

/* --compress: auto (the default) decides with compress_wanted(). */
enum compress_mode { COMPRESS_AUTO = 0, COMPRESS_OFF = 1, COMPRESS_ON = 2 };

/* "auto", "off", "on"; DSANA_EINVAL for anything else. */
int compress_mode_parse(const char *name, enum compress_mode *mode);
const char *compress_mode_name(enum compress_mode mode);

/* The encoder's speed on PageRank's converging values (XOR the previous
 * iteration, byte planes, zstd 1): 382 MB/s of values on one core of the
 * 2-vCPU bench machine (net/wire/zcodec.c has the measurement). */
#define COMPRESS_ENCODE_BYTES_PER_S 3.8e8

struct compress_request {
  enum compress_mode mode;
  enum chunk_mode chunk;        /* --chunk as resolved from --mode */
  double bandwidth_bytes_per_s; /* the slowest emulated link, 0 = none */
  bool local_unthrottled;       /* every role on this machine, no emulated link */
};

/* On: always. Off: never. Auto: with --chunk auto (dsana's transfers;
 * plain BSP stays the uncompressed peer), when the link is slower than
 * COMPRESS_ENCODE_BYTES_PER_S: the emulated one, or for roles across
 * machines without a scenario the 1 Gbit/s chunking assumes
 * (CHUNK_UNKNOWN_LINK_BYTES_PER_S); never locally without a link. */
bool compress_wanted(const struct compress_request *r);

#endif
