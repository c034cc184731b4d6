/*
 * test_apps_model_text.c - the model file the supervised apps share
 * (apps/common/model_text.h): written byte for byte as logreg and mlp
 * wrote theirs (the kind line, the app's header line, the labels and the
 * values at %.17g, one a line), gzipped for a ".gz" name, and read back
 * to the same numbers by the strict reader.
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

#include "apps/common/model_text.h"
#include "dsana/dsana.h"

static char dir[64];

static int make_dir(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/dsana_model_text_XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  char cmd[96];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static const double LABELS[] = {-1, 2.5};
static const double VALUES[] = {0.1, -3, 1e-300, 123456789.125};
static const struct model_text_file MODEL = {
    "logreg", "# features 1 classes 2 weights_per_feature 1 l2 0.001", LABELS, 2, VALUES, 4};
/* What logreg's own writer made of the same model. */
static const char WANT[] = "# dsana logreg model\n"
                           "# features 1 classes 2 weights_per_feature 1 l2 0.001\n"
                           "# labels -1 2.5\n"
                           "0.10000000000000001\n"
                           "-3\n"
                           "1e-300\n"
                           "123456789.125\n";

static void read_all(const char *path, char *buf, size_t cap, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  *len = fread(buf, 1, cap, f);
  fclose(f);
}

static void test_written_byte_for_byte(void **state) {
  (void)state;
  char path[128], err[256] = "", got[512];
  size_t len;
  snprintf(path, sizeof path, "%s/m.model", dir);
  assert_int_equal(model_text_write_model(path, &MODEL, err, sizeof err), 0);
  read_all(path, got, sizeof got, &len);
  assert_int_equal(len, strlen(WANT));
  assert_memory_equal(got, WANT, len);
}

/* Written gzipped (a ".gz" name), read back plain: the same numbers. */
static void test_read_back_exactly(void **state) {
  (void)state;
  char path[128], err[256] = "";
  snprintf(path, sizeof path, "%s/m.model.gz", dir);
  assert_int_equal(model_text_write_model(path, &MODEL, err, sizeof err), 0);
  struct model_text_in in;
  double labels[2], v[4];
  assert_int_equal(model_text_open(path, &in, err, sizeof err), 0);
  assert_int_equal(model_text_expect(&in, "# dsana logreg model", "logreg", err, sizeof err), 0);
  assert_int_equal(model_text_line(&in, err, sizeof err), 1);
  assert_string_equal(in.buf, MODEL.header);
  assert_int_equal(model_text_get_labels(&in, labels, 2, err, sizeof err), 0);
  assert_int_equal(model_text_get_values(&in, "weight", v, 4, err, sizeof err), 0);
  model_text_close(&in);
  assert_memory_equal(labels, LABELS, sizeof labels);
  assert_memory_equal(v, VALUES, sizeof v);
}

/* A directory that is not there: one line naming the path. */
static void test_unwritable_path_named(void **state) {
  (void)state;
  char path[128], err[256] = "";
  snprintf(path, sizeof path, "%s/missing/m.model", dir);
  assert_int_not_equal(model_text_write_model(path, &MODEL, err, sizeof err), 0);
  assert_non_null(strstr(err, "missing/m.model"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_written_byte_for_byte),
      cmocka_unit_test(test_read_back_exactly),
      cmocka_unit_test(test_unwritable_path_named),
  };
  return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
