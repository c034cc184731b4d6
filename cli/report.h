/*
 * report.h - the run's report for its user (table, progress line,
 * --metrics JSON lines, summary), as the scheduler's observer
 * (runtime/observer.h). Owned by the thread that runs the scheduler.
 */
#ifndef DSANA_CLI_REPORT_H
#define DSANA_CLI_REPORT_H

#include <stdbool.h>

#include "metrics.h"
#include "progress.h"
#include "runtime/config.h"
#include "runtime/observer.h"

struct cli_report {
  struct rt_observer observer; /* hand &observer to the scheduler */
  struct metrics *metrics;
  struct progress line;
  bool quiet, progress;
  uint32_t rows;
  uint64_t start_ns;
  const char *metrics_path; /* borrowed from the run's configuration */
};

/* Set up (no I/O): the observer opens --metrics in the scheduler's
 * process and closes it at the end, reporting a failed write. */
void report_init(struct cli_report *rep, const struct run_config *cfg);

#endif
