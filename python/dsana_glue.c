/*
 * dsana_glue.c - runs a dsana job for the Python extension through
 * libdsana's public launch call (dsana/launch.h, dsana_run): the job is
 * the one `dsana APP ARGS` runs, its roles threads of this process, and
 * the result table comes from the app's output hook, which the scheduler
 * calls in this process. What the job says on stderr is kept by dsana_run
 * (nothing is printed, unless the caller asks for the command's output):
 * its error line becomes the Python exception's message, its warning
 * lines Python warnings.
 */
#define _GNU_SOURCE /* memmem */
#include "dsana_glue.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "dsana/launch.h"

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

/* The warning lines of what the job said, newline-separated, into warn. */
static void glue_warnings(const char *text, char *warn, size_t warnlen) {
  size_t wl = 0;
  for (const char *p = text; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len && memmem(p, len, ": warning: ", 11) && wl + len + 2 < warnlen)
      wl += (size_t)snprintf(warn + wl, warnlen - wl, "%.*s\n", (int)len, p);
    p += len + (nl ? 1 : 0);
  }
}

int glue_run(int argc, char **argv, bool print, struct glue_result *res, char *err, size_t errlen, char *warn,
             size_t warnlen) {
  const struct dsana_app *app = argc > 0 ? dsana_builtin_app(argv[0]) : NULL;
  memset(res, 0, sizeof *res);
  err[0] = warn[0] = '\0';
  if (!app) {
    snprintf(err, errlen, "dsana: unknown app '%s'", argc > 0 ? argv[0] : "");
    return DSANA_EUSAGE;
  }
  struct dsana_app wrapped = *app;
  wrapped.output = glue_output;
  struct dsana_run_options o;
  dsana_run_options_init(&o);
  o.args = (const char *const *)argv + 1;
  o.n_args = (size_t)argc - 1;
  o.print = print;
  struct dsana_run_result out;
  pthread_mutex_lock(&glue_lock);
  glue_capture = res;
  int rc = dsana_run(&wrapped, &o, &out);
  glue_capture = NULL;
  pthread_mutex_unlock(&glue_lock);
  glue_warnings(out.log, warn, warnlen);
  if (!rc && out.exit_code == 0 && !res->values) {
    snprintf(err, errlen, "dsana %s: the job ended without a result", argv[0]);
    rc = DSANA_ESTATE;
  } else if (!rc && out.exit_code != 0) {
    rc = DSANA_EIO; /* done, but a report (metrics, trace) was not written */
  }
  if (rc && !err[0])
    snprintf(err, errlen, "%s", out.error[0] ? out.error : dsana_strerror(rc));
  dsana_run_result_fini(&out);
  if (rc) {
    free(res->values);
    res->values = NULL;
  }
  return rc;
}
