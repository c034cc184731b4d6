/*
 * scheduler.c - the scheduler role: membership (registration, cluster map,
 * liveness) and the main loop that feeds messages to the iteration clock
 * in sched_iter.c.
 */
#include "runtime/scheduler.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/chunk.h"
#include "runtime/keymask.h"
#include "runtime/trace.h"
#include "util/clock.h"
#include "util/log.h"

int sch_send(struct scheduler *s, const struct peer_slot *to, const struct wire_hdr *h, const void *payload,
             size_t len) {
  return net_send(s->listen, &to->peer, h, payload, len);
}

int sch_broadcast(struct scheduler *s, bool servers, bool workers, const struct wire_hdr *h,
                  const void *payload, size_t len) {
  for (uint32_t i = 0; servers && i < s->cfg.n_servers; i++)
    if (s->servers[i].registered && !s->servers[i].bye) {
      int rc = sch_send(s, &s->servers[i], h, payload, len);
      if (rc)
        return rc;
    }
  /* A worker that cannot be reached is dead or leaving: the liveness check
   * decides what that means, so a failed send to it is not fatal here. */
  for (uint32_t i = 0; workers && i < s->cfg.n_workers; i++)
    if (s->workers[i].registered && !s->workers[i].bye && !s->workers[i].lost)
      sch_send(s, &s->workers[i], h, payload, len);
  return 0;
}

void sch_abort(struct scheduler *s, const char *fmt, ...) {
  char why[480];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  log_error("%s", why);
  struct wire_hdr h = wire_hdr_make(WIRE_ABORT, 0);
  h.payload_bytes = strlen(why);
  sch_broadcast(s, true, true, &h, why, strlen(why));
}

static bool peer_eq(const struct net_peer *a, const struct net_peer *b) {
  return a->len == b->len && memcmp(a->id, b->id, a->len) == 0;
}

/* The slot a message came from, matched by transport identity (the index
 * in the header is only a claim). */
static struct peer_slot *sch_lookup(struct scheduler *s, const struct net_peer *p, enum node_role *role,
                                    uint32_t *index) {
  for (uint32_t i = 0; i < s->cfg.n_servers; i++)
    if (s->servers[i].registered && peer_eq(&s->servers[i].peer, p)) {
      *role = ROLE_SERVER;
      *index = i;
      return &s->servers[i];
    }
  for (uint32_t i = 0; i < s->cfg.n_workers; i++)
    if (s->workers[i].registered && peer_eq(&s->workers[i].peer, p)) {
      *role = ROLE_WORKER;
      *index = i;
      return &s->workers[i];
    }
  return NULL;
}

static int sch_on_register(struct scheduler *s, const struct net_msg *m) {
  struct msg_register reg;
  if (msg_register_decode(m->payload, m->hdr.payload_bytes, &reg) != 0) {
    log_warn("dropped malformed REGISTER");
    return 0;
  }
  bool server = reg.role == ROLE_SERVER;
  struct peer_slot *slots = server ? s->servers : s->workers;
  uint32_t n = server ? s->cfg.n_servers : s->cfg.n_workers;
  uint32_t idx = reg.index;
  if (idx == UINT32_MAX)
    for (idx = 0; idx < n && slots[idx].registered; idx++) {
    }
  if (idx >= n || slots[idx].registered) {
    log_warn("refused %s registration (index %u): %s", node_role_name(reg.role), reg.index,
             idx >= n ? "no free slot" : "index taken");
    return 0;
  }
  slots[idx].registered = true;
  slots[idx].peer = m->from;
  slots[idx].last_heard_ns = clock_now_ns();
  memcpy(slots[idx].addr, reg.addr, sizeof reg.addr);
  return 0;
}

static uint32_t sch_count_registered(const struct peer_slot *slots, uint32_t n) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++)
    c += slots[i].registered;
  return c;
}

