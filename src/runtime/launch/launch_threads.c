/*
 * launch_threads.c - the embedded launch (`--isolate threads`): the
 * scheduler, the servers and the workers of a job on this machine run as
 * threads of this process over the inproc:// transport (memory queues,
 * shared buffers in place), with the same state machines, so the same
 * results, as separate processes.
 *
 * The scheduler gets the app this process configured; servers and workers
 * create their own from the arguments the scheduler sends (as roles
 * started alone do), so no role shares an app's state with another.
 * What processes give and threads cannot: a role that dies is not
 * replaced (its failure ends the job), and DSANA_FAULT's kills are
 * refused on the command line. SIGINT, SIGTERM and SIGHUP end the job as
 * they do a launched one: the scheduler tells every role, and the command
 * dies of the signal; a role that writes to a closed stdout kills the
 * process with SIGPIPE, as `yes | head`. The job's private folder holds
 * the trace parts and goes with the launch, or, when the process is killed,
 * with its janitor (launch_dir.c).
 */
#define _GNU_SOURCE /* pthread_tryjoin_np */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runtime/launch/launch_internal.h"
#include "runtime/role/role_title.h"
#include "runtime/launch/runtime.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

/* After the scheduler ended, the others have this long to end too. */
#define THREADS_GRACE_NS 10000000000ull

struct role_thread {
  pthread_t tid;
  enum rt_role role;
  struct role_params p;
  int rc;
  bool running;
  atomic_bool done;
};

static void *role_main(void *arg) {
  struct role_thread *t = arg;
  role_thread_title(t->role, t->p.index); /* "dsana-wrk-2" in ps -L and top -H */
  t->rc = driver_run(t->role, &t->p);
  atomic_store(&t->done, true);
  return NULL;
}

/* The roles' parameters: the scheduler as this process configured it, the
 * others taking the app from the scheduler. */
static void plan_roles(const struct role_params *p, const struct run_config *cfg, struct role_thread *ts) {
  size_t k = 0;
  ts[k++] = (struct role_thread){.role = ROLE_SCHEDULER, .p = *p};
  for (uint32_t i = 0; i < cfg->n_servers; i++)
    ts[k++] = (struct role_thread){.role = ROLE_SERVER, .p = *p};
  for (uint32_t i = 0; i < cfg->n_workers; i++)
    ts[k++] = (struct role_thread){.role = ROLE_WORKER, .p = *p};
  for (size_t j = 0; j < k; j++) {
    struct role_params *q = &ts[j].p;
    q->cfg = cfg;
    q->shared_process = true;
    q->deaths_fd = 0;
    q->index = j == 0 ? 0 : j <= cfg->n_servers ? (uint32_t)(j - 1) : (uint32_t)(j - 1 - cfg->n_servers);
    if (j > 0) {
      q->app = NULL;
      q->app_state = NULL;
      q->observer = NULL;
    }
  }
}

static int start_roles(struct role_thread *ts, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int e = pthread_create(&ts[i].tid, NULL, role_main, &ts[i]);
    if (e != 0) {
      log_error("cannot start a thread for %s %u: %s", rt_role_name(ts[i].role), ts[i].p.index, strerror(e));
      return DSANA_ENOMEM;
    }
    ts[i].running = true;
    log_info("started %s %u (a thread)", rt_role_name(ts[i].role), ts[i].p.index);
  }
  return 0;
}

static bool all_done(const struct role_thread *ts, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ts[i].running && !atomic_load(&ts[i].done))
      return false;
  return true;
}

/* Wait for the roles, taking stop signals: a stop ends the job through the
 * scheduler (launch_stop_job). Returns the signal taken, or 0. */
