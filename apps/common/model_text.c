/* model_text.c - text model files, written atomically, read plain or gzip (model_text.h). */
#define _GNU_SOURCE /* fopencookie */
#include "model_text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
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

int model_text_put_body(struct dsana_outfile *o, const double *labels, uint64_t K, const double *v, uint64_t n) {
  int bad = 0;
  for (uint64_t c = 0; c < K; c++)
    bad |= dsana_outfile_printf(o, " %.17g", labels[c]) < 0;
  bad |= dsana_outfile_write(o, "\n", 1) != 0;
  for (uint64_t i = 0; i < n && !bad; i++)
    bad = dsana_outfile_printf(o, "%.17g\n", v[i]) < 0;
  return bad;
}

int model_text_get_labels(FILE *f, const char *path, double *labels, uint64_t K, char *err, size_t errlen) {
  for (uint64_t c = 0; c < K; c++)
    if (fscanf(f, "%lf", &labels[c]) != 1) {
      snprintf(err, errlen, "%s: the header lists fewer than %llu labels", path, (unsigned long long)K);
      return DSANA_EFORMAT;
    }
  return 0;
}

int model_text_get_values(FILE *f, const char *path, const char *what, double *v, uint64_t n, uint64_t first_line,
                          char *err, size_t errlen) {
  for (uint64_t i = 0; i < n; i++)
    if (fscanf(f, "%lf", &v[i]) != 1 || !isfinite(v[i])) {
      snprintf(err, errlen, "%s: %s %llu missing or not a finite number (line %llu)", path, what,
               (unsigned long long)i + 1, (unsigned long long)(first_line + i));
      return DSANA_EFORMAT;
    }
  return 0;
}