static void sch_report_missing(struct scheduler *s) {
  char list[400] = "";
  size_t at = 0;
  for (uint32_t i = 0; i < s->cfg.n_servers && at < sizeof list - 32; i++)
    if (!s->servers[i].registered)
      at += (size_t)snprintf(list + at, sizeof list - at, "%sserver %u", at ? ", " : "", i);
  for (uint32_t i = 0; i < s->cfg.n_workers && at < sizeof list - 32; i++)
    if (!s->workers[i].registered)
      at += (size_t)snprintf(list + at, sizeof list - at, "%sworker %u", at ? ", " : "", i);
  sch_abort(s, "timed out after %.0f s waiting for registrations at %s; missing: %s", s->cfg.register_timeout_s,
            s->cfg.scheduler_addr, list);
}

static int sch_wait_registrations(struct scheduler *s) {
  uint64_t deadline = clock_now_ns() + (uint64_t)(s->cfg.register_timeout_s * 1e9);
  while (sch_count_registered(s->servers, s->cfg.n_servers) < s->cfg.n_servers ||
         sch_count_registered(s->workers, s->cfg.n_workers) < s->cfg.n_workers) {
    uint64_t now = clock_now_ns();
    if (now >= deadline) {
      sch_report_missing(s);
      return DSANA_ETIMEDOUT;
    }
    struct net_msg m;
    int rc = net_recv(s->listen, &m, (int)((deadline - now) / 1000000u) + 1);
    if (rc == DSANA_EAGAIN)
      continue;
    if (rc)
      return rc;
    if (m.hdr.type == WIRE_REGISTER)
      rc = sch_on_register(s, &m);
    net_msg_fini(&m);
    if (rc)
      return rc;
  }
  return 0;
}

static void sch_fill_map(const struct scheduler *s, struct msg_cluster_map *map) {
  map->n_servers = s->cfg.n_servers;
  map->n_workers = s->cfg.n_workers;
  map->mode = s->cfg.mode;
  map->sched = s->cfg.sched;
  map->tasks_per_worker = s->cfg.tasks_per_worker;
  map->chunk_keys = s->chunk_keys;
  map->peer_timeout_s = s->cfg.peer_timeout_s;
  map->heartbeat_s = s->cfg.heartbeat_s;
  snprintf(map->app, sizeof map->app, "%s", s->app->name);
  snprintf(map->scenario_path, sizeof map->scenario_path, "%s", s->cfg.scenario_path);
  snprintf(map->trace_path, sizeof map->trace_path, "%s", s->cfg.trace_path);
  snprintf(map->checkpoint_dir, sizeof map->checkpoint_dir, "%s", s->cfg.checkpoint_dir);
  map->checkpoint_every = s->cfg.checkpoint_every;
  snprintf(map->resume_dir, sizeof map->resume_dir, "%s", s->cfg.resume_dir);
  map->resume_iter = s->cfg.resume_iter;
  if (s->args)
    map->args = *s->args;
  for (uint32_t i = 0; i < s->cfg.n_servers; i++)
    memcpy(map->server_addr[i], s->servers[i].addr, sizeof map->server_addr[i]);
}

/* The cluster map for one role (role 0 = server, 1 = worker). */
int sch_send_map_to(struct scheduler *s, uint32_t role, uint32_t index) {
  struct msg_cluster_map *map = calloc(1, sizeof *map);
  size_t cap = 1 << 20, len = 0;
  uint8_t *buf = malloc(cap);
  int rc = (map && buf) ? 0 : DSANA_ENOMEM;
  if (!rc) {
    sch_fill_map(s, map);
    map->your_index = index;
    rc = msg_map_encode(map, buf, cap, &len);
  }
  struct wire_hdr h = wire_hdr_make(WIRE_CLUSTER_MAP, 0);
  h.payload_bytes = len;
  if (!rc)
    rc = sch_send(s, role == 0 ? &s->servers[index] : &s->workers[index], &h, buf, len);
  free(map);
  free(buf);
  return rc;
}

