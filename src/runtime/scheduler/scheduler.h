/*
 * scheduler.h - the scheduler role as a state machine (see event.h):
 * membership (registration, the cluster map, liveness, lost and joining
 * workers), the iteration clock (task hand-out through the scheduling
 * policy, the servers' shard reports, the app's reduce(), commits,
 * convergence, checkpoints) and, at the end, the result and the summary.
 * Internals: scheduler_internal.h.
 */
#ifndef DSANA_RUNTIME_SCHEDULER_H
#define DSANA_RUNTIME_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/msg/event.h"
#include "runtime/role/role_params.h"

struct scheduler;

/* The app (p->app, configured) is set up here: tables, tasks, policy. */
int scheduler_create(const struct role_params *p, const struct rt_env *env, struct scheduler **out);
void scheduler_destroy(struct scheduler *s);
/* A message from a peer of the scheduler's listener. */
int scheduler_on_msg(struct scheduler *s, const struct rt_from *from, const struct net_msg *m, struct rt_outq *out);
/* Timers: registration deadline, heartbeats, silent peers. */
int scheduler_on_tick(struct scheduler *s, uint64_t now_ns, struct rt_outq *out);
/* The launcher saw worker w's process die: it is lost now, not after
 * --peer-timeout of silence. Before it registered, the job stops, unless
 * `restarted` (a new process is on its way to register). */
int scheduler_on_worker_death(struct scheduler *s, uint32_t w, bool restarted, struct rt_outq *out);
/* Every role left and the result is complete. */
bool scheduler_finished(const struct scheduler *s);
/* End the job on purpose (the scheduler was interrupted): every role is
 * told (ABORT with WIRE_F_ENDED: they end with success) and this run
 * fails with DSANA_EINTR. */
int scheduler_end(struct scheduler *s, const char *why, struct rt_outq *out);
/* After finishing: the summary (to the observer) and the app's output(). */
int scheduler_finish(struct scheduler *s);
/* What its listener turned away (net_stats), for the summary: peers that
 * failed authentication, invalid messages dropped. */
void scheduler_note_listener(struct scheduler *s, uint64_t refused, uint64_t dropped);
/* The driver's measure: cpu_ns of this thread's time went into n messages
 * (receiving them, handling them, sending what they caused, the wake-up
 * that brought them). */
void scheduler_note_msg_cost(struct scheduler *s, uint64_t cpu_ns, uint64_t n);

#endif
