/*
 * net_zmq.c - the tcp:// and ipc:// transports: dsana messages over
 * ZeroMQ ROUTER (listener) / DEALER (dialer) sockets, behind the seam of
 * transport_impl.h.
 *
 * Framing. A dialer sends and receives [header][payload?]; a listener sees
 * [identity][header][payload?], the identity being the dialer's routing id
 * ('D' + self_id as 4 little-endian bytes; ZeroMQ reserves identities
 * starting with a 0 byte). Anything else is drained, logged and counted.
 * ZMQ_MAXMSGSIZE makes ZeroMQ refuse frames far over the limit before it
 * allocates them.
 *
 * Security. With a job secret, listeners are CURVE servers holding the
 * job's key pair and dialers must know its public key (secure.h); a
 * monitor socket reports peers that fail the handshake.
 *
 * Payloads are read in place when 8-aligned (the zmq_msg_t lives in
 * net_msg.impl), else copied. Shared buffers of ipc:// contexts are files
 * in the context's local folder, mapped shared (net_zmq_buffers.c).
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "dsana/error.h"
#include "net/zmq/net_zmq_internal.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

static_assert(sizeof(zmq_msg_t) <= sizeof(((struct net_msg *)0)->impl), "net_msg.impl must hold a zmq_msg_t");
static_assert(alignof(zmq_msg_t) <= 8, "net_msg.impl is only 8-aligned");

#define ZN_HANDSHAKE_MS 5000 /* listeners: a peer's handshake must complete within this */
#define ZN_LINGER_MS 2000
#define ZN_MAXMSG_SLACK 4096 /* header frame and framing over max_payload */
#define ZN_POLL_STACK 16

struct zn_ctx {
  void *zctx;
  char public_key[41];
  unsigned seq; /* monitors and fresh endpoints */
};

struct zn_sock {
  void *z;
  void *mon; /* listener with CURVE: handshake-failure events */
};

static struct zn_ctx *zctx_of(struct net_ctx *ctx) { return ctx->impl; }
static struct zn_sock *zs(const struct net_sock *s) { return s->impl; }
static int zn_setopt_int(void *z, int opt, int v) { return zmq_setsockopt(z, opt, &v, sizeof v); }

static pthread_mutex_t zn_gate = PTHREAD_MUTEX_INITIALIZER;

static void *zn_wait_gate(void *arg) {
  pthread_mutex_lock(&zn_gate);
  pthread_mutex_unlock(&zn_gate);
  return arg;
}

/* ZeroMQ aborts the process when it cannot start its threads (an I/O
 * thread and a reaper, under a memory limit: ulimit -v); find out first,
 * with as many threads of the same default attributes alive at once plus
 * one to spare, and fail with one line instead. */
static int zn_can_start_threads(void) {
  enum { N = 3 };
  pthread_t t[N];
  int n = 0, rc = 0;
  pthread_mutex_lock(&zn_gate);
  while (n < N && (rc = pthread_create(&t[n], NULL, zn_wait_gate, NULL)) == 0)
    n++;
  pthread_mutex_unlock(&zn_gate);
  for (int i = 0; i < n; i++)
    pthread_join(t[i], NULL);
  if (rc) {
    log_error("net: cannot start ZeroMQ's threads: %s (a memory limit? ulimit -v)", strerror(rc));
    return DSANA_ENOMEM;
  }
  return 0;
}

static int zn_ctx_create(struct net_ctx *ctx) {
  if (zn_can_start_threads() != 0)
    return DSANA_ENOMEM;
  struct zn_ctx *c = calloc(1, sizeof *c);
  if (!c)
    return DSANA_ENOMEM;
  if (ctx->curve_secret[0] &&
      (strlen(ctx->curve_secret) != 40 || zmq_curve_public(c->public_key, ctx->curve_secret) != 0)) {
    free(c);
    return DSANA_EINVAL;
  }
  if (!(c->zctx = zmq_ctx_new())) {
    log_error("net: cannot create a ZeroMQ context: %s", zmq_strerror(errno));
    free(c);
    return DSANA_ENET;
  }
  ctx->impl = c;
  return 0;
}

static void zn_ctx_destroy(struct net_ctx *ctx) {
  struct zn_ctx *c = zctx_of(ctx);
  while (zmq_ctx_term(c->zctx) != 0 && errno == EINTR) {
  }
  free(c);
}

