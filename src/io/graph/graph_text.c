/*
 * graph_text.c - the block reader under the text parsers (SNAP, Matrix
 * Market, libsvm). infile_src.c reads plain and gzip files alike; we
 * hand the parsers big blocks of whole lines so their scanners can use '\n' as a
 * sentinel and never check for the end of the buffer inside a line.
 *
 * A file starts in a small block and moves to the full 8 MiB one only once
 * it fills the small one, so a big file is read in the same 8 MiB blocks
 * while a small one (a config-sized graph, a fuzz input) does not pay for
 * allocating and touching 8 MiB per open; the input buffer likewise
 * shrinks to a small file's size.
 *
 * A line is at most t->max_line bytes (without its '\n'; 1 MiB unless the
 * format asks for more): a longer one is refused with the file and its
 * line number, so a file without line breaks (/dev/zero, a binary file)
 * fails after reading a bounded amount instead of growing the buffer until
 * memory runs out. Each block is checked for long lines in strides of
 * max_line bytes, one memrchr per stride, so the check costs nothing on
 * the short lines of real files.
 */
#define _GNU_SOURCE /* memrchr */
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/graph/graph_internal.h"

enum { TEXT_FIRST_BLOCK_BYTES = 64u << 10, TEXT_BLOCK_BYTES = 8u << 20 };

int graph_text_open(struct graph_text *t, const char *path, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  t->path = path;
  int rc = infile_src_open(&t->src, path, err, errlen);
  if (rc)
    return rc;
  t->max_line = GRAPH_TEXT_MAX_LINE;
  t->cap = TEXT_FIRST_BLOCK_BYTES;
  t->buf = malloc(t->cap + 1);
  if (!t->buf) {
    graph_text_close(t);
    return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", path);
  }
  return 0;
}

void graph_text_close(struct graph_text *t) {
  infile_src_close(&t->src);
  free(t->buf);
  memset(t, 0, sizeof *t);
}

/* Read as much as fits after t->len; sets eof. */
static int fill(struct graph_text *t, char *err, size_t errlen) {
  while (!t->eof && t->len < t->cap) {
    size_t got = 0;
    int rc = infile_src_read(&t->src, t->buf + t->len, t->cap - t->len, &got, err, errlen);
    if (rc)
      return rc;
    t->eof = got == 0;
    t->len += got;
  }
  return 0;
}

/* Make buf hold ncap bytes (plus the one for a final '\n'); false if out of memory. */
static bool grow(struct graph_text *t, size_t ncap) {
  char *nb = realloc(t->buf, ncap + 1);
  if (!nb)
    return false;
  t->buf = nb;
  t->cap = ncap;
  return true;
}

static int too_long(const struct graph_text *t, uint64_t line, char *err, size_t errlen) {
  return io_errf(err, errlen, DSANA_EFORMAT, "%s:%llu: line longer than %zu bytes (the longest a line may be)", t->path,
                 (unsigned long long)line, t->max_line);
}

/* Whether every line of the block [0, t->block) is at most max_line bytes;
 * names the first longer one (lines_done lines came before the block). A
 * window of max_line + 1 bytes from a line's start holds that line's '\n'
 * if the line is short enough; the window's last '\n' starts the next one. */
static int check_lines(const struct graph_text *t, uint64_t lines_done, char *err, size_t errlen) {
  const char *p = t->buf, *end = t->buf + t->block;
  while ((size_t)(end - p) > t->max_line + 1) {
    const char *nl = memrchr(p, '\n', t->max_line + 1);
    if (!nl) {
      for (const char *q = t->buf; q < p; q++) /* (only on the way out) */
        lines_done += *q == '\n';
      return too_long(t, lines_done + 1, err, errlen);
    }
    p = nl + 1;
  }
  return 0;
}

int graph_text_next(struct graph_text *t, uint64_t lines_done, const char **p, const char **end, char *err,
                    size_t errlen) {
  if (t->replay) {
    t->replay = false;
    if (!t->block)
      return 0;
    *p = t->buf;
    *end = t->buf + t->block;
    return 1;
  }
  /* Drop the block handed out last time, keep the partial line after it. */
  memmove(t->buf, t->buf + t->block, t->len - t->block);
  t->len -= t->block;
  t->block = 0;
  for (;;) {
    int rc = fill(t, err, errlen);
    if (rc)
      return rc;
    if (!t->eof && t->cap < TEXT_BLOCK_BYTES) {
      /* The file outgrew the first block: on to the full one. */
      if (!grow(t, TEXT_BLOCK_BYTES))
        return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory (read buffer)", t->path);
      continue;
    }
    char *nl = NULL;
    for (size_t i = t->len; i > 0; i--) {
      if (t->buf[i - 1] == '\n') {
        nl = t->buf + i - 1;
        break;
      }
    }
    if (nl) {
      t->block = (size_t)(nl - t->buf) + 1;
      break;
    }
    if (t->eof) {
      if (!t->len)
        return 0;
      t->buf[t->len++] = '\n'; /* room: buf has cap + 1 bytes */
      t->block = t->len;
      break;
    }
    /* A line longer than the buffer: grow, up to the longest line read. */
    if (t->len > t->max_line)
      return too_long(t, lines_done + 1, err, errlen);
    if (!grow(t, t->cap * 2 < t->max_line + 1 ? t->cap * 2 : t->max_line + 1))
      return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory (line over %zu bytes)", t->path, t->cap);
  }
  int rc = check_lines(t, lines_done, err, errlen);
  if (rc)
    return rc;
  *p = t->buf;
  *end = t->buf + t->block;
  return 1;
}
