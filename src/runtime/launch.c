/*
 * launch.c - the embedded default: fork the scheduler, the servers and the
 * workers on this machine (ipc transport in a private temporary folder),
 * wait for them, and report a child that died instead of hanging.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/transport.h"
#include "runtime/runtime.h"
#include "runtime/checkpoint.h"
#include "runtime/trace.h"
#include "util/clock.h"
#include "util/log.h"

struct child {
  pid_t pid;
  enum rt_role role;
  uint32_t index;
  bool exited;
};

/* The children's table lives here, not on the heap: a forked role exits
 * with _exit() and must not inherit an allocation it cannot free. */
#define LAUNCH_MAX_CHILDREN 8192
static struct child launch_kids[LAUNCH_MAX_CHILDREN];

static pid_t launch_one(const struct role_params *p, enum rt_role role, uint32_t index) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the launcher */
  struct role_params mine = *p;
  mine.index = index;
  int rc = runtime_run_role(role, &mine);
  fflush(stdout);
  _exit(rc == 0 ? 0 : 1);
}

static void describe_exit(const struct child *c, int status, char *buf, size_t len) {
  int n = snprintf(buf, len, "%s", rt_role_name(c->role));
  if (c->role != ROLE_SCHEDULER)
    n += snprintf(buf + n, len - (size_t)n, " %u", c->index);
  if (WIFSIGNALED(status))
    snprintf(buf + n, len - (size_t)n, " (pid %d) was killed by signal %d (%s)", (int)c->pid, WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  else
    snprintf(buf + n, len - (size_t)n, " (pid %d) exited with code %d", (int)c->pid, WEXITSTATUS(status));
}

static void kill_all(struct child *kids, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!kids[i].exited)
      kill(kids[i].pid, SIGTERM);
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

/* Reap one child: waits for any (blocking) or, with a deadline, polls. */
static pid_t reap(int *status, uint64_t deadline_ns) {
  for (;;) {
    pid_t pid = waitpid(-1, status, deadline_ns ? WNOHANG : 0);
    if (pid > 0 || (pid < 0 && errno != EINTR))
      return pid;
    if (pid == 0) {
      if (clock_now_ns() >= deadline_ns)
        return 0;
      clock_sleep_ns(5000000);
    }
  }
}

/* Wait until the scheduler succeeded and the rest left, or anyone failed.
 * After the scheduler's success the others get 10 s to leave. */
/* After a fatal loss: where the job can be resumed from. */
static void launch_report_checkpoint(const char *dir) {
  struct ckpt_manifest m;
  char err[1200];
  if (!dir || !dir[0])
    return; /* no checkpoints asked for */
  if (ckpt_validate(dir, &m, err, sizeof err) == 0)
    log_error("last complete checkpoint: iteration %u in %s; continue with --resume %s", m.iter, dir, dir);
  else
    log_error("no complete checkpoint in %s yet (%s)", dir, err);
}

static int launch_wait(struct child *kids, size_t n, bool worker_loss_fatal, const char *ckpt_dir) {
  size_t running = n;
  uint64_t deadline = 0;
  while (running > 0) {
    int status;
    pid_t pid = reap(&status, deadline);
    if (pid == 0) {
      log_warn("roles still running 10 s after the job finished: killed");
      kill_all(kids, n);
      return 0;
    }
    struct child *c = pid > 0 ? find_child(kids, n, pid) : NULL;
    if (pid < 0)
      break;
    if (!c)
      continue;
    c->exited = true;
    running--;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      char what[256];
      describe_exit(c, status, what, sizeof what);
      if (c->role == ROLE_WORKER && !worker_loss_fatal) {
        log_warn("%s; the scheduler hands its tasks to the other workers", what);
        continue;
      }
      log_error("%s; stopping the job", what);
      kill_all(kids, n);
      launch_report_checkpoint(ckpt_dir);
      return DSANA_EPEER;
    }
    if (c->role == ROLE_SCHEDULER)
      deadline = clock_now_ns() + 10000000000ull;
  }
  return deadline ? 0 : DSANA_EPEER;
}

static int launch_make_dir(struct run_config *cfg) {
  const char *tmp = getenv("TMPDIR");
  snprintf(cfg->local_dir, sizeof cfg->local_dir, "%s/dsana-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(cfg->local_dir)) {
    log_error("cannot create a temporary folder in %s: %s", tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
    return DSANA_EIO;
  }
  if (!cfg->scheduler_addr[0] &&
      net_local_addr("ipc", cfg->local_dir, "scheduler", cfg->scheduler_addr, sizeof cfg->scheduler_addr) != 0) {
    log_error("%s: folder name too long for a local address", cfg->local_dir);
    return DSANA_ERANGE;
  }
  return 0;
}

/* Remove the ipc sockets the roles left and the folder itself. */
static void launch_remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char path[CONFIG_PATH_MAX + 300];
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(dir);
}

