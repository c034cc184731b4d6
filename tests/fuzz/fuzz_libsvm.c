/*
 * fuzz_libsvm.c - libFuzzer target for the libsvm text reader
 * (io/dataset/dataset_libsvm.c behind the text block reader of
 * io/graph/graph_text.c).
 *
 * The reader takes a path (zlib reads plain and gzip alike), so the input
 * goes into one memfd, rewritten per run, and is opened as /proc/self/fd/N.
 * ds_parse_libsvm() is called directly, so inputs that look like IDX or a
 * binary dataset still exercise this parser. The input length mod 3 picks
 * the options: none, n_features_min = 50, n_features_max = 20.
 *
 * Beyond "no crash", an accepted dataset must be internally consistent
 * (dsana_dataset_check over every row, offsets 0..nnz, doubles, the
 * options honoured), its classes must count every row, and writing it as
 * libsvm text (under /dev/shm, when there) and reading that back must give
 * the same arrays bit for bit. A failure names its cause in one line and
 * leaves the dataset zeroed.
 *
 * Semantic mode: the same bytes also go to an independent reference reader
 * (ref_libsvm.h, written from the documented rules, never calling src/io).
 * When dsana accepts, the reference must accept too and every row count,
 * label, row end, index and value must be its, bit for bit, and n_features
 * too. When dsana refuses, the message names the input, and an input the
 * reference accepts is refused only for a limit, never as malformed. A
 * difference aborts with one line naming the first one.
 *
 * Build and run: tests/fuzz/run.sh SECONDS libsvm
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"
#include "ref_libsvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_classes(const struct dsana_dataset *ds) {
  double *labels;
  uint64_t k, total = 0;
  char err[256];
  if (dsana_dataset_classes(ds, &labels, &k) != 0 || k < 1 || k > ds->n_rows)
    abort();
  uint64_t *counts = malloc(k * sizeof *counts);
  if (!counts || dsana_dataset_class_counts(ds, labels, k, counts, err, sizeof err) != 0)
    abort();
  for (uint64_t c = 0; c < k; c++) {
    total += counts[c];
    if (counts[c] == 0 || (c > 0 && !(labels[c - 1] < labels[c])))
      abort();
  }
  if (total != ds->n_rows)
    abort();
  free(labels);
  free(counts);
}

static void check_dataset(const struct dsana_dataset *ds, const struct dsana_dataset_opts *o) {
  char err[256];
  if (ds->n_rows == 0 || ds->row_off[0] != 0 || ds->row_off[ds->n_rows] != ds->nnz || !ds->val_f64 || ds->val_f32 ||
      !ds->col || dsana_dataset_check(ds, 0, ds->n_rows, err, sizeof err) != 0)
    abort();
  if (ds->n_features < o->n_features_min || (o->n_features_max && ds->n_features > o->n_features_max))
    abort();
  check_classes(ds);
}

__attribute__((noreturn)) static void differs(const char *what, uint64_t at, double want, double got) {
  fprintf(stderr, "semantic mismatch: %s [%llu]: reference %.17g, dsana %.17g\n", what, (unsigned long long)at, want,
          got);
  abort();
}

/* The semantic mode: ds is what the reference reader read, field by field. */
static void compare_reference(const struct ref_libsvm *r, const struct dsana_dataset *ds) {
  if (ds->n_rows != r->n_rows)
    differs("row count", 0, (double)r->n_rows, (double)ds->n_rows);
  if (ds->n_features != r->n_features)
    differs("feature count", 0, (double)r->n_features, (double)ds->n_features);
  for (uint64_t i = 0; i < r->n_rows; i++) {
    if (memcmp(&ds->label[i], &r->label[i], sizeof r->label[i]) != 0)
      differs("label of row", i, r->label[i], ds->label[i]);
    if (ds->row_off[i + 1] != r->row_off[i + 1])
      differs("end of row", i, (double)r->row_off[i + 1], (double)ds->row_off[i + 1]);
  }
  for (uint64_t k = 0; k < r->nnz; k++) {
    if (ds->col[k] != r->col[k])
      differs("index of entry", k, r->col[k], ds->col[k]);
    if (memcmp(&ds->val_f64[k], &r->val[k], sizeof r->val[k]) != 0)
      differs("value of entry", k, r->val[k], ds->val_f64[k]);
  }
}

/* Write ds as text and read it back: the same arrays, bit for bit. */
static void check_round_trip(const struct dsana_dataset *ds) {
  static char path[64];
  char err[256];
  if (!path[0])
    snprintf(path, sizeof path, "/dev/shm/fuzz_libsvm.%d.svm", (int)getpid());
  if (access("/dev/shm", W_OK) != 0)
    return;
  if (dsana_dataset_write_libsvm(ds, path, err, sizeof err) != 0)
    abort();
  struct dsana_dataset back;
  if (dsana_dataset_open(path, NULL, &back, err, sizeof err) != 0)
    abort();
  unlink(path);
  if (back.n_rows != ds->n_rows || back.nnz != ds->nnz || back.n_features > ds->n_features ||
      memcmp(back.row_off, ds->row_off, (ds->n_rows + 1) * 8) != 0 ||
      memcmp(back.label, ds->label, ds->n_rows * 8) != 0 || memcmp(back.col, ds->col, ds->nnz * 4) != 0 ||
      memcmp(back.val_f64, ds->val_f64, ds->nnz * 8) != 0)
    abort();
  dsana_dataset_fini(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const struct dsana_dataset_opts opts[3] = {{0}, {.n_features_min = 50}, {.n_features_max = 20}};
  const struct dsana_dataset_opts *o = &opts[size % 3];
  struct graph_text t;
  struct dsana_dataset ds;
  char err[256] = "";
  const char *path = fuzz_file("fuzz_libsvm", data, size);
  if (graph_text_open(&t, path, err, sizeof err) != 0)
    abort();
  int rc = ds_parse_libsvm(&t, o, &ds, err, sizeof err);
  graph_text_close(&t);
  struct ref_libsvm ref;
  int verdict = ref_libsvm_read(data, size, o, &ref);
  if (rc == 0) {
    check_dataset(&ds, o);
    if (verdict == REF_REFUSE) {
      fprintf(stderr, "semantic mismatch: the reference refuses, dsana accepts\n");
      abort();
    }
    if (verdict == REF_ACCEPT)
      compare_reference(&ref, &ds);
    check_round_trip(&ds);
    dsana_dataset_fini(&ds);
  } else {
    static const struct dsana_dataset zero;
    if (err[0] == '\0' || strchr(err, '\n') || memcmp(&ds, &zero, sizeof zero) != 0)
      abort(); /* a failure names its cause in one line and leaves *ds zeroed */
    if (!strstr(err, path) || (verdict == REF_ACCEPT && rc == DSANA_EFORMAT)) {
      fprintf(stderr, "semantic mismatch: %s (the reference %s)\n", err, verdict == REF_ACCEPT ? "accepts" : "refuses");
      abort(); /* the message names the input; a valid file is refused only for a limit */
    }
  }
  ref_libsvm_fini(&ref);
  return 0;
}
