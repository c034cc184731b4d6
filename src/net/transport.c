/*
 * transport.c - dsana messages over ZeroMQ ROUTER/DEALER sockets
 * (transport.h).
 *
 * Framing. A dialer (DEALER) sends and receives [header][payload?]; a
 * listener (ROUTER) sees [identity][header][payload?], the identity being
 * the dialer's routing id ('D' + self_id as 4 little-endian bytes; ZeroMQ
 * reserves identities that start with a 0 byte for ones it makes up).
 *
 * Validation. net_recv() hands out only messages whose header passed
 * wire_decode() and that carry exactly one payload frame of the declared
 * size iff payload_bytes > 0. Anything else is drained, logged once (peer,
 * type, reason) and counted in stats.dropped. ZMQ_MAXMSGSIZE makes ZeroMQ
 * itself refuse (and disconnect) frames far over the limit before it
 * allocates them.
 *
 * Payloads are read in place: the zmq_msg_t lives in net_msg.impl. The
 * runtime reads payloads as doubles, but ZeroMQ may hand out frames at any
 * address (small ones inline in the message, mid-sized ones inside its
 * shared receive buffer), so an unaligned payload is copied: into impl
 * itself when it fits, else into a malloc'ed buffer.
 *
 * Link emulation is not here: outbox.c queues and paces sends above this
 * layer. net_poll_until() lets its owner wake on time for the next one.
 *
 * Threads: a net_sock belongs to the thread that created it (ZeroMQ rule).
 */
#include "net/transport.h"

#include <assert.h>
#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#include "dsana/dsana.h"
#include "util/clock.h"
#include "util/log.h"

static_assert(sizeof(zmq_msg_t) <= sizeof(((struct net_msg *)0)->impl),
              "net_msg.impl must hold a zmq_msg_t");
static_assert(alignof(zmq_msg_t) <= 8, "net_msg.impl is only 8-aligned");

#define NET_LINGER_MS 2000
#define NET_MAXMSG_SLACK 4096     /* header frame and framing over max_payload */
#define NET_POLL_STACK 16

/* Where a received payload is stored (net_msg.has_payload; 0 = none). */
enum net_payload_store { NET_PAYLOAD_ZMQ = 1, NET_PAYLOAD_INLINE = 2, NET_PAYLOAD_HEAP = 3 };

struct net_ctx {
  void *zctx;
  uint64_t max_payload; /* for sockets opened from now on */
  bool secure;          /* CURVE with the job's key (net_ctx_set_curve) */
  char secret[41], public_key[41];
  unsigned mon_seq;
};

/* Owned by the thread that created it. */
struct net_sock {
  void *z;
  void *mon; /* listener with CURVE: handshake-failure events */
  bool listener;
  uint64_t max_payload;     /* protocol check on receive */
  uint64_t zmq_max_payload; /* what ZMQ_MAXMSGSIZE was set for at open */
  struct net_stats stats;
};

/* ---- small helpers ------------------------------------------------------ */

static void net_peer_format(const struct net_sock *s, const struct net_peer *p, char *buf,
                            size_t len) {
  if (!s->listener) {
    snprintf(buf, len, "server");
    return;
  }
  if (p->len == 0) {
    snprintf(buf, len, "unidentified peer");
    return;
  }
  size_t n = (size_t)snprintf(buf, len, "peer ");
  for (uint8_t i = 0; i < p->len && n + 3 <= len; i++)
    n += (size_t)snprintf(buf + n, len - n, "%02x", p->id[i]);
}

static int net_setopt_int(void *z, int opt, int v) { return zmq_setsockopt(z, opt, &v, sizeof v); }

static int64_t net_maxmsgsize(uint64_t max_payload) {
  if (max_payload > (uint64_t)INT64_MAX - NET_MAXMSG_SLACK)
    return -1; /* no ZeroMQ limit; our own check still applies */
  return (int64_t)(max_payload + NET_MAXMSG_SLACK);
}

static uint64_t net_deadline(int timeout_ms) {
  return clock_now_ns() + (uint64_t)timeout_ms * 1000000u;
}

/* Milliseconds left until deadline, rounded up so we do not spin. */
static int net_ms_left(uint64_t deadline_ns) {
  uint64_t now = clock_now_ns();
  if (now >= deadline_ns)
    return 0;
  return (int)((deadline_ns - now + 999999u) / 1000000u);
}

