/*
 * km_file.c - reading a centroid file (--init-centroids): K lines of D
 * numbers, the format --out writes, so that a run can start where another
 * ended and a test can hand scikit-learn the same starting centroids.
 * Plain or gzip (zlib reads both); '#' lines and blank lines are skipped;
 * values are separated by spaces, tabs or commas; '\r' is ignored.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kmeans.h"

#define KM_FILE_MAX (1ull << 30) /* bytes at most */

/* Room for at least one more byte and the NUL: 0, or DSANA_ENOMEM. */
static int grow(char **buf, size_t *cap, size_t n) {
  if (*cap - n >= 2)
    return 0;
  char *bigger = realloc(*buf, *cap * 2);
  if (!bigger)
    return DSANA_ENOMEM;
  *buf = bigger;
  *cap *= 2;
  return 0;
}

/* The whole file, NUL-terminated, into *text (malloc'd). */
static int slurp(const char *path, char **text, char *err, size_t errlen) {
  errno = 0;
  gzFile z = gzopen(path, "rb");
  if (!z) {
    snprintf(err, errlen, "%s: %s", path, errno ? strerror(errno) : "cannot open");
    return DSANA_EIO;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  int got = 1, rc = buf ? 0 : DSANA_ENOMEM;
  while (!rc && got > 0 && n <= KM_FILE_MAX && (rc = grow(&buf, &cap, n)) == 0) {
    got = gzread(z, buf + n, (unsigned)(cap - n - 1));
    n += got > 0 ? (size_t)got : 0;
  }
  int zerr = 0;
  if (rc)
    snprintf(err, errlen, "%s: out of memory", path);
  else if (got < 0)
    snprintf(err, errlen, "%s: cannot read: %s", path, gzerror(z, &zerr));
  else if (n > KM_FILE_MAX)
    snprintf(err, errlen, "%s: larger than 1 GiB", path);
  rc = rc ? rc : got < 0 ? DSANA_EIO : n > KM_FILE_MAX ? DSANA_EFORMAT : 0;
  gzclose_r(z);
  if (rc) {
    free(buf);
    return rc;
  }
  buf[n] = '\0';
  *text = buf;
  return 0;
}

static bool is_sep(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

/* The d values of one line [p, end) into row; 0 or DSANA_EFORMAT with err. */
static int parse_line(const char *path, uint64_t line, char *p, const char *end, uint64_t d, double *row, char *err,
                      size_t errlen) {
  uint64_t n = 0;
  for (;;) {
    while (p < end && is_sep(*p))
      p++;
    if (p >= end)
      break;
    char *stop;
    errno = 0;
    double v = strtod(p, &stop);
    if (stop == p || (stop < end && !is_sep(*stop))) {
      int len = 0;
      while (p + len < end && !is_sep(p[len]) && len < 24)
        len++;
      snprintf(err, errlen, "%s:%llu: value %llu '%.*s' is not a number", path, (unsigned long long)line,
               (unsigned long long)n + 1, len, p);
      return DSANA_EFORMAT;
    }
    if (!isfinite(v)) {
      snprintf(err, errlen, "%s:%llu: value %llu is not finite", path, (unsigned long long)line,
               (unsigned long long)n + 1);
      return DSANA_EFORMAT;
    }
    if (n < d)
      row[n] = v;
    n++;
    p = stop;
  }
  if (n != d) {
    snprintf(err, errlen, "%s:%llu: %llu values, expected %llu (the data's features)", path, (unsigned long long)line,
             (unsigned long long)n, (unsigned long long)d);
    return DSANA_EFORMAT;
  }
  return 0;
}

static bool skipped(const char *p, const char *end) {
  while (p < end && is_sep(*p))
    p++;
  return p == end || *p == '#';
}

int km_read_centroids(const char *path, uint64_t k, uint64_t d, double *c, char *err, size_t errlen) {
  char *text;
  int rc = slurp(path, &text, err, errlen);
  if (rc)
    return rc;
  uint64_t got = 0, line = 0;
  for (char *p = text; !rc && *p;) {
    char *end = strchr(p, '\n');
    if (!end)
      end = p + strlen(p);
    line++;
    if (!skipped(p, end)) {
      if (got == k) {
        snprintf(err, errlen, "%s:%llu: more than the %llu centroids --k asks for", path, (unsigned long long)line,
                 (unsigned long long)k);
        rc = DSANA_EFORMAT;
      } else {
        rc = parse_line(path, line, p, end, d, c + got * d, err, errlen);
        got++;
      }
    }
    p = *end ? end + 1 : end;
  }
  free(text);
  if (!rc && got < k) {
    snprintf(err, errlen, "%s: only %llu of the %llu centroids --k asks for", path, (unsigned long long)got,
             (unsigned long long)k);
    rc = DSANA_EFORMAT;
  }
  return rc;
}
