/*
 * graph_binary.c - dsana's own graph file: written once by the converter,
 * memory-mapped read-only by every process that needs the graph.
 *
 * Layout (little-endian; version 1):
 *   0   magic "DSNAGRPH"          8   u32 version     12  u32 header bytes (128)
 *   16  u64 n                     24  u64 m           32  u64 flags
 *   40  4 x {u64 offset, u64 bytes}: in_off (u64, n+1), in_src (u32, m),
 *       out_deg (u32, n), orig_id (u64, n; bytes 0 when absent)
 *   104 u64 file bytes            112 8 reserved bytes (zero)
 *   120 u32 crc32 of bytes 0..119 124 u32 zero
 * Sections follow in that order, each at a 64-byte aligned offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "dsana/dsana.h"
#include "io/graph_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary graph format is little-endian; add byte swapping for this host"
#endif

#define BIN_MAGIC "DSNAGRPH"
enum { BIN_VERSION = 1, BIN_HEADER = 128, BIN_ALIGN = 64, BIN_SECTIONS = 4, BIN_CRC_AT = 120 };

struct bin_layout {
  uint64_t off[BIN_SECTIONS], len[BIN_SECTIONS], file_bytes;
};

static uint64_t align_up(uint64_t x) { return (x + BIN_ALIGN - 1) & ~(uint64_t)(BIN_ALIGN - 1); }

static void put_u32(unsigned char *h, size_t at, uint32_t v) { memcpy(h + at, &v, 4); }
static void put_u64(unsigned char *h, size_t at, uint64_t v) { memcpy(h + at, &v, 8); }
static uint32_t get_u32(const unsigned char *h, size_t at) {
  uint32_t v;
  memcpy(&v, h + at, 4);
  return v;
}
static uint64_t get_u64(const unsigned char *h, size_t at) {
  uint64_t v;
  memcpy(&v, h + at, 8);
  return v;
}

static uint32_t header_crc(const unsigned char *h) { return (uint32_t)crc32(0L, h, BIN_CRC_AT); }

static void layout(uint64_t n, uint64_t m, bool orig, struct bin_layout *l) {
  l->len[0] = (n + 1) * 8;
  l->len[1] = m * 4;
  l->len[2] = n * 4;
  l->len[3] = orig ? n * 8 : 0;
  uint64_t at = BIN_HEADER;
  l->file_bytes = BIN_HEADER;
  for (int s = 0; s < BIN_SECTIONS; s++) {
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

static bool write_all(int fd, const void *p, uint64_t len) {
  const char *c = p;
  while (len) {
    size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
    ssize_t w = write(fd, c, chunk);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    c += w;
    len -= (uint64_t)w;
  }
  return true;
}

static bool write_sections(int fd, const struct dsana_graph *g, const unsigned char *h, const struct bin_layout *l) {
  static const unsigned char zeros[BIN_ALIGN];
  const void *data[BIN_SECTIONS] = {g->in_off, g->in_src, g->out_deg, g->orig_id};
  uint64_t at = BIN_HEADER;
  if (!write_all(fd, h, BIN_HEADER))
    return false;
  for (int s = 0; s < BIN_SECTIONS; s++) {
    if (!l->len[s])
      continue;
    if (!write_all(fd, zeros, l->off[s] - at) || !write_all(fd, data[s], l->len[s]))
      return false;
    at = l->off[s] + l->len[s];
  }
  return true;
}

static void sync_dir(const char *path) {
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path == 0 ? 1 : slash - path), path);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    fsync(fd);
    close(fd);
  }
}

int dsana_graph_write_binary(const struct dsana_graph *g, const char *path, char *err, size_t errlen) {
  unsigned char h[BIN_HEADER] = {0};
  struct bin_layout l;
  if (g->n > GRAPH_MAX_VERTICES)
    return graph_errf(err, errlen, DSANA_ERANGE, "%s: %llu vertices: too many", path, (unsigned long long)g->n);
  layout(g->n, g->m, g->orig_id != NULL, &l);
  memcpy(h, BIN_MAGIC, 8);
  put_u32(h, 8, BIN_VERSION);
  put_u32(h, 12, BIN_HEADER);
  put_u64(h, 16, g->n);
  put_u64(h, 24, g->m);
  put_u64(h, 32, (g->orig_id ? GRAPH_BIN_HAS_ORIG_ID : 0) | (has_duplicates(g) ? 0 : GRAPH_BIN_NO_DUPLICATES));
  for (int s = 0; s < BIN_SECTIONS; s++) {
    put_u64(h, 40 + 16 * (size_t)s, l.off[s]);
    put_u64(h, 48 + 16 * (size_t)s, l.len[s]);
  }
  put_u64(h, 104, l.file_bytes);
  put_u32(h, BIN_CRC_AT, header_crc(h));

  size_t plen = strlen(path);
  char *tmp = malloc(plen + 16);
  if (!tmp)
    return graph_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", path);
  snprintf(tmp, plen + 16, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int rc = graph_errf(err, errlen, DSANA_EIO, "%s: cannot create temporary file: %s", path, strerror(errno));
    free(tmp);
    return rc;
  }
  bool ok = fchmod(fd, 0644) == 0 && write_sections(fd, g, h, &l) && fsync(fd) == 0;
  int saved = errno;
  ok = (close(fd) == 0) && ok;
  if (ok && rename(tmp, path) != 0) {
    saved = errno;
    ok = false;
  }
  if (!ok) {
    unlink(tmp);
    free(tmp);
    return graph_errf(err, errlen, DSANA_EIO, "%s: write failed: %s", path, strerror(saved));
  }
  free(tmp);
  sync_dir(path);
  return 0;
}

bool dsana_graph_is_binary(const char *path) {
  char magic[8];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t r = read(fd, magic, sizeof magic);
  close(fd);
  return r == (ssize_t)sizeof magic && memcmp(magic, BIN_MAGIC, 8) == 0;
}

uint64_t graph_binary_flags(const struct dsana_graph *g) {
  return g->priv_map ? get_u64(g->priv_map, 32) : 0;
}

/* O(1) checks of a mapped header against the file size. */
static int check_header(const char *path, const unsigned char *h, uint64_t size, char *err, size_t errlen) {
  struct bin_layout l;
  if (memcmp(h, BIN_MAGIC, 8) != 0)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 0: bad magic (not a dsana binary graph)", path);
  uint32_t version = get_u32(h, 8);
  if (version != BIN_VERSION)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 8: version %u not supported (this build reads version %u)",
                      path, version, (unsigned)BIN_VERSION);
  if (get_u32(h, BIN_CRC_AT) != header_crc(h))
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %d: header checksum mismatch", path, BIN_CRC_AT);
  if (get_u32(h, 12) != BIN_HEADER)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 12: header size %u, expected %d", path, get_u32(h, 12),
                      BIN_HEADER);
  uint64_t n = get_u64(h, 16), m = get_u64(h, 24), flags = get_u64(h, 32);
  if (n > GRAPH_MAX_VERTICES)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 16: %llu vertices: too many", path,
                      (unsigned long long)n);
  if (m > (UINT64_MAX - 4096) / 8)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 24: %llu edges: too many", path, (unsigned long long)m);
  layout(n, m, flags & GRAPH_BIN_HAS_ORIG_ID, &l);
  uint64_t file_bytes = get_u64(h, 104);
  if (size < file_bytes)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: truncated file (header says %llu bytes)", path,
                      (unsigned long long)size, (unsigned long long)file_bytes);
  if (file_bytes != l.file_bytes || size != file_bytes)
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset 104: file size %llu, expected %llu for n=%llu m=%llu",
                      path, (unsigned long long)size, (unsigned long long)l.file_bytes, (unsigned long long)n,
                      (unsigned long long)m);
  for (int s = 0; s < BIN_SECTIONS; s++) {
    uint64_t off = get_u64(h, 40 + 16 * (size_t)s), len = get_u64(h, 48 + 16 * (size_t)s);
    if (off != l.off[s] || len != l.len[s])
      return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %d: section %d at %llu+%llu, expected %llu+%llu",
                        path, 40 + 16 * s, s, (unsigned long long)off, (unsigned long long)len,
                        (unsigned long long)l.off[s], (unsigned long long)l.len[s]);
  }
  return 0;
}

