/*
 * driver_worker.c - a worker's driver: a dialer to the scheduler and one
 * to every server, its emulated link, and its compute threads. Work items
 * the state machine offers run on the pool; each is timed and, on an
 * emulated cluster, stretched to the modelled time of a node of the
 * scenario's speed (emulate.h) on the thread that ran it, while this
 * thread keeps the link and the heartbeats going. Items far shorter than
 * their model run here instead and are held until their modelled end
 * (hold.h), and very short ones run here outright. Its ops table
 * (driver_internal.h) and its state, private to this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/ewma.h"
#include "runtime/core/config.h"
#include "runtime/driver/driver_internal.h"
#include "runtime/core/fault.h"
#include "runtime/driver/driver_faults.h"
#include "runtime/emulate/emulate.h"
#include "runtime/emulate/hold.h"
#include "runtime/msg/msg.h"
#include "runtime/record/trace.h"
#include "runtime/worker/pool.h"
#include "runtime/worker/worker.h"
#include "util/thread/affinity.h"
#include "util/thread/clock.h"
#include "util/thread/cpu_busy.h"
#include "util/text/log.h"

/* The worker's own, beside the driver's I/O (struct drv). */
struct drv_worker {
  struct worker *w;
  struct net_sock **servers; /* dialers to every server, once joined */
  uint32_t n_servers;
  struct pool *pool;
  struct scenario sc;
  bool have_sc;
  struct emulate *emu; /* per compute thread (one when manual) */
  uint32_t n_emu;
  struct hold *hold;       /* emulated items held on this thread (NULL: none, manual) */
  struct emulate held_emu; /* their model */
  struct witem waiting;    /* taken while every thread was busy, some with a held item */
  bool has_waiting;
  bool ran_inline;              /* ran an item on this thread in this step */
  struct drv_push_faults fault; /* the part of cfg.fault that names it */
  double ns_per_cost;           /* measured compute per unit of a task's cost hint (0: none yet) */
  double item_ns[4];            /* recent time of an item, per witem_kind (0: none yet) */
  double real_ns_per_cost;      /* the same, real (unstretched) */
  double item_real_ns[4];
};

static void on_push_ready(void *arg, _Atomic uint64_t *ready, uint64_t n);

static int drv_worker_open(struct drv *d) {
  struct drv_worker *dw = calloc(1, sizeof *dw);
  if (!dw)
    return DSANA_ENOMEM;
  d->state = dw;
  int rc = drv_open_ctx(d);
  d->env.push_ready = on_push_ready;
  if (!rc)
    rc = drv_dial_scheduler(d);
  if (!rc)
    rc = worker_create(&d->params, &d->env, &dw->w);
  if (!rc)
    rc = worker_start(dw->w, &d->out);
  return rc ? rc : drv_flush(d, false);
}

static void drv_worker_close(struct drv *d) {
  struct drv_worker *dw = d->state;
  if (!dw)
    return;
  pool_destroy(dw->pool); /* joins: nothing runs after this */
  dw->pool = NULL;
  for (uint32_t i = 0; dw->emu && i < dw->n_emu; i++)
    emulate_fini(&dw->emu[i]);
  free(dw->emu);
  if (dw->hold) /* items still held (a job stopped mid-iteration) are dropped, and no longer busy */
    cpu_busy_add(-(int)hold_count(dw->hold));
  hold_destroy(dw->hold);
  emulate_fini(&dw->held_emu);
  if (dw->have_sc)
    scenario_fini(&dw->sc);
  worker_destroy(dw->w);
  for (uint32_t s = 0; dw->servers && s < dw->n_servers; s++)
    net_close(dw->servers[s]);
  free(dw->servers);
  free(dw);
  d->state = NULL;
}

/* How many key ranges the item running on a thread has said final so far
 * (dsana_push_ready), each count kept until its modelled clock gets there. */
