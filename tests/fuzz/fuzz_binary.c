/*
 * fuzz_binary.c - libFuzzer target for the binary graph loader
 * (io/graph_binary.c): dsana_graph_map_binary(), then dsana_graph_check_range() over
 * every destination, and dsana_graph_stats() only when that check passed (the
 * contract: a mapped graph is trusted only after its range check). Then
 * the same file through dsana_graph_open() with dedup, which copies a mapped
 * graph that does not promise "no duplicates".
 *
 * The input is the file, written to one memfd per run and opened as
 * /proc/self/fd/N. The header's CRC32 and file-size fields would stop
 * almost every mutation at the O(1) checks, so the target patches them
 * unless the input asks otherwise, through the header's unused u32 at 124:
 *   bit 0 set: keep the file-size field (offset 104) as given
 *   bit 1 set: keep the CRC32 (offset 120) as given
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
#include "dsana/graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { HDR_BYTES = 128, HDR_FILE_BYTES_AT = 104, HDR_CRC_AT = 120, HDR_FUZZ_AT = 124 };


/* Patch the size and checksum of a header-sized prefix (see the top). */
static void fuzz_patch_header(uint8_t *h, size_t size) {
  if (!(h[HDR_FUZZ_AT] & 1)) {
    uint64_t file_bytes = size;
    memcpy(h + HDR_FILE_BYTES_AT, &file_bytes, 8);
  }
  if (!(h[HDR_FUZZ_AT] & 2)) {
    uint32_t crc = (uint32_t)crc32(0L, h, HDR_CRC_AT);
    memcpy(h + HDR_CRC_AT, &crc, 4);
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

/* graph_open with dedup: whatever it returns must be a sound graph. */
static void fuzz_open_dedup(const char *path) {
  struct dsana_graph_opts opts = {.dedup = true};
  struct dsana_graph g;
  char err[256] = "";
  if (dsana_graph_open(path, &opts, &g, err, sizeof err) != 0) {
    if (err[0] == '\0' || g.in_off != NULL)
      abort();
    return;
  }
  /* A heap copy must be sound; a mapping (no copy needed) is checked on demand. */
  bool copied = g.priv_map == NULL;
  if (copied && dsana_graph_check_range(&g, 0, g.n, err, sizeof err) != 0)
    abort();
  dsana_graph_fini(&g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy)
    return 0;
  memcpy(copy, data, size);
  if (size >= HDR_BYTES)
    fuzz_patch_header(copy, size);
  const char *path = fuzz_file("fuzz_binary", copy, size);
  free(copy);
  fuzz_map(path);
  fuzz_open_dedup(path);
  return 0;
}
