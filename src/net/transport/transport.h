/*
 * transport.h - the transport seam: one message API over several
 * transports, chosen once per process by the address scheme, the way nng
 * picks a transport or ps-lite's Van::Create does.
 *
 *   tcp://HOST:PORT, ipc://PATH   ZeroMQ ROUTER/DEALER (net_zmq.c), CURVE
 *                                 when the context has a job secret
 *   inproc://NAME                 queues inside one process (net_inproc.c):
 *                                 roles as threads, or tests driving
 *                                 delivery themselves
 *   mpi://RANK                    MPI point-to-point (net_mpi.c), when built
 *                                 with MPI
 *
 * Two kinds of socket: a listener (accepts any number of dialers; replies
 * go to the peer a message came from) and a dialer (connects to one
 * listener, under an identity of its choosing). A message is a validated
 * wire header plus an optional payload; net_recv() validates everything
 * (wire.h) and drops, logs (peer and type) and counts a bad message
 * instead of returning it. Addresses are the transport's business: a
 * listener opened on NULL picks a fresh local address (net_bound_addr()
 * tells it), so the runtime never builds one.
 *
 * Shared buffers: a transport whose peers share this machine (ipc, inproc)
 * can create named buffers that peers of the same context's job map
 * read-only (net_buffer_*); others return DSANA_ENOTSUP and the runtime
 * sends values in messages instead.
 *
 * Threads: a net_sock is used only by the thread that created it (ZeroMQ's
 * rule, kept for every transport); the context may be shared.
 */
#ifndef DSANA_NET_TRANSPORT_H
#define DSANA_NET_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "net/wire/wire.h"

struct net_ctx;
struct net_sock;

/* Who a listener's message came from (opaque bytes, transport-defined). */
struct net_peer {
  uint8_t len;
  uint8_t id[31];
};

static inline bool net_peer_eq(const struct net_peer *a, const struct net_peer *b) {
  return a->len == b->len && memcmp(a->id, b->id, a->len) == 0;
}

/* A received message. payload is 8-byte aligned (may be read as doubles)
 * and owned by the message until net_msg_fini(). */
struct net_msg {
  struct wire_hdr hdr;
  struct net_peer from; /* listener only */
  const void *payload;  /* NULL when hdr.payload_bytes == 0 */
  _Alignas(8) unsigned char impl[64];
  int store;                 /* private: how payload is held */
  const struct net_ops *ops; /* private: who frees it */
};

struct net_stats {
  uint64_t msgs_in, msgs_out, bytes_in, bytes_out; /* bytes: header + payload */
  uint64_t dropped;                                /* invalid messages discarded */
  uint64_t refused;                                /* peers failing authentication */
};

struct net_opts {
  uint64_t max_payload;     /* largest payload accepted (0 = WIRE_DEFAULT_MAX_PAYLOAD) */
  const char *curve_secret; /* ZeroMQ: CURVE with this job key (Z85), NULL/"" = clear */
  const char *local_dir;    /* ipc: folder for fresh endpoints and shared buffers */
  const char *bind_host;    /* tcp: interface of fresh listeners (default 127.0.0.1) */
};

/* The context for addresses of addr's scheme ("tcp://...", "mpi://0" ...).
 * DSANA_EINVAL for an unknown scheme (one line logged), DSANA_ENOTSUP for a
 * transport this build lacks. */
int net_ctx_create(const char *addr, const struct net_opts *opts, struct net_ctx **out);
void net_ctx_destroy(struct net_ctx *ctx);
/* The scheme of the context ("tcp", "ipc", "inproc", "mpi"). */
const char *net_ctx_scheme(const struct net_ctx *ctx);
/* true when addr has a scheme some transport of this build serves. */
bool net_addr_valid(const char *addr);

/* A fresh local address for a role called `name` of a job whose roles
 * all run here: "ipc://DIR/NAME" or "inproc://NAME" (the launcher's; the
 * runtime never builds addresses itself). */
int net_local_addr(const char *scheme, const char *dir, const char *name, char *buf, size_t len);

/* Bind a listener at addr, or at a fresh local address when addr is NULL.
 * net_listen and net_dial refuse (DSANA_EINVAL) an address of another
 * scheme than the context's. */
