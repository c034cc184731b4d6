/*
 * scheduler.c - the scheduler role's state machine (scheduler.h): setup,
 * registration, dispatching messages to the iteration clock and the
 * membership code, and liveness.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/compress.h"
#include "runtime/role/app_check.h"
#include "runtime/core/iter_figures.h"
#include "runtime/core/rules.h"
#include "runtime/scheduler/scheduler_internal.h"
#include "util/text/log.h"

/* --chunk resolved into keys per chunk of every key space; --compress
 * likewise. */
static void resolve_chunks(struct scheduler *s, bool local) {
  for (uint32_t sp = 0; sp < s->job.n_spaces; sp++) {
    s->chunk_keys[sp] = rt_space_chunk_keys(&s->job, sp, &s->cfg, &s->sc, local);
    s->fetch_ahead |= s->chunk_keys[sp] != 0;
  }
  s->fetch_ahead = s->fetch_ahead && !s->app->update;
  struct compress_request c = {.mode = s->cfg.compress,
                               .chunk = s->cfg.chunk,
                               .bandwidth_bytes_per_s = rt_slowest_link(&s->sc),
                               .local_unthrottled = local};
  s->compress = compress_wanted(&c);
}

static int setup_policy(struct scheduler *s) {
  double *cost = malloc(sizeof *cost * s->job.n_tasks);
  if (!cost)
    return DSANA_ENOMEM;
  for (uint32_t t = 0; t < s->job.n_tasks; t++)
    cost[t] = s->job.tasks[t].cost;
  int rc = sched_create(s->cfg.sched, s->cfg.n_workers, cost, s->job.n_tasks, &s->policy);
  free(cost);
  uint32_t b = s->job.block_table;
  uint64_t k = b != JOB_NONE ? s->chunk_keys[s->job.tables[b].space] : 0;
  s->blocks = rt_runs_blocks(&s->job, k, s->app->task_block != NULL, s->app->run_task != NULL);
  /* chunked transfers: a chunk of the next iteration is final once the
   * tasks writing it pushed, so those should be one worker's */
  if (!rc)
    sched_set_contiguous(s->policy, s->blocks && s->fetch_ahead);
  return rc;
}

static int alloc_state(struct scheduler *s) {
  uint32_t W = s->cfg.n_workers;
  s->servers = calloc(s->cfg.n_servers, sizeof *s->servers);
  s->workers = calloc(W, sizeof *s->workers);
  s->wstats = calloc(W, sizeof *s->wstats);
  s->task_seen = calloc(s->job.n_tasks, 1);
  s->task_owner = calloc(s->job.n_tasks, sizeof *s->task_owner);
  if (!s->servers || !s->workers || !s->wstats || !s->task_seen || !s->task_owner)
    return DSANA_ENOMEM;
  for (uint32_t w = 0; w < W; w++)
    if (!(s->workers[w].batch = malloc(sizeof(uint32_t) * s->job.n_tasks)))
      return DSANA_ENOMEM;
  return 0;
}

static int setup(struct scheduler *s) {
  char err[512] = "";
  int rc = 0;
  if (s->cfg.scenario_path[0]) {
    if (!(rc = scenario_load(s->cfg.scenario_path, &s->sc, err, sizeof err)))
      rc = scenario_fit_workers(&s->sc, s->cfg.n_workers, err, sizeof err);
  } else {
    rc = scenario_default(s->cfg.n_workers, &s->sc);
  }
  job_init(&s->job, s->cfg.n_workers, s->cfg.n_servers, config_tasks_per_worker(&s->cfg), "scheduler");
  s->job.max_keys = s->cfg.max_keys;
  /* the launcher's own folder holds every endpoint, and no link is modelled */
  s->job.info.local = s->cfg.local_dir[0] && !rc && rt_slowest_link(&s->sc) == 0;
  /* no scenario: a task's cost is real time, and the user left the count to us */
  s->job.info.tasks_auto = !s->cfg.tasks_per_worker_set && !s->cfg.scenario_path[0];
  if (!rc)
    rc = s->app->setup(s->app_state, &s->job, err, sizeof err);
  if (!rc)
    rc = job_finalize(&s->job, err, sizeof err);
  if (!rc)
    rc = app_check_job(s->app, &s->job, err, sizeof err);
  if (rc) {
    log_error("%s", err[0] ? err : dsana_strerror(rc));
    return rc;
  }
  resolve_chunks(s, s->cfg.local_dir[0] != 0);
  if ((rc = setup_policy(s)) != 0 || (rc = alloc_state(s)) != 0)
    return rc;
  s->reg_deadline_ns = rt_now(s->env) + (uint64_t)(s->cfg.register_timeout_s * 1e9);
  return 0;
}

