/*
 * proctitle.c - process titles (proctitle.h), after PostgreSQL's
 * ps_status.c: the argv strings and the environment strings that follow
 * them form one contiguous area, which /proc/PID/cmdline (and so ps)
 * shows; the environment is copied to the heap, and a title is written
 * over the area, padded with NUL bytes.
 */
#define _GNU_SOURCE /* prctl names */
#include "util/text/proctitle.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

extern char **environ;

static char *title_at;            /* the start of the area (argv[0]), or NULL */
static size_t title_cap;          /* its bytes */
static char **volatile argv_copy; /* kept reachable (for LeakSanitizer) for the process's life */

/* The end of the contiguous strings starting at argv[0], or NULL. */
static char *area_end(int argc, char **argv) {
  char *end = argv[0];
  for (int i = 0; i < argc; i++) {
    if (argv[i] != end)
      return NULL;
    end = argv[i] + strlen(argv[i]) + 1;
  }
  for (int i = 0; environ && environ[i]; i++)
    if (environ[i] == end)
      end = environ[i] + strlen(environ[i]) + 1;
  return end;
}

/* environ onto the heap: its strings are part of the area. A second
 * array keeps every copied string reachable after unsetenv() drops it
 * from environ (LeakSanitizer would call it a leak). */
static char **volatile env_strings;
static char **volatile env_array; /* the copy, still ours when setenv() replaces environ */

static int move_environ(void) {
  size_t n = 0;
  while (environ && environ[n])
    n++;
  char **copy = malloc(sizeof *copy * (n + 1)), **keep = malloc(sizeof *keep * (n + 1));
  if (!copy || !keep) {
    free(copy);
    free(keep);
    return -1;
  }
  env_strings = keep;
  env_array = copy;
  for (size_t i = 0; i <= n; i++)
    keep[i] = copy[i] = NULL;
  for (size_t i = 0; i < n; i++)
    if (!(keep[i] = copy[i] = strdup(environ[i]))) {
      env_array = NULL;
      free(copy); /* the strings copied so far stay reachable through keep */
      return -1;
    }
  environ = copy;
  return 0;
}

char **proctitle_init(int argc, char **argv) {
  if (argc < 1 || !argv || !argv[0])
    return argv;
  char *end = area_end(argc, argv);
  char **copy = malloc(sizeof *copy * ((size_t)argc + 1));
  if (!end || !copy) {
    free(copy);
    return argv;
  }
  for (int i = 0; i < argc; i++)
    if (!(copy[i] = strdup(argv[i])))
      return argv;
  copy[argc] = NULL;
  argv_copy = copy;
  if (move_environ() != 0)
    return copy;
  title_at = argv[0];
  title_cap = (size_t)(end - argv[0]);
  return copy;
}

void proctitle_set(const char *name, const char *fmt, ...) {
  char comm[16];
  snprintf(comm, sizeof comm, "%s", name);
  prctl(PR_SET_NAME, comm, 0, 0, 0);
  if (!title_at || title_cap < 2)
    return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(title_at, title_cap, fmt, ap);
  va_end(ap);
  size_t used = n < 0 ? 0 : (size_t)n >= title_cap ? title_cap - 1 : (size_t)n;
  memset(title_at + used, 0, title_cap - used); /* no old argument shows through */
}

void proctitle_thread_set(const char *name) {
  char comm[16];
  size_t n = strnlen(name, sizeof comm - 1);
  memcpy(comm, name, n);
  comm[n] = '\0';
  pthread_setname_np(pthread_self(), comm);
}

void proctitle_thread_helper(const char *parent, const char *suffix) {
  char comm[32];
  int n = snprintf(comm, sizeof comm, "%s%s", parent, suffix);
  proctitle_thread_set(n > 0 && n < 16 ? comm : parent);
}
