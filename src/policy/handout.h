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
/* With chunked transfers and block-wise tasks a worker overlaps all the
 * tasks it holds with the transfer, so it gets this share of its assigned
 * work at once; the rest stays with the policy for balancing and stealing.
 * Without blocks a worker holds only its depth: a share handed at once
 * cannot move when the worker turns out slow in this iteration (a
 * transient straggler), which costs more than the round trips it saves
 * (bench/stragglers.sh, homogeneous cloud: 1.43x -> 1.10x on the mean
 * iteration with 0.75 of the share at once). */
#define HANDOUT_BLOCKS_SHARE_AT_ONCE 0.75

/* Tasks worker w should hold at a time: all (UINT32_MAX) under static
 * scheduling; else by its estimated speed (cost units per second over all
 * its threads, 0 = unknown), the mean task cost and its compute threads
 * (each runs a task; the prefetched ones come on top). A slow worker gets
 * a prefetched task too: without one it idles for a round trip to the
 * scheduler after every task while the others steal its queue. */
uint32_t handout_depth(enum sched_kind kind, double speed, double mean_cost, uint32_t threads);
/* Cost to hand a worker at the start of an iteration beyond its depth:
 * its queued cost share under dynamic scheduling with block-wise tasks,
 * else 0. */
double handout_first_budget(enum sched_kind kind, bool blocks, double queued_cost);

#endif