struct item_marks {
  struct drv *d;
  bool stretch; /* emulated: the item's time is stretched */
  uint64_t t0;
  struct hold_marks m; /* at: ns into the real run */
};
static _Thread_local struct item_marks *tl_marks;

/* The first n ranges said final may be read: the control thread may send
 * their keys. */
static void publish(void *arg, _Atomic uint64_t *ready, uint64_t n) {
  struct drv *d = arg;
  struct drv_worker *dw = d->state;
  atomic_store_explicit(ready, n, memory_order_release);
  if (dw->pool)
    pool_wake(dw->pool);
}

static void on_push_ready(void *arg, _Atomic uint64_t *ready, uint64_t n) {
  struct item_marks *m = tl_marks;
  if (!m || !m->stretch) {
    publish(arg, ready, n);
    return;
  }
  struct hold_marks *h = &m->m;
  if (h->n == HOLD_MARKS) /* full: the last mark moves on */
    h->n--;
  h->ready = ready;
  h->at[h->n] = clock_now_ns() - m->t0;
  h->n_said[h->n++] = n;
}

static void mark_reached(void *arg, uint32_t i) {
  struct item_marks *m = arg;
  publish(m->d, m->m.ready, m->m.n_said[i]);
}

static const char *const item_names[] = {"task", "task begin", "block", "task end"}; /* by witem_kind */

/* The item's hook from *t0 (its fault point first), what it says final
 * kept in marks for a stretched clock; its real time into it->real_ns. */
static void exec_marked(struct drv *d, struct witem *it, struct item_marks *marks, bool stretch) {
  struct drv_worker *dw = d->state;
  if (it->kind == WITEM_RUN || it->kind == WITEM_BEGIN)
    fault_point(&dw->fault.plan, FAULT_BEFORE_TASK, it->wt->iter);
  *marks = (struct item_marks){.d = d, .stretch = stretch, .t0 = clock_now_ns()};
  tl_marks = marks;
  worker_exec(it);
  tl_marks = NULL;
  it->real_ns = clock_now_ns() - marks->t0;
}

/* On a compute thread: run the item, then stretch it to the modelled time
 * (what it said final along the way is published on that clock). */
static void run_item(void *arg, struct witem *it, uint32_t thread) {
  struct drv *d = arg;
  struct drv_worker *dw = d->state;
  uint32_t iter = it->wt->iter;
  struct emulate *e = &dw->emu[thread < dw->n_emu ? thread : 0];
  double slowdown = scenario_slowdown(&dw->sc, worker_index(dw->w), iter);
  struct item_marks marks;
  exec_marked(d, it, &marks, it->kind != WITEM_BEGIN && emulate_stretches(e, slowdown));
  uint64_t t0 = marks.t0, real = it->real_ns, over0 = e->overrun_ns;
  struct emulate_marks em = {.start_ns = t0, .real_at = marks.m.at, .n = marks.m.n, .at = mark_reached, .arg = &marks};
  it->modelled_ns = it->kind == WITEM_BEGIN ? real /* not timed: it may build per-task data once */
                                            : emulate_work_marked(e, it->slot, real, it->cost, slowdown, &em);
  it->overrun_ns = e->overrun_ns - over0;
  trace_span(d->env.trace, item_names[it->kind], "compute", t0, clock_now_ns(), iter, "task", it->wt->task);
}

/* On this thread: run the item's hook now and hold it until its modelled
 * end (hold.h; take_held() gives it back then), what it says final on the
 * way released on the same stretched clock. Never a WITEM_BEGIN (not timed). */
