/*
 * sim_server.c - a server of the simulated run (server_push.c and
 * server_pull.c in the runtime): it applies pushes (CPU per message and per
 * byte), counts the end markers of the tasks writing each of its chunks,
 * marks chunks final, reports its shard once every writer ended, commits on
 * ITER_END, and answers pulls chunk by chunk: the committed version at
 * once, the next one (a worker fetching ahead) as its chunks become final.
 * Answers leave through the server's link with the runtime's priority
 * (iteration, chunk, worker).
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/core/rules.h"
#include "sim/sim_internal.h"
#include "util/memory/grow.h"

/* Chunk range [*a, *b) of server sv's chunks that task t writes. */
static void task_chunks(const struct sim *sim, const struct sim_server *sv, uint32_t t, uint64_t *a, uint64_t *b) {
  const struct sim_work *wk = &sim->wk;
  uint32_t i = (uint32_t)(sv - sim->sv);
  uint64_t lo = wk->wlo[t] > wk->slo[i] ? wk->wlo[t] : wk->slo[i],
           hi = wk->whi[t] < wk->shi[i] ? wk->whi[t] : wk->shi[i];
  *a = *b = 0;
  if (lo >= hi)
    return;
  if (!wk->same_space) { /* every chunk waits for every writer of the shard */
    *a = sv->c0;
    *b = sv->c0 + sv->nc;
    return;
  }
  uint64_t k = wk->chunk_keys ? wk->chunk_keys : wk->n_keys;
  *a = lo / k;
  *b = (hi - 1) / k + 1;
}

/* Does task t write into server i's shard of the written table? */
static bool writes_here(const struct sim *sim, uint32_t i, uint32_t t) {
  uint64_t lo, hi;
  shard_range(sim->wk.w_keys, sim->n_servers, i, &lo, &hi);
  return sim->wk.wlo[t] < hi && sim->wk.whi[t] > lo && sim->wk.wlo[t] < sim->wk.whi[t];
}

int simserver_init(struct sim *sim, uint32_t i) {
  struct sim_server *sv = &sim->sv[i];
  const struct sim_work *wk = &sim->wk;
  uint64_t k = wk->chunk_keys ? wk->chunk_keys : wk->n_keys;
  const struct scenario_link *gl = &sim->sc->global_link;
  simnet_link_init(&sv->link, gl->bandwidth_bytes_per_s, gl->latency_s);
  sv->c0 = wk->slo[i] / k;
  sv->nc = wk->shi[i] > wk->slo[i] ? (wk->shi[i] - 1) / k + 1 - sv->c0 : 0;
  sv->writers = calloc(sv->nc ? sv->nc : 1, sizeof *sv->writers);
  sv->left = calloc(sv->nc ? sv->nc : 1, sizeof *sv->left);
  sv->final_order[0] = calloc(sv->nc ? sv->nc : 1, sizeof *sv->final_order[0]);
  sv->final_order[1] = calloc(sv->nc ? sv->nc : 1, sizeof *sv->final_order[1]);
  sv->ended = calloc(wk->n_tasks, 1);
  if (!sv->writers || !sv->left || !sv->final_order[0] || !sv->final_order[1] || !sv->ended)
    return DSANA_ENOMEM;
  for (uint32_t t = 0; t < wk->n_tasks; t++) {
    if (!writes_here(sim, i, t))
      continue;
    sv->tasks_here++;
    uint64_t a, b;
    task_chunks(sim, sv, t, &a, &b);
    for (uint64_t c = a; c < b; c++)
      sv->writers[c - sv->c0]++;
  }
  for (uint64_t c = 0; c < sv->nc; c++)
    sv->final_order[0][c] = sv->c0 + c; /* the initial values: all final */
  memcpy(sv->left, sv->writers, sizeof *sv->left * sv->nc);
  sv->tasks_left = sv->tasks_here;
  return 0;
}

void simserver_fini(struct sim *sim, uint32_t i) {
  struct sim_server *sv = &sim->sv[i];
  simnet_link_fini(&sv->link);
  free(sv->writers);
  free(sv->left);
  free(sv->final_order[0]);
  free(sv->final_order[1]);
  free(sv->ended);
  free(sv->reqs);
  for (size_t d = 0; d < sv->n_deferred; d++)
    simnet_msg_free(sv->deferred[d]);
  free(sv->deferred);
}

/* Send the answers of chunk c to r; returns the CPU time after them. */
static double answer_chunk(struct sim *sim, uint32_t i, const struct sim_pullreq *r, uint64_t c, double t) {
  const struct sim_work *wk = &sim->wk;
  size_t at = (size_t)i * wk->n_chunks + c;
  uint32_t n = wk->pieces[at];
  for (uint32_t p = 0; p < n; p++) {
    uint64_t bytes = wk->read_bytes[at] / n + (p + 1 == n ? wk->read_bytes[at] % n : 0);
    t = simnet_cpu(sim, &sim->sv[i].cpu, t, sim->c->server_msg_s + (double)bytes * sim->c->server_pull_byte_s);
    struct sim_msg *m = simnet_msg(sim, SM_PULL_REPLY, SIM_SERVER, i, SIM_WORKER, r->worker, r->iter, bytes);
    if (!m)
      return t;
    m->chunk = c;
    m->priority = rt_reply_priority(r->iter, c, r->worker);
    simnet_send(sim, &sim->sv[i].link, m, t);
  }
  return t;
}

