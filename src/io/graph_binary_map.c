/*
 * graph_binary_map.c - the reading side of dsana's binary graph format
 * (layouts in graph_binary.c): memory-map a version 1 or 2 file after O(1)
 * checks of its header against the file size (plus the CRC32 of the weight
 * sections of a weighted file), and check a destination range of a mapped
 * graph on demand (offsets, sources, weights), since the O(1) checks do not
 * read the body.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "dsana/error.h"
#include "io/graph_internal.h"
#include "util/hostbytes.h"

#define BIN_MAGIC "DSNAGRPH"
enum { BIN_MIN_HEADER = 128 };

bool dsana_graph_is_binary(const char *path) {
  return io_mem_find(path, IO_MEM_GRAPH) || graph_file_has_magic(path, BIN_MAGIC);
}

/* An in-memory graph (mem_source.c): a view of the caller's arrays. */
static int map_memory(const char *path, struct dsana_graph *g, char *err, size_t errlen) {
  const struct dsana_graph *src = io_mem_find(path, IO_MEM_GRAPH);
  if (!src)
    return graph_errf(err, errlen, DSANA_EIO, "%s: no such in-memory graph (unregistered)", path);
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

/* Magic, version, header size and checksum; *fmt on success. */
static int check_ident(const char *path, const unsigned char *h, uint64_t size, const struct graph_bin_format **fmt,
                       char *err, size_t errlen) {
  if (memcmp(h, BIN_MAGIC, 8) != 0)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 0: bad magic (not a dsana binary graph)", path);
  uint32_t version = hb_get_u32(h, 8);
  const struct graph_bin_format *f = graph_bin_format(version);
  if (!f)
    return graph_errf(err, errlen, DSANA_EFORMAT,
                      "%s: offset 8: version %u not supported (this build reads versions 1 and 2)", path, version);
  if (size < f->header_bytes)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: truncated file (header needs %u bytes)", path,
                      (unsigned long long)size, f->header_bytes);
  if (hb_get_u32(h, f->crc_at) != (uint32_t)crc32(0L, h, f->crc_at))
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %u: header checksum mismatch", path, f->crc_at);
  if (hb_get_u32(h, 12) != f->header_bytes)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 12: header size %u, expected %u", path, hb_get_u32(h, 12),
                      f->header_bytes);
  *fmt = f;
  return 0;
}

/* O(1) checks of a mapped header against the file size. */
static int check_header(const char *path, const unsigned char *h, uint64_t size, const struct graph_bin_format **fmt,
                        char *err, size_t errlen) {
  struct graph_bin_layout l;
  const struct graph_bin_format *f = NULL;
  int rc = check_ident(path, h, size, &f, err, errlen);
  if (rc)
    return rc;
  uint64_t n = hb_get_u64(h, 16), m = hb_get_u64(h, 24), flags = hb_get_u64(h, 32);
  if (n > GRAPH_MAX_VERTICES)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 16: %llu vertices: too many", path,
                      (unsigned long long)n);
  if (m > (UINT64_MAX - 4096) / 16)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 24: %llu edges: too many", path, (unsigned long long)m);
  graph_bin_layout(f, n, m, flags, &l);
  uint64_t file_bytes = hb_get_u64(h, f->file_bytes_at);
  if (size < file_bytes)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: truncated file (header says %llu bytes)", path,
                      (unsigned long long)size, (unsigned long long)file_bytes);
  if (file_bytes != l.file_bytes || size != file_bytes)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %u: file size %llu, expected %llu for n=%llu m=%llu",
                      path, f->file_bytes_at, (unsigned long long)size, (unsigned long long)l.file_bytes,
                      (unsigned long long)n, (unsigned long long)m);
  for (unsigned s = 0; s < f->sections; s++) {
    uint64_t off = hb_get_u64(h, 40 + 16 * (size_t)s), len = hb_get_u64(h, 48 + 16 * (size_t)s);
    if (off != l.off[s] || len != l.len[s])
      return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %u: section %u at %llu+%llu, expected %llu+%llu", path,
                        40 + 16 * s, s, (unsigned long long)off, (unsigned long long)len, (unsigned long long)l.off[s],
                        (unsigned long long)l.len[s]);
  }
  *fmt = f;
  return 0;
}

/* The CRC32 of the weight sections of a version-2 weighted file. */
static int check_weight_crcs(const char *path, const unsigned char *h, const struct graph_bin_format *f, char *err,
                             size_t errlen) {
  static const char *const name[2] = {"in_w", "out_w"};
  if (!f->wcrc_at || !(hb_get_u64(h, 32) & GRAPH_BIN_WEIGHTED))
    return 0;
  for (unsigned i = 0; i < 2; i++) {
    uint64_t off = hb_get_u64(h, 40 + 16 * (size_t)(4 + i)), len = hb_get_u64(h, 48 + 16 * (size_t)(4 + i));
    uint32_t want = hb_get_u32(h, f->wcrc_at + 4 * i);
    if ((uint32_t)crc32_z(0L, h + off, (z_size_t)len) != want)
      return graph_errf(err, errlen, DSANA_EFORMAT,
                        "%s: offset %llu: %s section checksum mismatch (corrupt edge weights)", path,
                        (unsigned long long)off, name[i]);
  }
  return 0;
}