/* ---- context and sockets ------------------------------------------------ */

int net_ctx_create(struct net_ctx **out) {
  struct net_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return DSANA_ENOMEM;
  ctx->max_payload = WIRE_DEFAULT_MAX_PAYLOAD;
  ctx->zctx = zmq_ctx_new();
  if (!ctx->zctx) {
    log_error("net: cannot create ZeroMQ context: %s", zmq_strerror(errno));
    free(ctx);
    return DSANA_ENET;
  }
  *out = ctx;
  return 0;
}

void net_ctx_set_max_payload(struct net_ctx *ctx, uint64_t bytes) { ctx->max_payload = bytes; }

int net_ctx_set_curve(struct net_ctx *ctx, const char *secret_z85) {
  if (strlen(secret_z85) != 40 || zmq_curve_public(ctx->public_key, secret_z85) != 0)
    return DSANA_EINVAL;
  memcpy(ctx->secret, secret_z85, 41);
  ctx->secure = true;
  return 0;
}

/* CURVE options before bind/connect: listeners hold the job's secret key;
 * dialers must name its public key, with a throwaway key pair of their own. */
static int net_sock_secure(struct net_ctx *ctx, struct net_sock *s) {
  if (!ctx->secure)
    return 0;
  if (s->listener) {
    if (net_setopt_int(s->z, ZMQ_CURVE_SERVER, 1) || zmq_setsockopt(s->z, ZMQ_CURVE_SECRETKEY, ctx->secret, 40))
      return -1;
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://dsana-monitor-%p-%u", (void *)s, ctx->mon_seq++);
    int events = ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                 ZMQ_EVENT_HANDSHAKE_FAILED_AUTH;
    if (zmq_socket_monitor(s->z, ep, events) != 0 || !(s->mon = zmq_socket(ctx->zctx, ZMQ_PAIR)) ||
        zmq_connect(s->mon, ep) != 0)
      return -1;
    return 0;
  }
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0 || zmq_setsockopt(s->z, ZMQ_CURVE_SERVERKEY, ctx->public_key, 40) ||
      zmq_setsockopt(s->z, ZMQ_CURVE_PUBLICKEY, pub, 40) || zmq_setsockopt(s->z, ZMQ_CURVE_SECRETKEY, sec, 40))
    return -1;
  return 0;
}

/* Log and count peers refused by the CURVE handshake (no or wrong token). */
static void net_drain_monitor(struct net_sock *s) {
  zmq_msg_t ev;
  while (s->mon) {
    zmq_msg_init(&ev);
    if (zmq_msg_recv(&ev, s->mon, ZMQ_DONTWAIT) < 0) {
      zmq_msg_close(&ev);
      return;
    }
    int more = zmq_msg_more(&ev);
    zmq_msg_close(&ev);
    char addr[256] = "";
    if (more) { /* second frame: the endpoint */
      zmq_msg_init(&ev);
      if (zmq_msg_recv(&ev, s->mon, 0) >= 0) {
        size_t n = zmq_msg_size(&ev) < sizeof addr - 1 ? zmq_msg_size(&ev) : sizeof addr - 1;
        memcpy(addr, zmq_msg_data(&ev), n);
        addr[n] = 0;
      }
      zmq_msg_close(&ev);
    }
    s->stats.refused++;
    /* a refused peer retries: log the 1st, 10th, 100th ... refusal */
    uint64_t r = s->stats.refused;
    while (r % 10 == 0)
      r /= 10;
    if (r == 1)
      log_warn("net: refused a peer on %s: authentication failed (no or wrong job token; %llu refusal%s so far)",
               addr, (unsigned long long)s->stats.refused, s->stats.refused == 1 ? "" : "s");
  }
}

void net_ctx_destroy(struct net_ctx *ctx) {
  if (!ctx)
    return;
  while (zmq_ctx_term(ctx->zctx) != 0 && errno == EINTR) {
  }
  free(ctx);
}

