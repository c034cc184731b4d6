/*
 * test_io_mapshare.c - a binary dataset mapped twice in one process is
 * mapped once (src/io/file/mapshare.c): the same pages, still readable
 * after the first user let go; unmapped with the last user (a fresh map
 * after that works); a file rewritten under the same name (atomically: a
 * new inode) gets a new mapping with its new contents.
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

#include "dsana/dataset.h"
#include "dsana/dsana.h"

static char dir[256], path[300];
static char err[512];

static void write_dataset(uint64_t seed) {
  struct dsana_dataset g;
  assert_int_equal(dsana_dataset_gen_logreg(200, 30, 5, 2, seed, &g, err, sizeof err), 0);
  assert_int_equal(dsana_dataset_write_binary(&g, path, err, sizeof err), 0);
  dsana_dataset_fini(&g);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "%s/dsana-mapshare-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir))
    return -1;
  snprintf(path, sizeof path, "%s/d.bin", dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unlink(path);
  rmdir(dir);
  return 0;
}

static void one_mapping_per_file_and_process(void **state) {
  (void)state;
  write_dataset(1);
  struct dsana_dataset a, b;
  assert_int_equal(dsana_dataset_map_binary(path, &a, err, sizeof err), 0);
  assert_int_equal(dsana_dataset_map_binary(path, &b, err, sizeof err), 0);
  assert_ptr_equal(a.col, b.col); /* the same pages */
  uint64_t sum = 0;
  for (uint64_t e = 0; e < b.nnz; e++)
    sum += b.col[e];
  dsana_dataset_fini(&a);
  uint64_t again = 0; /* b still reads them */
  for (uint64_t e = 0; e < b.nnz; e++)
    again += b.col[e];
  assert_int_equal(sum, again);
  dsana_dataset_fini(&b);
  struct dsana_dataset c; /* after the last user: a new mapping works */
  assert_int_equal(dsana_dataset_map_binary(path, &c, err, sizeof err), 0);
  assert_int_equal(c.nnz, 200 * 5);
  dsana_dataset_fini(&c);
}

static void a_rewritten_file_is_mapped_anew(void **state) {
  (void)state;
  write_dataset(1);
  struct dsana_dataset a, b;
  assert_int_equal(dsana_dataset_map_binary(path, &a, err, sizeof err), 0);
  write_dataset(2); /* rename over the old one: a new inode */
  assert_int_equal(dsana_dataset_map_binary(path, &b, err, sizeof err), 0);
  assert_ptr_not_equal(a.col, b.col);
  assert_true(memcmp(a.label, b.label, 200 * sizeof *a.label) != 0 ||
              memcmp(a.col, b.col, a.nnz * sizeof *a.col) != 0); /* the new contents */
  dsana_dataset_fini(&a);
  dsana_dataset_fini(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(one_mapping_per_file_and_process, setup, teardown),
      cmocka_unit_test_setup_teardown(a_rewritten_file_is_mapped_anew, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
