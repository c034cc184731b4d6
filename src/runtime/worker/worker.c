/*
 * worker.c - the worker role's state machine (worker.h): registration,
 * the cluster map and the app's setup, the scheduler's and servers'
 * messages, and liveness. The tasks it holds are in worker_tasks.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/role/role_join.h"
#include "runtime/record/trace.h"
#include "runtime/worker/worker.h"
#include "runtime/worker/worker_state.h"
#include "util/memory/bigmem.h"
#include "util/text/log.h"

int worker_create(const struct role_params *p, const struct rt_env *env, struct worker **out) {
  struct worker *w = calloc(1, sizeof *w);
  if (!w)
    return DSANA_ENOMEM;
  w->env = env;
  w->params = *p;
  w->cfg = *p->cfg;
  w->params.cfg = &w->cfg;
  w->index = p->index;
  w->watch.last_heard_ns = w->last_sent_ns = rt_now(env);
  *out = w;
  return 0;
}

void worker_destroy(struct worker *w) {
  if (!w)
    return;
  wtasks_free(w);
  wflush_fini(w);
  mirror_fini(&w->mirror);
  job_fini(&w->job);
  if (w->own_app && w->app)
    w->app->destroy(w->app_state);
  free(w->map);
  free(w);
}

int worker_start(struct worker *w, struct rt_outq *out) {
  struct msg_register reg = {
      .role = ROLE_WORKER, .index = w->index, .pid = (uint32_t)getpid(), .threads = worker_threads(w)};
  return role_register(&reg, out);
}

/* Tables read by key lists: the app lists keys for the first task reading them. */
static void find_sparse(struct worker *w) {
  struct job_range r;
  for (uint32_t t = 0; w->app->task_keys && t < w->job.n_tables; t++)
    for (uint32_t i = 0; i < w->job.n_tasks; i++)
      if (job_task_reads(&w->job, i, t, &r)) {
        const uint64_t *keys;
        uint64_t n;
        if (t != w->job.block_table && w->app->task_keys(w->app_state, i, t, &keys, &n) == 0) {
          w->sparse |= 1u << t;
          if (w->app->task_keys_done)
            w->app->task_keys_done(w->app_state, i, t);
        }
        break;
      }
}

/* The block table is the only table read: running ahead fetches nothing
 * else (a sparse table has one buffer, which the running iteration reads). */
static bool only_block_table_read(const struct worker *w) {
  for (uint32_t t = 0; t < w->job.n_tables; t++)
    if (t != w->job.block_table && w->mirror.t[t].used)
      return false;
  return true;
}

/* Set up from the cluster map: the app, the job, the mirror, the tasks. */
static int join(struct worker *w) {
  w->index = w->map->your_index;
  int rc = role_join(&w->params, w->map, "worker", &w->app, &w->app_state, &w->own_app, &w->job);
  if (rc)
    return rc;
  find_sparse(w);
  bool compress = w->map->flags & MAP_F_COMPRESS; /* values travel compressed, even locally */
  bool share = w->env->buffer_map != NULL && !compress;
  if ((rc = mirror_init(&w->mirror, &w->job, w->map->chunk_keys, w->sparse, w->map->n_servers, w->index, w->env,
                        share)) != 0 ||
      (compress && (rc = mirror_set_compress(&w->mirror, w->map->max_payload)) != 0))
    return rc;
  uint32_t b = w->job.block_table;
  /* block by block when the block table comes in several chunks (or the
   * app has block hooks only: then one block when it comes whole) */
  w->blocks = b != JOB_NONE && w->app->task_block && (w->mirror.t[b].n_chunks > 1 || !w->app->run_task);
  w->run_ahead = w->blocks && (w->map->flags & MAP_F_FETCH_AHEAD) && only_block_table_read(w);
  w->values_per_msg = config_values_per_msg(w->map->max_payload);
  return wtasks_alloc(w);
}

static int on_map(struct worker *w, const struct net_msg *m) {
  if (w->map) {
    log_warn("ignored a second cluster map");
    return 0;
  }
  int rc = role_take_map(m, &w->map);
  return rc ? rc : join(w);
}

/* count task ids (u32) at p: queue them. */
static int take_tasks(struct worker *w, const uint8_t *p, uint32_t count) {
  uint32_t *tasks = malloc((count ? count : 1) * sizeof *tasks);
  if (!tasks)
    return DSANA_ENOMEM;
  for (uint32_t i = 0; i < count; i++)
    tasks[i] = wire_get_u32(p + 4 * i);
  int rc = wtasks_receive(w, tasks, count);
  free(tasks);
  return rc;
}

