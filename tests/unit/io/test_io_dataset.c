/*
 * test_io_dataset.c - the dataset readers, the binary format, the IDX pair
 * reader, the generator and the class helpers (src/io/dataset/) against
 * the contract in dataset.h: exact arrays on small hand-checked inputs, one
 * check per bad input for its code and a one-line message naming the file
 * and line (text) or offset (binary), corruption refused, and generated
 * data that is deterministic and shaped as asked.
 * Data files come from $DSANA_TEST_DATA; scratch files go to a temp dir.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "dsana/dataset.h"
#include "dsana/dsana.h"
#include "io_test_files.h"

static void write_gz(const char *path, const void *data, size_t len) {
  gzFile z = gzopen(path, "wb");
  assert_non_null(z);
  assert_int_equal(gzwrite(z, data, (unsigned)len), (int)len);
  assert_int_equal(gzclose(z), Z_OK);
}

/* The whole file, malloc'd (free it); *len its bytes. */
static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long n = ftell(f);
  assert_true(n >= 0);
  rewind(f);
  unsigned char *b = malloc((size_t)n + 1);
  assert_non_null(b);
  assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  *len = (size_t)n;
  return b;
}

static void assert_zeroed(const struct dsana_dataset *ds) {
  static const struct dsana_dataset zero;
  assert_memory_equal(ds, &zero, sizeof zero);
}

/* Same shape, arrays and value type. */
static void assert_same_dataset(const struct dsana_dataset *a, const struct dsana_dataset *b) {
  assert_int_equal(a->n_rows, b->n_rows);
  assert_int_equal(a->n_features, b->n_features);
  assert_int_equal(a->nnz, b->nnz);
  assert_memory_equal(a->row_off, b->row_off, (a->n_rows + 1) * sizeof *a->row_off);
  assert_memory_equal(a->label, b->label, a->n_rows * sizeof *a->label);
  if (a->nnz)
    assert_memory_equal(a->col, b->col, a->nnz * sizeof *a->col);
  assert_true((a->val_f32 == NULL) == (b->val_f32 == NULL));
  if (a->nnz && a->val_f32)
    assert_memory_equal(a->val_f32, b->val_f32, a->nnz * sizeof *a->val_f32);
  if (a->nnz && a->val_f64)
    assert_memory_equal(a->val_f64, b->val_f64, a->nnz * sizeof *a->val_f64);
}

/* Expect dsana_dataset_open to fail with rc and a one-line err holding s1 and s2. */
static void expect_open_error(const char *path, const struct dsana_dataset_opts *opts, int rc, const char *s1,
                              const char *s2) {
  struct dsana_dataset ds;
  errbuf[0] = '\0';
  int got = dsana_dataset_open(path, opts, &ds, errbuf, sizeof errbuf);
  if (got != rc || !strstr(errbuf, s1) || (s2 && !strstr(errbuf, s2)))
    print_error("%s: rc %d (want %d), err '%s' (want '%s' and '%s')\n", path, got, rc, errbuf, s1, s2 ? s2 : "");
  assert_int_equal(got, rc);
  assert_non_null(strstr(errbuf, s1));
  if (s2)
    assert_non_null(strstr(errbuf, s2));
  assert_null(strchr(errbuf, '\n'));
  assert_zeroed(&ds);
}

static void open_ok(const char *path, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds) {
  int rc = dsana_dataset_open(path, opts, ds, errbuf, sizeof errbuf);
  if (rc)
    print_error("%s: %s\n", path, errbuf);
  assert_int_equal(rc, 0);
}

/* --- libsvm text ------------------------------------------------------- */

/* tests/data/ds_basic.svm, by hand: comments, CRLF, tabs, blank lines, an
 * empty row, "+1", exponents, "-0", ".5", "6." and no final newline. */
static void assert_basic(const struct dsana_dataset *ds) {
  static const uint64_t row_off[] = {0, 3, 5, 6, 6, 9};
  static const uint32_t col[] = {0, 2, 6, 1, 2, 6, 0, 1, 4};
  static const double val[] = {0.5, -2, 1e-3, 4, 0.25, 150, -0.0, 0.5, 6};
  static const double label[] = {1, -1, 3, 0, -0.5};
  assert_int_equal(ds->n_rows, 5);
  assert_int_equal(ds->n_features, 7);
  assert_int_equal(ds->nnz, 9);
  assert_null(ds->val_f32);
  assert_non_null(ds->val_f64);
  assert_memory_equal(ds->row_off, row_off, sizeof row_off);
  assert_memory_equal(ds->col, col, sizeof col);
  assert_memory_equal(ds->val_f64, val, sizeof val); /* bitwise: -0 stays -0 */
  assert_memory_equal(ds->label, label, sizeof label);
  assert_int_equal(dsana_dataset_check(ds, 0, ds->n_rows, errbuf, sizeof errbuf), 0);
}

static void test_libsvm_basic(void **state) {
  struct dsana_dataset ds;
  open_ok(data_path("ds_basic.svm"), NULL, &ds);
  assert_basic(&ds);
  assert_false(dsana_dataset_is_binary(data_path("ds_basic.svm")));
  dsana_dataset_fini(&ds);
  dsana_dataset_fini(&ds); /* twice is fine: zeroed */
  dsana_dataset_fini(NULL);
}

static void test_libsvm_gzip(void **state) {
  size_t len;
  unsigned char *text = slurp(data_path("ds_basic.svm"), &len);
  const char *gz = tmp_path("basic.svm.gz"), *gz_noext = tmp_path("basic_gz_no_suffix.svm");
  write_gz(gz, text, len);
  write_gz(gz_noext, text, len); /* by content, not by name */
  free(text);
  struct dsana_dataset a, b;
  open_ok(gz, NULL, &a);
  open_ok(gz_noext, NULL, &b);
  assert_basic(&a);
  assert_same_dataset(&a, &b);
  dsana_dataset_fini(&a);
  dsana_dataset_fini(&b);
}