int scheduler_create(const struct role_params *p, const struct rt_env *env, struct scheduler **out) {
  struct scheduler *s = calloc(1, sizeof *s);
  if (!s)
    return DSANA_ENOMEM;
  s->env = env;
  s->params = *p;
  s->cfg = *p->cfg;
  s->params.cfg = &s->cfg;
  s->app = p->app;
  s->app_state = p->app_state;
  char err[512];
  int rc = app_check(s->app, err, sizeof err);
  if (rc)
    log_error("%s", err);
  else
    rc = setup(s);
  if (rc) {
    scheduler_destroy(s);
    return rc;
  }
  *out = s;
  return 0;
}

void scheduler_destroy(struct scheduler *s) {
  if (!s)
    return;
  sched_destroy(s->policy);
  scenario_fini(&s->sc);
  job_fini(&s->job);
  for (uint32_t w = 0; s->workers && w < s->cfg.n_workers; w++)
    free(s->workers[w].batch);
  free(s->servers);
  free(s->workers);
  free(s->wstats);
  free(s->task_seen);
  free(s->task_owner);
  free(s->iter_wall);
  free(s->iter_bound);
  free(s->iter_tbound);
  free(s->result);
  free(s);
}

bool scheduler_finished(const struct scheduler *s) { return s->finished; }

void scheduler_note_msg_cost(struct scheduler *s, uint64_t cpu_ns, uint64_t n) {
  s->msg_cpu_ns += cpu_ns;
  s->msg_count += n;
}

void scheduler_note_listener(struct scheduler *s, uint64_t refused, uint64_t dropped) {
  s->refused_peers = refused;
  s->dropped_msgs = dropped;
}

/* The slot a message came from, by transport identity (the index in the
 * header is only a claim): first the slot its dial identity names
 * (rt_dial_id), which is every message once a role has joined, so the
 * scheduler does not compare against every peer per message; else
 * every slot. */
static struct peer_slot *lookup(struct scheduler *s, const struct net_peer *p, enum rt_role *role, uint32_t *index) {
  uint32_t id;
  if (net_peer_id(p, &id) == 0 && (id >> 24 == ROLE_SERVER || id >> 24 == ROLE_WORKER)) {
    bool server = id >> 24 == ROLE_SERVER;
    uint32_t i = rt_dial_index(id);
    struct peer_slot *slot =
        i < (server ? s->cfg.n_servers : s->cfg.n_workers) ? server ? &s->servers[i] : &s->workers[i] : NULL;
    if (slot && slot->registered && net_peer_eq(&slot->peer, p)) {
      *role = server ? ROLE_SERVER : ROLE_WORKER;
      *index = i;
      return slot;
    }
  }
  for (uint32_t r = 0; r < 2; r++) {
    struct peer_slot *slots = r == 0 ? s->servers : s->workers;
    uint32_t n = r == 0 ? s->cfg.n_servers : s->cfg.n_workers;
    for (uint32_t i = 0; i < n; i++)
      if (slots[i].registered && net_peer_eq(&slots[i].peer, p)) {
        *role = r == 0 ? ROLE_SERVER : ROLE_WORKER;
        *index = i;
        return &slots[i];
      }
  }
  return NULL;
}

static uint32_t count_registered(const struct peer_slot *slots, uint32_t n) {
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++)
    c += slots[i].registered;
  return c;
}