/* A socket of `type` with the options common to both kinds. */
static int net_sock_open(struct net_ctx *ctx, int type, struct net_sock **out) {
  struct net_sock *s = calloc(1, sizeof *s);
  if (!s)
    return DSANA_ENOMEM;
  s->listener = type == ZMQ_ROUTER;
  s->max_payload = s->zmq_max_payload = ctx->max_payload;
  s->z = zmq_socket(ctx->zctx, type);
  if (!s->z) {
    log_error("net: cannot create socket: %s", zmq_strerror(errno));
    free(s);
    return DSANA_ENET;
  }
  int64_t maxmsg = net_maxmsgsize(s->max_payload);
  if (net_setopt_int(s->z, ZMQ_SNDHWM, 0) || net_setopt_int(s->z, ZMQ_RCVHWM, 0) ||
      net_setopt_int(s->z, ZMQ_LINGER, NET_LINGER_MS) ||
      /* large kernel buffers: table transfers are megabytes per message */
      net_setopt_int(s->z, ZMQ_SNDBUF, 4 << 20) || net_setopt_int(s->z, ZMQ_RCVBUF, 4 << 20) ||
      zmq_setsockopt(s->z, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg) ||
      (s->listener && net_setopt_int(s->z, ZMQ_ROUTER_MANDATORY, 1)) ||
      /* a restarted dialer with the same id takes its route over */
      (s->listener && net_setopt_int(s->z, ZMQ_ROUTER_HANDOVER, 1))) {
    log_error("net: cannot set socket options: %s", zmq_strerror(errno));
    zmq_close(s->z);
    free(s);
    return DSANA_ENET;
  }
  if (net_sock_secure(ctx, s) != 0) {
    log_error("net: cannot set up CURVE security: %s", zmq_strerror(errno));
    net_close(s);
    return DSANA_ENET;
  }
  *out = s;
  return 0;
}

int net_listen(struct net_ctx *ctx, const char *addr, struct net_sock **out) {
  struct net_sock *s;
  int rc = net_sock_open(ctx, ZMQ_ROUTER, &s);
  if (rc)
    return rc;
  if (zmq_bind(s->z, addr) != 0) {
    log_error("net: cannot listen on %s: %s", addr, zmq_strerror(errno));
    net_close(s);
    return DSANA_ENET;
  }
  *out = s;
  return 0;
}

int net_bound_addr(struct net_sock *s, char *buf, size_t len) {
  char ep[256];
  size_t n = sizeof ep;
  if (zmq_getsockopt(s->z, ZMQ_LAST_ENDPOINT, ep, &n) != 0) {
    log_error("net: cannot read bound address: %s", zmq_strerror(errno));
    return DSANA_ENET;
  }
  if (n == 0 || ep[0] == '\0')
    return DSANA_ESTATE; /* not bound */
  if (strlen(ep) >= len)
    return DSANA_ERANGE;
  memcpy(buf, ep, strlen(ep) + 1);
  return 0;
}

int net_dial(struct net_ctx *ctx, const char *addr, uint32_t self_id, struct net_sock **out) {
  struct net_sock *s;
  int rc = net_sock_open(ctx, ZMQ_DEALER, &s);
  if (rc)
    return rc;
  uint8_t rid[5] = {'D'};
  wire_put_u32(rid + 1, self_id);
  if (zmq_setsockopt(s->z, ZMQ_ROUTING_ID, rid, sizeof rid) != 0) {
    log_error("net: cannot set routing id: %s", zmq_strerror(errno));
    net_close(s);
    return DSANA_ENET;
  }
  if (zmq_connect(s->z, addr) != 0) {
    log_error("net: cannot connect to %s: %s", addr, zmq_strerror(errno));
    net_close(s);
    return DSANA_ENET;
  }
  *out = s;
  return 0;
}

void net_close(struct net_sock *s) {
  if (!s)
    return;
  if (s->mon) {
    zmq_socket_monitor(s->z, NULL, 0);
    zmq_close(s->mon);
  }
  zmq_close(s->z);
  free(s);
}

void net_set_max_payload(struct net_sock *s, uint64_t bytes) {
  s->max_payload = bytes;
  /* ZeroMQ copied ZMQ_MAXMSGSIZE into the listener or connection when the
   * socket bound or connected; changing it now would not reach them. */
  if (bytes > s->zmq_max_payload)
    log_warn("net: max payload %llu bytes exceeds the %llu fixed when the socket was "
             "opened; ZeroMQ will still refuse larger frames (net_ctx_set_max_payload)",
             (unsigned long long)bytes, (unsigned long long)s->zmq_max_payload);
}

