/*
 * worker.h - the worker role as a state machine (see event.h).
 *
 * The worker registers with the scheduler, takes the cluster map (the app
 * and its options when it was started alone), runs the app's setup, and
 * then holds the tasks the scheduler hands it. It never computes inside a
 * handler: it offers work items (a task's hook call that can run now, its
 * input being in) through worker_next_work(); the driver runs them on its
 * compute threads (worker_exec.c) and hands them back with
 * worker_work_done(), which pushes a finished task's results and reports it
 * done. Items of different tasks may run at the same time; the items of
 * one task instance run one after the other. A compute thread that
 * finished an item of a block-wise instance runs the instance's next item
 * itself when the control thread said it may (worker_next_item: the blocks
 * whose chunks are in, then the end), and hands the items back together:
 * a task with k ready items costs one hand-off, not k.
 *
 * Files: worker.c (this API: registration, messages, ticks) calls
 * worker_tasks.c (held tasks: input, readiness, items, running ahead),
 * which calls worker_push.c (a finished task's pushes) and the mirror.
 * worker_exec.c runs items; it reads worker state set up beforehand and
 * never calls back. The work items and task instances are work_item.h's;
 * the state the files share, worker_state.h.
 */
#ifndef DSANA_RUNTIME_WORKER_H
#define DSANA_RUNTIME_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/msg/event.h"
#include "runtime/core/job.h"
#include "runtime/msg/msg.h"
#include "runtime/role/role_params.h"
#include "runtime/worker/work_item.h"

struct worker;

int worker_create(const struct role_params *p, const struct rt_env *env, struct worker **out);
void worker_destroy(struct worker *w);
/* Send the registration. */
int worker_start(struct worker *w, struct rt_outq *out);
/* A message from the scheduler or server `from.index`. 0; DSANA_EAGAIN:
 * keep it and offer it again later, nothing more from that server before
 * it; or an error (logged). */
int worker_on_msg(struct worker *w, const struct rt_from *from, const struct net_msg *m, struct rt_outq *out);
/* Timers: heartbeats, the scheduler's silence (DSANA_ETIMEDOUT, logged). */
int worker_on_tick(struct worker *w, uint64_t now_ns, struct rt_outq *out);
/* The next item that can run now, or DSANA_EAGAIN. */
int worker_next_work(struct worker *w, struct witem *it, struct rt_outq *out);
/* An item the driver ran. */
int worker_work_done(struct worker *w, struct witem *it, struct rt_outq *out);
/* Send what running tasks said is final (dsana_push_ready), in whole
 * chunks; the driver calls it when a compute thread wakes it. */
int worker_push_progress(struct worker *w, struct rt_outq *out);

/* For the driver. */
bool worker_stopped(const struct worker *w);                      /* STOP received: leave once sent */
const struct msg_cluster_map *worker_map(const struct worker *w); /* NULL before it */
uint32_t worker_index(const struct worker *w);
/* The slowdown-model slot count (emulation) and a scenario iteration. */
uint64_t worker_slots(const struct worker *w);
/* Its compute threads: --threads, or every core of this machine. */
uint32_t worker_threads(const struct worker *w);
/* Offer one block per item (emulation without a cost model times each
 * block on its own). */
void worker_set_one_block_items(struct worker *w, bool on);
/* Run an item's hook (worker_exec.c); any thread. */
void worker_exec(struct witem *it);
/* On the compute thread that ran *it: the same instance's next item, if
 * the control thread said it may run now without it (wtask.chain): true,
 * and *it is that item (its result fields cleared). False after a failed
 * item, a whole task or the end. */
bool worker_next_item(struct witem *it);

#endif
