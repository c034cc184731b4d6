/* model_text.c - text model files, written atomically, read plain or gzip
 * through dsana/infile.h, as the io layer reads its inputs (model_text.h). */
#define _GNU_SOURCE /* fopencookie */
#include "model_text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "dsana/dsana.h"
#include "dsana/infile.h"

int model_text_write(const char *path, int (*fill)(struct dsana_outfile *o, const void *arg), const void *arg,
                     char *err, size_t errlen) {
  struct dsana_outfile *o;
  int rc = dsana_outfile_open(path, DSANA_OUT_GZIP_SUFFIX, &o, err, errlen);
  if (rc)
    return rc;
  fill(o, arg); /* a failed write is kept by o and reported by commit */
  return dsana_outfile_commit(o, err, errlen);
}

/* dsana/infile.h under stdio: plain or gzip as the io layer reads its
 * inputs (bytes after the gzip data refused); a failed read keeps its
 * message and code for model_text_line. */
struct model_src {
  struct dsana_infile *in;
  int rc;
  char err[256];
};

static ssize_t src_cookie_read(void *c, char *buf, size_t n) {
  struct model_src *s = c;
  size_t got = 0;
  s->rc = dsana_infile_read(s->in, buf, n, &got, s->err, sizeof s->err);
  return s->rc ? -1 : (ssize_t)got;
}

static int src_cookie_close(void *c) {
  struct model_src *s = c;
  dsana_infile_close(s->in);
  free(s);
  return 0;
}

static int fill_model(struct dsana_outfile *o, const void *arg) {
  const struct model_text_file *m = arg;
  int bad = dsana_outfile_printf(o, "# dsana %s model\n%s\n# labels", m->kind, m->header) < 0;
  for (uint64_t c = 0; c < m->K; c++)
    bad |= dsana_outfile_printf(o, " %.17g", m->labels[c]) < 0;
  bad |= dsana_outfile_write(o, "\n", 1) != 0;
  for (uint64_t i = 0; i < m->n && !bad; i++)
    bad = dsana_outfile_printf(o, "%.17g\n", m->v[i]) < 0;
  return bad;
}

int model_text_write_model(const char *path, const struct model_text_file *m, char *err, size_t errlen) {
  return model_text_write(path, fill_model, m, err, errlen);
}

