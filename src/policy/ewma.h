/*
 * ewma.h - the exponentially weighted moving average under every estimate
 * the runtime keeps of how fast work goes: the scheduler's speed of each
 * worker (sched.c, smoothed across iterations) and a worker driver's time
 * per unit of task cost and per kind of work item (driver_worker.c, item by
 * item, to choose what runs on its control thread).
 */
#ifndef DSANA_POLICY_EWMA_H
#define DSANA_POLICY_EWMA_H

/* The estimate after sample x: x itself while there is none (prev <= 0 or
 * NaN), else (1 - alpha) * prev + alpha * x (alpha in (0, 1]: the weight
 * of the new sample). */
static inline double ewma_update(double prev, double x, double alpha) {
  return prev > 0 ? (1.0 - alpha) * prev + alpha * x : x;
}

#endif
