/*
 * graph_binary_map.c - the reading side of dsana's binary graph format
 * (layout in graph_binary.c): memory-map a version 3 file after checks of
 * its header against the file size, and of its body (graph_binary_check.c)
 * the first time this process maps the file; or view an in-memory graph
 * (mem_source.c) the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"
#include "util/memory/hostbytes.h"

#define BIN_MAGIC "DSNAGRPH"
/* Version 1's header, the smallest: a file this long is mapped, so that an
 * old one is named as such; a shorter one needs the current header. */
enum { BIN_MIN_HEADER = 128 };

bool dsana_graph_is_binary(const char *path) {
  return io_mem_find(path, IO_MEM_GRAPH) || graph_file_has_magic(path, BIN_MAGIC);
}

/* An in-memory graph (mem_source.c): a view of the caller's arrays. */
static int map_memory(const char *path, struct dsana_graph *g, char *err, size_t errlen) {
  const struct dsana_graph *src = io_mem_find(path, IO_MEM_GRAPH);
  if (!src)
    return io_errf(err, errlen, DSANA_EIO, "%s: no such in-memory graph (unregistered)", path);
  *g = (struct dsana_graph){.n = src->n,
                            .m = src->m,
                            .in_off = src->in_off,
                            .in_src = src->in_src,
                            .out_deg = src->out_deg,
                            .orig_id = src->orig_id,
                            .in_w = src->in_w,
                            .out_w = src->out_w};
  return 0;
}

uint64_t graph_binary_flags(const struct dsana_graph *g) { return g->priv_map ? hb_get_u64(g->priv_map, 32) : 0; }

/* Magic, version, header size and checksum. */
static int check_ident(const char *path, const unsigned char *h, uint64_t size, char *err, size_t errlen) {
  if (memcmp(h, BIN_MAGIC, 8) != 0)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 0: bad magic (not a dsana binary graph)", path);
  uint32_t version = hb_get_u32(h, 8);
  if (version == 1 || version == 2)
    return io_errf(err, errlen, DSANA_EFORMAT,
                   "%s: offset 8: version %u, written by an older dsana without checksums on every section: "
                   "reconvert it from its text (dsana graph convert TEXT %s)",
                   path, version, path);
  if (version != GRAPH_BIN_VERSION)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 8: version %u not supported (this build reads version %d)",
                   path, version, GRAPH_BIN_VERSION);
  if (size < GRAPH_BIN_HEADER)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: truncated file (header needs %d bytes)", path,
                   (unsigned long long)size, GRAPH_BIN_HEADER);
  if (hb_get_u32(h, GRAPH_BIN_AT_CRC) != (uint32_t)crc32(0L, h, GRAPH_BIN_AT_CRC))
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %d: header checksum mismatch", path, GRAPH_BIN_AT_CRC);
  if (hb_get_u32(h, 12) != GRAPH_BIN_HEADER)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 12: header size %u, expected %d", path, hb_get_u32(h, 12),
                   GRAPH_BIN_HEADER);
  return 0;
}

/* O(1) checks of a mapped header against the file size. */
static int check_header(const char *path, const unsigned char *h, uint64_t size, char *err, size_t errlen) {
  struct graph_bin_layout l;
  int rc = check_ident(path, h, size, err, errlen);
  if (rc)
    return rc;
  uint64_t n = hb_get_u64(h, 16), m = hb_get_u64(h, 24), flags = hb_get_u64(h, 32);
  if (n > GRAPH_MAX_VERTICES)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 16: %llu vertices: too many", path, (unsigned long long)n);
  if (m > (UINT64_MAX - 4096) / 16)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 24: %llu edges: too many", path, (unsigned long long)m);
  if (flags & ~(uint64_t)GRAPH_BIN_KNOWN_FLAGS)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 32: unknown flags 0x%llx", path, (unsigned long long)flags);
  graph_bin_layout(n, m, flags, &l);
  uint64_t file_bytes = hb_get_u64(h, GRAPH_BIN_AT_FILE_BYTES);
  if (size < file_bytes)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: truncated file (header says %llu bytes)", path,
                   (unsigned long long)size, (unsigned long long)file_bytes);
  if (file_bytes != l.file_bytes || size != file_bytes)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %u: file size %llu, expected %llu for n=%llu m=%llu", path,
                   GRAPH_BIN_AT_FILE_BYTES, (unsigned long long)size, (unsigned long long)l.file_bytes,
                   (unsigned long long)n, (unsigned long long)m);
  for (unsigned s = 0; s < GRAPH_BIN_SECTIONS; s++) {
    uint64_t off = hb_get_u64(h, GRAPH_BIN_AT_SECTIONS + 16 * (size_t)s);
    uint64_t len = hb_get_u64(h, GRAPH_BIN_AT_SECTIONS + 8 + 16 * (size_t)s);
    if (off != l.off[s] || len != l.len[s])
      return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %u: section %u at %llu+%llu, expected %llu+%llu", path,
                     GRAPH_BIN_AT_SECTIONS + 16 * s, s, (unsigned long long)off, (unsigned long long)len,
                     (unsigned long long)l.off[s], (unsigned long long)l.len[s]);
  }
  return 0;
}

/* Offset of section s (in_off 0 ... out_w 5) in a checked header. */
static const void *section(const unsigned char *h, unsigned s) {
  return h + hb_get_u64(h, GRAPH_BIN_AT_SECTIONS + 16 * (size_t)s);
}

/* Point g into the checked mapping h. */
static void attach(struct dsana_graph *g, const unsigned char *h) {
  g->n = hb_get_u64(h, 16);
  g->m = hb_get_u64(h, 24);
  g->in_off = section(h, 0);
  g->in_src = section(h, 1);
  g->out_deg = section(h, 2);
  uint64_t flags = hb_get_u64(h, 32);
  g->orig_id = (flags & GRAPH_BIN_HAS_ORIG_ID) ? section(h, 3) : NULL;
  if (flags & GRAPH_BIN_WEIGHTED) {
    g->in_w = section(h, 4);
    g->out_w = section(h, 5);
  }
}

int dsana_graph_map_binary(const char *path, struct dsana_graph *g, char *err, size_t errlen) {
  void *map = NULL;
  uint64_t size = 0;
  memset(g, 0, sizeof *g);
  if (io_mem_is_name(path))
    return map_memory(path, g, err, errlen);
  int rc = io_map_shared(path, BIN_MIN_HEADER, GRAPH_BIN_HEADER, &map, &size, err, errlen);
  if (rc)
    return rc;
  const unsigned char *h = map;
  rc = check_header(path, h, size, err, errlen);
  if (!rc) {
    attach(g, h);
    uint64_t tag = hb_get_u32(h, GRAPH_BIN_AT_CRC); /* covers the sections' CRC32s */
    if (!io_map_is_checked(map, tag) && (rc = graph_bin_check_body(path, h, g, err, errlen)) == 0)
      io_map_mark_checked(map, tag);
  }
  if (rc) {
    io_unmap_shared(map, (size_t)size);
    memset(g, 0, sizeof *g);
    return rc;
  }
  g->priv_map = map;
  g->priv_map_len = (size_t)size;
  return 0;
}
