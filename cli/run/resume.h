/*
 * resume.h - checkpoints from the command line: what defines a run's
 * result - the app, the values of its DSANA_OPT_PARAM options
 * (defaults included), the size and CRC-32 of its input files (the
 * positional arguments and DSANA_OPT_INPUT options) - is recorded in every
 * checkpoint's manifest; --resume compares it with the new command line
 * and refuses, before any process starts, a changed parameter or other
 * input contents (a moved or renamed input with the same contents is
 * fine). Options that change only reports or the iteration cap
 * (DSANA_OPT_REPORT, OUTPUT) and every runtime option (workers, mode,
 * chunks: the result is bit-identical) may change.
 *
 * What the user does not give again is taken from the checkpoint: its
 * inputs, parameters, the report and output options its run was given and
 * its server count, so `dsana APP --resume DIR` alone continues the run.
 */
#ifndef DSANA_CLI_RESUME_H
#define DSANA_CLI_RESUME_H

#include <stdint.h>

#include "cli/core/opts.h"

/* --checkpoint: make its folder; --checkpoint or --resume: the identity
 * into r->cfg.job_identity; --resume: the checkpoint must be complete,
 * intact, of this cluster's server count and of the same identity (its
 * iteration and globals go to r->cfg). Returns 0, or an error after one
 * line on stderr. */
int cli_setup_checkpoints(struct cli_run *r);

/* --resume, right after parsing: every input, parameter, report or output
 * option and the server count the user did not give is set from the
 * checkpoint's identity (a note on stderr lists them unless --quiet).
 * A checkpoint that cannot be read is left to cli_setup_checkpoints to
 * report. Returns 0, or DSANA_EUSAGE after one line. */
int cli_resume_fill(struct cli_run *r);

/* After the app's setup: an iteration cap the checkpoint is already at
 * or past is refused (the run would stop at once). */
int cli_check_resume_cap(const struct cli_run *r, uint32_t max_iter);

#endif
