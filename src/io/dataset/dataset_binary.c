/*
 * dataset_binary.c - dsana's own dataset file: written once by the
 * converter or generator, memory-mapped read-only by every process that
 * trains on it. Every section carries a CRC-32 (zlib), so a damaged file is
 * refused by dsana_dataset_check(), never half-read.
 *
 * Layout (little-endian; version 1):
 *   0   magic "DSNADATA"        8   u32 version       12  u32 header bytes (256)
 *   16  u64 n_rows              24  u64 n_features    32  u64 nnz
 *   40  u32 value type (1 f32, 2 f64)                 44  u32 flags (0)
 *   48  4 x {u64 offset, u64 bytes, u32 crc32, u32 zero}: row_off (u64,
 *       n_rows+1), col (u32, nnz), values (f32 or f64, nnz), label (f64, n_rows)
 *   144 u64 file bytes          152 96 reserved bytes (zero)
 *   248 u32 crc32 of bytes 0..247                     252 u32 zero
 * Sections follow in that order, each at a 64-byte aligned offset; the file
 * ends with the label section.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"
#include "util/text/fdwrite.h"
#include "util/memory/hostbytes.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary dataset format is little-endian; add byte swapping for this host"
#endif

#define BIN_MAGIC "DSNADATA"
enum { BIN_VERSION = 1, BIN_HEADER = 256, BIN_ALIGN = 64, BIN_SECTIONS = 4 };
enum { AT_VTYPE = 40, AT_SECTIONS = 48, SECTION_BYTES = 24, AT_FILE_BYTES = 144, AT_CRC = 248 };
enum { VTYPE_F32 = 1, VTYPE_F64 = 2 };
/* Bounds that keep every size computation below 2^64. */
#define BIN_MAX_ROWS (1ull << 40)
#define BIN_MAX_NNZ (1ull << 56)

static const char *const SECTION_NAME[BIN_SECTIONS] = {"row_off", "col", "values", "label"};

struct bin_layout {
  uint64_t off[BIN_SECTIONS], len[BIN_SECTIONS], file_bytes;
};

static uint64_t align_up(uint64_t x) { return (x + BIN_ALIGN - 1) & ~(uint64_t)(BIN_ALIGN - 1); }
static size_t section_at(int s) { return AT_SECTIONS + SECTION_BYTES * (size_t)s; }
static uint32_t header_crc(const unsigned char *h) { return (uint32_t)crc32(0L, h, AT_CRC); }

static void layout(uint64_t n_rows, uint64_t nnz, uint32_t vtype, struct bin_layout *l) {
  l->len[0] = (n_rows + 1) * 8;
  l->len[1] = nnz * 4;
  l->len[2] = nnz * (vtype == VTYPE_F32 ? 4 : 8);
  l->len[3] = n_rows * 8;
  uint64_t at = BIN_HEADER;
  for (int s = 0; s < BIN_SECTIONS; s++) {
    l->off[s] = at;
    at = align_up(at + l->len[s]);
  }
  l->file_bytes = l->off[3] + l->len[3];
}

/* CRC-32 of len bytes, in pieces zlib's length type takes. */
static uint32_t crc_of(const void *p, uint64_t len) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const unsigned char *c = p;
  while (len) {
    uInt piece = len > (1u << 30) ? (1u << 30) : (uInt)len;
    crc = crc32(crc, c, piece);
    c += piece;
    len -= piece;
  }
  return (uint32_t)crc;
}

static void fill_header(const struct dsana_dataset *ds, uint32_t vtype, const struct bin_layout *l, unsigned char *h) {
  memset(h, 0, BIN_HEADER);
  memcpy(h, BIN_MAGIC, 8);
  hb_put_u32(h, 8, BIN_VERSION);
  hb_put_u32(h, 12, BIN_HEADER);
  hb_put_u64(h, 16, ds->n_rows);
  hb_put_u64(h, 24, ds->n_features);
  hb_put_u64(h, 32, ds->nnz);
  hb_put_u32(h, AT_VTYPE, vtype);
  for (int s = 0; s < BIN_SECTIONS; s++) {
    hb_put_u64(h, section_at(s), l->off[s]);
    hb_put_u64(h, section_at(s) + 8, l->len[s]);
  }
  hb_put_u64(h, AT_FILE_BYTES, l->file_bytes);
}

/* Header placeholder, then each section (padding before it), recording
 * each section's CRC in h; then the finished header over the placeholder. */
