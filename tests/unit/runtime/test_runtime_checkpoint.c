/*
 * test_runtime_checkpoint.c - reading a shard file back (runtime/record/checkpoint.c):
 * loading it into tables and only checking it (tables NULL, as --resume's
 * validation does, streamed through a small buffer), over tables larger
 * than that buffer, and refusing a shard with a flipped data byte or cut
 * short. The whole checkpoint and resume cycle:
 * tests/integration/resume/test_checkpoint.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/record/checkpoint.h"

enum { KEYS_A = 5000, KEYS_B = 3001, WIDTH_B = 3 }; /* 40 000 and 72 024 bytes: several 16 KiB chunks */

static char dir[64];
static char shard_file[128];
static double table_a[KEYS_A], table_b[KEYS_B * WIDTH_B];

static const struct ckpt_shard shard = {.iter = 7,
                                        .n_servers = 1,
                                        .server = 0,
                                        .shape = {.n_tables = 2, .n_keys = {KEYS_A, KEYS_B}, .width = {1, WIDTH_B}}};

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/dsana-test-ckpt-XXXXXX");
  if (!mkdtemp(dir))
    return -1;
  snprintf(shard_file, sizeof shard_file, "%s/shard-0.ckpt", dir);
  for (size_t i = 0; i < KEYS_A; i++)
    table_a[i] = (double)i * 0.5 - 3;
  for (size_t i = 0; i < KEYS_B * WIDTH_B; i++)
    table_b[i] = 1.0 / (double)(i + 1);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unlink(shard_file);
  rmdir(dir);
  return 0;
}

static void write_shard(void) {
  double *tables[2] = {table_a, table_b};
  char err[1400];
  assert_int_equal(ckpt_write_shard(dir, &shard, tables, err, sizeof err), 0);
}

static long file_size(void) {
  FILE *f = fopen(shard_file, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long size = ftell(f);
  fclose(f);
  return size;
}

static void test_shard_loaded_and_checked(void **state) {
  (void)state;
  static double a[KEYS_A], b[KEYS_B * WIDTH_B];
  double *tables[2] = {a, b};
  char err[1400] = "";
  write_shard();
  assert_int_equal(ckpt_read_shard(dir, &shard, NULL, err, sizeof err), 0);
  assert_int_equal(ckpt_read_shard(dir, &shard, tables, err, sizeof err), 0);
  assert_memory_equal(a, table_a, sizeof a);
  assert_memory_equal(b, table_b, sizeof b);
}

static void test_flipped_byte_refused(void **state) {
  (void)state;
  char err[1400] = "";
  write_shard();
  FILE *f = fopen(shard_file, "r+b");
  assert_non_null(f);
  long at = file_size() - 20000; /* in table b, past the first chunk of the check */
  assert_int_equal(fseek(f, at, SEEK_SET), 0);
  int byte = fgetc(f);
  assert_int_equal(fseek(f, at, SEEK_SET), 0);
  fputc(byte ^ 1, f);
  fclose(f);
  assert_int_equal(ckpt_read_shard(dir, &shard, NULL, err, sizeof err), DSANA_EFORMAT);
  assert_non_null(strstr(err, "checksum"));
}

static void test_cut_short_refused(void **state) {
  (void)state;
  char err[1400] = "";
  write_shard();
  assert_int_equal(truncate(shard_file, file_size() - 8), 0);
  assert_int_equal(ckpt_read_shard(dir, &shard, NULL, err, sizeof err), DSANA_EFORMAT);
  assert_non_null(strstr(err, "truncated (table 1)"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shard_loaded_and_checked),
      cmocka_unit_test(test_flipped_byte_refused),
      cmocka_unit_test(test_cut_short_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
