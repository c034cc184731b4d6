/*
 * model_text.h - text model and prediction files of the supervised apps
 * (logreg, mlp): written through dsana/outfile.h (a regular file replaced
 * atomically, a FIFO or device written in place, gzip for a name ending
 * in ".gz") and read back through stdio over dsana/infile.h, gzipped or
 * not (bytes after the gzip data refused, as for every text input).
 */
#ifndef DSANA_APPS_COMMON_MODEL_TEXT_H
#define DSANA_APPS_COMMON_MODEL_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dsana/outfile.h"

/* Write the text fill() makes to path; fill returns non-zero after a
 * failed write (the outfile keeps the error and commit reports it). */
int model_text_write(const char *path, int (*fill)(struct dsana_outfile *o, const void *arg), const void *arg,
                     char *err, size_t errlen);
/* A model file of a supervised app (logreg, mlp), line by line:
 *   # dsana <kind> model
 *   <header>                  the app's own line (its shape, no '\n')
 *   # labels l_0 ... l_K-1    (%.17g, ascending: class c is l_c)
 *   then the n values of its table, one a line (%.17g). */
struct model_text_file {
  const char *kind;   /* "logreg", "mlp" */
  const char *header; /* "# features ..." */
  const double *labels;
  uint64_t K;
  const double *v;
  uint64_t n;
};
/* Write it to path (model_text_write); one line in err on failure. */
int model_text_write_model(const char *path, const struct model_text_file *m, char *err, size_t errlen);
/* Reading one back, strictly, line by line: a line is at most
 * MODEL_TEXT_LINE_MAX bytes and holds no NUL byte (a trailing '\r' is
 * dropped); every number is a finite decimal number, one per value line,
 * and nothing may follow the last value. Every error is DSANA_EFORMAT (or
 * DSANA_EIO, DSANA_ENOMEM) with one line naming the file and the line. */
#define MODEL_TEXT_LINE_MAX 65536
struct model_src; /* the bytes under f (model_text.c) */
struct model_text_in {
  FILE *f;
  struct model_src *src; /* owned by f: freed when f is closed */
  const char *path;
  uint64_t line;   /* the number of the line in buf */
  size_t line_max; /* the longest line taken (MODEL_TEXT_LINE_MAX unless opened with another) */
  char *buf;       /* line_max + 1 bytes: the line, without '\n' */
};
/* Open path for reading, plain or gzip; one line in err on failure
 * (DSANA_EIO, DSANA_ENOMEM). Close with model_text_close (also after a failed open). */
int model_text_open(const char *path, struct model_text_in *in, char *err, size_t errlen);
/* The same with lines of up to line_max bytes (other text files of the
 * apps: a centroid file's line holds as many numbers as the data's
 * features). */
int model_text_open_max(const char *path, size_t line_max, struct model_text_in *in, char *err, size_t errlen);
void model_text_close(struct model_text_in *in);
/* The next line into in->buf: 1, or 0 at the end of the file, or an error. */
int model_text_line(struct model_text_in *in, char *err, size_t errlen);
/* The next line must be `want`, else "not a dsana `kind` model". */
int model_text_expect(struct model_text_in *in, const char *want, const char *kind, char *err, size_t errlen);
/* The labels line: "# labels" then exactly K distinct finite numbers. */
int model_text_get_labels(struct model_text_in *in, double *labels, uint64_t K, char *err, size_t errlen);
/* Then n lines of one finite number each (`what` names them in
 * messages: "weight 3"), and the end of the file. */
int model_text_get_values(struct model_text_in *in, const char *what, double *v, uint64_t n, char *err, size_t errlen);

#endif
