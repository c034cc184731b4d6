/*
 * net_mpi_recv.c - receiving and polling of the mpi:// transport
 * (net_mpi.c): probing for messages, taking them into malloc()ed memory
 * or dropping them in bounded memory, handing replies to the dialer they
 * are for, and net_poll() over MPI sockets and descriptors. Calls only
 * net_mpi_state.c (net_mpi_state.h); control thread only.
 */
#include "net/mpi/net_mpi_recv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "net/mpi/net_mpi_state.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

#define MP_POLL_STACK 16
#define MP_SCRATCH_BYTES 65536 /* where a dropped message's bytes go */

void mp_in_free(struct mp_in *in) {
  if (in)
    free(in->buf);
  free(in);
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
  int rc =
      MPI_Recv(in->buf + MP_SLACK, count, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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

int mp_recv(struct net_sock *s, struct net_msg *m) {
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

void mp_msg_fini(struct net_msg *m) {
  unsigned char *buf;
  memcpy(&buf, m->impl, sizeof buf);
  free(buf);
}

/* ---- polling ------------------------------------------------------------ */

int mp_poll(struct net_sock *const *socks, int n, const int *fds, int nfds, int timeout_ms, uint64_t until_ns,
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
