/* job.c - the dsana_job_* declarations apps make in setup(), and sharding
 * (job.h). Indexing and checking the declarations is in job_index.c. */
#include "runtime/core/job.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/core/keymask.h"
#include "util/memory/grow.h"

void job_init(struct dsana_job *job, uint32_t n_workers, uint32_t n_servers, uint32_t tasks_per_worker,
              const char *role) {
  memset(job, 0, sizeof *job);
  snprintf(job->role, sizeof job->role, "%s", role);
  job->info.n_workers = n_workers;
  job->info.n_servers = n_servers;
  job->info.tasks_per_worker = tasks_per_worker;
  job->info.role = job->role;
  job->result_table = JOB_NONE;
  job->block_table = JOB_NONE;
  job->n_sums = 8;
}

void job_fini(struct dsana_job *job) {
  free(job->tasks);
  free(job->decls);
  free(job->rd_off);
  free(job->wr_off);
  free(job->rd);
  free(job->wr);
  for (uint32_t t = 0; t < DSANA_MAX_TABLES; t++)
    free(job->tables[t].unread);
  memset(job, 0, sizeof *job);
}

const char *dsana_job_error(const struct dsana_job *job) { return job->error_rc ? job->error : NULL; }

int dsana_job_status(const struct dsana_job *job, const char *what, char *err, size_t errlen) {
  if (job->error_rc && errlen)
    snprintf(err, errlen, "%s%s%s", what ? what : "", what ? ": " : "", job->error);
  return job->error_rc;
}

void dsana_job_get_info(const struct dsana_job *job, struct dsana_job_info *info) { *info = job->info; }

