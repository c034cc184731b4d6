/*
 * scheduler_internal.h - the scheduler's state, shared by its files, which
 * call one way only:
 *   scheduler.c          the API: messages, ticks, registration (top)
 *   scheduler_members.c  cluster map, lost workers, late joins
 *   scheduler_iter.c     the iteration clock: hand-outs, reports, reduce
 *   scheduler_final.c    collecting the result, the run's summary
 *   scheduler_out.c      sending, broadcasting, aborting (bottom)
 * Owned by the scheduler's control thread.
 */
#ifndef DSANA_RUNTIME_SCHEDULER_INTERNAL_H
#define DSANA_RUNTIME_SCHEDULER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "io/scenario/scenario.h"
#include "policy/sched.h"
#include "runtime/msg/event.h"
#include "runtime/core/job.h"
#include "runtime/msg/msg.h"
#include "runtime/core/observer.h"
#include "runtime/role/role_params.h"
#include "runtime/scheduler/scheduler.h"
#include "runtime/msg/usage.h"

struct peer_slot {
  bool registered, bye;
  bool lost;            /* worker declared lost: its messages are ignored */
  bool told_lost;       /* ... and it was told so, when it spoke again */
  bool joining;         /* replacement worker: takes part from the next iteration */
  uint32_t outstanding; /* worker: tasks of this iteration handed, not done */
  uint32_t depth;       /* worker: how many it should hold */
  uint32_t threads;     /* worker: its compute threads (REGISTER) */
  uint32_t handed;      /* worker: tasks handed in this iteration */
  bool ahead;           /* worker: told to fetch the next iteration's input */
  bool ready;           /* worker: joined and holds the first iteration's input (READY) */
  struct net_peer peer;
  char addr[CONFIG_ADDR_MAX];
  uint64_t last_heard_ns;
  uint64_t last_sent_ns; /* any word to it keeps it from timing the scheduler out: no heartbeat needed */
  uint32_t *batch;       /* worker: tasks to hand in the next TASKS message */
  uint32_t n_batch;
};

struct iter_acc {
  uint32_t reports, tasks_done;
  uint32_t handouts; /* TASKS messages (tasks beyond ITER_START's) */
  dsana_xsum sums[DSANA_MAX_SUMS];
  uint64_t start_ns, messages;
  uint64_t messages_recorded; /* of messages, those counted in the iteration's report */
  double raw_compute_s;       /* task compute without emulated slowdown */
};

struct scheduler {
  const struct rt_env *env;
  struct role_params params;
  struct run_config cfg;
  const struct dsana_app *app;
  void *app_state;
  struct dsana_job job;
  struct scenario sc;
  struct sched *policy;
  uint64_t chunk_keys[DSANA_MAX_TABLES]; /* per key space, 0 = whole tables */
  bool blocks, fetch_ahead;
  bool compress; /* --compress resolved: workers ask for compressed answers */
  struct peer_slot *servers, *workers;
  bool started; /* every role registered, maps sent */
  uint64_t reg_deadline_ns;
  uint32_t iter; /* in progress (0 = initial values) */
  struct iter_acc acc;
  struct worker_iter_stats *wstats;
  uint8_t *task_seen;   /* n_tasks: TASK_DONE received this iteration */
  uint32_t *task_owner; /* n_tasks: worker the task was handed to */
  uint32_t lost_workers;
  uint32_t losses; /* workers declared lost so far: the hand-out epoch (wire.h, chunk) */
  /* late registrations waiting for a place (the worker they replace is not
   * lost yet): taken in order when a worker is lost */
#define SCH_MAX_WAITING 16
  struct sch_waiting {
    struct net_peer peer;
    uint32_t index; /* UINT32_MAX: any place */
    uint32_t threads;
  } waiting[SCH_MAX_WAITING];
  uint32_t n_waiting;
  uint32_t late_servers;         /* registrations told to come again (server_retry) */
  uint32_t ckpt_iter, ckpt_acks; /* the checkpoint being written */
  double ckpt_globals[DSANA_MAX_GLOBALS], ckpt_residual;
  double globals[DSANA_MAX_GLOBALS];
  double residual;
  bool converged;
  struct dsana_reduce_ctx last; /* the last reduce(), for the summary */
  double overrun_s;
  double *iter_wall, *iter_bound, *iter_tbound;
  uint64_t pull_bytes, pull_bytes_raw;  /* of the iterations recorded: as sent, before compression */
  uint64_t refused_peers, dropped_msgs; /* by the listener (scheduler_note_listener) */
  uint64_t stale_msgs;                  /* the servers' and workers' drops, from their BYEs */
  uint32_t n_iters, cap_iters;
  bool stopping, finished;
  bool workers_stopped; /* STOP went to the workers (the result is complete) */
  double *result;
  uint64_t result_keys;
  uint32_t byes;
  /* the steady iterations' cost (usage.h): this process's window, what the
   * roles' BYEs reported, the scheduler's messages */
  struct usage_window usage;
  struct rt_usage job_usage;
  uint32_t usage_roles;
  uint64_t steady_messages, steady_steals, steady_handouts;
  uint32_t steady_iters;
  uint64_t start_ns, last_hb_ns;
  /* what a message costs this thread (scheduler_note_msg_cost), and the
   * last iteration's length: how many refills an iteration affords */
  uint64_t msg_cpu_ns, msg_count;
  double msg_cost_s, last_wall_s;
  int failed; /* the job stopped with this error */
};