void net_get_stats(const struct net_sock *s, struct net_stats *st) { *st = s->stats; }

/* ---- sending ------------------------------------------------------------ */

static int net_zsend(void *z, const void *buf, size_t len, int flags) {
  while (zmq_send(z, buf, len, flags) < 0) {
    if (errno != EINTR)
      return -1;
  }
  return 0;
}

static void net_free_payload(void *data, void *hint) {
  (void)hint;
  free(data);
}

/* The payload frame: copied by ZeroMQ, or (owned) handed over to it, which
 * frees it once sent (from its I/O thread; free() is thread-safe). */
static int net_zsend_payload(void *z, void *payload, size_t len, bool owned) {
  if (!owned)
    return net_zsend(z, payload, len, 0);
  zmq_msg_t m;
  if (zmq_msg_init_data(&m, payload, len, net_free_payload, NULL) != 0) {
    free(payload);
    return -1;
  }
  while (zmq_msg_send(&m, z, 0) < 0) {
    if (errno != EINTR) {
      zmq_msg_close(&m); /* frees the payload */
      return -1;
    }
  }
  return 0;
}

static int net_send_frames(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, void *payload,
                           size_t len, bool owned) {
  const char *tname = wire_type_name(h->type);
  uint8_t hdr[WIRE_HDR_BYTES];
  struct wire_hdr check;
  const char *why = NULL;
  wire_encode(h, hdr);
  /* Refuse here what the receiver would drop: the bug is on this side. */
  if (h->payload_bytes != len)
    why = "payload_bytes differs from the payload length";
  else if (len > 0 && !payload)
    why = "no payload buffer";
  else if (s->listener && (!to || to->len == 0 || to->len > sizeof to->id))
    why = "no peer to send to";
  else
    wire_decode(hdr, sizeof hdr, UINT64_MAX, &check, &why);
  if (why) {
    log_error("net: refusing to send %s: %s", tname, why);
    if (owned)
      free(payload);
    return DSANA_EINVAL;
  }
  int more = len > 0 ? ZMQ_SNDMORE : 0;
  bool framed = (!s->listener || net_zsend(s->z, to->id, to->len, ZMQ_SNDMORE) == 0) &&
                net_zsend(s->z, hdr, sizeof hdr, more) == 0;
  if (!framed && owned)
    free(payload);
  if (!framed || (len > 0 && net_zsend_payload(s->z, payload, len, owned) != 0)) {
    char peer[80];
    net_peer_format(s, to, peer, sizeof peer);
    log_error("net: cannot send %s to %s: %s", tname, peer, zmq_strerror(errno));
    return DSANA_ENET;
  }
  s->stats.msgs_out++;
  s->stats.bytes_out += WIRE_HDR_BYTES + (uint64_t)len;
  return 0;
}

int net_send(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
             const void *payload, size_t len) {
  return net_send_frames(s, to, h, (void *)payload, len, false);
}

int net_send_owned(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, void *payload,
                   size_t len) {
  if (len == 0) { /* no payload frame to hand it to */
    free(payload);
    payload = NULL;
  }
  return net_send_frames(s, to, h, payload, len, true);
}

/* ---- receiving ---------------------------------------------------------- */

