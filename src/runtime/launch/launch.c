/*
 * launch.c - the embedded default: fork the scheduler, the servers and the
 * workers on this machine (ipc transport in a private folder), wait for
 * them, and report a child that died instead of hanging.
 *
 * The launcher waits with its signals blocked and taken one at a time
 * (sigtimedwait): SIGCHLD reaps, SIGINT/SIGTERM/SIGHUP are forwarded to
 * the roles, which are waited for, the job's folder removed, and the
 * launch returns DSANA_EINTR (the command then dies of the same signal:
 * exit status 128+N). A stop signal ignored when the launch began (nohup,
 * `trap '' INT`) stays ignored: it is not waited for. A role killed by
 * SIGPIPE wrote to a closed stdout (`dsana ... | head`): the job stops
 * quietly, with no recovery, and the command dies of SIGPIPE as `yes |
 * head` does. Nothing it made stays behind on any exit: the
 * folder goes with the launcher or, after a SIGKILL, with its janitor
 * (launch_dir.c); converted inputs are anonymous files (dsana/outfile.h).
 * A role that exits with STATUS_EXIT_INCOMPLETE finished but could not
 * write a report: the run goes on and ends incomplete (util/text/status.h).
 */
#define _GNU_SOURCE /* strsignal */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/driver/stop_flag.h"
#include "runtime/launch/launch_internal.h"
#include "runtime/launch/runtime.h"
#include "runtime/record/trace.h"
#include "util/thread/clock.h"
#include "util/text/log.h"
#include "util/text/status.h"

struct child {
  pid_t pid;
  enum rt_role role;
  uint32_t index;
  bool exited;
  uint32_t respawns; /* worker: started again after it died */
  uint64_t started_ns;
};

/* The children's table lives here, not on the heap: a forked role exits
 * with _exit() and must not inherit an allocation it cannot free. */
#define LAUNCH_MAX_CHILDREN 8192
static struct child launch_kids[LAUNCH_MAX_CHILDREN];
static int launch_stop_signal;  /* the signal that stopped the last launch */
static sigset_t launch_ignored; /* stop signals ignored when the launch began */
/* A socket pair to the scheduler: the indices of workers whose process died, so
 * it loses them at once rather than after --peer-timeout of silence. */
static int launch_deaths[2] = {-1, -1};

static const int launch_stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define N_STOP_SIGNALS (sizeof launch_stop_signals / sizeof launch_stop_signals[0])

