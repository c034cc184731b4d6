/*
 * fuzz_binary.c - libFuzzer target for the binary graph loader
 * (io/graph_binary*.c): dsana_graph_map_binary(), then dsana_graph_check_range() over
 * every destination, and dsana_graph_stats() only when that check passed (the
 * contract: a mapped graph is trusted only after its range check). Then
 * the same file through dsana_graph_open() with options from the input
 * length (fuzz_opts: dedup, weighted, undirected), which copies a mapped
 * graph that does not promise "no duplicates" (and hides weights unasked for).
 *
 * The input is the file, written to one memfd per run and opened as
 * /proc/self/fd/N. The header's CRC32 and file-size fields (and, in a
 * version-2 file, the weight sections' CRC32s) would stop almost every
 * mutation at the O(1) checks, so the target patches them unless the input
 * asks otherwise, through the header's last u32 (unused by the format; at
 * 124 in version 1, at 188 in version 2):
 *   bit 0 set: keep the file-size field (offset 104 / 136) as given
 *   bit 1 set: keep the header CRC32 (offset 120 / 184) as given
 *   bit 2 set: keep the weight CRC32s (offsets 144 and 148) as given
 *
 * Build and run: tests/fuzz/run.sh SECONDS binary
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>

#include "fuzz_file.h"
#include "fuzz_graph.h"
#include "dsana/graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where a version's header keeps what the target patches. */
struct hdr_at {
  size_t bytes, file_bytes, crc, flags, wcrc; /* wcrc 0: no weight sections */
};
static const struct hdr_at V1 = {128, 104, 120, 124, 0}, V2 = {192, 136, 184, 188, 144};

/* CRC32 of section s (4 in_w, 5 out_w) as its header entry places it, if in the file. */
static void patch_section_crc(uint8_t *h, size_t size, unsigned s, size_t at) {
  uint64_t off, len;
  memcpy(&off, h + 40 + 16 * s, 8);
  memcpy(&len, h + 48 + 16 * s, 8);
  if (off > size || len > size - off)
    return;
  uint32_t crc = (uint32_t)crc32_z(0L, h + off, (z_size_t)len);
  memcpy(h + at, &crc, 4);
}

/* Patch the sizes and checksums of the header (see the top). */
static void fuzz_patch_header(uint8_t *h, size_t size) {
  const struct hdr_at *a = h[8] == 2 && size >= V2.bytes ? &V2 : &V1;
  uint8_t keep = h[a->flags];
  if (!(keep & 1)) {
    uint64_t file_bytes = size;
    memcpy(h + a->file_bytes, &file_bytes, 8);
  }
  if (a->wcrc && !(keep & 4)) {
    patch_section_crc(h, size, 4, a->wcrc);
    patch_section_crc(h, size, 5, a->wcrc + 4);
  }
  if (!(keep & 2)) {
    uint32_t crc = (uint32_t)crc32(0L, h, a->crc);
    memcpy(h + a->crc, &crc, 4);
  }
}

static void fuzz_map(const char *path) {
  struct dsana_graph g;
  struct dsana_graph_stats st;
  char err[256] = "";
  if (dsana_graph_map_binary(path, &g, err, sizeof err) != 0) {
    if (err[0] == '\0' || g.in_off != NULL)
      abort();
    return;
  }
  if (dsana_graph_check_range(&g, 0, g.n, err, sizeof err) == 0) {
    dsana_graph_stats(&g, &st);
    if (st.n != g.n || st.m != g.m)
      abort();
  } else if (err[0] == '\0') {
    abort();
  }
  dsana_graph_fini(&g);
}

/* graph_open with options: whatever it returns must be a sound graph. */
static void fuzz_open(const char *path, size_t size) {
  struct dsana_graph_opts opts = fuzz_opts(size, NULL, NULL);
  struct dsana_graph g;
  char err[256] = "";
  if (dsana_graph_open(path, &opts, &g, err, sizeof err) != 0) {
    if (err[0] == '\0' || g.in_off != NULL)
      abort();
    return;
  }
  if ((opts.weighted && !g.in_w) || (!opts.weighted && g.in_w))
    abort(); /* weights required or hidden as asked */
  if (opts.undirected && dsana_graph_is_binary(path))
    abort(); /* a binary graph is refused as undirected input (text files pass) */
  /* A heap copy must be sound; a mapping (no copy needed) is checked on demand. */
  bool copied = g.priv_map == NULL;
  if (copied && dsana_graph_check_range(&g, 0, g.n, err, sizeof err) != 0)
    abort();
  if (copied && g.in_w)
    fuzz_check_weights(&g);
  dsana_graph_fini(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fuzz_dense_too_big(data, size))
    return 0;
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy)
    return 0;
  memcpy(copy, data, size);
  if (size >= V1.bytes)
    fuzz_patch_header(copy, size);
  const char *path = fuzz_file("fuzz_binary", copy, size);
  free(copy);
  fuzz_map(path);
  fuzz_open(path, size);
  return 0;
}
