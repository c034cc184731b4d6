/*
 * sim_internal.h - the simulator's state, shared by its files, which call
 * one way only:
 *   sim_run.c     setup, the event loop, dispatch to the roles (top)
 *   sim_sched.c   the scheduler role: the iteration clock, hand-outs
 *                 through the real policy, reports to the observer
 *   sim_server.c  a server: pushes, chunk finality, pull answers, commits
 *   sim_worker.c  a worker: its tasks, input chunks, compute
 *   sim_wpush.c   a worker's pushes and TASK_DONE reports (batched)
 *   sim_net.c     messages, CPUs, links (latency, bandwidth, priority)
 *   sim_work.c    the job's shape: tasks, shards, chunks, bytes
 *   sim_heap.c    the priority queue under events and links (bottom)
 * One thread owns a struct sim.
 */
#ifndef DSANA_SIM_SIM_INTERNAL_H
#define DSANA_SIM_SIM_INTERNAL_H

#include "policy/sched.h"
#include "sim/sim.h"
#include "sim/sim_heap.h"

/* ---- messages ------------------------------------------------------------ */

enum sim_role { SIM_SCHED = 0, SIM_SERVER = 1, SIM_WORKER = 2 };

enum sim_msg_type {
  SM_ITER_START,   /* sched -> worker: ids = first tasks; ahead = fetch t+1 after them */
  SM_TASKS,        /* sched -> worker: ids = more tasks */
  SM_FETCH_AHEAD,  /* sched -> worker: fetch iter's input now */
  SM_ITER_END,     /* sched -> server: commit iter */
  SM_PULL,         /* worker -> server: the read table of iter */
  SM_PULL_REPLY,   /* server -> worker: piece of chunk `chunk` of iter */
  SM_PUSH,         /* worker -> server: values; ids = the tasks it ends there */
  SM_TASK_DONE,    /* worker -> sched: recs */
  SM_SHARD_REPORT, /* server -> sched: every write of iter arrived */
};

/* One TASK_DONE record. */
struct sim_rec {
  uint32_t task;
  double compute_s;
  uint64_t bytes_in, bytes_out;
};

struct sim_msg {
  enum sim_msg_type type;
  enum sim_role from_role, to_role;
  uint32_t from, to, iter;
  bool ahead;
  bool handed_all;       /* ITER_START, TASKS: WIRE_F_HANDED_ALL */
  uint64_t chunk, bytes; /* bytes on the wire, header included */
  uint64_t priority;     /* on the sender's link: lower leaves first */
  uint32_t n;            /* ids or recs */
  uint32_t *ids;         /* owned */
  struct sim_rec *recs;  /* owned */
};

/* ---- CPUs and links --------------------------------------------------- */

/* A role's control thread: one piece of work at a time, in arrival order. */
struct sim_cpu {
  double free_at, busy_s;
};

/* A host core shared by the roles (host_cores): its booked intervals,
 * sorted, disjoint, none ending before the event clock. Work may be booked
 * ahead (a role's thread is busy until then), so a later request can still
 * fill the gap before it: the cores stay work-conserving. */
struct sim_core {
  struct sim_span {
    double start, end;
  } * span;
  size_t n, cap;
};

/* A process's emulated outgoing link (outbox.h): a message queued at t may
 * leave at t + latency; departures are serialized at the bandwidth,
 * lowest priority first among those ready. */
struct sim_link {
  double bw, lat;
  double free_at, busy_s;
  bool armed;              /* a link event is pending */
  struct sim_heap waiting; /* by ready time (FIFO) */
  struct sim_heap ready;   /* by (priority, seq) */
};

enum sim_ev_kind { EV_DELIVER, EV_COMPUTE, EV_LINK };

/* ---- the job's shape (sim_work.c) ---------------------------------------- */

