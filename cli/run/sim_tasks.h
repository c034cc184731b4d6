/*
 * sim_tasks.h - `dsana sim --tasks FILE`: a job described by a list of task
 * costs, as an app (dsana.h) whose setup() declares it, so that the
 * simulator reads it exactly like a real app's job. Its task and reduce
 * hooks never run (they only say that tasks run whole or block by block):
 * it exists for the simulator only.
 *
 * FILE: one task per line, `COST [KEYS]`: COST a finite number > 0 (the
 * cost hint, in the units of the scenario's ns_per_cost), KEYS an integer
 * >= 1 (keys of the result table the task writes; default 1). Blank lines
 * and lines starting with '#' are skipped. Like PageRank, the job has a
 * table of sum(KEYS) keys that every task writes its own range of, and a
 * table of as many keys that every task reads (by blocks when chunked).
 * Anything else is a one-line error naming FILE:LINE.
 */
#ifndef DSANA_CLI_SIM_TASKS_H
#define DSANA_CLI_SIM_TASKS_H

#include "dsana/dsana.h"

extern const struct dsana_app sim_tasks_app;

#endif
