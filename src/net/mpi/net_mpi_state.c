/*
 * net_mpi_state.c - the process's MPI state for the mpi:// transport
 * (net_mpi.c): the sends in flight and their progress, the registry of
 * dialers and the listener's routes (self_id -> rank). The bottom of the
 * transport's files: it calls none of the others (net_mpi_state.h).
 * Control thread only, as everything of the transport.
 */
#define _GNU_SOURCE /* ppoll: sub-millisecond naps that descriptors cut short */

#include "net/mpi/net_mpi_state.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsana/error.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

struct mp_state mp;

const char *mp_strerror(int code, char *buf) {
  int len = 0;
  if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS)
    snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", code);
  return buf;
}

/* ---- sends in flight -------------------------------------------------- */

static void mp_send_release(size_t i) {
  free(mp.sends[i].buf);
  if (mp.sends[i].owner)
    mp.sends[i].owner->pending--;
}

/* Complete what MPI has finished and forget it; never waits. */
void mp_progress(void) {
  if (mp.n == 0)
    return;
  int done = 0;
  int rc = MPI_Testsome((int)mp.n, mp.reqs, &done, mp.done_idx, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS)
    log_debug("net: a send to a peer completed with an error");
  if (done == MPI_UNDEFINED || done <= 0)
    return;
  for (int k = 0; k < done; k++)
    mp_send_release((size_t)mp.done_idx[k]);
  size_t j = 0;
  for (size_t i = 0; i < mp.n; i++)
    if (mp.reqs[i] != MPI_REQUEST_NULL) {
      mp.reqs[j] = mp.reqs[i];
      mp.sends[j++] = mp.sends[i];
    }
  mp.n = j;
}

int mp_send_reserve(void) {
  if (mp.n < mp.cap)
    return 0;
  size_t cap = mp.cap ? mp.cap * 2 : 64;
  MPI_Request *r = realloc(mp.reqs, cap * sizeof *r);
  if (r)
    mp.reqs = r;
  struct mp_send *s = realloc(mp.sends, cap * sizeof *s);
  if (s)
    mp.sends = s;
  int *d = realloc(mp.done_idx, cap * sizeof *d);
  if (d)
    mp.done_idx = d;
  if (!r || !s || !d)
    return DSANA_ENOMEM;
  mp.cap = cap;
  return 0;
}

/* Sleep ns, or less when one of fds becomes readable. */
void mp_nap(struct pollfd *fds, int nfds, uint64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  if (ppoll(fds, (nfds_t)nfds, &ts, NULL) < 0 && errno != EINTR)
    log_debug("net: ppoll failed: %s", strerror(errno));
}

/* Progress until `owner`'s sends (all sends: NULL) completed or deadline_ns. */
void mp_drain(const struct mp_sock *owner, uint64_t deadline_ns) {
  uint64_t nap = MP_BACKOFF_MIN_NS;
  for (;;) {
    mp_progress();
    if (owner ? owner->pending == 0 : mp.n == 0)
      return;
    if (clock_now_ns() >= deadline_ns)
      return;
    mp_nap(NULL, 0, nap);
    nap = nap * 2 > MP_BACKOFF_MAX_NS ? MP_BACKOFF_MAX_NS : nap * 2;
  }
}

/* ---- dialers and routes ------------------------------------------------ */

struct mp_sock *mp_find_dialer(int rank, uint32_t self_id) {
  for (struct mp_sock *d = mp.dialers; d; d = d->next)
    if (d->rank == rank && d->self_id == self_id)
      return d;
  return NULL;
}

int mp_route_find(const struct mp_sock *l, uint32_t self_id) {
  for (size_t i = 0; i < l->n_routes; i++)
    if (l->routes[i].self_id == self_id)
      return l->routes[i].rank;
  return -1;
}

/* The listener learns where a dialer is (a restarted one takes over). */
int mp_route_learn(struct mp_sock *l, uint32_t self_id, int rank) {
  for (size_t i = 0; i < l->n_routes; i++)
    if (l->routes[i].self_id == self_id) {
      l->routes[i].rank = rank;
      return 0;
    }
  if (l->n_routes == l->cap_routes) {
    size_t cap = l->cap_routes ? l->cap_routes * 2 : 16;
    struct mp_route *r = realloc(l->routes, cap * sizeof *r);
    if (!r)
      return DSANA_ENOMEM;
    l->routes = r;
    l->cap_routes = cap;
  }
  l->routes[l->n_routes++] = (struct mp_route){self_id, rank};
  return 0;
}
