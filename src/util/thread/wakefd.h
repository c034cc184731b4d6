/*
 * wakefd.h - an eventfd that wakes a thread polling it, read back only
 * while a write is owed: a read is a system call, and a receiver's last
 * look at an empty queue, or a pool's take with nothing finished, would
 * otherwise pay one every time (the inproc transport's queues, a worker's
 * compute pool).
 *
 * The owner's lock guards `owed`. A writer promises under that lock, then
 * signals after releasing it (a thread woken while the writer still held
 * it would block on it at once); the reader drains under the lock. A
 * signal that lands after the drain meant for it stays owed and is read
 * by the next drain, so the fd is never left readable with nothing owed:
 * a poller cannot spin on it.
 */
#ifndef DSANA_UTIL_WAKEFD_H
#define DSANA_UTIL_WAKEFD_H

#include <stdint.h>

struct wakefd {
  int fd;        /* nonblocking eventfd; -1: none */
  uint64_t owed; /* signals promised and not read back yet (under the owner's lock) */
};

/* Open it: 0, or -1 (errno set) with fd -1. */
int wakefd_open(struct wakefd *w);
/* Close it (fd -1: nothing to close). */
void wakefd_close(struct wakefd *w);
/* Under the owner's lock: a signal follows. */
static inline void wakefd_promise(struct wakefd *w) { w->owed++; }
/* Make the fd readable (after wakefd_promise, outside the lock). */
void wakefd_signal(const struct wakefd *w);
/* Under the owner's lock: read back what landed of the signals owed. */
void wakefd_drain(struct wakefd *w);

#endif
