/*
 * net_mpi.c - the mpi:// transport: dsana messages as MPI point-to-point
 * messages between the ranks of one job started by mpirun (MPI_COMM_WORLD),
 * behind the seam of transport_impl.h. Built only with DSANA_HAVE_MPI.
 *
 * Addresses. mpi://R is rank R. A rank holds at most one listener, at its
 * own rank (NULL picks it), and any number of dialers.
 *
 * Framing. One MPI message of bytes per dsana message:
 * [self_id: 4 bytes LE][header: 64 bytes][payload]. Dialers send to the
 * listener's rank with MP_TAG_LISTENER and their own self_id; the listener
 * sees 'D' + self_id as the peer (as net_zmq.c and net_inproc.c do) and
 * learns self_id -> source rank from every valid message, so a reply goes
 * with MP_TAG_REPLY to that rank, still carrying the dialer's self_id. A
 * dialer receives from its listener's rank on MP_TAG_REPLY; a reply for
 * another dialer of this process to the same rank is moved to that
 * dialer's queue. MPI keeps messages of one source, tag and communicator
 * in order, so every link is FIFO.
 *
 * Sending never waits for the peer: MPI_Isend of a contiguous copy (MPI's
 * single-copy paths want contiguous buffers), kept until MPI_Testsome
 * completes it; every send, receive and poll makes progress. Closing a
 * socket waits a bounded time for its sends; the last context's
 * destruction cancels what is left, finalises MPI and only then frees
 * those buffers.
 *
 * Receiving: MPI_Iprobe, MPI_Get_count, then MPI_Recv into malloc()ed
 * memory 4 bytes in, so that the payload is 8-aligned. A count over
 * max_payload + 68 bytes or under 68 is consumed into bounded memory
 * (mp_recv_bounded), logged and counted as dropped.
 *
 * Polling: MPI has no descriptor, so net_poll() probes the sockets and
 * polls the descriptors without waiting, then sleeps 20 us doubling to 1
 * ms (woken early by a descriptor), since roles share oversubscribed cores.
 *
 * Threads: MPI runs MPI_THREAD_FUNNELED; all state here is the process's
 * and only the thread that initialised MPI (the role's control thread)
 * may use mpi:// sockets. Shared buffers are not supported.
 */
#define _GNU_SOURCE /* ppoll: sub-millisecond naps that descriptors cut short */

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsana/dsana.h"
#include "net/transport_impl.h"
#include "util/clock.h"
#include "util/log.h"

enum { MP_TAG_LISTENER = 0x4453, MP_TAG_REPLY = 0x4454 }; /* under MPI's minimum tag bound 32767 */

#define MP_ID_BYTES 4
#define MP_HEAD_BYTES (MP_ID_BYTES + WIRE_HDR_BYTES) /* self_id + header: 68 */
#define MP_SLACK 4                                   /* before the message: payload 8-aligned */
#define MP_LINGER_NS 1000000000ull                   /* a closing socket's sends */
#define MP_BACKOFF_MIN_NS 20000ull
#define MP_BACKOFF_MAX_NS 1000000ull
#define MP_POLL_STACK 16
#define MP_SCRATCH_BYTES 65536 /* where a dropped message's bytes go */

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
  int rank;              /* dialer: its listener's rank */
  uint32_t self_id;      /* dialer */
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

/* The process's MPI state (control thread only, see the file comment). */
static struct {
  int ctxs;       /* open contexts */
  bool started;   /* MPI usable */
  bool own_init;  /* this file called MPI_Init_thread: it finalises */
  bool finalized; /* MPI cannot start again in this process */
  int rank, size;
  struct mp_sock *listener, *dialers;
  MPI_Request *reqs; /* sends in flight, parallel to sends */
  struct mp_send *sends;
  int *done_idx;
  size_t n, cap;
} mp;

static struct mp_sock *ms_of(const struct net_sock *s) { return s->impl; }

