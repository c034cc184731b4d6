/*
 * km_data.c - the k-means app's data and declarations: DATA read through
 * the supervised apps' loader (apps/common/sup_data.h: libsvm text parsed,
 * a dsana binary dataset mapped, text converted once to a binary copy
 * every role maps), unlabelled, its shape checked against --k, the tasks
 * (row ranges cut at the fixed blocks of kmeans.h, about equal non-zeros
 * each) and the tables.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kmeans.h"

uint64_t km_block_rows(uint64_t n) {
  uint64_t b = KM_BLOCK_MIN;
  while (b < KM_BLOCK_MAX && b * 128 < n)
    b *= 2;
  return b;
}

static int check_shape(const struct km_app *a, char *err, size_t errlen) {
  if (a->d.train.n_features == 0) {
    snprintf(err, errlen, "%s: no features (every row is empty)", a->d.train_path);
    return DSANA_EFORMAT;
  }
  if (a->k == 0) {
    snprintf(err, errlen, "--k K is required (the number of clusters)");
    return DSANA_EUSAGE;
  }
  if (a->k > a->d.train.n_rows) {
    snprintf(err, errlen, "--k %llu: more clusters than the %llu rows of %s", (unsigned long long)a->k,
             (unsigned long long)a->d.train.n_rows, a->d.train_path);
    return DSANA_EINVAL;
  }
  return 0;
}

int km_load(struct km_app *a, bool check, char *err, size_t errlen) {
  if (a->d.loaded)
    return 0;
  int rc = sup_data_load(&a->d, check, err, errlen);
  if (rc)
    return rc;
  a->block = km_block_rows(a->d.train.n_rows);
  return check_shape(a, err, errlen);
}

int km_validate(struct km_app *a, char *err, size_t errlen) {
  if (a->d.train_checked)
    return 0;
  int rc = dsana_dataset_check(&a->d.train, 0, a->d.train.n_rows, err, errlen);
  a->d.train_checked = rc == 0;
  return rc;
}

void km_data_fini(struct km_app *a) {
  free(a->checked);
  a->checked = NULL;
  sup_data_fini(&a->d);
}

/* Tasks: row ranges cut at the blocks, each reading and writing its own
 * rows' labels, reading every centroid and pushing every cluster's sums;
 * a row costs K multiply-adds per non-zero and K more. */
static void declare_tasks(struct km_app *a, struct dsana_job *job) {
  struct dsana_row_tasks rows = {.ds = &a->d.train,
                                 .block = a->block,
                                 .cost_entry = (double)a->k,
                                 .cost_row = (double)a->k,
                                 .tables = {{KM_T_LABELS, DSANA_ROWS_READ | DSANA_ROWS_WRITE | DSANA_ROWS_OWN},
                                            {KM_T_CENT, DSANA_ROWS_READ},
                                            {KM_T_SUMS, DSANA_ROWS_WRITE}}};
  dsana_job_add_row_tasks(job, &rows, NULL, &a->n_tasks);
  free(a->checked); /* a setup() run before (the launcher's check) */
  a->checked = calloc(a->n_tasks + 1, 1);
  if (!a->checked)
    dsana_job_fail(job, DSANA_ENOMEM, "out of memory for the tasks");
}

int km_declare(struct km_app *a, struct dsana_job *job, char *err, size_t errlen) {
  uint32_t d = (uint32_t)a->d.train.n_features;
  if (a->d.train.n_features >= UINT32_MAX)
    dsana_job_fail(job, DSANA_ERANGE, "too many features");
  dsana_job_add_table_id(job, KM_T_CENT, "centroids", a->k, d, DSANA_RULE_DERIVED);
  dsana_job_add_table_id(job, KM_T_SUMS, "sums", a->k, d + 1, DSANA_RULE_SUM);
  dsana_job_add_table_id(job, KM_T_LABELS, "labels", a->d.train.n_rows, 1, DSANA_RULE_ASSIGN);
  declare_tasks(a, job);
  dsana_job_set_result_table(job, KM_T_CENT);
  dsana_job_set_sums(job, KM_N_SUMS);
  dsana_job_set_convergence(job, a->tol, a->max_iter);
  dsana_job_add_fact(job, "rows", (double)a->d.train.n_rows);
  dsana_job_add_fact(job, "features", (double)a->d.train.n_features);
  dsana_job_add_fact(job, "clusters", (double)a->k);
  /* the kernels this process runs (0 scalar, 1 avx2, 2 avx512: apps/common/cpu.h) */
  dsana_job_add_fact(job, "kernel_level", (double)app_cpu_level());
  return dsana_job_status(job, a->d.train_path, err, errlen);
}