/* Note the stop signals this process ignores (before any is blocked). */
static void note_ignored(void) {
  sigemptyset(&launch_ignored);
  for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
    struct sigaction sa;
    if (sigaction(launch_stop_signals[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
      sigaddset(&launch_ignored, launch_stop_signals[i]);
  }
}

/* What the launcher waits for: children, and the stop signals not ignored. */
static void stop_set(sigset_t *set) {
  sigemptyset(set);
  for (size_t i = 0; i < N_STOP_SIGNALS; i++)
    if (!sigismember(&launch_ignored, launch_stop_signals[i]))
      sigaddset(set, launch_stop_signals[i]);
}
static void wait_set(sigset_t *set) {
  stop_set(set);
  sigaddset(set, SIGCHLD);
}

static pid_t launch_one(const struct role_params *p, enum rt_role role, uint32_t index, const sigset_t *mask) {
  fflush(stdout);
  fflush(stderr);
  pid_t parent = getpid(), pid = fork();
  if (pid != 0)
    return pid;
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the launcher */
  if (getppid() != parent)
    _exit(1); /* it died before that was set */
  signal(SIGCHLD, SIG_DFL);
  sigprocmask(SIG_SETMASK, mask, NULL);
  struct role_params mine = *p;
  mine.index = index;
  mine.local_stderr = true;
  mine.deaths_fd = role == ROLE_SCHEDULER && launch_deaths[0] > 2 ? launch_deaths[0] : 0;
  if (launch_deaths[1] >= 0)
    close(launch_deaths[1]);
  if (role != ROLE_SCHEDULER && launch_deaths[0] >= 0)
    close(launch_deaths[0]);
  int rc = runtime_run_role(role, &mine);
  fflush(stdout);
  _exit(status_exit_code(rc, 1)); /* 3: done, but a report was not written */
}

static void describe(const struct child *c, char *buf, size_t len) {
  if (c->role == ROLE_SCHEDULER)
    snprintf(buf, len, "scheduler (pid %d)", (int)c->pid);
  else
    snprintf(buf, len, "%s %u (pid %d)", rt_role_name(c->role), c->index, (int)c->pid);
}

static void describe_exit(const struct child *c, int status, char *buf, size_t len) {
  char who[96];
  describe(c, who, sizeof who);
  if (WIFSIGNALED(status))
    snprintf(buf, len, "%s was killed by signal %d (%s)", who, WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    snprintf(buf, len, "%s exited with code %d", who, WEXITSTATUS(status));
}

/* Send sig to the roles still running, give them 2 s, then SIGKILL. */
static void kill_all(struct child *kids, size_t n, int sig) {
  for (size_t i = 0; i < n; i++)
    if (!kids[i].exited)
      kill(kids[i].pid, sig);
  uint64_t deadline = clock_now_ns() + 2000000000ull;
  for (size_t left = n; left > 0 && clock_now_ns() < deadline;) {
    left = 0;
    for (size_t i = 0; i < n; i++) {
      if (kids[i].exited)
        continue;
      if (waitpid(kids[i].pid, NULL, WNOHANG) == kids[i].pid)
        kids[i].exited = true;
      else
        left++;
    }
    if (left)
      clock_sleep_ns(10000000);
  }
  for (size_t i = 0; i < n; i++)
    if (!kids[i].exited) {
      kill(kids[i].pid, SIGKILL);
      waitpid(kids[i].pid, NULL, 0);
      kids[i].exited = true;
    }
}

static struct child *find_child(struct child *kids, size_t n, pid_t pid) {
  for (size_t i = 0; i < n; i++)
    if (kids[i].pid == pid)
      return &kids[i];
  return NULL;
}

/* A stop signal the launcher has pending (the terminal's ^C reaches the
 * roles too, and they may die first): 0 if none. */
static int pending_stop(void) {
  sigset_t p;
  if (sigpending(&p) != 0)
    return 0;
  for (size_t i = 0; i < N_STOP_SIGNALS; i++)
    if (sigismember(&p, launch_stop_signals[i]) && !sigismember(&launch_ignored, launch_stop_signals[i]))
      return launch_stop_signals[i];
  return 0;
}

struct launch_wait {
  struct child *kids;
  size_t n, running;
  const struct role_params *q; /* to start a dead worker again */
  const sigset_t *mask;
  uint32_t max_respawns;
  bool worker_loss_fatal;
  bool recoverable;     /* the job stopped because a server or the scheduler was killed */
  uint64_t deadline_ns; /* after the scheduler's success: the others get 10 s */
};

/* A worker that died while the scheduler runs is started again (at most
 * max_respawns times): it registers late, takes its lost place and gets
 * tasks from the next iteration on. A worker frozen past --peer-timeout
 * ends itself when it wakes (it lost the scheduler), so it rejoins too.
 * One that failed by itself within 2 s of its start (it could not start)
 * would fail again: not restarted. */
static bool may_respawn(const struct launch_wait *w, const struct child *c, int status) {
  return !w->worker_loss_fatal && !w->kids[0].exited && !w->deadline_ns && c->respawns < w->max_respawns &&
         (WIFSIGNALED(status) || clock_now_ns() - c->started_ns >= 2000000000ull);
}

static void respawn_worker(struct launch_wait *w, struct child *c) {
  pid_t pid = launch_one(w->q, ROLE_WORKER, c->index, w->mask);
  if (pid < 0) {
    log_warn("cannot start worker %u again: %s", c->index, strerror(errno));
    return;
  }
  c->pid = pid;
  c->exited = false;
  c->started_ns = clock_now_ns();
  c->respawns++;
  w->running++;
  log_warn("worker %u started again (pid %d, %u of %u): it rejoins the job", c->index, (int)pid, c->respawns,
           w->max_respawns);
}

static uint32_t workers_running(const struct launch_wait *w) {
  uint32_t n = 0;
  for (size_t i = 0; i < w->n; i++)
    n += w->kids[i].role == ROLE_WORKER && !w->kids[i].exited;
  return n;
}

/* One child ended: 0 to go on, or the run's end. */
static int on_exit_status(struct launch_wait *w, struct child *c, int status) {
  c->exited = true;
  w->running--;
  if (WIFEXITED(status) && WEXITSTATUS(status) == STATUS_EXIT_INCOMPLETE)
    status_mark_incomplete(); /* it logged which report it could not write */
  else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (pending_stop())
      return DSANA_EAGAIN; /* the user stopped the job: no loss to report */
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) {
      log_debug("a role wrote to a closed stdout: stopping the job");
      launch_stop_signal = SIGPIPE; /* the reader went away: nothing to report, nothing to recover */
      kill_all(w->kids, w->n, SIGTERM);
      return DSANA_EINTR;
    }
    char what[256];
    describe_exit(c, status, what, sizeof what);
    /* the last worker lost while the job runs stops it: no restart */
    bool running = !w->kids[0].exited && !w->deadline_ns;
    bool others = c->role == ROLE_WORKER && (workers_running(w) > 0 || !running);
    bool again = others && may_respawn(w, c, status);
    if (c->role == ROLE_WORKER && launch_deaths[1] >= 0) { /* the scheduler decides */
      uint32_t index = c->index | (again ? LAUNCH_DEATH_RESTARTED : 0);
      if (send(launch_deaths[1], &index, sizeof index, MSG_NOSIGNAL) != (ssize_t)sizeof index && errno != EPIPE &&
          errno != ECONNREFUSED)
        log_warn("cannot tell the scheduler: %s", strerror(errno));
    }
    if (c->role == ROLE_WORKER && !w->worker_loss_fatal && others && !running) {
      log_warn("%s after the job's end", what);
      return 0;
    }
    /* exit code 1: the role failed and said why, or the scheduler stopped
     * it (an ABORT whose reason the scheduler said, the role quiet): the
     * launcher's line would say it again */
    bool said = WIFEXITED(status) && WEXITSTATUS(status) == 1;
    if (c->role == ROLE_WORKER && !w->worker_loss_fatal && others) {
      if (said) /* the scheduler says what it does about the loss */
        log_debug("%s; the scheduler hands its tasks to the other workers", what);
      else
        log_warn("%s; the scheduler hands its tasks to the other workers", what);
      if (again)
        respawn_worker(w, c);
      return 0;
    }
    if (said)
      log_debug("%s; stopping the job", what);
    else
      log_error("%s; %sstopping the job", what, c->role == ROLE_WORKER && !others ? "no other worker is left: " : "");
    kill_all(w->kids, w->n, SIGTERM);
    /* a process killed (SIGKILL, a crash, the OOM killer) is worth a rerun;
     * a role that failed by itself would fail again */
    w->recoverable = c->role != ROLE_WORKER && WIFSIGNALED(status);
    return DSANA_EPEER;
  }
  if (c->role == ROLE_SCHEDULER)
    w->deadline_ns = clock_now_ns() + 10000000000ull;
  return 0;
}

/* The next signal of the wait set, or 0 at the deadline (0: none). */
static int next_signal(const sigset_t *set, uint64_t deadline_ns) {
  for (;;) {
    uint64_t now = clock_now_ns();
    if (deadline_ns && now >= deadline_ns)
      return 0;
    uint64_t left = deadline_ns ? deadline_ns - now : 1000000000ull;
    struct timespec ts = {.tv_sec = (time_t)(left / 1000000000ull), .tv_nsec = (long)(left % 1000000000ull)};
    int sig = sigtimedwait(set, NULL, &ts);
    if (sig > 0)
      return sig;
    if (errno != EAGAIN && errno != EINTR)
      return SIGCHLD; /* cannot wait for signals: poll the children */
  }
}

static int launch_wait(struct launch_wait *w, const sigset_t *set) {
  while (w->running > 0) {
    int status, rc = 0;
    pid_t pid;
    while (w->running > 0 && (pid = waitpid(-1, &status, WNOHANG)) > 0) {
      struct child *c = find_child(w->kids, w->n, pid);
      if (c && (rc = on_exit_status(w, c, status)) != 0)
        break;
    }
    if (rc == DSANA_EPEER || rc == DSANA_EINTR)
      return rc;
    if (w->running == 0)
      break;
    int sig = rc == DSANA_EAGAIN ? pending_stop() : next_signal(set, w->deadline_ns);
    if (sig == 0) {
      log_warn("roles still running 10 s after the job finished: killed");
      kill_all(w->kids, w->n, SIGKILL);
      return 0;
    }
    if (sig != SIGCHLD) {
      sigtimedwait(set, NULL, &(struct timespec){0}); /* take it off the pending set */
      launch_stop_signal = sig;
      log_warn("%s: stopping the job (its roles, then its files)", strsignal(sig));
      kill_all(w->kids, w->n, sig);
      return DSANA_EINTR;
    }
  }
  return w->deadline_ns ? 0 : DSANA_EPEER;
}

/* Merge the roles' trace parts (in the job's folder) into the --trace file. */
int launch_merge_trace(const struct run_config *cfg, const char *trace_path) {
  size_t n = 1 + cfg->n_servers + cfg->n_workers;
  char(*parts)[1200] = calloc(n, sizeof *parts);
  const char **list = calloc(n + 1, sizeof *list);
  int rc = parts && list ? 0 : DSANA_ENOMEM;
  for (size_t i = 0; !rc && i < n; i++) {
    const char *role = i == 0 ? "scheduler" : i <= cfg->n_servers ? "server" : "worker";
    uint32_t idx = i == 0 ? 0 : i <= cfg->n_servers ? (uint32_t)(i - 1) : (uint32_t)(i - 1 - cfg->n_servers);
    trace_part_path(parts[i], sizeof parts[i], cfg->trace_path, role, idx);
    list[i] = parts[i];
  }
  char err[1400] = "";
  if (!rc)
    rc = trace_merge(trace_path, list, err, sizeof err);
  if (rc) { /* a report: the run is incomplete, not failed */
    log_error("cannot write the trace: %s", err[0] ? err : dsana_strerror(rc));
    status_mark_incomplete();
  }
  free(parts);
  free(list);
  return 0;
}

static void log_cluster(const struct run_config *c) {
  char chunk[32];
  if (c->chunk == CHUNK_FIXED)
    snprintf(chunk, sizeof chunk, "%llu B", (unsigned long long)c->chunk_bytes);
  else
    snprintf(chunk, sizeof chunk, "%s", c->chunk == CHUNK_AUTO ? "auto" : "off");
  log_info("local job in %s: scheduler at %s, %u server%s, %u worker%s; mode %s (sched %s, chunk %s)", c->local_dir,
           c->scheduler_addr, c->n_servers, c->n_servers == 1 ? "" : "s", c->n_workers, c->n_workers == 1 ? "" : "s",
           run_mode_name(c->mode), sched_kind_name(c->sched), chunk);
}

/* Fork every role; 0, or DSANA_EIO when a fork failed (the others stopped). */
static int start_roles(const struct role_params *q, struct child *kids, size_t n, const sigset_t *mask) {
  const struct run_config *cfg = q->cfg;
  size_t k = 0;
  kids[k++] = (struct child){.pid = launch_one(q, ROLE_SCHEDULER, 0, mask), .role = ROLE_SCHEDULER};
  for (uint32_t i = 0; i < cfg->n_servers; i++)
    kids[k++] = (struct child){.pid = launch_one(q, ROLE_SERVER, i, mask), .role = ROLE_SERVER, .index = i};
  for (uint32_t i = 0; i < cfg->n_workers; i++)
    kids[k++] = (struct child){.pid = launch_one(q, ROLE_WORKER, i, mask), .role = ROLE_WORKER, .index = i};
  for (size_t i = 0; i < n; i++)
    kids[i].started_ns = clock_now_ns();
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    char who[96];
    describe(&kids[i], who, sizeof who);
    if (kids[i].pid < 0) {
      kids[i].exited = true;
      rc = DSANA_EIO;
    } else {
      log_info("started %s", who);
    }
  }
  if (rc) {
    log_error("fork failed: %s", strerror(errno));
    kill_all(kids, n, SIGTERM);
  }
  return rc;
}

