/*
 * dsana_run.c - one job from a struct of options (dsana/launch.h): the
 * options become the command line `dsana APP ...` would get, and the job
 * runs through the command's own path (cmd_app_job, cli/run/cmd_run.h), so
 * its results are the command's. What it says on stderr is kept for the
 * caller (cli/output/capture.h) unless the caller asks to see it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/core/cli_apps.h"
#include "cli/core/exit_codes.h"
#include "cli/output/capture.h"
#include "cli/run/cmd_run.h"
#include "dsana/launch.h"
#include "util/text/log.h"
#include "util/text/status.h"

/* The command line: the app's name, the options set, the caller's
 * arguments; at most this many words. */
#define RUN_MAX_WORDS 4096

struct run_argv {
  char *word[RUN_MAX_WORDS + 1];
  char num[8][32]; /* the numbers' text */
  int n, n_num;
  char scenario[64]; /* the temporary file of scenario_json, "" if none */
};

static void add_word(struct run_argv *a, const char *w) {
  if (a->n < RUN_MAX_WORDS)
    a->word[a->n++] = (char *)w; /* getopt reorders the pointers, never the strings */
}

static void add_opt(struct run_argv *a, const char *name, const char *value) {
  if (value) {
    add_word(a, name);
    add_word(a, value);
  }
}

static void add_num(struct run_argv *a, const char *name, const char *fmt, double v) {
  char *t = a->num[a->n_num++];
  snprintf(t, sizeof a->num[0], fmt, v);
  add_opt(a, name, t);
}

/* scenario_json into a private file (mode 0600) for --scenario. */
static int write_scenario(struct run_argv *a, const char *json, char *err, size_t errlen) {
  const char *dir = getenv("TMPDIR");
  snprintf(a->scenario, sizeof a->scenario, "%s/dsana-scenario-XXXXXX.json",
           dir && dir[0] && strlen(dir) < 32 ? dir : "/tmp");
  int fd = mkstemps(a->scenario, 5);
  size_t len = strlen(json);
  bool ok = fd >= 0 && write(fd, json, len) == (ssize_t)len;
  if (fd >= 0 && close(fd) != 0)
    ok = false;
  if (!ok) {
    snprintf(err, errlen, "dsana_run: cannot write scenario_json to a temporary file %s", a->scenario);
    if (fd >= 0)
      unlink(a->scenario);
    a->scenario[0] = '\0';
    return DSANA_EIO;
  }
  return 0;
}

static int build_argv(const struct dsana_app *app, const struct dsana_run_options *o, struct run_argv *a, char *err,
                      size_t errlen) {
  memset(a, 0, sizeof *a);
  if (o->scenario_path && o->scenario_json) {
    snprintf(err, errlen, "dsana_run: scenario_path and scenario_json both given (give one)");
    return DSANA_EUSAGE;
  }
  if (o->n_args > RUN_MAX_WORDS - 32) {
    snprintf(err, errlen, "dsana_run: %zu args, at most %d", o->n_args, RUN_MAX_WORDS - 32);
    return DSANA_EUSAGE;
  }
  if (o->scenario_json && write_scenario(a, o->scenario_json, err, errlen) != 0)
    return DSANA_EIO;
  add_word(a, app->name);
  if (o->workers)
    add_num(a, "--workers", "%.0f", o->workers);
  if (o->servers)
    add_num(a, "--servers", "%.0f", o->servers);
  if (o->threads)
    add_num(a, "--threads", "%.0f", o->threads);
  add_opt(a, "--mode", o->mode);
  add_opt(a, "--scenario", o->scenario_json ? a->scenario : o->scenario_path);
  if (!isnan(o->tol))
    add_num(a, "--tol", "%.17g", o->tol);
  if (o->max_iter)
    add_num(a, "--max-iter", "%.0f", o->max_iter);
  add_opt(a, "--metrics", o->metrics_path);
  if (!o->print)
    add_word(a, "--quiet");
  for (size_t i = 0; i < o->n_args; i++)
    add_word(a, o->args[i] ? o->args[i] : "");
  a->word[a->n] = NULL;
  return 0;
}

/* The job, with the registry holding app alone; *out its report. */
static int run_app(const struct dsana_app *app, const struct dsana_run_options *o, struct dsana_run_result *res) {
  static struct run_argv a; /* 33 KiB: one job at a time per process */
  if (cli_check_app(app) != 0) {
    res->exit_code = CLI_EXIT_FAIL;
    return DSANA_EINVAL;
  }
  int rc = build_argv(app, o, &a, res->error, sizeof res->error);
  if (rc) {
    res->exit_code = cli_exit_code(rc);
    return rc;
  }
  struct cli_outcome out;
  cli_use_apps(&app, 1);
  rc = cmd_app_job(app, a.n, a.word, false, &out);
  cli_use_apps(NULL, 0);
  if (a.scenario[0])
    unlink(a.scenario);
  res->exit_code = rc == DSANA_EINTR ? CLI_EXIT_FAIL : cli_exit_code(rc);
  res->has_summary = out.summary.summarized;
  res->iterations = out.summary.iterations;
  res->residual = out.summary.residual;
  res->converged = out.summary.converged;
  res->total_s = out.summary.total_s;
  return rc;
}

/* The error line: set already (by dsana_run itself), else the first error
 * a role logged, else the first line said that is not a warning, else the
 * code's words. */
static void explain(struct dsana_run_result *res) {
  if (res->error[0] || (res->status == 0 && res->exit_code == 0))
    return;
  log_first_error(res->error, sizeof res->error);
  if (!res->error[0] && res->log)
    capture_first_error(res->log, res->error, sizeof res->error);
  if (!res->error[0])
    snprintf(res->error, sizeof res->error, "%s",
             res->status ? dsana_strerror(res->status) : "a report (metrics, trace or checkpoint) was not written");
}

void dsana_run_options_init(struct dsana_run_options *o) {
  memset(o, 0, sizeof *o);
  o->version = DSANA_RUN_OPTIONS_VERSION;
  o->tol = NAN;
}

int dsana_run(const struct dsana_app *app, const struct dsana_run_options *o, struct dsana_run_result *res) {
  memset(res, 0, sizeof *res);
  if (!app || !o || o->version != DSANA_RUN_OPTIONS_VERSION) {
    snprintf(res->error, sizeof res->error, "dsana_run: %s",
             !app ? "no app" : "options not from dsana_run_options_init");
    res->exit_code = CLI_EXIT_USAGE;
    return res->status = DSANA_EINVAL;
  }
  struct capture cap;
  bool captured = !o->print && capture_begin(&cap) == 0;
  log_reset();
  status_reset();
  res->status = run_app(app, o, res);
  if (captured)
    capture_end(&cap, &res->log);
  explain(res);
  return res->status;
}

void dsana_run_result_fini(struct dsana_run_result *res) {
  free(res->log);
  res->log = NULL;
}
