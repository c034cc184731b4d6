/*
 * infile_src.c - the bytes under dsana_infile (infile.c) and the text
 * block reader (graph_text.c): a plain file as it is, or a gzip file (one
 * starting with 1f 8b) inflated. gzip's own rules: members may follow one
 * another (cat a.gz b.gz) and zero bytes may pad the end (tape blocks); any
 * other byte after a member is refused with its offset, where zlib's gzread
 * would drop it without a word (gzip -t reports "trailing garbage").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/error.h"
#include "io/file/file_internal.h"

enum { SRC_BUFFER_BYTES = 1u << 18 };

/* The input buffer: 256 KiB, or a small regular file's size, which one
 * read takes whole. */
static size_t buffer_bytes(int fd) {
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < SRC_BUFFER_BYTES)
    return st.st_size < 4096 ? 4096u : (size_t)st.st_size;
  return SRC_BUFFER_BYTES;
}

/* Keep the unread input, read more after it; sets in_eof at the end. */
static int refill(struct infile_src *s, char *err, size_t errlen) {
  size_t keep = s->zs.avail_in, used = (size_t)(s->zs.next_in - s->in);
  memmove(s->in, s->zs.next_in, keep);
  s->in_off += used;
  s->zs.next_in = s->in;
  while (keep < s->in_cap && !s->in_eof) {
    ssize_t n = read(s->fd, s->in + keep, s->in_cap - keep);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return io_errf(err, errlen, DSANA_EIO, "%s: %s", s->path, strerror(errno));
    if (n == 0)
      s->in_eof = true;
    keep += (size_t)n;
    if (keep >= 2) /* enough for the magic; the rest comes with the next refill */
      break;
  }
  s->zs.avail_in = (uInt)keep;
  return 0;
}

static uint64_t in_offset(const struct infile_src *s) { return s->in_off + (uint64_t)(s->zs.next_in - s->in); }

int infile_src_open(struct infile_src *s, const char *path, char *err, size_t errlen) {
  memset(s, 0, sizeof *s);
  s->path = path;
  s->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (s->fd < 0)
    return io_errf(err, errlen, DSANA_EIO, "%s: %s", path, strerror(errno));
  s->fd_open = true;
  s->in_cap = buffer_bytes(s->fd);
  s->in = malloc(s->in_cap);
  s->zs.next_in = s->in;
  int rc = s->in ? refill(s, err, errlen) : io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", path);
  if (!rc && s->zs.avail_in >= 2 && s->in[0] == 0x1f && s->in[1] == 0x8b) {
    s->gzip = true;
    if (inflateInit2(&s->zs, 15 + 16) != Z_OK) /* gzip wrapper only */
      rc = io_errf(err, errlen, DSANA_ENOMEM, "%s: cannot start zlib reader", path);
    else
      s->zs_live = true;
  }
  if (rc)
    infile_src_close(s);
  return rc;
}

void infile_src_close(struct infile_src *s) {
  if (s->zs_live)
    inflateEnd(&s->zs);
  if (s->fd_open)
    close(s->fd);
  free(s->in);
  memset(s, 0, sizeof *s);
}

/* After a member: another one, zero padding to the end, or garbage. */
static int next_member(struct infile_src *s, char *err, size_t errlen) {
  int rc;
  while (s->zs.avail_in < 2 && !s->in_eof)
    if ((rc = refill(s, err, errlen)) != 0)
      return rc;
  if (s->zs.avail_in >= 2 && s->zs.next_in[0] == 0x1f && s->zs.next_in[1] == 0x8b)
    return inflateReset(&s->zs) == Z_OK ? 0 : io_errf(err, errlen, DSANA_EIO, "%s: zlib reset failed", s->path);
  uint64_t at = in_offset(s);
  for (;;) {
    for (; s->zs.avail_in; s->zs.avail_in--, s->zs.next_in++)
      if (*s->zs.next_in)
        return io_errf(err, errlen, DSANA_EFORMAT,
                       "%s: offset %llu: trailing garbage after the gzip data (not another gzip member)", s->path,
                       (unsigned long long)at);
    if (s->in_eof)
      break;
    if ((rc = refill(s, err, errlen)) != 0)
      return rc;
  }
  s->end = true;
  return 0;
}

static int inflate_some(struct infile_src *s, char *buf, size_t want, size_t *got, char *err, size_t errlen) {
  s->zs.next_out = (Bytef *)buf;
  s->zs.avail_out = (uInt)want;
  int rc = 0;
  while (!rc && s->zs.avail_out == want && !s->end) {
    if (s->zs.avail_in == 0 && !s->in_eof && (rc = refill(s, err, errlen)) != 0)
      break;
    int zr = inflate(&s->zs, Z_NO_FLUSH);
    if (zr == Z_STREAM_END)
      rc = next_member(s, err, errlen);
    else if (zr == Z_BUF_ERROR && s->zs.avail_in == 0 && s->in_eof)
      rc = io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: unexpected end of gzip data", s->path,
                   (unsigned long long)in_offset(s));
    else if (zr == Z_MEM_ERROR)
      rc = io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory in zlib", s->path);
    else if (zr != Z_OK && zr != Z_BUF_ERROR)
      rc = io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: not a valid gzip stream (%s)", s->path,
                   (unsigned long long)in_offset(s), s->zs.msg ? s->zs.msg : "corrupt data");
  }
  *got = want - s->zs.avail_out;
  return rc;
}

int infile_src_read(struct infile_src *s, char *buf, size_t want, size_t *got, char *err, size_t errlen) {
  *got = 0;
  if (want > (1u << 30))
    want = 1u << 30;
  if (s->gzip)
    return inflate_some(s, buf, want, got, err, errlen);
  if (s->zs.avail_in) { /* the bytes read to look for the magic */
    size_t n = s->zs.avail_in < want ? s->zs.avail_in : want;
    memcpy(buf, s->zs.next_in, n);
    s->zs.next_in += n;
    s->zs.avail_in -= (uInt)n;
    *got = n;
    return 0;
  }
  for (;;) {
    ssize_t n = s->in_eof ? 0 : read(s->fd, buf, want);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return io_errf(err, errlen, DSANA_EIO, "%s: %s", s->path, strerror(errno));
    s->in_eof = n == 0;
    *got = (size_t)n;
    return 0;
  }
}