/* The globals, the first tasks, and maybe the word to fetch ahead after them. */
static int on_iter_start(struct worker *w, const struct net_msg *m, struct rt_outq *out) {
  const struct wire_hdr *h = &m->hdr;
  if (h->payload_bytes != MSG_GLOBALS_BYTES + ((uint64_t)h->count * 4 + 7) / 8 * 8 || h->iter <= w->iter) {
    log_warn("dropped ITER_START for iteration %u (at %u)", h->iter, w->iter);
    return 0;
  }
  bool ran = w->n_ran > 0;
  uint64_t t0 = rt_now(w->env);
  w->iter = h->iter;
  usage_iter_start(w->env, &w->usage, w->iter);
  msg_globals_decode(m->payload, w->globals); /* provisional tasks read them from here too */
  w->handed_all = h->flags & WIRE_F_HANDED_ALL;
  int rc = wtasks_iter_start(w, ran, out);
  if (!rc)
    rc = take_tasks(w, (const uint8_t *)m->payload + MSG_GLOBALS_BYTES, h->count);
  trace_span(w->env->trace, "iteration start", "control", t0, rt_now(w->env), h->iter, "tasks", h->count);
  return rc || !(h->flags & WIRE_F_AHEAD) ? rc : wtasks_fetch_ahead(w, h->iter + 1, out);
}

static int on_tasks(struct worker *w, const struct net_msg *m) {
  const struct wire_hdr *h = &m->hdr;
  if (h->iter != w->iter || h->payload_bytes != (uint64_t)h->count * 4) {
    log_warn("dropped TASKS for iteration %u (at iteration %u)", h->iter, w->iter);
    return 0;
  }
  w->handed_all |= (h->flags & WIRE_F_HANDED_ALL) != 0;
  return take_tasks(w, m->payload, h->count);
}

/* READY for iteration iter: joined, and (when it was fetched ahead) its input in. */
static int send_ready(struct worker *w, uint32_t iter, struct rt_outq *out) {
  heap_prefault(config_heap_pad(w->map->n_workers)); /* loaded: the first iterations' buffers fault now */
  struct wire_hdr h = wire_hdr_make(WIRE_READY, w->index);
  h.iter = iter;
  return rt_send(out, ROLE_SCHEDULER, 0, &h, NULL, 0);
}

static int maybe_ready(struct worker *w, struct rt_outq *out) {
  uint32_t iter = w->ready_iter;
  if (!iter || !mirror_all_ready(&w->mirror, iter) || !wtasks_all_begun(w))
    return 0;
  w->ready_iter = 0;
  return send_ready(w, iter, out);
}

/* FETCH_AHEAD before the first ITER_START: the job starts. Its first
 * iteration's input is final (servers hold the initial values) unless the
 * app rewrites it at the commit (an update hook, no MAP_F_FETCH_AHEAD):
 * fetch it now, as part of loading, so that iteration 1 costs what any
 * other does; and begin the tasks of the plan it carries (count task ids),
 * as a worker running ahead begins the next iteration's. READY once the
 * input is in and the tasks begun (at once without fetching). */
static int first_input(struct worker *w, const struct net_msg *m, struct rt_outq *out) {
  const struct wire_hdr *h = &m->hdr;
  if (h->payload_bytes != (uint64_t)h->count * 4) {
    log_warn("dropped FETCH_AHEAD for iteration %u: %u tasks in %llu bytes", h->iter, h->count,
             (unsigned long long)h->payload_bytes);
    return 0;
  }
  if (!(w->map->flags & MAP_F_FETCH_AHEAD))
    return send_ready(w, h->iter, out);
  w->ready_iter = h->iter;
  int rc = mirror_prefetch_all(&w->mirror, h->iter, out);
  for (uint32_t i = 0; !rc && i < h->count && w->run_ahead; i++)
    rc = wtasks_begin_ahead(w, wire_get_u32((const uint8_t *)m->payload + 4 * i), h->iter);
  return rc ? rc : maybe_ready(w, out);
}

static int on_scheduler(struct worker *w, const struct net_msg *m, struct rt_outq *out) {
  const struct wire_hdr *h = &m->hdr;
  if (!w->map && h->type != WIRE_CLUSTER_MAP && h->type != WIRE_ABORT && h->type != WIRE_HEARTBEAT)
    return 0;
  bool hands_out = h->type == WIRE_TASKS || h->type == WIRE_ITER_START || h->type == WIRE_FETCH_AHEAD;
  if (hands_out && h->chunk > w->epoch)
    w->epoch = h->chunk;
  switch (h->type) {
  case WIRE_CLUSTER_MAP:
    return on_map(w, m);
  case WIRE_ITER_START:
    return on_iter_start(w, m, out);
  case WIRE_TASKS:
    return on_tasks(w, m);
  case WIRE_FETCH_AHEAD:
    return w->iter == 0 ? first_input(w, m, out) : wtasks_fetch_ahead(w, h->iter, out);
  case WIRE_STOP: {
    w->stopped = true;
    return usage_send_bye(w->env, &w->usage, w->index, h->iter, w->mirror.stale, out);
  }
  case WIRE_ABORT:
    return rt_scheduler_abort(h, m->payload, w->params.shared_process || w->params.local_stderr);
  case WIRE_HEARTBEAT:
    return 0;
  default:
    log_warn("ignored %s from the scheduler", wire_type_name(h->type));
    return 0;
  }
}