/* scheduler_out.c */
int sch_send(struct scheduler *s, struct peer_slot *to, const struct wire_hdr *h, const void *payload, size_t len,
             struct rt_outq *out);
int sch_send_owned(struct scheduler *s, struct peer_slot *to, const struct wire_hdr *h, void *payload, size_t len,
                   struct rt_outq *out);
void sch_broadcast(struct scheduler *s, bool servers, bool workers, const struct wire_hdr *h, const void *payload,
                   size_t len, struct rt_outq *out);
/* Stop the job: log, tell every role why, return DSANA_EPEER (a role
 * failed or was lost); sch_abort_rc for a failure of the job itself
 * (DSANA_ERANGE: it diverged). The code returned is the one recorded
 * (s->failed), which every later call returns. */
int sch_abort(struct scheduler *s, struct rt_outq *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int sch_abort_rc(struct scheduler *s, struct rt_outq *out, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A role reported its failure (ABORT, why: len bytes): stop the job as
 * sch_abort does, saying "ROLE I failed: why" only when the role's own
 * line is not on this stderr (a role on another machine). */
int sch_role_failed(struct scheduler *s, struct rt_outq *out, enum rt_role role, uint32_t idx, const char *why,
                    size_t len);
/* Roll the job back (a lost server, cfg.server_loss_rollback): log why,
 * tell every role to register again (ABORT with WIRE_F_ROLLBACK) and end
 * this run with DSANA_ERESTART; the caller restarts the scheduler from the
 * last checkpoint. */
int sch_rollback(struct scheduler *s, struct rt_outq *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* scheduler_final.c */
/* Stop after this iteration: ask the servers for the result. */
int sch_stop(struct scheduler *s, struct rt_outq *out);
/* A server's part of the result; the workers are told to stop once it is
 * all in (until then a lost server can still roll the job back). */
int sch_on_final_data(struct scheduler *s, uint32_t server, const struct net_msg *m, struct rt_outq *out);
/* A role's BYE: add the steady iterations' usage it counted (usage.h). */
void sch_take_usage(struct scheduler *s, const struct net_msg *m);
/* Sets s->finished once every role said BYE and the result is complete. */
void sch_check_finished(struct scheduler *s);

/* scheduler_iter.c */
int sch_start_iteration(struct scheduler *s, struct rt_outq *out);
int sch_on_report(struct scheduler *s, uint32_t server, const struct net_msg *m, struct rt_outq *out);
int sch_on_task_done(struct scheduler *s, uint32_t worker, const struct net_msg *m, struct rt_outq *out);
int sch_on_ckpt_done(struct scheduler *s, uint32_t server, const struct net_msg *m);
int sch_on_ready(struct scheduler *s, uint32_t worker, const struct net_msg *m, struct rt_outq *out);
/* End the iteration if everything it waits for is in. */
int sch_maybe_end(struct scheduler *s, struct rt_outq *out);
/* Top every worker up to its depth and send the batches. */
int sch_hand_out_all(struct scheduler *s, struct rt_outq *out);

/* scheduler_members.c */
int sch_send_maps(struct scheduler *s, struct rt_outq *out);
/* why: how the loss was seen, for the log line ("silent for 5.1 s") */
int sch_lose_worker(struct scheduler *s, uint32_t w, const char *why, struct rt_outq *out);
int sch_on_late_register(struct scheduler *s, const struct rt_from *from, const struct net_msg *m, struct rt_outq *out);

#endif
