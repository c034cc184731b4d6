/*
 * paths.h - the files a run reads and writes, checked before any process
 * starts: every output (the app's DSANA_OPT_OUTPUT options, --metrics,
 * --trace) can be written and its folder exists, --checkpoint can be made;
 * no output names an input (the app's positional arguments and
 * DSANA_OPT_INPUT options, --scenario, --token-file: the same device and
 * inode) and no two outputs replacing regular files name one file. When an
 * output is "-", stdout then carries the data alone: whatever else the run
 * prints on stdout goes to stderr (dsana_outfile_stdout_for_data).
 */
#ifndef DSANA_CLI_PATHS_H
#define DSANA_CLI_PATHS_H

#include "cli/core/opts.h"

/* Returns 0, or DSANA_EUSAGE (DSANA_EIO: stdout could not be kept for
 * the data) after one line on stderr ("dsana APP: ..."). */
int cli_check_paths(const struct cli_run *r);

/* The same for `dsana logreg predict`: out is neither input. */
int cli_check_predict_paths(const char *model, const char *data, const char *out);

/* The same for the file tools (graph/data convert and gen): OUT can be
 * written and is none of ins[0..n_ins) (the same inode, through links
 * too), before any work. 0, or DSANA_EUSAGE after "dsana WHO: ..." */
int cli_check_tool_output(const char *who, const char *out, const char *const *ins, int n_ins);

#endif
