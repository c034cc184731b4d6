/*
 * server.c - the server role's state machine (server.h): registration,
 * the cluster map and the app's setup, initial values (or a checkpoint's),
 * the scheduler's commits (then update()), checkpoints, liveness and the
 * final result. Pushes are in server_push.c, pulls in server_pull.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/record/checkpoint.h"
#include "runtime/core/fault.h"
#include "runtime/role/role_join.h"
#include "runtime/server/server_state.h"
#include "runtime/record/trace.h"
#include "util/memory/bigmem.h"
#include "util/text/log.h"

int server_create(const struct role_params *p, const struct rt_env *env, const char *addr, struct server **out) {
  struct server *sv = calloc(1, sizeof *sv);
  if (!sv)
    return DSANA_ENOMEM;
  sv->env = env;
  sv->params = *p;
  sv->cfg = *p->cfg;
  sv->params.cfg = &sv->cfg;
  sv->index = p->index;
  snprintf(sv->addr, sizeof sv->addr, "%s", addr);
  sv->watch.last_heard_ns = sv->last_sent_ns = rt_now(env);
  sv->version = -1;
  *out = sv;
  return 0;
}

void server_destroy(struct server *sv) {
  if (!sv)
    return;
  spush_free(sv);
  spull_free(sv);
  szc_free(sv);
  if (sv->map)
    shard_free(sv);
  job_fini(&sv->job);
  if (sv->own_app && sv->app)
    sv->app->destroy(sv->app_state);
  free(sv->map);
  free(sv);
}

int server_start(struct server *sv, struct rt_outq *out) {
  struct msg_register reg = {.role = ROLE_SERVER, .index = sv->index, .pid = (uint32_t)getpid()};
  snprintf(reg.addr, sizeof reg.addr, "%s", sv->addr);
  return role_register(&reg, out);
}

bool server_stopped(const struct server *sv) { return sv->stopped; }

static struct ckpt_shard ckpt_desc(const struct server *sv, uint32_t iter) {
  struct ckpt_shard sh = {.iter = iter, .n_servers = sv->map->n_servers, .server = sv->index};
  sh.shape.n_tables = sv->job.n_tables;
  for (uint32_t t = 0; t < sv->job.n_tables; t++) {
    sh.shape.n_keys[t] = sv->job.tables[t].n_keys;
    sh.shape.width[t] = sv->job.tables[t].width;
  }
  return sh;
}

/* Initial values: init() into next, then every segment final (report 0).
 * A table whose pushes sum starts as the sum of none (0, dsana.h): init()
 * is not asked for it. */
static int init_values(struct server *sv, struct rt_outq *out) {
  int rc = spush_begin(sv, out);
  for (uint32_t t = 0; !rc && t < sv->job.n_tables; t++)
    if (sv->app->init && sv->t[t].hi > sv->t[t].lo && !stable_sums(&sv->t[t]))
      rc = sv->app->init(sv->app_state, t, sv->t[t].lo, sv->t[t].hi, shard_by_key(sv, t, shard_next(sv, t)));
  return rc ? rc : spush_all_final(sv, out);
}

/* --resume: the shard as of the checkpoint's iteration, as cur: version
 * v in buffer (v + 1) & 1, as a run from the start has it (init() writes
 * version 0 into buffer 1, each commit flips), which local workers reading
 * in place count on (mirror.h). */
static int resume(struct server *sv, struct rt_outq *out) {
  char err[1200];
  struct ckpt_shard sh = ckpt_desc(sv, sv->map->resume_iter);
  double *cur[DSANA_MAX_TABLES];
  for (uint32_t t = 0; t < sv->job.n_tables; t++) {
    sv->t[t].cur = (sv->map->resume_iter + 1) & 1u;
    cur[t] = sv->t[t].buf[sv->t[t].cur];
  }
  if (ckpt_read_shard(sv->map->resume_dir, &sh, cur, err, sizeof err) != 0) {
    log_error("cannot resume: %s", err);
    return DSANA_EFORMAT;
  }
  sv->version = sv->map->resume_iter;
  return spush_begin(sv, out);
}