static bool write_sections(int fd, const struct dsana_dataset *ds, const struct bin_layout *l, unsigned char *h) {
  static const unsigned char zeros[BIN_HEADER];
  const void *data[BIN_SECTIONS] = {ds->row_off, ds->col, ds->val_f32 ? (const void *)ds->val_f32 : ds->val_f64,
                                    ds->label};
  uint64_t at = BIN_HEADER;
  if (!fd_write_all(fd, zeros, BIN_HEADER))
    return false;
  for (int s = 0; s < BIN_SECTIONS; s++) {
    uint32_t crc = crc_of(data[s], l->len[s]);
    if (!fd_write_all(fd, zeros, l->off[s] - at) || (l->len[s] && !fd_write_all(fd, data[s], l->len[s])))
      return false;
    hb_put_u32(h, section_at(s) + 16, crc);
    at = l->off[s] + l->len[s];
  }
  hb_put_u32(h, AT_CRC, header_crc(h));
  return pwrite(fd, h, BIN_HEADER, 0) == BIN_HEADER;
}

int dsana_dataset_write_binary(const struct dsana_dataset *ds, const char *path, char *err, size_t errlen) {
  unsigned char h[BIN_HEADER];
  struct bin_layout l;
  struct ds_out o;
  if (!ds || !path || !ds->row_off || !ds->label || (!ds->val_f32) == (!ds->val_f64))
    return io_errf(err, errlen, DSANA_EINVAL, "%s: dataset_write_binary: not a dataset", path ? path : "?");
  if (ds->n_rows < 1 || ds->n_rows > BIN_MAX_ROWS || ds->nnz > BIN_MAX_NNZ ||
      ds->n_features > DSANA_DATASET_MAX_FEATURES)
    return io_errf(err, errlen, DSANA_ERANGE, "%s: %llu rows, %llu features, %llu entries: outside the format", path,
                   (unsigned long long)ds->n_rows, (unsigned long long)ds->n_features, (unsigned long long)ds->nnz);
  uint32_t vtype = ds->val_f32 ? VTYPE_F32 : VTYPE_F64;
  layout(ds->n_rows, ds->nnz, vtype, &l);
  fill_header(ds, vtype, &l, h);
  int rc = ds_out_open(&o, path, err, errlen);
  if (rc)
    return rc;
  bool ok = write_sections(o.fd, ds, &l, h);
  return ds_out_finish(&o, ok, ok ? 0 : errno, err, errlen);
}

bool dsana_dataset_is_binary(const char *path) {
  return io_mem_find(path, IO_MEM_DATASET) || graph_file_has_magic(path, BIN_MAGIC);
}

/* An in-memory dataset (mem_source.c): a view of the caller's arrays. */
static int map_memory(const char *path, struct dsana_dataset *ds, char *err, size_t errlen) {
  const struct dsana_dataset *src = io_mem_find(path, IO_MEM_DATASET);
  if (!src)
    return io_errf(err, errlen, DSANA_EIO, "%s: no such in-memory dataset (unregistered)", path);
  *ds = (struct dsana_dataset){.n_rows = src->n_rows,
                               .n_features = src->n_features,
                               .nnz = src->nnz,
                               .row_off = src->row_off,
                               .col = src->col,
                               .val_f32 = src->val_f32,
                               .val_f64 = src->val_f64,
                               .label = src->label,
                               .priv_name = strdup(path)};
  return ds->priv_name ? 0 : io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", path);
}

/* Counts of the header against each other and the format's limits. */
static int check_counts(const char *path, const unsigned char *h, char *err, size_t errlen) {
  uint64_t n_rows = hb_get_u64(h, 16), n_features = hb_get_u64(h, 24), nnz = hb_get_u64(h, 32);
  uint32_t vtype = hb_get_u32(h, AT_VTYPE);
  if (n_rows < 1 || n_rows > BIN_MAX_ROWS)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 16: %llu rows (want 1..2^40)", path,
                   (unsigned long long)n_rows);
  if (n_features > DSANA_DATASET_MAX_FEATURES)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 24: %llu features: too many", path,
                   (unsigned long long)n_features);
  if (nnz > BIN_MAX_NNZ || (unsigned __int128)nnz > (unsigned __int128)n_rows * n_features)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 32: %llu entries in %llu rows of %llu features", path,
                   (unsigned long long)nnz, (unsigned long long)n_rows, (unsigned long long)n_features);
  if (vtype != VTYPE_F32 && vtype != VTYPE_F64)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %d: value type %u (want 1 float or 2 double)", path,
                   AT_VTYPE, vtype);
  return 0;
}

