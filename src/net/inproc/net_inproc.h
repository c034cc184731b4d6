/*
 * net_inproc.h - test control of the inproc:// transport (net_inproc.c).
 *
 * Normally a message sent on an inproc socket is in its receiver's queue at
 * once. With manual delivery on, it waits in the queue of its link (sender
 * socket -> receiving queue, FIFO as ZeroMQ and MPI keep a link) until the
 * test delivers it: a test can run every role of a cluster in one thread
 * and deliver messages in any interleaving it likes (seeded random orders),
 * which is how the in-process cluster tests check that results do not
 * depend on timing. Process-wide; not for concurrent tests.
 */
#ifndef DSANA_NET_INPROC_H
#define DSANA_NET_INPROC_H

#include <stdbool.h>
#include <stddef.h>

#include "net/wire/wire.h"

/* Switching manual delivery off delivers every waiting message at once,
 * in order, before anything sent later. */
void net_inproc_set_manual(bool on);
/* Links with messages waiting to be delivered. */
size_t net_inproc_links_pending(void);
/* Deliver the oldest waiting message of link `k` (0 <= k < pending, links
 * numbered in the order of their oldest waiting message). */
void net_inproc_deliver(size_t k);

/* Faults a transport may commit, for tests of what the roles do with
 * them (the link numbers as above): */
/* The header of link k's oldest waiting message: false when there is none. */
bool net_inproc_peek(size_t k, struct wire_hdr *h);
/* Deliver link k's oldest waiting message and a copy of it right behind
 * (a duplicate, as a resend would make one). */
void net_inproc_deliver_twice(size_t k);
/* Keep a copy of link k's oldest waiting message aside (the message itself
 * stays where it is). */
void net_inproc_keep_copy(size_t k);
/* Deliver every copy kept aside now, in the order they were kept (late
 * messages); returns how many. */
size_t net_inproc_deliver_kept(void);

#endif
