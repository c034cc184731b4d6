/*
 * server.c - the server role: owns shard [lo, hi) of every table, applies
 * pushes, decides when a task's part and the whole shard of an iteration
 * are complete, commits on the scheduler's word and writes checkpoints.
 * Answering pulls lives in server_pull.c; the versions in server.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/checkpoint.h"
#include "runtime/fault.h"
#include "runtime/serve.h"
#include "runtime/server.h"
#include "runtime/shm.h"
#include "runtime/trace.h"
#include "util/clock.h"
#include "util/grow.h"
#include "util/log.h"

bool server_task_part(const struct server *sv, uint32_t task, uint64_t *lo, uint64_t *hi) {
  const struct dsana_task_decl *t = &sv->node.job.tasks[task];
  *lo = t->lo > sv->lo ? t->lo : sv->lo;
  *hi = t->hi < sv->hi ? t->hi : sv->hi;
  return *lo < *hi;
}

/* Pointer p such that p[key] is the shard slot of key (see file comment). */
static double *by_key(double *storage, uint64_t lo) { return storage - lo; }

static int server_alloc(struct server *sv) {
  struct dsana_job *job = &sv->node.job;
  uint64_t len = sv->hi - sv->lo;
  for (uint32_t t = 0; t < job->n_tables; t++) {
    if (sv->shm) {
      for (uint32_t b = 0; b < 2; b++) {
        char path[CONFIG_PATH_MAX + 64];
        shm_path(path, sizeof path, sv->node.cfg.ipc_dir, sv->node.index, t, b);
        if (shm_create(path, len * sizeof(double), &sv->buf[t][b]) != 0) {
          log_error("%s: cannot create a shared table buffer", path);
          return DSANA_EIO;
        }
      }
      sv->cur[t] = sv->buf[t][0];
      sv->next[t] = sv->buf[t][1];
      continue;
    }
    sv->cur[t] = calloc(len ? len : 1, sizeof(double));
    sv->next[t] = calloc(len ? len : 1, sizeof(double));
    if (!sv->cur[t] || !sv->next[t])
      return DSANA_ENOMEM;
  }
  /* Tasks partition the out table in order: find those touching the shard. */
  sv->task_lo = 0;
  while (sv->task_lo < job->n_tasks && job->tasks[sv->task_lo].hi <= sv->lo)
    sv->task_lo++;
  sv->task_hi = sv->task_lo;
  while (sv->task_hi < job->n_tasks && job->tasks[sv->task_hi].lo < sv->hi)
    sv->task_hi++;
  sv->task_keys = calloc(sv->task_hi - sv->task_lo + 1, sizeof(uint64_t));
  sv->task_sender = calloc(sv->task_hi - sv->task_lo + 1, sizeof(uint32_t));
  if (!sv->task_keys || !sv->task_sender)
    return DSANA_ENOMEM;
  return spull_alloc(sv);
}

static void server_free(struct server *sv) {
  for (uint32_t t = 0; t < DSANA_MAX_TABLES; t++) {
    if (sv->shm) {
      shm_unmap(sv->buf[t][0], (sv->hi - sv->lo) * sizeof(double));
      shm_unmap(sv->buf[t][1], (sv->hi - sv->lo) * sizeof(double));
      continue;
    }
    free(sv->cur[t]);
    free(sv->next[t]);
  }
  free(sv->task_keys);
  free(sv->task_sender);
  for (size_t i = 0; i < sv->n_deferred; i++)
    free(sv->deferred[i].payload);
  free(sv->deferred);
  spull_free(sv);
  if (sv->listen)
    net_close(sv->listen);
  node_close(&sv->node);
  free(sv);
}

static void server_begin_iter(struct server *sv) {
  sv->completed = false;
  memset(&sv->sums, 0, sizeof sv->sums);
  sv->tasks_left = sv->task_hi - sv->task_lo;
  memset(sv->task_keys, 0, sizeof(uint64_t) * (sv->task_hi - sv->task_lo + 1));
  memset(sv->task_sender, 0xff, sizeof(uint32_t) * (sv->task_hi - sv->task_lo + 1));
  spull_begin(sv);
  struct dsana_job *job = &sv->node.job;
  for (uint32_t t = 0; t < job->n_tables; t++)
    if (job->tables[t].rule == DSANA_RULE_SUM)
      memset(sv->next[t], 0, sizeof(double) * (sv->hi - sv->lo));
}