static int run_held(struct drv *d, struct witem *it) {
  struct drv_worker *dw = d->state;
  double slowdown = scenario_slowdown(&dw->sc, worker_index(dw->w), it->wt->iter);
  struct item_marks marks;
  exec_marked(d, it, &marks, true);
  uint64_t over0 = dw->held_emu.overrun_ns;
  it->modelled_ns = emulate_model(&dw->held_emu, it->slot, it->real_ns, it->cost, slowdown);
  it->overrun_ns = dw->held_emu.overrun_ns - over0;
  if (!hold_add(dw->hold, it, marks.t0, it->real_ns, it->modelled_ns, &marks.m))
    return DSANA_ESTATE;
  cpu_busy_add(1); /* as a pool thread's item is, until it ends (no polling meanwhile, cpu_busy.h) */
  return 0;
}

/* The cluster map came: the scenario, the link, the servers, the threads. */
static int on_map(struct drv *d, const struct net_msg *m) {
  struct drv_worker *dw = d->state;
  struct msg_cluster_map *map = calloc(1, sizeof *map);
  char err[512] = "";
  int rc = map ? 0 : DSANA_ENOMEM;
  if (!rc && msg_map_decode(m->payload, m->hdr.payload_bytes, map) != 0) {
    free(map);
    return 0; /* the state machine says so */
  }
  uint32_t index = rc ? 0 : map->your_index;
  if (!rc)
    drv_name_role(d, index);
  if (!rc && map->scenario_path[0] && (rc = scenario_load(map->scenario_path, &dw->sc, err, sizeof err)) == 0)
    rc = scenario_fit_workers(&dw->sc, map->n_workers, err, sizeof err); /* made as the scheduler made them */
  else if (!rc)
    rc = scenario_default(map->n_workers, &dw->sc);
  dw->have_sc = rc == 0;
  if (rc && err[0])
    log_error("%s", err);
  if (!rc)
    rc = drv_open_outbox(d, index < dw->sc.n_workers ? &dw->sc.link[index] : &dw->sc.global_link);
  if (!rc)
    drv_share(d);
  if (!rc)
    rc = trace_open_role(map->trace_path, "worker", 3, index, &d->env.trace);
  if (!rc)
    dw->fault.plan = fault_plan_for(&d->cfg.fault, false, index);
  if (!rc) /* the app's setup may take long: heartbeats go on meanwhile */
    rc = drv_keepalive_start(d, index, map->heartbeat_s);
  free(map);
  return rc;
}

/* After the state machine joined: dial the servers, start the threads. */
static int after_join(struct drv *d) {
  struct drv_worker *dw = d->state;
  const struct msg_cluster_map *map = worker_map(dw->w);
  uint32_t index = worker_index(dw->w);
  dw->n_servers = map->n_servers;
  dw->servers = calloc(dw->n_servers, sizeof *dw->servers);
  if (!dw->servers)
    return DSANA_ENOMEM;
  for (uint32_t s = 0; s < dw->n_servers; s++)
    if (net_dial(d->ctx, map->server_addr[s], rt_dial_id(ROLE_WORKER, index, (uint32_t)getpid()), &dw->servers[s]) !=
        0) {
      log_error("cannot connect to server %u at %s", s, map->server_addr[s]);
      return DSANA_ENET;
    }
  /* tasks run on compute threads, so this thread stays free for messages
   * and heartbeats however long a task takes; --threads unset: every core
   * (the launchers set a share when workers share a machine) */
  uint32_t threads = d->manual ? 0 : worker_threads(dw->w);
  dw->n_emu = 0;
  if ((dw->emu = calloc(threads ? threads : 1, sizeof *dw->emu)) == NULL)
    return DSANA_ENOMEM;
  dw->n_emu = threads ? threads : 1;
  for (uint32_t i = 0; i < dw->n_emu; i++)
    if (emulate_init(&dw->emu[i], worker_slots(dw->w), dw->sc.ns_per_cost) != 0)
      return DSANA_ENOMEM;
  if (emulate_init(&dw->held_emu, worker_slots(dw->w), dw->sc.ns_per_cost) != 0 ||
      (threads && hold_create(threads, &dw->hold) != 0))
    return DSANA_ENOMEM;
  worker_set_one_block_items(dw->w, dw->sc.ns_per_cost == 0);
  /* every role in this process (--isolate threads): its workers' compute
   * threads are the machine's, numbered worker by worker over the cores;
   * with several workers, worker w's own thread keeps to the w-th core, or
   * the kernel queues the workers the scheduler wakes at once on its own
   * core, one after another (tasks of a small graph never overlapped) */
  int64_t first_cpu = d->params.shared_process ? (int64_t)index * threads : -1;
  if (first_cpu >= 0 && map->n_workers > 1 && affinity_bind_nth(index) != 0)
    log_debug("cannot bind worker %u to a CPU", index);
  return pool_create(threads, first_cpu, index, config_heap_pad(map->n_workers), run_item, d, &dw->pool);
}

