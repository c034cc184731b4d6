/*
 * server.c - the server role: owns shard [lo, hi) of every table, applies
 * pushes, decides when an iteration of its shard is complete, and serves
 * pulls of the committed values.
 *
 * Versions: `version` is the last committed iteration. Pushes for
 * version+1 fill `next`; when every task overlapping the shard has pushed
 * all its keys, the app's finish() hook runs and a report goes to the
 * scheduler. The scheduler's ITER_END commit swaps next into cur. Pulls for
 * iteration t read the values committed at t-1: a pull that arrives early is
 * deferred until its version is committed, a stale one is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/checkpoint.h"
#include "runtime/fault.h"
#include "runtime/node.h"
#include "runtime/serve.h"
#include "runtime/shm.h"
#include "runtime/trace.h"
#include "util/clock.h"
#include "util/log.h"

/* A pull being answered piece by piece (or waiting for its version). */
struct pull_req {
  struct net_peer peer;
  struct wire_hdr hdr; /* as received: table, iter, sender, key range */
  uint64_t at;         /* next key to send */
};

struct server {
  struct node node;
  struct net_sock *listen;
  uint64_t lo, hi;
  double *cur[DSANA_MAX_TABLES], *next[DSANA_MAX_TABLES]; /* shard-sized storage */
  double *buf[DSANA_MAX_TABLES][2]; /* with shm: the two mapped buffers */
  uint32_t cur_buf[DSANA_MAX_TABLES]; /* which of them cur is */
  bool shm;                           /* buffers shared with local workers */
  int64_t version; /* last committed iteration; -1 before the initial values */
  bool completed; /* finish() ran for version+1 */
  uint32_t task_lo, task_hi; /* tasks overlapping the shard */
  uint64_t *task_keys;       /* keys received per overlapping task */
  uint32_t *task_sender;     /* the worker whose pushes are being counted */
  uint32_t tasks_left;
  struct msg_report sums; /* of the finished parts of version+1 */
  struct pull_req *reqs; /* active (being served) and deferred pulls */
  size_t n_reqs, cap_reqs;
  uint64_t max_keys_per_msg;
  uint64_t chunk_keys; /* reply pieces never straddle a chunk */
};

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
  return sv->task_keys && sv->task_sender ? 0 : DSANA_ENOMEM;
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
  free(sv->reqs);
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
  server_begin_iter(sv);
}

static int server_on_push(struct server *sv, const struct net_msg *m) {
  const struct wire_hdr *h = &m->hdr;
  const struct dsana_job *job = &sv->node.job;
  const char *why = NULL;
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
    const struct dsana_task_decl *task = &job->tasks[h->chunk];
    uint64_t want = (task->hi < sv->hi ? task->hi : sv->hi) - (task->lo > sv->lo ? task->lo : sv->lo);
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
      memcpy(sv->next[h->table] + (h->key_lo - sv->lo), m->payload, (h->key_hi - h->key_lo) * sizeof(double));
      *got += h->key_hi - h->key_lo;
      if (*got < want)
        return 0;
      /* this task's part of the shard is complete: finish it now, so that
       * the end of the iteration only has to send the report */
      uint64_t lo = task->lo > sv->lo ? task->lo : sv->lo, hi = task->hi < sv->hi ? task->hi : sv->hi;
      int rc = server_finish_part(sv, h->iter, lo, hi);
      if (rc == 0 && --sv->tasks_left == 0)
        rc = server_report(sv, h->iter);
      return rc;
    }
  }
  log_warn("dropped PUSH from worker %u (iteration %u, task %u): %s", h->sender, h->iter, h->chunk, why);
  return 0;
}

static int server_queue_pull(struct server *sv, const struct net_msg *m) {
  if (sv->n_reqs == sv->cap_reqs) {
    size_t cap = sv->cap_reqs ? 2 * sv->cap_reqs : 16;
    struct pull_req *r = realloc(sv->reqs, cap * sizeof *r);
    if (!r)
      return DSANA_ENOMEM;
    sv->reqs = r;
    sv->cap_reqs = cap;
  }
  sv->reqs[sv->n_reqs++] = (struct pull_req){.peer = m->from, .hdr = m->hdr, .at = m->hdr.key_lo};
  return 0;
}

static int server_on_pull(struct server *sv, const struct net_msg *m) {
  const struct wire_hdr *h = &m->hdr;
  const struct dsana_job *job = &sv->node.job;
  if (h->table >= job->n_tables || h->key_lo < sv->lo || h->key_hi > sv->hi || h->key_lo >= h->key_hi) {
    log_warn("dropped PULL from worker %u: table %u keys [%llu, %llu) not in this shard", h->sender, h->table,
             (unsigned long long)h->key_lo, (unsigned long long)h->key_hi);
    return 0;
  }
  int64_t want = h->iter;
  if (want == sv->version + 1 || want == sv->version + 2)
    return server_queue_pull(sv, m); /* +2: served once version+1 is committed */
  log_warn("dropped PULL from worker %u for iteration %u: server is at version %lld", h->sender, h->iter,
           (long long)sv->version);
  return 0;
}

