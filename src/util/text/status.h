/*
 * status.h - how this process's run ended, beyond success and failure: a
 * run whose computation finished and whose result was written, but one of
 * whose reports (metrics, trace, checkpoint) could not be written, is
 * incomplete. Whoever fails to write a report logs why (once) and marks
 * it; the process then exits with STATUS_EXIT_INCOMPLETE (3) instead of
 * 0, and a launcher whose child exits so marks itself.
 * Process-global (like an exit status); safe from any thread.
 */
#ifndef DSANA_UTIL_STATUS_H
#define DSANA_UTIL_STATUS_H

#include <stdbool.h>

#define STATUS_EXIT_INCOMPLETE 3

void status_mark_incomplete(void);
/* Not incomplete again: before the next of several runs in one process. */
void status_reset(void);
/* The exit code of a run that returned rc (0 or a DSANA_E* code) given
 * the code for failures: 0, STATUS_EXIT_INCOMPLETE, or fail_code. */
int status_exit_code(int rc, int fail_code);

#endif