static void test_libsvm_opts(void **state) {
  struct dsana_dataset ds;
  struct dsana_dataset_opts o = {.n_features_min = 100};
  open_ok(data_path("ds_basic.svm"), &o, &ds);
  assert_int_equal(ds.n_features, 100);
  dsana_dataset_fini(&ds);
  o.n_features_min = 3; /* below the largest index: no effect */
  open_ok(data_path("ds_basic.svm"), &o, &ds);
  assert_int_equal(ds.n_features, 7);
  dsana_dataset_fini(&ds);
  o = (struct dsana_dataset_opts){.n_features_max = 7};
  open_ok(data_path("ds_basic.svm"), &o, &ds);
  dsana_dataset_fini(&ds);
  o.n_features_max = 6; /* line 2 has index 7 */
  expect_open_error(data_path("ds_basic.svm"), &o, DSANA_EFORMAT, "ds_basic.svm:2: index out of range", "at most 6");
  o = (struct dsana_dataset_opts){.n_features_min = 30, .n_features_max = 20};
  expect_open_error(data_path("ds_basic.svm"), &o, DSANA_EINVAL, "n_features_min 30 above n_features_max 20", NULL);
  o = (struct dsana_dataset_opts){.n_features_min = DSANA_DATASET_MAX_FEATURES + 1};
  expect_open_error(data_path("ds_basic.svm"), &o, DSANA_EINVAL, "ds_basic.svm: n_features_min", NULL);
}

struct bad_case {
  const char *text;
  size_t len;        /* 0: strlen(text) */
  const char *where; /* "bad.svm:LINE: " */
  const char *what;
};

static void test_libsvm_bad(void **state) {
  static const struct bad_case cases[] = {
      {"1 1:1\n1:0.5 2:1\n", 0, "bad.svm:2: ", "missing label"},
      {"1 1:1\n\n# c\nx 1:1\n", 0, "bad.svm:4: ", "non-numeric label 'x'"},
      {"1 1:1\n1.5.2 1:1\n", 0, "bad.svm:2: ", "non-numeric label '1.5.2'"},
      {"nan 1:1\n", 0, "bad.svm:1: ", "non-finite label 'nan'"},
      {"1 1:1\n-inf 2:1\n", 0, "bad.svm:2: ", "non-finite label"},
      {"1 1:1\r\n1 2:abc\r\n", 0, "bad.svm:2: ", "non-numeric value in pair '2:abc'"},
      {"1 1:1e999\n", 0, "bad.svm:1: ", "non-finite value in pair '1:1e999'"},
      {"1 1:nan\n", 0, "bad.svm:1: ", "non-finite value"},
      {"0x10 1:1\n", 0, "bad.svm:1: ", "non-numeric label '0x10'"}, /* decimal only: no hex, as strtod takes */
      {"1 1:0x1p-3\n", 0, "bad.svm:1: ", "non-numeric value in pair '1:0x1p-3'"},
      {"1 1:infinity\n", 0, "bad.svm:1: ", "non-finite value in pair '1:infinity'"},
      {"1 1:1\n1 2:1\n1 0:3\n", 0, "bad.svm:3: ", "index 0 (libsvm indices start at 1)"},
      {"1 3:1 2:1\n", 0, "bad.svm:1: ", "index 2 after index 3"},
      {"1 1:1 3:1 3:2\n", 0, "bad.svm:1: ", "duplicate index 3"},
      {"1 1:1 5\n", 0, "bad.svm:1: ", "malformed pair '5'"},
      {"1 1:\n", 0, "bad.svm:1: ", "malformed pair '1:'"},
      {"1 :4\n", 0, "bad.svm:1: ", "malformed pair ':4'"},
      {"1 a:4\n", 0, "bad.svm:1: ", "malformed pair 'a:4'"},
      {"1 -3:4\n", 0, "bad.svm:1: ", "malformed pair '-3:4'"},
      {"1 1:2:3\n", 0, "bad.svm:1: ", "non-numeric value in pair '1:2:3'"},
      {"1 4294967296:1\n", 0, "bad.svm:1: ", "index out of range in '4294967296:1' (at most 4294967295)"},
      {"1 99999999999999999999999:1\n", 0, "bad.svm:1: ", "index out of range"},
      {"1 qid:3 1:1\n", 0, "bad.svm:1: ", "ranking data (qid) is not supported: 'qid:3'"},
      {"qid:3 1:1\n", 0, "bad.svm:1: ", "qid"},
      {"1 1:1\n1 2:1\0 3:1\n", 17, "bad.svm:2: ", "non-numeric value"},
      {"1 1:1 \x01:1\n", 0, "bad.svm:1: ", "malformed pair '?:1'"},
  };
  const char *p = tmp_path("bad.svm");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t len = cases[i].len ? cases[i].len : strlen(cases[i].text);
    write_bytes(p, cases[i].text, len);
    expect_open_error(p, NULL, DSANA_EFORMAT, cases[i].where, cases[i].what);
  }
  write_bytes(p, "", 0);
  expect_open_error(p, NULL, DSANA_EFORMAT, "bad.svm: empty dataset (no rows)", NULL);
  write_bytes(p, "# nothing\n\n   \r\n", strlen("# nothing\n\n   \r\n"));
  expect_open_error(p, NULL, DSANA_EFORMAT, "bad.svm: empty dataset (no rows)", NULL);
  expect_open_error(data_path("ds_no_such_file.svm"), NULL, DSANA_EIO, "ds_no_such_file.svm: No such file", NULL);
  expect_open_error(tmpdir, NULL, DSANA_EIO, tmpdir, NULL); /* a directory */
}

/* Past the reader's first 8 MiB block: line numbers still right. */
static void test_libsvm_long_file(void **state) {
  enum { ROWS = 300000 };
  size_t cap = (size_t)ROWS * 64, len = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  for (int r = 0; r < ROWS; r++)
    len += (size_t)snprintf(text + len, cap - len, "%d 1:%d.25 %d:0.125 1000:-%d\n", r % 2 ? 1 : -1, r, 2 + r % 900,
                            r % 7);
  assert_true(len > (8u << 20));
  const char *p = tmp_path("long.svm");
  write_bytes(p, text, len);
  struct dsana_dataset ds;
  open_ok(p, NULL, &ds);
  assert_int_equal(ds.n_rows, ROWS);
  assert_int_equal(ds.nnz, 3ull * ROWS);
  assert_int_equal(ds.n_features, 1000);
  assert_true(ds.val_f64[3 * 123456] == 123456.25);
  assert_int_equal(ds.col[3 * 123456 + 1], 1 + 123456 % 900);
  dsana_dataset_fini(&ds);
  text[len - 2] = 'x'; /* the last line's value, "-N" -> "-x" */
  write_bytes(p, text, len);
  expect_open_error(p, NULL, DSANA_EFORMAT, "long.svm:300000: ", "non-numeric value in pair '1000:-x'");
  free(text);
}