/* Answer what r can have now; true when it is complete. */
static bool pump_one(struct sim *sim, uint32_t i, struct sim_pullreq *r, double *t) {
  struct sim_server *sv = &sim->sv[i];
  int64_t it = r->iter;
  uint64_t avail;
  if (it == sv->version + 1)
    avail = sv->nc;
  else if (it == sv->version + 2 && sim->wk.fetch_ahead)
    avail = sv->n_final;
  else
    return it <= sv->version; /* stale: drop; else not yet */
  int side = it == sv->version + 1 ? 0 : 1;
  for (; r->pos < avail; r->pos++)
    *t = answer_chunk(sim, i, r, sv->final_order[side][r->pos], *t);
  return r->pos >= sv->nc;
}

static void pump(struct sim *sim, uint32_t i, double t) {
  struct sim_server *sv = &sim->sv[i];
  size_t keep = 0;
  for (size_t k = 0; k < sv->n_reqs; k++)
    if (!pump_one(sim, i, &sv->reqs[k], &t))
      sv->reqs[keep++] = sv->reqs[k];
  sv->n_reqs = keep;
}

static void on_pull(struct sim *sim, uint32_t i, const struct sim_msg *m, double t) {
  struct sim_server *sv = &sim->sv[i];
  struct sim_pullreq *v = grow_for_one(sv->reqs, &sv->cap_reqs, sv->n_reqs, sizeof *v, 16);
  if (!v) {
    sim->failed = DSANA_ENOMEM;
    return;
  }
  sv->reqs = v;
  v[sv->n_reqs++] = (struct sim_pullreq){.worker = m->from, .iter = m->iter};
  pump(sim, i, t);
}

static void report(struct sim *sim, uint32_t i, double t) {
  struct sim_server *sv = &sim->sv[i];
  t = simnet_cpu(sim, &sv->cpu, t, sim->c->server_msg_s);
  simnet_send(sim, &sv->link,
              simnet_msg(sim, SM_SHARD_REPORT, SIM_SERVER, i, SIM_SCHED, 0, (uint32_t)sv->version + 1,
                         16 * (uint64_t)sim->wk.n_sums),
              t);
}

/* Task t's end marker arrived: its chunks may become final (*more). */
static bool task_end(struct sim *sim, uint32_t i, uint32_t t, bool *more) {
  struct sim_server *sv = &sim->sv[i];
  if (t >= sim->wk.n_tasks || sv->ended[t] || !writes_here(sim, i, t))
    return false;
  sv->ended[t] = 1;
  sv->tasks_left--;
  uint64_t a, b;
  task_chunks(sim, sv, t, &a, &b);
  for (uint64_t c = a; c < b; c++)
    if (--sv->left[c - sv->c0] == 0) {
      sv->final_order[1][sv->n_final++] = c;
      *more = true;
    }
  return true;
}

static void apply_push(struct sim *sim, uint32_t i, const struct sim_msg *m, double t) {
  bool more = false, ended = false;
  for (uint32_t k = 0; k < m->n; k++)
    ended |= task_end(sim, i, m->ids[k], &more);
  if (more)
    pump(sim, i, t);
  if (ended && sim->sv[i].tasks_left == 0)
    report(sim, i, t);
}

/* Returns true when it kept m (a push of an iteration not begun here). */
static bool on_push(struct sim *sim, uint32_t i, struct sim_msg *m, double t) {
  struct sim_server *sv = &sim->sv[i];
  if ((int64_t)m->iter > sv->version + 1) {
    struct sim_msg **d = grow_for_one(sv->deferred, &sv->cap_deferred, sv->n_deferred, sizeof *d, 8);
    if (!d) {
      sim->failed = DSANA_ENOMEM;
      return false;
    }
    sv->deferred = d;
    d[sv->n_deferred++] = m;
    return true;
  }
  if ((int64_t)m->iter == sv->version + 1)
    apply_push(sim, i, m, t);
  return false;
}

static void on_iter_end(struct sim *sim, uint32_t i, const struct sim_msg *m, double t) {
  struct sim_server *sv = &sim->sv[i];
  if ((int64_t)m->iter != sv->version + 1)
    return;
  sv->version = m->iter;
  uint64_t *tmp = sv->final_order[0];
  sv->final_order[0] = sv->final_order[1];
  sv->final_order[1] = tmp;
  sv->n_final = 0;
  memcpy(sv->left, sv->writers, sizeof *sv->left * sv->nc);
  memset(sv->ended, 0, sim->wk.n_tasks);
  sv->tasks_left = sv->tasks_here;
  size_t n = sv->n_deferred;
  sv->n_deferred = 0;
  for (size_t d = 0; d < n; d++) {
    if (!on_push(sim, i, sv->deferred[d], t))
      simnet_msg_free(sv->deferred[d]);
  }
  if (sv->tasks_here == 0)
    report(sim, i, t);
  pump(sim, i, t);
}

void simserver_on_msg(struct sim *sim, struct sim_msg *m, double t) {
  uint32_t i = m->to;
  struct sim_server *sv = &sim->sv[i];
  double cost = sim->c->server_msg_s + (m->type == SM_PUSH ? (double)m->bytes * sim->c->server_push_byte_s : 0);
  t = simnet_cpu(sim, &sv->cpu, t, cost);
  bool kept = false;
  if (m->type == SM_PULL)
    on_pull(sim, i, m, t);
  else if (m->type == SM_PUSH)
    kept = on_push(sim, i, m, t);
  else if (m->type == SM_ITER_END)
    on_iter_end(sim, i, m, t);
  if (!kept)
    simnet_msg_free(m);
}
