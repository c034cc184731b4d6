/* job_index.c - job_finalize(): expand, index and check an app's
 * declarations once setup() returned (job.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/core/job.h"

/* Declarations ordered by (task, table); a DSANA_ALL_TASKS one sorts as
 * its expansion would, and the expansion happens while indexing. */
static int decl_cmp(const void *a, const void *b) {
  const struct job_decl *x = a, *y = b;
  if (x->table != y->table)
    return x->table < y->table ? -1 : 1;
  return (x->write > y->write) - (x->write < y->write);
}

/* Per task, count (pass 0) or fill (pass 1) its ranges of one kind. */
static void index_pass(struct dsana_job *job, bool write, uint32_t *off, struct job_range *out, int pass) {
  uint32_t *fill = pass ? calloc(job->n_tasks, sizeof *fill) : NULL;
  for (size_t i = 0; i < job->n_decls; i++) {
    const struct job_decl *d = &job->decls[i];
    if (d->write != write)
      continue;
    uint32_t t0 = d->task == DSANA_ALL_TASKS ? 0 : d->task,
             t1 = d->task == DSANA_ALL_TASKS ? job->n_tasks : d->task + 1;
    for (uint32_t t = t0; t < t1; t++) {
      if (pass == 0)
        off[t + 1]++;
      else if (fill)
        out[off[t] + fill[t]++] = (struct job_range){.table = d->table, .lo = d->lo, .hi = d->hi};
    }
  }
  free(fill);
}

static int index_kind(struct dsana_job *job, bool write, uint32_t **off_out, struct job_range **out) {
  uint32_t *off = calloc((size_t)job->n_tasks + 1, sizeof *off);
  if (!off)
    return DSANA_ENOMEM;
  index_pass(job, write, off, NULL, 0);
  for (uint32_t t = 0; t < job->n_tasks; t++)
    off[t + 1] += off[t];
  struct job_range *r = malloc(sizeof *r * (off[job->n_tasks] ? off[job->n_tasks] : 1));
  if (!r) {
    free(off);
    return DSANA_ENOMEM;
  }
  index_pass(job, write, off, r, 1);
  *off_out = off;
  *out = r;
  return 0;
}

/* One range per (task, table): the ranges of a task are in table order. */
static int check_unique(const struct dsana_job *job, const uint32_t *off, const struct job_range *r, const char *what,
                        char *err, size_t errlen) {
  for (uint32_t t = 0; t < job->n_tasks; t++)
    for (uint32_t i = off[t] + 1; i < off[t + 1]; i++)
      if (r[i].table == r[i - 1].table) {
        snprintf(err, errlen, "task %u declares two %s ranges of table '%s'", t, what, job->tables[r[i].table].name);
        return DSANA_EINVAL;
      }
  return 0;
}

struct owned_range {
  uint64_t lo, hi;
  uint32_t task;
};

static int range_cmp(const void *a, const void *b) {
  const struct owned_range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : (x->task > y->task) - (x->task < y->task);
}

/* ASSIGN: every key is written by one task at most. */
static int check_assign(const struct dsana_job *job, uint32_t table, char *err, size_t errlen) {
  struct owned_range *v = malloc(sizeof *v * job->n_tasks);
  if (!v)
    return DSANA_ENOMEM;
  uint32_t n = 0;
  struct job_range r;
  for (uint32_t t = 0; t < job->n_tasks; t++)
    if (job_task_writes(job, t, table, &r) && r.hi > r.lo)
      v[n++] = (struct owned_range){.lo = r.lo, .hi = r.hi, .task = t};
  qsort(v, n, sizeof *v, range_cmp);
  int rc = 0;
  for (uint32_t i = 1; i < n && !rc; i++)
    if (v[i].lo < v[i - 1].hi) {
      snprintf(err, errlen, "tasks %u and %u both write keys [%llu, %llu) of ASSIGN table '%s'", v[i - 1].task,
               v[i].task, (unsigned long long)v[i].lo,
               (unsigned long long)(v[i].hi < v[i - 1].hi ? v[i].hi : v[i - 1].hi), job->tables[table].name);
      rc = DSANA_EINVAL;
    }
  free(v);
  return rc;
}

static void assign_spaces(struct dsana_job *job) {
  job->n_spaces = 0;
  for (uint32_t t = 0; t < job->n_tables; t++) {
    uint32_t s = 0;
    while (s < job->n_spaces && job->space_keys[s] != job->tables[t].n_keys)
      s++;
    if (s == job->n_spaces)
      job->space_keys[job->n_spaces++] = job->tables[t].n_keys;
    job->tables[t].space = s;
  }
}