/* Send the next piece of request r: up to the end of the current chunk.
 * A local worker that can read shared buffers gets all of it in one
 * message naming the buffer. */
static int server_send_piece(struct server *sv, struct pull_req *r) {
  if (sv->shm && r->hdr.chunk == 1) {
    struct wire_hdr h = wire_hdr_make(WIRE_PULL_SHM, sv->node.index);
    h.table = r->hdr.table;
    h.iter = r->hdr.iter;
    h.key_lo = r->at;
    h.key_hi = r->hdr.key_hi;
    h.chunk = sv->cur_buf[r->hdr.table];
    r->at = r->hdr.key_hi;
    uint64_t t0 = clock_now_ns();
    int rc = net_send(sv->listen, &r->peer, &h, NULL, 0);
    trace_span("shared buffer answer", "transfer", t0, clock_now_ns(), h.iter, "keys", (double)(h.key_hi - h.key_lo));
    return rc;
  }
  uint64_t end = (r->at / sv->chunk_keys + 1) * sv->chunk_keys;
  if (end > r->hdr.key_hi)
    end = r->hdr.key_hi;
  if (end - r->at > sv->max_keys_per_msg)
    end = r->at + sv->max_keys_per_msg;
  struct wire_hdr h = wire_hdr_make(WIRE_PULL_REPLY, sv->node.index);
  h.table = r->hdr.table;
  h.iter = r->hdr.iter;
  h.key_lo = r->at;
  h.key_hi = end;
  h.payload_bytes = (end - r->at) * sizeof(double);
  /* priority: the chunk index, so low chunks leave first for everyone */
  uint64_t t0 = clock_now_ns();
  int rc = net_outbox_send(sv->node.outbox, sv->listen, &r->peer, &h, sv->cur[r->hdr.table] + (r->at - sv->lo),
                           (size_t)h.payload_bytes, r->at / sv->chunk_keys);
  trace_span("chunk send", "transfer", t0, clock_now_ns(), h.iter, "chunk", (double)(r->at / sv->chunk_keys));
  r->at = end;
  return rc;
}

/* One round over the servable pulls, one piece each, so that every worker
 * gets its first chunks early (chunk-major order, lowest keys first: the
 * chunks that unblock the most waiting work). Returns the number of pulls
 * still being served. */
static int server_pump(struct server *sv, size_t *active) {
  size_t keep = 0;
  *active = 0;
  for (size_t i = 0; i < sv->n_reqs; i++) {
    struct pull_req *r = &sv->reqs[i];
    /* with an emulated link the outbox orders and paces: queue it all */
    bool all = net_outbox_emulating(sv->node.outbox);
    while ((int64_t)r->hdr.iter == sv->version + 1 && r->at < r->hdr.key_hi) {
      int rc = server_send_piece(sv, r);
      if (rc == DSANA_ENET) {
        /* the worker is gone: drop its pull; whether it is lost is the
         * scheduler's call, and the server carries on for the others */
        log_warn("dropped a pull of worker %u: it cannot be reached", r->hdr.sender);
        r->at = r->hdr.key_hi;
      } else if (rc) {
        return rc;
      }
      if (!all)
        break;
    }
    if (r->at < r->hdr.key_hi) {
      *active += (int64_t)r->hdr.iter == sv->version + 1;
      sv->reqs[keep++] = *r;
    }
  }
  sv->n_reqs = keep;
  return 0;
}

static int server_send_final(struct server *sv) {
  uint32_t t = sv->node.job.result_table;
  int frc = net_outbox_flush(sv->node.outbox);
  if (frc)
    return frc;
  struct serve_range r = {.table = t, .iter = (uint32_t)sv->version, .lo = sv->lo, .hi = sv->hi};
  int rc = 0;
  if (sv->hi > sv->lo)
    rc = serve_values(sv->node.sched, NULL, WIRE_FINAL_DATA, sv->node.index, &r, sv->cur[t], sv->max_keys_per_msg);
  struct wire_hdr h = wire_hdr_make(WIRE_BYE, sv->node.index);
  return rc ? rc : node_send(&sv->node, &h, NULL, 0);
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
    return server_checkpoint(sv, m->hdr.iter);
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
    return server_on_push(sv, m);
  case WIRE_PULL:
    return server_on_pull(sv, m);
  default:
    log_warn("ignored %s from worker %u", wire_type_name(m->hdr.type), m->hdr.sender);
    return 0;
  }
}

static int server_loop(struct server *sv) {
  struct net_sock *socks[2] = {sv->node.sched, sv->listen};
  int idle_ms = (int)(sv->node.cfg.heartbeat_s * 1000);
  size_t serving = 0;
  for (bool done = false; !done;) {
    bool ready[2] = {false, false};
    int wait = net_outbox_wait_ms(sv->node.outbox, idle_ms);
    int rc = net_poll(socks, 2, serving ? 0 : wait < 0 ? idle_ms : wait, ready);
    if (rc < 0)
      return rc;
    for (int i = 0; i < 2 && !done; i++) {
      struct net_msg m;
      rc = 0;
      while (!done && ready[i] && (rc = net_recv(socks[i], &m, 0)) == 0) {
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
    if (!done && (rc = server_pump(sv, &serving)) != 0)
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
