/*
 * model_text.h - text model and prediction files of the supervised apps
 * (logreg, mlp): written through dsana/outfile.h (a regular file replaced
 * atomically, a FIFO or device written in place, gzip for a name ending
 * in ".gz") and read back through stdio whether gzipped or not.
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
/* The end of a model file's header and its body: " l_0 ... l_K-1\n"
 * (the labels, %.17g, after the header's "# labels"), then the n values
 * one a line (%.17g). Non-zero after a failed write (the outfile keeps it). */
int model_text_put_body(struct dsana_outfile *o, const double *labels, uint64_t K, const double *v, uint64_t n);
/* Read them back: K labels, then n finite values (the first on line
 * `first_line`); DSANA_EFORMAT with one line naming the file, and the
 * value (`what` and its number) and its line. */
int model_text_get_labels(FILE *f, const char *path, double *labels, uint64_t K, char *err, size_t errlen);
int model_text_get_values(FILE *f, const char *path, const char *what, double *v, uint64_t n, uint64_t first_line,
                          char *err, size_t errlen);
/* Open path for reading, plain or gzip; one line in err on failure (DSANA_EIO). */
int model_text_open(const char *path, FILE **f, char *err, size_t errlen);

#endif
