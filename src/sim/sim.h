/*
 * sim.h - `dsana sim`: a deterministic discrete-event simulator of a dsana
 * run. It drives the real scheduling and chunking policies (src/policy,
 * unchanged) against a model of the runtime's roles: a scheduler, S
 * servers and W workers exchanging the runtime's messages (ITER_START,
 * TASKS, FETCH_AHEAD, PULL, PULL_REPLY, PUSH, TASK_DONE, SHARD_REPORT,
 * ITER_END) over modelled links, with per-message CPU costs per role
 * (struct sim_costs) and task times from the job's cost hints and the
 * scenario. It reports through the same observer as a real run, so the
 * command line writes the same --metrics lines (docs/sim.md: the model,
 * its assumptions, calibration and validation).
 *
 * Layer: above src/runtime (it reads a finalized struct dsana_job, the run
 * configuration and the observer types, all plain data, and takes the
 * rules and message sizes it models from runtime/core/rules.h and msg.h),
 * below cli/.
 */
#ifndef DSANA_SIM_SIM_H
#define DSANA_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/scenario/scenario.h"
#include "runtime/core/config.h"
#include "runtime/core/job.h"
#include "runtime/core/observer.h"

/* What a role's CPU spends, and what the transport adds (seconds). The
 * defaults (sim_costs_default) were measured on this machine with
 * bench/sim_calibrate.sh where a calibration run is sensitive to them;
 * a costs file overrides any of them. */
/* The version of the costs file (a machine's profile) this dsana reads:
 * its key profile_version, when given, must be this. */
#define SIM_PROFILE_VERSION 1

struct sim_costs {
  double net_msg_s;          /* delivery of one message by the transport, any size */
  double net_bytes_per_s;    /* transport copy bandwidth where no link is emulated (0 = free) */
  double sched_msg_s;        /* scheduler CPU per message received or sent */
  double sched_record_s;     /* scheduler CPU per TASK_DONE record */
  double sched_handout_s;    /* scheduler CPU per task handed out */
  double sched_iter_s;       /* scheduler CPU per iteration (reduce, commit, new queues) */
  double sched_plan_task_s;  /* and per task when workers have several threads (their list schedules) */
  double server_msg_s;       /* server CPU per message received or sent */
  double server_push_byte_s; /* server CPU per pushed byte */
  double server_pull_byte_s; /* server CPU per byte of values packed into a pull answer */
  double worker_msg_s;       /* worker CPU per message received or sent */
  double worker_task_s;      /* worker CPU per task instance (set-up, building its pushes) */
  double worker_ns_per_cost; /* real compute per unit of task cost on this machine (ns) */
  uint32_t host_cores;       /* 0: every role on its own machine; N: all roles share N cores */
};

/* The defaults measured on this machine (docs/sim.md). */
void sim_costs_default(struct sim_costs *c);
/* Override costs from a JSON object {"sched_msg_s": 1.5e-5, ...}: keys are
 * the field names above, values finite numbers >= 0 (host_cores an integer).
 * Unknown keys and bad values are errors; err gets one line naming the file
 * and key. Returns 0, DSANA_EIO or DSANA_EFORMAT. */
int sim_costs_load(const char *path, struct sim_costs *c, char *err, size_t errlen);

/* What the job's app offers (the simulator never runs its hooks). */
struct sim_app_shape {
  const char *name;
  bool block_hooks; /* task_block(): tasks can run chunk by chunk */
  bool run_task;    /* run_task(): whole tasks */
  bool update;      /* an update() hook: no fetching ahead */
};

struct sim_options {
  uint32_t max_iter; /* iterations to simulate (>= 1) */
  uint64_t seed;     /* of the task-time noise */
  double noise;      /* relative spread of task times (lognormal sigma), 0 = none */
  bool local;        /* every role on one machine (the local launcher): shared buffers, one chunk */
};

/* What the simulated run saw, besides the observer's reports. */
struct sim_result {
  uint32_t iterations;
  double total_s, median_iter_s, bound_s;
  double sched_busy, server_busy, link_busy; /* busiest of each, fraction of total_s */
  double largest_task_s; /* the costliest task on the fastest worker, iteration 1: no schedule beats it */
  uint64_t events;
};

/* Simulate opt->max_iter iterations of `job` (finalized; borrowed) under
 * cfg (workers, servers, sched, chunk, tasks per worker, payload limit)
 * and scenario sc (borrowed; NULL = equal speeds, no links). Reports every
 * iteration and the summary to obs (may be NULL), as a real run's
 * scheduler does. Returns 0, DSANA_EINVAL (cfg and job disagree) or
 * DSANA_ENOMEM; err gets one line. Deterministic for the same inputs. */
int sim_run(const struct dsana_job *job, const struct sim_app_shape *app, const struct run_config *cfg,
            const struct scenario *sc, const struct sim_costs *costs, const struct sim_options *opt,
            const struct rt_observer *obs, struct sim_result *res, char *err, size_t errlen);

#endif
