/*
 * lr_data.c - the logistic-regression app's data: the training and test
 * sets (libsvm text or dsana's binary format, converted once by the
 * process that starts the job so that every role maps a binary file), the
 * classes, the tasks (row ranges cut at fixed blocks, see logreg.h) and,
 * for sparse models, each task's key list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsana/outfile.h"
#include "logreg.h"

/* Open a data file: binary files are mapped (rows checked by the tasks
 * that read them, unless `check`), text files parsed. */
static int open_data(const char *path, bool check, struct dsana_dataset *ds, char *err, size_t errlen) {
  if (dsana_dataset_is_binary(path) && !check)
    return dsana_dataset_map_binary(path, ds, err, errlen);
  return dsana_dataset_open(path, NULL, ds, err, errlen);
}

static int load_classes(struct lr_app *a, char *err, size_t errlen) {
  int rc = dsana_dataset_classes(&a->train, &a->labels, &a->n_classes);
  if (rc) {
    snprintf(err, errlen, "%s: cannot read its labels: %s", a->train_path, dsana_strerror(rc));
    return rc;
  }
  if (a->n_classes < 2 || a->n_classes > LR_MAX_CLASSES) {
    snprintf(err, errlen, "%s: %llu distinct label%s (logistic regression needs 2 to %d classes)", a->train_path,
             (unsigned long long)a->n_classes, a->n_classes == 1 ? "" : "s", LR_MAX_CLASSES);
    return DSANA_EFORMAT;
  }
  a->kw = a->n_classes == 2 ? 1 : (uint32_t)a->n_classes;
  a->n_keys = a->train.n_features + 1;
  a->sparse = a->train.n_features > LR_DENSE_MAX_FEATURES;
  a->block = lr_block_rows(a->train.n_rows);
  return 0;
}

uint64_t lr_block_rows(uint64_t n) {
  uint64_t b = LR_BLOCK_MIN;
  while (b < LR_BLOCK_MAX && n / (2 * b) >= 32)
    b *= 2;
  return b;
}

/* Test rows whose label the training set never had can never be right. */
static int mark_test_classes(struct lr_app *a) {
  if (!a->test_path[0])
    return 0;
  if (!(a->test_class_ok = malloc(a->test.n_rows)))
    return DSANA_ENOMEM;
  a->test_unknown = 0;
  for (uint64_t i = 0; i < a->test.n_rows; i++) {
    uint64_t c;
    a->test_class_ok[i] = dsana_dataset_class_of(a->labels, a->n_classes, a->test.label[i], &c) == 0;
    a->test_unknown += !a->test_class_ok[i];
  }
  return 0;
}

int lr_load(struct lr_app *a, bool check, char *err, size_t errlen) {
  if (a->loaded)
    return 0;
  const char *train = a->converted[0][0] ? a->converted[0] : a->train_path;
  const char *test = a->converted[1][0] ? a->converted[1] : a->test_path;
  int rc = open_data(train, check, &a->train, err, errlen);
  if (!rc && a->test_path[0])
    rc = open_data(test, check, &a->test, err, errlen);
  if (!rc)
    rc = load_classes(a, err, errlen);
  if (!rc)
    rc = mark_test_classes(a);
  a->loaded = rc == 0;
  return rc;
}

void lr_data_fini(struct lr_app *a) {
  for (uint32_t t = 0; a->td && t < a->n_train_tasks + a->n_test_tasks; t++) {
    free(a->td[t].keys);
  }
  free(a->key_bits);
  a->key_bits = NULL;
  free(a->td);
  a->td = NULL;
  free(a->labels);
  a->labels = NULL;
  free(a->test_class_ok);
  a->test_class_ok = NULL;
  dsana_dataset_fini(&a->train);
  dsana_dataset_fini(&a->test);
  for (int i = 0; i < 2; i++)
    if (a->converted_fd[i] >= 0) { /* the anonymous copy goes with its last holder */
      close(a->converted_fd[i]);
      a->converted_fd[i] = -1;
    }
  a->loaded = false;
}

/* Text inputs become binary copies every role maps (in the launcher): in
 * anonymous files, so that nothing is left on disk however the run ends. */
static int convert_one(const char *path, char *out, size_t outlen, int *fd, struct dsana_dataset *ds, char *err,
                       size_t errlen) {
  if (dsana_dataset_is_binary(path))
    return 0;
  int rc = dsana_outfile_anon(out, outlen, fd, err, errlen);
  if (!rc)
    rc = dsana_dataset_write_binary(ds, out, err, errlen);
  if (rc)
    out[0] = 0;
  return rc;
}

