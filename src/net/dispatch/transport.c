/*
 * transport.c - the seam of transport.h: picks a transport by address
 * scheme, checks every header on the way out and in, and dispatches to the
 * transport's ops (transport_impl.h).
 */
#include "net/transport/transport_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

static const struct net_ops *const net_all_ops[] = {&net_zmq_ops, &net_zmq_ops, &net_inproc_ops,
#ifdef DSANA_HAVE_MPI
                                                    &net_mpi_ops,
#endif
                                                    NULL};
static const char *const net_all_schemes[] = {"tcp", "ipc", "inproc",
#ifdef DSANA_HAVE_MPI
                                              "mpi",
#endif
                                              NULL};

/* The ops serving addr's scheme, and the scheme itself. */
static const struct net_ops *net_ops_for(const char *addr, char *scheme, size_t len) {
  const char *sep = addr ? strstr(addr, "://") : NULL;
  if (!sep || (size_t)(sep - addr) >= len)
    return NULL;
  memcpy(scheme, addr, (size_t)(sep - addr));
  scheme[sep - addr] = 0;
  for (size_t i = 0; net_all_schemes[i]; i++)
    if (strcmp(net_all_schemes[i], scheme) == 0)
      return net_all_ops[i];
  return NULL;
}

bool net_addr_valid(const char *addr) {
  char scheme[16];
  return net_ops_for(addr, scheme, sizeof scheme) != NULL && strstr(addr, "://")[3] != 0;
}

int net_ctx_create(const char *addr, const struct net_opts *opts, struct net_ctx **out) {
  char scheme[16];
  const struct net_ops *ops = net_ops_for(addr, scheme, sizeof scheme);
  if (!ops) {
    bool mpi = addr && strncmp(addr, "mpi://", 6) == 0;
    log_error("%s: %s", addr ? addr : "(no address)",
              mpi ? "this dsana was built without MPI (install libopenmpi-dev and rebuild)"
                  : "unknown transport (use tcp://HOST:PORT, ipc://PATH, inproc://NAME or mpi://RANK)");
    return mpi ? DSANA_ENOTSUP : DSANA_EINVAL;
  }
  struct net_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return DSANA_ENOMEM;
  ctx->ops = ops;
  snprintf(ctx->scheme, sizeof ctx->scheme, "%s", scheme);
  ctx->max_payload = opts && opts->max_payload ? opts->max_payload : WIRE_DEFAULT_MAX_PAYLOAD;
  snprintf(ctx->curve_secret, sizeof ctx->curve_secret, "%s", opts && opts->curve_secret ? opts->curve_secret : "");
  snprintf(ctx->local_dir, sizeof ctx->local_dir, "%s", opts && opts->local_dir ? opts->local_dir : "");
  snprintf(ctx->bind_host, sizeof ctx->bind_host, "%s",
           opts && opts->bind_host && opts->bind_host[0] ? opts->bind_host : "127.0.0.1");
  int rc = ops->ctx_create(ctx);
  if (rc) {
    free(ctx);
    return rc;
  }
  *out = ctx;
  return 0;
}

void net_ctx_destroy(struct net_ctx *ctx) {
  if (!ctx)
    return;
  ctx->ops->ctx_destroy(ctx);
  free(ctx);
}

const char *net_ctx_scheme(const struct net_ctx *ctx) { return ctx->scheme; }

int net_local_addr(const char *scheme, const char *dir, const char *name, char *buf, size_t len) {
  int n;
  if (strcmp(scheme, "ipc") == 0)
    n = snprintf(buf, len, "ipc://%s/%s", dir, name);
  else if (strcmp(scheme, "inproc") == 0)
    n = snprintf(buf, len, "inproc://%s", name);
  else
    return DSANA_EINVAL;
  return n < 0 || (size_t)n >= len ? DSANA_ERANGE : 0;
}

static int net_sock_new(struct net_ctx *ctx, bool listener, struct net_sock **out) {
  struct net_sock *s = calloc(1, sizeof *s);
  if (!s)
    return DSANA_ENOMEM;
  s->ops = ctx->ops;
  s->ctx = ctx;
  s->listener = listener;
  s->max_payload = ctx->max_payload;
  *out = s;
  return 0;
}

