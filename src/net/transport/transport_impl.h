/*
 * transport_impl.h - what a transport implements behind the seam of
 * transport.h (an ops table, as nng's transports), and the helpers the
 * implementations share (header validation, drop accounting). Private to
 * src/net: the transports' rooms and the seam's dispatch include it.
 */
#ifndef DSANA_NET_TRANSPORT_IMPL_H
#define DSANA_NET_TRANSPORT_IMPL_H

#include "net/transport/transport.h"

struct net_ops {
  const char *scheme;                     /* "tcp", "ipc", ... (several schemes may share ops) */
  int (*ctx_create)(struct net_ctx *ctx); /* fill ctx->impl */
  void (*ctx_destroy)(struct net_ctx *ctx);
  int (*listen)(struct net_sock *s, const char *addr); /* s->ctx set, fill s->impl */
  int (*bound_addr)(struct net_sock *s, char *buf, size_t len);
  int (*dial)(struct net_sock *s, const char *addr, uint32_t self_id);
  void (*close)(struct net_sock *s);
  /* hdr is the encoded, checked header; `owned` payloads are the
   * transport's from now on (freed once sent or on failure). */
  int (*send)(struct net_sock *s, const struct net_peer *to, const uint8_t *hdr, void *payload, size_t len, bool owned);
  /* optional (NULL: send a copy, then release): a payload lent until the
   * receiver is done with it, then rel.fn(rel.arg), from any thread (or at
   * once on failure) */
  int (*send_lent)(struct net_sock *s, const struct net_peer *to, const uint8_t *hdr, const void *payload, size_t len,
                   struct net_release rel);
  /* One queued message without waiting: 0 (valid, in *m), DSANA_EAGAIN,
   * DSANA_EPROTO (one invalid message dropped, counted), DSANA_ENET. */
  int (*recv)(struct net_sock *s, struct net_msg *m);
  void (*msg_fini)(struct net_msg *m);
  /* optional (NULL: the message's bytes are its state, a copy of the
   * struct moves it): src's payload into dst (net_msg_move) */
  void (*msg_move)(struct net_msg *dst, struct net_msg *src);
  int (*poll)(struct net_sock *const *socks, int n, const int *fds, int nfds, int timeout_ms, uint64_t until_ns,
              bool *ready, bool *fd_ready);
  /* optional (NULL: DSANA_ENOTSUP) */
  int (*buffer_create)(struct net_ctx *ctx, const char *name, size_t bytes, double **out);
  int (*buffer_map)(struct net_ctx *ctx, const char *name, size_t bytes, const double **out);
  void (*buffer_release)(struct net_ctx *ctx, const void *p, size_t bytes);
  /* a slice of a region (net_buffer_join; offset + bytes checked against it) */
  int (*buffer_join)(struct net_ctx *ctx, const char *name, size_t region_bytes, size_t offset, size_t bytes,
                     double **out);
};

struct net_ctx {
  const struct net_ops *ops;
  char scheme[16];
  uint64_t max_payload;
  char curve_secret[48]; /* "" = clear */
  char local_dir[1024];
  char bind_host[256];
  void *impl;
};

/* Owned by the thread that created it. */
struct net_sock {
  const struct net_ops *ops;
  struct net_ctx *ctx;
  bool listener;
  uint64_t max_payload;
  struct net_stats stats;
  void *impl;
};

/* The transports' ops tables, each defined in its own room (src/net/zmq,
 * inproc, mpi) and read by the seam's dispatch (src/net/dispatch) only. */
extern const struct net_ops net_zmq_ops;
extern const struct net_ops net_inproc_ops;
#ifdef DSANA_HAVE_MPI
extern const struct net_ops net_mpi_ops;
#endif

/* Validate a received header of hdr_len bytes whose payload has
 * payload_len bytes (has_payload: a payload part exists at all). 0 with
 * *h filled, or DSANA_EPROTO after logging and counting the drop. */
int net_accept(struct net_sock *s, const struct net_peer *from, const uint8_t *hdr, size_t hdr_len, bool has_payload,
               size_t payload_len, struct wire_hdr *h);
/* Log and count one dropped message (from: may be NULL). */
void net_log_drop(struct net_sock *s, const struct net_peer *from, const char *tname, const char *why);
/* The type name of an encoded header, if it is a dsana header at all. */
const char *net_hdr_type_name(const uint8_t *hdr, size_t len);
/* "peer 44..." for messages; "server" for a dialer's only peer. */
void net_peer_format(const struct net_sock *s, const struct net_peer *p, char *buf, size_t len);
/* Store a received payload in m: in place when 8-aligned and `keep` says
 * the transport keeps it alive until msg_fini (store = kept), else copied
 * into m->impl or the heap. Returns DSANA_ENOMEM or 0. */
int net_msg_copy_payload(struct net_msg *m, const void *data, size_t len);
void net_msg_free_copy(struct net_msg *m);

/* net_msg.store values shared by the implementations. */
enum { NET_STORE_NONE = 0, NET_STORE_INLINE = 1, NET_STORE_HEAP = 2, NET_STORE_IMPL = 3 };

/* Milliseconds left until deadline_ns (rounded up), 0 when passed. */
int net_ms_left(uint64_t deadline_ns);

#endif
