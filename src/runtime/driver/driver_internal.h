/*
 * driver_internal.h - a role's driver: the thin shell around a role's
 * state machine that owns the transport, the emulated link (outbox), the
 * compute threads and the clock. Each role sits behind an ops table
 * (struct drv_role_ops, as the transports and the scheduling policies
 * do) and keeps its own state private, in a struct its file allocates
 * and only it reads (d->state). Files, calling downwards only:
 *   driver.c          the API (driver.h): create, step, run, destroy,
 *                     calling the role through its ops
 *   driver_sched.c, driver_server.c, driver_worker.c   one role each
 *   driver_faults.c   the worker's fault points around its pushes
 *   driver_io.c       transport, sending the state machine's messages, env
 *   driver_keepalive.c   heartbeats from a helper thread while a role joins
 */
#ifndef DSANA_RUNTIME_DRIVER_INTERNAL_H
#define DSANA_RUNTIME_DRIVER_INTERNAL_H

#include <stdbool.h>

#include "io/scenario/scenario.h"
#include "net/link/outbox.h"
#include "net/transport/transport.h"
#include "runtime/driver/driver.h"
#include "runtime/msg/event.h"

#define DRV_BATCH 4 /* messages per socket between two pumps */

struct drv;

/* What a role's driver implements (driver_sched.c, driver_server.c,
 * driver_worker.c define one each); driver.c calls through it. */
struct drv_role_ops {
  /* Allocate the role's state (d->state), open its sockets, create its
   * state machine. On failure close() still runs. */
  int (*open)(struct drv *d);
  /* One round (driver_step(); timeout_ms is 0 for a manual driver). */
  int (*step)(struct drv *d, int timeout_ms);
  /* optional (NULL: 0): the end of a run that went well. */
  int (*finish)(struct drv *d);
  /* Stop the role's threads, destroy its state machine and free
   * d->state, whatever open() got to; the shared I/O closes after. */
  void (*close)(struct drv *d);
  /* optional (NULL: none): the dialer to server `index`, for messages the
   * state machine queued for a server. */
  struct net_sock *(*server_sock)(struct drv *d, uint32_t index);
  /* optional: called by drv_flush() before and after it sends message i
   * of d->out (the worker's fault points). */
  void (*before_send)(struct drv *d, size_t i);
  void (*after_send)(struct drv *d, size_t i);
  /* optional: driver_pool(), driver_worker_index() (NULL: NULL, UINT32_MAX). */
  struct pool *(*pool)(struct drv *d);
  uint32_t (*worker_index)(const struct drv *d);
};

extern const struct drv_role_ops drv_sched_ops;
extern const struct drv_role_ops drv_server_ops;
extern const struct drv_role_ops drv_worker_ops;

/* What every role's driver has: its parameters and its I/O. Owned by the
 * role's thread. */
struct drv {
  enum rt_role role;
  const struct drv_role_ops *ops;
  void *state; /* the role's own (one struct per driver_<role>.c) */
  struct role_params params;
  struct run_config cfg;
  struct net_ctx *ctx;
  struct net_outbox *outbox; /* this process's emulated outgoing link */
  bool emulating;            /* the outbox paces sends */
  struct rt_env env;
  struct rt_outq out;
  struct net_sock *listen;  /* scheduler, server */
  struct net_sock *sched;   /* server, worker: the dialer to the scheduler */
  struct drv_keepalive *ka; /* server, worker: heartbeats while joining (driver_keepalive.c), or NULL */
  bool done;                /* the role finished (or failed: err) */
  int err;
  bool manual; /* tests: a manual pool, no blocking */
};

/* driver_keepalive.c: from the cluster map until the role has joined (the
 * app's setup, loading its data however long, and the server's initial
 * values), a helper thread sends the scheduler a heartbeat every
 * heartbeat_s on the role's dialer, so that loading never counts as
 * silence. Meanwhile this thread sends on that dialer only through
 * drv_keepalive_send(). Start once the map is read, stop (joins the
 * helper) before the role's own messages go out again; both from the
 * role's thread, and stop again on any path out (nothing if not started). */
int drv_keepalive_start(struct drv *d, uint32_t index, double heartbeat_s);
void drv_keepalive_stop(struct drv *d);
/* Send h to the scheduler now, past the outbox (under the helper's lock
 * while it runs). */
int drv_keepalive_send(struct drv *d, const struct wire_hdr *h);

/* driver_io.c */
int drv_open_ctx(struct drv *d);
/* Send (or queue on the emulated link) what the state machine wants
 * sent. direct: bypass the link emulation (shutdown). */
int drv_flush(struct drv *d, bool direct);
/* The outbox for this role's link (a scenario's; a zeroed link: unlimited). */
int drv_open_outbox(struct drv *d, const struct scenario_link *link);
/* Shared buffers with the roles of this machine, when the transport has
 * them and this role's link is not emulated. */
void drv_share(struct drv *d);
/* The role learned its index from the cluster map: its log lines say
 * "worker 2" from here on, and a role started on its own gets the index
 * in its process title. */
void drv_name_role(struct drv *d, uint32_t index);
/* The dialer to the scheduler, with an identity unique among its peers. */
int drv_dial_scheduler(struct drv *d);
void drv_close_io(struct drv *d);
/* A server or worker that fails tells the scheduler why (an ABORT with
 * the last error it logged), so that the scheduler names the cause at
 * once instead of waiting out the peer timeout. */
void drv_report_failure(struct drv *d, int rc);

#endif
