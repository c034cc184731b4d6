/*
 * scheduler.h - private state of the scheduler role, shared by its files:
 * scheduler.c (registration, main loop, liveness), sched_iter.c (the
 * iteration clock: task hand-out, reports, convergence) and sched_final.c
 * (collecting the result and the run summary).
 * Owned by the scheduler process's only thread.
 */
#ifndef DSANA_RUNTIME_SCHEDULER_H
#define DSANA_RUNTIME_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "io/scenario.h"
#include "net/transport.h"
#include "policy/sched.h"
#include "runtime/job.h"
#include "runtime/metrics.h"
#include "runtime/progress.h"
#include "runtime/runtime.h"

struct peer_slot {
  bool registered, bye;
  bool lost;    /* worker declared lost: its messages are ignored */
  bool joining; /* replacement worker: takes part from the next iteration */
  uint32_t outstanding; /* worker: tasks of this iteration handed, not done */
  uint32_t depth;       /* worker: how many it should hold (sch_hand_out tops up to it) */
  uint32_t handed;      /* worker: tasks handed in this iteration */
  bool ahead;           /* worker: told to fetch the next iteration's input */
  struct net_peer peer;
  char addr[CONFIG_ADDR_MAX];
  uint64_t last_heard_ns;
};

struct iter_acc {
  uint32_t reports, tasks_done;
  struct msg_report sum;
  uint64_t start_ns;
  double raw_compute_s; /* task compute without emulated slowdown */
};

struct scheduler {
  struct run_config cfg;
  const struct dsana_app *app;
  void *app_state;
  const struct app_args *args;
  struct dsana_job job;
  struct scenario sc;
  struct net_ctx *ctx;
  struct net_sock *listen;
  struct peer_slot *servers, *workers;
  struct sched *policy;
  uint64_t chunk_keys; /* 0 = whole tables */
  struct metrics *metrics;
  /* the iteration in progress (0 = initial values) */
  uint32_t iter;
  struct iter_acc acc;
  struct worker_iter_stats *wstats;
  uint8_t *task_seen; /* n_tasks: TASK_DONE received this iteration */
  uint32_t *task_owner; /* n_tasks: worker the task was handed to */
  uint32_t lost_workers;
  /* the checkpoint being written: iteration, servers done, state to resume */
  uint32_t ckpt_iter, ckpt_acks;
  double ckpt_globals[DSANA_MAX_GLOBALS], ckpt_residual;
  double globals[DSANA_MAX_GLOBALS];
  double residual;
  double overrun_s; /* emulated compute that ran past its modelled time, all workers */
  double *iter_wall, *iter_bound, *iter_tbound;
  uint32_t n_iters, cap_iters;
  /* stopping: collecting the result */
  bool stopping, finished;
  double *result;
  uint64_t result_keys;
  uint32_t byes;
  uint64_t start_ns, last_hb_ns;
  bool progress; /* live line on a terminal */
  struct progress line;
};

/* sched_iter.c */
int sch_start_iteration(struct scheduler *s);
int sch_on_report(struct scheduler *s, uint32_t server, const struct net_msg *m);
int sch_on_task_done(struct scheduler *s, uint32_t worker, const struct net_msg *m);
/* Top worker w up to its depth of held tasks, as far as the policy has
 * tasks for it. */
int sch_hand_out(struct scheduler *s, uint32_t w);
/* A worker with nothing left in this iteration fetches the next one's input. */
void sch_fetch_ahead(struct scheduler *s, uint32_t w);

/* sched_final.c */
int sch_on_final_data(struct scheduler *s, uint32_t server, const struct net_msg *m);
int sch_finish(struct scheduler *s);
/* Sets s->finished once every peer said BYE and the result is complete. */
void sch_check_finished(struct scheduler *s);

/* sched_iter.c: a server wrote its shard of the checkpoint of m->hdr.iter. */
int sch_on_ckpt_done(struct scheduler *s, uint32_t server, const struct net_msg *m);

/* sched_members.c */
/* A worker went silent: stop the job, or hand its tasks to the others. */
int sch_lose_worker(struct scheduler *s, uint32_t w);
/* A REGISTER after the start: a replacement for a lost worker. */
int sch_on_late_register(struct scheduler *s, const struct net_msg *m);
/* Live workers for the next iteration (joining ones become live). */
void sch_alive_mask(struct scheduler *s, bool *alive);
int sch_send_map_to(struct scheduler *s, uint32_t role, uint32_t index);

/* scheduler.c */
int sch_send(struct scheduler *s, const struct peer_slot *to, const struct wire_hdr *h, const void *payload,
             size_t len);
int sch_broadcast(struct scheduler *s, bool servers, bool workers, const struct wire_hdr *h,
                  const void *payload, size_t len);
void sch_abort(struct scheduler *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