static void noop(int sig) { (void)sig; }

/* launch_deaths: a datagram socket pair (send with MSG_NOSIGNAL: a
 * scheduler already gone costs no SIGPIPE), both ends non-blocking (a full
 * buffer loses news, never blocks the launcher), the read end above stderr
 * (0 means none to a role). */
static int open_deaths_pipe(void) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) != 0)
    return -1;
  if (fds[0] <= 2) {
    int up = fcntl(fds[0], F_DUPFD_CLOEXEC, 3);
    close(fds[0]);
    fds[0] = up;
    if (up < 0 || fcntl(up, F_SETFL, O_NONBLOCK) != 0) {
      if (up >= 0)
        close(up);
      close(fds[1]);
      return -1;
    }
  }
  launch_deaths[0] = fds[0];
  launch_deaths[1] = fds[1];
  return 0;
}

/* The job, with the folder made and the signals blocked. *recoverable:
 * it stopped because a server or the scheduler was killed. */
static int launch_job(const struct role_params *p, struct run_config *cfg, const sigset_t *old_mask,
                      bool *recoverable) {
  struct role_params q = *p;
  q.cfg = cfg;
  size_t n = 1 + cfg->n_servers + cfg->n_workers;
  if (n > LAUNCH_MAX_CHILDREN) {
    log_error("too many roles for one machine (%zu, at most %d)", n, LAUNCH_MAX_CHILDREN);
    return DSANA_EINVAL;
  }
  launch_trace_in_dir(cfg);
  log_cluster(cfg);
  struct child *kids = launch_kids;
  memset(kids, 0, sizeof *kids * n);
  if (open_deaths_pipe() != 0)
    log_warn("no socket pair to the scheduler (%s): lost workers are seen after --peer-timeout", strerror(errno));
  int rc = start_roles(&q, kids, n, old_mask);
  if (launch_deaths[0] >= 0) {
    close(launch_deaths[0]);
    launch_deaths[0] = -1;
  }
  sigset_t set;
  wait_set(&set);
  struct launch_wait w = {
      .kids = kids,
      .n = n,
      .running = n,
      .worker_loss_fatal = cfg->fail_on_worker_loss,
      .q = &q,
      .mask = old_mask,
      .max_respawns = cfg->max_restarts,
  };
  if (!rc)
    rc = launch_wait(&w, &set);
  *recoverable = rc == DSANA_EPEER && w.recoverable;
  if (launch_deaths[1] >= 0) {
    close(launch_deaths[1]);
    launch_deaths[1] = -1;
  }
  if (!rc && cfg->trace_path[0])
    launch_merge_trace(cfg, p->cfg->trace_path);
  return rc;
}