/* CURVE options before bind/connect: listeners hold the job's secret key;
 * dialers name its public key, with a throwaway key pair of their own. */
static int zn_secure(struct net_sock *s) {
  struct net_ctx *ctx = s->ctx;
  struct zn_ctx *c = zctx_of(ctx);
  void *z = zs(s)->z;
  if (!ctx->curve_secret[0])
    return 0;
  if (s->listener) {
    if (zn_setopt_int(z, ZMQ_CURVE_SERVER, 1) || zmq_setsockopt(z, ZMQ_CURVE_SECRETKEY, ctx->curve_secret, 40))
      return -1;
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://dsana-monitor-%p-%u", (void *)s, c->seq++);
    int events =
        ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
    if (zmq_socket_monitor(z, ep, events) != 0 || !(zs(s)->mon = zmq_socket(c->zctx, ZMQ_PAIR)) ||
        zmq_connect(zs(s)->mon, ep) != 0)
      return -1;
    return 0;
  }
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0 || zmq_setsockopt(z, ZMQ_CURVE_SERVERKEY, c->public_key, 40) ||
      zmq_setsockopt(z, ZMQ_CURVE_PUBLICKEY, pub, 40) || zmq_setsockopt(z, ZMQ_CURVE_SECRETKEY, sec, 40))
    return -1;
  return 0;
}

/* Log and count peers refused by the CURVE handshake (no or wrong token). */
static void zn_drain_monitor(struct net_sock *s) {
  void *mon = zs(s)->mon;
  zmq_msg_t ev;
  while (mon) {
    zmq_msg_init(&ev);
    if (zmq_msg_recv(&ev, mon, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&ev);
      return;
    }
    int more = zmq_msg_more(&ev);
    zmq_msg_close(&ev);
    char addr[256] = "";
    if (more) { /* second frame: the endpoint */
      zmq_msg_init(&ev);
      if (zmq_msg_recv(&ev, mon, 0) >= 0) {
        size_t n = zmq_msg_size(&ev) < sizeof addr - 1 ? zmq_msg_size(&ev) : sizeof addr - 1;
        memcpy(addr, zmq_msg_data(&ev), n);
        addr[n] = 0;
      }
      zmq_msg_close(&ev);
    }
    uint64_t r = ++s->stats.refused;
    while (r % 10 == 0) /* a refused peer retries: log the 1st, 10th, 100th ... */
      r /= 10;
    if (r == 1)
      log_warn("net: refused a peer on %s: authentication failed (no or wrong job token; %llu refusal%s so far)", addr,
               (unsigned long long)s->stats.refused, s->stats.refused == 1 ? "" : "s");
  }
}

/* A ZeroMQ socket of `type` with the options common to both kinds. */
static int zn_open(struct net_sock *s, int type) {
  struct zn_sock *z = calloc(1, sizeof *z);
  if (!z)
    return DSANA_ENOMEM;
  s->impl = z;
  if (!(z->z = zmq_socket(zctx_of(s->ctx)->zctx, type))) {
    log_error("net: cannot create a socket: %s", zmq_strerror(errno));
    free(z);
    return DSANA_ENET;
  }
  int64_t maxmsg =
      s->max_payload > (uint64_t)INT64_MAX - ZN_MAXMSG_SLACK ? -1 : (int64_t)(s->max_payload + ZN_MAXMSG_SLACK);
  if (zn_setopt_int(z->z, ZMQ_SNDHWM, 0) || zn_setopt_int(z->z, ZMQ_RCVHWM, 0) ||
      zn_setopt_int(z->z, ZMQ_LINGER, ZN_LINGER_MS) ||
      /* large kernel buffers: table transfers are megabytes per message */
      zn_setopt_int(z->z, ZMQ_SNDBUF, 4 << 20) || zn_setopt_int(z->z, ZMQ_RCVBUF, 4 << 20) ||
      zmq_setsockopt(z->z, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg) ||
      (s->listener && zn_setopt_int(z->z, ZMQ_ROUTER_MANDATORY, 1)) ||
      /* a restarted dialer with the same id takes its route over */
      (s->listener && zn_setopt_int(z->z, ZMQ_ROUTER_HANDOVER, 1)) ||
      /* a connection that has not completed its handshake in time is closed:
       * idle or hostile peers cannot hold descriptors for long */
      (s->listener && zn_setopt_int(z->z, ZMQ_HANDSHAKE_IVL, ZN_HANDSHAKE_MS)) || zn_secure(s) != 0) {
    log_error("net: cannot set socket options: %s", zmq_strerror(errno));
    if (z->mon)
      zmq_close(z->mon);
    zmq_close(z->z);
    free(z);
    return DSANA_ENET;
  }
  return 0;
}

