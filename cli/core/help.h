/*
 * help.h - the usage texts of the dsana command: the runtime options, an
 * app's (with each value named and each default shown), the single-role
 * commands. Every command answers --help and -h on stdout with exit 0.
 */
#ifndef DSANA_CLI_HELP_H
#define DSANA_CLI_HELP_H

#include <stdbool.h>
#include <stdio.h>

#include "dsana/dsana.h"

/* The runtime options every app takes. */
void cli_print_common_help(FILE *f);
/* `dsana APP --help`; scheduler_only: `dsana scheduler APP --help`. */
void cli_print_app_help(const struct dsana_app *app, bool scheduler_only, FILE *f);
/* `dsana scheduler --help`: the scheduler's own usage and the apps. */
void cli_print_scheduler_help(FILE *f);
/* `dsana server|worker --help`. */
void cli_print_role_help(const char *role, FILE *f);

#endif