/* Every value reads as strtod reads it (fast path or not). */
static void test_libsvm_numbers(void **state) {
  static const char *fixed[] = {"0.1",
                                "-0",
                                "5.",
                                ".5",
                                "1E-5",
                                "1e+22",
                                "1e23",
                                "123456789012345678",
                                "9007199254740993",
                                "4.9e-324",
                                "2.2250738585072014e-308",
                                "1.7976931348623157e308",
                                "0.000000000000000000000000001",
                                "+7",
                                "3.14159265358979323846",
                                "1e-22",
                                "12345678901234567890123",
                                "100e-2",
                                "1.e1"};
  enum { RANDOM = 3000 };
  size_t n = sizeof fixed / sizeof fixed[0], cap = (n + RANDOM) * 40 + 64, len = 0;
  char *text = malloc(cap), (*tok)[32] = malloc((n + RANDOM) * 32);
  assert_non_null(text);
  assert_non_null(tok);
  uint64_t x = 0x12345678;
  for (size_t i = 0; i < n + RANDOM; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    double d = (double)(x >> 11) * 0x1p-53 * pow(10.0, (double)((int)(x % 40) - 20));
    if (i < n)
      snprintf(tok[i], 32, "%s", fixed[i]);
    else
      snprintf(tok[i], 32, i % 3 == 0 ? "%.17g" : i % 3 == 1 ? "%.6f" : "%.3g", i % 2 ? -d : d);
    len += (size_t)snprintf(text + len, cap - len, "%s 1:%s\n", tok[i], tok[i]);
  }
  const char *p = tmp_path("numbers.svm");
  write_bytes(p, text, len);
  struct dsana_dataset ds;
  open_ok(p, NULL, &ds);
  assert_int_equal(ds.n_rows, n + RANDOM);
  for (size_t i = 0; i < n + RANDOM; i++) {
    double want = strtod(tok[i], NULL);
    if (memcmp(&ds.label[i], &want, 8) != 0 || memcmp(&ds.val_f64[i], &want, 8) != 0)
      print_error("'%s': read %.17g, strtod %.17g\n", tok[i], ds.val_f64[i], want);
    assert_memory_equal(&ds.label[i], &want, 8);
    assert_memory_equal(&ds.val_f64[i], &want, 8);
  }
  dsana_dataset_fini(&ds);
  free(text);
  free(tok);
}

/* --- binary format ----------------------------------------------------- */