static void zn_close(struct net_sock *s) {
  struct zn_sock *z = zs(s);
  if (z->mon) {
    zmq_socket_monitor(z->z, NULL, 0);
    zmq_close(z->mon);
  }
  zmq_close(z->z);
  free(z);
}

static int zn_listen(struct net_sock *s, const char *addr) {
  char fresh[1200];
  if (!addr) {
    struct zn_ctx *c = zctx_of(s->ctx);
    if (strcmp(s->ctx->scheme, "ipc") == 0)
      snprintf(fresh, sizeof fresh, "ipc://%s/l-%d-%u", s->ctx->local_dir[0] ? s->ctx->local_dir : "/tmp",
               (int)getpid(), c->seq++);
    else
      snprintf(fresh, sizeof fresh, "tcp://%s:*", s->ctx->bind_host);
    addr = fresh;
  }
  int rc = zn_open(s, ZMQ_ROUTER);
  if (rc)
    return rc;
  if (zmq_bind(zs(s)->z, addr) != 0) {
    log_error("net: cannot listen on %s: %s", addr, zmq_strerror(errno));
    zn_close(s);
    return DSANA_ENET;
  }
  return 0;
}

static int zn_bound_addr(struct net_sock *s, char *buf, size_t len) {
  char ep[1200];
  size_t n = sizeof ep;
  if (zmq_getsockopt(zs(s)->z, ZMQ_LAST_ENDPOINT, ep, &n) != 0)
    return DSANA_ENET;
  if (n == 0 || ep[0] == '\0')
    return DSANA_ESTATE;
  if (strlen(ep) >= len)
    return DSANA_ERANGE;
  memcpy(buf, ep, strlen(ep) + 1);
  return 0;
}

static int zn_dial(struct net_sock *s, const char *addr, uint32_t self_id) {
  int rc = zn_open(s, ZMQ_DEALER);
  if (rc)
    return rc;
  uint8_t rid[5] = {'D'};
  wire_put_u32(rid + 1, self_id);
  if (zmq_setsockopt(zs(s)->z, ZMQ_ROUTING_ID, rid, sizeof rid) != 0 || zmq_connect(zs(s)->z, addr) != 0) {
    log_error("net: cannot connect to %s: %s", addr, zmq_strerror(errno));
    zn_close(s);
    return DSANA_ENET;
  }
  return 0;
}

/* ---- sending ------------------------------------------------------------ */

static int zn_send1(void *z, const void *buf, size_t len, int flags) {
  while (zmq_send(z, buf, len, flags) < 0)
    if (errno != EINTR)
      return -1;
  return 0;
}

static void zn_free_payload(void *data, void *hint) {
  (void)hint;
  free(data);
}

/* The payload frame: copied by ZeroMQ, or (owned) handed over to it, which
 * frees it once sent (from its I/O thread; free() is thread-safe). */
static int zn_send_payload(void *z, void *payload, size_t len, bool owned) {
  if (!owned)
    return zn_send1(z, payload, len, 0);
  zmq_msg_t m;
  if (zmq_msg_init_data(&m, payload, len, zn_free_payload, NULL) != 0) {
    free(payload);
    return -1;
  }
  while (zmq_msg_send(&m, z, 0) < 0)
    if (errno != EINTR) {
      zmq_msg_close(&m); /* frees the payload */
      return -1;
    }
  return 0;
}

static int zn_send(struct net_sock *s, const struct net_peer *to, const uint8_t *hdr, void *payload, size_t len,
                   bool owned) {
  void *z = zs(s)->z;
  int more = len > 0 ? ZMQ_SNDMORE : 0;
  bool framed =
      (!s->listener || zn_send1(z, to->id, to->len, ZMQ_SNDMORE) == 0) && zn_send1(z, hdr, WIRE_HDR_BYTES, more) == 0;
  if (!framed && owned)
    free(payload);
  if (!framed || (len > 0 && zn_send_payload(z, payload, len, owned) != 0)) {
    char peer[80];
    net_peer_format(s, to, peer, sizeof peer);
    log_debug("net: cannot send %s to %s: %s", net_hdr_type_name(hdr, WIRE_HDR_BYTES), peer, zmq_strerror(errno));
    return DSANA_ENET;
  }
  return 0;
}

