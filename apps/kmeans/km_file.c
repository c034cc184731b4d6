/*
 * km_file.c - reading a centroid file (--init-centroids): K lines of D
 * numbers, the format --out writes, so that a run can start where another
 * ended and a test can hand scikit-learn the same starting centroids.
 * Plain or gzip; '#' lines and blank lines are skipped; values are
 * separated by spaces, tabs or commas; a trailing '\r' is dropped. As
 * strict as the model readers (apps/common/model_text.h): line by line, a
 * NUL byte or a line longer than D numbers can take is refused at once,
 * every value a finite decimal number (no nan, inf or hex), exactly D on a
 * line and exactly K lines; each error names the file and the line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/common/model_text.h"
#include "kmeans.h"

/* The longest line D values may take: "%.17g" is at most 24 bytes, with
 * room for a separator and generous spacing. */
#define KM_LINE_BYTES_PER_VALUE 48
#define KM_LINE_SLACK 4096

static bool is_sep(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

/* A finite decimal number token [p, q): *v. */
static bool scan_value(const char *p, const char *q, double *v) {
  for (const char *c = p; c < q; c++)
    if (!strchr("0123456789.eE+-", *c))
      return false;
  char *stop;
  double x = strtod(p, &stop);
  if (q == p || stop != q || !isfinite(x))
    return false;
  *v = x;
  return true;
}

/* The d values of line p (NUL-terminated) into row; 0 or DSANA_EFORMAT. */
static int parse_line(const struct model_text_in *in, const char *p, uint64_t d, double *row, char *err,
                      size_t errlen) {
  uint64_t n = 0;
  for (;;) {
    while (is_sep(*p))
      p++;
    if (!*p)
      break;
    const char *q = p;
    while (*q && !is_sep(*q))
      q++;
    double v = 0;
    if (!scan_value(p, q, &v)) {
      int len = q - p > 24 ? 24 : (int)(q - p);
      snprintf(err, errlen, "%s:%llu: value %llu '%.*s' is not a finite number", in->path, (unsigned long long)in->line,
               (unsigned long long)n + 1, len, p);
      return DSANA_EFORMAT;
    }
    if (n < d)
      row[n] = v;
    n++;
    p = q;
  }
  if (n != d) {
    snprintf(err, errlen, "%s:%llu: %llu values, expected %llu (the data's features)", in->path,
             (unsigned long long)in->line, (unsigned long long)n, (unsigned long long)d);
    return DSANA_EFORMAT;
  }
  return 0;
}

static bool skipped(const char *p) {
  while (is_sep(*p))
    p++;
  return !*p || *p == '#';
}

/* The centroid lines of an open file into c; then the end. */
static int read_lines(struct model_text_in *in, uint64_t k, uint64_t d, double *c, char *err, size_t errlen) {
  uint64_t got = 0;
  int rc;
  while ((rc = model_text_line(in, err, errlen)) == 1) {
    if (skipped(in->buf))
      continue;
    if (got == k) {
      snprintf(err, errlen, "%s:%llu: more than the %llu centroids --k asks for", in->path,
               (unsigned long long)in->line, (unsigned long long)k);
      return DSANA_EFORMAT;
    }
    if ((rc = parse_line(in, in->buf, d, c + got * d, err, errlen)) != 0)
      return rc;
    got++;
  }
  if (rc < 0)
    return rc;
  if (got < k) {
    snprintf(err, errlen, "%s: only %llu of the %llu centroids --k asks for", in->path, (unsigned long long)got,
             (unsigned long long)k);
    return DSANA_EFORMAT;
  }
  return 0;
}

int km_read_centroids(const char *path, uint64_t k, uint64_t d, double *c, char *err, size_t errlen) {
  struct model_text_in in;
  uint64_t line_max = KM_LINE_SLACK + d * KM_LINE_BYTES_PER_VALUE;
  int rc = model_text_open_max(path, line_max > (1u << 30) ? (1u << 30) : (size_t)line_max, &in, err, errlen);
  if (!rc)
    rc = read_lines(&in, k, d, c, err, errlen);
  model_text_close(&in);
  return rc;
}