static void test_binary_round_trip(void **state) {
  struct dsana_dataset text, mapped, opened, again;
  open_ok(data_path("ds_basic.svm"), NULL, &text);
  const char *bin = tmp_path("basic.bin");
  assert_int_equal(dsana_dataset_write_binary(&text, bin, errbuf, sizeof errbuf), 0);
  assert_true(dsana_dataset_is_binary(bin));
  assert_int_equal(dsana_dataset_map_binary(bin, &mapped, errbuf, sizeof errbuf), 0);
  assert_non_null(mapped.priv_map);
  assert_same_dataset(&text, &mapped);
  /* pages forgotten (mapped) or not (heap): the values read again the same */
  dsana_dataset_forget_pages(&mapped);
  dsana_dataset_forget_pages(&text);
  assert_same_dataset(&text, &mapped);
  assert_int_equal(dsana_dataset_check(&mapped, 0, mapped.n_rows, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_dataset_check(&mapped, 1, 3, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_dataset_check(&mapped, 2, 9, errbuf, sizeof errbuf), DSANA_ERANGE);
  struct dsana_dataset_opts o = {.n_features_min = 50};
  open_ok(bin, &o, &opened);
  assert_int_equal(opened.n_features, 50);
  o = (struct dsana_dataset_opts){.n_features_max = 5};
  expect_open_error(bin, &o, DSANA_EFORMAT, "basic.bin: 7 features, more than the 5 allowed", NULL);
  /* binary -> libsvm text -> the same doubles */
  const char *svm = tmp_path("basic_again.svm.gz");
  assert_int_equal(dsana_dataset_write_libsvm(&mapped, svm, errbuf, sizeof errbuf), 0);
  open_ok(svm, NULL, &again);
  assert_same_dataset(&text, &again);
  /* writing over an existing file replaces it whole */
  assert_int_equal(dsana_dataset_write_binary(&again, bin, errbuf, sizeof errbuf), 0);
  dsana_dataset_fini(&text);
  dsana_dataset_fini(&mapped);
  dsana_dataset_fini(&opened);
  dsana_dataset_fini(&again);
  assert_int_equal(dsana_dataset_write_binary(&text, bin, errbuf, sizeof errbuf), DSANA_EINVAL); /* zeroed */
}

static void test_binary_write_fails(void **state) {
  struct dsana_dataset ds;
  open_ok(data_path("ds_basic.svm"), NULL, &ds);
  const char *p = tmp_path("no_such_dir/out.bin");
  assert_int_equal(dsana_dataset_write_binary(&ds, p, errbuf, sizeof errbuf), DSANA_EIO);
  assert_non_null(strstr(errbuf, "no_such_dir/out.bin: cannot write: No such file or directory"));
  assert_int_equal(dsana_dataset_write_libsvm(&ds, p, errbuf, sizeof errbuf), DSANA_EIO);
  dsana_dataset_fini(&ds);
}

static void expect_map_error(const char *path, const char *s1, const char *s2) {
  struct dsana_dataset ds;
  errbuf[0] = '\0';
  int rc = dsana_dataset_map_binary(path, &ds, errbuf, sizeof errbuf);
  if (rc != DSANA_EFORMAT || !strstr(errbuf, s1) || !strstr(errbuf, s2))
    print_error("%s: rc %d, err '%s'\n", path, rc, errbuf);
  assert_int_equal(rc, DSANA_EFORMAT);
  assert_non_null(strstr(errbuf, s1));
  assert_non_null(strstr(errbuf, s2));
  assert_null(strchr(errbuf, '\n'));
  assert_zeroed(&ds);
}

/* Bytes of the binary form of ds_basic.svm; *len its size. */
static unsigned char *basic_binary(size_t *len) {
  struct dsana_dataset ds;
  open_ok(data_path("ds_basic.svm"), NULL, &ds);
  const char *p = tmp_path("basic_bytes.bin");
  assert_int_equal(dsana_dataset_write_binary(&ds, p, errbuf, sizeof errbuf), 0);
  dsana_dataset_fini(&ds);
  return slurp(p, len);
}

static uint64_t header_u64(const unsigned char *b, size_t at) {
  uint64_t v;
  memcpy(&v, b + at, 8);
  return v;
}

static void test_binary_bad_header(void **state) {
  size_t len;
  unsigned char *good = basic_binary(&len), *b = malloc(len + 16);
  assert_non_null(b);
  assert_int_equal(header_u64(good, 144), len); /* file bytes */
  const char *p = tmp_path("bad.bin");
  write_bytes(p, good, len - 3);
  expect_map_error(p, "bad.bin: offset ", "truncated file");
  expect_open_error(p, NULL, DSANA_EFORMAT, "bad.bin: offset ", "truncated");
  write_bytes(p, good, 100);
  expect_map_error(p, "bad.bin: offset 100: ", "truncated file (header needs 256 bytes)");
  memcpy(b, good, len);
  memcpy(b + len, "trailing", 8);
  write_bytes(p, b, len + 8);
  expect_map_error(p, "bad.bin: offset 144: ", "file size");
  memcpy(b, good, len);
  b[0] = 'X';
  write_bytes(p, b, len);
  expect_map_error(p, "bad.bin: offset 0: ", "bad magic");
  memcpy(b, good, len);
  b[8] = 9;
  write_bytes(p, b, len);
  expect_map_error(p, "bad.bin: offset 8: ", "version 9 not supported (this build reads version 1)");
  expect_open_error(p, NULL, DSANA_EFORMAT, "bad.bin: offset 8: ", "version 9");
  memcpy(b, good, len);
  b[16] ^= 1; /* n_rows */
  write_bytes(p, b, len);
  expect_map_error(p, "bad.bin: offset 248: ", "header checksum mismatch");
  free(good);
  free(b);
}

/* A flipped byte in each section: mapped in O(1), refused by the full check. */
static void test_binary_corrupt_sections(void **state) {
  static const char *names[] = {"row_off", "col", "values", "label"};
  size_t len;
  unsigned char *good = basic_binary(&len), *b = malloc(len);
  assert_non_null(b);
  const char *p = tmp_path("corrupt.bin");
  for (int s = 0; s < 4; s++) {
    uint64_t off = header_u64(good, 48 + 24 * (size_t)s), bytes = header_u64(good, 56 + 24 * (size_t)s);
    memcpy(b, good, len);
    b[off + bytes - 1 - (s == 0 ? 9 : 0)] ^= 0x20; /* row_off: not its last entry (an O(1) check) */
    write_bytes(p, b, len);
    struct dsana_dataset ds;
    assert_int_equal(dsana_dataset_map_binary(p, &ds, errbuf, sizeof errbuf), 0);
    errbuf[0] = '\0';
    assert_int_equal(dsana_dataset_check(&ds, 0, ds.n_rows, errbuf, sizeof errbuf), DSANA_EFORMAT);
    if (!strstr(errbuf, names[s]) || !strstr(errbuf, "CRC-32 mismatch"))
      print_error("section %s: '%s'\n", names[s], errbuf);
    assert_non_null(strstr(errbuf, "corrupt.bin: offset "));
    assert_non_null(strstr(errbuf, names[s]));
    assert_non_null(strstr(errbuf, "CRC-32 mismatch"));
    dsana_dataset_fini(&ds);
    expect_open_error(p, NULL, DSANA_EFORMAT, "corrupt.bin: offset ", "CRC-32 mismatch");
  }
  /* A partial check (no CRCs) still finds a column out of order. */
  uint64_t col_off = header_u64(good, 48 + 24);
  memcpy(b, good, len);
  b[col_off + 4 * 1] = 9; /* row 0: features 0, 9, 6 */
  write_bytes(p, b, len);
  struct dsana_dataset ds;
  assert_int_equal(dsana_dataset_map_binary(p, &ds, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_dataset_check(&ds, 1, ds.n_rows, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_dataset_check(&ds, 0, 1, errbuf, sizeof errbuf), DSANA_EFORMAT);
  assert_non_null(strstr(errbuf, "corrupt.bin: row 0 (offset "));
  assert_non_null(strstr(errbuf, "feature 9 not below n_features = 7"));
  dsana_dataset_fini(&ds);
  free(good);
  free(b);
}

/* --- IDX pairs --------------------------------------------------------- */

static void be32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

/* An IDX file: magic, dims, then data; gzip when gz. */
static void write_idx(const char *path, uint32_t magic, const uint32_t *dims, int ndims, const unsigned char *data,
                      size_t len, bool gz) {
  unsigned char *b = malloc(16 + len);
  assert_non_null(b);
  be32(b, magic);
  for (int d = 0; d < ndims; d++)
    be32(b + 4 + 4 * d, dims[d]);
  memcpy(b + 4 + 4 * ndims, data, len);
  if (gz)
    write_gz(path, b, 4 + 4 * (size_t)ndims + len);
  else
    write_bytes(path, b, 4 + 4 * (size_t)ndims + len);
  free(b);
}

/* 3 images of 2x3 pixels and their labels. */
static const unsigned char PIXELS[18] = {0, 255, 0, 1, 0, 128, /* */ 0, 0, 0, 0, 0, 0, /* */ 7, 7, 7, 7, 7, 7};
static const unsigned char LABELS[3] = {9, 0, 4};

static void write_idx_pair(const char *images, const char *labels, bool gz) {
  const uint32_t dims[3] = {3, 2, 3}, n = 3;
  write_idx(images, 0x803, dims, 3, PIXELS, sizeof PIXELS, gz);
  write_idx(labels, 0x801, &n, 1, LABELS, sizeof LABELS, gz);
}

static void assert_idx(const struct dsana_dataset *ds) {
  static const uint64_t row_off[] = {0, 3, 3, 9};
  static const uint32_t col[] = {1, 3, 5, 0, 1, 2, 3, 4, 5};
  static const double label[] = {9, 0, 4};
  assert_int_equal(ds->n_rows, 3);
  assert_int_equal(ds->n_features, 6);
  assert_int_equal(ds->nnz, 9);
  assert_null(ds->val_f64);
  assert_non_null(ds->val_f32);
  assert_memory_equal(ds->row_off, row_off, sizeof row_off);
  assert_memory_equal(ds->col, col, sizeof col);
  assert_memory_equal(ds->label, label, sizeof label);
  assert_true(ds->val_f32[0] == 1.0f);
  assert_true(ds->val_f32[1] == 1.0f / 255.0f);
  assert_true(ds->val_f32[2] == 128.0f / 255.0f);
  for (int k = 3; k < 9; k++)
    assert_true(ds->val_f32[k] == 7.0f / 255.0f);
  assert_int_equal(dsana_dataset_check(ds, 0, ds->n_rows, errbuf, sizeof errbuf), 0);
}

static void test_idx(void **state) {
  struct dsana_dataset a, b, c, d;
  const char *im = tmp_path("images.idx"), *lb = tmp_path("labels.idx");
  const char *imz = tmp_path("images.idx.gz"), *lbz = tmp_path("labels.idx.gz");
  write_idx_pair(im, lb, false);
  write_idx_pair(imz, lbz, true);
  assert_int_equal(dsana_dataset_from_idx(im, lb, &a, errbuf, sizeof errbuf), 0);
  assert_idx(&a);
  assert_int_equal(dsana_dataset_from_idx(imz, lb, &b, errbuf, sizeof errbuf), 0);
  assert_same_dataset(&a, &b);
  /* binary and text round trips: text comes back as doubles nearest the floats */
  const char *bin = tmp_path("idx.bin"), *svm = tmp_path("idx.svm");
  assert_int_equal(dsana_dataset_write_binary(&a, bin, errbuf, sizeof errbuf), 0);
  open_ok(bin, NULL, &c);
  assert_same_dataset(&a, &c);
  assert_int_equal(dsana_dataset_write_libsvm(&a, svm, errbuf, sizeof errbuf), 0);
  open_ok(svm, NULL, &d);
  assert_non_null(d.val_f64);
  for (uint64_t k = 0; k < a.nnz; k++)
    assert_true((float)d.val_f64[k] == a.val_f32[k]);
  /* dsana_dataset_open refuses an IDX file, plain or gzip, pointing at the pair reader */
  expect_open_error(im, NULL, DSANA_EFORMAT, "images.idx: offset 0: an IDX file", "--idx");
  expect_open_error(lbz, NULL, DSANA_EFORMAT, "labels.idx.gz: offset 0: an IDX file", "--idx");
  dsana_dataset_fini(&a);
  dsana_dataset_fini(&b);
  dsana_dataset_fini(&c);
  dsana_dataset_fini(&d);
}

static void expect_idx_error(const char *images, const char *labels, const char *s1, const char *s2) {
  struct dsana_dataset ds;
  errbuf[0] = '\0';
  int rc = dsana_dataset_from_idx(images, labels, &ds, errbuf, sizeof errbuf);
  if (rc != DSANA_EFORMAT || !strstr(errbuf, s1) || (s2 && !strstr(errbuf, s2)))
    print_error("rc %d, err '%s' (want '%s', '%s')\n", rc, errbuf, s1, s2 ? s2 : "");
  assert_int_equal(rc, DSANA_EFORMAT);
  assert_non_null(strstr(errbuf, s1));
  if (s2)
    assert_non_null(strstr(errbuf, s2));
  assert_null(strchr(errbuf, '\n'));
  assert_zeroed(&ds);
}

/* badz: a gzip IDX images file (3 images) with bytes after its gzip data:
 * another member and zero padding are read as gzip reads them, anything
 * else is refused with its offset (zlib's gzread dropped it silently). */
static void idx_gz_trailing(const char *badz, const char *lb) {
  const uint32_t dims[3] = {3, 2, 3};
  size_t zlen, hlen, tlen;
  write_idx(badz, 0x803, dims, 3, PIXELS, sizeof PIXELS, true);
  unsigned char *z = slurp(badz, &zlen);
  unsigned char *b = malloc(zlen + 512);
  assert_non_null(b);
  memcpy(b, z, zlen);
  memcpy(b + zlen, "junk", 4);
  write_bytes(badz, b, zlen + 4);
  char want[80];
  snprintf(want, sizeof want, "bad.idx.gz: offset %zu: trailing garbage after the gzip data", zlen);
  expect_idx_error(badz, lb, want, NULL);
  memset(b + zlen, 0, 512); /* tape padding */
  write_bytes(badz, b, zlen + 512);
  struct dsana_dataset ds;
  assert_int_equal(dsana_dataset_from_idx(badz, lb, &ds, errbuf, sizeof errbuf), 0);
  dsana_dataset_fini(&ds);
  /* the header in one member, the pixels in another (cat a.gz b.gz) */
  write_idx(badz, 0x803, dims, 3, PIXELS, 0, true);
  unsigned char *head = slurp(badz, &hlen);
  write_gz(badz, PIXELS, sizeof PIXELS);
  unsigned char *tail = slurp(badz, &tlen);
  unsigned char *cat = malloc(hlen + tlen);
  assert_non_null(cat);
  memcpy(cat, head, hlen);
  memcpy(cat + hlen, tail, tlen);
  write_bytes(badz, cat, hlen + tlen);
  assert_int_equal(dsana_dataset_from_idx(badz, lb, &ds, errbuf, sizeof errbuf), 0);
  assert_idx(&ds);
  dsana_dataset_fini(&ds);
  free(cat);
  free(head);
  free(tail);
  free(b);
  free(z);
}

static void test_idx_bad(void **state) {
  const char *im = tmp_path("im.idx"), *lb = tmp_path("lb.idx"), *bad = tmp_path("bad.idx");
  const char *badz = tmp_path("bad.idx.gz");
  write_idx_pair(im, lb, false);
  expect_idx_error(lb, im, "lb.idx: offset 0: magic 0x00000801, expected 0x00000803", "is it the labels file?");
  const uint32_t dims[3] = {3, 2, 3}, two = 2, zero_dims[3] = {3, 0, 3}, huge[3] = {3, 65536, 65536};
  write_idx(bad, 0x803, dims, 3, PIXELS, 10, false);
  expect_idx_error(bad, lb, "bad.idx: truncated file: 34 bytes expected, 26 found", NULL);
  write_idx(badz, 0x803, dims, 3, PIXELS, 10, true);
  expect_idx_error(badz, lb, "bad.idx.gz: truncated file: 34 bytes expected, 26 found", NULL);
  write_bytes(bad, "\0\0\x08\x03\0\0", 6);
  expect_idx_error(bad, lb, "bad.idx: truncated file: 16 bytes expected, 6 found", NULL);
  write_idx(bad, 0x801, &dims[0], 1, LABELS, 2, false);
  expect_idx_error(im, bad, "bad.idx: truncated file: 11 bytes expected, 10 found", NULL);
  write_idx(bad, 0x801, &two, 1, LABELS, 2, false);
  expect_idx_error(im, bad, "im.idx: 3 images, but ", "bad.idx: 2 labels");
  write_idx(bad, 0x803, zero_dims, 3, PIXELS, 0, false);
  expect_idx_error(bad, lb, "bad.idx: offset 8: dimension 1 is 0", NULL);
  write_idx(bad, 0x803, huge, 3, PIXELS, 0, false);
  expect_idx_error(bad, lb, "bad.idx: offset 4: 3 images of 65536 x 65536 pixels: absurd", NULL);
  write_idx(bad, 0x801, &dims[0], 1, PIXELS, 4, false); /* one byte too many */
  expect_idx_error(im, bad, "bad.idx: offset 11: data after the 11 bytes the header announces", NULL);
  unsigned char *z; /* a gzip stream cut short */
  size_t zlen;
  write_idx(badz, 0x803, dims, 3, PIXELS, sizeof PIXELS, true);
  z = slurp(badz, &zlen);
  write_bytes(badz, z, zlen - 12);
  free(z);
  expect_idx_error(badz, lb, "bad.idx.gz: ", NULL);
  idx_gz_trailing(badz, lb);
  /* headers that claim 2^31 images of 1x1: memory follows the data, not the claim */
  const uint32_t many[3] = {1u << 31, 1, 1};
  write_idx(bad, 0x803, many, 3, PIXELS, 5, false);
  write_idx(badz, 0x801, many, 1, LABELS, 3, false);
  expect_idx_error(bad, badz, "bad.idx.gz: truncated file: 2147483656 bytes expected, 11 found", NULL);
  struct dsana_dataset ds;
  assert_int_equal(dsana_dataset_from_idx(tmp_path("none.idx"), lb, &ds, errbuf, sizeof errbuf), DSANA_EIO);
  assert_non_null(strstr(errbuf, "none.idx: No such file"));
}

/* --- the generator ----------------------------------------------------- */

static void assert_gen_shape(const struct dsana_dataset *ds, uint64_t n, uint64_t f, uint32_t k, uint32_t classes) {
  assert_int_equal(ds->n_rows, n);
  assert_int_equal(ds->n_features, f);
  assert_int_equal(ds->nnz, n * k);
  assert_non_null(ds->val_f32);
  assert_null(ds->val_f64);
  assert_int_equal(dsana_dataset_check(ds, 0, n, errbuf, sizeof errbuf), 0); /* distinct ascending cols < f */
  for (uint64_t r = 0; r <= n; r++)
    assert_int_equal(ds->row_off[r], r * k);
  for (uint64_t e = 0; e < ds->nnz; e++)
    assert_true(ds->val_f32[e] > 0.0f && ds->val_f32[e] <= 1.0f);
  for (uint64_t r = 0; r < n; r++) {
    double l = ds->label[r];
    if (classes == 2)
      assert_true(l == -1.0 || l == 1.0);
    else
      assert_true(l >= 0 && l < classes && l == floor(l));
  }
}

static void test_gen_shape(void **state) {
  struct dsana_dataset ds;
  assert_int_equal(dsana_dataset_gen_logreg(5000, 100000, 20, 2, 1, &ds, errbuf, sizeof errbuf), 0);
  assert_gen_shape(&ds, 5000, 100000, 20, 2);
  dsana_dataset_fini(&ds);
  assert_int_equal(dsana_dataset_gen_logreg(3000, 50, 7, 10, 2, &ds, errbuf, sizeof errbuf), 0);
  assert_gen_shape(&ds, 3000, 50, 7, 10);
  double *labels;
  uint64_t k;
  assert_int_equal(dsana_dataset_classes(&ds, &labels, &k), 0);
  assert_int_equal(k, 10); /* 3000 rows: every class drawn */
  free(labels);
  dsana_dataset_fini(&ds);
  /* every feature in every row (Floyd at k = F), and k = 1 */
  assert_int_equal(dsana_dataset_gen_logreg(100, 33, 33, 3, 5, &ds, errbuf, sizeof errbuf), 0);
  assert_gen_shape(&ds, 100, 33, 33, 3);
  for (uint64_t e = 0; e < ds.nnz; e++)
    assert_int_equal(ds.col[e], e % 33);
  dsana_dataset_fini(&ds);
  assert_int_equal(dsana_dataset_gen_logreg(10, 1, 1, 2, 5, &ds, errbuf, sizeof errbuf), 0);
  assert_gen_shape(&ds, 10, 1, 1, 2);
  dsana_dataset_fini(&ds);
}

static void test_gen_bad_args(void **state) {
  struct dsana_dataset ds;
  assert_int_equal(dsana_dataset_gen_logreg(0, 10, 1, 2, 1, &ds, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_zeroed(&ds);
  assert_int_equal(dsana_dataset_gen_logreg(10, 10, 0, 2, 1, &ds, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_int_equal(dsana_dataset_gen_logreg(10, 10, 11, 2, 1, &ds, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_non_null(strstr(errbuf, "11 nonzeros per row but only 10 features"));
  assert_int_equal(dsana_dataset_gen_logreg(10, 10, 2, 1, 1, &ds, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_int_equal(dsana_dataset_gen_logreg(10, 10, 2, 1025, 1, &ds, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_int_equal(dsana_dataset_gen_logreg(10, 1ull << 32, 2, 2, 1, &ds, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_int_equal(dsana_dataset_gen_logreg(1ull << 40, 10, 2, 2, 1, &ds, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_null(strchr(errbuf, '\n'));
}

/* Same seed: same bytes (whatever the thread count); other seed: other data. */
static void test_gen_deterministic(void **state) {
  struct dsana_dataset a, b, c;
  setenv("DSANA_IO_THREADS", "1", 1);
  assert_int_equal(dsana_dataset_gen_logreg(20000, 1000, 9, 4, 42, &a, errbuf, sizeof errbuf), 0);
  setenv("DSANA_IO_THREADS", "2", 1);
  assert_int_equal(dsana_dataset_gen_logreg(20000, 1000, 9, 4, 42, &b, errbuf, sizeof errbuf), 0);
  unsetenv("DSANA_IO_THREADS");
  assert_same_dataset(&a, &b);
  const char *pa = tmp_path("gen_a.bin"), *pb = tmp_path("gen_b.bin");
  assert_int_equal(dsana_dataset_write_binary(&a, pa, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_dataset_write_binary(&b, pb, errbuf, sizeof errbuf), 0);
  size_t la, lb;
  unsigned char *fa = slurp(pa, &la), *fb = slurp(pb, &lb);
  assert_int_equal(la, lb);
  assert_memory_equal(fa, fb, la);
  free(fa);
  free(fb);
  assert_int_equal(dsana_dataset_gen_logreg(20000, 1000, 9, 4, 43, &c, errbuf, sizeof errbuf), 0);
  assert_memory_not_equal(a.col, c.col, a.nnz * sizeof *a.col);
  assert_memory_not_equal(a.val_f32, c.val_f32, a.nnz * sizeof *a.val_f32);
  assert_memory_not_equal(a.label, c.label, a.n_rows * sizeof *a.label);
  dsana_dataset_fini(&a);
  dsana_dataset_fini(&b);
  dsana_dataset_fini(&c);
}

/* Labels follow the hidden model: a feature's presence moves the share of
 * +1 labels far more than sampling noise (~0.014 here) would. */
static void test_gen_learnable(void **state) {
  enum { ROWS = 20000, F = 20, K = 5 };
  struct dsana_dataset ds;
  assert_int_equal(dsana_dataset_gen_logreg(ROWS, F, K, 2, 9, &ds, errbuf, sizeof errbuf), 0);
  double pos[F] = {0}, seen[F] = {0}, lo = 1, hi = 0;
  for (uint64_t r = 0; r < ROWS; r++)
    for (uint64_t e = ds.row_off[r]; e < ds.row_off[r + 1]; e++) {
      seen[ds.col[e]]++;
      pos[ds.col[e]] += ds.label[r] > 0;
    }
  for (int f = 0; f < F; f++) {
    double share = pos[f] / seen[f];
    lo = share < lo ? share : lo;
    hi = share > hi ? share : hi;
  }
  assert_true(hi - lo > 0.3);
  dsana_dataset_fini(&ds);
}

/* --- classes ----------------------------------------------------------- */

static void test_classes(void **state) {
  const char *p = tmp_path("classes.svm");
  const char *text = "7 1:1\n3\n-1 2:1\n3\n-0\n0\n+7\n7.0 3:1\n";
  write_bytes(p, text, strlen(text));
  struct dsana_dataset ds;
  open_ok(p, NULL, &ds);
  double *labels;
  uint64_t k, cls, counts[4];
  assert_int_equal(dsana_dataset_classes(&ds, &labels, &k), 0);
  assert_int_equal(k, 4);
  const double want[] = {-1, 0, 3, 7};
  assert_memory_equal(labels, want, sizeof want); /* -0 reported as 0 */
  assert_int_equal(dsana_dataset_class_of(labels, k, 3, &cls), 0);
  assert_int_equal(cls, 2);
  assert_int_equal(dsana_dataset_class_of(labels, k, -0.0, &cls), 0);
  assert_int_equal(cls, 1);
  assert_int_equal(dsana_dataset_class_of(labels, k, 5, &cls), DSANA_ERANGE);
  assert_int_equal(dsana_dataset_class_of(labels, k, 8, &cls), DSANA_ERANGE);
  assert_int_equal(dsana_dataset_class_of(labels, k, -2, &cls), DSANA_ERANGE);
  assert_int_equal(dsana_dataset_class_counts(&ds, labels, k, counts, errbuf, sizeof errbuf), 0);
  const uint64_t want_counts[] = {1, 2, 2, 3};
  assert_memory_equal(counts, want_counts, sizeof want_counts);
  /* a test set's label the training classes lack */
  assert_int_equal(dsana_dataset_class_counts(&ds, labels + 1, 3, counts, errbuf, sizeof errbuf), DSANA_ERANGE);
  assert_non_null(strstr(errbuf, "classes.svm: row 2: label -1 is not one of the 3 classes"));
  free(labels);
  dsana_dataset_fini(&ds);
  /* binary problems: {-1, +1} and {0, 1} both give class 1 = positive */
  text = "+1 1:1\n-1 1:2\n";
  write_bytes(p, text, strlen(text));
  open_ok(p, NULL, &ds);
  assert_int_equal(dsana_dataset_classes(&ds, &labels, &k), 0);
  assert_int_equal(k, 2);
  assert_true(labels[0] == -1 && labels[1] == 1);
  free(labels);
  dsana_dataset_fini(&ds);
}

/* Many distinct labels (regression-like targets, more than a classifier's
 * few that the classes are gathered in order for): the same ascending,
 * distinct list as for few, -0 merged with 0. 3000 rows, labels
 * (r * 7) % 2000 - 1000 scrambled, one -0. */
static void test_classes_many(void **state) {
  (void)state;
  enum { N = 3000 };
  static double x[N], y[N];
  for (uint64_t r = 0; r < N; r++)
    y[r] = (double)((r * 7) % 2000) - 1000;
  y[5] = -0.0;
  struct dsana_dataset ds;
  char err[256];
  assert_int_equal(dsana_dataset_from_dense(N, 1, x, y, &ds, err, sizeof err), 0);
  double *labels;
  uint64_t k;
  assert_int_equal(dsana_dataset_classes(&ds, &labels, &k), 0);
  assert_int_equal(k, 2000);
  for (uint64_t c = 0; c < k; c++)
    assert_true(labels[c] == (double)c - 1000);
  assert_false(signbit(labels[1000])); /* 0, not -0 */
  free(labels);
  dsana_dataset_fini(&ds);
}

/* The process's mappings of dense column indices (dataset_mem.c names
 * their memfd "dsana-dense-cols"): lines of /proc/self/maps naming it. */
static int mapping_count(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int n = 0;
  while (f && fgets(line, sizeof line, f))
    n += strstr(line, "dsana-dense-cols") != NULL;
  if (f)
    fclose(f);
  return n;
}

/* dsana_dataset_from_dense: row r's entries are columns 0..F-1 over x's
 * row, whatever the width (784: the indices are one period of 64 rows
 * mapped over and over; 1024: a row a period, too many mappings, so they
 * are written; 3: few rows), they pass dsana_dataset_check, and fini
 * gives back every mapping it took. */
static void test_from_dense(void **unused) {
  (void)unused;
  const uint64_t shapes[][2] = {{1000, 784}, {300, 1024}, {5, 3}, {70000, 1}};
  int before = mapping_count();
  for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    uint64_t rows = shapes[k][0], F = shapes[k][1];
    double *x = malloc(rows * F * sizeof *x), *y = calloc(rows, sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    for (uint64_t e = 0; e < rows * F; e++)
      x[e] = (double)(e % 7);
    struct dsana_dataset ds;
    char err[256];
    assert_int_equal(dsana_dataset_from_dense(rows, F, x, y, &ds, err, sizeof err), 0);
    assert_int_equal(ds.nnz, rows * F);
    for (uint64_t r = 0; r < rows; r++) {
      assert_int_equal(ds.row_off[r], r * F);
      for (uint64_t e = ds.row_off[r]; e < ds.row_off[r] + F; e++) {
        assert_int_equal(ds.col[e], e - ds.row_off[r]);
        assert_true(dsana_dataset_val(&ds, e) == x[e]);
      }
    }
    assert_int_equal(ds.row_off[rows], rows * F);
    assert_int_equal(dsana_dataset_check(&ds, 0, rows, err, sizeof err), 0);
    if (F == 784) /* the mapped case really mapped: 16 periods of 64 rows */
      assert_true(mapping_count() >= before + 16);
    dsana_dataset_fini(&ds);
    free(x);
    free(y);
  }
  assert_int_equal(mapping_count(), before);
}

/* dsana_dataset_from_dense_f32: the floats read in place (val_f32, the
 * caller's array), the same rows and columns; a NaN among them is named
 * by the check. */
static void test_from_dense_f32(void **unused) {
  (void)unused;
  float x[6 * 4];
  double y[6] = {0};
  for (int e = 0; e < 6 * 4; e++)
    x[e] = (float)e / 3;
  struct dsana_dataset ds;
  char err[256];
  assert_int_equal(dsana_dataset_from_dense_f32(6, 4, x, y, &ds, err, sizeof err), 0);
  assert_ptr_equal(ds.val_f32, x);
  assert_null(ds.val_f64);
  assert_int_equal(ds.nnz, 24);
  for (uint64_t e = 0; e < 24; e++) {
    assert_int_equal(ds.col[e], e % 4);
    assert_true(dsana_dataset_val(&ds, e) == (double)x[e]);
  }
  assert_int_equal(dsana_dataset_check(&ds, 0, 6, err, sizeof err), 0);
  x[9] = NAN;
  assert_int_not_equal(dsana_dataset_check(&ds, 0, 6, err, sizeof err), 0);
  assert_non_null(strstr(err, "row 2"));
  dsana_dataset_fini(&ds);
  assert_int_not_equal(dsana_dataset_from_dense_f32(0, 4, x, y, &ds, err, sizeof err), 0);
}

/* A registered in-memory dataset is checked once: after every row passed,
 * a check passes at once (the arrays must not change while registered:
 * here a NaN written behind its back goes unseen), and a new registration
 * of the same arrays is checked again and names the row. A row range
 * alone does not count as the whole. */
static void test_mem_dataset_checked_once(void **unused) {
  (void)unused;
  double x[8 * 3], y[8] = {0};
  for (int e = 0; e < 8 * 3; e++)
    x[e] = e;
  struct dsana_dataset ds;
  char err[256], name[64];
  assert_int_equal(dsana_dataset_from_dense(8, 3, x, y, &ds, err, sizeof err), 0);
  assert_int_equal(dsana_dataset_mem_register(&ds, name, sizeof name), 0);
  x[5] = NAN;
  assert_int_not_equal(dsana_dataset_check(&ds, 0, 4, err, sizeof err), 0); /* a part: checked each time */
  x[5] = 5;
  assert_int_equal(dsana_dataset_check(&ds, 0, 4, err, sizeof err), 0);
  assert_int_equal(dsana_dataset_check(&ds, 0, 8, err, sizeof err), 0); /* the whole: remembered */
  x[5] = NAN;
  assert_int_equal(dsana_dataset_check(&ds, 0, 8, err, sizeof err), 0);
  assert_int_equal(dsana_dataset_check(&ds, 1, 2, err, sizeof err), 0);
  dsana_mem_unregister(name);
  assert_int_equal(dsana_dataset_mem_register(&ds, name, sizeof name), 0);
  assert_int_not_equal(dsana_dataset_check(&ds, 0, 8, err, sizeof err), 0);
  assert_non_null(strstr(err, "row 1"));
  dsana_mem_unregister(name);
  dsana_dataset_fini(&ds);
}

/* dsana_dataset_cut_rows: bounds at multiples of the block, increasing,
 * covering every row, as many ranges as asked (or blocks), about equal
 * non-zeros plus rows each. */
static void test_cut_rows(void **unused) {
  (void)unused;
  /* 10 rows: the first 4 heavy (10 non-zeros), the rest light (1) */
  uint64_t off[11] = {0};
  for (int i = 0; i < 10; i++)
    off[i + 1] = off[i] + (i < 4 ? 10 : 1);
  struct dsana_dataset ds = {.n_rows = 10, .nnz = off[10], .row_off = off};
  uint64_t cut[8];
  assert_int_equal(dsana_dataset_cut_rows(&ds, 2, 3, cut), 3);
  assert_int_equal(cut[0], 0);
  assert_int_equal(cut[3], 10);
  for (int t = 0; t < 3; t++) {
    assert_true(cut[t] < cut[t + 1]);
    assert_int_equal(cut[t] % 2, 0);
  }
  assert_int_equal(cut[1], 2); /* 22 of 56 in the first 2 rows: a third is near 19 */
  assert_int_equal(cut[2], 4);
  /* more ranges asked than blocks: one per block */
  assert_int_equal(dsana_dataset_cut_rows(&ds, 4, 7, cut), 3);
  assert_int_equal(cut[1], 4);
  assert_int_equal(cut[2], 8);
  assert_int_equal(cut[3], 10);
  /* one range: every row */
  assert_int_equal(dsana_dataset_cut_rows(&ds, 1, 1, cut), 1);
  assert_int_equal(cut[1], 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cut_rows),
      cmocka_unit_test(test_from_dense),
      cmocka_unit_test(test_from_dense_f32),
      cmocka_unit_test(test_mem_dataset_checked_once),
      cmocka_unit_test(test_libsvm_basic),
      cmocka_unit_test(test_libsvm_gzip),
      cmocka_unit_test(test_libsvm_opts),
      cmocka_unit_test(test_libsvm_bad),
      cmocka_unit_test(test_libsvm_long_file),
      cmocka_unit_test(test_libsvm_numbers),
      cmocka_unit_test(test_binary_round_trip),
      cmocka_unit_test(test_binary_write_fails),
      cmocka_unit_test(test_binary_bad_header),
      cmocka_unit_test(test_binary_corrupt_sections),
      cmocka_unit_test(test_idx),
      cmocka_unit_test(test_idx_bad),
      cmocka_unit_test(test_gen_shape),
      cmocka_unit_test(test_gen_bad_args),
      cmocka_unit_test(test_gen_deterministic),
      cmocka_unit_test(test_gen_learnable),
      cmocka_unit_test(test_classes),
      cmocka_unit_test(test_classes_many),
  };
  return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
