/*
 * observer.h - what the scheduler reports as a run goes: one record per
 * iteration (with per-worker figures) and one at the end. The runtime only
 * calls these hooks; printing the table, the progress line and writing
 * metrics files is the command line's (cli/output/report.c).
 */
#ifndef DSANA_RUNTIME_OBSERVER_H
#define DSANA_RUNTIME_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "dsana/dsana.h"

struct worker_iter_stats {
  double compute_s, wait_s, overlap_s, overrun_s;
  uint32_t tasks, stolen;
  uint64_t bytes_in, bytes_out; /* bytes_in: pulled values as sent (compressed or not) */
  uint64_t bytes_in_raw;        /* the same before compression */
  double speed_est;
};

struct rt_iter_report {
  uint32_t iter;
  double tol; /* the app's convergence tolerance and cap (progress estimate) */
  uint32_t max_iter;
  double wall_s, residual;
  double bound_s, transfer_bound_s; /* balanced compute bound, busiest link's transfer bound */
  uint64_t messages;                /* messages the scheduler sent and received in the iteration */
  const struct worker_iter_stats *workers;
  uint32_t n_workers;
  uint32_t n_metrics; /* the app's, from reduce() */
  bool quiet_row;     /* reduce() asked to leave the row out of the terminal's table */
  const char *metric_name[DSANA_MAX_METRICS];
  double metric[DSANA_MAX_METRICS];
};

struct rt_run_report {
  const char *app, *mode, *mechanisms, *sched, *scenario;
  uint32_t workers, servers, tasks, tasks_per_worker;
  uint32_t iterations;
  double residual;
  bool converged;
  double total_s, median_iter_s, bound_s, transfer_bound_s, overrun_s;
  uint64_t chunk_bytes; /* of the block table's key space (or the first), whole table when not chunked */
  bool chunked;
  bool compressed;                      /* pulled values travel compressed (--compress) */
  uint64_t pull_bytes, pull_bytes_raw;  /* every worker's pulls of the run, as sent and before compression;
                                        * the transfer bound counts the bytes as sent */
  uint64_t refused_peers, dropped_msgs; /* the scheduler's listener: failed authentication, invalid messages */
  /* the servers' and workers' messages dropped, never applied: pushes of an
   * iteration already complete, twice, or from a worker that was replaced;
   * pulled pieces no longer wanted or twice (from their BYEs) */
  uint64_t stale_msgs;
  /* per steady iteration (from the second on, usage.h), -1 when unknown:
   * wake-ups and CPU of every role's process, the scheduler's messages,
   * tasks stolen */
  double wakeups_per_iter, cpu_ms_per_iter, sched_messages_per_iter, steals_per_iter;
  double handouts_per_iter; /* TASKS messages: tasks handed beyond ITER_START's (-1: not counted) */
  uint32_t n_metrics;       /* the last iteration's app metrics */
  const char *metric_name[DSANA_MAX_METRICS];
  double metric[DSANA_MAX_METRICS];
};

struct rt_observer {
  void *arg;
  /* In the scheduler's process, before the first iteration and after the
   * summary (files the reports go to): 0 or a DSANA_E* code, logged. */
  int (*open)(void *arg);
  int (*close)(void *arg);
  void (*iteration)(void *arg, const struct rt_iter_report *r);
  void (*summary)(void *arg, const struct rt_run_report *r);
};

#endif
