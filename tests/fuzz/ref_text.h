/*
 * ref_text.h - the shared half of the fuzz targets' reference readers
 * (ref_snap.h, ref_mtx.h, ref_libsvm.h): the bytes a text reader sees and
 * the lines and fields it splits them into, written from the rules of
 * README.md ("Text inputs") without calling src/io:
 *
 * - A file starting with 1f 8b is gzip: members one after another, then
 *   only zero bytes; any other trailing byte, or a broken member, refuses
 *   the file. Anything else is read as it is.
 * - Lines end at '\n' (a last line may lack it); one longer than the
 *   format's limit (without its '\n') refuses the file.
 * - Fields are separated by runs of blanks: space, tab, '\r', '\v', '\f'
 *   (C's whitespace but '\n'; so CRLF is tolerated).
 * - A decimal number is [+-]? (digits [. digits?] | . digits) [(e|E) [+-]? digits],
 *   read with strtod: no hex, inf or nan.
 *
 * Header-only (static functions), included once per target.
 */
#ifndef DSANA_FUZZ_REF_TEXT_H
#define DSANA_FUZZ_REF_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Verdicts of a reference reader. */
enum { REF_ACCEPT = 0, REF_REFUSE = 1, REF_SKIP = 2 /* too big to judge here */ };

/* Inflated gzip bigger than this is not judged (a 64 KiB input can hold a gzip bomb). */
#define REF_MAX_TEXT ((size_t)64 << 20)

struct ref_bytes {
  const char *p;
  size_t n;
  char *owned; /* the inflated copy, or NULL */
};

static int ref_gunzip(const uint8_t *data, size_t size, struct ref_bytes *out) {
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  z_stream zs = {0};
  int verdict = REF_REFUSE;
  if (!buf || inflateInit2(&zs, 15 + 16) != Z_OK) {
    free(buf);
    return REF_SKIP;
  }
  zs.next_in = (Bytef *)data;
  zs.avail_in = (uInt)size;
  for (;;) {
    if (len == cap) {
      char *nb = cap >= REF_MAX_TEXT ? NULL : realloc(buf, cap * 2);
      if (!nb) {
        verdict = REF_SKIP;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    zs.next_out = (Bytef *)buf + len;
    zs.avail_out = (uInt)(cap - len);
    int zr = inflate(&zs, Z_NO_FLUSH);
    len = cap - zs.avail_out;
    if (zr == Z_OK || (zr == Z_BUF_ERROR && zs.avail_out == 0))
      continue;
    if (zr != Z_STREAM_END)
      break; /* corrupt, or cut short */
    /* A member ended: another one, or zero padding to the end. */
    if (zs.avail_in >= 2 && zs.next_in[0] == 0x1f && zs.next_in[1] == 0x8b) {
      inflateReset(&zs);
      continue;
    }
    size_t i = 0;
    while (i < zs.avail_in && zs.next_in[i] == 0)
      i++;
    if (i == zs.avail_in)
      verdict = REF_ACCEPT;
    break;
  }
  inflateEnd(&zs);
  if (verdict != REF_ACCEPT) {
    free(buf);
    return verdict;
  }
  out->p = out->owned = buf;
  out->n = len;
  return REF_ACCEPT;
}

/* The bytes of the input as a reader sees them. */
static int ref_read_bytes(const uint8_t *data, size_t size, struct ref_bytes *out) {
  memset(out, 0, sizeof *out);
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
    return ref_gunzip(data, size, out);
  out->p = (const char *)data;
  out->n = size;
  return REF_ACCEPT;
}

static bool ref_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
static bool ref_digit(char c) { return c >= '0' && c <= '9'; }

/* A field: [p, p + n). */
struct ref_field {
  const char *p;
  size_t n;
};

#define REF_MAX_FIELDS 8

/* Split the line [p, p + n) into fields; *count is how many there are,
 * though at most REF_MAX_FIELDS are stored. */
static void ref_split(const char *p, size_t n, struct ref_field *f, size_t *count) {
  size_t k = 0, i = 0;
  while (i < n) {
    while (i < n && ref_blank(p[i]))
      i++;
    if (i == n)
      break;
    size_t s = i;
    while (i < n && !ref_blank(p[i]))
      i++;
    if (k < REF_MAX_FIELDS)
      f[k] = (struct ref_field){p + s, i - s};
    k++;
  }
  *count = k;
}

static bool ref_is(struct ref_field f, const char *word) { return f.n == strlen(word) && memcmp(f.p, word, f.n) == 0; }

/* Digits only, no sign; false on overflow of uint64. */
static bool ref_uint(struct ref_field f, uint64_t *out) {
  uint64_t x = 0;
  if (f.n == 0)
    return false;
  for (size_t i = 0; i < f.n; i++) {
    if (!ref_digit(f.p[i]))
      return false;
    unsigned d = (unsigned)(f.p[i] - '0');
    if (x > (UINT64_MAX - d) / 10)
      return false;
    x = x * 10 + d;
  }
  *out = x;
  return true;
}

/* The decimal grammar of the header comment, then strtod on a copy. */
static bool ref_decimal(struct ref_field f, double *out) {
  size_t i = 0, digits = 0;
  char tmp[128];
  if (i < f.n && (f.p[i] == '+' || f.p[i] == '-'))
    i++;
  for (; i < f.n && ref_digit(f.p[i]); i++)
    digits++;
  if (i < f.n && f.p[i] == '.')
    for (i++; i < f.n && ref_digit(f.p[i]); i++)
      digits++;
  if (digits == 0)
    return false;
  if (i < f.n && (f.p[i] == 'e' || f.p[i] == 'E')) {
    size_t e = 0;
    i++;
    if (i < f.n && (f.p[i] == '+' || f.p[i] == '-'))
      i++;
    for (; i < f.n && ref_digit(f.p[i]); i++)
      e++;
    if (e == 0)
      return false;
  }
  if (i != f.n)
    return false;
  char *copy = f.n < sizeof tmp ? tmp : malloc(f.n + 1);
  if (!copy)
    abort();
  memcpy(copy, f.p, f.n);
  copy[f.n] = '\0';
  *out = strtod(copy, NULL);
  if (copy != tmp)
    free(copy);
  return true;
}

/* Calls line(ctx, lineno, p, n) for every line of b; stops at the first
 * verdict other than REF_ACCEPT. A line over max_line bytes refuses. */
static int ref_lines(const struct ref_bytes *b, size_t max_line, void *ctx,
                     int (*line)(void *ctx, uint64_t lineno, const char *p, size_t n)) {
  size_t i = 0;
  uint64_t lineno = 0;
  while (i < b->n) {
    const char *nl = memchr(b->p + i, '\n', b->n - i);
    size_t n = nl ? (size_t)(nl - (b->p + i)) : b->n - i;
    if (n > max_line)
      return REF_REFUSE;
    int v = line(ctx, ++lineno, b->p + i, n);
    if (v != REF_ACCEPT)
      return v;
    i += n + 1;
  }
  return REF_ACCEPT;
}

#endif
