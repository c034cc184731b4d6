/*
 * driver_internal.h - a role's driver: the thin shell around a role's
 * state machine that owns the transport, the emulated link (outbox), the
 * compute threads and the clock. Files, calling downwards only:
 *   driver.c          the API (driver.h): create, step, run, destroy
 *   driver_sched.c, driver_server.c, driver_worker.c   one role each
 *   driver_io.c       transport, sending the state machine's messages, env
 *   driver_keepalive.c   heartbeats from a helper thread while a role joins
 */
#ifndef DSANA_RUNTIME_DRIVER_INTERNAL_H
#define DSANA_RUNTIME_DRIVER_INTERNAL_H

#include <stdbool.h>

#include "io/scenario.h"
#include "net/outbox.h"
#include "net/transport.h"
#include "runtime/driver/driver.h"
#include "runtime/driver/emulate.h"
#include "runtime/msg/event.h"
#include "runtime/worker/pool.h"
#include "runtime/scheduler/scheduler.h"
#include "runtime/server/server.h"
#include "runtime/worker/worker.h"

#define DRV_BATCH 4 /* messages per socket between two pumps */

struct drv {
  enum rt_role role;
  struct role_params params;
  struct run_config cfg;
  struct net_ctx *ctx;
  struct net_outbox *outbox; /* this process's emulated outgoing link */
  bool emulating;            /* the outbox paces sends */
  struct rt_env env;
  struct rt_outq out;
  struct net_sock *listen;   /* scheduler, server */
  struct net_sock *sched;    /* server, worker: the dialer to the scheduler */
  struct net_sock **servers; /* worker: dialers to every server */
  uint32_t n_servers;
  struct scheduler *s;
  struct server *sv;
  struct worker *w;
  bool done; /* the role finished (or failed: err) */
  int err;
  bool manual;    /* tests: a manual pool, no blocking */
  bool observing; /* scheduler: the observer is open */
  /* worker */
  struct pool *pool;
  struct scenario sc;
  bool have_sc;
  struct emulate *emu; /* worker: per compute thread (one when manual) */
  uint32_t n_emu;
  size_t serving;           /* server: pulls with more to send now */
  bool ran_inline;          /* worker: ran an item on this thread in this step */
  uint64_t last_push;       /* worker: 1 + (iter << 32 | task) of the last push, 0: none (fault points) */
  struct fault_plan fault;  /* worker: the part of cfg.fault that names it */
  double ns_per_cost;       /* worker: measured compute per unit of a task's cost hint (0: none yet) */
  double item_ns[4];        /* worker: recent time of an item, per witem_kind (0: none yet) */
  struct drv_keepalive *ka; /* server, worker: heartbeats while joining (driver_keepalive.c), or NULL */
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
/* The outbox for this role's link in the scenario (none: unlimited). */
int drv_open_outbox(struct drv *d, const struct scenario *sc, uint32_t worker);
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

/* driver_sched.c, driver_server.c, driver_worker.c */
int drv_sched_open(struct drv *d);
int drv_sched_step(struct drv *d, int timeout_ms);
/* The observer's files closed: DSANA_EIO when a report could not be written. */
int drv_sched_close(struct drv *d);
int drv_server_open(struct drv *d);
int drv_server_step(struct drv *d, int timeout_ms);
int drv_worker_open(struct drv *d);
int drv_worker_step(struct drv *d, int timeout_ms);
void drv_worker_close(struct drv *d);

#endif
