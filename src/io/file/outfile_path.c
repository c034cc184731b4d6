/*
 * outfile_path.c - what an output path names (outfile.h): symbolic links
 * followed to their end, whether the target is replaced atomically or
 * written in place, the checks made before a run starts, whether two
 * paths are one file, and anonymous files for converted inputs.
 */
#define _GNU_SOURCE /* O_TMPFILE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/error.h"
#include "dsana/outfile.h"
#include "io/file/outfile_internal.h"

#define OUT_MAX_LINKS 40

static int out_err(char *err, size_t errlen, const char *path, const char *what, int errnum) {
  if (err && errlen)
    snprintf(err, errlen, "%s: %s%s%s", path, what, errnum ? ": " : "", errnum ? strerror(errnum) : "");
  return DSANA_EIO;
}

static void dir_of(const char *path, char *dir, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(dir, len, ".");
  else if (slash == path)
    snprintf(dir, len, "/");
  else
    snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Follow symbolic links from path to a name that is not one (it may not
 * exist: a dangling link's target is created). */
static int follow_links(const char *path, char *out, size_t len, char *err, size_t errlen) {
  char cur[OUT_PATH_MAX], link[OUT_PATH_MAX], dir[OUT_PATH_MAX];
  if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur)
    return out_err(err, errlen, path, "path too long", 0);
  for (int hops = 0; hops < OUT_MAX_LINKS; hops++) {
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
      snprintf(out, len, "%s", cur);
      return 0;
    }
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0)
      return out_err(err, errlen, path, "cannot read the link", errno);
    link[n] = '\0';
    dir_of(cur, dir, sizeof dir);
    if (link[0] == '/' || strcmp(dir, ".") == 0)
      snprintf(cur, sizeof cur, "%s", link);
    else if (snprintf(cur, sizeof cur, "%s/%s", dir, link) >= (int)sizeof cur)
      return out_err(err, errlen, path, "path too long", 0);
  }
  return out_err(err, errlen, path, "too many levels of symbolic links", 0);
}

int out_resolve(const char *path, struct out_target *t, char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  if (!path || !path[0])
    return out_err(err, errlen, "(empty path)", "no file name", 0);
  if (strcmp(path, "-") == 0) {
    t->is_stdout = t->in_place = t->exists = true;
    snprintf(t->final, sizeof t->final, "-");
    return 0;
  }
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return out_err(err, errlen, path, "is a directory", 0);
    t->exists = true;
    /* a device, FIFO or socket, or a file without a name (/proc/self/fd/N
     * of an unlinked file): its "link" is no path to rename over */
    if (!S_ISREG(st.st_mode) || st.st_nlink == 0) {
      t->in_place = true;
      snprintf(t->final, sizeof t->final, "%s", path);
      return 0;
    }
    t->mode = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    return out_err(err, errlen, path, "cannot write", errno);
  }
  int rc = follow_links(path, t->final, sizeof t->final, err, errlen);
  if (rc)
    return rc;
  dir_of(t->final, t->dir, sizeof t->dir);
  return 0;
}

/* Can a file be made in dir? Asked of the filesystem itself, since
 * access() answers yes to root where /proc, /sys or a read-only mount say
 * no: an unnamed file (O_TMPFILE), closed at once; where the filesystem
 * lacks those, what open() then does (outfile.c): a hidden temporary,
 * removed at once. 0 or an errno value. */
static int probe_create(const char *dir) {
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
    char tmp[OUT_PATH_MAX + 32];
    if (snprintf(tmp, sizeof tmp, "%s/.dsana-probe.XXXXXX", dir) >= (int)sizeof tmp)
      return ENAMETOOLONG;
    if ((fd = mkostemp(tmp, O_CLOEXEC)) >= 0)
      unlink(tmp);
  }
  if (fd < 0)
    return errno;
  close(fd);
  return 0;
}

int dsana_outfile_check(const char *path, char *err, size_t errlen) {
  struct out_target t;
  int rc = out_resolve(path, &t, err, errlen);
  if (rc || t.is_stdout)
    return rc;
  char what[OUT_PATH_MAX + 64];
  int e;
  if (t.exists) {
    if (access(t.final, W_OK) != 0)
      return out_err(err, errlen, path, "cannot write", errno);
    if (t.in_place || (e = probe_create(t.dir)) == 0)
      return 0;
    snprintf(what, sizeof what, "cannot replace it: no file can be made in %s", t.dir);
    return out_err(err, errlen, path, what, e);
  }
  struct stat st;
  e = stat(t.dir, &st) != 0 ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : 0;
  bool no_dir = e == ENOENT;
  e = e ? e : probe_create(t.dir);
  if (!e)
    return 0;
  snprintf(what, sizeof what, "%s %s", no_dir ? "no folder" : "cannot create a file in", t.dir);
  return out_err(err, errlen, path, what, no_dir ? 0 : e);
}

int dsana_outfile_check_dir(const char *dir, char *err, size_t errlen) {
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return out_err(err, errlen, dir, "not a directory", 0);
    return access(dir, W_OK | X_OK) == 0 ? 0 : out_err(err, errlen, dir, "cannot write in it", errno);
  }
  if (errno != ENOENT)
    return out_err(err, errlen, dir, "cannot use it", errno);
  char parent[OUT_PATH_MAX];
  dir_of(dir, parent, sizeof parent);
  if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode))
    return out_err(err, errlen, dir, "its parent folder does not exist", 0);
  return access(parent, W_OK | X_OK) == 0 ? 0 : out_err(err, errlen, dir, "cannot create it", errno);
}

bool dsana_outfile_replaces(const char *path) {
  struct out_target t;
  return out_resolve(path, &t, NULL, 0) == 0 && !t.in_place;
}

/* A file's identity: its inode, or (absent) its folder's and its name. */
struct out_id {
  dev_t dev;
  ino_t ino;
  const char *name; /* absent only */
};

static bool id_of(const char *path, struct out_target *t, struct out_id *id) {
  struct stat st;
  if (out_resolve(path, t, NULL, 0) != 0)
    return false;
  const char *probe = t->exists ? t->final : t->dir;
  if (stat(probe, &st) != 0)
    return false;
  const char *slash = strrchr(t->final, '/');
  *id = (struct out_id){.dev = st.st_dev, .ino = st.st_ino, .name = t->exists ? NULL : slash ? slash + 1 : t->final};
  return true;
}

bool dsana_outfile_same(const char *a, const char *b) {
  if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
    return strcmp(a, b) == 0;
  struct out_target ta, tb;
  struct out_id ia, ib;
  if (!id_of(a, &ta, &ia) || !id_of(b, &tb, &ib))
    return strcmp(a, b) == 0;
  if (ia.dev != ib.dev || ia.ino != ib.ino || !ia.name != !ib.name)
    return false;
  return !ia.name || strcmp(ia.name, ib.name) == 0;
}

int dsana_outfile_anon(char *path, size_t len, int *fd, char *err, size_t errlen) {
  const char *tmp = getenv("TMPDIR");
  char dir[OUT_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", tmp && tmp[0] ? tmp : "/tmp");
  *fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (*fd < 0) {
    /* no O_TMPFILE here: a name for an instant, removed before any data */
    char name[OUT_PATH_MAX + 32];
    snprintf(name, sizeof name, "%s/dsana-anon-XXXXXX", dir);
    *fd = mkostemp(name, O_CLOEXEC);
    if (*fd < 0)
      return out_err(err, errlen, dir, "cannot create a temporary file", errno);
    unlink(name);
  }
  snprintf(path, len, "/proc/self/fd/%d", *fd);
  return 0;
}
