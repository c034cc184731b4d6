/*
 * sim_run.c - the top of the simulator: build the model of the job's
 * cluster, start iteration 1 at time 0 (every server holds the initial
 * values, as after the runtime's iteration 0), run the event loop until
 * the scheduler ended the last iteration, and report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/core/iter_figures.h"
#include "sim/sim_internal.h"

/* Bytes the model takes for this cluster, job and chunking, as setup()
 * and the work's tables allocate them, plus what messages in flight may
 * hold (a pull of every worker standing at every server): the figure a
 * projection is refused on when the machine cannot hold it. */
static uint64_t model_bytes(const struct sim *sim) {
  uint64_t W = sim->n_workers, S = sim->n_servers, T = sim->wk.n_tasks, C = sim->wk.n_chunks;
  uint64_t held = 2 * (T / (W ? W : 1)) + 16; /* a worker's ring: its share and a refill */
  uint64_t worker = sizeof(struct sim_worker) + sim->threads * sizeof(struct sim_thread) + 4 * (held < T ? held : T) +
                    8 * C + S * sizeof(struct sim_pend);
  uint64_t server = sizeof(struct sim_server) + T + W * sizeof(struct sim_pullreq);
  uint64_t work = T * (sizeof(double) + 2 * sizeof(uint64_t) + 5) + S * C * 12 + C * (4 + 24);
  return W * (worker + 64) + S * server + work + W * S * sizeof(struct sim_msg);
}

/* The memory the model may take: DSANA_SIM_MEMORY (bytes) when set, else
 * what the machine has available (/proc/meminfo, else its pages). */