int runtime_launch_local(const struct role_params *p) {
  struct run_config cfg = *p->cfg;
  sigset_t set, old_mask;
  struct sigaction chld = {.sa_handler = noop}, old_chld;
  note_ignored();
  wait_set(&set);
  sigprocmask(SIG_BLOCK, &set, &old_mask); /* taken by sigtimedwait only */
  sigaction(SIGCHLD, &chld, &old_chld);
  launch_stop_signal = 0;
  int rc = launch_make_dir(&cfg);
  struct launch_janitor jan = {.pid = -1, .wr = -1};
  if (!rc && launch_janitor_start(cfg.local_dir, &jan) != 0)
    log_warn("no janitor for %s: a launcher killed with SIGKILL would leave it behind", cfg.local_dir);
  struct runtime_recovery rec = {0};
  while (!rc) {
    bool recoverable = false;
    rc = launch_job(p, &cfg, &old_mask, &recoverable);
    if (rc == DSANA_EPEER && !recoverable)
      runtime_report_checkpoint(cfg.checkpoint_dir);
    if (!recoverable || !runtime_rollback(&cfg, p->cfg, &rec))
      break;
    launch_empty_dir(cfg.local_dir); /* the last attempt's sockets, buffers and trace parts */
    rc = 0;
  }
  if (cfg.local_dir[0]) {
    launch_remove_dir(cfg.local_dir);
    log_info("removed the job's folder %s", cfg.local_dir);
  }
  launch_janitor_stop(&jan);
  sigaction(SIGCHLD, &old_chld, NULL);
  sigprocmask(SIG_SETMASK, &old_mask, NULL);
  return rc;
}

static void on_stop_signal(int sig) { stop_flag_set(sig); }

void runtime_catch_stop_signals(void) {
  note_ignored();
  struct sigaction sa = {.sa_handler = on_stop_signal}; /* no SA_RESTART: polls wake */
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < N_STOP_SIGNALS; i++)
    if (!sigismember(&launch_ignored, launch_stop_signals[i]))
      sigaction(launch_stop_signals[i], &sa, NULL);
}

void launch_stop_set(sigset_t *set) {
  note_ignored();
  launch_stop_signal = 0;
  stop_flag_set(0);
  stop_set(set);
}

void launch_stop_job(int sig) {
  launch_stop_signal = sig;
  stop_flag_set(sig);
}

int runtime_launch_signal(void) { return launch_stop_signal ? launch_stop_signal : stop_flag_caught(); }
