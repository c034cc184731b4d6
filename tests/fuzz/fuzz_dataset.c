/*
 * fuzz_dataset.c - libFuzzer target for the binary dataset loader
 * (io/dataset/dataset_binary.c, io/dataset/dataset_check.c):
 * dsana_dataset_map_binary(), then dsana_dataset_check() on part of the
 * rows and on all of them, and only when the full check passed, a walk
 * over every entry and the class helpers (the contract: a mapped dataset
 * is trusted only after its check).
 * Then the same file through dsana_dataset_open(), which must return a
 * dataset that passes the check, or fail with one line and a zeroed result.
 *
 * The input is the file, written to one memfd per run and opened as
 * /proc/self/fd/N. The header's CRC-32, the file-size field and the section
 * CRCs would stop almost every mutation at the first checks, so the target
 * patches them unless the input asks otherwise, through the header's unused
 * u32 at 252:
 *   bit 0 set: keep the file-size field (offset 144) as given
 *   bit 1 set: keep the header CRC-32 (offset 248) as given
 *   bit 2 set: keep the section CRC-32s as given
 *
 * Build and run: tests/fuzz/run.sh SECONDS dataset
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

#include "dsana/dataset.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { HDR_BYTES = 256, AT_SECTIONS = 48, SECTION_BYTES = 24, AT_FILE_BYTES = 144, AT_CRC = 248, AT_FUZZ = 252 };

static uint64_t get_u64(const uint8_t *h, size_t at) {
  uint64_t v;
  memcpy(&v, h + at, 8);
  return v;
}

/* Patch sizes and checksums of a header-sized prefix (see the top). */
static void fuzz_patch(uint8_t *h, size_t size) {
  if (!(h[AT_FUZZ] & 1)) {
    uint64_t file_bytes = size;
    memcpy(h + AT_FILE_BYTES, &file_bytes, 8);
  }
  for (int s = 0; s < 4 && !(h[AT_FUZZ] & 4); s++) {
    size_t at = AT_SECTIONS + SECTION_BYTES * (size_t)s;
    uint64_t off = get_u64(h, at), len = get_u64(h, at + 8);
    if (off <= size && len <= size - off) {
      uint32_t crc = (uint32_t)crc32(0L, h + off, (uInt)len);
      memcpy(h + at + 16, &crc, 4);
    }
  }
  if (!(h[AT_FUZZ] & 2)) {
    uint32_t crc = (uint32_t)crc32(0L, h, AT_CRC);
    memcpy(h + AT_CRC, &crc, 4);
  }
}

/* Everything an app does with a checked dataset. */
static void use_dataset(const struct dsana_dataset *ds) {
  double sum = 0, *labels;
  uint64_t k;
  char err[256];
  for (uint64_t r = 0; r < ds->n_rows; r++)
    for (uint64_t e = ds->row_off[r]; e < ds->row_off[r + 1]; e++)
      sum += dsana_dataset_val(ds, e) * (double)(ds->col[e] < ds->n_features);
  volatile double sink = sum; /* keep the walk */
  (void)sink;
  if (dsana_dataset_classes(ds, &labels, &k) != 0 || k < 1)
    abort();
  uint64_t *counts = malloc(k * sizeof *counts);
  if (!counts || dsana_dataset_class_counts(ds, labels, k, counts, err, sizeof err) != 0)
    abort();
  free(counts);
  free(labels);
}

static void fuzz_map(const char *path) {
  struct dsana_dataset ds;
  char err[256] = "";
  if (dsana_dataset_map_binary(path, &ds, err, sizeof err) != 0) {
    if (err[0] == '\0' || ds.row_off != NULL)
      abort();
    return;
  }
  uint64_t half = ds.n_rows / 2;
  bool part_ok = dsana_dataset_check(&ds, half, ds.n_rows, err, sizeof err) == 0;
  if (dsana_dataset_check(&ds, 0, ds.n_rows, err, sizeof err) == 0) {
    if (!part_ok)
      abort(); /* the whole passes but a part does not */
    use_dataset(&ds);
  } else if (err[0] == '\0' || strchr(err, '\n')) {
    abort();
  }
  dsana_dataset_fini(&ds);
}

static void fuzz_open(const char *path) {
  static const struct dsana_dataset zero;
  struct dsana_dataset ds;
  char err[256] = "";
  if (dsana_dataset_open(path, NULL, &ds, err, sizeof err) != 0) {
    if (err[0] == '\0' || strchr(err, '\n') || memcmp(&ds, &zero, sizeof zero) != 0)
      abort();
    return;
  }
  if (dsana_dataset_check(&ds, 0, ds.n_rows, err, sizeof err) != 0)
    abort();
  use_dataset(&ds);
  dsana_dataset_fini(&ds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy)
    return 0;
  memcpy(copy, data, size);
  if (size >= HDR_BYTES)
    fuzz_patch(copy, size);
  const char *path = fuzz_file("fuzz_dataset", copy, size);
  free(copy);
  fuzz_map(path);
  fuzz_open(path);
  return 0;
}
