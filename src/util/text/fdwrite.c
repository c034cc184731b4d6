/* fdwrite.c - see fdwrite.h. */
#include "util/text/fdwrite.h"

#include <errno.h>
#include <unistd.h>

bool fd_write_all(int fd, const void *p, uint64_t len) {
  const char *c = p;
  while (len) {
    size_t chunk = len > (1u << 30) ? (1u << 30) : (size_t)len;
    ssize_t w = write(fd, c, chunk);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = EIO;
      return false;
    }
    c += w;
    len -= (uint64_t)w;
  }
  return true;
}