/* Is addr of ctx's scheme? Another scheme's address would otherwise reach
 * this transport as a name (inproc) or another of ZeroMQ's transports. */
static int net_check_scheme(const struct net_ctx *ctx, const char *addr) {
  size_t n = strlen(ctx->scheme);
  if (addr && strncmp(addr, ctx->scheme, n) == 0 && strncmp(addr + n, "://", 3) == 0)
    return 0;
  log_error("%s: this job's transport is %s://", addr ? addr : "(no address)", ctx->scheme);
  return DSANA_EINVAL;
}

int net_listen(struct net_ctx *ctx, const char *addr, struct net_sock **out) {
  if (addr && net_check_scheme(ctx, addr) != 0)
    return DSANA_EINVAL;
  struct net_sock *s;
  int rc = net_sock_new(ctx, true, &s);
  if (!rc && (rc = ctx->ops->listen(s, addr)) != 0)
    free(s);
  if (!rc)
    *out = s;
  return rc;
}

int net_bound_addr(struct net_sock *s, char *buf, size_t len) { return s->ops->bound_addr(s, buf, len); }

int net_dial(struct net_ctx *ctx, const char *addr, uint32_t self_id, struct net_sock **out) {
  if (net_check_scheme(ctx, addr) != 0)
    return DSANA_EINVAL;
  struct net_sock *s;
  int rc = net_sock_new(ctx, false, &s);
  if (!rc && (rc = ctx->ops->dial(s, addr, self_id)) != 0)
    free(s);
  if (!rc)
    *out = s;
  return rc;
}

void net_close(struct net_sock *s) {
  if (!s)
    return;
  s->ops->close(s);
  free(s);
}

/* Refuse here what the receiver would drop: the bug is on this side. The
 * payload is borrowed (copied by the transport), `owned` (the transport's
 * from now on) or `lent` (lent->fn(lent->arg) once no one needs it: by the
 * receiver where the transport passes it on, else here, after the copy or
 * the refusal). */
static int net_send_checked(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, void *payload,
                            size_t len, bool owned, const struct net_release *lent) {
  uint8_t hdr[WIRE_HDR_BYTES];
  struct wire_hdr check;
  const char *why = NULL;
  wire_encode(h, hdr);
  if (h->payload_bytes != len)
    why = "payload_bytes differs from the payload length";
  else if (len > 0 && !payload)
    why = "no payload buffer";
  else if (s->listener && (!to || to->len == 0 || to->len > sizeof to->id))
    why = "no peer to send to";
  else
    wire_decode(hdr, sizeof hdr, UINT64_MAX, &check, &why);
  if (why) {
    log_error("net: refusing to send %s: %s", wire_type_name(h->type), why);
    if (owned)
      free(payload);
    if (lent)
      lent->fn(lent->arg);
    return DSANA_EINVAL;
  }
  if (owned && len == 0) {
    free(payload);
    payload = NULL;
  }
  int rc;
  if (lent && s->ops->send_lent && len > 0) {
    rc = s->ops->send_lent(s, to, hdr, payload, len, *lent);
  } else {
    rc = s->ops->send(s, to, hdr, payload, len, owned);
    if (lent) /* copied (or not sent): the lender has it back */
      lent->fn(lent->arg);
  }
  if (rc == 0) {
    s->stats.msgs_out++;
    s->stats.bytes_out += WIRE_HDR_BYTES + (uint64_t)len;
  }
  return rc;
}

int net_send(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, const void *payload, size_t len) {
  return net_send_checked(s, to, h, (void *)payload, len, false, NULL);
}

int net_send_owned(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, void *payload, size_t len) {
  return net_send_checked(s, to, h, payload, len, true, NULL);
}

int net_send_lent(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, const void *payload,
                  size_t len, struct net_release rel) {
  return net_send_checked(s, to, h, (void *)payload, len, false, &rel);
}