static int sch_send_maps(struct scheduler *s) {
  int rc = 0;
  for (uint32_t i = 0; !rc && i < s->cfg.n_servers; i++)
    rc = sch_send_map_to(s, 0, i);
  for (uint32_t i = 0; !rc && i < s->cfg.n_workers; i++)
    rc = sch_send_map_to(s, 1, i);
  return rc;
}

/* Heartbeats out; abort when a peer has been silent past the timeout. */
static int sch_check_peers(struct scheduler *s) {
  uint64_t now = clock_now_ns();
  /* no heartbeats while stopping: roles are leaving, and a send to one
   * that already left would only log an error */
  if (!s->stopping && now - s->last_hb_ns >= (uint64_t)(s->cfg.heartbeat_s * 1e9)) {
    struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 0);
    sch_broadcast(s, true, true, &h, NULL, 0);
    s->last_hb_ns = now;
  }
  uint64_t limit = (uint64_t)(s->cfg.peer_timeout_s * 1e9);
  for (uint32_t r = 0; r < 2; r++) {
    struct peer_slot *slots = r == 0 ? s->servers : s->workers;
    uint32_t n = r == 0 ? s->cfg.n_servers : s->cfg.n_workers;
    for (uint32_t i = 0; i < n; i++) {
      if (slots[i].bye || slots[i].lost || now - slots[i].last_heard_ns <= limit)
        continue;
      if (r == 1 && !s->cfg.fail_on_worker_loss) {
        int rc = sch_lose_worker(s, i);
        if (rc)
          return rc;
        continue;
      }
      sch_abort(s, "%s %u has been silent for %.1f s: lost (the job stops)", r == 0 ? "server" : "worker", i,
                clock_ns_to_s(now - slots[i].last_heard_ns));
      return DSANA_EPEER;
    }
  }
  return 0;
}

static int sch_dispatch(struct scheduler *s, const struct net_msg *m) {
  enum node_role role;
  uint32_t idx;
  struct peer_slot *slot = sch_lookup(s, &m->from, &role, &idx);
  if (!slot && m->hdr.type == WIRE_REGISTER)
    return sch_on_late_register(s, m);
  if (!slot) {
    log_warn("dropped %s from an unregistered peer", wire_type_name(m->hdr.type));
    return 0;
  }
  if (slot->lost)
    return 0; /* a worker given up on: nothing it says counts any more */
  slot->last_heard_ns = clock_now_ns();
  switch (m->hdr.type) {
  case WIRE_SHARD_REPORT:
    return role == ROLE_SERVER ? sch_on_report(s, idx, m) : 0;
  case WIRE_TASK_DONE:
    return role == ROLE_WORKER ? sch_on_task_done(s, idx, m) : 0;
  case WIRE_FINAL_DATA:
    return role == ROLE_SERVER ? sch_on_final_data(s, idx, m) : 0;
  case WIRE_CKPT_DONE:
    return role == ROLE_SERVER ? sch_on_ckpt_done(s, idx, m) : 0;
  case WIRE_BYE:
    if (!slot->bye && s->stopping) {
      slot->bye = true;
      s->byes++;
      sch_check_finished(s);
    }
    return 0;
  case WIRE_HEARTBEAT:
    return 0;
  case WIRE_ABORT:
    sch_abort(s, "%s %u failed: %.*s", node_role_name(role), idx, (int)m->hdr.payload_bytes,
              (const char *)m->payload);
    return DSANA_EPEER;
  default:
    log_warn("ignored %s from %s %u", wire_type_name(m->hdr.type), node_role_name(role), idx);
    return 0;
  }
}

static int sch_loop(struct scheduler *s) {
  int timeout_ms = (int)(s->cfg.heartbeat_s * 1000 / 2) + 1;
  while (!s->finished) {
    struct net_msg m;
    int rc = net_recv(s->listen, &m, timeout_ms);
    if (rc == 0) {
      rc = sch_dispatch(s, &m);
      net_msg_fini(&m);
    } else if (rc == DSANA_EAGAIN) {
      rc = 0;
    }
    if (!rc)
      rc = sch_check_peers(s);
    if (rc)
      return rc;
  }
  return 0;
}

