/*
 * fuzz_ckpt.c - libFuzzer target for the checkpoint readers
 * (runtime/record/checkpoint.c, format version 2: per-table shapes).
 *
 * Input: a little-endian u16 m, then m bytes written as DIR/manifest and
 * the rest as DIR/shard-0.ckpt (DIR a private folder, under /dev/shm when
 * there, else /tmp); shorter inputs are both files whole. Then the manifest is read, the shard is read against a
 * fixed small job (two tables: 64 keys of width 1, 32 of width 2; one
 * server; iteration 5), and the checkpoint is validated as --resume would.
 * Beyond "no crash":
 *   - an accepted manifest describes a sane job (servers, 1..16 tables,
 *     each with keys and a width) and round-trips through the writer;
 *   - a shard is only ever accepted whole and with both checksums right
 *     (checked here with zlib, independently of the reader), and the
 *     values loaded are the file's.
 *
 * Build and run: tests/fuzz/run.sh SECONDS ckpt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "net/wire/wire.h"
#include "runtime/record/checkpoint.h"
#include "runtime/core/job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir_path[64];

/* The private folder goes when the run ends (libFuzzer exits normally). */
static void fuzz_dir_remove(void) {
  const char *names[] = {"manifest", "shard-0.ckpt"};
  char path[128];
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s", fuzz_dir_path, names[i]);
    unlink(path);
  }
  rmdir(fuzz_dir_path);
}

/* Under /dev/shm when there: rewriting a file in place on ext4 (/tmp here)
 * makes each close() flush it, which took most of the run time. */
static const char *fuzz_dir(void) {
  if (!fuzz_dir_path[0]) {
    snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "/dev/shm/dsana-fuzz-ckpt-XXXXXX");
    if (!mkdtemp(fuzz_dir_path)) {
      snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "/tmp/dsana-fuzz-ckpt-XXXXXX");
      if (!mkdtemp(fuzz_dir_path))
        abort();
    }
    atexit(fuzz_dir_remove);
  }
  return fuzz_dir_path;
}

static void fuzz_put(const char *dir, const char *name, const uint8_t *data, size_t size) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
    abort();
}

static void fuzz_check_manifest(const char *dir, const struct ckpt_manifest *m) {
  if (m->n_servers == 0 || m->shape.n_tables == 0 || m->shape.n_tables > DSANA_MAX_TABLES)
    abort();
  for (uint32_t t = 0; t < m->shape.n_tables; t++)
    if (m->shape.n_keys[t] == 0 || m->shape.width[t] == 0)
      abort();
  /* written back and read again: the same manifest, bit for bit */
  static struct ckpt_manifest again;
  char err[1400];
  if (ckpt_write_manifest(dir, m, err, sizeof err) != 0 || ckpt_read_manifest(dir, &again, err, sizeof err) != 0 ||
      again.iter != m->iter || again.n_servers != m->n_servers ||
      memcmp(&again.shape, &m->shape, sizeof m->shape) != 0 ||
      memcmp(again.globals, m->globals, sizeof m->globals) != 0 ||
      memcmp(&again.residual, &m->residual, sizeof m->residual) != 0)
    abort();
}

static uint32_t fuzz_crc(const uint8_t *p, size_t len) { return (uint32_t)crc32_z(crc32(0L, Z_NULL, 0), p, len); }

/* An accepted shard file: its header and data checksums are right, and
 * its size is the header's plus the job's values; tables hold its data. */
static void fuzz_check_shard(const uint8_t *file, size_t size, const struct ckpt_shard *want, double *const *tables,
                             const size_t *bytes) {
  size_t hdr = 32 + 16 * (size_t)want->shape.n_tables + 8, total = hdr;
  for (uint32_t t = 0; t < want->shape.n_tables; t++)
    total += bytes[t];
  if (size != total || memcmp(file, "DSNACKPT", 8) != 0 || wire_get_u32(file + 8) != 2 ||
      wire_get_u32(file + hdr - 4) != fuzz_crc(file, hdr - 4) ||
      wire_get_u32(file + hdr - 8) != fuzz_crc(file + hdr, total - hdr))
    abort();
  for (uint32_t t = 0, at = (uint32_t)hdr; tables && t < want->shape.n_tables; at += (uint32_t)bytes[t], t++)
    if (memcmp(tables[t], file + at, bytes[t]) != 0)
      abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *dir = fuzz_dir();
  char err[1400];
  const uint8_t *man = data, *shard = data;
  size_t man_len = size, shard_len = size;
  if (size >= 2 && (size_t)(data[0] | data[1] << 8) <= size - 2) {
    man = data + 2;
    man_len = (size_t)(data[0] | data[1] << 8);
    shard = man + man_len;
    shard_len = size - 2 - man_len;
  }
  fuzz_put(dir, "manifest", man, man_len);
  fuzz_put(dir, "shard-0.ckpt", shard, shard_len);

  static struct ckpt_manifest m;
  if (ckpt_read_manifest(dir, &m, err, sizeof err) == 0) {
    fuzz_check_manifest(dir, &m);
    fuzz_put(dir, "manifest", man, man_len); /* the check rewrote it */
  }

  static double a[64], b[64];
  double *tables[2] = {a, b};
  const size_t bytes[2] = {64 * 8, 32 * 2 * 8};
  struct ckpt_shard want = {
      .iter = 5, .n_servers = 1, .server = 0, .shape = {.n_tables = 2, .n_keys = {64, 32}, .width = {1, 2}}};
  if (ckpt_read_shard(dir, &want, tables, err, sizeof err) == 0)
    fuzz_check_shard(shard, shard_len, &want, tables, bytes);
  if (ckpt_read_shard(dir, &want, NULL, err, sizeof err) == 0)
    fuzz_check_shard(shard, shard_len, &want, NULL, bytes);
  if (ckpt_validate(dir, &m, err, sizeof err) == 0) {
    /* the manifest's own job, one server: its shard file is the input's */
    struct ckpt_shard own = {.iter = m.iter, .n_servers = m.n_servers, .server = 0, .shape = m.shape};
    size_t own_bytes[DSANA_MAX_TABLES];
    for (uint32_t t = 0; t < m.shape.n_tables; t++) {
      uint64_t lo, hi;
      shard_range(m.shape.n_keys[t], m.n_servers, 0, &lo, &hi);
      own_bytes[t] = (size_t)(hi - lo) * m.shape.width[t] * 8;
    }
    fuzz_check_shard(shard, shard_len, &own, NULL, own_bytes);
  }
  return 0;
}
