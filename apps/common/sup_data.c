/* sup_data.c - a data-parallel app's training and test sets (sup_data.h). */
#include "sup_data.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsana/dsana.h"
#include "dsana/outfile.h"
#include "prepared.h"

void sup_data_init(struct sup_data *d) {
  memset(d, 0, sizeof *d);
  d->converted_fd[0] = d->converted_fd[1] = -1;
  d->arg_name = "TRAIN";
}

int sup_data_set_train(struct sup_data *d, const char *path, char *err, size_t errlen) {
  if (d->train_path[0] || !path[0] || strlen(path) >= sizeof d->train_path) {
    snprintf(err, errlen, "unexpected argument '%s' (one %s file only)", path, d->arg_name);
    return DSANA_EINVAL;
  }
  memcpy(d->train_path, path, strlen(path) + 1);
  return 0;
}

static int open_set(const char *path, bool check, struct dsana_dataset *ds, char *err, size_t errlen) {
  if (dsana_dataset_is_binary(path) && !check)
    return dsana_dataset_map_binary(path, ds, err, errlen);
  return dsana_dataset_open(path, NULL, ds, err, errlen);
}

static int mark_test_classes(struct sup_data *d) {
  if (!d->test_path[0] || d->unlabelled)
    return 0;
  if (!(d->test_class_ok = malloc(d->test.n_rows)))
    return DSANA_ENOMEM;
  d->test_unknown = 0;
  for (uint64_t i = 0; i < d->test.n_rows; i++) {
    uint64_t c;
    d->test_class_ok[i] = dsana_dataset_class_of(d->labels, d->n_classes, d->test.label[i], &c) == 0;
    d->test_unknown += !d->test_class_ok[i];
  }
  return 0;
}

/* What a role maps for input `path`: this state's binary copy, else (a
 * role run as a thread of the process that made one) the copy prepare()
 * made of it, else the input itself. */
static const char *source_of(const char *path, const char *converted, bool check, char *found, size_t len) {
  if (converted[0])
    return converted;
  if (!check && prepared_find(path, "", found, len))
    return found;
  return path;
}

int sup_data_load(struct sup_data *d, bool check, char *err, size_t errlen) {
  if (d->loaded)
    return 0;
  char found[2][SUP_PATH_MAX];
  const char *train = source_of(d->train_path, d->converted[0], check, found[0], sizeof found[0]);
  const char *test = source_of(d->test_path, d->converted[1], check, found[1], sizeof found[1]);
  int rc = open_set(train, check, &d->train, err, errlen);
  if (!rc && d->test_path[0])
    rc = open_set(test, check, &d->test, err, errlen);
  if (!rc && !d->unlabelled && (rc = dsana_dataset_classes(&d->train, &d->labels, &d->n_classes)) != 0)
    snprintf(err, errlen, "%s: cannot read its labels: %s", d->train_path, dsana_strerror(rc));
  if (!rc)
    rc = mark_test_classes(d);
  d->loaded = rc == 0;
  d->train_checked = check || !dsana_dataset_is_binary(train); /* open_set() parsed it, checking every row */
  return rc;
}

/* A text input becomes a binary copy every role maps, in an anonymous
 * file, so that nothing is left on disk however the run ends. */
static int convert_one(const char *who, const char *path, char *out, size_t outlen, int *fd, struct dsana_dataset *ds,
                       char *err, size_t errlen) {
  if (dsana_dataset_is_binary(path))
    return 0;
  int rc = dsana_outfile_anon(out, outlen, fd, err, errlen);
  if (!rc)
    rc = dsana_dataset_write_binary(ds, out, err, errlen);
  if (!rc && prepared_note(path, "", out) != 0)
    fprintf(stderr, "%s: warning: %s: roles run as threads will read it again\n", who, path);
  if (rc)
    out[0] = 0;
  return rc;
}

/* The sets parsed into the heap leave it: this process maps the binary
 * copies too, so its roles' pages are the page cache's, shared. */
static int map_copies(struct sup_data *d, char *err, size_t errlen) {
  if (!d->converted[0][0] && !d->converted[1][0])
    return 0;
  free(d->labels);
  d->labels = NULL;
  free(d->test_class_ok);
  d->test_class_ok = NULL;
  dsana_dataset_fini(&d->train);
  dsana_dataset_fini(&d->test);
  malloc_trim(0); /* the parser grew its arrays on the heap, which keeps freed pages otherwise */
  d->loaded = false;
  int rc = sup_data_load(d, false, err, errlen);
  d->train_checked = rc == 0; /* its rows were checked as they were parsed */
  return rc;
}

int sup_data_convert(struct sup_data *d, const char *who, char *err, size_t errlen) {
  if (!d->train_path[0]) {
    snprintf(err, errlen, "missing %s argument", d->arg_name);
    return DSANA_EUSAGE;
  }
  int rc = sup_data_load(d, true, err, errlen);
  if (!rc)
    rc = convert_one(who, d->train_path, d->converted[0], sizeof d->converted[0], &d->converted_fd[0], &d->train, err,
                     errlen);
  if (!rc && d->test_path[0])
    rc = convert_one(who, d->test_path, d->converted[1], sizeof d->converted[1], &d->converted_fd[1], &d->test, err,
                     errlen);
  if (!rc)
    rc = map_copies(d, err, errlen);
  if (!rc && d->test_path[0] && d->test.n_features > d->train.n_features)
    fprintf(stderr, "%s: warning: %s has features up to %llu, the model %llu: the others are ignored\n", who,
            d->test_path, (unsigned long long)d->test.n_features, (unsigned long long)d->train.n_features);
  if (!rc && d->test_unknown)
    fprintf(stderr, "%s: warning: %s: %llu rows have a label the training set lacks (counted as errors)\n", who,
            d->test_path, (unsigned long long)d->test_unknown);
  return rc;
}

void sup_data_forget_pages(struct sup_data *d) {
  dsana_dataset_forget_pages(&d->train);
  dsana_dataset_forget_pages(&d->test);
}

void sup_data_fini(struct sup_data *d) {
  free(d->labels);
  d->labels = NULL;
  free(d->test_class_ok);
  d->test_class_ok = NULL;
  dsana_dataset_fini(&d->train);
  dsana_dataset_fini(&d->test);
  for (int i = 0; i < 2; i++)
    if (d->converted_fd[i] >= 0) { /* the anonymous copy goes with its last holder */
      prepared_forget(d->converted[i]);
      close(d->converted_fd[i]);
      d->converted_fd[i] = -1;
    }
  d->loaded = false;
}

uint32_t sup_data_class_of(const struct sup_data *d, double label) {
  uint64_t c = 0;
  dsana_dataset_class_of(d->labels, d->n_classes, label, &c);
  return (uint32_t)c;
}
