/*
 * dsana_glue.h - the one place the Python extension (_dsana.c) starts a
 * dsana job: through libdsana's public launch call (dsana_run), so a job
 * from Python is the job `dsana APP ARGS` runs, with the same checks,
 * messages and results.
 */
#ifndef DSANA_PYTHON_GLUE_H
#define DSANA_PYTHON_GLUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a job handed to its app's output hook: the result table, copied. */
struct glue_result {
  double *values; /* n_keys * width, malloc'd: free() */
  uint64_t n_keys;
  uint32_t width;
  uint32_t iters;
  bool converged;
  double residual;
};

/* Run app `argv[0]` with the command-line arguments argv[1..argc), every
 * role a thread of this process. One job at a time per process (a second
 * caller waits). Returns 0 with *res filled, or a negative DSANA_E* code
 * (DSANA_EINTR: Ctrl-C stopped it) with the job's error line (dsana_run's) in
 * err, as the CLI says it, without a newline. Lines the run printed as
 * warnings go, newline-separated, to warn (may be cut). With `print`, the
 * job prints as the command does instead (its table and progress line on
 * stdout and stderr, warnings on stderr, none in warn). Must be called
 * without the GIL: it blocks until the job ends. */
int glue_run(int argc, char **argv, bool print, struct glue_result *res, char *err, size_t errlen, char *warn,
             size_t warnlen);

#endif
