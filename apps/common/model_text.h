/*
 * model_text.h - text model and prediction files of the supervised apps
 * (logreg, mlp): written through dsana/outfile.h (a regular file replaced
 * atomically, a FIFO or device written in place, gzip for a name ending
 * in ".gz") and read back through stdio whether gzipped or not.
 */
#ifndef DSANA_APPS_COMMON_MODEL_TEXT_H
#define DSANA_APPS_COMMON_MODEL_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "dsana/outfile.h"

/* Write the text fill() makes to path; fill returns non-zero after a
 * failed write (the outfile keeps the error and commit reports it). */
int model_text_write(const char *path, int (*fill)(struct dsana_outfile *o, const void *arg), const void *arg,
                     char *err, size_t errlen);
/* Open path for reading, plain or gzip; one line in err on failure (DSANA_EIO). */
int model_text_open(const char *path, FILE **f, char *err, size_t errlen);

#endif