/* Run finish() on [lo, hi) of iteration iter; its sums join the shard's. */
static int server_finish_part(struct server *sv, uint32_t iter, uint64_t lo, uint64_t hi) {
  struct dsana_job *job = &sv->node.job;
  uint64_t t0 = clock_now_ns();
  struct dsana_shard_ctx ctx = {.iter = iter, .lo = lo, .hi = hi};
  for (uint32_t t = 0; t < job->n_tables; t++) {
    ctx.old_values[t] = by_key(sv->cur[t], sv->lo);
    ctx.new_values[t] = by_key(sv->next[t], sv->lo);
  }
  int rc = sv->node.app->finish(sv->node.app_state, &ctx);
  if (rc) {
    log_error("app finish hook failed in iteration %u: %s", iter, dsana_strerror(rc));
    return rc;
  }
  for (int k = 0; k < DSANA_MAX_SUMS; k++)
    dsana_xsum_merge(&sv->sums.sums[k], &ctx.sums[k]);
  trace_span("finish", "compute", t0, clock_now_ns(), iter, "keys", (double)(hi - lo));
  return 0;
}

/* The whole shard is complete for iteration iter: report to the scheduler. */
static int server_report(struct server *sv, uint32_t iter) {
  sv->completed = true;
  uint8_t buf[128];
  msg_report_encode(&sv->sums, buf);
  struct wire_hdr h = wire_hdr_make(WIRE_SHARD_REPORT, sv->node.index);
  h.iter = iter;
  h.payload_bytes = sizeof buf;
  return node_send(&sv->node, &h, buf, sizeof buf);
}

static int server_init_values(struct server *sv) {
  struct dsana_job *job = &sv->node.job;
  sv->version = -1;
  server_begin_iter(sv);
  for (uint32_t t = 0; t < job->n_tables; t++) {
    int rc = sv->node.app->init(sv->node.app_state, t, sv->lo, sv->hi, by_key(sv->next[t], sv->lo));
    if (rc)
      return rc;
  }
  int rc = server_finish_part(sv, 0, sv->lo, sv->hi);
  spull_all_final(sv);
  return rc ? rc : server_report(sv, 0);
}

static struct ckpt_shard server_ckpt_desc(const struct server *sv, uint32_t iter) {
  return (struct ckpt_shard){.iter = iter, .n_servers = sv->node.cfg.n_servers, .server = sv->node.index,
                             .n_tables = sv->node.job.n_tables, .n_keys = sv->node.job.tables[0].n_keys,
                             .lo = sv->lo, .hi = sv->hi};
}

/* After committing iter: write the shard when a checkpoint is due and tell
 * the scheduler. A failed write is reported and the job goes on (the
 * previous complete checkpoint stays valid). */
static int server_checkpoint(struct server *sv, uint32_t iter) {
  const struct msg_cluster_map *map = sv->node.map;
  if (!map->checkpoint_dir[0] || !map->checkpoint_every || iter == 0 || iter % map->checkpoint_every)
    return 0;
  char err[1200];
  struct ckpt_shard sh = server_ckpt_desc(sv, iter);
  if (ckpt_write_shard(map->checkpoint_dir, &sh, sv->cur, err, sizeof err) != 0) {
    log_error("%s", err);
    return 0;
  }
  struct wire_hdr h = wire_hdr_make(WIRE_CKPT_DONE, sv->node.index);
  h.iter = iter;
  return node_send(&sv->node, &h, NULL, 0);
}

/* --resume: the shard as of the checkpoint's iteration, instead of init. */
static int server_resume(struct server *sv) {
  const struct msg_cluster_map *map = sv->node.map;
  char err[1200];
  struct ckpt_shard sh = server_ckpt_desc(sv, map->resume_iter);
  if (ckpt_read_shard(map->resume_dir, &sh, sv->cur, err, sizeof err) != 0) {
    log_error("cannot resume: %s", err);
    return DSANA_EFORMAT;
  }
  sv->version = map->resume_iter;
  server_begin_iter(sv);
  return 0;
}

static void server_commit(struct server *sv, uint32_t iter) {
  for (uint32_t t = 0; t < sv->node.job.n_tables; t++) {
    double *tmp = sv->cur[t];
    sv->cur[t] = sv->next[t];
    sv->next[t] = tmp;
    sv->cur_buf[t] ^= 1;
  }
  sv->version = iter;
  spull_commit(sv);
  server_begin_iter(sv);
}

/* A push of the iteration after the one this shard just completed can
 * overtake the scheduler's commit (the worker fetched its input ahead):
 * keep a copy and apply it after the commit. */
static int server_defer_push(struct server *sv, const struct wire_hdr *h, const void *payload) {
  uint64_t bytes = h->payload_bytes;
  if (sv->deferred_bytes + bytes > 2 * (sv->hi - sv->lo) * sizeof(double) + 4096) {
    log_warn("dropped PUSH from worker %u (iteration %u, task %u): too many pushes ahead of the commit", h->sender,
             h->iter, h->chunk);
    return 0;
  }
  struct deferred_push *d = grow_for_one(sv->deferred, &sv->cap_deferred, sv->n_deferred, sizeof *d, 16);
  if (!d)
    return DSANA_ENOMEM;
  sv->deferred = d;
  void *copy = malloc(bytes ? bytes : 1);
  if (!copy)
    return DSANA_ENOMEM;
  memcpy(copy, payload, bytes);
  sv->deferred[sv->n_deferred++] = (struct deferred_push){.hdr = *h, .payload = copy};
  sv->deferred_bytes += bytes;
  return 0;
}