/* Every role registered: maps out, and go (or resume). */
static int start(struct scheduler *s, struct rt_outq *out) {
  s->started = true;
  int rc = sch_send_maps(s, out);
  s->start_ns = s->acc.start_ns = rt_now(s->env);
  for (uint32_t i = 0; i < s->cfg.n_workers; i++)
    s->workers[i].last_heard_ns = s->start_ns;
  for (uint32_t i = 0; i < s->cfg.n_servers; i++)
    s->servers[i].last_heard_ns = s->start_ns;
  if (rc || !s->cfg.resume_iter)
    return rc;
  /* servers load the checkpoint's shards: go on after its iteration */
  s->iter = s->cfg.resume_iter;
  memcpy(s->globals, s->cfg.resume_globals, sizeof s->globals);
  s->residual = s->cfg.resume_residual;
  log_info("resuming after iteration %u from %s", s->iter, s->cfg.resume_dir);
  return sch_start_iteration(s, out);
}

static int on_register(struct scheduler *s, const struct rt_from *from, const struct net_msg *m, struct rt_outq *out) {
  struct msg_register reg;
  if (msg_register_decode(m->payload, m->hdr.payload_bytes, &reg) != 0) {
    log_warn("dropped a malformed REGISTER");
    return 0;
  }
  if (s->started)
    return sch_on_late_register(s, from, m, out);
  bool server = reg.role == ROLE_SERVER;
  struct peer_slot *slots = server ? s->servers : s->workers;
  uint32_t n = server ? s->cfg.n_servers : s->cfg.n_workers, idx = reg.index;
  if (idx == UINT32_MAX)
    for (idx = 0; idx < n && slots[idx].registered; idx++) {
    }
  if (idx >= n || slots[idx].registered || (server && !reg.addr[0])) {
    log_warn("refused %s registration (index %u): %s", rt_role_name(reg.role), reg.index,
             idx >= n                 ? "no free slot"
             : server && !reg.addr[0] ? "no address"
                                      : "index taken");
    return 0;
  }
  slots[idx].registered = true;
  slots[idx].threads = reg.threads ? reg.threads : 1;
  if (!server && sched_set_threads(s->policy, idx, slots[idx].threads) != 0)
    log_warn("worker %u: no memory to plan for its %u threads; planned as one", idx, slots[idx].threads);
  slots[idx].peer = from->peer;
  slots[idx].last_heard_ns = rt_now(s->env);
  memcpy(slots[idx].addr, reg.addr, sizeof reg.addr);
  if (count_registered(s->servers, s->cfg.n_servers) == s->cfg.n_servers &&
      count_registered(s->workers, s->cfg.n_workers) == s->cfg.n_workers)
    return start(s, out);
  return 0;
}

static int dispatch(struct scheduler *s, enum rt_role role, uint32_t idx, const struct net_msg *m,
                    struct rt_outq *out) {
  switch (m->hdr.type) {
  case WIRE_SHARD_REPORT:
    return role == ROLE_SERVER ? sch_on_report(s, idx, m, out) : 0;
  case WIRE_TASK_DONE:
    return role == ROLE_WORKER ? sch_on_task_done(s, idx, m, out) : 0;
  case WIRE_FINAL_DATA:
    return role == ROLE_SERVER ? sch_on_final_data(s, idx, m, out) : 0;
  case WIRE_CKPT_DONE:
    return role == ROLE_SERVER ? sch_on_ckpt_done(s, idx, m) : 0;
  case WIRE_READY:
    return role == ROLE_WORKER ? sch_on_ready(s, idx, m, out) : 0;
  case WIRE_HEARTBEAT:
    return 0;
  case WIRE_ABORT:
    return sch_role_failed(s, out, role, idx, (const char *)m->payload, m->hdr.payload_bytes);
  case WIRE_REGISTER:
    return 0; /* a repeat of its registration (sent until the map came) */
  default:
    log_warn("ignored %s from %s %u", wire_type_name(m->hdr.type), rt_role_name(role), idx);
    return 0;
  }
}

/* A worker given up on that speaks again (it was frozen, or cut off, and
 * lives): told once to register again, so that it rejoins at once rather
 * than after its own --peer-timeout. */
