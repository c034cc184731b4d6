/*
 * handout.h - how many tasks a worker holds at a time, and how much of its
 * share it gets at once: pure decisions from speed estimates and task
 * costs (no I/O, no clocks), with the tuning constants behind them.
 */
#ifndef DSANA_POLICY_HANDOUT_H
#define DSANA_POLICY_HANDOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "policy/sched.h"

/* Under dynamic scheduling a worker holds at least the running task and
 * one prefetched ... */
#define HANDOUT_TASKS_IN_FLIGHT 2
/* ... and enough estimated work to cover a round trip to the scheduler,
 * so that tiny tasks do not wait for their successor ... */
#define HANDOUT_HOLD_S 1e-3
/* ... but never more than this many. */
#define HANDOUT_DEPTH_MAX 64
/* With chunked transfers and block-wise tasks a worker gets its whole
 * assigned share at once: its blocks run chunk by chunk over every task it
 * holds, so a task handed later starts from the first chunk after the
 * others are done, and its push (and the next iteration's chunks it
 * writes) comes a refill's round trip and a task's compute late. Holding a
 * quarter back for stealing cost more than stealing saved, transient
 * stragglers included (PageRank, 4 workers, 2 servers, to 1e-6, three
 * alternated runs: soc-Slashdot0902 on the homogeneous cloud with 4x
 * transient stragglers 1.12-1.36 s -> 0.67-1.02 s, heterogeneous 0.72 ->
 * 0.70-0.72 s; the overlap case's iteration 8: its four held-back tasks
 * pushed 2.4 ms after the rest). Without blocks a worker holds only its
 * depth: a share handed at once cannot move when the worker turns out slow
 * in this iteration (bench/pagerank/stragglers.sh, homogeneous cloud: 1.43x -> 1.10x
 * on the mean iteration when the rest stays with the policy). */
#define HANDOUT_BLOCKS_SHARE_AT_ONCE 1.0

/* ... and enough of its share of the iteration that the workers together
 * ask for more at most about HANDOUT_REFILLS_PER_ITER times an iteration
 * (a worker of W, HANDOUT_REFILLS_PER_ITER / W times; plus a task per
 * thread): the scheduler is one thread, and with 64 workers holding two
 * tasks of 16 each it sent a TASKS and took a TASK_DONE per task, 1,966
 * messages an iteration, 0.32 of the bound. With a few workers this asks
 * nothing more than the rule above: holding a quarter of a 4-worker share
 * cost stealing too much (bench/pagerank/stragglers.sh, heterogeneous: efficiency
 * 0.93 -> 0.81). */
#define HANDOUT_REFILLS_PER_ITER 256
/* ... and fewer where the scheduler's messages are dear: a refill is two
 * of them (a report, a hand-out), on one thread, so the refills of an
 * iteration may cost the scheduler at most this share of the iteration's
 * length (at least one a worker: its share in one hand-out). Roles as
 * processes pay ~25 us of the scheduler's CPU a message, as threads a few:
 * 16 workers as processes, 256 refills cost the scheduler more than the
 * iteration's bound and ran at 0.43 of it (bsp 0.73); with 64, 0.56. */
#define HANDOUT_REFILL_SHARE 0.05

/* ... and in the first iteration, whose length is not known yet (nor any
 * worker's speed: a task's first run on a worker lays it out, which its
 * speed leaves out), about this many hand-outs a worker: its share on
 * demand, so that a worker slow from the start holds little, but not a
 * task at a time. With the 256 refills of the cap, 16 tiny tasks a worker
 * went out one or two at a time: 112-130 scheduler messages and 14 round
 * trips a worker in iteration 1 (p2p-Gnutella31, 4 workers, --sched dynamic
 * --chunk off, 0.5 ms links: 18.7-20.5 ms against bsp's 13.3). */
#define HANDOUT_FIRST_REFILLS_PER_WORKER 4

/* Tasks worker w should hold at a time: all (UINT32_MAX) under static
 * scheduling; else by its estimated speed (cost units per second over all
 * its threads, 0 = unknown), the mean task cost and its compute threads
 * (each runs a task; the prefetched ones come on top). A slow worker gets
 * a prefetched task too: without one it idles for a round trip to the
 * scheduler after every task while the others steal its queue. */
uint32_t handout_depth(enum sched_kind kind, double speed, double mean_cost, uint32_t threads);
/* The refills n_workers together may ask for in an iteration: an
 * iteration of iter_s seconds, the scheduler's CPU msg_s seconds a message
 * (iter_s 0, the first iteration: HANDOUT_FIRST_REFILLS_PER_WORKER each;
 * msg_s 0, not known yet: HANDOUT_REFILLS_PER_ITER). */
uint32_t handout_refills(double iter_s, double msg_s, uint32_t n_workers);
/* The least a worker with `share` planned tasks this iteration, of
 * n_workers that together ask for `refills` refills, should hold;
 * UINT32_MAX under static scheduling. */
uint32_t handout_share_depth(enum sched_kind kind, uint32_t share, uint32_t n_workers, uint32_t threads,
                             uint32_t refills);
/* What a worker holds this iteration: the larger of the two above. */
uint32_t handout_hold(enum sched_kind kind, double speed, double mean_cost, uint32_t threads, uint32_t share,
                      uint32_t n_workers, uint32_t refills);
/* Whether a worker holding `outstanding` tasks (its compute threads
 * `threads`) may take one from another worker's queue when its own is
 * empty: only to keep its threads busy and one task ahead, never to fill
 * its whole depth. A thief that topped its depth up from others' queues
 * held their tasks where nobody could take them back: with 64 uniform
 * workers on long iterations (refills 256, holding a quarter of a share),
 * ~95 steals an iteration left their victims idle for up to 30 ms of a
 * 68 ms iteration, 0.78-0.82 of the bound. */
bool handout_may_steal(uint32_t outstanding, uint32_t threads);
/* Cost to hand a worker at the start of an iteration beyond its depth:
 * its queued cost share under dynamic scheduling with block-wise tasks,
 * else 0. */
double handout_first_budget(enum sched_kind kind, bool blocks, double queued_cost);

#endif
