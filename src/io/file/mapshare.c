/*
 * mapshare.c - read-only mappings of whole files, one per file and
 * process: the roles of a job that are threads of one process (and a
 * launcher that checked the file before them) map a graph or a dataset
 * once, not once each. A file is the same while its device, inode, size
 * and modification time are; a new or rewritten file gets a new mapping.
 * Each mapping counts its users and is unmapped with the last. The files
 * whose body a reader checked in full are remembered (the last CHECKED_MAX)
 * past their unmapping, so the launcher's check is not repeated by the
 * roles it runs as threads or forks.
 *
 * Thread safety: one mutex guards the table. A process forked with
 * mappings keeps them and their counts (its own copy).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsana/error.h"
#include "io/file/file_internal.h"

#define SHARE_MAX 64 /* distinct files mapped at once; more get their own mapping */

struct share {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  void *map;
  unsigned users; /* 0: a free slot */
};

#define CHECKED_MAX 16 /* checked files remembered */

/* A file by what makes it the same (see the top). */
struct file_ident {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  uint64_t tag;
};

static pthread_mutex_t share_mu = PTHREAD_MUTEX_INITIALIZER;
static struct share share_tab[SHARE_MAX];
static struct file_ident checked_tab[CHECKED_MAX];
static unsigned checked_next;

static bool same_file(const struct share *s, const struct stat *st) {
  return s->users && s->dev == st->st_dev && s->ino == st->st_ino && s->size == st->st_size &&
         s->mtime.tv_sec == st->st_mtim.tv_sec && s->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* A user more of the mapping of fd's file, or a new one (*map). */
static int take(int fd, const struct stat *st, void **map) {
  pthread_mutex_lock(&share_mu);
  struct share *free_slot = NULL;
  for (int i = 0; i < SHARE_MAX; i++) {
    if (same_file(&share_tab[i], st)) {
      share_tab[i].users++;
      *map = share_tab[i].map;
      pthread_mutex_unlock(&share_mu);
      return 0;
    }
    if (!share_tab[i].users && !free_slot)
      free_slot = &share_tab[i];
  }
  void *m = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_SHARED, fd, 0);
  int saved = errno;
  if (m != MAP_FAILED && free_slot)
    *free_slot = (struct share){
        .dev = st->st_dev, .ino = st->st_ino, .size = st->st_size, .mtime = st->st_mtim, .map = m, .users = 1};
  pthread_mutex_unlock(&share_mu);
  if (m == MAP_FAILED) {
    errno = saved;
    return -1;
  }
  *map = m;
  return 0;
}

int io_map_shared(const char *path, uint64_t min_size, uint64_t header_bytes, void **map, uint64_t *size, char *err,
                  size_t errlen) {
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return io_errf(err, errlen, DSANA_EIO, "%s: %s", path, strerror(errno));
  int rc = 0;
  if (fstat(fd, &st) != 0)
    rc = io_errf(err, errlen, DSANA_EIO, "%s: %s", path, strerror(errno));
  else if (!S_ISREG(st.st_mode))
    rc = io_errf(err, errlen, DSANA_EIO, "%s: not a regular file", path);
  else if ((uint64_t)st.st_size < min_size)
    rc = io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: truncated file (header needs %llu bytes)", path,
                 (unsigned long long)st.st_size, (unsigned long long)header_bytes);
  else if (take(fd, &st, map) != 0)
    rc = io_errf(err, errlen, DSANA_EIO, "%s: mmap: %s", path, strerror(errno));
  else
    *size = (uint64_t)st.st_size;
  close(fd);
  return rc;
}

void io_unmap_shared(void *map, size_t len) {
  if (!map)
    return;
  pthread_mutex_lock(&share_mu);
  for (int i = 0; i < SHARE_MAX; i++)
    if (share_tab[i].users && share_tab[i].map == map) {
      if (--share_tab[i].users > 0) {
        pthread_mutex_unlock(&share_mu);
        return; /* another user still reads it */
      }
      break;
    }
  pthread_mutex_unlock(&share_mu);
  munmap(map, len);
}

/* The slot of map, or NULL (a mapping that is not shared); under share_mu. */
static struct share *slot_of(const void *map) {
  for (int i = 0; i < SHARE_MAX; i++)
    if (share_tab[i].users && share_tab[i].map == map)
      return &share_tab[i];
  return NULL;
}

static bool same_ident(const struct file_ident *a, const struct share *s) {
  return a->dev == s->dev && a->ino == s->ino && a->size == s->size && a->mtime.tv_sec == s->mtime.tv_sec &&
         a->mtime.tv_nsec == s->mtime.tv_nsec;
}

bool io_map_is_checked(const void *map, uint64_t tag) {
  bool found = false;
  pthread_mutex_lock(&share_mu);
  const struct share *s = slot_of(map);
  for (int i = 0; s && !found && i < CHECKED_MAX; i++)
    found = checked_tab[i].size > 0 && checked_tab[i].tag == tag && same_ident(&checked_tab[i], s);
  pthread_mutex_unlock(&share_mu);
  return found;
}

void io_map_mark_checked(const void *map, uint64_t tag) {
  pthread_mutex_lock(&share_mu);
  const struct share *s = slot_of(map);
  if (s) {
    checked_tab[checked_next] =
        (struct file_ident){.dev = s->dev, .ino = s->ino, .size = s->size, .mtime = s->mtime, .tag = tag};
    checked_next = (checked_next + 1) % CHECKED_MAX;
  }
  pthread_mutex_unlock(&share_mu);
}