static int join(struct server *sv, struct rt_outq *out) {
  sv->index = sv->map->your_index;
  int rc = role_join(&sv->params, sv->map, "server", &sv->app, &sv->app_state, &sv->own_app, &sv->job);
  if (rc)
    return rc;
  sv->values_per_msg = config_values_per_msg(sv->map->max_payload);
  sv->fetch_ahead = !sv->app->update; /* final chunks of next are final values */
  if ((rc = shard_alloc(sv)) != 0)
    return rc;
  sv->fault = fault_plan_for(&sv->cfg.fault, true, sv->index);
  rc = sv->map->resume_iter ? resume(sv, out) : init_values(sv, out);
  if (!rc) /* loaded: the first iterations' buffers fault now */
    heap_prefault(config_heap_pad(sv->map->n_servers));
  return rc;
}

static int on_map(struct server *sv, const struct net_msg *m, struct rt_outq *out) {
  if (sv->map) {
    log_warn("ignored a second cluster map");
    return 0;
  }
  int rc = role_take_map(m, &sv->map);
  return rc ? rc : join(sv, out);
}

/* update() over the committed version of each key space, piece by piece
 * (run_config.hook_piece_keys). */
static int run_update(struct server *sv, uint32_t iter, const double *globals) {
  uint64_t piece = sv->cfg.hook_piece_keys ? sv->cfg.hook_piece_keys : UINT64_MAX;
  for (uint32_t s = 0; sv->app->update && s < sv->job.n_spaces; s++) {
    const struct sspace *sp = &sv->sp[s];
    struct dsana_shard_ctx ctx = {.iter = iter, .n_keys = sp->n_keys, .globals = globals};
    for (uint32_t t = 0; t < sv->job.n_tables; t++)
      if (sv->job.tables[t].space == s) {
        ctx.new_values[t] = shard_by_key(sv, t, sv->t[t].cur);
        ctx.old_values[t] = shard_by_key(sv, t, sv->t[t].cur ^ 1u);
      }
    for (ctx.lo = sp->lo; ctx.lo < sp->hi; ctx.lo = ctx.hi) {
      ctx.hi = sp->hi - ctx.lo > piece ? ctx.lo + piece : sp->hi;
      int rc = sv->app->update(sv->app_state, &ctx);
      if (rc) {
        log_error("the app's update hook failed in iteration %u: %s", iter, dsana_strerror(rc));
        return rc;
      }
      server_keepalive(sv);
    }
  }
  return 0;
}

/* After committing iter: write the shard when a checkpoint is due. A
 * failed write is reported (once) and the job goes on, incomplete (the
 * previous complete checkpoint stays valid). */
static int checkpoint(struct server *sv, uint32_t iter, struct rt_outq *out) {
  const struct msg_cluster_map *map = sv->map;
  if (!map->checkpoint_dir[0] || !map->checkpoint_every || iter == 0 || iter % map->checkpoint_every)
    return 0;
  char err[1200];
  struct ckpt_shard sh = ckpt_desc(sv, iter);
  double *cur[DSANA_MAX_TABLES];
  for (uint32_t t = 0; t < sv->job.n_tables; t++)
    cur[t] = sv->t[t].buf[sv->t[t].cur];
  if (ckpt_write_shard(map->checkpoint_dir, &sh, cur, err, sizeof err) != 0) {
    ckpt_report_failure(err);
    return 0;
  }
  struct wire_hdr h = wire_hdr_make(WIRE_CKPT_DONE, sv->index);
  h.iter = iter;
  return rt_send(out, ROLE_SCHEDULER, 0, &h, NULL, 0);
}

static int commit(struct server *sv, const struct net_msg *m, struct rt_outq *out) {
  uint32_t iter = m->hdr.iter;
  if ((int64_t)iter != sv->version + 1 || !sv->completed || m->hdr.payload_bytes != MSG_GLOBALS_BYTES) {
    log_error("the scheduler committed iteration %u but this shard is at %lld%s", iter, (long long)sv->version,
              sv->completed ? "" : " (incomplete)");
    return DSANA_EPROTO;
  }
  szc_commit(sv);
  for (uint32_t t = 0; t < sv->job.n_tables; t++)
    sv->t[t].cur ^= 1u;
  sv->version = iter;
  usage_iter_start(sv->env, &sv->usage, iter + 1);
  spull_commit(sv);
  double globals[DSANA_MAX_GLOBALS];
  msg_globals_decode(m->payload, globals);
  int rc = run_update(sv, iter, globals);
  fault_point(&sv->fault, FAULT_COMMIT, iter);
  if (!rc)
    rc = checkpoint(sv, iter, out);
  if (!rc)
    rc = spush_begin(sv, out);
  return rc ? rc : spush_apply_deferred(sv, out);
}