static int fail(struct drv *d, int rc) {
  struct drv_worker *dw = d->state;
  if (!dw->pool) /* failed before it joined: tell the scheduler why (later, a loss is the scheduler's call) */
    drv_report_failure(d, rc);
  d->done = true;
  d->err = rc;
  return rc;
}

/* A message from the scheduler. */
static int from_scheduler(struct drv *d, const struct net_msg *m) {
  struct drv_worker *dw = d->state;
  bool joined = worker_map(dw->w) != NULL;
  int rc = m->hdr.type == WIRE_CLUSTER_MAP && !joined ? on_map(d, m) : 0;
  struct rt_from from = {.role = ROLE_SCHEDULER, .index = 0};
  if (!rc)
    rc = worker_on_msg(dw->w, &from, m, &d->out);
  if (!rc && !joined && worker_map(dw->w))
    rc = after_join(d);
  drv_keepalive_stop(d); /* joined (or failed): this thread sends again */
  return rc ? rc : drv_flush(d, false);
}

/* Replies from server s (at most 64 at a time: the others get their turn). */
static int from_server(struct drv *d, uint32_t s) {
  struct drv_worker *dw = d->state;
  struct rt_from from = {.role = ROLE_SERVER, .index = s};
  int rc = 0;
  for (int n = 0; !rc && n < 64; n++) {
    struct net_msg m;
    if ((rc = net_recv(dw->servers[s], &m, 0)) == DSANA_EAGAIN)
      return 0;
    if (!rc)
      rc = worker_on_msg(dw->w, &from, &m, &d->out);
    net_msg_fini(&m);
    if (!rc)
      rc = drv_flush(d, false);
  }
  return rc;
}

/* The weight of each finished item in the estimates below: every item
 * counts (unlike the scheduler's estimate, smoothed per iteration), the
 * last few most. */
#define DRV_ITEM_EWMA_ALPHA 0.2

/* What a finished item says of this worker's speed: its modelled time
 * (the real time without a scenario) per unit of a whole task's cost
 * hint, and the time items of its kind take. */
static void observe(struct drv *d, const struct witem *it) {
  struct drv_worker *dw = d->state;
  double t = (double)it->modelled_ns, real = (double)it->real_ns;
  dw->item_ns[it->kind] = ewma_update(dw->item_ns[it->kind], t, DRV_ITEM_EWMA_ALPHA);
  dw->item_real_ns[it->kind] = ewma_update(dw->item_real_ns[it->kind], real, DRV_ITEM_EWMA_ALPHA);
  if (it->kind != WITEM_RUN || !(it->cost > 0) || !it->modelled_ns)
    return;
  dw->ns_per_cost = ewma_update(dw->ns_per_cost, t / it->cost, DRV_ITEM_EWMA_ALPHA);
  dw->real_ns_per_cost = ewma_update(dw->real_ns_per_cost, real / it->cost, DRV_ITEM_EWMA_ALPHA);
}

