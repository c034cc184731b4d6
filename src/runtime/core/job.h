/*
 * job.h - the runtime's view of a job: the tables and tasks an app
 * declared in setup() (the dsana_job_* API of dsana.h), checked and
 * indexed, plus how keys are sharded over servers.
 *
 * Sharding: server i of S owns keys [i*N/S, (i+1)*N/S) of a table of N
 * keys (128-bit arithmetic), so tables of equal size are sharded alike.
 * Tables of equal key count form a "key space": finish() and update() see
 * one key space at a time, chunks are cut per key space.
 *
 * After setup(), job_finalize() expands DSANA_ALL_TASKS declarations,
 * indexes each task's read and write ranges, and checks the declarations
 * (ranges inside tables, writes only into ASSIGN or SUM tables, disjoint
 * ASSIGN ranges, a block table every task reads), naming the table and the
 * tasks in the message. A job is built once per role and then read-only.
 */
#ifndef DSANA_RUNTIME_JOB_H
#define DSANA_RUNTIME_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/dsana.h"

#define JOB_NONE UINT32_MAX

struct job_table {
  char name[32];
  uint64_t n_keys;
  uint32_t width;
  enum dsana_rule rule;
  uint32_t space;   /* key space (tables of equal n_keys) */
  uint64_t *unread; /* owned: keys no task reads (keymask.h), NULL = all read */
};

/* A range of one table, as declared for a task. */
struct job_range {
  uint32_t table;
  uint64_t lo, hi;
};

struct job_decl {
  uint32_t task, table;
  uint64_t lo, hi;
  bool write;
};

struct dsana_job {
  struct dsana_job_info info;
  char role[16];
  struct job_table tables[DSANA_MAX_TABLES];
  uint32_t n_tables;
  struct dsana_task_decl *tasks; /* owned */
  uint32_t n_tasks;
  struct job_decl *decls; /* as declared, until finalized */
  size_t n_decls, cap_decls;
  /* after job_finalize: per task t, its reads rd[rd_off[t] .. rd_off[t+1])
   * and writes wr[wr_off[t] .. wr_off[t+1]], in table order */
  uint32_t *rd_off, *wr_off;
  struct job_range *rd, *wr;
  uint64_t space_keys[DSANA_MAX_TABLES]; /* n_keys of each key space */
  uint32_t n_spaces;
  uint32_t result_table, block_table; /* JOB_NONE when not declared */
  uint32_t n_sums;
  uint64_t max_keys; /* --max-keys: larger tables are refused before allocation */
  double tol;        /* dsana_job_set_convergence, for progress only */
  uint32_t max_iter;
  struct {
    const char *name; /* static, the app's */
    double value;
  } facts[DSANA_MAX_FACTS]; /* dsana_job_add_fact: the input, for the summary */
  uint32_t n_facts;
  int error_rc;    /* the first refused declaration's DSANA_E* code (0: none); later ones are no-ops */
  char error[200]; /* and why it was refused */
};

void job_init(struct dsana_job *job, uint32_t n_workers, uint32_t n_servers, uint32_t tasks_per_worker,
              const char *role);
void job_fini(struct dsana_job *job);
/* Index and check the declarations after setup(); err gets one line. */
int job_finalize(struct dsana_job *job, char *err, size_t errlen);

/* Task t's declared range of `table` to read (write): true and *r, or
 * false when it has none. */
bool job_task_reads(const struct dsana_job *job, uint32_t t, uint32_t table, struct job_range *r);
bool job_task_writes(const struct dsana_job *job, uint32_t t, uint32_t table, struct job_range *r);

/* Key range [*lo, *hi) of server `s` of `n_servers` for a table of n keys. */
void shard_range(uint64_t n_keys, uint32_t n_servers, uint32_t s, uint64_t *lo, uint64_t *hi);
/* The server owning key k. */
uint32_t shard_of(uint64_t n_keys, uint32_t n_servers, uint64_t k);

#endif
