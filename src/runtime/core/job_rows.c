/*
 * job_rows.c - data-parallel tasks (dsana_job_add_row_tasks, dsana.h): an
 * app's rows cut into ranges at block edges, each range a task, with the
 * reads and writes every task of the group makes. The one row-cutter the
 * data-parallel apps (logreg, kmeans, mlp) share; the declarations go
 * through job.c, so a refusal is kept as theirs are.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dataset.h"
#include "runtime/core/job.h"

/* Rows [0, n) in k ranges of about equal blocks: task i starts at block
 * floor(B * i / k). */
static uint32_t cut_evenly(uint64_t n, uint64_t block, uint32_t want, uint64_t *cut) {
  uint64_t blocks = (n + block - 1) / block;
  uint32_t k = want < blocks ? want : (uint32_t)blocks;
  for (uint32_t i = 0; i <= k; i++) {
    uint64_t row = (uint64_t)(((unsigned __int128)blocks * i / k) * block);
    cut[i] = row < n ? row : n;
  }
  return k;
}

static double row_cost(const struct dsana_row_tasks *rt, uint64_t lo, uint64_t hi) {
  double entries = rt->ds ? (double)(rt->ds->row_off[hi] - rt->ds->row_off[lo]) : 0;
  return entries * rt->cost_entry + (double)(hi - lo) * rt->cost_row + rt->cost_task;
}

/* The job's tasks, then the group's k ranges as tasks. */
static int append_tasks(struct dsana_job *job, const struct dsana_row_tasks *rt, const uint64_t *cut, uint32_t k) {
  uint32_t n0 = job->n_tasks;
  if (k > UINT32_MAX - 1 - n0)
    return dsana_job_fail(job, DSANA_ERANGE, "too many tasks");
  struct dsana_task_decl *t = malloc(sizeof *t * ((size_t)n0 + k));
  if (!t)
    return dsana_job_fail(job, DSANA_ENOMEM, "out of memory for the tasks");
  if (n0)
    memcpy(t, job->tasks, sizeof *t * n0);
  for (uint32_t i = 0; i < k; i++)
    t[n0 + i] = (struct dsana_task_decl){.lo = cut[i], .hi = cut[i + 1], .cost = row_cost(rt, cut[i], cut[i + 1])};
  int rc = dsana_job_set_tasks(job, t, n0 + k);
  free(t);
  return rc;
}

/* Every task of the group: its reads and writes, table by table. */
static void declare_uses(struct dsana_job *job, const struct dsana_row_tasks *rt, uint32_t first, uint32_t k) {
  for (uint32_t u = 0; u < DSANA_MAX_TABLES && rt->tables[u].use; u++) {
    uint32_t table = rt->tables[u].table;
    unsigned use = rt->tables[u].use;
    uint64_t n_keys = table < job->n_tables ? job->tables[table].n_keys : 0;
    for (uint32_t t = first; t < first + k; t++) {
      uint64_t lo = use & DSANA_ROWS_OWN ? job->tasks[t].lo : 0, hi = use & DSANA_ROWS_OWN ? job->tasks[t].hi : n_keys;
      if (use & DSANA_ROWS_READ)
        dsana_job_task_reads(job, t, table, lo, hi);
      if (use & DSANA_ROWS_WRITE)
        dsana_job_task_writes(job, t, table, lo, hi);
    }
  }
}

int dsana_job_add_row_tasks(struct dsana_job *job, const struct dsana_row_tasks *rows, uint32_t *first, uint32_t *n) {
  uint32_t first_task = job->n_tasks, want = rows->max_tasks;
  if (first)
    *first = first_task;
  if (n)
    *n = 0;
  if (!want)
    want = job->info.n_workers * job->info.tasks_per_worker;
  uint64_t block = rows->block ? rows->block : 1, n_rows = rows->ds ? rows->ds->n_rows : rows->n_rows;
  if (n_rows == 0 || want == 0)
    return dsana_job_fail(job, DSANA_EINVAL, "no rows to cut into tasks");
  if (dsana_job_error(job))
    return dsana_job_status(job, NULL, NULL, 0);
  uint64_t *cut = malloc(sizeof *cut * ((size_t)want + 1));
  if (!cut)
    return dsana_job_fail(job, DSANA_ENOMEM, "out of memory for the tasks");
  uint32_t k = rows->ds ? dsana_dataset_cut_rows(rows->ds, block, want, cut) : cut_evenly(n_rows, block, want, cut);
  int rc = append_tasks(job, rows, cut, k);
  free(cut);
  if (rc)
    return rc;
  declare_uses(job, rows, first_task, k);
  if (n && !dsana_job_error(job))
    *n = k;
  return dsana_job_status(job, NULL, NULL, 0);
}

int dsana_job_get_task(const struct dsana_job *job, uint32_t task, struct dsana_task_decl *decl) {
  if (task >= job->n_tasks)
    return DSANA_EINVAL;
  *decl = job->tasks[task];
  return 0;
}
