/*
 * km_data.c - the k-means app's data and declarations: DATA read with the
 * readers logreg uses (libsvm text parsed, a dsana binary dataset mapped),
 * its shape checked against --k, the tasks (row ranges cut at the fixed
 * blocks of kmeans.h, about equal non-zeros each) and the tables.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apps/common/prepared.h"
#include "dsana/outfile.h"
#include "kmeans.h"

uint64_t km_block_rows(uint64_t n) {
  uint64_t b = KM_BLOCK_MIN;
  while (b < KM_BLOCK_MAX && b * 128 < n)
    b *= 2;
  return b;
}

/* Binary files are mapped (rows checked by whoever reads them, unless
 * `check`), text files parsed and checked whole. */
static int open_data(const char *path, bool check, struct dsana_dataset *ds, char *err, size_t errlen) {
  if (dsana_dataset_is_binary(path) && !check)
    return dsana_dataset_map_binary(path, ds, err, errlen);
  return dsana_dataset_open(path, NULL, ds, err, errlen);
}

static int check_shape(const struct km_app *a, char *err, size_t errlen) {
  if (a->ds.n_features == 0) {
    snprintf(err, errlen, "%s: no features (every row is empty)", a->data_path);
    return DSANA_EFORMAT;
  }
  if (a->k == 0) {
    snprintf(err, errlen, "--k K is required (the number of clusters)");
    return DSANA_EUSAGE;
  }
  if (a->k > a->ds.n_rows) {
    snprintf(err, errlen, "--k %llu: more clusters than the %llu rows of %s", (unsigned long long)a->k,
             (unsigned long long)a->ds.n_rows, a->data_path);
    return DSANA_EINVAL;
  }
  return 0;
}

int km_load(struct km_app *a, bool check, char *err, size_t errlen) {
  if (a->loaded)
    return 0;
  /* this state's binary copy, else (a role run as a thread of the process
   * that made one) the copy prepare() made, else DATA itself */
  char found[KM_PATH_MAX];
  const char *path = a->converted[0]                                                  ? a->converted
                     : !check && prepared_find(a->data_path, "", found, sizeof found) ? found
                                                                                      : a->data_path;
  int rc = open_data(path, check, &a->ds, err, errlen);
  if (rc)
    return rc;
  a->loaded = true;
  a->validated = !dsana_dataset_is_binary(path) || check;
  a->block = km_block_rows(a->ds.n_rows);
  return check_shape(a, err, errlen);
}

int km_validate(struct km_app *a, char *err, size_t errlen) {
  if (a->validated)
    return 0;
  int rc = dsana_dataset_check(&a->ds, 0, a->ds.n_rows, err, errlen);
  a->validated = rc == 0;
  return rc;
}

int km_convert(struct km_app *a, char *err, size_t errlen) {
  if (a->converted[0] || dsana_dataset_is_binary(a->data_path))
    return 0;
  int rc = dsana_outfile_anon(a->converted, sizeof a->converted, &a->converted_fd, err, errlen);
  if (!rc)
    rc = dsana_dataset_write_binary(&a->ds, a->converted, err, errlen);
  if (rc) {
    a->converted[0] = 0;
    return rc;
  }
  if (prepared_note(a->data_path, "", a->converted) != 0)
    fprintf(stderr, "dsana kmeans: warning: %s: roles run as threads will read it again\n", a->data_path);
  /* the parsed rows leave the heap: this process maps the copy too (its
   * rows were checked as they were parsed) */
  dsana_dataset_fini(&a->ds);
  malloc_trim(0); /* the parser grew its arrays on the heap, which keeps freed pages otherwise */
  if ((rc = dsana_dataset_map_binary(a->converted, &a->ds, err, errlen)) != 0) {
    a->loaded = false;
    return rc;
  }
  a->validated = true;
  return 0;
}

void km_data_fini(struct km_app *a) {
  free(a->checked);
  a->checked = NULL;
  dsana_dataset_fini(&a->ds);
  a->loaded = false;
  if (a->converted_fd >= 0) { /* the anonymous copy goes with its last holder */
    prepared_forget(a->converted);
    close(a->converted_fd);
    a->converted_fd = -1;
  }
}

/* Tasks: row ranges cut at the blocks, each reading and writing its own
 * rows' labels, reading every centroid and pushing every cluster's sums;
 * a row costs K multiply-adds per non-zero and K more. */
static void declare_tasks(struct km_app *a, struct dsana_job *job) {
  struct dsana_row_tasks rows = {.ds = &a->ds,
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
  uint32_t d = (uint32_t)a->ds.n_features;
  if (a->ds.n_features >= UINT32_MAX)
    dsana_job_fail(job, DSANA_ERANGE, "too many features");
  dsana_job_add_table_id(job, KM_T_CENT, "centroids", a->k, d, DSANA_RULE_DERIVED);
  dsana_job_add_table_id(job, KM_T_SUMS, "sums", a->k, d + 1, DSANA_RULE_SUM);
  dsana_job_add_table_id(job, KM_T_LABELS, "labels", a->ds.n_rows, 1, DSANA_RULE_ASSIGN);
  declare_tasks(a, job);
  dsana_job_set_result_table(job, KM_T_CENT);
  dsana_job_set_sums(job, KM_N_SUMS);
  dsana_job_set_convergence(job, a->tol, a->max_iter);
  dsana_job_add_fact(job, "rows", (double)a->ds.n_rows);
  dsana_job_add_fact(job, "features", (double)a->ds.n_features);
  dsana_job_add_fact(job, "clusters", (double)a->k);
  /* the kernels this process runs (0 scalar, 1 avx2, 2 avx512: apps/common/cpu.h) */
  dsana_job_add_fact(job, "kernel_level", (double)app_cpu_level());
  return dsana_job_status(job, a->data_path, err, errlen);
}