static int wait_roles(struct role_thread *ts, size_t n, const sigset_t *stop) {
  int taken = 0;
  uint64_t sched_end = 0;
  while (!all_done(ts, n)) {
    struct timespec tick = {.tv_sec = 0, .tv_nsec = 50000000};
    int sig = sigtimedwait(stop, NULL, &tick);
    if (sig > 0 && !taken) {
      taken = sig;
      launch_stop_job(sig);
      log_info("%s: ending the job", strsignal(sig));
    }
    if (!sched_end && (!ts[0].running || atomic_load(&ts[0].done)))
      sched_end = clock_now_ns();
    if (sched_end && clock_now_ns() - sched_end > THREADS_GRACE_NS) {
      log_error("the scheduler ended %.0f s ago and some roles have not: giving up on them", THREADS_GRACE_NS / 1e9);
      return taken;
    }
  }
  return taken;
}

/* The job's result, as a launch of processes gives it: the scheduler's
 * (a role that failed said why; a lost worker's tasks went to the others,
 * a lost server failed the scheduler), DSANA_EPEER for any failure. */
static int job_result(struct role_thread *ts, size_t n, bool *abandoned) {
  for (size_t i = 0; i < n; i++) {
    if (!ts[i].running)
      continue;
    if (!atomic_load(&ts[i].done)) {
      *abandoned = true; /* still running: never joined, the process ends with it */
      continue;
    }
    pthread_join(ts[i].tid, NULL);
    ts[i].running = false;
  }
  int rc = ts[0].rc == DSANA_EENDED ? 0 : ts[0].rc;
  return rc == DSANA_EINTR ? rc : rc || *abandoned ? DSANA_EPEER : 0;
}

/* *abandoned: a role did not end; its thread still reads ts and cfg. */
static int run_threads(const struct role_params *p, struct run_config *cfg, const sigset_t *stop, bool *abandoned) {
  size_t n = 1 + (size_t)cfg->n_servers + cfg->n_workers;
  struct role_thread *ts = calloc(n, sizeof *ts);
  *abandoned = false;
  if (!ts)
    return DSANA_ENOMEM;
  plan_roles(p, cfg, ts);
  int rc = start_roles(ts, n);
  if (rc)
    launch_stop_job(SIGTERM); /* the roles started end through the scheduler */
  int sig = wait_roles(ts, n, stop);
  int jrc = job_result(ts, n, abandoned);
  rc = sig ? DSANA_EINTR : rc ? rc : jrc;
  if (!*abandoned)
    free(ts);
  return rc;
}

int runtime_launch_threads(const struct role_params *p) {
  struct run_config *cfg = malloc(sizeof *cfg); /* on the heap: a role that never ended still reads it */
  if (!cfg)
    return DSANA_ENOMEM;
  *cfg = *p->cfg;
  sigset_t stop, old_mask;
  launch_stop_set(&stop);
  pthread_sigmask(SIG_BLOCK, &stop, &old_mask); /* every role thread inherits it: taken here only */
  bool abandoned = false;
  struct launch_janitor jan = {.pid = -1, .wr = -1};
  int rc = launch_make_dir(cfg);
  if (!rc && launch_janitor_start(cfg->local_dir, &jan) != 0)
    log_warn("no janitor for %s: a launcher killed with SIGKILL would leave it behind", cfg->local_dir);
  if (!rc) {
    const char *slash = strrchr(cfg->local_dir, '/');
    snprintf(cfg->scheduler_addr, sizeof cfg->scheduler_addr, "inproc://%s-scheduler", slash ? slash + 1 : "dsana");
    launch_trace_in_dir(cfg);
    log_info("local job in one process (%s): %u server%s, %u worker%s", cfg->scheduler_addr, cfg->n_servers,
             cfg->n_servers == 1 ? "" : "s", cfg->n_workers, cfg->n_workers == 1 ? "" : "s");
    rc = run_threads(p, cfg, &stop, &abandoned);
    if (!rc && cfg->trace_path[0])
      launch_merge_trace(cfg, p->cfg->trace_path);
    launch_remove_dir(cfg->local_dir);
  }
  launch_janitor_stop(&jan);
  pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
  if (!abandoned)
    free(cfg);
  return rc;
}