/* Receive one frame into *part (initialized here; closed on failure). */
static int net_zrecv(struct net_sock *s, zmq_msg_t *part, int flags) {
  zmq_msg_init(part);
  while (zmq_msg_recv(part, s->z, flags) < 0) {
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

/* Discard the rest of a multipart message. ZeroMQ delivers multipart
 * messages whole, so the remaining frames are already here. */
static void net_drain(struct net_sock *s) {
  int more = 1;
  size_t sz = sizeof more;
  while (zmq_getsockopt(s->z, ZMQ_RCVMORE, &more, &sz) == 0 && more) {
    zmq_msg_t part;
    if (net_zrecv(s, &part, 0) != 0)
      return;
    zmq_msg_close(&part);
  }
}

static int net_drop(struct net_sock *s, const struct net_peer *from, const char *tname,
                    const char *why) {
  char peer[80];
  net_drain(s);
  net_peer_format(s, from, peer, sizeof peer);
  log_warn("net: dropped message from %s (type %s): %s", peer, tname, why);
  s->stats.dropped++;
  return DSANA_EPROTO;
}

/* Name a header's type only if it is a dsana header at all. */
static const char *net_hdr_type_name(const zmq_msg_t *part) {
  const uint8_t *b = zmq_msg_data((zmq_msg_t *)part);
  if (zmq_msg_size((zmq_msg_t *)part) != WIRE_HDR_BYTES || wire_get_u32(b) != WIRE_MAGIC)
    return "UNKNOWN";
  return wire_type_name((uint16_t)(b[6] | b[7] << 8));
}

/* Give m the payload frame in *part, copying it if it is not 8-aligned. */
static int net_msg_take_payload(struct net_msg *m, zmq_msg_t *part) {
  void *data = zmq_msg_data(part);
  size_t len = zmq_msg_size(part);
  zmq_msg_t *slot = (zmq_msg_t *)(void *)m->impl;
  if (((uintptr_t)data & 7u) == 0) {
    zmq_msg_init(slot);
    zmq_msg_move(slot, part);
    m->payload = zmq_msg_data(slot);
    m->has_payload = NET_PAYLOAD_ZMQ;
    return 0;
  }
  if (len <= sizeof m->impl) {
    memcpy(m->impl, data, len);
    m->payload = m->impl;
    m->has_payload = NET_PAYLOAD_INLINE;
  } else {
    void *copy = malloc(len);
    if (!copy) {
      zmq_msg_close(part);
      return DSANA_ENOMEM;
    }
    memcpy(copy, data, len);
    m->payload = copy;
    m->has_payload = NET_PAYLOAD_HEAP;
  }
  zmq_msg_close(part);
  return 0;
}

/* Take one queued message without waiting: 0 (valid, in *m), DSANA_EAGAIN
 * (nothing queued), DSANA_EPROTO (one invalid message dropped), or
 * DSANA_ENET / DSANA_ENOMEM. */
static int net_recv_one(struct net_sock *s, struct net_msg *m) {
  zmq_msg_t part;
  struct net_peer from = {0};
  int rc = net_zrecv(s, &part, ZMQ_DONTWAIT);
  if (rc)
    return rc;
  if (s->listener) {
    size_t idlen = zmq_msg_size(&part);
    int more = zmq_msg_more(&part);
    if (idlen <= sizeof from.id) {
      from.len = (uint8_t)idlen;
      memcpy(from.id, zmq_msg_data(&part), idlen);
    }
    zmq_msg_close(&part);
    if (idlen > sizeof from.id)
      return net_drop(s, &from, "UNKNOWN", "peer identity too long");
    if (!more)
      return net_drop(s, &from, "UNKNOWN", "missing header frame");
    if ((rc = net_zrecv(s, &part, 0)) != 0)
      return rc;
  }
  const char *why;
  const char *tname = net_hdr_type_name(&part);
  int more = zmq_msg_more(&part);
  rc = wire_decode(zmq_msg_data(&part), zmq_msg_size(&part), s->max_payload, &m->hdr, &why);
  zmq_msg_close(&part);
  if (rc)
    return net_drop(s, &from, tname, why);
  if (m->hdr.payload_bytes == 0 && more)
    return net_drop(s, &from, tname, "unexpected payload frame");
  if (m->hdr.payload_bytes > 0) {
    if (!more)
      return net_drop(s, &from, tname, "missing payload frame");
    if ((rc = net_zrecv(s, &part, 0)) != 0)
      return rc;
    if (zmq_msg_more(&part)) {
      zmq_msg_close(&part);
      return net_drop(s, &from, tname, "extra frame after payload");
    }
    if (wire_check_payload(&m->hdr, zmq_msg_size(&part), &why) != 0) {
      zmq_msg_close(&part);
      return net_drop(s, &from, tname, why);
    }
    if ((rc = net_msg_take_payload(m, &part)) != 0)
      return rc;
  }
  m->from = from;
  s->stats.msgs_in++;
  s->stats.bytes_in += WIRE_HDR_BYTES + m->hdr.payload_bytes;
  return 0;
}

/* Wait up to timeout_ms (-1 = forever) for input on s: 1, 0 or DSANA_ENET. */
static int net_wait_input(struct net_sock *s, int timeout_ms) {
  bool ready = false;
  struct net_sock *socks[1] = {s};
  int rc = net_poll(socks, 1, timeout_ms, &ready);
  return rc < 0 ? rc : (ready ? 1 : 0);
}

int net_recv(struct net_sock *s, struct net_msg *m, int timeout_ms) {
  net_drain_monitor(s);
  uint64_t deadline = timeout_ms > 0 ? net_deadline(timeout_ms) : 0;
  memset(m, 0, sizeof *m);
  for (;;) {
    int rc = net_recv_one(s, m);
    if (rc == 0)
      return 0;
    if (rc == DSANA_EPROTO)
      continue; /* dropped one; look for the next */
    if (rc != DSANA_EAGAIN)
      return rc;
    int wait_ms = timeout_ms < 0 ? -1 : (timeout_ms == 0 ? 0 : net_ms_left(deadline));
    if (wait_ms == 0)
      return DSANA_EAGAIN;
    if ((rc = net_wait_input(s, wait_ms)) < 0)
      return rc;
  }
}

void net_msg_fini(struct net_msg *m) {
  switch (m->has_payload) {
  case NET_PAYLOAD_ZMQ:
    zmq_msg_close((zmq_msg_t *)(void *)m->impl);
    break;
  case NET_PAYLOAD_HEAP:
    free((void *)m->payload);
    break;
  default:
    break;
  }
  m->payload = NULL;
  m->has_payload = 0;
}

/* A timer fd that becomes readable at until_ns (CLOCK_MONOTONIC, as
 * clock_now_ns()), or -1 when none can be made (the poll then rounds up to
 * whole milliseconds). */
static int net_timer_fd(uint64_t until_ns) {
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
static int net_zpoll(zmq_pollitem_t *items, int n, int timeout_ms) {
  uint64_t deadline = timeout_ms > 0 ? net_deadline(timeout_ms) : 0;
  int wait_ms = timeout_ms, rc;
  while ((rc = zmq_poll(items, n, wait_ms)) < 0 && errno == EINTR) {
    if (timeout_ms > 0 && (wait_ms = net_ms_left(deadline)) == 0)
      return 0;
  }
  if (rc < 0)
    log_error("net: poll failed: %s", zmq_strerror(errno));
  return rc < 0 ? DSANA_ENET : rc;
}

int net_poll(struct net_sock *const *socks, int n, int timeout_ms, bool *ready) {
  return net_poll_until(socks, n, timeout_ms, 0, ready);
}

int net_poll_until(struct net_sock *const *socks, int n, int timeout_ms, uint64_t until_ns, bool *ready) {
  if (n < 0)
    return DSANA_EINVAL;
  for (int i = 0; i < n; i++)
    net_drain_monitor(socks[i]);
  uint64_t now = until_ns ? clock_now_ns() : 0;
  if (until_ns && until_ns <= now)
    timeout_ms = 0;
  /* a timer only when the time comes before the timeout would */
  bool timed = until_ns && timeout_ms != 0 && (timeout_ms < 0 || until_ns - now < (uint64_t)timeout_ms * 1000000u);
  int tfd = timed ? net_timer_fd(until_ns) : -1;
  if (timed && tfd < 0)
    timeout_ms = (int)((until_ns - now + 999999u) / 1000000u);
  zmq_pollitem_t stack_items[NET_POLL_STACK + 1];
  zmq_pollitem_t *items = stack_items;
  if (n + 1 > NET_POLL_STACK + 1 && !(items = malloc((size_t)(n + 1) * sizeof *items))) {
    if (tfd >= 0)
      close(tfd);
    return DSANA_ENOMEM;
  }
  for (int i = 0; i < n; i++)
    items[i] = (zmq_pollitem_t){.socket = socks[i]->z, .events = ZMQ_POLLIN};
  items[n] = (zmq_pollitem_t){.fd = tfd, .events = ZMQ_POLLIN};
  int rc = net_zpoll(items, n + (tfd >= 0), timeout_ms);
  int got = 0;
  for (int i = 0; i < n; i++)
    got += ready[i] = rc > 0 && (items[i].revents & ZMQ_POLLIN);
  if (tfd >= 0)
    close(tfd);
  if (items != stack_items)
    free(items);
  return rc < 0 ? rc : got;
}
