/*
 * io_test_files.h - what the input unit tests share about files: a
 * scratch directory (setup_tmp / teardown_tmp as cmocka's group fixtures),
 * paths in it and in the test data, files from bytes or strings, a file's
 * bytes back, and the err buffer their "fails with that message" checks
 * fill. Static functions: include once per test program, after cmocka.h.
 */
#ifndef DSANA_TESTS_IO_TEST_FILES_H
#define DSANA_TESTS_IO_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[256];
static char errbuf[512];

static inline const char *data_path(const char *name) {
  static char buf[4][1024];
  static int k;
  const char *dir = getenv("DSANA_TEST_DATA");
  char *b = buf[k++ % 4];
  snprintf(b, sizeof buf[0], "%s/%s", dir ? dir : "tests/data", name);
  return b;
}

static inline const char *tmp_path(const char *name) {
  static char buf[8][512];
  static int k;
  char *b = buf[k++ % 8];
  snprintf(b, sizeof buf[0], "%s/%s", tmpdir, name);
  return b;
}

static inline void write_bytes(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

/* A scratch file holding text; returns its path. */
static inline const char *text_file(const char *name, const char *text) {
  const char *p = tmp_path(name);
  write_bytes(p, text, strlen(text));
  return p;
}

static inline size_t read_bytes(const char *path, unsigned char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  size_t n = fread(buf, 1, cap, f);
  fclose(f);
  return n;
}

static inline int setup_tmp(void **state) {
  (void)state;
  snprintf(tmpdir, sizeof tmpdir, "/tmp/dsana_test_io.XXXXXX");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int teardown_tmp(void **state) {
  (void)state;
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

#endif