static int server_on_push(struct server *sv, const struct wire_hdr *h, const void *payload) {
  const struct dsana_job *job = &sv->node.job;
  const char *why = NULL;
  if ((int64_t)h->iter == sv->version + 2 && sv->completed)
    return server_defer_push(sv, h, payload);
  if ((int64_t)h->iter != sv->version + 1 || sv->completed)
    why = "wrong iteration";
  else if (h->table != job->out_table)
    why = "table is not the tasks' output table";
  else if (h->chunk < sv->task_lo || h->chunk >= sv->task_hi)
    why = "task does not touch this shard";
  else if (h->key_lo < sv->lo || h->key_hi > sv->hi || h->key_lo < job->tasks[h->chunk].lo ||
           h->key_hi > job->tasks[h->chunk].hi)
    why = "key range outside the task's part of this shard";
  if (!why) {
    uint64_t lo, hi;
    server_task_part(sv, h->chunk, &lo, &hi);
    uint64_t want = hi - lo;
    uint64_t *got = &sv->task_keys[h->chunk - sv->task_lo];
    uint32_t *sender = &sv->task_sender[h->chunk - sv->task_lo];
    if (*got == want)
      return 0; /* a re-run task pushing identical values again: ignore */
    if (*sender != h->sender) {
      /* another worker runs the task (its first one was lost): count its
       * pushes from scratch; the values are the same either way */
      *sender = h->sender;
      *got = 0;
    }
    if (*got + (h->key_hi - h->key_lo) > want)
      why = "more keys than the task owns";
    else {
      uint64_t t0 = clock_now_ns();
      memcpy(sv->next[h->table] + (h->key_lo - sv->lo), payload, (h->key_hi - h->key_lo) * sizeof(double));
      trace_span("push in", "transfer", t0, clock_now_ns(), h->iter, "task", h->chunk);
      *got += h->key_hi - h->key_lo;
      if (*got < want)
        return 0;
      /* this task's part of the shard is complete: finish it now, so that
       * the end of the iteration only has to send the report */
      int rc = server_finish_part(sv, h->iter, lo, hi);
      spull_part_final(sv, lo, hi);
      if (rc == 0 && --sv->tasks_left == 0)
        rc = server_report(sv, h->iter);
      return rc;
    }
  }
  log_warn("dropped PUSH from worker %u (iteration %u, task %u): %s", h->sender, h->iter, h->chunk, why);
  return 0;
}

static int server_send_final(struct server *sv) {
  uint32_t t = sv->node.job.result_table;
  /* what is still queued answers pulls of an iteration that will not run
   * (workers fetching ahead), and those workers may be gone already */
  spull_drop_all(sv);
  net_outbox_discard(sv->node.outbox);
  struct serve_range r = {.table = t, .iter = (uint32_t)sv->version, .lo = sv->lo, .hi = sv->hi};
  int rc = 0;
  if (sv->hi > sv->lo)
    rc = serve_values(sv->node.sched, NULL, WIRE_FINAL_DATA, sv->node.index, &r, sv->cur[t], sv->max_keys_per_msg);
  struct wire_hdr h = wire_hdr_make(WIRE_BYE, sv->node.index);
  return rc ? rc : node_send(&sv->node, &h, NULL, 0);
}

/* The pushes that overtook the commit, now that it happened. */
static int server_apply_deferred(struct server *sv) {
  int rc = 0;
  for (size_t i = 0; i < sv->n_deferred; i++) {
    if (!rc)
      rc = server_on_push(sv, &sv->deferred[i].hdr, sv->deferred[i].payload);
    free(sv->deferred[i].payload);
  }
  sv->n_deferred = 0;
  sv->deferred_bytes = 0;
  return rc;
}

/* One message from the scheduler. *done set on STOP. */
static int server_on_sched(struct server *sv, const struct net_msg *m, bool *done) {
  switch (m->hdr.type) {
  case WIRE_ITER_END:
    if ((int64_t)m->hdr.iter != sv->version + 1 || !sv->completed) {
      log_error("scheduler committed iteration %u but this shard is at %lld%s", m->hdr.iter, (long long)sv->version,
                sv->completed ? "" : " (incomplete)");
      return DSANA_EPROTO;
    }
    server_commit(sv, m->hdr.iter);
    fault_server_point(m->hdr.iter);
    int rc = server_checkpoint(sv, m->hdr.iter);
    return rc ? rc : server_apply_deferred(sv);
  case WIRE_STOP:
    *done = true;
    return server_send_final(sv);
  case WIRE_ABORT:
    log_error("scheduler aborted the job: %.*s", (int)m->hdr.payload_bytes, (const char *)m->payload);
    return DSANA_EPEER;
  case WIRE_HEARTBEAT:
    return 0;
  default:
    log_warn("ignored %s from the scheduler", wire_type_name(m->hdr.type));
    return 0;
  }
}

