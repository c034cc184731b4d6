/* help.c - usage texts (help.h). */
#include "cli/core/help.h"

#include <stdio.h>
#include <string.h>

#include "cli/core/cli_apps.h"
#include "cli/core/opts.h"

#define HELP_LEFT 32 /* the width of the option column */

static void print_option(FILE *f, const char *name, const char *arg, const char *help, const char *def) {
  char left[128];
  snprintf(left, sizeof left, "--%s%s%s", name, arg ? " " : "", arg ? arg : "");
  if (def)
    fprintf(f, "  %-*s %s (default %s)\n", HELP_LEFT, left, help, def);
  else
    fprintf(f, "  %-*s %s\n", HELP_LEFT, left, help);
}

void cli_print_common_help(FILE *f) {
  size_t n;
  const struct cli_common_opt *c = cli_common_options(&n);
  for (size_t i = 0; i < n; i++)
    print_option(f, c[i].opt.name, c[i].arg, c[i].help, NULL);
}

void cli_print_app_help(const struct dsana_app *app, bool scheduler_only, FILE *f) {
  if (scheduler_only)
    fprintf(f,
            "usage: dsana scheduler %s --scheduler ADDR --token-file FILE [options] %s\n"
            "Run only the scheduler of a %s job, listening on ADDR; servers and workers join it with\n"
            "dsana server|worker --scheduler ADDR --token-file FILE (the input must be readable on\n"
            "every machine).\n%s\n\n%s options:\n",
            app->name, app->args, app->name, app->summary, app->name);
  else
    fprintf(f, "usage: dsana %s [options] %s\n%s\n\n%s options:\n", app->name, app->args, app->summary, app->name);
  for (size_t i = 0; app->options && app->options[i].name; i++) {
    const struct dsana_app_option *o = &app->options[i];
    char text[512], rule[128] = ""; /* a number's range, from its row */
    if (o->type == DSANA_VALUE_UINT || o->type == DSANA_VALUE_DOUBLE)
      dsana_app_option_rule(o, rule, sizeof rule);
    snprintf(text, sizeof text, "%s%s%s", o->help, rule[0] ? ": " : "", rule);
    print_option(f, o->name, o->arg, text, o->arg ? o->default_value : NULL);
  }
  fprintf(f, "\nruntime options:\n");
  cli_print_common_help(f);
  fprintf(f, "\n%s", app->help ? app->help : "");
  fprintf(f, "\nThe iteration table: residual (the app's convergence measure), time_s (wall time of the\n"
             "iteration), compute_max and compute_min (the busiest and idlest worker's compute, in seconds\n"
             "summed over its threads: with --threads above 1 it may exceed time_s), tasks (fewest-most tasks\n"
             "a worker ran), then the app's own figures.\n");
  fprintf(f, "\nExit status: 0 done; 1 the run failed (a role died or timed out); 2 bad usage or input;\n"
             "3 the result was written but a report (metrics, trace, checkpoint) could not be; 128+N killed\n"
             "by signal N (the roles are stopped and every temporary file removed first).\n");
}

void cli_print_scheduler_help(FILE *f) {
  fprintf(f, "usage: dsana scheduler APP --scheduler ADDR --token-file FILE [options] ARGS\n"
             "Run only the scheduler of a job of APP, listening on ADDR (tcp://HOST:PORT); start its servers\n"
             "and workers with dsana server|worker --scheduler ADDR --token-file FILE. A server lost during\n"
             "the job rolls every role back to the last complete checkpoint (--checkpoint; else the start)\n"
             "and a new dsana server takes its place (at most --max-restarts times).\n"
             "dsana scheduler APP --help lists APP's options. Apps:\n");
  for (const struct dsana_app *const *a = cli_apps(); *a; a++)
    fprintf(f, "  %-12s %s\n", (*a)->name, (*a)->summary);
}

void cli_print_role_help(const char *role, FILE *f) {
  bool worker = strcmp(role, "worker") == 0;
  fprintf(f,
          "usage: dsana %s --scheduler ADDR --token-file FILE [--index I] [--bind HOST] [--peer-timeout SECONDS]\n"
          "       [--register-timeout SECONDS]%s [--verbose]\n"
          "Start one %s that joins the scheduler at ADDR (tcp://HOST:PORT); the app and its options come\n"
          "from the scheduler. %s\n"
          "--verbose says what it does (twice: debug). When the job rolls back (a server was lost), it\n"
          "registers again by itself.\n",
          role, worker ? " [--threads N]" : "", role,
          worker ? "It computes on --threads N threads (default: every core of this machine; give\n"
                   "each worker its share when several run here)."
                 : "It keeps its shard of the tables and serves them from one thread.");
}
