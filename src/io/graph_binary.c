/*
 * graph_binary.c - dsana's own graph file: written once by the converter,
 * memory-mapped read-only by every process that needs the graph
 * (graph_binary_map.c). This file holds the layouts and the writer.
 *
 * Layout (little-endian). Version 1, written for unweighted graphs:
 *   0   magic "DSNAGRPH"          8   u32 version     12  u32 header bytes (128)
 *   16  u64 n                     24  u64 m           32  u64 flags
 *   40  4 x {u64 offset, u64 bytes}: in_off (u64, n+1), in_src (u32, m),
 *       out_deg (u32, n), orig_id (u64, n; bytes 0 when absent)
 *   104 u64 file bytes            112 8 reserved bytes (zero)
 *   120 u32 crc32 of bytes 0..119 124 u32 zero
 * Version 2, written for weighted graphs (flag 4), header 192 bytes:
 *   0..39 as version 1
 *   40  6 x {u64 offset, u64 bytes}: the four above, then in_w (f64, m)
 *       and out_w (f64, n) (bytes 0 when the weighted flag is clear)
 *   136 u64 file bytes
 *   144 u32 crc32 of the in_w section  148 u32 crc32 of the out_w section
 *   152 32 reserved bytes (zero)
 *   184 u32 crc32 of bytes 0..183      188 u32 zero
 * Sections follow in that order, each at a 64-byte aligned offset. The
 * weight sections carry their own CRC32 (checked when mapped): a corrupt
 * weight stays in range and would otherwise go unnoticed; offsets and
 * sources are checked by dsana_graph_check_range.
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
#include "io/graph_internal.h"
#include "util/fdwrite.h"
#include "util/hostbytes.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary graph format is little-endian; add byte swapping for this host"
#endif

static const struct graph_bin_format FORMATS[] = {
    {.version = 1, .header_bytes = 128, .sections = 4, .file_bytes_at = 104, .wcrc_at = 0, .crc_at = 120},
    {.version = 2, .header_bytes = 192, .sections = 6, .file_bytes_at = 136, .wcrc_at = 144, .crc_at = 184},
};

const struct graph_bin_format *graph_bin_format(uint32_t version) {
  for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++)
    if (FORMATS[i].version == version)
      return &FORMATS[i];
  return NULL;
}

static uint64_t align_up(uint64_t x) { return (x + GRAPH_BIN_ALIGN - 1) & ~(uint64_t)(GRAPH_BIN_ALIGN - 1); }

void graph_bin_layout(const struct graph_bin_format *f, uint64_t n, uint64_t m, uint64_t flags,
                      struct graph_bin_layout *l) {
  bool weighted = f->sections > 4 && (flags & GRAPH_BIN_WEIGHTED);
  const uint64_t len[GRAPH_BIN_MAX_SECTIONS] = {
      (n + 1) * 8,         m * 4, n * 4, (flags & GRAPH_BIN_HAS_ORIG_ID) ? n * 8 : 0, weighted ? m * 8 : 0,
      weighted ? n * 8 : 0};
  uint64_t at = f->header_bytes;
  memset(l, 0, sizeof *l);
  l->file_bytes = f->header_bytes;
  for (unsigned s = 0; s < f->sections; s++) {
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

static bool write_sections(int fd, const struct dsana_graph *g, const unsigned char *h,
                           const struct graph_bin_format *f, const struct graph_bin_layout *l) {
  static const unsigned char zeros[GRAPH_BIN_ALIGN];
  const void *data[GRAPH_BIN_MAX_SECTIONS] = {g->in_off, g->in_src, g->out_deg, g->orig_id, g->in_w, g->out_w};
  uint64_t at = f->header_bytes;
  if (!fd_write_all(fd, h, f->header_bytes))
    return false;
  for (unsigned s = 0; s < f->sections; s++) {
    if (!l->len[s])
      continue;
    if (!fd_write_all(fd, zeros, l->off[s] - at) || !fd_write_all(fd, data[s], l->len[s]))
      return false;
    at = l->off[s] + l->len[s];
  }
  return true;
}

/* The header of g in format f into h (f->header_bytes, zeroed by the caller). */
static void fill_header(const struct dsana_graph *g, const struct graph_bin_format *f, unsigned char *h,
                        struct graph_bin_layout *l) {
  uint64_t flags = (g->orig_id ? GRAPH_BIN_HAS_ORIG_ID : 0) | (has_duplicates(g) ? 0 : GRAPH_BIN_NO_DUPLICATES) |
                   (g->in_w ? GRAPH_BIN_WEIGHTED : 0);
  graph_bin_layout(f, g->n, g->m, flags, l);
  memcpy(h, "DSNAGRPH", 8);
  hb_put_u32(h, 8, f->version);
  hb_put_u32(h, 12, f->header_bytes);
  hb_put_u64(h, 16, g->n);
  hb_put_u64(h, 24, g->m);
  hb_put_u64(h, 32, flags);
  for (unsigned s = 0; s < f->sections; s++) {
    hb_put_u64(h, 40 + 16 * (size_t)s, l->off[s]);
    hb_put_u64(h, 48 + 16 * (size_t)s, l->len[s]);
  }
  hb_put_u64(h, f->file_bytes_at, l->file_bytes);
  if (g->in_w) {
    hb_put_u32(h, f->wcrc_at, (uint32_t)crc32_z(0L, (const unsigned char *)g->in_w, (z_size_t)(g->m * 8)));
    hb_put_u32(h, f->wcrc_at + 4, (uint32_t)crc32_z(0L, (const unsigned char *)g->out_w, (z_size_t)(g->n * 8)));
  }
  hb_put_u32(h, f->crc_at, (uint32_t)crc32(0L, h, f->crc_at));
}

int dsana_graph_write_binary(const struct dsana_graph *g, const char *path, char *err, size_t errlen) {
  unsigned char h[256] = {0};
  struct graph_bin_layout l;
  if (g->n > GRAPH_MAX_VERTICES)
    return graph_errf(err, errlen, DSANA_ERANGE, "%s: %llu vertices: too many", path, (unsigned long long)g->n);
  if (g->in_w && !g->out_w)
    return graph_errf(err, errlen, DSANA_EINVAL, "%s: a weighted graph without out_w", path);
  const struct graph_bin_format *f = graph_bin_format(g->in_w ? 2 : 1);
  fill_header(g, f, h, &l);

  /* dsana/outfile.h: atomic for a regular file, in place for an anonymous
   * one (the launcher's converted copy) */
  struct dsana_outfile *o;
  int rc = dsana_outfile_open(path, 0, &o, err, errlen);
  if (rc)
    return rc;
  if (!write_sections(dsana_outfile_fd(o), g, h, f, &l)) {
    rc = graph_errf(err, errlen, DSANA_EIO, "%s: write failed: %s", path, strerror(errno));
    dsana_outfile_discard(o);
    return rc;
  }
  return dsana_outfile_commit(o, err, errlen);
}