/* Items this short run on the control thread while no compute thread is
 * busy, up to this much (modelled) time per step: a hand-off to the pool
 * and back costs two cross-CPU wake-ups (~0.1 ms each here), more than
 * the item, and a block-wise task is three items or more. Heartbeats and
 * the emulated link wait at most this long for the control thread. Whole
 * tasks are judged by their cost hint, block-wise items (begin, blocks,
 * end) by the time items of their kind took so far. */
#define INLINE_MAX_NS 100000.0

static uint32_t held(const struct drv_worker *dw) { return dw->hold ? hold_count(dw->hold) : 0; }

/* What an item should take by the items before: a whole task by its cost
 * hint, another by its kind (per_cost, by_kind: modelled or real times). */
static double estimate(const struct witem *it, double per_cost, const double *by_kind) {
  return it->kind == WITEM_RUN && per_cost > 0 ? it->cost * per_cost : by_kind[it->kind];
}

static bool run_here(const struct drv *d, const struct witem *it, double spent_ns) {
  const struct drv_worker *dw = d->state;
  if (d->manual || pool_in_flight(dw->pool) != 0 || held(dw) != 0)
    return false;
  double est = estimate(it, dw->ns_per_cost, dw->item_ns);
  return est > 0 && spent_ns + est < INLINE_MAX_NS;
}

/* Items that the emulated node's model stretches and whose real run is as
 * short (by the items before) run on this thread and are held until their
 * modelled end (hold.h), up to the same real time per step, while one of
 * the node's threads is free: the hand-off to the pool and back, and the
 * sleep there, cost more than such an item's real run. */
static bool hold_here(const struct drv *d, const struct witem *it, double spent_real_ns) {
  const struct drv_worker *dw = d->state;
  if (!dw->hold || it->kind == WITEM_BEGIN)
    return false;
  if (!emulate_stretches(&dw->held_emu, scenario_slowdown(&dw->sc, worker_index(dw->w), it->wt->iter)))
    return false;
  double est = estimate(it, dw->real_ns_per_cost, dw->item_real_ns);
  return est > 0 && spent_real_ns + est < INLINE_MAX_NS;
}

/* What the item's end queued leaves before the next item runs: a finished
 * task's small ASSIGN pushes borrow its buffer (worker_push.c), which the
 * next instance of the same task (running ahead) may reuse from its first
 * item. */
static int run_inline(struct drv *d, struct witem *it) {
  struct drv_worker *dw = d->state;
  run_item(d, it, 0);
  observe(d, it);
  dw->ran_inline = true;
  int rc = drv_flush(d, false);
  if (!rc)
    rc = worker_work_done(dw->w, it, &d->out);
  return rc ? rc : drv_flush(d, false);
}

#define DISPATCH_BATCH 16

/* Whether a thread of the node (the pool's, or the hold's) is free for
 * an item, n more queued for the pool. */
static bool thread_free(const struct drv *d, uint32_t n) {
  const struct drv_worker *dw = d->state;
  return d->manual || pool_in_flight(dw->pool) + held(dw) + n < pool_threads(dw->pool);
}

/* Whether the worker may hand out another item, n more queued: one per
 * thread, and one that waits for a busy thread, as a pool thread's next
 * item does (taking it is what lets the worker ask for more in time):
 * queued in the pool, or in `waiting` when held items keep pool threads
 * idle (they would run it at once). */
static bool has_room(const struct drv *d, uint32_t n) {
  const struct drv_worker *dw = d->state;
  return d->manual || pool_in_flight(dw->pool) + held(dw) + dw->has_waiting + n < pool_threads(dw->pool) + 1;
}

/* The waiting item starts once a thread is free. */
static int start_waiting(struct drv *d) {
  struct drv_worker *dw = d->state;
  if (!dw->has_waiting || !thread_free(d, 0))
    return 0;
  dw->has_waiting = false;
  return hold_here(d, &dw->waiting, 0) ? run_held(d, &dw->waiting) : pool_submit(dw->pool, &dw->waiting, 1);
}