static uint64_t memory_available(void) {
  const char *env = getenv("DSANA_SIM_MEMORY");
  if (env && *env)
    return strtoull(env, NULL, 10);
  FILE *f = fopen("/proc/meminfo", "r");
  char line[128];
  unsigned long long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
      break;
  if (f)
    fclose(f);
  if (kb)
    return (uint64_t)kb * 1024;
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

/* bytes as "12.3 GiB", "4.5 MiB" or "678 KiB" into buf. */
static const char *size_text(uint64_t bytes, char *buf, size_t len) {
  double b = (double)bytes;
  if (b >= 0x1p30)
    snprintf(buf, len, "%.1f GiB", b / 0x1p30);
  else if (b >= 0x1p20)
    snprintf(buf, len, "%.1f MiB", b / 0x1p20);
  else
    snprintf(buf, len, "%.0f KiB", b / 0x1p10);
  return buf;
}

/* DSANA_ERANGE with the figures when the model would not fit in memory. */
static int check_memory(const struct sim *sim, char *err, size_t errlen) {
  uint64_t need = model_bytes(sim), have = memory_available();
  if (need <= have)
    return 0;
  char a[32], b[32];
  snprintf(err, errlen,
           "the projection needs about %s of memory (%u workers, %u servers, %u tasks, %llu chunks), more than "
           "the %s available: fewer workers, servers, tasks or chunks (--tasks-per-worker, --chunk)",
           size_text(need, a, sizeof a), sim->n_workers, sim->n_servers, sim->wk.n_tasks,
           (unsigned long long)sim->wk.n_chunks, size_text(have, b, sizeof b));
  return DSANA_ERANGE;
}

static int setup(struct sim *sim) {
  sim->sv = calloc(sim->n_servers, sizeof *sim->sv);
  sim->w = calloc(sim->n_workers, sizeof *sim->w);
  sim->cores = calloc(sim->c->host_cores ? sim->c->host_cores : 1, sizeof *sim->cores);
  if (!sim->sv || !sim->w || !sim->cores)
    return DSANA_ENOMEM;
  int rc = simsched_init(sim);
  for (uint32_t i = 0; !rc && i < sim->n_servers; i++)
    rc = simserver_init(sim, i);
  for (uint32_t i = 0; !rc && i < sim->n_workers; i++)
    rc = simworker_init(sim, i);
  return rc;
}

static void teardown(struct sim *sim) {
  struct sim_hitem it;
  while (sim_heap_pop(&sim->events, &it) == 0)
    if (it.b == EV_DELIVER)
      simnet_msg_free(it.p);
  sim_heap_fini(&sim->events);
  for (uint32_t i = 0; sim->w && i < sim->n_workers; i++)
    simworker_fini(sim, i);
  for (uint32_t i = 0; sim->sv && i < sim->n_servers; i++)
    simserver_fini(sim, i);
  simsched_fini(sim);
  free(sim->w);
  free(sim->sv);
  simnet_cores_fini(sim);
  simwork_fini(&sim->wk);
}

static void dispatch(struct sim *sim, const struct sim_hitem *it) {
  sim->now = it->key;
  sim->n_events++;
  if (it->b == EV_COMPUTE) {
    simworker_on_compute(sim, it->a, it->p, it->key);
  } else if (it->b == EV_LINK) {
    simnet_link_event(sim, it->p, it->key);
  } else {
    struct sim_msg *m = it->p;
    if (m->to_role == SIM_SCHED)
      simsched_on_msg(sim, m, it->key);
    else if (m->to_role == SIM_SERVER)
      simserver_on_msg(sim, m, it->key);
    else
      simworker_on_msg(sim, m, it->key);
  }
}

static double busiest(const struct sim *sim, bool servers, bool links) {
  double b = 0;
  for (uint32_t i = 0; servers && i < sim->n_servers; i++) {
    double x = links ? sim->sv[i].link.busy_s : sim->sv[i].cpu.busy_s;
    b = x > b ? x : b;
  }
  for (uint32_t i = 0; links && i < sim->n_workers; i++)
    b = sim->w[i].link.busy_s > b ? sim->w[i].link.busy_s : b;
  return b;
}

/* The costliest task's modelled time on the fastest worker (no noise). */
static double largest_task(const struct sim *sim) {
  uint32_t fastest = 0;
  double big = 0;
  for (uint32_t w = 1; w < sim->n_workers; w++)
    if (scenario_slowdown(sim->sc, w, 1) < scenario_slowdown(sim->sc, fastest, 1))
      fastest = w;
  for (uint32_t t = 0; t < sim->wk.n_tasks; t++)
    big = sim->wk.cost[t] > big ? sim->wk.cost[t] : big;
  return simwork_task_s(sim, fastest, 1, big);
}

static void fill_result(const struct sim *sim, struct sim_result *res) {
  const struct sim_sched *s = &sim->s;
  uint32_t n = s->iter < sim->opt->max_iter ? s->iter : sim->opt->max_iter;
  double total = s->end_t > 0 ? s->end_t : sim->now;
  *res = (struct sim_result){.iterations = n,
                             .total_s = total,
                             .events = sim->n_events,
                             .median_iter_s = rt_median(s->iter_wall, n),
                             .bound_s = rt_median(s->iter_bound, n),
                             .largest_task_s = largest_task(sim)};
  if (total > 0) {
    res->sched_busy = s->cpu.busy_s / total;
    res->server_busy = busiest(sim, true, false) / total;
    res->link_busy = busiest(sim, true, true) / total;
  }
}

int sim_run(const struct dsana_job *job, const struct sim_app_shape *app, const struct run_config *cfg,
            const struct scenario *sc, const struct sim_costs *costs, const struct sim_options *opt,
            const struct rt_observer *obs, struct sim_result *res, char *err, size_t errlen) {
  struct scenario dflt = {0};
  if (!sc && scenario_default(cfg->n_workers, &dflt) != 0)
    return DSANA_ENOMEM;
  struct sim sim = {.c = costs,
                    .cfg = cfg,
                    .sc = sc ? sc : &dflt,
                    .opt = opt,
                    .obs = obs,
                    .app = app,
                    .n_workers = cfg->n_workers,
                    .n_servers = cfg->n_servers,
                    .threads = cfg->threads ? cfg->threads : 1};
  int rc = opt->max_iter >= 1 ? 0 : DSANA_EINVAL;
  if (rc)
    snprintf(err, errlen, "--max-iter must be at least 1");
  if (!rc)
    rc = simwork_init(&sim.wk, job, app, cfg, sim.sc, opt->local, err, errlen);
  if (!rc)
    rc = check_memory(&sim, err, errlen);
  if (!rc && (rc = setup(&sim)) != 0)
    snprintf(err, errlen, "out of memory for %u workers and %u tasks", cfg->n_workers, job->n_tasks);
  if (!rc && obs && obs->open && (rc = obs->open(obs->arg)) != 0)
    snprintf(err, errlen, "cannot open the reports");
  if (!rc) {
    simsched_start_iteration(&sim, 0);
    struct sim_hitem it;
    while (!sim.failed && !sim.s.done && sim_heap_pop(&sim.events, &it) == 0)
      dispatch(&sim, &it);
    rc = sim.failed;
    if (!rc && !sim.s.done) {
      snprintf(err, errlen, "the simulated run stalled in iteration %u (a model bug)", sim.s.iter);
      rc = DSANA_ESTATE;
    }
    if (!rc)
      simsched_finish(&sim);
    if (res)
      fill_result(&sim, res);
    int crc = obs && obs->close ? obs->close(obs->arg) : 0;
    rc = rc ? rc : crc;
  }
  teardown(&sim);
  scenario_fini(&dflt);
  return rc;
}
