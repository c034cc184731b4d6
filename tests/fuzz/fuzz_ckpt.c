/*
 * fuzz_ckpt.c - libFuzzer target for the checkpoint readers
 * (runtime/checkpoint.c): the input is written as a manifest and as a shard
 * file of a fixed small job in a private folder, then read back. Beyond
 * "no crash", an accepted manifest must describe a sane job, and a shard is
 * only ever accepted with its checksums right (so values are never read
 * from a damaged file).
 *
 * Build and run: tests/fuzz/run.sh SECONDS ckpt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fuzz_dir(void) {
  static char dir[64];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/dsana-fuzz-ckpt-XXXXXX");
    if (!mkdtemp(dir))
      abort();
  }
  return dir;
}

static void fuzz_put(const char *dir, const char *name, const uint8_t *data, size_t size) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *dir = fuzz_dir();
  char err[1400];
  fuzz_put(dir, "manifest", data, size);
  struct ckpt_manifest m;
  if (ckpt_read_manifest(dir, &m, err, sizeof err) == 0 &&
      (m.n_servers == 0 || m.n_tables == 0 || m.n_tables > DSANA_MAX_TABLES))
    abort();
  fuzz_put(dir, "shard-0.ckpt", data, size);
  static double a[64], b[64];
  double *tables[2] = {a, b};
  struct ckpt_shard want = {.iter = 5, .n_servers = 1, .server = 0, .n_tables = 2, .n_keys = 64, .lo = 0, .hi = 64};
  (void)ckpt_read_shard(dir, &want, tables, err, sizeof err);
  (void)ckpt_read_shard(dir, &want, NULL, err, sizeof err);
  return 0;
}
