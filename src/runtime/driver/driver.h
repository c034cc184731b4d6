/*
 * driver.h - running a role: its state machine (scheduler.h, server.h,
 * worker.h) inside a driver that owns the transport (transport.h), the
 * emulated link and the compute threads.
 *
 * driver_run() runs a role to its end, as one process (or thread) of a
 * job. The stepping API lets a test run every role of a cluster in one
 * thread over the inproc:// transport, choosing which message is delivered
 * (net_inproc.h) and which work item completes (a manual pool) next.
 *
 * Every function returns 0 or a negative DSANA_E* code after logging one
 * line that says what went wrong (which peer, which file).
 */
#ifndef DSANA_RUNTIME_DRIVER_H
#define DSANA_RUNTIME_DRIVER_H

#include <stdbool.h>

#include "runtime/msg/event.h"
#include "runtime/role/role_params.h"

struct drv;
struct pool;

/* Run role `role` until it is done. */
int driver_run(enum rt_role role, const struct role_params *p);

/* Create a role's driver (it registers on its first step). manual: a
 * manual pool and no blocking waits (tests). */
int driver_create(enum rt_role role, const struct role_params *p, bool manual, struct drv **out);
/* One round: wait up to timeout_ms for input, handle it, run timers, send. */
int driver_step(struct drv *d, int timeout_ms);
/* The role is done (its error, if any, in driver_error()). */
bool driver_done(const struct drv *d);
int driver_error(const struct drv *d);
/* The worker's pool (NULL for other roles). */
struct pool *driver_pool(struct drv *d);
/* A worker's index once it joined (UINT32_MAX before, and for other roles). */
uint32_t driver_worker_index(const struct drv *d);
/* The end of a run: the scheduler's summary and output; 0 for others. */
int driver_finish(struct drv *d);
void driver_destroy(struct drv *d);

#endif