/* Merge the roles' trace parts into the --trace file. */
static int launch_merge_trace(const struct run_config *cfg) {
  size_t n = 1 + cfg->n_servers + cfg->n_workers;
  char (*parts)[1200] = calloc(n, sizeof *parts);
  const char **list = calloc(n + 1, sizeof *list);
  int rc = parts && list ? 0 : DSANA_ENOMEM;
  for (size_t i = 0; !rc && i < n; i++) {
    const char *role = i == 0 ? "scheduler" : i <= cfg->n_servers ? "server" : "worker";
    uint32_t idx = i == 0 ? 0 : i <= cfg->n_servers ? (uint32_t)(i - 1) : (uint32_t)(i - 1 - cfg->n_servers);
    trace_part_path(parts[i], sizeof parts[i], cfg->trace_path, role, idx);
    list[i] = parts[i];
  }
  char err[512] = "";
  if (!rc && (rc = trace_merge(cfg->trace_path, list, err, sizeof err)) != 0)
    log_error("%s: cannot write the trace: %s", cfg->trace_path, err[0] ? err : dsana_strerror(rc));
  free(parts);
  free(list);
  return rc;
}

int runtime_launch_local(const struct role_params *p) {
  struct run_config cfg = *p->cfg;
  int rc = launch_make_dir(&cfg);
  if (rc)
    return rc;
  struct role_params q = *p;
  q.cfg = &cfg;
  size_t n = 1 + cfg.n_servers + cfg.n_workers;
  if (n > LAUNCH_MAX_CHILDREN) {
    log_error("too many roles for one machine (%zu, at most %d)", n, LAUNCH_MAX_CHILDREN);
    launch_remove_dir(cfg.local_dir);
    return DSANA_EINVAL;
  }
  struct child *kids = launch_kids;
  memset(kids, 0, sizeof *kids * n);
  size_t k = 0;
  kids[k++] = (struct child){.pid = launch_one(&q, ROLE_SCHEDULER, 0), .role = ROLE_SCHEDULER};
  for (uint32_t i = 0; i < cfg.n_servers; i++)
    kids[k++] = (struct child){.pid = launch_one(&q, ROLE_SERVER, i), .role = ROLE_SERVER, .index = i};
  for (uint32_t i = 0; i < cfg.n_workers; i++)
    kids[k++] = (struct child){.pid = launch_one(&q, ROLE_WORKER, i), .role = ROLE_WORKER, .index = i};
  for (size_t i = 0; i < n; i++)
    if (kids[i].pid < 0) {
      log_error("fork failed: %s", strerror(errno));
      kids[i].exited = true;
      kill_all(kids, n);
      launch_remove_dir(cfg.local_dir);
      return DSANA_EIO;
    }
  rc = launch_wait(kids, n, cfg.fail_on_worker_loss, cfg.checkpoint_dir);
  launch_remove_dir(cfg.local_dir);
  int trc = cfg.trace_path[0] ? launch_merge_trace(&cfg) : 0;
  return rc ? rc : trc;
}

int runtime_run_role(enum rt_role role, const struct role_params *p) { return driver_run(role, p); }

void runtime_rank_role(uint32_t rank, uint32_t n_servers, enum rt_role *role, uint32_t *index) {
  *role = rank == 0 ? ROLE_SCHEDULER : rank <= n_servers ? ROLE_SERVER : ROLE_WORKER;
  *index = rank == 0 ? 0 : rank <= n_servers ? rank - 1 : rank - 1 - n_servers;
}

int runtime_launcher_rank(uint32_t *rank, uint32_t *size) {
  static const char *const vars[][2] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}, {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *r = getenv(vars[i][0]), *s = getenv(vars[i][1]);
    if (!r || !s)
      continue;
    char *end1, *end2;
    unsigned long rv = strtoul(r, &end1, 10), sv = strtoul(s, &end2, 10);
    if (*end1 || *end2 || sv == 0 || rv >= sv)
      return DSANA_EINVAL;
    *rank = (uint32_t)rv;
    *size = (uint32_t)sv;
    return 0;
  }
  return DSANA_EAGAIN;
}