/* Ticks come at least every heartbeat: a tick, or a word from the
 * scheduler, that comes more than --peer-timeout after the one before means
 * this process was frozen (SIGSTOP, a suspended VM, starved of CPU), not
 * that the scheduler went silent. Its silence is
 * forgiven but for a short grace (4 heartbeats), and a heartbeat goes at
 * once: a live scheduler answers within one of its own heartbeats ("register
 * again" if it gave this worker up meanwhile); one that ended the job
 * while this worker slept does not, and the worker ends soon after. */
static void note_freeze(struct worker *w, uint64_t now_ns) {
  uint64_t gap = w->last_tick_ns ? now_ns - w->last_tick_ns : 0;
  w->last_tick_ns = now_ns;
  if (!w->map || gap <= (uint64_t)(w->map->peer_timeout_s * 1e9))
    return;
  log_warn("this worker was frozen for %.1f s (stopped, suspended or starved of CPU), longer than --peer-timeout: "
           "asking the scheduler whether it still counts on it",
           (double)gap * 1e-9);
  double grace = 4 * w->map->heartbeat_s < w->map->peer_timeout_s ? 4 * w->map->heartbeat_s : w->map->peer_timeout_s;
  w->watch.last_heard_ns = now_ns - (uint64_t)((w->map->peer_timeout_s - grace) * 1e9);
}

static int on_msg(struct worker *w, const struct rt_from *from, const struct net_msg *m, struct rt_outq *out) {
  if (from->role == ROLE_SCHEDULER) {
    uint64_t now_ns = rt_now(w->env);
    note_freeze(w, now_ns); /* its first word after a freeze may come before a tick */
    w->watch.last_heard_ns = now_ns;
    w->watch.heard = true;
    return on_scheduler(w, m, out);
  }
  if (!w->map || m->hdr.type != WIRE_PULL_REPLY) {
    log_warn("ignored %s from server %u", wire_type_name(m->hdr.type), from->index);
    return 0;
  }
  mirror_take(&w->mirror, from->index, m);
  int rc = mirror_kick(&w->mirror, out);
  return rc ? rc : maybe_ready(w, out);
}

int worker_on_msg(struct worker *w, const struct rt_from *from, const struct net_msg *m, struct rt_outq *out) {
  int rc = on_msg(w, from, m, out);
  if (w->slots) /* joined: what came may let running items go on (chunks, the iteration, its tasks) */
    wtasks_publish(w);
  return rc;
}

int worker_on_tick(struct worker *w, uint64_t now_ns, struct rt_outq *out) {
  if (w->stopped)
    return 0;
  /* A registration can be lost (sent to a scheduler that was closing to
   * roll back, then listening again): it is sent again until the map
   * comes; the scheduler knows a registered peer and ignores repeats. */
  if (!w->map && now_ns - w->last_sent_ns >= RT_REGISTER_RESEND_NS) {
    w->last_sent_ns = now_ns;
    int rc = worker_start(w, out);
    if (rc)
      return rc;
  }
  if (w->map && now_ns - w->last_sent_ns >= (uint64_t)(w->map->heartbeat_s * 1e9)) {
    struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, w->index);
    w->last_sent_ns = now_ns;
    int rc = rt_send(out, ROLE_SCHEDULER, 0, &h, NULL, 0);
    if (rc)
      return rc;
  }
  note_freeze(w, now_ns);
  return rt_watch_scheduler(&w->watch, w->cfg.scheduler_addr, w->map, w->cfg.register_timeout_s, now_ns);
}

int worker_next_work(struct worker *w, struct witem *it, struct rt_outq *out) {
  if (!w->map || w->stopped)
    return DSANA_EAGAIN;
  return wtasks_next(w, it, out);
}

int worker_work_done(struct worker *w, struct witem *it, struct rt_outq *out) {
  int rc = wtasks_done(w, it, out);
  return rc ? rc : maybe_ready(w, out);
}

int worker_push_progress(struct worker *w, struct rt_outq *out) { return w->map ? wpush_progress(w, out) : 0; }

bool worker_stopped(const struct worker *w) { return w->stopped; }
const struct msg_cluster_map *worker_map(const struct worker *w) { return w->map; }
uint32_t worker_index(const struct worker *w) { return w->index; }
void worker_set_one_block_items(struct worker *w, bool on) { w->one_block_items = on; }

uint64_t worker_slots(const struct worker *w) {
  uint64_t nc = w->blocks ? w->mirror.t[w->job.block_table].n_chunks : 1;
  return (uint64_t)w->job.n_tasks * (nc + 2);
}

uint32_t worker_threads(const struct worker *w) {
  uint32_t n = w->cfg.threads ? w->cfg.threads : config_auto_threads(1);
  return n > MSG_MAX_THREADS ? MSG_MAX_THREADS : n;
}
