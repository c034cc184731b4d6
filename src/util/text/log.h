/*
 * log.h - one-line diagnostics on stderr, prefixed with the process role
 * ("dsana: worker 2: ..."). Not for results: those go to stdout.
 */
#ifndef DSANA_UTIL_LOG_H
#define DSANA_UTIL_LOG_H

#include <stddef.h>

enum log_level { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 };

/* Set this process's prefix (copied), e.g. "worker 2". */
void log_set_role(const char *role);
void log_set_level(enum log_level level);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text of the last error this process logged (without the prefix),
 * "" if none: what a role that fails tells its scheduler. */
const char *log_last_error(void);
/* The first error line any thread of this process logged (with its
 * prefix, without the newline) since log_reset(), "" if none, copied into
 * buf (len bytes). */
void log_first_error(char *buf, size_t len);
/* Back to the start of a process: level LOG_WARN, no first error (a
 * program running one job after another, dsana/launch.h). */
void log_reset(void);

#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