/* ---- receiving ---------------------------------------------------------- */

/* One frame into *part (initialized here; closed on failure). */
static int zn_recv1(void *z, zmq_msg_t *part, int flags) {
  zmq_msg_init(part);
  while (zmq_msg_recv(part, z, flags) < 0) {
    if (errno == EINTR)
      continue;
    int err = errno;
    zmq_msg_close(part);
    if (err == EAGAIN)
      return DSANA_EAGAIN;
    log_error("net: receive failed: %s", zmq_strerror(err));
    return DSANA_ENET;
  }
  return 0;
}

/* Discard the rest of a multipart message (delivered whole by ZeroMQ). */
static void zn_drain(void *z) {
  int more = 1;
  size_t sz = sizeof more;
  while (zmq_getsockopt(z, ZMQ_RCVMORE, &more, &sz) == 0 && more) {
    zmq_msg_t part;
    if (zn_recv1(z, &part, 0) != 0)
      return;
    zmq_msg_close(&part);
  }
}

/* net_msg_move for a frame kept in impl: zmq_msg_move, not a byte copy.
 * A small frame's bytes live inside the zmq_msg_t, at the same offset
 * wherever it is: impl is 8-aligned in both messages, so the payload stays
 * 8-aligned, as zn_take_payload() checked it was. */
static void zn_msg_move(struct net_msg *dst, struct net_msg *src) {
  *dst = *src;
  zmq_msg_t *d = (zmq_msg_t *)(void *)dst->impl, *s = (zmq_msg_t *)(void *)src->impl;
  zmq_msg_init(d);
  zmq_msg_move(d, s);
  dst->payload = zmq_msg_data(d);
  zmq_msg_close(s);
}

/* Give m the payload frame in *part, in place when 8-aligned. */
static int zn_take_payload(struct net_msg *m, zmq_msg_t *part) {
  void *data = zmq_msg_data(part);
  if (((uintptr_t)data & 7u) == 0) {
    zmq_msg_t *slot = (zmq_msg_t *)(void *)m->impl;
    zmq_msg_init(slot);
    zmq_msg_move(slot, part);
    m->payload = zmq_msg_data(slot);
    m->store = NET_STORE_IMPL;
    return 0;
  }
  int rc = net_msg_copy_payload(m, data, zmq_msg_size(part));
  zmq_msg_close(part);
  return rc;
}

/* The identity frame of a listener's message. */
static int zn_recv_identity(struct net_sock *s, struct net_peer *from) {
  zmq_msg_t part;
  int rc = zn_recv1(zs(s)->z, &part, ZMQ_DONTWAIT);
  if (rc)
    return rc;
  size_t idlen = zmq_msg_size(&part);
  int more = zmq_msg_more(&part);
  if (idlen <= sizeof from->id) {
    from->len = (uint8_t)idlen;
    memcpy(from->id, zmq_msg_data(&part), idlen);
  }
  zmq_msg_close(&part);
  if (idlen > sizeof from->id || !more) {
    zn_drain(zs(s)->z);
    net_log_drop(s, from, "UNKNOWN", idlen > sizeof from->id ? "peer identity too long" : "missing header frame");
    return DSANA_EPROTO;
  }
  return 0;
}

static int zn_recv(struct net_sock *s, struct net_msg *m) {
  void *z = zs(s)->z;
  zn_drain_monitor(s);
  struct net_peer from = {0};
  zmq_msg_t hpart, ppart;
  int rc = s->listener ? zn_recv_identity(s, &from) : 0;
  if (rc || (rc = zn_recv1(z, &hpart, s->listener ? 0 : ZMQ_DONTWAIT)) != 0)
    return rc;
  bool more = zmq_msg_more(&hpart);
  bool extra = false;
  size_t plen = 0;
  if (more && (rc = zn_recv1(z, &ppart, 0)) != 0) {
    zmq_msg_close(&hpart);
    return rc;
  }
  if (more) {
    plen = zmq_msg_size(&ppart);
    extra = zmq_msg_more(&ppart);
  }
  rc = extra ? DSANA_EPROTO : net_accept(s, &from, zmq_msg_data(&hpart), zmq_msg_size(&hpart), more, plen, &m->hdr);
  if (extra) {
    zn_drain(z);
    net_log_drop(s, &from, net_hdr_type_name(zmq_msg_data(&hpart), zmq_msg_size(&hpart)), "extra frame after payload");
  }
  zmq_msg_close(&hpart);
  if (rc || !more) {
    if (more)
      zmq_msg_close(&ppart);
    m->from = from;
    return rc;
  }
  m->from = from;
  return zn_take_payload(m, &ppart);
}

