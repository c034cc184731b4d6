/*
 * job.h - the runtime's view of a job: the tables and tasks an app declared
 * in setup(), plus how keys are sharded over servers.
 *
 * Sharding: server i of S owns keys [i*N/S, (i+1)*N/S) of every table
 * (computed in 128-bit arithmetic), so the ranges cover 0..N-1 exactly once.
 */
#ifndef DSANA_RUNTIME_JOB_H
#define DSANA_RUNTIME_JOB_H

#include <stdint.h>

#include "dsana/dsana.h"

struct dsana_job {
  struct dsana_job_info info;
  struct dsana_table_decl tables[DSANA_MAX_TABLES];
  uint32_t n_tables;
  struct dsana_task_decl *tasks; /* owned */
  uint32_t n_tasks;
  uint32_t out_table;
  uint32_t result_table;
  int have_result;
  uint64_t max_keys; /* --max-keys: larger tables are refused before allocation */
  char error[160];   /* why the last declaration was refused */
  double tol;        /* dsana_job_set_convergence, for progress only */
  uint32_t max_iter;
  uint64_t *unread[DSANA_MAX_TABLES]; /* owned: keys no task reads (keymask.h), NULL = all read */
};

void job_init(struct dsana_job *job, uint32_t n_workers, uint32_t n_servers, uint32_t tasks_per_worker,
              const char *role);
void job_fini(struct dsana_job *job);
/* Checks after setup(): at least one table and one task, a result table. */
int job_validate(const struct dsana_job *job, char *err, size_t errlen);

/* Key range [*lo, *hi) of server `s` of `n_servers` for a table of n keys. */
void shard_range(uint64_t n_keys, uint32_t n_servers, uint32_t s, uint64_t *lo, uint64_t *hi);
/* The server owning key k. */
uint32_t shard_of(uint64_t n_keys, uint32_t n_servers, uint64_t k);

#endif
