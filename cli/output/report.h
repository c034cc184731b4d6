/*
 * report.h - the run's report for its user (table, progress line,
 * --metrics JSON lines, summary), as the scheduler's observer
 * (runtime/core/observer.h). Owned by the thread that runs the scheduler.
 */
#ifndef DSANA_CLI_REPORT_H
#define DSANA_CLI_REPORT_H

#include <stdbool.h>

#include "cli/core/opts.h"
#include "cli/output/metrics.h"
#include "cli/output/progress.h"
#include "runtime/core/observer.h"

/* The end of a run as the scheduler summarised it (summarized: it did). */
struct cli_summary {
  bool summarized;
  uint32_t iterations;
  double residual;
  bool converged;
  double total_s;
};

struct cli_report {
  struct rt_observer observer; /* hand &observer to the scheduler */
  struct metrics *metrics;
  struct progress line;
  bool quiet, progress;
  uint32_t rows;
  uint32_t printed; /* rows of the table on stdout so far */
  uint64_t start_ns;
  const char *metrics_path;  /* borrowed from the run's configuration */
  const struct cli_run *run; /* borrowed: the command line (the summary's input and options) */
  double tol;                /* the app's, from the iteration reports */
  uint32_t max_iter;
  struct cli_summary summary;
};

/* Set up (no I/O): the observer opens --metrics in the scheduler's
 * process and closes it at the end, reporting a failed write. The summary
 * names the input (the app's positional argument and its setup's facts),
 * every app option's value and dsana's version; a run stopped by its
 * iteration cap above its tolerance gets a warning line on stderr. */
void report_init(struct cli_report *rep, const struct cli_run *run);

#endif