struct sim_work {
  uint32_t n_tasks;
  double *cost;            /* n_tasks */
  uint64_t *wlo, *whi;     /* n_tasks: write range of the written table */
  uint64_t n_keys;         /* of the read table's key space */
  uint64_t w_keys;         /* of the written table */
  bool same_space;         /* written and read tables have the same keys: chunks become final */
  uint32_t wwidth, wwords; /* written table's width, words per value (2: exact sums) */
  bool wassign;            /* the written table is ASSIGN: tiny tasks' pushes merge into one message */
  bool read_dense;         /* tasks read a table by range (pulled by every worker) */
  uint64_t chunk_keys;     /* keys per chunk of the read space, 0 = whole tables */
  uint64_t n_chunks;       /* global chunks (1 when not chunked) */
  uint32_t n_servers;
  uint64_t *slo, *shi;  /* n_servers: shards */
  uint64_t *read_bytes; /* n_servers * n_chunks: values pulled of (server, chunk) */
  uint32_t *pieces;     /* n_servers * n_chunks: answer messages of (server, chunk), 0 = not its */
  uint32_t *parts;      /* n_chunks: pieces over all servers */
  uint64_t values_per_msg;
  uint32_t n_sums;
  bool blocks, fetch_ahead, contiguous, shared;
};

/* ---- roles ---------------------------------------------------------------- */

struct sim_wslot { /* the scheduler's view of a worker */
  uint32_t outstanding, depth, handed;
  bool ahead;
  uint32_t *batch, n_batch;
  size_t cap_batch;
};

struct sim_sched {
  struct sched *policy;
  struct sim_cpu cpu;
  struct sim_wslot *w;
  uint32_t iter, tasks_done, reports;
  double start_t;
  uint64_t messages;
  double raw_compute_s;
  uint8_t *task_seen;
  uint32_t *task_owner;
  struct worker_iter_stats *wstats;
  double *iter_wall, *iter_bound, *iter_tbound;
  double last_wall; /* the last iteration's (0: none yet): its refills, handout_refills() */
  bool done;
  double end_t;
};

struct sim_pullreq {
  uint32_t worker, iter;
  uint64_t pos; /* next entry of the version's final-chunk order */
};

struct sim_server {
  struct sim_cpu cpu;
  struct sim_link link;
  int64_t version;
  uint64_t c0, nc;          /* its chunks [c0, c0 + nc) */
  uint32_t *writers;        /* nc: tasks writing each chunk here */
  uint32_t *left;           /* nc: of them, not ended in version+1 */
  uint64_t *final_order[2]; /* [0] cur: all, in order; [1] next: as they became final */
  uint64_t n_final;
  uint32_t tasks_here, tasks_left;
  uint8_t *ended; /* n_tasks */
  struct sim_pullreq *reqs;
  size_t n_reqs, cap_reqs;
  struct sim_msg **deferred;
  size_t n_deferred, cap_deferred;
};

struct sim_pend { /* deferred pushes to one server: merged runs */
  uint64_t hi, bytes;
  uint32_t msgs;
  uint32_t *ids, n_ids;
};

/* A worker's compute thread (--threads): one task at a time, whole or
 * block by block. */
#define SIM_NO_TASK UINT32_MAX
struct sim_thread {
  uint32_t running;    /* task, or SIM_NO_TASK */
  uint64_t next_chunk; /* blocks: the running task's next block */
  uint64_t item_end;   /* the computing item ends before this block */
  double task_compute; /* modelled so far */
  double task_noise;   /* the running task's noise factor */
  bool busy;           /* an item is computing */
};

struct sim_worker {
  struct sim_cpu cpu;
  struct sim_link link;
  uint32_t iter, n_ran, ran_prev;
  uint32_t *queue, q_cap, q_head, q_len; /* ring of the tasks held (grown to at most n_tasks) */
  bool handed_all;                       /* the iteration's tasks all handed out: one report, after the last */
  struct sim_thread *th;                 /* sim->threads of them */
  uint32_t pulled[2];                    /* iteration whose input was asked, per parity */
  uint32_t *got[2];                      /* per parity: pieces arrived per chunk */
  uint32_t got_iter[2];
  uint64_t chunks_in[2];
  uint64_t bytes_in, bytes_out, in_mark, out_mark;
  struct sim_pend *pend; /* n_servers */
  struct sim_rec *recs;
  uint32_t n_recs, cap_recs, rec_iter;
  uint64_t draws; /* noise draws so far */
};