static int server_on_worker(struct server *sv, const struct net_msg *m) {
  switch (m->hdr.type) {
  case WIRE_PUSH:
    return server_on_push(sv, &m->hdr, m->payload);
  case WIRE_PULL:
    return spull_on_pull(sv, m);
  default:
    log_warn("ignored %s from worker %u", wire_type_name(m->hdr.type), m->hdr.sender);
    return 0;
  }
}

#define SERVER_BATCH 4 /* messages per socket between two pumps */

static int server_loop(struct server *sv) {
  struct net_sock *socks[2] = {sv->node.sched, sv->listen};
  int idle_ms = (int)(sv->node.cfg.heartbeat_s * 1000);
  size_t serving = 0;
  for (bool done = false; !done;) {
    bool ready[2] = {false, false};
    int rc = net_poll_until(socks, 2, serving ? 0 : idle_ms, net_outbox_due_ns(sv->node.outbox), ready);
    if (rc < 0)
      return rc;
    for (int i = 0; i < 2 && !done; i++) {
      struct net_msg m;
      rc = 0;
      /* a bounded batch, so that chunks made final by these pushes are
       * sent without waiting for the rest of a burst of pushes */
      for (int n = 0; n < SERVER_BATCH && !done && ready[i] && (rc = net_recv(socks[i], &m, 0)) == 0; n++) {
        if (i == 0) {
          sv->node.last_heard_ns = clock_now_ns();
          rc = server_on_sched(sv, &m, &done);
        } else {
          rc = server_on_worker(sv, &m);
        }
        net_msg_fini(&m);
        if (rc)
          return rc;
      }
      if (rc && rc != DSANA_EAGAIN)
        return rc;
    }
    if (!done && (rc = spull_pump(sv, &serving)) != 0)
      return rc;
    /* the outbox holds only replies to workers: one that cannot be
     * delivered (worker gone) is dropped, not fatal for the server */
    if ((rc = net_outbox_pump(sv->node.outbox, clock_now_ns(), NULL)) != 0 && rc != DSANA_ENET)
      return rc;
    node_tick(&sv->node);
    if ((rc = node_check_scheduler(&sv->node)) != 0)
      return rc;
  }
  return 0;
}

static int server_listen(struct server *sv, const struct role_params *p, char *addr, size_t len) {
  char want[CONFIG_ADDR_MAX + 64];
  if (p->cfg->ipc_dir[0])
    snprintf(want, sizeof want, "ipc://%s/server-%u-%d", p->cfg->ipc_dir, p->index, (int)getpid());
  else
    snprintf(want, sizeof want, "tcp://%s:*", p->cfg->bind_host);
  int rc = net_listen(sv->node.ctx, want, &sv->listen);
  if (!rc)
    rc = net_bound_addr(sv->listen, addr, len);
  if (rc)
    log_error("cannot listen on %s", want);
  return rc;
}

int runtime_run_server(const struct role_params *p) {
  struct server *sv = calloc(1, sizeof *sv);
  if (!sv)
    return DSANA_ENOMEM;
  log_set_role("server");
  char addr[CONFIG_ADDR_MAX];
  int rc = node_open(&sv->node, p, ROLE_SERVER);
  if (!rc)
    rc = server_listen(sv, p, addr, sizeof addr);
  if (!rc)
    rc = node_join(&sv->node, p, addr);
  if (!rc)
    rc = trace_open_role(sv->node.map->trace_path, "server", 2, sv->node.index);
  if (!rc) {
    sv->max_keys_per_msg = config_keys_per_msg(&sv->node.cfg);
    uint64_t n = sv->node.job.tables[0].n_keys;
    shard_range(n, sv->node.cfg.n_servers, sv->node.index, &sv->lo, &sv->hi);
    sv->chunk_keys = sv->node.map->chunk_keys ? sv->node.map->chunk_keys : n;
    sv->shm = sv->node.cfg.ipc_dir[0] && !net_outbox_emulating(sv->node.outbox);
    rc = server_alloc(sv);
  }
  if (!rc)
    fault_init_server(sv->node.index);
  if (!rc)
    rc = sv->node.map->resume_iter ? server_resume(sv) : server_init_values(sv);
  if (!rc)
    rc = server_loop(sv);
  if (rc)
    log_debug("stopping: %s", dsana_strerror(rc));
  int trc = trace_close();
  server_free(sv);
  rc = rc ? rc : trc;
  return rc;
}
