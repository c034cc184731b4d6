/*
 * infile.h - how dsana reads the bytes of a text input (edge lists,
 * Matrix Market, libsvm, models, centroids): a plain file as it is, or a
 * gzip file (one starting with 1f 8b) inflated. gzip's own rules: members
 * may follow one another (cat a.gz b.gz) and zero bytes may pad the end;
 * any other byte after the gzip data is an error naming its offset, where
 * zlib's gzread would drop it silently. Public so that apps read their
 * own text files (a model for `predict`) as the io layer reads its inputs;
 * implemented in the io layer. A struct dsana_infile belongs to one thread.
 */
#ifndef DSANA_INFILE_H
#define DSANA_INFILE_H

#include <stddef.h>

#include "dsana/export.h"

struct dsana_infile;

/* Open path for reading. *in is NULL on failure: DSANA_EIO or
 * DSANA_ENOMEM with one line "PATH: reason" in err. The path is copied. */
DSANA_API int dsana_infile_open(const char *path, struct dsana_infile **in, char *err, size_t errlen);
/* Up to want bytes into buf, *got of them; *got is 0 only at the end of
 * the data. A damaged gzip stream or bytes after it: DSANA_EFORMAT, a
 * read error DSANA_EIO, each with one line naming the path (and the
 * offset) in err. */
DSANA_API int dsana_infile_read(struct dsana_infile *in, void *buf, size_t want, size_t *got, char *err, size_t errlen);
/* Close and free (NULL is fine). */
DSANA_API void dsana_infile_close(struct dsana_infile *in);

#endif /* DSANA_INFILE_H */
