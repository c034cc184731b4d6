/*
 * fuzz_binary.c - libFuzzer target for the binary graph loader
 * (io/graph_binary*.c): dsana_graph_map_binary(), which checks the whole
 * body before it hands a graph out, so a graph it returns must pass the
 * range check of a heap graph over every destination and have out-degrees
 * summing to m (dsana_graph_stats()). Then
 * the same file through dsana_graph_open() with options from the input
 * length (fuzz_opts: dedup, weighted, undirected), which copies a mapped
 * graph that does not promise "no duplicates" (and hides weights unasked for).
 *
 * The input is the file, written to one memfd per run and opened as
 * /proc/self/fd/N. The header's CRC32 and file-size fields and the
 * sections' CRC32s would stop almost every mutation at the checksums, so
 * the target patches them unless the input asks otherwise, through the
 * header's last u32 (unused by the format, at 188):
 *   bit 0 set: keep the file-size field (offset 136) as given
 *   bit 1 set: keep the header CRC32 (offset 184) as given
 *   bit 2 set: keep the sections' CRC32s (offsets 144..167) as given
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

/* Where the header (version 3) keeps what the target patches. */
enum { HDR_BYTES = 192, AT_FILE_BYTES = 136, AT_SECTION_CRC = 144, AT_CRC = 184, AT_KEEP = 188, SECTIONS = 6 };

/* CRC32 of section s as its header entry places it, if in the file. */
static void patch_section_crc(uint8_t *h, size_t size, unsigned s) {
  uint64_t off, len;
  memcpy(&off, h + 40 + 16 * s, 8);
  memcpy(&len, h + 48 + 16 * s, 8);
  if (off > size || len > size - off)
    return;
  uint32_t crc = (uint32_t)crc32_z(0L, h + off, (z_size_t)len);
  memcpy(h + AT_SECTION_CRC + 4 * s, &crc, 4);
}

/* Patch the sizes and checksums of the header (see the top). */
static void fuzz_patch_header(uint8_t *h, size_t size) {
  uint8_t keep = h[AT_KEEP];
  if (!(keep & 1)) {
    uint64_t file_bytes = size;
    memcpy(h + AT_FILE_BYTES, &file_bytes, 8);
  }
  for (unsigned s = 0; s < SECTIONS && !(keep & 4); s++)
    patch_section_crc(h, size, s);
  if (!(keep & 2)) {
    uint32_t crc = (uint32_t)crc32(0L, h, AT_CRC);
    memcpy(h + AT_CRC, &crc, 4);
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
  struct dsana_graph heap = g; /* the same arrays, checked as a heap graph's */
  heap.priv_map = NULL;
  if (dsana_graph_check_range(&heap, 0, g.n, err, sizeof err) != 0)
    abort();
  dsana_graph_stats(&g, &st);
  uint64_t deg = 0;
  for (uint64_t v = 0; v < g.n; v++)
    deg += g.out_deg[v];
  if (st.n != g.n || st.m != g.m || deg != g.m)
    abort();
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
  /* A heap copy must be sound; a mapping was checked whole when mapped. */
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
  if (size >= HDR_BYTES)
    fuzz_patch_header(copy, size);
  const char *path = fuzz_file("fuzz_binary", copy, size);
  free(copy);
  fuzz_map(path);
  fuzz_open(path, size);
  return 0;
}
