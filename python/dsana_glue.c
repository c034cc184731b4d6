/*
 * dsana_glue.c - runs a dsana job for the Python extension the way
 * cli/cmd_run.c does (dsana_glue.h): parse the arguments with the CLI's
 * parser, run every role as a thread (cmd_app_run_local), and take the
 * result table from the app's output hook, which the scheduler calls in
 * this process. The CLI reports a refusal as one line on stderr: while a
 * job runs, stderr (the C stream; the runtime's logs write to the
 * descriptor directly) goes to a memory stream, whose last line becomes
 * the Python exception's message.
 */
#define _GNU_SOURCE /* open_memstream */
#include "dsana_glue.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_apps.h"
#include "cli/cmd_run.h"
#include "cli/opts.h"
#include "dsana/dsana.h"
#include "runtime/core/config.h"

static pthread_mutex_t glue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct glue_result *glue_capture; /* the running job's, under glue_lock */

/* The scheduler's output hook: keep a copy of the result table. */
static int glue_output(void *app, const double *values, uint64_t n, uint32_t width, const struct dsana_run_summary *run,
                       char *err, size_t errlen) {
  struct glue_result *r = glue_capture;
  (void)app;
  r->values = malloc(n * width * sizeof *values + 1);
  if (!r->values) {
    snprintf(err, errlen, "out of memory for the result (%llu values)", (unsigned long long)(n * width));
    return DSANA_ENOMEM;
  }
  memcpy(r->values, values, n * width * sizeof *values);
  r->n_keys = n;
  r->width = width;
  r->iters = run->iters;
  r->converged = run->converged;
  r->residual = run->residual;
  return 0;
}

/* Split what the run printed: warnings into warn, the last other line
 * into err. */
static void glue_split(const char *text, char *err, size_t errlen, char *warn, size_t warnlen) {
  size_t wl = 0;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len && memmem(p, len, ": warning: ", 11)) {
      if (wl + len + 2 < warnlen)
        wl += (size_t)snprintf(warn + wl, warnlen - wl, "%.*s\n", (int)len, p);
    } else if (len) {
      snprintf(err, errlen, "%.*s", (int)len, p);
    }
    p += len + (nl ? 1 : 0);
  }
}

static int glue_parse_and_run(int argc, char **argv, struct dsana_app *wrapped) {
  struct cli_run *r = malloc(sizeof *r); /* large: the run's configuration */
  if (!r)
    return DSANA_ENOMEM;
  int rc = cli_parse_run(wrapped, argc, argv, r);
  if (!rc && r->help) {
    fprintf(stderr, "dsana %s: --help is not a job\n", argv[0]);
    rc = DSANA_EUSAGE;
  }
  if (!rc) {
    r->cfg.isolate = ISOLATE_THREADS; /* the result comes back through memory */
    rc = cmd_app_run_local(r);
  }
  wrapped->destroy(r->app_state);
  free(r);
  return rc;
}

int glue_run(int argc, char **argv, struct glue_result *res, char *err, size_t errlen, char *warn, size_t warnlen) {
  const struct dsana_app *app = argc > 0 ? cli_find_app(argv[0]) : NULL;
  memset(res, 0, sizeof *res);
  err[0] = warn[0] = '\0';
  if (!app) {
    snprintf(err, errlen, "dsana: unknown app '%s'", argc > 0 ? argv[0] : "");
    return DSANA_EUSAGE;
  }
  struct dsana_app wrapped = *app;
  wrapped.output = glue_output;
  char *text = NULL;
  size_t len = 0;
  pthread_mutex_lock(&glue_lock);
  glue_capture = res;
  fflush(stderr);
  FILE *saved = stderr, *mem = open_memstream(&text, &len);
  if (mem)
    stderr = mem;
  int rc = glue_parse_and_run(argc, argv, &wrapped);
  if (mem) {
    fflush(mem);
    stderr = saved;
    fclose(mem);
  }
  glue_capture = NULL;
  pthread_mutex_unlock(&glue_lock);
  if (text)
    glue_split(text, err, errlen, warn, warnlen);
  free(text);
  if (!rc && !res->values) {
    snprintf(err, errlen, "dsana %s: the job ended without a result", argv[0]);
    rc = DSANA_ESTATE;
  }
  if (rc && !err[0])
    snprintf(err, errlen, "dsana %s: %s", argv[0], dsana_strerror(rc));
  if (rc) {
    free(res->values);
    res->values = NULL;
  }
  return rc;
}