/* Resolve --chunk into keys per chunk (0 = whole tables, plain BSP
 * transfers). A chunk as large as the table is one chunk, still pipelined:
 * a worker fetches the next iteration's table as soon as it has nothing
 * left in this one, and a server answers as soon as its shard is complete,
 * which saves a pull's latency per iteration on small tables. */
static uint64_t sch_chunk_keys(const struct scheduler *s) {
  uint64_t n = s->job.tables[0].n_keys, bytes;
  if (s->cfg.chunk == CHUNK_OFF)
    return 0;
  if (s->cfg.chunk == CHUNK_FIXED) {
    bytes = s->cfg.chunk_bytes;
  } else {
    double bw = s->sc.global_link.bandwidth_bytes_per_s;
    for (uint32_t w = 0; w < s->sc.n_workers; w++)
      if (s->sc.link[w].bandwidth_bytes_per_s > 0 && (bw == 0 || s->sc.link[w].bandwidth_bytes_per_s < bw))
        bw = s->sc.link[w].bandwidth_bytes_per_s;
    /* per-message cost: ~0.1 ms per piece, measured by chunk-size sweeps
     * on this machine (bench/overlap.sh, real graphs over 1 Gbit/s).
     * On one machine without an emulated link a whole table moves in a few
     * milliseconds: chunking would only add per-block work. Across real
     * machines with an unknown link, assume 1 Gbit/s (a common cloud VM's):
     * on a faster link chunks come out finer than needed, which costs
     * little there, while a guess too fast leaves a slow link without
     * overlap (bench/netns.sh at 1 Gbit/s: 2 chunks of 2.2 MB took 0.211 s
     * per iteration, 4 of 2 MiB 0.174 s). */
    if (bw == 0 && s->cfg.ipc_dir[0])
      return 0;
    if (bw == 0)
      bw = 1.25e8;
    /* what a transfer carries: the keys some task reads (keymask.h) */
    uint32_t t = s->app->pull_table < s->job.n_tables ? s->app->pull_table : 0;
    struct chunk_inputs in = {.table_bytes = keymask_count(s->job.unread[t], 0, n) * sizeof(double),
                              .n_shards = s->cfg.n_servers, .bandwidth_bytes_per_s = bw,
                              .msg_overhead_s = 100e-6, .overhead_fraction = 0.05};
    uint64_t chunks = chunk_auto_count(&in), shard_keys = (n + s->cfg.n_servers - 1) / s->cfg.n_servers;
    bytes = (shard_keys + chunks - 1) / chunks * sizeof(double);
  }
  uint64_t keys = bytes / sizeof(double);
  return keys == 0 ? 1 : keys >= n ? n : keys;
}

static int sch_setup(struct scheduler *s, const struct role_params *p) {
  char err[512] = "";
  s->cfg = *p->cfg;
  s->app = p->app;
  s->app_state = p->app_state;
  s->args = p->args;
  job_init(&s->job, s->cfg.n_workers, s->cfg.n_servers, s->cfg.tasks_per_worker, "scheduler");
  s->job.max_keys = s->cfg.max_keys;
  int rc = s->app->setup(s->app_state, &s->job, err, sizeof err);
  if (!rc)
    rc = job_validate(&s->job, err, sizeof err);
  if (!rc && s->cfg.scenario_path[0]) {
    rc = scenario_load(s->cfg.scenario_path, &s->sc, err, sizeof err);
    if (!rc)
      rc = scenario_check_workers(&s->sc, s->cfg.n_workers, err, sizeof err);
  } else if (!rc) {
    rc = scenario_default(s->cfg.n_workers, &s->sc);
  }
  if (rc) {
    log_error("%s", err[0] ? err : dsana_strerror(rc));
    return rc;
  }
  double *cost = malloc(sizeof *cost * s->job.n_tasks);
  if (!cost)
    return DSANA_ENOMEM;
  for (uint32_t t = 0; t < s->job.n_tasks; t++)
    cost[t] = s->job.tasks[t].cost;
  rc = sched_create(s->cfg.sched, s->cfg.n_workers, cost, s->job.n_tasks, &s->policy);
  free(cost);
  s->chunk_keys = sch_chunk_keys(s);
  /* chunked transfers: a chunk of the next iteration is final once the
   * tasks writing it pushed, so those should be one worker's */
  if (!rc)
    sched_set_contiguous(s->policy, s->chunk_keys && s->app->task_block);
  s->servers = calloc(s->cfg.n_servers, sizeof *s->servers);
  s->workers = calloc(s->cfg.n_workers, sizeof *s->workers);
  s->wstats = calloc(s->cfg.n_workers, sizeof *s->wstats);
  s->task_seen = calloc(s->job.n_tasks, 1);
  s->task_owner = calloc(s->job.n_tasks, sizeof *s->task_owner);
  if (!rc && (!s->servers || !s->workers || !s->wstats || !s->task_seen || !s->task_owner))
    rc = DSANA_ENOMEM;
  if (!rc)
    rc = metrics_open(s->cfg.metrics_path, &s->metrics);
  s->progress = !s->cfg.quiet && isatty(STDERR_FILENO);
  progress_init(&s->line, s->progress, s->job.tol, s->job.max_iter);
  return rc;
}