static void zn_msg_fini(struct net_msg *m) { zmq_msg_close((zmq_msg_t *)(void *)m->impl); }

/* ---- polling ------------------------------------------------------------ */

/* A timer fd readable at until_ns (CLOCK_MONOTONIC, as clock_now_ns()), or
 * -1 when none can be made (the poll then rounds up to milliseconds). */
static int zn_timer_fd(uint64_t until_ns) {
  int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0)
    return -1;
  struct itimerspec it = {.it_value = {(time_t)(until_ns / 1000000000u), (long)(until_ns % 1000000000u)}};
  if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &it, NULL) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* zmq_poll, retried on signals until timeout_ms has passed. */
static int zn_zpoll(zmq_pollitem_t *items, int n, int timeout_ms) {
  uint64_t deadline = timeout_ms > 0 ? clock_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
  int wait_ms = timeout_ms, rc;
  while ((rc = zmq_poll(items, n, wait_ms)) < 0 && errno == EINTR)
    if (timeout_ms > 0 && (wait_ms = net_ms_left(deadline)) == 0)
      return 0;
  if (rc < 0)
    log_error("net: poll failed: %s", zmq_strerror(errno));
  return rc < 0 ? DSANA_ENET : rc;
}

static int zn_poll(struct net_sock *const *socks, int n, const int *fds, int nfds, int timeout_ms, uint64_t until_ns,
                   bool *ready, bool *fd_ready) {
  for (int i = 0; i < n; i++)
    zn_drain_monitor(socks[i]);
  uint64_t now = until_ns ? clock_now_ns() : 0;
  if (until_ns && until_ns <= now)
    timeout_ms = 0;
  bool timed = until_ns && timeout_ms != 0 && (timeout_ms < 0 || until_ns - now < (uint64_t)timeout_ms * 1000000u);
  int tfd = timed ? zn_timer_fd(until_ns) : -1;
  if (timed && tfd < 0)
    timeout_ms = (int)((until_ns - now + 999999u) / 1000000u);
  int total = n + nfds + 1;
  zmq_pollitem_t stack_items[ZN_POLL_STACK];
  zmq_pollitem_t *items = total <= ZN_POLL_STACK ? stack_items : malloc((size_t)total * sizeof *items);
  if (!items) {
    if (tfd >= 0)
      close(tfd);
    return DSANA_ENOMEM;
  }
  for (int i = 0; i < n; i++)
    items[i] = (zmq_pollitem_t){.socket = zs(socks[i])->z, .events = ZMQ_POLLIN};
  for (int i = 0; i < nfds; i++)
    items[n + i] = (zmq_pollitem_t){.fd = fds[i], .events = ZMQ_POLLIN};
  items[n + nfds] = (zmq_pollitem_t){.fd = tfd, .events = ZMQ_POLLIN};
  int rc = zn_zpoll(items, n + nfds + (tfd >= 0), timeout_ms);
  int got = 0;
  for (int i = 0; i < n; i++)
    got += ready[i] = rc > 0 && (items[i].revents & ZMQ_POLLIN);
  for (int i = 0; i < nfds; i++)
    got += fd_ready[i] = rc > 0 && (items[n + i].revents & ZMQ_POLLIN);
  if (tfd >= 0)
    close(tfd);
  if (items != stack_items)
    free(items);
  return rc < 0 ? rc : got;
}

const struct net_ops net_zmq_ops = {
    .scheme = "zmq",
    .ctx_create = zn_ctx_create,
    .ctx_destroy = zn_ctx_destroy,
    .listen = zn_listen,
    .bound_addr = zn_bound_addr,
    .dial = zn_dial,
    .close = zn_close,
    .send = zn_send,
    .recv = zn_recv,
    .msg_fini = zn_msg_fini,
    .msg_move = zn_msg_move,
    .poll = zn_poll,
    .buffer_create = zn_buffer_create,
    .buffer_map = zn_buffer_map,
    .buffer_release = zn_buffer_release,
    .buffer_join = zn_buffer_join,
};
