/*
 * scheduler_members.c - who takes part: the cluster map each role gets,
 * workers lost during a run and replacements joining it.
 *
 * A worker silent for --peer-timeout is lost. Unless --on-worker-loss
 * fail, its unfinished tasks of the current iteration go back to the
 * policy and on to the other workers; what it pushed for them without an
 * end marker is dropped by the servers and the re-run counts once, so the
 * output is byte-identical to a run without the loss. A replacement worker
 * may register later (`dsana worker --scheduler ADDR`): it takes a lost
 * worker's slot and gets tasks from the next iteration on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/scheduler/scheduler_internal.h"
#include "util/text/log.h"

static void fill_map(const struct scheduler *s, struct msg_cluster_map *map) {
  map->n_servers = s->cfg.n_servers;
  map->n_workers = s->cfg.n_workers;
  map->sched = s->cfg.sched;
  map->tasks_per_worker = config_tasks_per_worker(&s->cfg);
  map->flags = (s->fetch_ahead ? MAP_F_FETCH_AHEAD : 0) | (s->job.info.local ? MAP_F_LOCAL : 0) |
               (s->compress ? MAP_F_COMPRESS : 0) | (s->job.info.tasks_auto ? MAP_F_TASKS_AUTO : 0);
  map->n_spaces = s->job.n_spaces;
  memcpy(map->chunk_keys, s->chunk_keys, sizeof map->chunk_keys);
  map->peer_timeout_s = s->cfg.peer_timeout_s;
  map->heartbeat_s = s->cfg.heartbeat_s;
  map->max_payload = s->cfg.max_payload_bytes;
  snprintf(map->app, sizeof map->app, "%s", s->app->name);
  snprintf(map->scenario_path, sizeof map->scenario_path, "%s", s->cfg.scenario_path);
  snprintf(map->trace_path, sizeof map->trace_path, "%s", s->cfg.trace_path);
  snprintf(map->checkpoint_dir, sizeof map->checkpoint_dir, "%s", s->cfg.checkpoint_dir);
  map->checkpoint_every = s->cfg.checkpoint_every;
  snprintf(map->resume_dir, sizeof map->resume_dir, "%s", s->cfg.resume_dir);
  map->resume_iter = s->cfg.resume_iter;
  if (s->params.args)
    map->args = *s->params.args;
  for (uint32_t i = 0; i < s->cfg.n_servers; i++)
    memcpy(map->server_addr[i], s->servers[i].addr, sizeof map->server_addr[i]);
}

/* The cluster map for one role. */
static int send_map(struct scheduler *s, struct peer_slot *to, uint32_t index, struct rt_outq *out) {
  struct msg_cluster_map *map = calloc(1, sizeof *map);
  size_t cap = 1 << 20, len = 0;
  uint8_t *buf = malloc(cap);
  int rc = map && buf ? 0 : DSANA_ENOMEM;
  if (!rc) {
    fill_map(s, map);
    map->your_index = index;
    rc = msg_map_encode(map, buf, cap, &len);
  }
  free(map);
  if (rc) {
    free(buf);
    return rc;
  }
  struct wire_hdr h = wire_hdr_make(WIRE_CLUSTER_MAP, 0);
  return sch_send_owned(s, to, &h, buf, len, out);
}

int sch_send_maps(struct scheduler *s, struct rt_outq *out) {
  int rc = 0;
  for (uint32_t i = 0; !rc && i < s->cfg.n_servers; i++)
    rc = send_map(s, &s->servers[i], i, out);
  for (uint32_t i = 0; !rc && i < s->cfg.n_workers; i++)
    if (s->workers[i].registered) /* (not when started without it) */
      rc = send_map(s, &s->workers[i], i, out);
  return rc;
}

static int take_waiting(struct scheduler *s, uint32_t w, struct rt_outq *out);

int sch_lose_worker(struct scheduler *s, uint32_t w, const char *why, struct rt_outq *out) {
  struct peer_slot *slot = &s->workers[w];
  slot->lost = true;
  s->lost_workers++;
  s->losses++; /* what is handed from now on outranks its pushes (wire.h, chunk) */
  uint32_t alive = 0;
  for (uint32_t i = 0; i < s->cfg.n_workers; i++)
    alive += s->workers[i].registered && !s->workers[i].lost && !s->workers[i].joining;
  if (alive == 0)
    return sch_abort(s, out, "worker %u lost and no worker is left: the job stops", w);
  log_warn("worker %u lost (%s): its tasks of iteration %u go to the other %u worker%s", w, why, s->iter, alive,
           alive == 1 ? "" : "s");
  if (s->stopping) {
    sch_check_finished(s);
    return 0;
  }
  /* its queue, then every task it held and did not finish */
  slot->n_batch = 0;
  sched_drop_worker(s->policy, w, UINT32_MAX);
  for (uint32_t t = 0; t < s->job.n_tasks; t++)
    if (s->task_owner[t] == w && !s->task_seen[t])
      sched_drop_worker(s->policy, w, t);
  /* the others may be idle: give each something to do */
  int rc = sch_hand_out_all(s, out);
  if (!rc && s->iter == 0) /* iteration 0 may have waited for it to be READY */
    rc = sch_maybe_end(s, out);
  return rc ? rc : take_waiting(s, w, out); /* a replacement waiting for this place */
}

