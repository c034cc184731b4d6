/*
 * launch.h - start dsana jobs from a program: the whole dsana command with
 * the caller's apps (dsana_main), or one job from a struct of options
 * (dsana_run) that returns its status and error as strings instead of
 * printing them. Apps are struct dsana_app (dsana.h): the caller's own or
 * the built-in ones (dsana_builtin_app). Either way the job is the one
 * `dsana APP ...` runs, option for option, so its results are the
 * command's, bit for bit.
 *
 * Both calls use process-wide state (the app registry, getopt, stderr
 * during dsana_run, the launcher's signal handling): one call at a time
 * per process; calls one after another are fine.
 */
#ifndef DSANA_LAUNCH_H
#define DSANA_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/dsana.h"
#include "dsana/export.h"

/* The built-in apps (pagerank, logreg, kmeans, mlp), NULL-terminated,
 * static storage. */
DSANA_API const struct dsana_app *const *dsana_builtin_apps(void);
/* The built-in app called `name`, or NULL. */
DSANA_API const struct dsana_app *dsana_builtin_app(const char *name);

/* The dsana command (`dsana --help` lists what it does) knowing the n apps
 * of `apps` instead of the built-in ones (apps NULL or n 0: the built-in
 * ones); at most 64, each checked against the app contract before it runs.
 * argv as main() gets it: argv[0] the program, then what follows `dsana`,
 * e.g. {"prog", "myapp", "input.txt", "--workers", "3", NULL}. Returns the
 * command's exit code: 0 done, 1 failed, 2 bad usage or input, 3 done but a
 * report (metrics, trace, checkpoint) not written. It prints what the
 * command prints; a stop signal (SIGINT, SIGTERM, SIGHUP) during a job ends
 * it and then kills the process with that signal, as the command dies of
 * it. Meant to be main(): it raises the descriptor limit, tunes malloc for
 * large transfers and retitles roles in ps through argv's memory (argv's
 * strings are overwritten; pass main's own argv). */
DSANA_API int dsana_main(int argc, char **argv, const struct dsana_app *const *apps, size_t n);

/* ---------------------------------------------------------- one job */

#define DSANA_RUN_OPTIONS_VERSION 1

/* What `dsana APP ...` would be given. Fill with dsana_run_options_init(),
 * then set what differs; strings are borrowed for the call. */
struct dsana_run_options {
  uint32_t version;          /* DSANA_RUN_OPTIONS_VERSION (set by init) */
  uint32_t workers;          /* --workers; 0: the scenario's count, else 1 using every core */
  uint32_t servers;          /* --servers; 0: 1 */
  uint32_t threads;          /* --threads per worker; 0: the cores / the workers */
  const char *mode;          /* --mode "dsana" or "bsp"; NULL: dsana */
  const char *scenario_path; /* --scenario FILE (emulated cluster); NULL: none */
  const char *scenario_json; /* or the scenario as JSON text (put in a private temporary file
                                for the run); NULL: none. Not both. */
  double tol;                /* the app's --tol; NaN (init's): the app's default */
  uint32_t max_iter;         /* the app's --max-iter; 0: the app's default */
  const char *metrics_path;  /* --metrics FILE (JSON lines); NULL: none */
  /* Any other argument, as on the command line after `dsana APP`: the app's
   * positional arguments and options, and runtime options, e.g.
   * {"g.txt", "--out", "ranks.tsv", "--isolate", "processes"}. */
  const char *const *args;
  size_t n_args;
  /* false (init's): nothing on stdout or stderr from dsana (--quiet, and
   * what the job says on stderr, warnings included, goes to the result);
   * true: print as the command does (the table, the summary, messages).
   * Results an app writes to stdout (e.g. --out -) go there either way. */
  bool print;
};

/* How the job ended. */
struct dsana_run_result {
  int status;      /* 0, or a negative DSANA_E* code (dsana_strerror) */
  int exit_code;   /* what `dsana APP ...` exits with: 0, 1, 2 or 3 (as dsana_main) */
  char error[512]; /* why it failed, one line (exit_code 3: which report failed); "" when all went well */
  char *log;       /* with print false: all the job said on stderr (warnings too), NUL-terminated,
                    * or NULL when nothing; owned by the result (dsana_run_result_fini) */
  /* The scheduler's summary, when it ran in this process (roles as
   * threads, the default) and reached the end: has_summary true. */
  bool has_summary;
  uint32_t iterations;
  double residual;
  bool converged; /* the app's reduce() said so (else the iteration cap stopped it) */
  double total_s; /* all iterations, wall time */
};

/* Defaults: version set, everything else 0/NULL/false, tol NaN. */
DSANA_API void dsana_run_options_init(struct dsana_run_options *o);

/* Run one job of `app` (the caller's or a built-in one) on this machine,
 * its roles as threads of this process unless args say --isolate
 * processes (forked; then has_summary stays false). Blocks until the job
 * ends. Fills *res (always: zeroed first) and returns res->status. Never
 * exits the process: a bad option, a bad input or a failed role is a
 * status, an exit code and an error line; a stop signal during the job
 * ends it with DSANA_EINTR. Without print, stderr (descriptor 2) points at
 * a private file in memory while the job runs: output from other threads of the
 * process meanwhile lands in res->log too. The app state is created and
 * destroyed inside the call. Free res->log with dsana_run_result_fini.
 * Unlike dsana_main, it leaves malloc's settings alone: mallopt() would
 * change them for the rest of the caller's process (glibc never adapts
 * its mmap threshold again once it is set). */
DSANA_API int dsana_run(const struct dsana_app *app, const struct dsana_run_options *o, struct dsana_run_result *res);

/* Free what a result owns (its log); the result may be reused. */
DSANA_API void dsana_run_result_fini(struct dsana_run_result *res);

#endif /* DSANA_LAUNCH_H */
