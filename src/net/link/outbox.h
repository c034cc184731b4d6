/*
 * outbox.h - link emulation in the send path: a per-process queue that
 * releases messages at the emulated link's bandwidth and latency, highest
 * priority first (in the spirit of P3 and ByteScheduler: the chunks that
 * unblock the most waiting work leave first).
 *
 * Model: the process has one outgoing link of bandwidth B and latency L.
 * A message queued at time t may leave at t + L (latency, pipelined: many
 * messages can be "in flight"), and departures are serialized at B by a
 * token bucket without burst (token_bucket.h: a message of s bytes occupies
 * the link for s / B). Whenever the link is free it carries the
 * highest-priority message ready by then: one still in its latency holds
 * up none that is ready. Pending messages are copied, so callers may reuse
 * their buffers at once. The owner pumps the outbox from its loop and
 * polls with net_poll_until(..., net_outbox_due_ns()) to wake on time.
 *
 * With no emulation (B = 0 and L = 0) net_outbox_send() sends at once and
 * copies nothing. Not thread-safe: one outbox per role thread.
 */
#ifndef DSANA_NET_OUTBOX_H
#define DSANA_NET_OUTBOX_H

#include <stddef.h>
#include <stdint.h>

#include "net/transport/transport.h"

struct net_outbox;

int net_outbox_create(double bandwidth_bytes_per_s, double latency_s, struct net_outbox **out);
void net_outbox_destroy(struct net_outbox *o);

/* Queue (or, without emulation, send) a message. Lower `priority` leaves
 * first; equal priorities leave in order. `to` as for net_send(). */
int net_outbox_send(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                    const void *payload, size_t len, uint64_t priority);
/* The same, taking ownership of a malloc()ed payload instead of copying it
 * (freed once sent or dropped, at once on failure). */
int net_outbox_send_owned(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                          void *payload, size_t len, uint64_t priority);
/* A lent payload (net_send_lent): sent as it is without an emulated link;
 * a link's queue keeps a copy and releases it at once. */
int net_outbox_send_lent(struct net_outbox *o, struct net_sock *s, const struct net_peer *to, const struct wire_hdr *h,
                         const void *payload, size_t len, uint64_t priority, struct net_release rel);
/* Send everything whose time has come. *next_ns (if not NULL) gets the
 * time the next pending message may leave, or 0 when none is pending. A
 * message that cannot be sent (peer gone) is dropped and the rest still
 * leave; the first such error is returned. */
int net_outbox_pump(struct net_outbox *o, uint64_t now_ns, uint64_t *next_ns);
/* When the next pending message is delivered (clock_now_ns() time), the
 * time a pump is due; 0 when nothing is pending. */
uint64_t net_outbox_due_ns(const struct net_outbox *o);
/* Messages waiting. */
size_t net_outbox_pending(const struct net_outbox *o);
/* Send everything now, ignoring the emulated link (shutdown). */
int net_outbox_flush(struct net_outbox *o);
/* Drop everything pending, unsent; returns how many were dropped. */
size_t net_outbox_discard(struct net_outbox *o);
/* 1 when the outbox emulates a link. */
int net_outbox_emulating(const struct net_outbox *o);

#endif
