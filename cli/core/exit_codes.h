/*
 * exit_codes.h - the exit codes of every dsana command (apps, roles, sim,
 * graph, data, predict), one set of names:
 *   0  it did what was asked;
 *   1  it failed for a reason that is not the input's (out of memory, a
 *      peer lost, a write that failed ...);
 *   2  bad usage or bad input (an option, a file, a format, a value): one
 *      line on stderr says which;
 *   3  a run computed and wrote its result but could not write one of its
 *      reports (util/text/status.h);
 *   128+N  it died of signal N, as the shell expects.
 */
#ifndef DSANA_CLI_EXIT_CODES_H
#define DSANA_CLI_EXIT_CODES_H

#include "util/text/status.h"

enum { CLI_EXIT_OK = 0, CLI_EXIT_FAIL = 1, CLI_EXIT_USAGE = 2, CLI_EXIT_INCOMPLETE = STATUS_EXIT_INCOMPLETE };

/* The exit code of a command that ended with rc (0 or a DSANA_E* code):
 * input errors (bad file, bad format, bad value) exit CLI_EXIT_USAGE like
 * usage errors, others CLI_EXIT_FAIL; success CLI_EXIT_OK, or
 * CLI_EXIT_INCOMPLETE when a report was not written. */
int cli_exit_code(int rc);
/* The exit code for a failed read of an input: CLI_EXIT_FAIL when memory
 * ran out, else CLI_EXIT_USAGE (the input is at fault). */
int cli_exit_input(int rc);

#endif