/* Sections and file size against the layout the counts imply. */
static int check_layout(const char *path, const unsigned char *h, uint64_t size, char *err, size_t errlen) {
  struct bin_layout l;
  layout(hb_get_u64(h, 16), hb_get_u64(h, 32), hb_get_u32(h, AT_VTYPE), &l);
  uint64_t file_bytes = hb_get_u64(h, AT_FILE_BYTES);
  if (size < file_bytes)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: truncated file (header says %llu bytes)", path,
                   (unsigned long long)size, (unsigned long long)file_bytes);
  if (file_bytes != l.file_bytes || size != file_bytes)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %d: file size %llu, expected %llu for these counts", path,
                   AT_FILE_BYTES, (unsigned long long)size, (unsigned long long)l.file_bytes);
  for (int s = 0; s < BIN_SECTIONS; s++) {
    uint64_t off = hb_get_u64(h, section_at(s)), len = hb_get_u64(h, section_at(s) + 8);
    if (off != l.off[s] || len != l.len[s])
      return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %zu: section %s at %llu+%llu, expected %llu+%llu", path,
                     section_at(s), SECTION_NAME[s], (unsigned long long)off, (unsigned long long)len,
                     (unsigned long long)l.off[s], (unsigned long long)l.len[s]);
  }
  return 0;
}

/* O(1) checks of a mapped header against the file size. */
static int check_header(const char *path, const unsigned char *h, uint64_t size, char *err, size_t errlen) {
  if (memcmp(h, BIN_MAGIC, 8) != 0)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 0: bad magic (not a dsana binary dataset)", path);
  uint32_t version = hb_get_u32(h, 8);
  if (version != BIN_VERSION)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 8: version %u not supported (this build reads version %u)",
                   path, version, (unsigned)BIN_VERSION);
  if (hb_get_u32(h, AT_CRC) != header_crc(h))
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %d: header checksum mismatch", path, AT_CRC);
  if (hb_get_u32(h, 12) != BIN_HEADER)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 12: header size %u, expected %d", path, hb_get_u32(h, 12),
                   BIN_HEADER);
  int rc = check_counts(path, h, err, errlen);
  return rc ? rc : check_layout(path, h, size, err, errlen);
}

/* Point ds's arrays into the checked mapping. */
static void attach(struct dsana_dataset *ds, const unsigned char *h) {
  ds->n_rows = hb_get_u64(h, 16);
  ds->n_features = hb_get_u64(h, 24);
  ds->nnz = hb_get_u64(h, 32);
  ds->row_off = (const uint64_t *)(h + hb_get_u64(h, section_at(0)));
  ds->col = (const uint32_t *)(h + hb_get_u64(h, section_at(1)));
  if (hb_get_u32(h, AT_VTYPE) == VTYPE_F32)
    ds->val_f32 = (const float *)(h + hb_get_u64(h, section_at(2)));
  else
    ds->val_f64 = (const double *)(h + hb_get_u64(h, section_at(2)));
  ds->label = (const double *)(h + hb_get_u64(h, section_at(3)));
}

int dsana_dataset_map_binary(const char *path, struct dsana_dataset *ds, char *err, size_t errlen) {
  void *map = NULL;
  uint64_t size = 0;
  memset(ds, 0, sizeof *ds);
  if (!path)
    return io_errf(err, errlen, DSANA_EINVAL, "dataset_map_binary: NULL path");
  if (io_mem_is_name(path))
    return map_memory(path, ds, err, errlen);
  int rc = io_map_shared(path, BIN_HEADER, BIN_HEADER, &map, &size, err, errlen);
  if (rc)
    return rc;
  const unsigned char *h = map;
  rc = check_header(path, h, size, err, errlen);
  if (!rc) {
    const uint64_t *row_off = (const uint64_t *)(h + hb_get_u64(h, section_at(0)));
    uint64_t n_rows = hb_get_u64(h, 16), nnz = hb_get_u64(h, 32);
    if (row_off[0] != 0 || row_off[n_rows] != nnz)
      rc = io_errf(err, errlen, DSANA_EFORMAT,
                   "%s: offset %llu: row_off[0] = %llu, row_off[n_rows] = %llu, expected 0 and %llu", path,
                   (unsigned long long)hb_get_u64(h, section_at(0)), (unsigned long long)row_off[0],
                   (unsigned long long)row_off[n_rows], (unsigned long long)nnz);
  }
  if (!rc && !(ds->priv_name = strdup(path)))
    rc = io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", path);
  if (rc) {
    io_unmap_shared(map, (size_t)size);
    memset(ds, 0, sizeof *ds);
    return rc;
  }
  attach(ds, h);
  ds->priv_map = map;
  ds->priv_map_len = (size_t)size;
  return 0;
}

int ds_binary_verify_crcs(const struct dsana_dataset *ds, char *err, size_t errlen) {
  const unsigned char *h = ds->priv_map;
  if (!h)
    return 0;
  for (int s = 0; s < BIN_SECTIONS; s++) {
    uint64_t off = hb_get_u64(h, section_at(s)), len = hb_get_u64(h, section_at(s) + 8);
    if (crc_of(h + off, len) != hb_get_u32(h, section_at(s) + 16))
      return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: section %s (%llu bytes): CRC-32 mismatch",
                     ds_name(ds), (unsigned long long)off, SECTION_NAME[s], (unsigned long long)len);
  }
  return 0;
}