int net_listen(struct net_ctx *ctx, const char *addr, struct net_sock **out);
/* The address a listener is reachable at (resolves "*" ports). */
int net_bound_addr(struct net_sock *s, char *buf, size_t len);
/* Connect a dialer; `self_id` identifies it at the listener (the listener
 * sees it in net_msg.from, see net_peer_id()). */
int net_dial(struct net_ctx *ctx, const char *addr, uint32_t self_id, struct net_sock **out);
void net_close(struct net_sock *s);
/* The self_id a dialer connected with, from its listener-side identity;
 * DSANA_EINVAL if p is not a dialer identity. */
int net_peer_id(const struct net_peer *p, uint32_t *self_id);

/* Send h (payload_bytes must equal len) and payload. `to` is required on a
 * listener and ignored on a dialer. Copies the payload. DSANA_ENET when the
 * peer cannot be reached. */
int net_send(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, const void *payload, size_t len);
/* The same, taking over a malloc()ed payload (freed once sent, or at once
 * on failure). */
int net_send_owned(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, void *payload, size_t len);
/* The same, with a payload lent by its owner: rel.fn(rel.arg) once the
 * transport and the receiver are done with it (from any thread; at once
 * when the transport copies it, or on failure). The in-process transport
 * hands the payload itself to the receiver: no copy. */
struct net_release {
  void (*fn)(void *arg);
  void *arg;
};
int net_send_lent(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, const void *payload,
                  size_t len, struct net_release rel);

/* Receive one valid message, waiting up to timeout_ms (-1 = forever, 0 =
 * poll). Returns 0, DSANA_EAGAIN when nothing valid arrived in time, or
 * DSANA_ENET. Invalid messages are dropped and counted, never returned. */
int net_recv(struct net_sock *s, struct net_msg *m, int timeout_ms);
void net_msg_fini(struct net_msg *m);
/* Whether m holds its payload (received: it is freed with the message),
 * rather than pointing at memory of the caller's (a message made by hand). */
bool net_msg_owns_payload(const struct net_msg *m);
/* Move what src holds into dst (payload included, never copied): dst is
 * then finished with net_msg_fini(), src holds nothing (its header stays).
 * For a receiver that keeps a message's payload past the call that got it. */
void net_msg_move(struct net_msg *dst, struct net_msg *src);

/* Wait until one of socks[0..n) has input or one of fds[0..nfds) is
 * readable, timeout_ms passed (-1 = no limit) or the absolute time
 * until_ns of clock_now_ns() came (0 = none; microsecond precision). Sets
 * ready[i] and fd_ready[i] (either may be NULL when its count is 0);
 * returns how many are ready (0 on timeout) or DSANA_ENET. */
int net_poll(struct net_sock *const *socks, int n, const int *fds, int nfds, int timeout_ms, uint64_t until_ns,
             bool *ready, bool *fd_ready);

/* Counters since the socket opened; invalid messages count in dropped. */
void net_get_stats(const struct net_sock *s, struct net_stats *st);

/* Shared buffers (see the file comment): create a zeroed buffer of `bytes`
 * named `name` (a short [a-z0-9-] word) writable by its creator, or map
 * one a peer created, read-only. DSANA_ENOTSUP when the transport cannot. */
int net_buffer_create(struct net_ctx *ctx, const char *name, size_t bytes, double **out);
int net_buffer_map(struct net_ctx *ctx, const char *name, size_t bytes, const double **out);
void net_buffer_release(struct net_ctx *ctx, const void *p, size_t bytes);
/* A slice of a shared region: the bytes at `offset` of the zeroed region
 * `name` of region_bytes, created by the first caller and joined by the
 * others (every one the same size), so that roles writing disjoint parts
 * of one table give their readers one contiguous buffer (net_buffer_map
 * of `name`, whole). Released with net_buffer_release(its pointer): the
 * region goes when its last slice and mapping do (ipc: the file stays in
 * the local folder, as every shared buffer's). DSANA_ENOTSUP when the
 * transport cannot (tcp, MPI). */
int net_buffer_join(struct net_ctx *ctx, const char *name, size_t region_bytes, size_t offset, size_t bytes,
                    double **out);
/* true when this transport's peers share buffers with net_buffer_*. */
bool net_can_share(const struct net_ctx *ctx);

#endif
