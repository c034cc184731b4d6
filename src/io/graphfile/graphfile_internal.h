/*
 * graphfile_internal.h - private glue between the graph file formats of the
 * io layer (src/io/graphfile): the text parsers dsana_graph_open picks
 * between, the SNAP reader's id remap, and the binary format's flags,
 * header offsets, layout and body check, which its writer, its mapper and
 * its checks share. Built on graph_internal.h (the CSC builder, the line
 * reader, the helpers), which it includes. Nothing here is visible
 * outside src/io.
 */
#ifndef DSANA_IO_GRAPHFILE_INTERNAL_H
#define DSANA_IO_GRAPHFILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "dsana/graph.h"
#include "io/graph/graph_internal.h"

/* The text parsers: read every block of t into g. */
int graph_parse_snap(struct graph_text *t, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                     size_t errlen);
int graph_parse_mtx(struct graph_text *t, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                    size_t errlen);

/* The SNAP reader's endpoints in original ids. */
struct graph_ids {
  const uint64_t *src, *dst;
  size_t m;
  uint64_t max_id; /* the largest id in src and dst */
};
/* Remap to 0..n-1 in ascending original id: fills src32/dst32 (m each),
 * *orig (n ids, malloc'd) and *n. DSANA_ENOMEM, or DSANA_ERANGE when there
 * are more than GRAPH_MAX_VERTICES distinct ids. */
int graph_remap_ids(const struct graph_ids *in, uint32_t *src32, uint32_t *dst32, uint64_t **orig, uint64_t *n);

/* Binary-format flags (header field at offset 32); other bits are refused. */
#define GRAPH_BIN_HAS_ORIG_ID 1u
#define GRAPH_BIN_NO_DUPLICATES 2u
#define GRAPH_BIN_WEIGHTED 4u /* in_w and out_w sections present */
#define GRAPH_BIN_KNOWN_FLAGS 7u
/* Flags of a mapped graph (0 for a heap graph). */
uint64_t graph_binary_flags(const struct dsana_graph *g);

/* The binary format (version 3; layout in graph_binary.c): the header
 * offsets both sides use. */
enum {
  GRAPH_BIN_VERSION = 3,
  GRAPH_BIN_HEADER = 192,
  GRAPH_BIN_SECTIONS = 6, /* in_off, in_src, out_deg, orig_id, in_w, out_w */
  GRAPH_BIN_ALIGN = 64,
  GRAPH_BIN_AT_SECTIONS = 40, /* {u64 offset, u64 bytes} per section */
  GRAPH_BIN_AT_FILE_BYTES = 136,
  GRAPH_BIN_AT_SECTION_CRC = 144, /* u32 crc32 per section */
  GRAPH_BIN_AT_CRC = 184,         /* u32 crc32 of the header bytes before it */
};
/* Section offsets and sizes for n, m and the flags, in order in_off,
 * in_src, out_deg, orig_id, in_w, out_w (size 0: absent). */
struct graph_bin_layout {
  uint64_t off[GRAPH_BIN_SECTIONS], len[GRAPH_BIN_SECTIONS], file_bytes;
};
void graph_bin_layout(uint64_t n, uint64_t m, uint64_t flags, struct graph_bin_layout *l);

/* graph_binary_check.c: everything a writer guarantees of the body of a
 * mapped file whose header passed (h its first byte, g pointing into it):
 * each section's CRC32, offsets monotone from 0 to m, sources below n and
 * ascending within a destination (strictly when the file says it has no
 * duplicates), out_deg equal to each source's edge count, original ids
 * distinct, weights as dsana_graph_check_range wants. O(file). One line
 * naming path, the section and the index on failure. */
int graph_bin_check_body(const char *path, const unsigned char *h, const struct dsana_graph *g, char *err,
                         size_t errlen);

#endif
