/*
 * dataset_classes.c - labels as classes: the distinct labels of a dataset
 * in ascending order (class c is labels[c]), a label's class by binary
 * search, and rows per class. Apps map labels to 0..K-1 with these and
 * back for output; a test set is mapped with its training set's classes.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"
#include "util/numeric/sorted.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The class of label x: -0 and +0 are one class, reported as 0. */
static double class_of(double x) { return x == 0 ? 0.0 : x; }

/* Distinct labels at most kept in order while reading (a classifier's few):
 * beyond, every label is sorted instead. */
#define FEW_CLASSES 1024

/* The distinct labels of ds, ascending, into l (n_rows room), by inserting
 * each new one in order: O(rows log k) for k classes where sorting every
 * row's label costs O(rows log rows) (60,000 rows: 20 ms, in each role).
 * Their count, or UINT64_MAX once there are more than FEW_CLASSES. */
static uint64_t few_classes(const struct dsana_dataset *ds, double *l) {
  uint64_t n = 0;
  for (uint64_t r = 0; r < ds->n_rows; r++) {
    double x = class_of(ds->label[r]);
    uint64_t at = sorted_lower_bound_f64(l, n, x);
    if (at < n && l[at] == x)
      continue;
    if (n == FEW_CLASSES)
      return UINT64_MAX;
    memmove(l + at + 1, l + at, (n - at) * sizeof *l);
    l[at] = x;
    n++;
  }
  return n;
}

int dsana_dataset_classes(const struct dsana_dataset *ds, double **labels, uint64_t *k) {
  *labels = NULL;
  *k = 0;
  for (uint64_t r = 0; r < ds->n_rows; r++)
    if (!isfinite(ds->label[r]))
      return DSANA_EFORMAT;
  double *l = malloc((ds->n_rows ? ds->n_rows : 1) * sizeof *l);
  if (!l)
    return DSANA_ENOMEM;
  uint64_t n = few_classes(ds, l);
  if (n == UINT64_MAX) {
    memcpy(l, ds->label, ds->n_rows * sizeof *l);
    qsort(l, ds->n_rows, sizeof *l, cmp_double);
    n = 0;
    for (uint64_t r = 0; r < ds->n_rows; r++)
      if (n == 0 || l[r] != l[n - 1])
        l[n++] = class_of(l[r]);
  }
  double *shrunk = realloc(l, (n ? n : 1) * sizeof *l);
  *labels = shrunk ? shrunk : l;
  *k = n;
  return 0;
}

int dsana_dataset_class_of(const double *labels, uint64_t k, double label, uint64_t *cls) {
  uint64_t lo = sorted_lower_bound_f64(labels, k, label);
  if (lo == k || labels[lo] != label)
    return DSANA_ERANGE;
  *cls = lo;
  return 0;
}

int dsana_dataset_class_counts(const struct dsana_dataset *ds, const double *labels, uint64_t k, uint64_t *counts,
                               char *err, size_t errlen) {
  if (k)
    memset(counts, 0, k * sizeof *counts);
  for (uint64_t r = 0; r < ds->n_rows; r++) {
    uint64_t c;
    if (dsana_dataset_class_of(labels, k, ds->label[r], &c) != 0)
      return io_errf(err, errlen, DSANA_ERANGE, "%s: row %llu: label %.17g is not one of the %llu classes", ds_name(ds),
                     (unsigned long long)r, ds->label[r], (unsigned long long)k);
    counts[c]++;
  }
  return 0;
}
