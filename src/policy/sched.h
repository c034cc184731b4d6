/*
 * sched.h - task scheduling policies: pure decisions, no I/O, no clocks.
 *
 * Inputs are task costs, observed task durations (seconds, passed in by the
 * caller) and queue state; outputs are which task a worker runs next and
 * whether it was stolen. The runtime's scheduler role drives it; a simulator
 * could drive the same code with synthetic durations.
 *
 * Protocol, per iteration:
 *   sched_begin_iter()  builds every live worker's queue for the iteration;
 *   sched_next(w)       pops w's next task; when w's queue is empty the
 *                       dynamic policy steals an unstarted task from the
 *                       worker predicted to finish last (static never does);
 *   sched_report(w,t,s) records that w finished t after s seconds of work.
 * A task handed out by sched_next() is "started" and is never handed out
 * again in that iteration. Every task is handed out exactly once per
 * iteration. Ties are broken by the lowest worker / task index.
 *
 * Policies are ops tables (see sched_ops) chosen once at creation.
 */
#ifndef DSANA_POLICY_SCHED_H
#define DSANA_POLICY_SCHED_H

#include <stdbool.h>
#include <stdint.h>

enum sched_kind { SCHED_STATIC = 0, SCHED_DYNAMIC = 1 };

struct sched;

/* Create a scheduler for n_workers and n_tasks tasks with cost[t] > 0
 * (copied). Returns 0, DSANA_EINVAL or DSANA_ENOMEM. */
int sched_create(enum sched_kind kind, uint32_t n_workers, const double *cost, uint32_t n_tasks, struct sched **out);
void sched_destroy(struct sched *s);

/* Dynamic policy: assign each worker one contiguous range of tasks (in
 * task order) instead of longest-first. For tasks that write consecutive key
 * ranges read back in chunks (chunked transfers), a chunk of the next
 * iteration then waits for one or two workers, not for all of them. Call
 * before the first sched_begin_iter(); no effect on the static policy. */
void sched_set_contiguous(struct sched *s, bool contiguous);
/* Worker w runs its tasks on `threads` compute threads side by side (0
 * counts as 1, the default): its speed estimate is theirs together, but a
 * task runs on one of them, which the dynamic plan and its steals take
 * into account (sched_dynamic.c). DSANA_EINVAL for no such worker,
 * DSANA_ENOMEM (nothing changed) when memory runs out. */
int sched_set_threads(struct sched *s, uint32_t w, uint32_t threads);

/* Start an iteration. alive[w] false excludes worker w (NULL = all alive).
 * static: worker w gets the contiguous block of tasks
 *   [w*T/W', (w+1)*T/W') over the W' live workers (equal split by count).
 * dynamic: tasks are assigned largest first, proportionally to each worker's
 *   estimated speed; a task stays with the worker that ran it last unless
 *   moving it shortens the predicted iteration time. Contiguous (see
 *   sched_set_contiguous): the live workers, in worker order, get
 *   consecutive ranges of tasks of cost proportional to their speeds; the
 *   ranges of the last iteration stay unless new ones shorten the predicted
 *   iteration time by more than the noise margin. */
int sched_begin_iter(struct sched *s, const bool *alive);

/* Next task for worker w: sets *task and *stolen and returns 0, or returns
 * DSANA_EAGAIN when w gets nothing more this iteration. *stolen is true when
 * the task was not in w's own queue (stolen from a live worker, or taken
 * over from a dropped one). EAGAIN means "nothing for w now": under dynamic
 * a steal refused now may help later, and sched_drop_worker() puts tasks
 * back, so an idle worker may ask again (cheap, O(W)). */
int sched_next(struct sched *s, uint32_t w, uint32_t *task, bool *stolen);
/* The same without stealing: w's own queue only. For the hand-outs that
 * start an iteration, and for a worker that holds enough to keep its
 * threads busy (handout_may_steal): a worker whose share is smaller than
 * what it may hold (a slow worker's, with tiny tasks) must not take the
 * plan's tasks from the others before they have begun, nor fill its whole
 * depth with what a dropped worker left, which nobody could take back;
 * those go, as steals do, to workers running low (sched_next). */
int sched_next_own(struct sched *s, uint32_t w, uint32_t *task, bool *stolen);

/* Worker w finished task after `seconds`: updates w's speed estimate
 * (cost units per second, exponentially smoothed; outliers damped). */
void sched_report(struct sched *s, uint32_t w, uint32_t task, double seconds);

/* Remove a worker mid-iteration (it died): its unstarted tasks go back to
 * the pool and `task_lost` (if not UINT32_MAX) is handed out again.
 * May be called again for the same worker to return each further started
 * task it held (e.g. the prefetched one); a task_lost that w does not hold
 * unfinished is ignored. The worker stays out until the next
 * sched_begin_iter(), whose `alive` argument decides again. */
void sched_drop_worker(struct sched *s, uint32_t w, uint32_t task_lost);

/* Estimated speed of w (cost units per second; 0 before any observation). */
double sched_speed_est(const struct sched *s, uint32_t w);
/* Tasks w has stolen in the current iteration. */
uint32_t sched_stolen(const struct sched *s, uint32_t w);
/* Tasks still unstarted in the whole iteration. */
uint32_t sched_remaining(const struct sched *s);
/* The tasks queued for w (unstarted, in the order w would get them):
 * *tasks points into the policy, valid until the next call that changes
 * the queues; their count. */
uint32_t sched_queued_tasks(const struct sched *s, uint32_t w, const uint32_t **tasks);
/* Cost still queued for w (its unstarted tasks) in the current iteration;
 * right after sched_begin_iter() this is w's assigned cost. */
double sched_queued_cost(const struct sched *s, uint32_t w);

const char *sched_kind_name(enum sched_kind kind);
/* "static" / "dynamic" -> kind; DSANA_EINVAL otherwise. */
int sched_kind_parse(const char *name, enum sched_kind *kind);

#endif
