/*
 * sim_work.c - the shape of a job as the simulator needs it: task costs
 * and write ranges, the servers' shards, the chunks of the read table (as
 * the runtime resolves --chunk), the bytes and messages that answer a pull
 * of each (server, chunk), and whether tasks run block by block and
 * workers fetch ahead (the scheduler's rules, scheduler.c).
 *
 * Assumptions (docs/sim.md): tasks write one table and read one dense
 * table (the block table if there is one), both of the same key space
 * when chunks matter; a task's blocks cost the same each.
 */
#include <stdio.h>
#include <stdlib.h>

#include "runtime/core/iter_figures.h"
#include "runtime/core/keymask.h"
#include "runtime/core/rules.h"
#include "sim/sim_internal.h"

/* The table tasks read densely: the block table, else the first one task 0 reads. */
static uint32_t read_table(const struct dsana_job *job) {
  if (job->block_table != JOB_NONE)
    return job->block_table;
  return job->rd_off[0] < job->rd_off[1] ? job->rd[job->rd_off[0]].table : JOB_NONE;
}

static int alloc_work(struct sim_work *wk) {
  size_t T = wk->n_tasks, S = wk->n_servers, C = wk->n_chunks;
  wk->cost = malloc(sizeof *wk->cost * T);
  wk->wlo = calloc(T, sizeof *wk->wlo);
  wk->whi = calloc(T, sizeof *wk->whi);
  wk->slo = malloc(sizeof *wk->slo * S);
  wk->shi = malloc(sizeof *wk->shi * S);
  wk->read_bytes = calloc(S * C, sizeof *wk->read_bytes);
  wk->pieces = calloc(S * C, sizeof *wk->pieces);
  wk->parts = calloc(C, sizeof *wk->parts);
  return wk->cost && wk->wlo && wk->whi && wk->slo && wk->shi && wk->read_bytes && wk->pieces && wk->parts
             ? 0
             : DSANA_ENOMEM;
}

/* Tasks' costs and write ranges (of the first table each writes). */
static void fill_tasks(struct sim_work *wk, const struct dsana_job *job) {
  for (uint32_t t = 0; t < wk->n_tasks; t++) {
    wk->cost[t] = job->tasks[t].cost;
    if (job->wr_off[t] < job->wr_off[t + 1]) {
      wk->wlo[t] = job->wr[job->wr_off[t]].lo;
      wk->whi[t] = job->wr[job->wr_off[t]].hi;
    }
  }
}

/* What answers a pull of chunk c from server s: packed read keys, in
 * pieces of at most values_per_msg values (one header with shared buffers). */
static void fill_chunks(struct sim_work *wk, const struct dsana_job *job, uint32_t rt) {
  const struct job_table *jt = rt != JOB_NONE ? &job->tables[rt] : NULL;
  uint64_t width = jt ? jt->width : 1, k = wk->chunk_keys ? wk->chunk_keys : wk->n_keys;
  uint64_t max = wk->values_per_msg / width ? wk->values_per_msg / width : 1;
  for (uint32_t s = 0; s < wk->n_servers; s++) {
    shard_range(wk->n_keys, wk->n_servers, s, &wk->slo[s], &wk->shi[s]);
    for (uint64_t c = 0; c < wk->n_chunks && jt; c++) {
      uint64_t a = c * k > wk->slo[s] ? c * k : wk->slo[s], b = (c + 1) * k < wk->shi[s] ? (c + 1) * k : wk->shi[s];
      if (a >= b)
        continue;
      size_t i = (size_t)s * wk->n_chunks + c;
      wk->read_bytes[i] = wk->shared ? 0 : keymask_count(jt->unread, a, b) * width * sizeof(double);
      wk->pieces[i] = wk->shared ? 1 : (uint32_t)((b - a + max - 1) / max);
      wk->parts[c] += wk->pieces[i];
    }
  }
}

/* The scheduler's rules (scheduler.c): chunks, blocks, fetching ahead. */
static void resolve(struct sim_work *wk, const struct dsana_job *job, const struct sim_app_shape *app,
                    const struct run_config *cfg, const struct scenario *sc, bool local, uint32_t rt) {
  bool any = false;
  for (uint32_t sp = 0; sp < job->n_spaces; sp++) {
    uint64_t k = rt_space_chunk_keys(job, sp, cfg, sc, local);
    any |= k != 0;
    if (rt != JOB_NONE && job->tables[rt].space == sp)
      wk->chunk_keys = k;
  }
  wk->fetch_ahead = any && !app->update;
  wk->blocks = rt_runs_blocks(job, wk->chunk_keys, app->block_hooks, app->run_task);
  wk->contiguous = wk->blocks && wk->fetch_ahead;
  bool links = rt_slowest_link(sc) > 0 || sc->global_link.latency_s > 0;
  for (uint32_t w = 0; w < sc->n_workers; w++)
    links |= sc->link[w].latency_s > 0;
  wk->shared = local && !links;
  wk->n_chunks = wk->chunk_keys ? (wk->n_keys + wk->chunk_keys - 1) / wk->chunk_keys : 1;
}

int simwork_init(struct sim_work *wk, const struct dsana_job *job, const struct sim_app_shape *app,
                 const struct run_config *cfg, const struct scenario *sc, bool local, char *err, size_t errlen) {
  *wk = (struct sim_work){.n_tasks = job->n_tasks,
                          .n_servers = cfg->n_servers,
                          .n_sums = job->n_sums,
                          .values_per_msg = config_values_per_msg(cfg->max_payload_bytes)};
  uint32_t rt = read_table(job);
  uint32_t wt = job->n_tasks && job->wr_off[0] < job->wr_off[1] ? job->wr[job->wr_off[0]].table : JOB_NONE;
  if (job->n_tasks == 0 || wt == JOB_NONE) {
    snprintf(err, errlen, "the job has no tasks that write a table: nothing to simulate");
    return DSANA_EINVAL;
  }
  const struct job_table *wtab = &job->tables[wt];
  wk->wwidth = wtab->width;
  wk->wwords = wtab->rule == DSANA_RULE_SUM ? DSANA_XSUM_WORDS : 1;
  wk->wassign = wtab->rule == DSANA_RULE_ASSIGN;
  wk->read_dense = rt != JOB_NONE;
  wk->w_keys = wtab->n_keys;
  wk->n_keys = rt != JOB_NONE ? job->tables[rt].n_keys : wtab->n_keys;
  wk->same_space = wk->n_keys == wk->w_keys;
  resolve(wk, job, app, cfg, sc, local, rt);
  int rc = alloc_work(wk);
  if (rc) {
    snprintf(err, errlen, "out of memory");
    return rc;
  }
  fill_tasks(wk, job);
  fill_chunks(wk, job, rt);
  return 0;
}

void simwork_fini(struct sim_work *wk) {
  free(wk->cost);
  free(wk->wlo);
  free(wk->whi);
  free(wk->slo);
  free(wk->shi);
  free(wk->read_bytes);
  free(wk->pieces);
  free(wk->parts);
  *wk = (struct sim_work){0};
}

double simwork_task_s(const struct sim *sim, uint32_t w, uint32_t iter, double c) {
  double slow = scenario_slowdown(sim->sc, w, iter), real = c * sim->c->worker_ns_per_cost * 1e-9;
  double model = sim->sc->ns_per_cost > 0 ? c * sim->sc->ns_per_cost * 1e-9 * slow : real * (slow > 1 ? slow : 1);
  return model > real ? model : real; /* the real computation may overrun the model */
}
