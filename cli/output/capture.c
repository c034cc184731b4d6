/* capture.c - stderr kept for dsana_run's caller (capture.h). */
#define _GNU_SOURCE /* memfd_create */
#include "cli/output/capture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/dsana.h"

/* A file in memory (no file system touched); a temporary file, unlinked
 * already, where memfd_create is refused. */
static int capture_file(void) {
  int fd = memfd_create("dsana-stderr", MFD_CLOEXEC);
  if (fd >= 0)
    return fd;
  FILE *f = tmpfile();
  fd = f ? dup(fileno(f)) : -1;
  if (f)
    fclose(f);
  return fd;
}

int capture_begin(struct capture *c) {
  c->file_fd = capture_file();
  if (c->file_fd < 0)
    return DSANA_EIO;
  fflush(stderr);
  c->saved_fd = dup(STDERR_FILENO);
  if (c->saved_fd < 0 || dup2(c->file_fd, STDERR_FILENO) < 0) {
    if (c->saved_fd >= 0)
      close(c->saved_fd);
    close(c->file_fd);
    return DSANA_EIO;
  }
  return 0;
}

/* The whole file, NUL-terminated, or NULL when empty or unreadable. */
static char *read_all(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0)
    return NULL;
  size_t len = (size_t)st.st_size;
  char *text = malloc(len + 1);
  ssize_t got = text ? pread(fd, text, len, 0) : -1;
  if (got < 0) {
    free(text);
    return NULL;
  }
  text[got] = '\0';
  return text;
}

void capture_end(struct capture *c, char **text) {
  fflush(stderr);
  dup2(c->saved_fd, STDERR_FILENO);
  close(c->saved_fd);
  *text = read_all(c->file_fd);
  close(c->file_fd);
}

void capture_first_error(const char *text, char *line, size_t len) {
  line[0] = '\0';
  for (const char *p = text; p && *p;) {
    const char *end = strchr(p, '\n');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    /* a warning says "warning:" early in its line, after the prefix */
    const char *w = strstr(p, "warning:");
    bool warning = w && w < p + n;
    if (n > 0 && !warning) {
      snprintf(line, len, "%.*s", (int)n, p);
      return;
    }
    p = end ? end + 1 : p + n;
  }
}