static int tell_lost(struct scheduler *s, struct peer_slot *slot, uint32_t idx, struct rt_outq *out) {
  if (slot->told_lost || s->failed)
    return 0;
  slot->told_lost = true;
  if (s->stopping) { /* nothing left to rejoin: it may end */
    static const char done[] = "the job came to its end while this worker was given up";
    struct wire_hdr e = wire_hdr_make(WIRE_ABORT, 0);
    e.flags = WIRE_F_ENDED;
    return sch_send(s, slot, &e, done, sizeof done - 1, out);
  }
  char why[200];
  int len = snprintf(why, sizeof why,
                     "worker %u was given up (silent past --peer-timeout: frozen, starved or cut off) and its tasks "
                     "went to the others: it registers again to rejoin",
                     idx);
  char *copy = strdup(why);
  if (!copy)
    return DSANA_ENOMEM;
  log_warn("worker %u, given up, is heard from again in iteration %u: told to register again", idx, s->iter);
  struct wire_hdr h = wire_hdr_make(WIRE_ABORT, 0);
  h.flags = WIRE_F_ROLLBACK;
  return sch_send_owned(s, slot, &h, copy, (size_t)len, out);
}

int scheduler_on_msg(struct scheduler *s, const struct rt_from *from, const struct net_msg *m, struct rt_outq *out) {
  enum rt_role role;
  uint32_t idx;
  s->acc.messages++;
  struct peer_slot *slot = lookup(s, &from->peer, &role, &idx);
  if (m->hdr.type == WIRE_REGISTER && (!slot || slot->lost))
    return on_register(s, from, m, out);
  if (!slot) {
    log_warn("dropped %s from an unregistered peer", wire_type_name(m->hdr.type));
    return 0;
  }
  if (slot->lost)
    return tell_lost(s, slot, idx, out); /* nothing it says counts any more */
  slot->last_heard_ns = rt_now(s->env);
  if (m->hdr.type == WIRE_BYE) {
    if (!slot->bye && s->stopping) {
      slot->bye = true;
      s->byes++;
      sch_take_usage(s, m);
      sch_check_finished(s);
    }
    return 0;
  }
  return s->started ? dispatch(s, role, idx, m, out) : 0;
}

static int report_missing(struct scheduler *s, struct rt_outq *out) {
  char list[400] = "";
  size_t at = 0;
  for (uint32_t i = 0; i < s->cfg.n_servers && at < sizeof list - 32; i++)
    if (!s->servers[i].registered)
      at += (size_t)snprintf(list + at, sizeof list - at, "%sserver %u", at ? ", " : "", i);
  for (uint32_t i = 0; i < s->cfg.n_workers && at < sizeof list - 32; i++)
    if (!s->workers[i].registered)
      at += (size_t)snprintf(list + at, sizeof list - at, "%sworker %u", at ? ", " : "", i);
  sch_abort(s, out, "timed out after %.0f s waiting for registrations at %s; missing: %s", s->cfg.register_timeout_s,
            s->cfg.scheduler_addr, list);
  return DSANA_ETIMEDOUT;
}

/* A heartbeat to each role the scheduler has told nothing for a
 * heartbeat's time (any word keeps a role's watch of it alive: in a
 * running job, ITER_START and ITER_END do); none while stopping: roles are
 * leaving. */
static void heartbeats(struct scheduler *s, uint64_t now, struct rt_outq *out) {
  uint64_t period = (uint64_t)(s->cfg.heartbeat_s * 1e9);
  if (s->stopping || now - s->last_hb_ns < period / 4)
    return;
  s->last_hb_ns = now;
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 0);
  for (uint32_t r = 0; r < 2; r++) {
    struct peer_slot *slots = r == 0 ? s->servers : s->workers;
    uint32_t n = r == 0 ? s->cfg.n_servers : s->cfg.n_workers;
    for (uint32_t i = 0; i < n; i++)
      if (slots[i].registered && !slots[i].bye && !slots[i].lost && now - slots[i].last_sent_ns >= period)
        sch_send(s, &slots[i], &h, NULL, 0, out);
  }
}