/* Hand the pool what can run now (short tasks run here, run_here()), in
 * batches that wake the compute threads only once all are queued. */
static int dispatch(struct drv *d) {
  struct drv_worker *dw = d->state;
  struct witem it, batch[DISPATCH_BATCH];
  uint32_t n = 0;
  int rc = 0;
  double spent_ns = 0, spent_real_ns = 0; /* inline and held, in this step */
  rc = start_waiting(d);
  for (uint32_t here = 0; !rc && has_room(d, n) && here < 16;) {
    if ((rc = worker_next_work(dw->w, &it, &d->out)) != 0)
      break;
    bool hold = hold_here(d, &it, spent_real_ns);
    if (run_here(d, &it, spent_ns)) {
      rc = run_inline(d, &it);
      spent_ns += (double)it.modelled_ns;
      here++;
    } else if (hold && n == 0 && thread_free(d, 0)) {
      rc = run_held(d, &it);
      spent_real_ns += (double)it.real_ns;
      here++;
    } else if (!thread_free(d, n) && (hold || held(dw))) {
      dw->waiting = it;
      dw->has_waiting = true;
    } else {
      batch[n++] = it;
      if (n == DISPATCH_BATCH) {
        rc = pool_submit(dw->pool, batch, n);
        n = 0;
      }
    }
  }
  if (n) {
    int rs = pool_submit(dw->pool, batch, n);
    if (!rc || rc == DSANA_EAGAIN)
      rc = rs;
  }
  rc = rc == DSANA_EAGAIN ? 0 : rc;
  return rc ? rc : drv_flush(d, false);
}

/* A held item's mark came: this thread publishes it (no wake-up). */
static void publish_held(void *arg, _Atomic uint64_t *ready, uint64_t n) {
  (void)arg;
  atomic_store_explicit(ready, n, memory_order_release);
}

/* Held items whose modelled end came, as the pool's finished ones; then
 * the next items start at once, as a pool thread would go on to the one
 * queued for it (their virtual threads' clocks run on from these ends,
 * hold.h, not from whenever this thread next gets round to them). */
static int take_held(struct drv *d, uint64_t now) {
  struct drv_worker *dw = d->state;
  struct witem it;
  uint64_t t0;
  int rc = 0;
  bool ended = false;
  while (!rc && dw->hold && hold_take(dw->hold, now, &it, &t0)) {
    cpu_busy_add(-1);
    ended = true;
    trace_span(d->env.trace, item_names[it.kind], "compute,held", t0, now, it.wt->iter, "task", it.wt->task);
    observe(d, &it);
    if ((rc = worker_work_done(dw->w, &it, &d->out)) == 0)
      rc = drv_flush(d, false);
  }
  return rc || !ended ? rc : dispatch(d);
}

/* Finished items, and what running ones said is final (sent first: it
 * was final first). */
static int take_done(struct drv *d) {
  struct drv_worker *dw = d->state;
  struct witem it;
  uint64_t now = clock_now_ns();
  if (dw->hold)
    hold_marks_due(dw->hold, now, publish_held, d);
  int rc = worker_push_progress(dw->w, &d->out);
  if (!rc)
    rc = drv_flush(d, false);
  while (!rc && dw->pool && pool_take(dw->pool, &it)) {
    observe(d, &it);
    if ((rc = worker_work_done(dw->w, &it, &d->out)) == 0)
      rc = drv_flush(d, false);
  }
  return rc ? rc : take_held(d, now);
}