/* Offset of section s (in_off 0 ... out_w 5) in a checked header. */
static const void *section(const unsigned char *h, unsigned s) { return h + hb_get_u64(h, 40 + 16 * (size_t)s); }

int dsana_graph_map_binary(const char *path, struct dsana_graph *g, char *err, size_t errlen) {
  void *map = NULL;
  uint64_t size = 0;
  const struct graph_bin_format *f = NULL;
  memset(g, 0, sizeof *g);
  if (io_mem_is_name(path))
    return map_memory(path, g, err, errlen);
  int rc = io_map_shared(path, BIN_MIN_HEADER, &map, &size, err, errlen);
  if (rc)
    return rc;
  const unsigned char *h = map;
  rc = check_header(path, h, size, &f, err, errlen);
  if (!rc)
    rc = check_weight_crcs(path, h, f, err, errlen);
  if (!rc) {
    uint64_t n = hb_get_u64(h, 16), m = hb_get_u64(h, 24);
    const uint64_t *in_off = section(h, 0);
    if (in_off[0] != 0 || in_off[n] != m)
      rc = graph_errf(err, errlen, DSANA_EFORMAT,
                      "%s: offset %llu: in_off[0] = %llu, in_off[n] = %llu, expected 0 and %llu", path,
                      (unsigned long long)hb_get_u64(h, 40), (unsigned long long)in_off[0],
                      (unsigned long long)in_off[n], (unsigned long long)m);
  }
  if (rc) {
    io_unmap_shared(map, (size_t)size);
    return rc;
  }
  g->n = hb_get_u64(h, 16);
  g->m = hb_get_u64(h, 24);
  g->in_off = section(h, 0);
  g->in_src = section(h, 1);
  g->out_deg = section(h, 2);
  g->orig_id = hb_get_u64(h, 48 + 16 * 3) ? section(h, 3) : NULL;
  if (f->sections > 4 && (hb_get_u64(h, 32) & GRAPH_BIN_WEIGHTED)) {
    g->in_w = section(h, 4);
    g->out_w = section(h, 5);
  }
  g->priv_map = map;
  g->priv_map_len = (size_t)size;
  return 0;
}

/* Weights of destinations [lo, hi): in_w positive finite, out_w consistent. */
static int check_weights(const struct dsana_graph *g, uint64_t lo, uint64_t hi, char *err, size_t errlen) {
  for (uint64_t k = g->in_off[lo]; k < g->in_off[hi]; k++)
    if (!graph_weight_ok(g->in_w[k]))
      return graph_errf(err, errlen, DSANA_EFORMAT, "in_w[%llu] = %g: not a " GRAPH_WEIGHT_RANGE, (unsigned long long)k,
                        g->in_w[k]);
  for (uint64_t v = lo; v < hi; v++) {
    double s = g->out_w[v];
    if (!(isfinite(s) && s >= 0.0) || (s > 0.0) != (g->out_deg[v] > 0))
      return graph_errf(err, errlen, DSANA_EFORMAT,
                        "out_w[%llu] = %g with out-degree %u: not a sum of positive weights", (unsigned long long)v, s,
                        g->out_deg[v]);
  }
  return 0;
}

int dsana_graph_check_range(const struct dsana_graph *g, uint64_t lo, uint64_t hi, char *err, size_t errlen) {
  if (lo > hi || hi > g->n)
    return graph_errf(err, errlen, DSANA_ERANGE, "destination range [%llu, %llu) outside [0, %llu)",
                      (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)g->n);
  for (uint64_t v = lo; v < hi; v++) {
    uint64_t a = g->in_off[v], b = g->in_off[v + 1];
    if (a > b || b > g->m)
      return graph_errf(err, errlen, DSANA_EFORMAT, "in_off[%llu..%llu] = %llu..%llu: not monotone within %llu edges",
                        (unsigned long long)v, (unsigned long long)v + 1, (unsigned long long)a, (unsigned long long)b,
                        (unsigned long long)g->m);
    for (uint64_t k = a; k < b; k++)
      if (g->in_src[k] >= g->n)
        return graph_errf(err, errlen, DSANA_EFORMAT, "in_src[%llu] = %u: not below n = %llu", (unsigned long long)k,
                          g->in_src[k], (unsigned long long)g->n);
  }
  return g->in_w && g->out_w && lo < hi ? check_weights(g, lo, hi, err, errlen) : 0;
}