/* "PATH:LINE: " then the message. */
__attribute__((format(printf, 4, 5))) static int line_err(const struct model_text_in *in, char *err, size_t errlen,
                                                          const char *fmt, ...) {
  int n = snprintf(err, errlen, "%s:%llu: ", in->path, (unsigned long long)in->line);
  if (n >= 0 && (size_t)n < errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return DSANA_EFORMAT;
}

int model_text_open(const char *path, struct model_text_in *in, char *err, size_t errlen) {
  return model_text_open_max(path, MODEL_TEXT_LINE_MAX, in, err, errlen);
}

int model_text_open_max(const char *path, size_t line_max, struct model_text_in *in, char *err, size_t errlen) {
  memset(in, 0, sizeof *in);
  in->path = path;
  in->line_max = line_max;
  in->buf = malloc(line_max + 1);
  if (!in->buf) {
    snprintf(err, errlen, "%s: out of memory", path);
    return DSANA_ENOMEM;
  }
  struct model_src *src = calloc(1, sizeof *src);
  if (!src) {
    snprintf(err, errlen, "%s: out of memory", path);
    return DSANA_ENOMEM;
  }
  int rc = dsana_infile_open(path, &src->in, err, errlen);
  if (rc) {
    free(src);
    return rc;
  }
  in->f = fopencookie(src, "r", (cookie_io_functions_t){.read = src_cookie_read, .close = src_cookie_close});
  if (!in->f) {
    src_cookie_close(src);
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return DSANA_EIO;
  }
  in->src = src;
  return 0;
}

void model_text_close(struct model_text_in *in) {
  if (in->f)
    fclose(in->f);
  free(in->buf);
  memset(in, 0, sizeof *in);
}

int model_text_line(struct model_text_in *in, char *err, size_t errlen) {
  size_t len = 0;
  int c;
  while ((c = getc_unlocked(in->f)) != EOF && c != '\n') {
    if (len == in->line_max) {
      in->line++;
      return line_err(in, err, errlen, "line longer than %zu bytes", in->line_max);
    }
    if (c == '\0') {
      in->line++;
      return line_err(in, err, errlen, "NUL byte at column %zu", len + 1);
    }
    in->buf[len++] = (char)c;
  }
  if (ferror(in->f)) {
    snprintf(err, errlen, "%s", in->src->err);
    return in->src->rc ? in->src->rc : DSANA_EIO;
  }
  if (c == EOF && len == 0)
    return 0;
  in->line++;
  if (len && in->buf[len - 1] == '\r')
    len--;
  in->buf[len] = '\0';
  return 1;
}

int model_text_expect(struct model_text_in *in, const char *want, const char *kind, char *err, size_t errlen) {
  int rc = model_text_line(in, err, errlen);
  if (rc < 0)
    return rc;
  if (rc == 0 || strcmp(in->buf, want) != 0)
    return line_err(in, err, errlen, "not a dsana %s model (want '%s')", kind, want);
  return 0;
}

/* A finite decimal number token at p (no inf, nan or hex), ending at a
 * blank or the end of the line: true with *v and *end past it. */
static bool scan_number(const char *p, const char **end, double *v) {
  const char *q = p;
  while (*q && *q != ' ' && *q != '\t') {
    if (!strchr("0123456789.eE+-", *q))
      return false;
    q++;
  }
  if (q == p)
    return false;
  char *stop;
  double x = strtod(p, &stop);
  if (stop != q || !isfinite(x))
    return false;
  *v = x;
  *end = q;
  return true;
}

static const char *skip_blanks(const char *p) {
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

/* The token at p for a message, at most 40 bytes. */
static const char *token(const char *p, char *tok, size_t toklen) {
  size_t i = 0;
  while (p[i] && p[i] != ' ' && p[i] != '\t' && i + 1 < toklen && i < 40) {
    tok[i] = p[i];
    i++;
  }
  tok[i] = '\0';
  return tok;
}

int model_text_get_labels(struct model_text_in *in, double *labels, uint64_t K, char *err, size_t errlen) {
  char tok[48];
  int rc = model_text_line(in, err, errlen);
  if (rc < 0)
    return rc;
  if (rc == 0 || strncmp(in->buf, "# labels", 8) != 0 || (in->buf[8] && in->buf[8] != ' ' && in->buf[8] != '\t'))
    return line_err(in, err, errlen, "want the '# labels' line of the header");
  const char *p = in->buf + 8;
  for (uint64_t c = 0; c < K; c++) {
    p = skip_blanks(p);
    if (!*p)
      return line_err(in, err, errlen, "the header lists %llu labels, the model has %llu classes",
                      (unsigned long long)c, (unsigned long long)K);
    if (!scan_number(p, &p, &labels[c]))
      return line_err(in, err, errlen, "label %llu '%s' is not a finite number", (unsigned long long)c + 1,
                      token(p, tok, sizeof tok));
    for (uint64_t d = 0; d < c; d++)
      if (labels[d] == labels[c])
        return line_err(in, err, errlen, "label %.17g listed twice", labels[c]);
  }
  p = skip_blanks(p);
  if (*p)
    return line_err(in, err, errlen, "more than the %llu labels of the model's classes: '%s'", (unsigned long long)K,
                    token(p, tok, sizeof tok));
  return 0;
}

int model_text_get_values(struct model_text_in *in, const char *what, double *v, uint64_t n, char *err, size_t errlen) {
  char tok[48];
  for (uint64_t i = 0; i < n; i++) {
    int rc = model_text_line(in, err, errlen);
    if (rc < 0)
      return rc;
    if (rc == 0) {
      snprintf(err, errlen, "%s: %s %llu missing: the file ends after line %llu (the header asks for %llu)", in->path,
               what, (unsigned long long)i + 1, (unsigned long long)in->line, (unsigned long long)n);
      return DSANA_EFORMAT;
    }
    const char *p = skip_blanks(in->buf);
    if (!scan_number(p, &p, &v[i]))
      return line_err(in, err, errlen, "%s %llu '%s' is not a finite number", what, (unsigned long long)i + 1,
                      token(skip_blanks(in->buf), tok, sizeof tok));
    p = skip_blanks(p);
    if (*p)
      return line_err(in, err, errlen, "%s %llu: more than one number on the line ('%s')", what,
                      (unsigned long long)i + 1, token(p, tok, sizeof tok));
  }
  int rc = model_text_line(in, err, errlen);
  if (rc < 0)
    return rc;
  if (rc)
    return line_err(in, err, errlen, "more lines than the %llu %ss the header declares", (unsigned long long)n, what);
  return 0;
}
