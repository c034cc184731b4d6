/*
 * launch_internal.h - private to the local launcher:
 *   launch.c      forking the roles, waiting for them, signals (top)
 *   launch_threads.c  the roles as threads of this process (--isolate threads)
 *   launch_recover.c  rolling a failed job back to its last checkpoint
 *   launch_dir.c  the job's private folder and its janitor (bottom)
 */
#ifndef DSANA_RUNTIME_LAUNCH_INTERNAL_H
#define DSANA_RUNTIME_LAUNCH_INTERNAL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "runtime/core/config.h"

/* A fresh folder only this user can enter (mkdtemp in $TMPDIR) into
 * cfg->local_dir, and the scheduler's ipc:// address in it. */
int launch_make_dir(struct run_config *cfg);
/* With a --trace file: the roles write their parts into the job's folder
 * (removed with it; the launcher merges them), cfg->trace_path pointing
 * there. */
void launch_trace_in_dir(struct run_config *cfg);
/* Remove the folder and the files in it. */
void launch_remove_dir(const char *dir);
/* Remove the files in the folder, keep the folder. */
void launch_empty_dir(const char *dir);

/* The process that removes the folder when the launcher and its roles are
 * all gone, even killed with SIGKILL. */
struct launch_janitor {
  pid_t pid;
  int wr; /* the write end of its pipe (the roles inherit it) */
};
int launch_janitor_start(const char *dir, struct launch_janitor *j);
/* The launcher's part is done: close its end (the janitor then finds the
 * folder already gone and exits). */
void launch_janitor_stop(struct launch_janitor *j);

/* The stop signals (SIGINT, SIGTERM, SIGHUP) not ignored when the launch
 * began, into set; forgets a stop of an earlier launch. */
void launch_stop_set(sigset_t *set);
/* A stop signal came: the scheduler ends the job at its next tick
 * (stop_flag_caught, driver/stop_flag.h), and the command then dies of sig
 * (runtime_launch_signal). */
void launch_stop_job(int sig);
/* Merge the roles' trace parts in the job's folder into trace_path. */
int launch_merge_trace(const struct run_config *cfg, const char *trace_path);

#endif
