/*
 * launch_dir.c - the private folder of a local job (ipc sockets, the
 * servers' shared tables, trace parts) and the janitor that removes it
 * whatever happens to the launcher (launch_internal.h).
 *
 * The launcher removes the folder itself on every exit it lives through
 * (success, failure, SIGINT, SIGTERM). For SIGKILL, which it cannot catch,
 * it forks a janitor first: a process in a session of its own (so neither
 * the terminal's ^C nor a kill of the launcher's process group reaches it)
 * that holds nothing but the read end of a pipe whose write end the
 * launcher and its roles hold. When the last of them is gone, however it
 * died, the pipe reads end-of-file and the janitor removes the folder,
 * provided it is still the one the launcher made (same device and inode),
 * then exits.
 */
#define _GNU_SOURCE /* setsid, strsignal */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/dsana.h"
#include "net/transport/transport.h"
#include "runtime/launch/launch_internal.h"
#include "util/text/log.h"
#include "util/text/proctitle.h"

int launch_make_dir(struct run_config *cfg) {
  const char *tmp = getenv("TMPDIR");
  snprintf(cfg->local_dir, sizeof cfg->local_dir, "%s/dsana-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
  if (!mkdtemp(cfg->local_dir)) {
    log_error("cannot create a temporary folder in %s: %s", tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
    cfg->local_dir[0] = '\0';
    return DSANA_EIO;
  }
  if (!cfg->scheduler_addr[0] &&
      net_local_addr("ipc", cfg->local_dir, "scheduler", cfg->scheduler_addr, sizeof cfg->scheduler_addr) != 0) {
    log_error("%s: folder name too long for a local address", cfg->local_dir);
    launch_remove_dir(cfg->local_dir);
    return DSANA_ERANGE;
  }
  return 0;
}

void launch_trace_in_dir(struct run_config *cfg) {
  if (cfg->trace_path[0] && strlen(cfg->local_dir) + 7 <= sizeof cfg->trace_path)
    snprintf(cfg->trace_path, sizeof cfg->trace_path, "%s/trace", cfg->local_dir);
}

/* The folder holds files only (sockets, buffers, trace parts). */
void launch_empty_dir(const char *dir) {
  if (!dir || !dir[0])
    return;
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
}

void launch_remove_dir(const char *dir) {
  if (!dir || !dir[0])
    return;
  launch_empty_dir(dir);
  rmdir(dir);
}

/* Close every descriptor but keep: the janitor must not hold the
 * launcher's terminal, pipes or files open. */
static void close_all_but(int keep) {
  DIR *d = opendir("/proc/self/fd");
  int self = d ? dirfd(d) : -1, fds[1024], n = 0;
  for (struct dirent *e; d && (e = readdir(d)) && n < 1024;) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd != keep && fd != self)
      fds[n++] = fd;
  }
  if (d)
    closedir(d);
  for (int i = 0; i < n; i++)
    close(fds[i]);
  int null = open("/dev/null", O_RDWR);
  for (int fd = 0; null >= 0 && fd <= 2; fd++)
    if (fd != keep)
      dup2(null, fd);
  if (null > 2)
    close(null);
}

static void janitor_run(int rd, const char *dir, dev_t dev, ino_t ino) {
  setsid();
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_UNBLOCK, &all, NULL);
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  close_all_but(rd);
  proctitle_set("dsana-janitor", "dsana: janitor of %s", dir);
  for (char c;;) { /* nothing is ever written: end-of-file is the signal */
    ssize_t r = read(rd, &c, 1);
    if (r == 0 || (r < 0 && errno != EINTR))
      break;
  }
  struct stat st;
  if (lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev == dev && st.st_ino == ino)
    launch_remove_dir(dir);
  _exit(0);
}

int launch_janitor_start(const char *dir, struct launch_janitor *j) {
  int p[2];
  struct stat st;
  j->pid = -1;
  j->wr = -1;
  if (lstat(dir, &st) != 0 || pipe(p) != 0)
    return DSANA_EIO;
  pid_t pid = fork();
  if (pid == 0) {
    close(p[1]);
    janitor_run(p[0], dir, st.st_dev, st.st_ino);
  }
  close(p[0]);
  if (pid < 0) {
    close(p[1]);
    return DSANA_EIO;
  }
  j->pid = pid;
  j->wr = p[1]; /* the roles inherit it: end-of-file once they are all gone too */
  return 0;
}

void launch_janitor_stop(struct launch_janitor *j) {
  if (j->wr >= 0)
    close(j->wr);
  j->wr = -1;
}