/* A worker (just registered late) takes lost place w from the next iteration. */
static int join_slot(struct scheduler *s, uint32_t w, const struct net_peer *peer, uint32_t threads,
                     struct rt_outq *out) {
  struct peer_slot *slot = &s->workers[w];
  slot->peer = *peer;
  slot->threads = threads;
  if (sched_set_threads(s->policy, w, threads) != 0)
    log_warn("worker %u: no memory to plan for its %u threads; planned as one", w, threads);
  slot->lost = false;
  slot->told_lost = false;
  slot->joining = true; /* live from the next iteration */
  slot->bye = false;
  slot->last_heard_ns = rt_now(s->env);
  s->lost_workers--;
  log_warn("worker %u rejoined; it takes part from iteration %u", w, s->iter + 1);
  return send_map(s, slot, w, out);
}

/* A registration waiting for lost place w (or any), if any: it joins. */
static int take_waiting(struct scheduler *s, uint32_t w, struct rt_outq *out) {
  for (uint32_t i = 0; i < s->n_waiting; i++) {
    if (s->waiting[i].index != w && s->waiting[i].index != UINT32_MAX)
      continue;
    struct sch_waiting got = s->waiting[i];
    memmove(&s->waiting[i], &s->waiting[i + 1], (s->n_waiting - i - 1) * sizeof got);
    s->n_waiting--;
    return join_slot(s, w, &got.peer, got.threads, out);
  }
  return 0;
}

/* A server registering while the job runs (a replacement started before
 * its predecessor's loss was declared), when a lost server rolls the job
 * back: it is told to register again (ABORT with WIRE_F_ROLLBACK) until
 * the rollback frees a place. */
static int server_retry(struct scheduler *s, const struct rt_from *from, struct rt_outq *out) {
  static const char why[] = "no server place is free yet (a lost server's place frees once it is declared lost "
                            "and the job rolls back): register again";
  s->acc.messages++;
  if (s->late_servers++ == 0)
    log_warn("a server registered while the job runs: it registers again until a lost server's place frees");
  struct wire_hdr h = wire_hdr_make(WIRE_ABORT, 0);
  h.flags = WIRE_F_ROLLBACK;
  return rt_reply(out, &from->peer, &h, why, sizeof why - 1, 0);
}

int sch_on_late_register(struct scheduler *s, const struct rt_from *from, const struct net_msg *m,
                         struct rt_outq *out) {
  struct msg_register reg;
  bool ok = msg_register_decode(m->payload, m->hdr.payload_bytes, &reg) == 0;
  if (ok && reg.role == ROLE_SERVER && s->cfg.server_loss_rollback && !s->stopping)
    return server_retry(s, from, out);
  if (!ok || reg.role != ROLE_WORKER) {
    log_warn("refused a late registration: only workers may join a running job");
    return 0;
  }
  uint32_t w = reg.index;
  if (w == UINT32_MAX)
    for (w = 0; w < s->cfg.n_workers && !s->workers[w].lost; w++) {
    }
  if (!s->stopping && w < s->cfg.n_workers && s->workers[w].lost)
    return join_slot(s, w, &from->peer, reg.threads, out);
  for (uint32_t i = 0; i < s->n_waiting; i++)
    if (net_peer_eq(&s->waiting[i].peer, &from->peer))
      return 0; /* it registers again while it waits (worker_on_tick): already waiting */
  bool may_wait = !s->stopping && (reg.index == UINT32_MAX || reg.index < s->cfg.n_workers);
  if (may_wait && s->n_waiting < SCH_MAX_WAITING) {
    s->waiting[s->n_waiting++] = (struct sch_waiting){.peer = from->peer, .index = reg.index, .threads = reg.threads};
    log_warn("a late worker registration (index %u) waits for a lost worker's place", reg.index);
    return 0;
  }
  log_warn("refused a late worker registration (index %u): no lost worker's place to take", reg.index);
  return 0;
}
