/*
 * outfile.c - writing an output file (outfile.h): a buffer in front of the
 * descriptor (or of zlib for ".gz"), the first error kept for the final
 * report, and the commit that makes an atomic target appear whole. The
 * buffer comes with the first buffered write, so the writers that write()
 * to the descriptor themselves (binary graphs, datasets) never allocate it.
 *
 * An atomic target is written into an unnamed file of its folder
 * (O_TMPFILE), linked under a hidden name at commit and renamed over the
 * target; where the filesystem has no O_TMPFILE, into a hidden named
 * temporary from the start.
 */
#define _GNU_SOURCE /* O_TMPFILE, linkat's AT_SYMLINK_FOLLOW */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "dsana/error.h"
#include "dsana/outfile.h"
#include "io/file/outfile_internal.h"
#include "util/text/fdwrite.h"
#include "util/text/str.h"

#define OUT_BUF_BYTES ((size_t)1 << 20)

struct dsana_outfile {
  struct out_target t;
  char path[OUT_PATH_MAX];         /* as given, for messages */
  char tmp[2 * OUT_PATH_MAX + 64]; /* named temporary ("" = unnamed or in place) */
  int fd;
  bool unnamed; /* O_TMPFILE: linked at commit */
  gzFile gz;
  char *buf;
  size_t n;
  int err; /* first errno, 0 = none */
};

static int fail(struct dsana_outfile *o, int errnum) {
  if (!o->err)
    o->err = errnum ? errnum : EIO;
  return DSANA_EIO;
}

static void base_of(const char *path, const char **base) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
}

/* The temporary for an atomic target, in its folder. */
static int open_temp(struct dsana_outfile *o) {
  mode_t mode = o->t.exists ? o->t.mode : 0666;
  o->fd = access("/proc/self/fd", X_OK) == 0 ? open(o->t.dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode) : -1;
  if (o->fd >= 0) {
    o->unnamed = true;
  } else {
    const char *base;
    base_of(o->t.final, &base);
    snprintf(o->tmp, sizeof o->tmp, "%s/.%s.tmp.XXXXXX", o->t.dir, base);
    if ((o->fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
      o->tmp[0] = '\0';
      return errno;
    }
    if (!o->t.exists) { /* mkstemp makes 0600: give the umask's mode */
      mode_t mask = umask(0);
      umask(mask);
      mode = 0666 & ~mask;
    }
  }
  return o->t.exists || o->tmp[0] ? (fchmod(o->fd, mode) == 0 ? 0 : errno) : 0;
}

/* Where "-" goes: the standard output, or its duplicate once stdout
 * carries data and the rest printed there goes to stderr. */
static int out_data_fd = STDOUT_FILENO;

int dsana_outfile_stdout_for_data(void) {
  if (out_data_fd != STDOUT_FILENO)
    return 0;
  fflush(stdout);
  int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    return errno;
  if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    int e = errno;
    close(fd);
    return e;
  }
  out_data_fd = fd;
  return 0;
}

static int open_target(struct dsana_outfile *o) {
  if (o->t.is_stdout) {
    fflush(stdout); /* what the program printed comes first */
    o->fd = out_data_fd;
    return 0;
  }
  if (o->t.in_place) {
    struct stat st;
    bool regular = stat(o->t.final, &st) == 0 && S_ISREG(st.st_mode);
    o->fd = open(o->t.final, O_WRONLY | O_NOCTTY | O_CLOEXEC | (regular ? O_TRUNC : 0));
    return o->fd >= 0 ? 0 : errno;
  }
  if (o->t.exists && access(o->t.final, W_OK) != 0)
    return errno;
  return open_temp(o);
}

int dsana_outfile_open(const char *path, unsigned flags, struct dsana_outfile **out, char *err, size_t errlen) {
  *out = NULL;
  struct dsana_outfile *o = calloc(1, sizeof *o);
  if (!o) {
    snprintf(err, errlen, "%s: out of memory", path);
    return DSANA_ENOMEM;
  }
  o->fd = -1;
  snprintf(o->path, sizeof o->path, "%s", path);
  int rc = out_resolve(path, &o->t, err, errlen);
  int e = rc ? 0 : open_target(o);
  if (!rc && !e && (flags & DSANA_OUT_GZIP_SUFFIX) && str_ends_with(path, ".gz")) {
    int dupfd = dup(o->fd);
    if (dupfd < 0 || !(o->gz = gzdopen(dupfd, "wb6")))
      e = dupfd < 0 ? errno : ENOMEM;
    if (dupfd >= 0 && !o->gz)
      close(dupfd);
  }
  if (!rc && e) {
    snprintf(err, errlen, "%s: cannot write: %s", path, strerror(e));
    rc = DSANA_EIO;
  }
  if (rc) {
    dsana_outfile_discard(o);
    return rc;
  }
  *out = o;
  return 0;
}