static int job_refuse(struct dsana_job *job, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The first refusal is kept: its code, and its message for dsana_job_error. */
static int job_refuse(struct dsana_job *job, int code, const char *fmt, ...) {
  if (job->error_rc)
    return job->error_rc;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(job->error, sizeof job->error, fmt, ap);
  va_end(ap);
  job->error_rc = code;
  return code;
}

int dsana_job_fail(struct dsana_job *job, int code, const char *why) {
  return job_refuse(job, code ? code : DSANA_EINVAL, "%s", why ? why : dsana_strerror(code));
}

int dsana_job_add_table(struct dsana_job *job, const char *name, uint64_t n_keys, uint32_t width, enum dsana_rule rule,
                        uint32_t *id) {
  if (job->error_rc)
    return job->error_rc;
  if (job->n_tables >= DSANA_MAX_TABLES)
    return job_refuse(job, DSANA_EINVAL, "table '%s': more than %d tables", name, DSANA_MAX_TABLES);
  if (!name[0] || strlen(name) >= sizeof job->tables[0].name || n_keys == 0 || width == 0 || rule > DSANA_RULE_ISUM)
    return job_refuse(job, DSANA_EINVAL, "table '%s': bad name, size (%llu keys) or width (%u)", name,
                      (unsigned long long)n_keys, width);
  if ((job->max_keys && n_keys > job->max_keys) || n_keys > UINT64_MAX / 8 / width)
    return job_refuse(job, DSANA_ERANGE, "table '%s' has %llu keys, more than --max-keys %llu", name,
                      (unsigned long long)n_keys, (unsigned long long)job->max_keys);
  struct job_table *t = &job->tables[job->n_tables];
  snprintf(t->name, sizeof t->name, "%s", name);
  t->n_keys = n_keys;
  t->width = width;
  t->rule = rule;
  *id = job->n_tables++;
  return 0;
}

int dsana_job_add_table_id(struct dsana_job *job, uint32_t id, const char *name, uint64_t n_keys, uint32_t width,
                           enum dsana_rule rule) {
  if (!job->error_rc && id != job->n_tables)
    return job_refuse(job, DSANA_EINVAL, "table '%s': id %u out of order (ids go 0, 1, ... as declared: this is %u)",
                      name ? name : "", id, job->n_tables);
  uint32_t next;
  return dsana_job_add_table(job, name ? name : "", n_keys, width, rule, &next);
}

int dsana_job_set_tasks(struct dsana_job *job, const struct dsana_task_decl *tasks, uint32_t n_tasks) {
  if (job->error_rc)
    return job->error_rc;
  if (n_tasks == 0 || n_tasks == UINT32_MAX)
    return job_refuse(job, DSANA_EINVAL, "%u tasks", n_tasks);
  for (uint32_t i = 0; i < n_tasks; i++)
    if (tasks[i].hi < tasks[i].lo || !(tasks[i].cost > 0) || !isfinite(tasks[i].cost))
      return job_refuse(job, DSANA_EINVAL, "task %u: reversed range or cost not > 0", i);
  struct dsana_task_decl *copy = malloc(sizeof *copy * n_tasks);
  if (!copy)
    return job_refuse(job, DSANA_ENOMEM, "%u tasks: out of memory", n_tasks);
  memcpy(copy, tasks, sizeof *copy * n_tasks);
  free(job->tasks);
  job->tasks = copy;
  job->n_tasks = n_tasks;
  return 0;
}

static int job_declare(struct dsana_job *job, uint32_t task, uint32_t table, uint64_t lo, uint64_t hi, bool write) {
  if (job->error_rc)
    return job->error_rc;
  if (table >= job->n_tables)
    return job_refuse(job, DSANA_EINVAL, "no table %u", table);
  if (task != DSANA_ALL_TASKS && task >= job->n_tasks)
    return job_refuse(job, DSANA_EINVAL, "no task %u (declare the tasks first)", task);
  if (lo > hi || hi > job->tables[table].n_keys)
    return job_refuse(job, DSANA_EINVAL, "table '%s': range [%llu, %llu) outside the table", job->tables[table].name,
                      (unsigned long long)lo, (unsigned long long)hi);
  if (write && job->tables[table].rule == DSANA_RULE_DERIVED)
    return job_refuse(job, DSANA_EINVAL, "table '%s' is DERIVED: tasks cannot write it", job->tables[table].name);
  if (job->tables[table].rule == DSANA_RULE_STATE)
    return job_refuse(job, DSANA_EINVAL, "table '%s' is a server's STATE: tasks cannot %s it", job->tables[table].name,
                      write ? "write" : "read");
  struct job_decl *d = grow_for_one(job->decls, &job->cap_decls, job->n_decls, sizeof *d, 64);
  if (!d)
    return job_refuse(job, DSANA_ENOMEM, "table '%s': out of memory for the ranges", job->tables[table].name);
  job->decls = d;
  job->decls[job->n_decls++] = (struct job_decl){.task = task, .table = table, .lo = lo, .hi = hi, .write = write};
  return 0;
}

int dsana_job_task_writes(struct dsana_job *job, uint32_t task, uint32_t table, uint64_t lo, uint64_t hi) {
  return job_declare(job, task, table, lo, hi, true);
}

int dsana_job_task_reads(struct dsana_job *job, uint32_t task, uint32_t table, uint64_t lo, uint64_t hi) {
  return job_declare(job, task, table, lo, hi, false);
}

int dsana_job_set_unread(struct dsana_job *job, uint32_t table, const uint64_t *unread_bits) {
  if (job->error_rc)
    return job->error_rc;
  if (table >= job->n_tables || !unread_bits)
    return job_refuse(job, DSANA_EINVAL, "unread keys of table %u: no such table, or no bits", table);
  uint64_t words = keymask_words(job->tables[table].n_keys);
  uint64_t *copy = malloc(words * sizeof *copy);
  if (!copy)
    return job_refuse(job, DSANA_ENOMEM, "table '%s': out of memory for its unread keys", job->tables[table].name);
  memcpy(copy, unread_bits, words * sizeof *copy);
  free(job->tables[table].unread);
  job->tables[table].unread = copy;
  return 0;
}

int dsana_job_set_block_table(struct dsana_job *job, uint32_t table) {
  if (job->error_rc)
    return job->error_rc;
  if (table >= job->n_tables)
    return job_refuse(job, DSANA_EINVAL, "block table: no table %u", table);
  job->block_table = table;
  return 0;
}

int dsana_job_set_result_table(struct dsana_job *job, uint32_t table) {
  if (job->error_rc)
    return job->error_rc;
  if (table >= job->n_tables)
    return job_refuse(job, DSANA_EINVAL, "result table: no table %u", table);
  job->result_table = table;
  return 0;
}

int dsana_job_set_sums(struct dsana_job *job, uint32_t n) {
  if (job->error_rc)
    return job->error_rc;
  if (n > DSANA_MAX_SUMS)
    return job_refuse(job, DSANA_EINVAL, "%u sums, at most %d", n, DSANA_MAX_SUMS);
  job->n_sums = n;
  return 0;
}

void dsana_job_set_convergence(struct dsana_job *job, double tol, uint32_t max_iter) {
  job->tol = tol;
  job->max_iter = max_iter;
}

int dsana_job_add_fact(struct dsana_job *job, const char *name, double value) {
  if (job->error_rc)
    return job->error_rc;
  if (!name || !name[0] || job->n_facts >= DSANA_MAX_FACTS)
    return job_refuse(job, DSANA_EINVAL, "fact '%s': no name, or more than %d facts", name ? name : "",
                      DSANA_MAX_FACTS);
  job->facts[job->n_facts].name = name;
  job->facts[job->n_facts++].value = value;
  return 0;
}

void shard_range(uint64_t n_keys, uint32_t n_servers, uint32_t s, uint64_t *lo, uint64_t *hi) {
  *lo = (uint64_t)(((unsigned __int128)n_keys * s) / n_servers);
  *hi = (uint64_t)(((unsigned __int128)n_keys * (s + 1)) / n_servers);
}

uint32_t shard_of(uint64_t n_keys, uint32_t n_servers, uint64_t k) {
  /* Start from the proportional guess and correct by at most one step. */
  uint32_t s = (uint32_t)(((unsigned __int128)k * n_servers) / n_keys);
  uint64_t lo, hi;
  for (;;) {
    shard_range(n_keys, n_servers, s, &lo, &hi);
    if (k < lo)
      s--;
    else if (k >= hi)
      s++;
    else
      return s;
  }
}
