/* log.c - stderr diagnostics with a role prefix; one write() per line so
 * that lines from several processes do not interleave. The prefix is the
 * calling thread's role when it set one (roles that are threads of one
 * process), else the last role set in the process (its compute threads). */
#include "util/text/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t log_role_mu = PTHREAD_MUTEX_INITIALIZER; /* guards log_role: roles may be threads */
static char log_role[64];                                       /* the process's */
static _Thread_local char log_role_mine[64];                    /* the calling thread's, "" = the process's */
static _Thread_local char log_last[512];                        /* the last error, per thread */
static enum log_level log_level_now = LOG_WARN;
static pthread_mutex_t log_first_mu = PTHREAD_MUTEX_INITIALIZER; /* guards log_first */
static char log_first[1024];                                     /* the first error line since the reset */

void log_set_role(const char *role) {
  pthread_mutex_lock(&log_role_mu);
  snprintf(log_role, sizeof log_role, "%s", role ? role : "");
  pthread_mutex_unlock(&log_role_mu);
  snprintf(log_role_mine, sizeof log_role_mine, "%s", role ? role : "");
}
void log_set_level(enum log_level level) { log_level_now = level; }

const char *log_last_error(void) { return log_last; }

void log_first_error(char *buf, size_t len) {
  pthread_mutex_lock(&log_first_mu);
  snprintf(buf, len, "%s", log_first);
  pthread_mutex_unlock(&log_first_mu);
}

void log_reset(void) {
  log_level_now = LOG_WARN;
  pthread_mutex_lock(&log_first_mu);
  log_first[0] = '\0';
  pthread_mutex_unlock(&log_first_mu);
}

static void note_first_error(const char *line, size_t len) {
  pthread_mutex_lock(&log_first_mu);
  if (!log_first[0])
    snprintf(log_first, sizeof log_first, "%.*s", (int)len, line);
  pthread_mutex_unlock(&log_first_mu);
}

void log_msg(enum log_level level, const char *fmt, ...) {
  if (level == LOG_ERROR) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(log_last, sizeof log_last, fmt, ap);
    va_end(ap);
  }
  if (level > log_level_now)
    return;
  char line[1024], role[64];
  if (log_role_mine[0]) {
    memcpy(role, log_role_mine, sizeof role);
  } else {
    pthread_mutex_lock(&log_role_mu);
    memcpy(role, log_role, sizeof role);
    pthread_mutex_unlock(&log_role_mu);
  }
  int n = snprintf(line, sizeof line, "dsana: %s%s", role, role[0] ? ": " : "");
  if (n < 0 || (size_t)n >= sizeof line)
    n = 0;
  va_list ap;
  va_start(ap, fmt);
  int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  va_end(ap);
  size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
  if (len > sizeof line - 2)
    len = sizeof line - 2;
  if (level == LOG_ERROR)
    note_first_error(line, len);
  line[len++] = '\n';
  ssize_t w = write(STDERR_FILENO, line, len);
  (void)w;
}
