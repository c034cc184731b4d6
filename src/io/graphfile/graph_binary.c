/*
 * graph_binary.c - dsana's own graph file: written once by the converter,
 * memory-mapped read-only by every process that needs the graph
 * (graph_binary_map.c). This file holds the layouts and the writer.
 *
 * Layout (little-endian), version 3, header 192 bytes:
 *   0   magic "DSNAGRPH"          8   u32 version (3) 12  u32 header bytes (192)
 *   16  u64 n                     24  u64 m           32  u64 flags
 *   40  6 x {u64 offset, u64 bytes}: in_off (u64, n+1), in_src (u32, m),
 *       out_deg (u32, n), orig_id (u64, n), in_w (f64, m), out_w (f64, n);
 *       bytes 0 for a section the flags say is absent
 *   136 u64 file bytes
 *   144 6 x u32 crc32 of each section (0 for an absent one)
 *   168 16 reserved bytes (zero)
 *   184 u32 crc32 of bytes 0..183  188 u32 zero
 * Sections follow in that order, each at a 64-byte aligned offset. Every
 * section carries its CRC32 and the reader checks them all, and what the
 * writer guarantees across sections (graph_binary_check.c), once per file
 * and process: a flipped bit or a zeroed out-degree would otherwise stay
 * in range and change results silently. Versions 1 and 2 (no CRC on the
 * in_src, out_deg and orig_id sections) are refused with a word to
 * reconvert.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "dsana/error.h"
#include "dsana/outfile.h"
#include "io/graphfile/graphfile_internal.h"
#include "util/text/fdwrite.h"
#include "util/memory/hostbytes.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary graph format is little-endian; add byte swapping for this host"
#endif

static uint64_t align_up(uint64_t x) { return (x + GRAPH_BIN_ALIGN - 1) & ~(uint64_t)(GRAPH_BIN_ALIGN - 1); }

void graph_bin_layout(uint64_t n, uint64_t m, uint64_t flags, struct graph_bin_layout *l) {
  bool weighted = flags & GRAPH_BIN_WEIGHTED;
  const uint64_t len[GRAPH_BIN_SECTIONS] = {
      (n + 1) * 8,         m * 4, n * 4, (flags & GRAPH_BIN_HAS_ORIG_ID) ? n * 8 : 0, weighted ? m * 8 : 0,
      weighted ? n * 8 : 0};
  uint64_t at = GRAPH_BIN_HEADER;
  memset(l, 0, sizeof *l);
  l->file_bytes = GRAPH_BIN_HEADER;
  for (unsigned s = 0; s < GRAPH_BIN_SECTIONS; s++) {
    l->len[s] = len[s];
    l->off[s] = at;
    if (l->len[s])
      l->file_bytes = at + l->len[s];
    at = align_up(at + l->len[s]);
  }
}

static bool has_duplicates(const struct dsana_graph *g) {
  for (uint64_t v = 0; v < g->n; v++)
    for (uint64_t k = g->in_off[v] + 1; k < g->in_off[v + 1]; k++)
      if (g->in_src[k] == g->in_src[k - 1])
        return true;
  return false;
}

/* The arrays of g in section order. */
static void section_data(const struct dsana_graph *g, const void *data[GRAPH_BIN_SECTIONS]) {
  data[0] = g->in_off;
  data[1] = g->in_src;
  data[2] = g->out_deg;
  data[3] = g->orig_id;
  data[4] = g->in_w;
  data[5] = g->out_w;
}

static bool write_sections(int fd, const struct dsana_graph *g, const unsigned char *h,
                           const struct graph_bin_layout *l) {
  static const unsigned char zeros[GRAPH_BIN_ALIGN];
  const void *data[GRAPH_BIN_SECTIONS];
  section_data(g, data);
  uint64_t at = GRAPH_BIN_HEADER;
  if (!fd_write_all(fd, h, GRAPH_BIN_HEADER))
    return false;
  for (unsigned s = 0; s < GRAPH_BIN_SECTIONS; s++) {
    if (!l->len[s])
      continue;
    if (!fd_write_all(fd, zeros, l->off[s] - at) || !fd_write_all(fd, data[s], l->len[s]))
      return false;
    at = l->off[s] + l->len[s];
  }
  return true;
}

/* The header of g into h (GRAPH_BIN_HEADER bytes, zeroed by the caller). */
static void fill_header(const struct dsana_graph *g, unsigned char *h, struct graph_bin_layout *l) {
  uint64_t flags = (g->orig_id ? GRAPH_BIN_HAS_ORIG_ID : 0) | (has_duplicates(g) ? 0 : GRAPH_BIN_NO_DUPLICATES) |
                   (g->in_w ? GRAPH_BIN_WEIGHTED : 0);
  const void *data[GRAPH_BIN_SECTIONS];
  section_data(g, data);
  graph_bin_layout(g->n, g->m, flags, l);
  memcpy(h, "DSNAGRPH", 8);
  hb_put_u32(h, 8, GRAPH_BIN_VERSION);
  hb_put_u32(h, 12, GRAPH_BIN_HEADER);
  hb_put_u64(h, 16, g->n);
  hb_put_u64(h, 24, g->m);
  hb_put_u64(h, 32, flags);
  for (unsigned s = 0; s < GRAPH_BIN_SECTIONS; s++) {
    hb_put_u64(h, GRAPH_BIN_AT_SECTIONS + 16 * (size_t)s, l->off[s]);
    hb_put_u64(h, GRAPH_BIN_AT_SECTIONS + 8 + 16 * (size_t)s, l->len[s]);
    if (l->len[s])
      hb_put_u32(h, GRAPH_BIN_AT_SECTION_CRC + 4 * (size_t)s,
                 (uint32_t)crc32_z(0L, (const unsigned char *)data[s], (z_size_t)l->len[s]));
  }
  hb_put_u64(h, GRAPH_BIN_AT_FILE_BYTES, l->file_bytes);
  hb_put_u32(h, GRAPH_BIN_AT_CRC, (uint32_t)crc32(0L, h, GRAPH_BIN_AT_CRC));
}

int dsana_graph_write_binary(const struct dsana_graph *g, const char *path, char *err, size_t errlen) {
  unsigned char h[GRAPH_BIN_HEADER] = {0};
  struct graph_bin_layout l;
  if (g->n > GRAPH_MAX_VERTICES)
    return io_errf(err, errlen, DSANA_ERANGE, "%s: %llu vertices: too many", path, (unsigned long long)g->n);
  if (g->in_w && !g->out_w)
    return io_errf(err, errlen, DSANA_EINVAL, "%s: a weighted graph without out_w", path);
  fill_header(g, h, &l);

  /* dsana/outfile.h: atomic for a regular file, in place for an anonymous
   * one (the launcher's converted copy) */
  struct dsana_outfile *o;
  int rc = dsana_outfile_open(path, 0, &o, err, errlen);
  if (rc)
    return rc;
  if (!write_sections(dsana_outfile_fd(o), g, h, &l)) {
    rc = io_errf(err, errlen, DSANA_EIO, "%s: write failed: %s", path, strerror(errno));
    dsana_outfile_discard(o);
    return rc;
  }
  return dsana_outfile_commit(o, err, errlen);
}
