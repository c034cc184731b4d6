/* model_text.c - text model files, written atomically, read plain or gzip (model_text.h). */
#define _GNU_SOURCE /* fopencookie */
#include "model_text.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/types.h>
#include <zlib.h>

#include "dsana/dsana.h"

int model_text_write(const char *path, int (*fill)(struct dsana_outfile *o, const void *arg), const void *arg,
                     char *err, size_t errlen) {
  struct dsana_outfile *o;
  int rc = dsana_outfile_open(path, DSANA_OUT_GZIP_SUFFIX, &o, err, errlen);
  if (rc)
    return rc;
  fill(o, arg); /* a failed write is kept by o and reported by commit */
  return dsana_outfile_commit(o, err, errlen);
}

/* zlib under stdio: gzread passes plain files through. */
static ssize_t gz_cookie_read(void *c, char *buf, size_t n) {
  int got = gzread((gzFile)c, buf, n > INT_MAX ? INT_MAX : (unsigned)n);
  return got < 0 ? -1 : got;
}

static int gz_cookie_close(void *c) { return gzclose_r((gzFile)c) == Z_OK ? 0 : EOF; }

int model_text_open(const char *path, FILE **f, char *err, size_t errlen) {
  errno = 0;
  gzFile z = gzopen(path, "rb");
  *f = z ? fopencookie(z, "r", (cookie_io_functions_t){.read = gz_cookie_read, .close = gz_cookie_close}) : NULL;
  if (z && !*f)
    gzclose_r(z);
  if (!*f) {
    snprintf(err, errlen, "%s: %s", path, errno ? strerror(errno) : "cannot open");
    return DSANA_EIO;
  }
  return 0;
}