int net_recv(struct net_sock *s, struct net_msg *m, int timeout_ms) {
  uint64_t deadline = timeout_ms > 0 ? clock_now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
  for (;;) {
    memset(m, 0, sizeof *m);
    int rc = s->ops->recv(s, m);
    if (rc == 0) {
      m->ops = s->ops;
      s->stats.msgs_in++;
      s->stats.bytes_in += WIRE_HDR_BYTES + m->hdr.payload_bytes;
      return 0;
    }
    if (rc == DSANA_EPROTO)
      continue; /* dropped one; look for the next */
    if (rc != DSANA_EAGAIN)
      return rc;
    int wait_ms = timeout_ms < 0 ? -1 : (timeout_ms == 0 ? 0 : net_ms_left(deadline));
    if (wait_ms == 0)
      return DSANA_EAGAIN;
    struct net_sock *one[1] = {s};
    bool ready;
    if ((rc = s->ops->poll(one, 1, NULL, 0, wait_ms, 0, &ready, NULL)) < 0)
      return rc;
  }
}

void net_msg_fini(struct net_msg *m) {
  if (m->ops && m->store == NET_STORE_IMPL)
    m->ops->msg_fini(m);
  else
    net_msg_free_copy(m);
  m->payload = NULL;
  m->store = NET_STORE_NONE;
}

bool net_msg_owns_payload(const struct net_msg *m) { return m->payload && m->store != NET_STORE_NONE; }

void net_msg_move(struct net_msg *dst, struct net_msg *src) {
  if (src->ops && src->store == NET_STORE_IMPL && src->ops->msg_move) {
    src->ops->msg_move(dst, src);
  } else {
    *dst = *src;
    if (src->store == NET_STORE_INLINE) /* the payload is in the struct itself */
      dst->payload = dst->impl;
  }
  src->payload = NULL;
  src->store = NET_STORE_NONE;
}

int net_poll(struct net_sock *const *socks, int n, const int *fds, int nfds, int timeout_ms, uint64_t until_ns,
             bool *ready, bool *fd_ready) {
  if (n < 0 || nfds < 0 || (n == 0 && nfds == 0 && timeout_ms < 0 && !until_ns))
    return DSANA_EINVAL;
  if (n == 0) {
    /* no socket: any transport's poll would do; fds and timers only */
    return net_inproc_ops.poll(socks, 0, fds, nfds, timeout_ms, until_ns, ready, fd_ready);
  }
  return socks[0]->ops->poll(socks, n, fds, nfds, timeout_ms, until_ns, ready, fd_ready);
}

void net_get_stats(const struct net_sock *s, struct net_stats *st) { *st = s->stats; }

int net_buffer_create(struct net_ctx *ctx, const char *name, size_t bytes, double **out) {
  return ctx->ops->buffer_create ? ctx->ops->buffer_create(ctx, name, bytes, out) : DSANA_ENOTSUP;
}

int net_buffer_map(struct net_ctx *ctx, const char *name, size_t bytes, const double **out) {
  return ctx->ops->buffer_map ? ctx->ops->buffer_map(ctx, name, bytes, out) : DSANA_ENOTSUP;
}

int net_buffer_join(struct net_ctx *ctx, const char *name, size_t region_bytes, size_t offset, size_t bytes,
                    double **out) {
  if (offset > region_bytes || bytes > region_bytes - offset)
    return DSANA_EINVAL;
  return ctx->ops->buffer_join ? ctx->ops->buffer_join(ctx, name, region_bytes, offset, bytes, out) : DSANA_ENOTSUP;
}

void net_buffer_release(struct net_ctx *ctx, const void *p, size_t bytes) {
  if (p && ctx->ops->buffer_release)
    ctx->ops->buffer_release(ctx, p, bytes);
}

bool net_can_share(const struct net_ctx *ctx) {
  /* ipc endpoints and inproc queues are on this machine by construction */
  return ctx->ops->buffer_create && (strcmp(ctx->scheme, "ipc") == 0 || strcmp(ctx->scheme, "inproc") == 0) &&
         (ctx->local_dir[0] || strcmp(ctx->scheme, "inproc") == 0);
}
