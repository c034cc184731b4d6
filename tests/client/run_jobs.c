/*
 * run_jobs.c - a program that runs dsana jobs one after another through
 * the public launch API (dsana/launch.h) and libdsana.so alone, for
 * tests/integration/library/test_library_run_api.sh: each job's options
 * come from one argument line, and each result is printed on stdout as
 * one line
 *   status=S exit=E summary=0|1 iterations=N log=0|1 error=TEXT
 * so the test can check statuses, errors and outputs while this
 * program's own stderr stays empty (print is off).
 *
 * usage: run_jobs APP 'JOB' ['JOB' ...]
 *   JOB: words separated by spaces; "workers=3", "servers=2", "mode=dsana",
 *   "scenario=FILE", "scenario_json=TEXT" (no spaces), "tol=X",
 *   "max_iter=K", "metrics=FILE" set the struct's fields, other words are
 *   the job's arguments (positional and options, as on the command line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dsana/launch.h>

#define MAX_WORDS 64

/* Set the field a "name=value" word names; 0 when it is an argument. */
static int set_field(struct dsana_run_options *o, char *w) {
  char *eq = strchr(w, '=');
  if (!eq || w[0] == '-')
    return 0;
  *eq = '\0';
  const char *v = eq + 1;
  if (strcmp(w, "workers") == 0)
    o->workers = (uint32_t)atoi(v);
  else if (strcmp(w, "servers") == 0)
    o->servers = (uint32_t)atoi(v);
  else if (strcmp(w, "mode") == 0)
    o->mode = v;
  else if (strcmp(w, "scenario") == 0)
    o->scenario_path = v;
  else if (strcmp(w, "scenario_json") == 0)
    o->scenario_json = v;
  else if (strcmp(w, "tol") == 0)
    o->tol = atof(v);
  else if (strcmp(w, "max_iter") == 0)
    o->max_iter = (uint32_t)atoi(v);
  else if (strcmp(w, "metrics") == 0)
    o->metrics_path = v;
  else {
    *eq = '=';
    return 0;
  }
  return 1;
}

static int run_one(const struct dsana_app *app, char *line) {
  struct dsana_run_options o;
  const char *args[MAX_WORDS];
  dsana_run_options_init(&o);
  o.args = args;
  for (char *w = strtok(line, " "); w && o.n_args < MAX_WORDS; w = strtok(NULL, " "))
    if (!set_field(&o, w))
      args[o.n_args++] = w;
  struct dsana_run_result r;
  int rc = dsana_run(app, &o, &r);
  printf("status=%d exit=%d summary=%d iterations=%u log=%d error=%s\n", rc, r.exit_code, r.has_summary, r.iterations,
         r.log != NULL, r.error);
  fflush(stdout);
  dsana_run_result_fini(&r);
  return 0;
}

int main(int argc, char **argv) {
  const struct dsana_app *app = argc > 1 ? dsana_builtin_app(argv[1]) : NULL;
  if (!app) {
    printf("usage: run_jobs APP 'JOB' ... (APP: a built-in app)\n");
    return 2;
  }
  for (int i = 2; i < argc; i++)
    run_one(app, argv[i]);
  return 0;
}
