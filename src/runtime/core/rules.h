/*
 * rules.h - rules of the runtime that the simulator (src/sim) models too,
 * written once for both: when a worker sends a finished task's pushes and
 * report (worker_push.c), the order of a server's pull answers on its link
 * (server_pull.c), and when tasks run block by block (scheduler.c). Plain
 * constants and pure functions of plain data.
 */
#ifndef DSANA_RUNTIME_RULES_H
#define DSANA_RUNTIME_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "runtime/core/job.h"

/* A task that computed for less than this sends its pushes and report
 * with the next ones (one message per server and one report for a run of
 * tiny tasks), at most WPUSH_BATCH_TASKS of them; longer ones send at
 * once, so that pipelined chunks become final as early as they can. The
 * pushes that wait leave as soon as they hold WPUSH_BATCH_BYTES of values
 * (the report keeps waiting): past that, a message more costs less than
 * the wait. A run of 64 tasks of 8 KiB each held 0.5 MiB back until the
 * worker ran dry, 4 ms of a 1 Gbit/s link that then carried it after the
 * last task instead of beside the tasks (p2p-Gnutella31, 4 workers:
 * 3.5 ms an iteration against 3.0 with the cap). */
#define WPUSH_BATCH_NS 50000
#define WPUSH_BATCH_TASKS 64
#define WPUSH_BATCH_BYTES 32768

/* The priority of a worker's pushes and reports on its link (lower leaves
 * first, equal ones in order): above its pull requests (0), which are
 * small and what a server needs before it can stream the next iteration's
 * input to it, and behind nothing else, so a report never overtakes the
 * pushes it reports. */
#define RT_PRIORITY_PUSH 1

/* The priority of a pull answer on a server's link; lower leaves first:
 * the running iteration before the next one, lower chunks first (a task's
 * blocks run in chunk order), and within a chunk lower-numbered workers
 * first: under static or contiguous assignment they write the lowest keys,
 * whose chunks of the next iteration every worker needs first, so they
 * should finish first. */
static inline uint64_t rt_reply_priority(uint32_t iter, uint64_t chunk, uint32_t worker) {
  uint64_t c = chunk < (1u << 24) ? chunk : (1u << 24) - 1;
  return ((uint64_t)(iter & 0xffffff) << 40) | c << 16 | (worker < 0xffff ? worker : 0xffff);
}

/* Do the job's tasks run block by block (task_begin, task_block per chunk
 * of the block table, task_end)? With a block table and an app that has
 * the block hooks: when the block table comes in several chunks of
 * chunk_keys keys (0: whole), and always when the app has no run_task. */
static inline bool rt_runs_blocks(const struct dsana_job *job, uint64_t chunk_keys, bool block_hooks, bool run_task) {
  uint32_t b = job->block_table;
  return b != JOB_NONE && block_hooks && ((chunk_keys && chunk_keys < job->tables[b].n_keys) || !run_task);
}

#endif
