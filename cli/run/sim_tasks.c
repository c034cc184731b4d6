/* sim_tasks.c - the --tasks FILE job of `dsana sim` (see sim_tasks.h). */
#include "cli/run/sim_tasks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct st_app {
  char path[1024];
  uint32_t max_iter;
  double tol;
  struct dsana_task_decl *tasks;
  uint32_t n;
  uint64_t keys;
};

static const struct dsana_app_option st_options[] = {
    {"max-iter", "N", "iterations to simulate", DSANA_OPT_REPORT, "10", .type = DSANA_VALUE_UINT,
     DSANA_FIELD(struct st_app, max_iter), .min = 1, .max = 1000000},
    {"tol", "TOL", "accepted for symmetry with the apps; the simulator has no convergence", DSANA_OPT_PARAM, NULL,
     .type = DSANA_VALUE_DOUBLE, DSANA_FIELD(struct st_app, tol), .max = INFINITY},
    {NULL}};

static int st_create(void **out) {
  struct st_app *a = calloc(1, sizeof *a);
  if (!a)
    return DSANA_ENOMEM;
  int rc = dsana_app_set_defaults(&sim_tasks_app, a); /* --max-iter */
  if (rc) {
    free(a);
    return rc;
  }
  *out = a;
  return 0;
}

static void st_destroy(void *app) {
  struct st_app *a = app;
  if (a)
    free(a->tasks);
  free(a);
}

static int st_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  struct st_app *a = app;
  if (name)
    return dsana_app_parse_option(st_options, a, name, value, err, errlen);
  if (!a->path[0] && strlen(value) < sizeof a->path) {
    snprintf(a->path, sizeof a->path, "%s", value);
    return 0;
  }
  snprintf(err, errlen, "'%s': one tasks file only", value);
  return DSANA_EINVAL;
}

/* One line: "COST [KEYS]" into *cost, *keys; or a blank/comment (*skip). */
static int parse_line(char *s, double *cost, uint64_t *keys, bool *skip, const char **why) {
  while (*s == ' ' || *s == '\t')
    s++;
  *skip = *s == '\0' || *s == '\n' || *s == '\r' || *s == '#';
  if (*skip)
    return 0;
  char *end;
  errno = 0;
  *cost = strtod(s, &end);
  *why = "expected a cost: a finite number > 0";
  if (end == s || errno || !isfinite(*cost) || !(*cost > 0))
    return DSANA_EFORMAT;
  s = end;
  while (*s == ' ' || *s == '\t')
    s++;
  *keys = 1;
  if (*s >= '0' && *s <= '9') {
    unsigned long long k = strtoull(s, &end, 10);
    *why = "expected KEYS: an integer in [1, 2^40]";
    if (errno || k < 1 || k > (1ull << 40))
      return DSANA_EFORMAT;
    *keys = k;
    s = end;
  }
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
    s++;
  *why = "expected 'COST [KEYS]' and nothing else";
  return *s == '\0' ? 0 : DSANA_EFORMAT;
}

static int add_task(struct st_app *a, double cost, uint64_t keys) {
  if (a->n == UINT32_MAX - 1 || a->keys + keys > (1ull << 40))
    return DSANA_ERANGE;
  struct dsana_task_decl *t = realloc(a->tasks, sizeof *t * (a->n + 1));
  if (!t)
    return DSANA_ENOMEM;
  a->tasks = t;
  t[a->n++] = (struct dsana_task_decl){.lo = a->keys, .hi = a->keys + keys, .cost = cost};
  a->keys += keys;
  return 0;
}

static int st_prepare(void *app, char *err, size_t errlen) {
  struct st_app *a = app;
  FILE *f = a->path[0] ? fopen(a->path, "r") : NULL;
  if (!f) {
    snprintf(err, errlen, "%s: %s", a->path[0] ? a->path : "--tasks", a->path[0] ? strerror(errno) : "no file");
    return DSANA_EIO;
  }
  char line[4096];
  int rc = 0;
  for (unsigned long ln = 1; !rc && fgets(line, sizeof line, f); ln++) {
    double cost;
    uint64_t keys;
    bool skip;
    const char *why = "";
    if (!strchr(line, '\n') && !feof(f)) {
      why = "line too long";
      rc = DSANA_EFORMAT;
    } else {
      rc = parse_line(line, &cost, &keys, &skip, &why);
    }
    if (!rc && !skip && (rc = add_task(a, cost, keys)) != 0)
      why = rc == DSANA_ERANGE ? "too many tasks or keys" : "out of memory";
    if (rc)
      snprintf(err, errlen, "%s:%lu: %s", a->path, ln, why);
  }
  fclose(f);
  if (!rc && a->n == 0) {
    snprintf(err, errlen, "%s: no tasks", a->path);
    rc = DSANA_EFORMAT;
  }
  return rc;
}

static int st_setup(void *app, struct dsana_job *job, char *err, size_t errlen) {
  struct st_app *a = app;
  enum { out, in }; /* table ids */
  dsana_job_add_table_id(job, out, "out", a->keys, 1, DSANA_RULE_ASSIGN);
  dsana_job_add_table_id(job, in, "in", a->keys, 1, DSANA_RULE_DERIVED);
  dsana_job_set_tasks(job, a->tasks, a->n);
  for (uint32_t t = 0; t < a->n; t++)
    dsana_job_task_writes(job, t, out, a->tasks[t].lo, a->tasks[t].hi);
  dsana_job_task_reads(job, DSANA_ALL_TASKS, in, 0, a->keys);
  dsana_job_set_block_table(job, in);
  dsana_job_set_result_table(job, out);
  dsana_job_set_sums(job, 2);
  dsana_job_set_convergence(job, a->tol, a->max_iter);
  return dsana_job_status(job, a->path, err, errlen);
}

/* The simulator never runs a hook. These say what the job's tasks are, as
 * a real app's hooks do: like PageRank's, run whole or block by block over
 * the table they read. */
static int st_never_runs(void *app, struct dsana_task_ctx *ctx) {
  (void)app, (void)ctx;
  return DSANA_ENOTSUP;
}

static int st_block_never_runs(void *app, struct dsana_task_ctx *ctx, uint64_t chunk) {
  (void)app, (void)ctx, (void)chunk;
  return DSANA_ENOTSUP;
}

static int st_reduce_never_runs(void *app, struct dsana_reduce_ctx *ctx) {
  (void)app, (void)ctx;
  return DSANA_ENOTSUP;
}

const struct dsana_app sim_tasks_app = {
    .name = "sim",
    .summary = "a job of task costs (dsana sim --tasks FILE)",
    .args = "--tasks FILE",
    .options = st_options,
    .create = st_create,
    .destroy = st_destroy,
    .set_option = st_set_option,
    .prepare = st_prepare,
    .setup = st_setup,
    .run_task = st_never_runs,
    .task_block = st_block_never_runs,
    .reduce = st_reduce_never_runs,
};