static int write_out(struct dsana_outfile *o, const char *p, size_t len) {
  if (!o->gz)
    return fd_write_all(o->fd, p, len) ? 0 : fail(o, errno);
  while (len) {
    unsigned n = len > (1u << 30) ? 1u << 30 : (unsigned)len;
    if (gzwrite(o->gz, p, n) != (int)n) {
      int zerr;
      const char *why = gzerror(o->gz, &zerr);
      return fail(o, zerr == Z_ERRNO ? errno : (why && strstr(why, "memory") ? ENOMEM : EIO));
    }
    p += n;
    len -= n;
  }
  return 0;
}

int dsana_outfile_flush(struct dsana_outfile *o) {
  if (o->err)
    return DSANA_EIO;
  int rc = o->n ? write_out(o, o->buf, o->n) : 0;
  o->n = 0;
  return rc;
}

/* The buffer, at the first buffered write; false (and the error kept) if out of memory. */
static bool have_buf(struct dsana_outfile *o) {
  if (!o->buf && !(o->buf = malloc(OUT_BUF_BYTES)))
    fail(o, ENOMEM);
  return o->buf != NULL;
}

int dsana_outfile_write(struct dsana_outfile *o, const void *p, size_t len) {
  if (o->err || !have_buf(o))
    return DSANA_EIO;
  if (o->n + len > OUT_BUF_BYTES) {
    int rc = dsana_outfile_flush(o);
    if (rc || len >= OUT_BUF_BYTES)
      return rc ? rc : write_out(o, p, len);
  }
  memcpy(o->buf + o->n, p, len);
  o->n += len;
  return 0;
}

int dsana_outfile_printf(struct dsana_outfile *o, const char *fmt, ...) {
  if (o->err || !have_buf(o))
    return DSANA_EIO;
  for (int pass = 0; pass < 2; pass++) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->n, OUT_BUF_BYTES - o->n, fmt, ap);
    va_end(ap);
    if (n < 0)
      return fail(o, EINVAL);
    if ((size_t)n < OUT_BUF_BYTES - o->n) {
      o->n += (size_t)n;
      return 0;
    }
    if (pass == 0 && dsana_outfile_flush(o) != 0)
      return DSANA_EIO;
  }
  return fail(o, EOVERFLOW); /* one line longer than the buffer */
}

int dsana_outfile_fd(const struct dsana_outfile *o) { return o->fd; }

/* Give the unnamed temporary a hidden name beside the target. */
static int link_unnamed(struct dsana_outfile *o) {
  char proc[64];
  const char *base;
  base_of(o->t.final, &base);
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
  for (int tries = 0; tries < 100; tries++) {
    snprintf(o->tmp, sizeof o->tmp, "%s/.%s.tmp.%ld.%d", o->t.dir, base, (long)getpid(), tries);
    if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0)
      return 0;
    if (errno != EEXIST)
      break;
  }
  int e = errno;
  o->tmp[0] = '\0';
  return e;
}

/* Make the data durable and, for an atomic target, put it in place. */
static int finish(struct dsana_outfile *o) {
  if (dsana_outfile_flush(o) != 0)
    return o->err;
  if (o->gz) {
    int zrc = gzclose(o->gz);
    o->gz = NULL;
    if (zrc != Z_OK)
      return zrc == Z_ERRNO ? errno : EIO;
  }
  if (o->t.in_place)
    return 0;
  if (fsync(o->fd) != 0)
    return errno;
  int e = o->unnamed ? link_unnamed(o) : 0;
  if (!e && rename(o->tmp, o->t.final) != 0)
    e = errno;
  if (e)
    return e;
  o->tmp[0] = '\0';
  int dfd = open(o->t.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* the rename itself durable */
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return 0;
}

int dsana_outfile_commit(struct dsana_outfile *o, char *err, size_t errlen) {
  int e = o->err ? o->err : finish(o);
  if (o->fd >= 0 && !o->t.is_stdout) {
    int c = close(o->fd); /* a device or FIFO may report late errors here */
    o->fd = -1;
    if (!e && c != 0)
      e = errno;
  }
  if (e)
    snprintf(err, errlen, "%s: write failed: %s", o->path, strerror(e));
  dsana_outfile_discard(o); /* on failure: the temporary goes */
  return e ? DSANA_EIO : 0;
}

void dsana_outfile_discard(struct dsana_outfile *o) {
  if (!o)
    return;
  if (o->gz)
    gzclose(o->gz);
  if (o->fd >= 0 && !o->t.is_stdout)
    close(o->fd);
  if (o->tmp[0])
    unlink(o->tmp);
  free(o->buf);
  free(o);
}