/* STOP: the result table's shard to the scheduler, then BYE. */
static int send_final(struct server *sv, struct rt_outq *out) {
  uint32_t t = sv->job.result_table;
  const struct stable *st = &sv->t[t];
  /* what is still queued answers pulls of an iteration that will not run
   * (workers fetching ahead), and those workers may be gone already */
  spull_drop_all(sv);
  const double *src = sv->t[t].buf[st->cur];
  uint64_t max = sv->values_per_msg / st->width ? sv->values_per_msg / st->width : 1;
  for (uint64_t at = st->lo; at < st->hi;) {
    uint64_t end = st->hi - at > max ? at + max : st->hi;
    struct wire_hdr h = wire_hdr_make(WIRE_FINAL_DATA, sv->index);
    h.table = t;
    h.iter = (uint32_t)sv->version;
    h.key_lo = at;
    h.key_hi = end;
    h.count = (uint32_t)(end - at);
    int rc = rt_send(out, ROLE_SCHEDULER, 0, &h, src + (at - st->lo) * st->width, (end - at) * st->width * 8);
    if (rc)
      return rc;
    at = end;
  }
  sv->stopped = true;
  return usage_send_bye(sv->env, &sv->usage, sv->index, (uint32_t)sv->version, sv->stale_msgs, out);
}

static int on_scheduler(struct server *sv, const struct net_msg *m, struct rt_outq *out) {
  switch (m->hdr.type) {
  case WIRE_CLUSTER_MAP:
    return on_map(sv, m, out);
  case WIRE_ITER_END:
    return sv->map ? commit(sv, m, out) : 0;
  case WIRE_STOP:
    return sv->map ? send_final(sv, out) : 0;
  case WIRE_ABORT:
    return rt_scheduler_abort(&m->hdr, m->payload, sv->params.shared_process || sv->params.local_stderr);
  case WIRE_HEARTBEAT:
    return 0;
  default:
    log_warn("ignored %s from the scheduler", wire_type_name(m->hdr.type));
    return 0;
  }
}

int server_on_msg(struct server *sv, const struct rt_from *from, struct net_msg *m, struct rt_outq *out) {
  if (!from->via_listener) {
    sv->watch.last_heard_ns = rt_now(sv->env);
    sv->watch.heard = true;
    return on_scheduler(sv, m, out);
  }
  uint32_t id;
  struct rt_from w = *from;
  if (net_peer_id(&from->peer, &id) != 0 || id >> 24 != ROLE_WORKER || !sv->map ||
      rt_dial_index(id) >= sv->map->n_workers) {
    log_warn("ignored %s from a peer that is not a worker of this job", wire_type_name(m->hdr.type));
    return 0;
  }
  w.role = ROLE_WORKER;
  w.index = rt_dial_index(id);
  if (m->hdr.type == WIRE_PUSH)
    return spush_on_push(sv, &w, m, out);
  if (m->hdr.type == WIRE_PULL)
    return spull_on_pull(sv, &w, m);
  log_warn("ignored %s from worker %u", wire_type_name(m->hdr.type), w.index);
  return 0;
}

int server_on_tick(struct server *sv, uint64_t now_ns, struct rt_outq *out) {
  if (sv->stopped)
    return 0;
  if (!sv->map && now_ns - sv->last_sent_ns >= RT_REGISTER_RESEND_NS) { /* as worker_on_tick */
    sv->last_sent_ns = now_ns;
    int rc = server_start(sv, out);
    if (rc)
      return rc;
  }
  if (sv->map && now_ns - sv->last_sent_ns >= (uint64_t)(sv->map->heartbeat_s * 1e9)) {
    struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, sv->index);
    sv->last_sent_ns = now_ns;
    int rc = rt_send(out, ROLE_SCHEDULER, 0, &h, NULL, 0);
    if (rc)
      return rc;
  }
  return rt_watch_scheduler(&sv->watch, sv->cfg.scheduler_addr, sv->map, sv->cfg.register_timeout_s, now_ns);
}