int dsana_graph_map_binary(const char *path, struct dsana_graph *g, char *err, size_t errlen) {
  struct stat st;
  memset(g, 0, sizeof *g);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return graph_errf(err, errlen, DSANA_EIO, "%s: %s", path, strerror(errno));
  if (fstat(fd, &st) != 0) {
    int rc = graph_errf(err, errlen, DSANA_EIO, "%s: %s", path, strerror(errno));
    close(fd);
    return rc;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return graph_errf(err, errlen, DSANA_EIO, "%s: not a regular file", path);
  }
  uint64_t size = (uint64_t)st.st_size;
  if (size < BIN_HEADER) {
    close(fd);
    return graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: truncated file (header needs %d bytes)", path,
                      (unsigned long long)size, BIN_HEADER);
  }
  void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
  int saved = errno;
  close(fd);
  if (map == MAP_FAILED)
    return graph_errf(err, errlen, DSANA_EIO, "%s: mmap: %s", path, strerror(saved));
  const unsigned char *h = map;
  int rc = check_header(path, h, size, err, errlen);
  if (rc) {
    munmap(map, (size_t)size);
    return rc;
  }
  uint64_t n = get_u64(h, 16), m = get_u64(h, 24);
  const uint64_t *in_off = (const uint64_t *)(h + get_u64(h, 40));
  if (in_off[0] != 0 || in_off[n] != m) {
    rc = graph_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: in_off[0] = %llu, in_off[n] = %llu, expected 0 and %llu",
                    path, (unsigned long long)get_u64(h, 40), (unsigned long long)in_off[0],
                    (unsigned long long)in_off[n], (unsigned long long)m);
    munmap(map, (size_t)size);
    return rc;
  }
  g->n = n;
  g->m = m;
  g->in_off = in_off;
  g->in_src = (const uint32_t *)(h + get_u64(h, 56));
  g->out_deg = (const uint32_t *)(h + get_u64(h, 72));
  g->orig_id = get_u64(h, 96) ? (const uint64_t *)(h + get_u64(h, 88)) : NULL;
  g->priv_map = map;
  g->priv_map_len = (size_t)size;
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
                        (unsigned long long)v, (unsigned long long)v + 1, (unsigned long long)a,
                        (unsigned long long)b, (unsigned long long)g->m);
    for (uint64_t k = a; k < b; k++)
      if (g->in_src[k] >= g->n)
        return graph_errf(err, errlen, DSANA_EFORMAT, "in_src[%llu] = %u: not below n = %llu", (unsigned long long)k,
                          g->in_src[k], (unsigned long long)g->n);
  }
  return 0;
}