struct sim {
  const struct sim_costs *c;
  const struct run_config *cfg;
  const struct scenario *sc;
  const struct sim_options *opt;
  const struct rt_observer *obs;
  const struct sim_app_shape *app;
  struct sim_work wk;
  struct sim_heap events;
  uint64_t seq;
  double now;
  struct sim_core *cores; /* host_cores of them (none when 0) */
  struct sim_sched s;
  struct sim_server *sv;
  struct sim_worker *w;
  uint32_t n_workers, n_servers;
  uint32_t threads; /* compute threads a worker: --threads (dsana sim --local: the local launcher's), else 1 */
  int failed;
  uint64_t n_events;
};

/* sim_net.c */
/* Run `cost` seconds on cpu from `now` on (after what it already has);
 * returns when it ends. */
double simnet_cpu(struct sim *sim, struct sim_cpu *cpu, double now, double cost);
/* A host core for `cost` seconds from `now` on, in the earliest gap of any
 * core (no-op without host_cores); returns when it ends. */
double simnet_host(struct sim *sim, double now, double cost);
void simnet_cores_fini(struct sim *sim);
int simnet_link_init(struct sim_link *l, double bw, double lat);
void simnet_link_fini(struct sim_link *l);
/* A new message (zeroed but for the fields given), or NULL (sim->failed set). */
struct sim_msg *simnet_msg(struct sim *sim, enum sim_msg_type type, enum sim_role from_role, uint32_t from,
                           enum sim_role to_role, uint32_t to, uint32_t iter, uint64_t payload_bytes);
void simnet_msg_free(struct sim_msg *m);
/* Send m at time t through link (NULL = not emulated): delivered later
 * as an EV_DELIVER event. Takes m. */
void simnet_send(struct sim *sim, struct sim_link *link, struct sim_msg *m, double t);
/* An event of kind k at time t for worker a's thread p (EV_COMPUTE), the
 * link (EV_LINK, p) or a message (EV_DELIVER, p). */
void simnet_event(struct sim *sim, enum sim_ev_kind k, double t, uint32_t a, void *p);
/* EV_LINK at time t. */
void simnet_link_event(struct sim *sim, struct sim_link *l, double t);

/* sim_work.c */
int simwork_init(struct sim_work *wk, const struct dsana_job *job, const struct sim_app_shape *app,
                 const struct run_config *cfg, const struct scenario *sc, bool local, char *err, size_t errlen);
void simwork_fini(struct sim_work *wk);
/* Modelled duration of cost c on worker w in iteration iter (no noise). */
double simwork_task_s(const struct sim *sim, uint32_t w, uint32_t iter, double c);

/* sim_sched.c */
int simsched_init(struct sim *sim);
void simsched_fini(struct sim *sim);
void simsched_start_iteration(struct sim *sim, double t);
void simsched_on_msg(struct sim *sim, struct sim_msg *m, double t);
/* The run's summary to the observer (after the last iteration). */
void simsched_finish(struct sim *sim);

/* sim_server.c */
int simserver_init(struct sim *sim, uint32_t i);
void simserver_fini(struct sim *sim, uint32_t i);
void simserver_on_msg(struct sim *sim, struct sim_msg *m, double t);

/* sim_wpush.c */
/* Task `task` of iteration iter ended on worker i after compute_s of
 * modelled compute: its pushes and record (sent, or kept with the next
 * tiny tasks'). Returns the worker's CPU time after it. */
double simwpush_finished(struct sim *sim, uint32_t i, uint32_t task, uint32_t iter, double compute_s, double t);
/* Send what waits: merged pushes, one TASK_DONE. */
double simwpush_flush(struct sim *sim, uint32_t i, double t);
/* Send the merged pushes that wait; the records keep waiting. */
double simwpush_flush_pushes(struct sim *sim, uint32_t i, double t);

/* sim_worker.c */
int simworker_init(struct sim *sim, uint32_t i);
void simworker_fini(struct sim *sim, uint32_t i);
void simworker_on_msg(struct sim *sim, struct sim_msg *m, double t);
/* Its compute thread th finished the running item at t. */
void simworker_on_compute(struct sim *sim, uint32_t i, struct sim_thread *th, double t);

#endif
