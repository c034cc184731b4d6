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

#include "apps/common/cpu.h"
#include "logreg.h"

/* Rows per exact partial sum for a training set of n rows: the largest
 * power of two in [LR_BLOCK_MIN, LR_BLOCK_MAX] that leaves 32 blocks
 * (tasks are cut at block edges); a larger block merges fewer partials. */
static uint64_t lr_block_rows(uint64_t n) {
  uint64_t b = LR_BLOCK_MIN;
  while (b < LR_BLOCK_MAX && n / (2 * b) >= 32)
    b *= 2;
  return b;
}

/* The classes' checks and what follows from them. */
static int load_classes(struct lr_app *a, char *err, size_t errlen) {
  if (a->d.n_classes < 2 || a->d.n_classes > LR_MAX_CLASSES) {
    snprintf(err, errlen, "%s: %llu distinct label%s (logistic regression needs 2 to %d classes)", a->d.train_path,
             (unsigned long long)a->d.n_classes, a->d.n_classes == 1 ? "" : "s", LR_MAX_CLASSES);
    return DSANA_EFORMAT;
  }
  a->kw = a->d.n_classes == 2 ? 1 : (uint32_t)a->d.n_classes;
  a->n_keys = a->d.train.n_features + 1;
  a->sparse = a->d.train.n_features > LR_DENSE_MAX_FEATURES;
  a->block = lr_block_rows(a->d.train.n_rows);
  return 0;
}

int lr_load(struct lr_app *a, bool check, char *err, size_t errlen) {
  if (a->d.loaded)
    return 0;
  int rc = sup_data_load(&a->d, check, err, errlen);
  return rc ? rc : load_classes(a, err, errlen);
}

void lr_data_fini(struct lr_app *a) {
  for (uint32_t t = 0; a->td && t < a->n_train_tasks + a->n_test_tasks; t++) {
    free(a->td[t].keys);
  }
  free(a->key_bits);
  a->key_bits = NULL;
  free(a->td);
  a->td = NULL;
  sup_data_fini(&a->d);
}

int lr_convert_inputs(struct lr_app *a, char *err, size_t errlen) {
  int rc = sup_data_convert(&a->d, "dsana logreg", err, errlen);
  return rc ? rc : load_classes(a, err, errlen);
}

/* Training tasks push their gradient; test tasks (a quarter as many)
 * only score. Both read the model (lr_declare), cut at the same blocks. */
static void declare_tasks(struct lr_app *a, struct dsana_job *job, uint32_t want) {
  struct dsana_row_tasks train = {.ds = &a->d.train,
                                  .block = a->block,
                                  .max_tasks = want,
                                  .cost_entry = a->kw,
                                  .cost_task = 1,
                                  .tables = {{LR_T_G, DSANA_ROWS_WRITE}}};
  struct dsana_row_tasks test = {.ds = &a->d.test,
                                 .block = a->block,
                                 .max_tasks = want / 4 ? want / 4 : 1,
                                 .cost_entry = a->kw / 2.0,
                                 .cost_task = 1};
  for (uint32_t i = 0; a->td && i < a->n_train_tasks + a->n_test_tasks; i++)
    free(a->td[i].keys);
  free(a->td); /* a setup() run before (the launcher's check) */
  a->n_test_tasks = 0;
  dsana_job_add_row_tasks(job, &train, NULL, &a->n_train_tasks);
  if (a->d.test_path[0])
    dsana_job_add_row_tasks(job, &test, NULL, &a->n_test_tasks);
  a->td = calloc((size_t)a->n_train_tasks + a->n_test_tasks + 1, sizeof *a->td);
  if (!a->td)
    dsana_job_fail(job, DSANA_ENOMEM, "out of memory for the tasks");
  struct dsana_task_decl t;
  for (uint32_t i = 0; a->td && i < a->n_train_tasks + a->n_test_tasks && !dsana_job_get_task(job, i, &t); i++) {
    a->td[i].lo = t.lo;
    a->td[i].hi = t.hi;
  }
}

int lr_declare(struct lr_app *a, struct dsana_job *job, char *err, size_t errlen) {
  struct dsana_job_info info;
  dsana_job_get_info(job, &info);
  dsana_job_add_table_id(job, LR_T_X, "x", a->n_keys, a->kw, DSANA_RULE_DERIVED);
  dsana_job_add_table_id(job, LR_T_G, "g", a->n_keys, a->kw, DSANA_RULE_SUM);
  dsana_job_add_table_id(job, LR_T_STATE, "state", a->n_keys, a->batch ? a->kw : a->kw * LR_STATE_SLOTS,
                         DSANA_RULE_STATE);
  declare_tasks(a, job, info.n_workers * info.tasks_per_worker);
  dsana_job_task_reads(job, DSANA_ALL_TASKS, LR_T_X, 0, a->n_keys);
  dsana_job_set_result_table(job, LR_T_X);
  dsana_job_set_sums(job, LR_N_SUMS);
  dsana_job_set_convergence(job, a->batch ? 0 : a->tol, a->max_iter); /* SGD: --max-iter iterations */
  dsana_job_add_fact(job, "rows", (double)a->d.train.n_rows);
  dsana_job_add_fact(job, "features", (double)a->d.train.n_features);
  dsana_job_add_fact(job, "classes", (double)a->d.n_classes);
  /* the kernels this process runs (0 scalar, 1 avx2, 2 avx512: apps/common/cpu.h) */
  dsana_job_add_fact(job, "kernel_level", (double)app_cpu_level());
  if (a->d.test_path[0])
    dsana_job_add_fact(job, "test_rows", (double)a->d.test.n_rows);
  return dsana_job_status(job, a->d.train_path, err, errlen);
}

uint32_t lr_class_of(const struct lr_app *a, double label) { return sup_data_class_of(&a->d, label); }