/* Every server holds a part of every table: a server with an empty shard
 * is sent pushes it drops ("the task writes nothing in this shard") and,
 * empty in every table, reports iterations ahead of the others (the
 * scheduler dropped its SHARD_REPORTs, the simulator stalled). So more
 * servers than the smallest table's keys is refused. */
static int check_servers(const struct dsana_job *job, char *err, size_t errlen) {
  uint32_t small = 0;
  for (uint32_t t = 1; t < job->n_tables; t++)
    if (job->tables[t].n_keys < job->tables[small].n_keys)
      small = t;
  if (job->info.n_servers <= job->tables[small].n_keys)
    return 0;
  snprintf(err, errlen,
           "--servers %u: more servers than the %llu keys of table '%s'; every server holds a part of every table "
           "(--servers %llu at most)",
           job->info.n_servers, (unsigned long long)job->tables[small].n_keys, job->tables[small].name,
           (unsigned long long)job->tables[small].n_keys);
  return DSANA_EUSAGE;
}

static int check_tables(struct dsana_job *job, char *err, size_t errlen) {
  if (job->n_tables == 0 || job->n_tasks == 0) {
    snprintf(err, errlen, "app declared no %s", job->n_tables == 0 ? "tables" : "tasks");
    return DSANA_EINVAL;
  }
  int rc = check_servers(job, err, errlen);
  if (rc)
    return rc;
  if (job->result_table == JOB_NONE) {
    snprintf(err, errlen, "app declared no result table");
    return DSANA_EINVAL;
  }
  for (uint32_t t = 0; t < job->n_tables; t++)
    if (job->tables[t].rule == DSANA_RULE_ASSIGN && (rc = check_assign(job, t, err, errlen)) != 0)
      return rc;
  struct job_range r;
  for (uint32_t t = 0; job->block_table != JOB_NONE && t < job->n_tasks; t++)
    if (!job_task_reads(job, t, job->block_table, &r)) {
      snprintf(err, errlen, "task %u does not read the block table '%s'", t, job->tables[job->block_table].name);
      return DSANA_EINVAL;
    }
  return 0;
}

int job_finalize(struct dsana_job *job, char *err, size_t errlen) {
  if (job->error_rc) {
    snprintf(err, errlen, "%s", job->error);
    return job->error_rc;
  }
  /* tasks declared again, fewer: ranges of the tasks gone have no index slot */
  for (size_t i = 0; i < job->n_decls; i++)
    if (job->decls[i].task != DSANA_ALL_TASKS && job->decls[i].task >= job->n_tasks) {
      snprintf(err, errlen, "ranges declared for task %u, but there are %u tasks", job->decls[i].task, job->n_tasks);
      return DSANA_EINVAL;
    }
  if (job->n_decls)
    qsort(job->decls, job->n_decls, sizeof *job->decls, decl_cmp);
  free(job->rd_off);
  free(job->wr_off);
  free(job->rd);
  free(job->wr);
  job->rd_off = job->wr_off = NULL;
  job->rd = job->wr = NULL;
  if (job->n_tasks == 0)
    return check_tables(job, err, errlen);
  int rc = index_kind(job, false, &job->rd_off, &job->rd);
  if (!rc)
    rc = index_kind(job, true, &job->wr_off, &job->wr);
  if (rc)
    return rc;
  assign_spaces(job);
  if ((rc = check_unique(job, job->rd_off, job->rd, "read", err, errlen)) != 0 ||
      (rc = check_unique(job, job->wr_off, job->wr, "write", err, errlen)) != 0)
    return rc;
  return check_tables(job, err, errlen);
}

static bool find_range(const uint32_t *off, const struct job_range *v, uint32_t t, uint32_t table,
                       struct job_range *r) {
  for (uint32_t i = off[t]; i < off[t + 1]; i++)
    if (v[i].table == table) {
      *r = v[i];
      return true;
    }
  return false;
}

bool job_task_reads(const struct dsana_job *job, uint32_t t, uint32_t table, struct job_range *r) {
  return t < job->n_tasks && job->rd_off && find_range(job->rd_off, job->rd, t, table, r);
}

bool job_task_writes(const struct dsana_job *job, uint32_t t, uint32_t table, struct job_range *r) {
  return t < job->n_tasks && job->wr_off && find_range(job->wr_off, job->wr, t, table, r);
}
