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
 *
 * Files: this one holds contexts, sockets, sending and the ops table;
 * net_mpi_recv.c receives and polls; net_mpi_state.c keeps the process's
 * MPI state (sends in flight, dialers, routes). Calls go one way, from
 * here to the other two and from net_mpi_recv.c to net_mpi_state.c
 * (net_mpi_recv.h, net_mpi_state.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "net/mpi/net_mpi_recv.h"
#include "net/mpi/net_mpi_state.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

#define MP_LINGER_NS 1000000000ull /* a closing socket's sends */

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
      MPI_Comm_rank(MPI_COMM_WORLD, &mp.rank) != MPI_SUCCESS ||
      MPI_Comm_size(MPI_COMM_WORLD, &mp.size) != MPI_SUCCESS) {
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

static int mp_send(struct net_sock *s, const struct net_peer *to, const uint8_t *hdr, void *payload, size_t len,
                   bool owned) {
  struct mp_sock *ms = ms_of(s);
  uint32_t id = ms->self_id;
  int dest = ms->rank, rc = 0;
  mp_progress();
  if (len > (size_t)INT_MAX - MP_HEAD_BYTES) {
    log_error("net: cannot send %s: %zu bytes do not fit one MPI message", net_hdr_type_name(hdr, WIRE_HDR_BYTES), len);
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
