/*
 * transport.h - message transport over ZeroMQ, behind dsana's own API.
 *
 * Two kinds of socket: a listener (ZeroMQ ROUTER, binds; replies go to the
 * peer a message came from) and a dialer (ZeroMQ DEALER, connects to one
 * listener). Addresses are ZeroMQ endpoints: "tcp://127.0.0.1:5555",
 * "tcp://127.0.0.1:*" (ephemeral port), "ipc:///tmp/x.sock".
 *
 * A message is a validated wire header plus an optional payload. net_recv()
 * validates everything (wire.h) and drops, logs (peer and type) and counts
 * a bad message instead of returning it.
 *
 * Threads: a net_sock is used only by the thread that created it. The
 * context may be shared. High-water marks are unlimited (no silent drops);
 * a ROUTER send to an unknown peer fails with DSANA_ENET.
 *
 * Link emulation (bandwidth and latency of a process's sends) lives one
 * level up, in outbox.h, which queues messages and hands them to
 * net_send() when the emulated link delivers them.
 */
#ifndef DSANA_NET_TRANSPORT_H
#define DSANA_NET_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/wire.h"

struct net_ctx;
struct net_sock;

/* A ROUTER peer identity (opaque bytes). */
struct net_peer {
  uint8_t len;
  uint8_t id[31];
};

/* A received message. payload points into storage owned by the message
 * until net_msg_fini(); it is 8-byte aligned (may be read as doubles).
 * has_payload is nonzero iff payload != NULL (its value is private). */
struct net_msg {
  struct wire_hdr hdr;
  struct net_peer from; /* listener only */
  const void *payload;  /* NULL when hdr.payload_bytes == 0 */
  _Alignas(8) unsigned char impl[64];
  int has_payload;
};

struct net_stats {
  uint64_t msgs_in, msgs_out, bytes_in, bytes_out; /* bytes: header+payload */
  uint64_t dropped;                                /* invalid messages discarded */
  uint64_t refused;                                /* peers failing authentication */
};

int net_ctx_create(struct net_ctx **out);
void net_ctx_destroy(struct net_ctx *ctx);

/* Largest payload for sockets opened on ctx from now on (default
 * WIRE_DEFAULT_MAX_PAYLOAD). ZeroMQ fixes its own frame-size limit
 * (ZMQ_MAXMSGSIZE, this plus 4 KiB) when a socket binds or connects, so a
 * run that needs payloads above the default must raise it here, before
 * net_listen()/net_dial(). */
void net_ctx_set_max_payload(struct net_ctx *ctx, uint64_t bytes);

/* Authenticate and encrypt every socket opened on ctx from now on with
 * CURVE keys derived from the job token (see secure.h). DSANA_EINVAL for a
 * malformed key. */
int net_ctx_set_curve(struct net_ctx *ctx, const char *secret_z85);

/* Bind a listener. */
int net_listen(struct net_ctx *ctx, const char *addr, struct net_sock **out);
/* The endpoint actually bound (resolves "*" ports). */
int net_bound_addr(struct net_sock *s, char *buf, size_t len);
/* Connect a dialer; `self_id` becomes its identity at the listener. */
int net_dial(struct net_ctx *ctx, const char *addr, uint32_t self_id, struct net_sock **out);
void net_close(struct net_sock *s);

/* Largest payload accepted on receive (default: the context's). Takes
 * effect at once for the protocol check; it cannot raise ZeroMQ's frame
 * limit fixed at listen/dial time (see net_ctx_set_max_payload), and logs a
 * warning if asked to. */
void net_set_max_payload(struct net_sock *s, uint64_t bytes);

/* Send h (payload_bytes must equal len) and payload. `to` is required on a
 * listener and ignored on a dialer. Copies the payload. */
int net_send(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
             const void *payload, size_t len);
/* The same, taking ownership of a malloc()ed payload instead of copying it:
 * it is freed once sent, or at once on failure. */
int net_send_owned(struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h, void *payload,
                   size_t len);

/* Receive one valid message, waiting up to timeout_ms (-1 = forever,
 * 0 = poll). Returns 0, DSANA_EAGAIN when nothing valid arrived in time, or
 * DSANA_ENET. Invalid messages are dropped and counted, never returned. */
int net_recv(struct net_sock *s, struct net_msg *m, int timeout_ms);
void net_msg_fini(struct net_msg *m);

/* Wait until one of socks[0..n) has input: sets ready[i]; returns the
 * number ready (0 on timeout) or DSANA_ENET. */
int net_poll(struct net_sock *const *socks, int n, int timeout_ms, bool *ready);
/* The same, also returning (0 ready) at the absolute time until_ns of
 * clock_now_ns() when that comes first, to the microsecond rather than the
 * millisecond (a timer fd polled beside the sockets). until_ns 0: no such
 * time. For sends that an emulated link releases at a set time. */
int net_poll_until(struct net_sock *const *socks, int n, int timeout_ms, uint64_t until_ns, bool *ready);

/* Counters since the socket opened. msgs_in/bytes_in count only messages
 * returned by net_recv(); invalid ones count in dropped. */
void net_get_stats(const struct net_sock *s, struct net_stats *st);


#endif
