/*
 * graph_util.c - small helpers every graph_*.c file of the io layer uses
 * (and the dataset_*.c files too): a binary format's magic, warning
 * messages (error messages are io_errf's, errf.c), printable tokens for
 * messages, big allocations (with transparent huge pages), and the
 * two-thread fork/join the builder and the generators run their passes on.
 */
#define _GNU_SOURCE /* pthread_getname_np */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/graph/graph_internal.h"
#include "util/text/proctitle.h"

bool graph_file_has_magic(const char *path, const char magic[8]) {
  char head[8];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t r = read(fd, head, sizeof head);
  close(fd);
  return r == (ssize_t)sizeof head && memcmp(head, magic, sizeof head) == 0;
}

void graph_warnf(const struct dsana_graph_opts *opts, const char *fmt, ...) {
  char msg[512];
  if (!opts || !opts->warn)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  opts->warn(opts->warn_ctx, msg);
}

void graph_token(const char *p, char *out, size_t outlen) {
  size_t i = 0;
  if (!outlen)
    return;
  while (i + 1 < outlen && *p != '\n' && *p != ' ' && *p != '\t' && *p != '\r') {
    unsigned char c = (unsigned char)*p++;
    out[i++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  out[i] = '\0';
}

void *graph_big_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (p && bytes >= (8u << 20)) {
    /* Only the 2 MiB-aligned interior: madvise wants page alignment. */
    uintptr_t a = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)((2u << 20) - 1);
    if (e > a)
      madvise((void *)a, e - a, MADV_HUGEPAGE);
  }
  return p;
}

void *graph_big_calloc(size_t bytes) {
  void *p = graph_big_alloc(bytes);
  if (p)
    memset(p, 0, bytes);
  return p;
}

unsigned graph_threads(void) {
  /* DSANA_IO_THREADS overrides (tests use it to show results do not depend on it). */
  const char *e = getenv("DSANA_IO_THREADS");
  long t = e ? strtol(e, NULL, 10) : 2;
  return t < 1 ? 1u : t > 8 ? 8u : (unsigned)t;
}

struct par_job {
  void (*fn)(void *, unsigned, unsigned);
  void *arg;
  unsigned t, nthreads;
  const char *parent; /* the starting thread's name */
};

static void *par_main(void *p) {
  struct par_job *j = p;
  char suffix[16];
  snprintf(suffix, sizeof suffix, ".p%u", j->t);
  proctitle_thread_helper(j->parent, suffix); /* "dsana-sched.p1": whose helper it is */
  j->fn(j->arg, j->t, j->nthreads);
  return NULL;
}

void graph_parallel(void (*fn)(void *arg, unsigned t, unsigned nthreads), void *arg, unsigned nthreads) {
  enum { MAXT = 8 };
  pthread_t tid[MAXT];
  struct par_job jobs[MAXT];
  bool started[MAXT] = {false};
  char parent[16] = "dsana";
  if (nthreads > MAXT)
    nthreads = MAXT;
  if (nthreads > 1)
    pthread_getname_np(pthread_self(), parent, sizeof parent);
  for (unsigned t = 1; t < nthreads; t++) {
    jobs[t] = (struct par_job){fn, arg, t, nthreads, parent};
    started[t] = pthread_create(&tid[t], NULL, par_main, &jobs[t]) == 0;
  }
  fn(arg, 0, nthreads);
  for (unsigned t = 1; t < nthreads; t++) {
    if (started[t])
      pthread_join(tid[t], NULL);
    else
      fn(arg, t, nthreads);
  }
}
