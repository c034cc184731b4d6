/*
 * sup_data.h - the inputs of a data-parallel app: a training set, an
 * optional test set, the classes (supervised apps: logreg, mlp; k-means
 * reads unlabelled data, its labels read and ignored, and no test set),
 * and the binary copies of text inputs that the process starting the job
 * makes so every role maps a binary file.
 *
 * The launcher calls sup_convert() (every byte checked once, text written
 * to anonymous binary files, which it maps from then on); each role then
 * calls sup_load(), which maps the binary files (their rows checked by the
 * tasks that read them): its own state's, or, run as a thread of the
 * launcher with a state of its own, the copies the launcher noted
 * (prepared.h).
 * Classes are the distinct training labels, ascending: class c is
 * labels[c]. Test rows whose label the training set lacks can never be
 * predicted right: test_class_ok marks the others.
 */
#ifndef DSANA_APPS_COMMON_SUP_DATA_H
#define DSANA_APPS_COMMON_SUP_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/dataset.h"

#define SUP_PATH_MAX 1024

struct sup_data {
  char train_path[SUP_PATH_MAX], test_path[SUP_PATH_MAX]; /* test_path[0] == 0: none */
  char converted[2][SUP_PATH_MAX];                        /* binary copies of text inputs (anonymous files), or "" */
  int converted_fd[2];                                    /* their descriptors, -1 */
  struct dsana_dataset train, test;
  double *labels; /* distinct training labels, ascending (none when unlabelled) */
  uint64_t n_classes;
  uint8_t *test_class_ok; /* per test row: its label is a training class */
  uint64_t test_unknown;  /* test rows whose class the model does not know */
  bool loaded;
  bool train_checked; /* every training row was checked as it was read (else a task checks its own) */
  /* set after sup_data_init(), before loading: */
  bool unlabelled;      /* no classes: the labels are read and ignored */
  const char *arg_name; /* the positional argument in messages: "TRAIN" (sup_data_init) */
};

/* Before any other call: no data, no descriptors. */
void sup_data_init(struct sup_data *d);
/* The positional argument, TRAIN (set once; a second is an error, one line in err). */
int sup_data_set_train(struct sup_data *d, const char *path, char *err, size_t errlen);
/* Open both sets (mapped binary files unless `check`: then every row is
 * checked as it is read), their classes and the test rows' marks; once. */
int sup_data_load(struct sup_data *d, bool check, char *err, size_t errlen);
/* In the launcher (DSANA_EUSAGE without a TRAIN argument): load with every byte checked, write text inputs to
 * binary copies, and warn (prefixed by `who`) about test features beyond
 * the training set's and test labels it lacks. The binary copies mapped
 * from then on count as checked (train_checked). */
int sup_data_convert(struct sup_data *d, const char *who, char *err, size_t errlen);
/* Let the pages loading touched leave the process's memory (the data
 * stays mapped: tasks read their rows again). */
void sup_data_forget_pages(struct sup_data *d);
/* Release everything sup_data_load() and sup_data_convert() made. */
void sup_data_fini(struct sup_data *d);
/* The class (0..n_classes-1) of a label of the training set. */
uint32_t sup_data_class_of(const struct sup_data *d, double label);

#endif
