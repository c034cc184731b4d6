/* wakefd.c - a counted wake-up eventfd (see wakefd.h). */
#include "util/thread/wakefd.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "util/text/log.h"

int wakefd_open(struct wakefd *w) {
  w->owed = 0;
  w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  return w->fd < 0 ? -1 : 0;
}

void wakefd_close(struct wakefd *w) {
  if (w->fd >= 0)
    close(w->fd);
  w->fd = -1;
}

void wakefd_signal(const struct wakefd *w) {
  uint64_t one = 1;
  if (w->fd >= 0 && write(w->fd, &one, sizeof one) < 0 && errno != EAGAIN)
    log_debug("wakefd: eventfd write failed");
}

void wakefd_drain(struct wakefd *w) {
  uint64_t v = 0;
  if (w->fd < 0 || !w->owed)
    return;
  if (read(w->fd, &v, sizeof v) < 0 && errno != EAGAIN)
    log_debug("wakefd: eventfd read failed");
  w->owed -= v < w->owed ? v : w->owed;
}