static const char *mp_strerror(int code, char *buf) {
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
static void mp_progress(void) {
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

static int mp_send_reserve(void) {
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
static void mp_nap(struct pollfd *fds, int nfds, uint64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  if (ppoll(fds, (nfds_t)nfds, &ts, NULL) < 0 && errno != EINTR)
    log_debug("net: ppoll failed: %s", strerror(errno));
}

/* Progress until `owner`'s sends (all sends: NULL) completed or deadline_ns. */
static void mp_drain(const struct mp_sock *owner, uint64_t deadline_ns) {
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

/* ---- contexts ----------------------------------------------------------- */

static int mp_start(void) {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (finalized || mp.finalized) {
    log_error("net: MPI was finalised in this process already and cannot start again");
    return DSANA_ESTATE;
  }
  if (!inited) {
    int provided = 0;
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      log_error("net: cannot start MPI (MPI_Init_thread failed): mpi:// addresses need a job started by mpirun");
      return DSANA_ENET;
    }
    mp.own_init = true;
    if (provided < MPI_THREAD_FUNNELED)
      log_debug("net: MPI provides thread level %d only; compute threads never call MPI", provided);
  }
  /* errors come back as codes: a failed send or receive is the role's to handle */
  if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
      MPI_Comm_rank(MPI_COMM_WORLD, &mp.rank) != MPI_SUCCESS || MPI_Comm_size(MPI_COMM_WORLD, &mp.size) != MPI_SUCCESS) {
    log_error("net: MPI started but cannot tell this process's rank");
    return DSANA_ENET;
  }
  mp.started = true;
  return 0;
}

static int mp_ctx_create(struct net_ctx *ctx) {
  ctx->impl = NULL;
  int rc = mp.started ? 0 : mp_start();
  if (!rc)
    mp.ctxs++;
  return rc;
}

static void mp_ctx_destroy(struct net_ctx *ctx) {
  (void)ctx;
  if (--mp.ctxs > 0)
    return;
  mp_drain(NULL, clock_now_ns() + MP_LINGER_NS);
  if (mp.n > 0)
    log_debug("net: %zu MPI send(s) still pending at shutdown: cancelled", mp.n);
  for (size_t i = 0; i < mp.n; i++) {
    MPI_Cancel(&mp.reqs[i]);
    MPI_Request_free(&mp.reqs[i]);
  }
  if (mp.own_init) {
    MPI_Finalize();
    mp.finalized = true;
  }
  /* after MPI_Finalize no send can touch these; without it, MPI might */
  for (size_t i = 0; mp.own_init && i < mp.n; i++)
    free(mp.sends[i].buf);
  free(mp.reqs);
  free(mp.sends);
  free(mp.done_idx);
  mp.reqs = NULL;
  mp.sends = NULL;
  mp.done_idx = NULL;
  mp.n = mp.cap = 0;
  mp.started = false;
}

/* ---- sockets ------------------------------------------------------------ */

/* The rank of "mpi://R", or -1 after logging why not. */
static int mp_parse(const char *addr) {
  const char *p = strncmp(addr, "mpi://", 6) == 0 ? addr + 6 : NULL;
  char *end = NULL;
  errno = 0;
  long r = p && *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
  if (r < 0 || errno || !end || *end) {
    log_error("net: %s: not an MPI address (mpi://RANK)", addr);
    return -1;
  }
  if (r >= mp.size) {
    log_error("net: %s: no such rank (the job has %d)", addr, mp.size);
    return -1;
  }
  return (int)r;
}

static bool mp_on_main_thread(const char *addr) {
  int main_thread = 0;
  MPI_Is_thread_main(&main_thread);
  if (!main_thread)
    log_error("net: %s: mpi:// sockets belong to the thread that started MPI", addr);
  return main_thread != 0;
}

static int mp_listen(struct net_sock *s, const char *addr) {
  char self[32];
  snprintf(self, sizeof self, "mpi://%d", mp.rank);
  int rank = addr ? mp_parse(addr) : mp.rank;
  if (rank < 0)
    return DSANA_EINVAL;
  if (rank != mp.rank) {
    log_error("net: cannot listen on %s: this process is %s", addr, self);
    return DSANA_EINVAL;
  }
  if (!mp_on_main_thread(self))
    return DSANA_ESTATE;
  if (mp.listener) {
    log_error("net: cannot listen on %s: address in use (one listener per rank)", self);
    return DSANA_ENET;
  }
  struct mp_sock *ms = calloc(1, sizeof *ms);
  if (!ms)
    return DSANA_ENOMEM;
  ms->s = s;
  ms->rank = mp.rank;
  s->impl = mp.listener = ms;
  return 0;
}

static int mp_bound_addr(struct net_sock *s, char *buf, size_t len) {
  int n = snprintf(buf, len, "mpi://%d", ms_of(s)->rank);
  return n < 0 || (size_t)n >= len ? DSANA_ERANGE : 0;
}

static struct mp_sock *mp_find_dialer(int rank, uint32_t self_id) {
  for (struct mp_sock *d = mp.dialers; d; d = d->next)
    if (d->rank == rank && d->self_id == self_id)
      return d;
  return NULL;
}

static int mp_dial(struct net_sock *s, const char *addr, uint32_t self_id) {
  int rank = mp_parse(addr);
  if (rank < 0)
    return DSANA_EINVAL;
  if (!mp_on_main_thread(addr))
    return DSANA_ESTATE;
  if (mp_find_dialer(rank, self_id)) {
    log_error("net: cannot connect to %s: this process dialled it as %08x already", addr, self_id);
    return DSANA_EINVAL;
  }
  struct mp_sock *ms = calloc(1, sizeof *ms);
  if (!ms)
    return DSANA_ENOMEM;
  ms->s = s;
  ms->rank = rank;
  ms->self_id = self_id;
  ms->next = mp.dialers;
  mp.dialers = ms;
  s->impl = ms;
  return 0;
}

static void mp_in_free(struct mp_in *in) {
  if (in)
    free(in->buf);
  free(in);
}

static void mp_close(struct net_sock *s) {
  struct mp_sock *ms = ms_of(s);
  mp_drain(ms, clock_now_ns() + MP_LINGER_NS);
  if (ms->pending)
    log_debug("net: closing with %zu send(s) pending; they finish or are cancelled at shutdown", ms->pending);
  for (size_t i = 0; i < mp.n; i++)
    if (mp.sends[i].owner == ms)
      mp.sends[i].owner = NULL;
  if (s->listener) {
    mp.listener = NULL;
    free(ms->routes);
  } else {
    for (struct mp_sock **pp = &mp.dialers; *pp; pp = &(*pp)->next)
      if (*pp == ms) {
        *pp = ms->next;
        break;
      }
    for (struct mp_in *in = ms->head, *next; in; in = next) {
      next = in->next;
      mp_in_free(in);
    }
  }
  free(ms);
}

/* ---- sending ------------------------------------------------------------ */

static int mp_route_find(const struct mp_sock *l, uint32_t self_id) {
  for (size_t i = 0; i < l->n_routes; i++)
    if (l->routes[i].self_id == self_id)
      return l->routes[i].rank;
  return -1;
}

/* The listener learns where a dialer is (a restarted one takes over). */
static int mp_route_learn(struct mp_sock *l, uint32_t self_id, int rank) {
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

static int mp_send(struct net_sock *s, const struct net_peer *to, const uint8_t *hdr, void *payload, size_t len,
                   bool owned) {
  struct mp_sock *ms = ms_of(s);
  uint32_t id = ms->self_id;
  int dest = ms->rank, rc = 0;
  mp_progress();
  if (len > (size_t)INT_MAX - MP_HEAD_BYTES) {
    log_error("net: cannot send %s: %zu bytes do not fit one MPI message", net_hdr_type_name(hdr, WIRE_HDR_BYTES),
              len);
    rc = DSANA_ERANGE;
  } else if (s->listener && (net_peer_id(to, &id) != 0 || (dest = mp_route_find(ms, id)) < 0)) {
    char peer[80];
    net_peer_format(s, to, peer, sizeof peer);
    log_debug("net: cannot send %s to %s: no such peer", net_hdr_type_name(hdr, WIRE_HDR_BYTES), peer);
    rc = DSANA_ENET;
  }
  unsigned char *buf = rc ? NULL : malloc(MP_HEAD_BYTES + len);
  if (!rc && (!buf || mp_send_reserve() != 0))
    rc = DSANA_ENOMEM;
  if (!rc) {
    wire_put_u32(buf, id);
    memcpy(buf + MP_ID_BYTES, hdr, WIRE_HDR_BYTES);
    if (len)
      memcpy(buf + MP_HEAD_BYTES, payload, len);
  }
  if (owned)
    free(payload);
  int tag = s->listener ? MP_TAG_REPLY : MP_TAG_LISTENER;
  int mrc = rc ? MPI_SUCCESS
               : MPI_Isend(buf, (int)(MP_HEAD_BYTES + len), MPI_BYTE, dest, tag, MPI_COMM_WORLD, &mp.reqs[mp.n]);
  if (mrc != MPI_SUCCESS) {
    char why[MPI_MAX_ERROR_STRING];
    log_debug("net: cannot send to rank %d: %s", dest, mp_strerror(mrc, why));
    rc = DSANA_ENET;
  }
  if (rc) {
    free(buf);
    return rc;
  }
  mp.sends[mp.n++] = (struct mp_send){.owner = ms, .buf = buf};
  ms->pending++;
  return 0;
}

/* ---- receiving ---------------------------------------------------------- */

/* Receive into head[0..68) a message that is dropped, without room for
 * the rest: it cycles through a small scratch area (a receive type of
 * extent 0, so memory stays bounded whatever the count says). A truncated
 * receive would be the textbook way, but Open MPI 4.1's shared-memory
 * single-copy path writes the whole message past the buffer. */
static int mp_recv_bounded(const MPI_Status *st, int count, unsigned char head[MP_HEAD_BYTES]) {
  static unsigned char scratch[MP_SCRATCH_BYTES]; /* control thread only */
  if (count <= MP_HEAD_BYTES)
    return MPI_Recv(head, MP_HEAD_BYTES, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Datatype block = MPI_DATATYPE_NULL, cycle = MPI_DATATYPE_NULL, whole = MPI_DATATYPE_NULL;
  int rest = count - MP_HEAD_BYTES;
  int lens[2] = {MP_HEAD_BYTES, rest / MP_SCRATCH_BYTES + 1};
  MPI_Aint disp[2];
  MPI_Get_address(head, &disp[0]);
  MPI_Get_address(scratch, &disp[1]);
  int rc = MPI_Type_contiguous(MP_SCRATCH_BYTES, MPI_BYTE, &block);
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_create_resized(block, 0, 0, &cycle);
  MPI_Datatype types[2] = {MPI_BYTE, cycle};
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_create_struct(2, lens, disp, types, &whole);
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_commit(&whole);
  if (rc == MPI_SUCCESS)
    rc = MPI_Recv(MPI_BOTTOM, 1, whole, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Datatype *all[3] = {&whole, &cycle, &block};
  for (int i = 0; i < 3; i++)
    if (*all[i] != MPI_DATATYPE_NULL)
      MPI_Type_free(all[i]);
  return rc;
}

/* Consume a message that will not be kept, then log and count the drop. */
static int mp_discard(struct net_sock *s, const MPI_Status *st, int count, const char *reason) {
  unsigned char head[MP_HEAD_BYTES] = {0};
  int rc = mp_recv_bounded(st, count, head);
  if (rc != MPI_SUCCESS) {
    char why[MPI_MAX_ERROR_STRING];
    log_error("net: receiving from rank %d failed: %s", st->MPI_SOURCE, mp_strerror(rc, why));
    return DSANA_ENET;
  }
  char why[160];
  snprintf(why, sizeof why, "%d bytes from rank %d: %s", count, st->MPI_SOURCE, reason);
  struct net_peer from = {0};
  if (count >= MP_HEAD_BYTES && s->listener) {
    from.len = 5;
    from.id[0] = 'D';
    memcpy(from.id + 1, head, MP_ID_BYTES);
  }
  net_log_drop(s, &from, net_hdr_type_name(head + MP_ID_BYTES, count >= MP_HEAD_BYTES ? WIRE_HDR_BYTES : 0), why);
  return DSANA_EPROTO;
}

/* Receive the message st announced into *out. DSANA_EPROTO when it was
 * dropped (counted on s), DSANA_ENOMEM, DSANA_ENET. */
static int mp_take(struct net_sock *s, const MPI_Status *st, struct mp_in **out) {
  int count = 0;
  if (MPI_Get_count(st, MPI_BYTE, &count) != MPI_SUCCESS || count == MPI_UNDEFINED)
    count = INT_MAX;
  if (count < MP_HEAD_BYTES || (uint64_t)count > s->max_payload + MP_HEAD_BYTES)
    return mp_discard(s, st, count,
                      count < MP_HEAD_BYTES ? "shorter than an identity and a header" : "over the message size limit");
  struct mp_in *in = calloc(1, sizeof *in);
  if (in)
    in->buf = malloc((size_t)count + MP_SLACK);
  if (!in || !in->buf) {
    mp_in_free(in);
    int rc = mp_discard(s, st, count, "out of memory");
    return rc == DSANA_EPROTO ? DSANA_ENOMEM : rc;
  }
  int rc = MPI_Recv(in->buf + MP_SLACK, count, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    char why[MPI_MAX_ERROR_STRING];
    log_error("net: receiving from rank %d failed: %s", st->MPI_SOURCE, mp_strerror(rc, why));
    mp_in_free(in);
    return DSANA_ENET;
  }
  in->len = (size_t)count;
  in->source = st->MPI_SOURCE;
  *out = in;
  return 0;
}

static uint32_t mp_in_id(const struct mp_in *in) { return wire_get_u32(in->buf + MP_SLACK); }

static void mp_in_push(struct mp_sock *d, struct mp_in *in) {
  in->next = NULL;
  if (d->tail)
    d->tail->next = in;
  else
    d->head = in;
  d->tail = in;
}

/* A dialer: receive replies from its rank until one of its own is queued
 * (true) or none is waiting; others' go to their dialers. */
static int mp_fill(struct mp_sock *d) {
  while (!d->head) {
    int flag = 0;
    MPI_Status st;
    if (MPI_Iprobe(d->rank, MP_TAG_REPLY, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
      return DSANA_ENET;
    if (!flag)
      return 0;
    struct mp_in *in;
    int rc = mp_take(d->s, &st, &in);
    if (rc == DSANA_EPROTO)
      continue;
    if (rc)
      return rc;
    struct mp_sock *to = mp_find_dialer(d->rank, mp_in_id(in));
    if (to) {
      mp_in_push(to, in);
    } else {
      log_debug("net: a reply from rank %d for a closed dialer %08x: discarded", in->source, mp_in_id(in));
      mp_in_free(in);
    }
  }
  return 1;
}

/* Is a message waiting for s? 1, 0, or an error. */
static int mp_ready(struct net_sock *s) {
  if (!s->listener)
    return mp_fill(ms_of(s));
  int flag = 0;
  if (MPI_Iprobe(MPI_ANY_SOURCE, MP_TAG_LISTENER, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
    return DSANA_ENET;
  return flag != 0;
}

/* Validate in and hand it to m (payload in place), or drop it. */
static int mp_deliver(struct net_sock *s, struct mp_in *in, struct net_msg *m) {
  struct net_peer from = {.len = 5, .id = {'D'}};
  uint32_t id = mp_in_id(in);
  wire_put_u32(from.id + 1, id);
  const uint8_t *hdr = in->buf + MP_SLACK + MP_ID_BYTES;
  size_t plen = in->len - MP_HEAD_BYTES;
  int rc = net_accept(s, s->listener ? &from : NULL, hdr, WIRE_HDR_BYTES, plen > 0, plen, &m->hdr);
  if (!rc && s->listener)
    rc = mp_route_learn(ms_of(s), id, in->source);
  if (rc || plen == 0) {
    mp_in_free(in);
  } else {
    m->payload = in->buf + MP_SLACK + MP_HEAD_BYTES;
    m->store = NET_STORE_IMPL;
    memcpy(m->impl, &in->buf, sizeof in->buf);
    free(in);
  }
  if (!rc && s->listener)
    m->from = from;
  return rc;
}

static int mp_recv(struct net_sock *s, struct net_msg *m) {
  mp_progress();
  struct mp_sock *ms = ms_of(s);
  struct mp_in *in = NULL;
  if (!s->listener) {
    int rc = mp_fill(ms);
    if (rc <= 0)
      return rc < 0 ? rc : DSANA_EAGAIN;
    in = ms->head;
    if (!(ms->head = in->next))
      ms->tail = NULL;
    return mp_deliver(s, in, m);
  }
  int flag = 0;
  MPI_Status st;
  if (MPI_Iprobe(MPI_ANY_SOURCE, MP_TAG_LISTENER, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
    return DSANA_ENET;
  if (!flag)
    return DSANA_EAGAIN;
  int rc = mp_take(s, &st, &in);
  return rc ? rc : mp_deliver(s, in, m);
}

static void mp_msg_fini(struct net_msg *m) {
  unsigned char *buf;
  memcpy(&buf, m->impl, sizeof buf);
  free(buf);
}

/* ---- polling ------------------------------------------------------------ */

static int mp_poll(struct net_sock *const *socks, int n, const int *fds, int nfds, int timeout_ms, uint64_t until_ns,
                   bool *ready, bool *fd_ready) {
  uint64_t now = clock_now_ns();
  uint64_t deadline = timeout_ms < 0 ? UINT64_MAX : now + (uint64_t)timeout_ms * 1000000u;
  if (until_ns && until_ns < deadline)
    deadline = until_ns;
  struct pollfd stack[MP_POLL_STACK], *p = nfds <= MP_POLL_STACK ? stack : malloc(sizeof *p * (size_t)nfds);
  if (!p)
    return DSANA_ENOMEM;
  for (int i = 0; i < nfds; i++)
    p[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
  uint64_t nap = MP_BACKOFF_MIN_NS;
  int got = 0;
  for (;;) {
    mp_progress();
    got = 0;
    for (int i = 0; i < n && got >= 0; i++) {
      int r = mp_ready(socks[i]);
      ready[i] = r > 0;
      got = r < 0 ? r : got + (r > 0);
    }
    int prc = got >= 0 && nfds > 0 ? poll(p, (nfds_t)nfds, 0) : 0;
    if (prc < 0 && errno != EINTR) {
      log_error("net: poll failed: %s", strerror(errno));
      got = DSANA_ENET;
    }
    for (int i = 0; i < nfds && got >= 0; i++) {
      fd_ready[i] = prc > 0 && (p[i].revents & POLLIN);
      got += fd_ready[i];
    }
    if (got != 0 || (now = clock_now_ns()) >= deadline)
      break;
    mp_nap(p, nfds, deadline - now < nap ? deadline - now : nap);
    nap = nap * 2 > MP_BACKOFF_MAX_NS ? MP_BACKOFF_MAX_NS : nap * 2;
  }
  if (p != stack)
    free(p);
  return got;
}

const struct net_ops net_mpi_ops = {
    .scheme = "mpi",
    .ctx_create = mp_ctx_create,
    .ctx_destroy = mp_ctx_destroy,
    .listen = mp_listen,
    .bound_addr = mp_bound_addr,
    .dial = mp_dial,
    .close = mp_close,
    .send = mp_send,
    .recv = mp_recv,
    .msg_fini = mp_msg_fini,
    .poll = mp_poll,
};
