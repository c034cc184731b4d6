/* job.c - table and task declarations (the dsana_job_* API) and sharding. */
#include "runtime/job.h"

#include "runtime/keymask.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void job_init(struct dsana_job *job, uint32_t n_workers, uint32_t n_servers, uint32_t tasks_per_worker,
              const char *role) {
  memset(job, 0, sizeof *job);
  job->info.n_workers = n_workers;
  job->info.n_servers = n_servers;
  job->info.tasks_per_worker = tasks_per_worker;
  job->info.role = role;
}

void job_fini(struct dsana_job *job) {
  free(job->tasks);
  job->tasks = NULL;
  job->n_tasks = 0;
  for (uint32_t t = 0; t < DSANA_MAX_TABLES; t++) {
    free(job->unread[t]);
    job->unread[t] = NULL;
  }
}

int dsana_job_set_unread(struct dsana_job *job, uint32_t table, const uint64_t *unread_bits) {
  if (table >= job->n_tables || !unread_bits)
    return DSANA_EINVAL;
  uint64_t words = keymask_words(job->tables[table].n_keys);
  uint64_t *copy = malloc(words * sizeof *copy);
  if (!copy)
    return DSANA_ENOMEM;
  memcpy(copy, unread_bits, words * sizeof *copy);
  free(job->unread[table]);
  job->unread[table] = copy;
  return 0;
}

const char *dsana_job_error(const struct dsana_job *job) { return job->error[0] ? job->error : NULL; }

void dsana_job_get_info(const struct dsana_job *job, struct dsana_job_info *info) { *info = job->info; }

int dsana_job_add_table(struct dsana_job *job, const char *name, uint64_t n_keys, enum dsana_rule rule,
                        uint32_t *id) {
  if (job->n_tables >= DSANA_MAX_TABLES || n_keys == 0 || strlen(name) >= sizeof job->tables[0].name)
    return DSANA_EINVAL;
  if (job->max_keys && n_keys > job->max_keys) {
    snprintf(job->error, sizeof job->error, "table '%s' has %llu keys, more than --max-keys %llu", name,
             (unsigned long long)n_keys, (unsigned long long)job->max_keys);
    return DSANA_ERANGE;
  }
  struct dsana_table_decl *t = &job->tables[job->n_tables];
  snprintf(t->name, sizeof t->name, "%s", name);
  t->n_keys = n_keys;
  t->rule = rule;
  *id = job->n_tables++;
  return 0;
}

int dsana_job_set_tasks(struct dsana_job *job, uint32_t out_table, const struct dsana_task_decl *tasks,
                        uint32_t n_tasks) {
  if (out_table >= job->n_tables || n_tasks == 0 || job->tables[out_table].rule == DSANA_RULE_DERIVED)
    return DSANA_EINVAL;
  /* Tasks must partition the out table's keys in order: that is what lets
   * a server know which pushes complete an iteration of its shard. */
  uint64_t next = 0;
  for (uint32_t i = 0; i < n_tasks; i++) {
    if (tasks[i].lo != next || tasks[i].hi <= tasks[i].lo || !(tasks[i].cost > 0) || !isfinite(tasks[i].cost))
      return DSANA_EINVAL;
    next = tasks[i].hi;
  }
  if (next != job->tables[out_table].n_keys)
    return DSANA_EINVAL;
  struct dsana_task_decl *copy = malloc(sizeof *copy * n_tasks);
  if (!copy)
    return DSANA_ENOMEM;
  memcpy(copy, tasks, sizeof *copy * n_tasks);
  free(job->tasks);
  job->tasks = copy;
  job->n_tasks = n_tasks;
  job->out_table = out_table;
  return 0;
}

void dsana_job_set_convergence(struct dsana_job *job, double tol, uint32_t max_iter) {
  job->tol = tol;
  job->max_iter = max_iter;
}

int dsana_job_set_result_table(struct dsana_job *job, uint32_t table) {
  if (table >= job->n_tables)
    return DSANA_EINVAL;
  job->result_table = table;
  job->have_result = 1;
  return 0;
}

int job_validate(const struct dsana_job *job, char *err, size_t errlen) {
  if (job->n_tables == 0 || job->n_tasks == 0) {
    snprintf(err, errlen, "app declared no %s", job->n_tables == 0 ? "tables" : "tasks");
    return DSANA_EINVAL;
  }
  for (uint32_t t = 1; t < job->n_tables; t++)
    if (job->tables[t].n_keys != job->tables[0].n_keys) {
      /* Shards are cut once for all tables; see job.h. */
      snprintf(err, errlen, "table '%s' has %llu keys, '%s' %llu: tables must have equal sizes", job->tables[t].name,
               (unsigned long long)job->tables[t].n_keys, job->tables[0].name,
               (unsigned long long)job->tables[0].n_keys);
      return DSANA_EINVAL;
    }
  if (!job->have_result) {
    snprintf(err, errlen, "app declared no result table");
    return DSANA_EINVAL;
  }
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
