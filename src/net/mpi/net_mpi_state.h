/*
 * net_mpi_state.h - the state the files of the mpi:// transport share:
 * the framing's constants, the per-socket structs, the process's MPI state
 * and the functions of net_mpi_state.c, which keeps it. Private to
 * net_mpi*.c; the transport's story (framing, sending, receiving, polling)
 * is net_mpi.c's file comment, receiving is net_mpi_recv.h.
 *
 *   net_mpi.c        contexts, sockets, sending, the ops table
 *     -> net_mpi_recv.c   receiving and polling
 *     -> net_mpi_state.c  sends in flight, the dialers, the listener's routes
 *   net_mpi_recv.c -> net_mpi_state.c
 *
 * Calls go down this list only (scripts/check-calls.sh).
 *
 * Threads: MPI runs MPI_THREAD_FUNNELED; all state here is the process's
 * and only the thread that initialised MPI (the role's control thread)
 * may use mpi:// sockets or call anything declared here. Shared buffers
 * are not supported.
 */
#ifndef DSANA_NET_MPI_STATE_H
#define DSANA_NET_MPI_STATE_H

#include <mpi.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/transport/transport_impl.h"

enum { MP_TAG_LISTENER = 0x4453, MP_TAG_REPLY = 0x4454 }; /* under MPI's minimum tag bound 32767 */

#define MP_ID_BYTES 4
#define MP_HEAD_BYTES (MP_ID_BYTES + WIRE_HDR_BYTES) /* self_id + header: 68 */
#define MP_SLACK 4                                   /* before the message: payload 8-aligned */
#define MP_BACKOFF_MIN_NS 20000ull
#define MP_BACKOFF_MAX_NS 1000000ull

/* A received message: buf + MP_SLACK holds its len bytes. */
struct mp_in {
  struct mp_in *next;
  unsigned char *buf;
  size_t len;
  int source;
};

struct mp_route {
  uint32_t self_id;
  int rank;
};

struct mp_sock {
  struct mp_sock *next; /* the process's dialers */
  struct net_sock *s;
  int rank;                  /* dialer: its listener's rank */
  uint32_t self_id;          /* dialer */
  struct mp_in *head, *tail; /* dialer: replies received, not yet returned */
  struct mp_route *routes;   /* listener: self_id -> rank, learnt */
  size_t n_routes, cap_routes;
  size_t pending; /* sends not complete yet */
};

/* A send in flight: its buffer lives until MPI completes it. */
struct mp_send {
  struct mp_sock *owner; /* NULL once its socket closed */
  unsigned char *buf;
};

/* The process's MPI state (control thread only, see the file comment);
 * defined in net_mpi_state.c. */
struct mp_state {
  int ctxs;       /* open contexts */
  bool started;   /* MPI usable */
  bool own_init;  /* net_mpi.c called MPI_Init_thread: it finalises */
  bool finalized; /* MPI cannot start again in this process */
  int rank, size;
  struct mp_sock *listener, *dialers;
  MPI_Request *reqs; /* sends in flight, parallel to sends */
  struct mp_send *sends;
  int *done_idx;
  size_t n, cap;
};
extern struct mp_state mp;

static inline struct mp_sock *ms_of(const struct net_sock *s) { return s->impl; }

/* ---- net_mpi_state.c ---------------------------------------------------- */

/* MPI's words for an error code; buf has MPI_MAX_ERROR_STRING bytes. */
const char *mp_strerror(int code, char *buf);
/* Complete what MPI has finished and forget it; never waits. */
void mp_progress(void);
/* Room for one more send in flight: 0 or DSANA_ENOMEM. */
int mp_send_reserve(void);
/* Sleep ns, or less when one of fds becomes readable. */
void mp_nap(struct pollfd *fds, int nfds, uint64_t ns);
/* Progress until `owner`'s sends (all sends: NULL) completed or deadline_ns. */
void mp_drain(const struct mp_sock *owner, uint64_t deadline_ns);
/* This process's dialer of `rank` as self_id, or NULL. */
struct mp_sock *mp_find_dialer(int rank, uint32_t self_id);
/* The rank the listener l learnt for self_id, or -1. */
int mp_route_find(const struct mp_sock *l, uint32_t self_id);
/* The listener learns where a dialer is (a restarted one takes over):
 * 0 or DSANA_ENOMEM. */
int mp_route_learn(struct mp_sock *l, uint32_t self_id, int rank);

#endif
