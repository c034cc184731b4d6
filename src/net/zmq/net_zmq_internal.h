/*
 * net_zmq_internal.h - between the two files of the tcp:// and ipc://
 * transport: the ipc:// shared buffers net_zmq_buffers.c implements and
 * net_zmq.c puts in its ops table. Private to src/net/zmq.
 */
#ifndef DSANA_NET_ZMQ_INTERNAL_H
#define DSANA_NET_ZMQ_INTERNAL_H

#include <stddef.h>

#include "net/transport/transport_impl.h"

/* The ipc:// transport's shared buffers (net_zmq_buffers.c). */
int zn_buffer_create(struct net_ctx *ctx, const char *name, size_t bytes, double **out);
int zn_buffer_map(struct net_ctx *ctx, const char *name, size_t bytes, const double **out);
void zn_buffer_release(struct net_ctx *ctx, const void *p, size_t bytes);
int zn_buffer_join(struct net_ctx *ctx, const char *name, size_t region_bytes, size_t offset, size_t bytes,
                   double **out);

#endif