/* Wait for a message, a finished item or the link's next departure. */
static int wait_input(struct drv *d, int timeout_ms, bool *sched_ready, bool *srv_ready) {
  struct drv_worker *dw = d->state;
  struct net_sock *socks[1 + MSG_MAX_SERVERS];
  uint32_t map[1 + MSG_MAX_SERVERS];
  int n = 0;
  socks[n++] = d->sched;
  for (uint32_t s = 0; dw->servers && s < dw->n_servers; s++) {
    map[n] = s;
    socks[n++] = dw->servers[s];
  }
  bool ready[1 + MSG_MAX_SERVERS], fd_ready = false;
  int fd = dw->pool ? pool_fd(dw->pool) : -1;
  uint64_t due = net_outbox_due_ns(d->outbox), held_due = dw->hold ? hold_due_ns(dw->hold) : 0;
  if (held_due && (!due || held_due < due))
    due = held_due;
  int rc = net_poll(socks, n, &fd, fd >= 0, timeout_ms, due, ready, &fd_ready);
  *sched_ready = rc > 0 && ready[0];
  for (int i = 1; i < n; i++)
    srv_ready[map[i]] = rc > 0 && ready[i];
  return rc < 0 ? rc : 0;
}

static int drv_worker_step(struct drv *d, int timeout_ms) {
  struct drv_worker *dw = d->state;
  bool sched_ready = false, srv_ready[MSG_MAX_SERVERS] = {false};
  int idle_ms = (int)(d->cfg.heartbeat_s * 1000);
  int rc = 0;
  dw->ran_inline = false;
  /* items whose next input came with the last step's messages come back
   * without waking this thread (pool.h): take them before handing out */
  if (dw->pool && ((rc = take_done(d)) != 0 || (rc = dispatch(d)) != 0))
    return fail(d, rc);
  int wait = dw->ran_inline ? 0 : timeout_ms < 0 || timeout_ms > idle_ms ? idle_ms : timeout_ms;
  if ((rc = wait_input(d, wait, &sched_ready, srv_ready)) != 0 || (rc = take_done(d)) != 0)
    return fail(d, rc);
  for (int n = 0; sched_ready && n < 64 && !rc; n++) {
    struct net_msg m;
    if ((rc = net_recv(d->sched, &m, 0)) == DSANA_EAGAIN) {
      rc = 0;
      break;
    }
    if (!rc)
      rc = from_scheduler(d, &m);
    net_msg_fini(&m);
  }
  for (uint32_t s = 0; !rc && dw->servers && s < dw->n_servers; s++)
    rc = srv_ready[s] ? from_server(d, s) : 0;
  if (!rc && (rc = net_outbox_pump(d->outbox, clock_now_ns(), NULL)) == 0)
    rc = worker_on_tick(dw->w, clock_now_ns(), &d->out);
  if (!rc)
    rc = drv_flush(d, false);
  if (rc)
    return fail(d, rc);
  if (worker_stopped(dw->w)) {
    d->done = true;
    return net_outbox_flush(d->outbox);
  }
  return 0;
}

static struct net_sock *drv_worker_server_sock(struct drv *d, uint32_t index) {
  struct drv_worker *dw = d->state;
  return dw->servers && index < dw->n_servers ? dw->servers[index] : NULL;
}

static void drv_worker_before_send(struct drv *d, size_t i) {
  struct drv_worker *dw = d->state;
  drv_push_faults_before(&dw->fault, &d->out, i);
}

static void drv_worker_after_send(struct drv *d, size_t i) {
  const struct drv_worker *dw = d->state;
  drv_push_faults_after(&dw->fault, &d->out, i);
}

static struct pool *drv_worker_pool(struct drv *d) { return ((struct drv_worker *)d->state)->pool; }

/* Its index once it joined. */
static uint32_t drv_worker_index(const struct drv *d) {
  const struct drv_worker *dw = d->state;
  return dw->w && worker_map(dw->w) ? worker_index(dw->w) : UINT32_MAX;
}

const struct drv_role_ops drv_worker_ops = {
    .open = drv_worker_open,
    .step = drv_worker_step,
    .close = drv_worker_close,
    .server_sock = drv_worker_server_sock,
    .before_send = drv_worker_before_send,
    .after_send = drv_worker_after_send,
    .pool = drv_worker_pool,
    .worker_index = drv_worker_index,
};