/* Heartbeats out; a peer silent past the timeout is lost. */
static int check_peers(struct scheduler *s, uint64_t now, struct rt_outq *out) {
  heartbeats(s, now, out);
  uint64_t limit = (uint64_t)(s->cfg.peer_timeout_s * 1e9);
  for (uint32_t r = 0; r < 2; r++) {
    struct peer_slot *slots = r == 0 ? s->servers : s->workers;
    uint32_t n = r == 0 ? s->cfg.n_servers : s->cfg.n_workers;
    for (uint32_t i = 0; i < n; i++) {
      if (slots[i].bye || slots[i].lost || now - slots[i].last_heard_ns <= limit)
        continue;
      if (r == 1 && !s->cfg.fail_on_worker_loss) {
        char why[64];
        snprintf(why, sizeof why, "silent for %.1f s", (double)(now - slots[i].last_heard_ns) * 1e-9);
        int rc = sch_lose_worker(s, i, why, out);
        if (rc)
          return rc;
        continue;
      }
      double silent = (double)(now - slots[i].last_heard_ns) * 1e-9;
      if (r == 0 && s->cfg.server_loss_rollback)
        return sch_rollback(s, out,
                            "server %u has been silent for %.1f s: lost; every role rolls back to the last "
                            "checkpoint and registers again (start a replacement: dsana server --scheduler %s%s%s)",
                            i, silent, s->cfg.scheduler_addr, s->cfg.token_path[0] ? " --token-file " : "",
                            s->cfg.token_path);
      return sch_abort(s, out, "%s %u has been silent for %.1f s: lost (the job stops)", r == 0 ? "server" : "worker",
                       i, silent);
    }
  }
  return 0;
}

int scheduler_on_worker_death(struct scheduler *s, uint32_t w, bool restarted, struct rt_outq *out) {
  if (w >= s->cfg.n_workers || s->failed)
    return 0;
  struct peer_slot *slot = &s->workers[w];
  if (slot->lost || slot->bye || s->stopping)
    return 0;
  if (!slot->registered || !s->started) { /* still registering: its place is free again */
    slot->registered = false;
    return restarted ? 0 : sch_abort(s, out, "worker %u exited before the job started: it stops", w);
  }
  if (s->cfg.fail_on_worker_loss)
    return sch_abort(s, out, "worker %u exited: lost (the job stops)", w);
  return sch_lose_worker(s, w, "its process exited", out);
}

/* A rolled-back job (cfg.start_without_workers) whose servers and at
 * least one worker registered again goes on without the workers that did
 * not (lost before the rollback): their places are lost ones, which a
 * replacement may take. */
static int start_without_missing(struct scheduler *s, struct rt_outq *out) {
  char list[200] = "";
  size_t at = 0;
  for (uint32_t i = 0; i < s->cfg.n_workers; i++) {
    if (s->workers[i].registered)
      continue;
    s->workers[i].lost = true;
    s->lost_workers++;
    if (at < sizeof list - 16)
      at += (size_t)snprintf(list + at, sizeof list - at, "%s%u", at ? ", " : "", i);
  }
  log_warn("worker%s %s did not register again: the job goes on without %s (a new worker may take %s place)",
           s->lost_workers == 1 ? "" : "s", list, s->lost_workers == 1 ? "it" : "them",
           s->lost_workers == 1 ? "its" : "their");
  return start(s, out);
}

int scheduler_on_tick(struct scheduler *s, uint64_t now_ns, struct rt_outq *out) {
  if (s->failed)
    return s->failed;
  if (!s->started && now_ns >= s->reg_deadline_ns && s->cfg.start_without_workers &&
      count_registered(s->servers, s->cfg.n_servers) == s->cfg.n_servers &&
      count_registered(s->workers, s->cfg.n_workers) > 0)
    return start_without_missing(s, out);
  if (!s->started && now_ns - s->last_hb_ns >= (uint64_t)(s->cfg.heartbeat_s * 1e9)) {
    /* the registered ones know they were heard while others are awaited */
    struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, 0);
    sch_broadcast(s, true, true, &h, NULL, 0, out);
    s->last_hb_ns = now_ns;
  }
  if (!s->started)
    return now_ns >= s->reg_deadline_ns ? report_missing(s, out) : 0;
  return check_peers(s, now_ns, out);
}