int lr_convert_inputs(struct lr_app *a, char *err, size_t errlen) {
  int rc = lr_load(a, true, err, errlen); /* every byte checked once, here */
  if (!rc)
    rc = convert_one(a->train_path, a->converted[0], sizeof a->converted[0], &a->converted_fd[0], &a->train, err,
                     errlen);
  if (!rc && a->test_path[0])
    rc = convert_one(a->test_path, a->converted[1], sizeof a->converted[1], &a->converted_fd[1], &a->test, err, errlen);
  if (!rc && a->test_path[0] && a->test.n_features > a->train.n_features)
    fprintf(stderr, "dsana logreg: warning: %s has features up to %llu, the model %llu: the others are ignored\n",
            a->test_path, (unsigned long long)a->test.n_features, (unsigned long long)a->train.n_features);
  if (!rc && a->test_unknown)
    fprintf(stderr, "dsana logreg: warning: %s: %llu rows have a label the training set lacks (counted as errors)\n",
            a->test_path, (unsigned long long)a->test_unknown);
  return rc;
}

static int declare_tasks(struct lr_app *a, struct dsana_job *job, uint32_t want) {
  uint32_t want_test = a->test_path[0] ? (want / 4 ? want / 4 : 1) : 0;
  uint64_t *cut = malloc(sizeof *cut * ((size_t)want + want_test + 2));
  struct dsana_task_decl *t = calloc((size_t)want + want_test + 1, sizeof *t);
  if (!cut || !t) {
    free(cut);
    free(t);
    return DSANA_ENOMEM;
  }
  a->n_train_tasks = dsana_dataset_cut_rows(&a->train, a->block, want, cut);
  for (uint32_t i = 0; i < a->n_train_tasks; i++)
    t[i] =
        (struct dsana_task_decl){.lo = cut[i],
                                 .hi = cut[i + 1],
                                 .cost = (double)(a->train.row_off[cut[i + 1]] - a->train.row_off[cut[i]]) * a->kw + 1};
  a->n_test_tasks = want_test ? dsana_dataset_cut_rows(&a->test, a->block, want_test, cut) : 0;
  for (uint32_t i = 0; i < a->n_test_tasks; i++)
    t[a->n_train_tasks + i] = (struct dsana_task_decl){
        .lo = cut[i],
        .hi = cut[i + 1],
        .cost = (double)(a->test.row_off[cut[i + 1]] - a->test.row_off[cut[i]]) * a->kw / 2 + 1};
  int rc = dsana_job_set_tasks(job, t, a->n_train_tasks + a->n_test_tasks);
  free(cut);
  for (uint32_t i = 0; a->td && i < a->n_train_tasks + a->n_test_tasks; i++) {
    free(a->td[i].keys);
  }
  free(a->td); /* a setup() run before (the launcher's check) */
  a->td = rc ? NULL : calloc((size_t)a->n_train_tasks + a->n_test_tasks, sizeof *a->td);
  for (uint32_t i = 0; a->td && i < a->n_train_tasks + a->n_test_tasks; i++) {
    a->td[i].lo = t[i].lo;
    a->td[i].hi = t[i].hi;
  }
  free(t);
  return rc ? rc : a->td ? 0 : DSANA_ENOMEM;
}

int lr_declare(struct lr_app *a, struct dsana_job *job, char *err, size_t errlen) {
  struct dsana_job_info info;
  dsana_job_get_info(job, &info);
  uint32_t id;
  int rc = 0;
  if ((rc = dsana_job_add_table(job, "x", a->n_keys, a->kw, DSANA_RULE_DERIVED, &id)) != 0 || id != LR_T_X ||
      (rc = dsana_job_add_table(job, "g", a->n_keys, a->kw, DSANA_RULE_SUM, &id)) != 0 || id != LR_T_G ||
      (rc = dsana_job_add_table(job, "state", a->n_keys, a->batch ? a->kw : a->kw * LR_STATE_SLOTS, DSANA_RULE_STATE,
                                &id)) != 0 ||
      id != LR_T_STATE || (rc = declare_tasks(a, job, info.n_workers * info.tasks_per_worker)) != 0) {
    snprintf(err, errlen, "%s: %s", a->train_path, dsana_job_error(job) ? dsana_job_error(job) : dsana_strerror(rc));
    return rc ? rc : DSANA_EINVAL;
  }
  rc = dsana_job_task_reads(job, DSANA_ALL_TASKS, LR_T_X, 0, a->n_keys);
  for (uint32_t t = 0; !rc && t < a->n_train_tasks; t++)
    rc = dsana_job_task_writes(job, t, LR_T_G, 0, a->n_keys);
  if (!rc)
    rc = dsana_job_set_result_table(job, LR_T_X);
  if (!rc)
    rc = dsana_job_set_sums(job, LR_N_SUMS);
  dsana_job_set_convergence(job, a->batch ? 0 : a->tol, a->max_iter); /* SGD: --max-iter iterations */
  dsana_job_add_fact(job, "rows", (double)a->train.n_rows);
  dsana_job_add_fact(job, "features", (double)a->train.n_features);
  dsana_job_add_fact(job, "classes", (double)a->n_classes);
  if (a->test_path[0])
    dsana_job_add_fact(job, "test_rows", (double)a->test.n_rows);
  if (rc)
    snprintf(err, errlen, "%s: %s", a->train_path, dsana_strerror(rc));
  return rc;
}

uint32_t lr_class_of(const struct lr_app *a, double label) {
  uint64_t c = 0;
  dsana_dataset_class_of(a->labels, a->n_classes, label, &c);
  return (uint32_t)c;
}