static int sch_listen(struct scheduler *s) {
  int rc = net_ctx_create(&s->ctx);
  if (!rc && s->cfg.curve_secret[0])
    rc = net_ctx_set_curve(s->ctx, s->cfg.curve_secret);
  if (!rc)
    net_ctx_set_max_payload(s->ctx, s->cfg.max_payload_bytes);
  if (!rc)
    rc = net_listen(s->ctx, s->cfg.scheduler_addr, &s->listen);
  if (rc) {
    log_error("cannot listen on %s", s->cfg.scheduler_addr);
    return rc;
  }
  return 0;
}

static void sch_free(struct scheduler *s) {
  metrics_close(s->metrics);
  sched_destroy(s->policy);
  scenario_fini(&s->sc);
  job_fini(&s->job);
  free(s->servers);
  free(s->workers);
  free(s->wstats);
  free(s->task_seen);
  free(s->task_owner);
  free(s->iter_wall);
  free(s->iter_bound);
  free(s->iter_tbound);
  free(s->result);
  if (s->listen)
    net_close(s->listen);
  if (s->ctx)
    net_ctx_destroy(s->ctx);
  free(s);
}

int runtime_run_scheduler(const struct role_params *p) {
  struct scheduler *s = calloc(1, sizeof *s);
  if (!s)
    return DSANA_ENOMEM;
  log_set_role("scheduler");
  int rc = sch_setup(s, p);
  if (!rc)
    rc = trace_open_role(s->cfg.trace_path, "scheduler", 1, 0);
  if (!rc)
    rc = sch_listen(s);
  if (!rc)
    rc = sch_wait_registrations(s);
  if (!rc)
    rc = sch_send_maps(s);
  if (!rc && s->cfg.resume_iter) {
    /* servers load the checkpoint's shards: go on after its iteration */
    s->iter = s->cfg.resume_iter;
    memcpy(s->globals, s->cfg.resume_globals, sizeof s->globals);
    s->residual = s->cfg.resume_residual;
    log_info("resuming after iteration %u from %s", s->iter, s->cfg.resume_dir);
    rc = sch_start_iteration(s);
  }
  s->start_ns = clock_now_ns();
  s->acc.start_ns = s->start_ns;
  for (uint32_t i = 0; !rc && i < s->cfg.n_workers; i++)
    s->workers[i].last_heard_ns = s->start_ns;
  for (uint32_t i = 0; !rc && i < s->cfg.n_servers; i++)
    s->servers[i].last_heard_ns = s->start_ns;
  if (!rc)
    rc = sch_loop(s);
  if (!rc)
    rc = sch_finish(s);
  int trc = trace_close();
  sch_free(s);
  rc = rc ? rc : trc;
  return rc;
}
