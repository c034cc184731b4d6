/*
 * cmd_sim.c - `dsana sim [APP] ARGS|--tasks FILE [run options] [sim
 * options]`: the job comes from any app's own setup() (APP, a name from the
 * registry; without one, SIM_DEFAULT_APP; or the --tasks file's job,
 * sim_tasks.h), its arguments and the run options are parsed exactly as for
 * `dsana APP` (cli/core/opts.c), the scenario and the costs are loaded, and
 * the simulator reports through the same observer as a real run
 * (cli/output/report.c: the table, --metrics JSON lines, the summary), then
 * one line on what bounded it.
 */
#include "cli/run/cmd_sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/core/cli_apps.h"
#include "cli/core/exit_codes.h"
#include "cli/core/opts.h"
#include "cli/output/report.h"
#include "cli/run/cmd_run.h"
#include "cli/run/sim_tasks.h"
#include "runtime/core/config.h"
#include "sim/sim.h"

#define SIM_DEFAULT_ITERS "10"
/* The app of `dsana sim GRAPH`, which names none. */
#define SIM_DEFAULT_APP "pagerank"

/* The simulator's own options, taken out of argv before the run's parse. */
struct sim_cli {
  const char *tasks, *costs;
  struct sim_options opt;
  int host_cores; /* -1: from --local or the costs */
  bool has_max_iter;
  unsigned seen; /* bit i: OWN_VALUED[i] was given */
};

/* The simulator's options that take a value: each is given once, as the
 * run's are (opts.c). --local, a flag, may repeat. */
static const char *const OWN_VALUED[] = {"--tasks", "--profile", "--seed", "--noise", "--host-cores"};

/* a (an option of OWN_VALUED, or --costs: --profile's older name) given
 * before, under either name: say so, DSANA_EUSAGE. */
static int take_once(struct sim_cli *c, const char *a) {
  const char *key = strcmp(a, "--costs") == 0 ? "--profile" : a;
  for (unsigned k = 0; k < sizeof OWN_VALUED / sizeof OWN_VALUED[0]; k++)
    if (strcmp(key, OWN_VALUED[k]) == 0) {
      if (c->seen >> k & 1u) {
        fprintf(stderr, "dsana sim: %s given twice (give each option once%s)\n", key,
                key != a ? "; --costs is its older name" : "");
        return DSANA_EUSAGE;
      }
      c->seen |= 1u << k;
    }
  return 0;
}

static void usage(FILE *f) {
  fprintf(f, "usage: dsana sim [APP] ARGS|--tasks FILE [--workers N] [--servers S] [--scenario FILE]\n"
             "       [--mode bsp|dsana] [--max-iter K] [--tasks-per-worker T] [--chunk SIZE|auto|off]\n"
             "       [--metrics FILE] [--quiet] [--profile FILE] [--seed N] [--noise X] [--local] [--host-cores N]\n"
             "       [APP's options]\n"
             "Simulate a dsana run: the real scheduling policies (src/policy) against a model of the scheduler,\n"
             "servers, workers and links, with per-message CPU costs per role (docs/sim.md). Prints the run's\n"
             "table and a last line with the efficiency (bound / median iteration), the largest task's time\n"
             "and how busy the scheduler, the busiest server and link were; --metrics writes the same JSON lines\n"
             "as a real run. Deterministic for a --seed.\n"
             "  APP ARGS          the job APP declares for ARGS (dsana --help lists the apps; its options as for\n"
             "                    dsana APP); without APP, ARGS is a GRAPH for " SIM_DEFAULT_APP "\n"
             "  --tasks FILE      a job of task costs, one 'COST [KEYS]' per line, instead of an app's\n"
             "  --profile FILE    the machine's per-message costs (JSON: bench/sim_calibrate.sh measures them\n"
             "                    and writes one; --costs FILE is the same option)\n"
             "  --seed N          seed of the task-time noise (default 1)\n"
             "  --noise X         relative spread of task times (lognormal sigma, default 0)\n"
             "  --local           model the local launcher on this machine: roles share its cores and buffers\n"
             "  --host-cores N    cores all roles share (0 = every role on its own machine)\n"
             "Other options as for dsana APP (--workers, --threads, --servers, --mode, --sched, --chunk,\n"
             "--tasks-per-worker, --max-message, --scenario: speeds, transient stragglers, links, ns_per_cost,\n"
             "time_scale); there is no convergence: it runs --max-iter iterations (default " SIM_DEFAULT_ITERS
             "). Bad input: one line on stderr, exit 2.\n");
}

static int parse_num(const char *opt, const char *v, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double x = v ? strtod(v, &end) : 0;
  if (!v || errno || end == v || *end || !(x >= lo && x <= hi)) {
    fprintf(stderr, "dsana sim: %s: invalid value '%s'\n", opt, v ? v : "");
    return DSANA_EUSAGE;
  }
  *out = x;
  return 0;
}

static bool has_option(const struct dsana_app *app, const char *name) {
  for (size_t i = 0; app && app->options && app->options[i].name; i++)
    if (strcmp(app->options[i].name, name) == 0)
      return true;
  return false;
}

/* "--name=value" (getopt_long's form, which every other command takes):
 * name (with its dashes) into buf and the value; false for any other word. */
static bool split_inline(const char *arg, char *buf, size_t len, const char **value) {
  const char *eq = strchr(arg, '=');
  if (strncmp(arg, "--", 2) != 0 || !eq || (size_t)(eq - arg) >= len)
    return false;
  memcpy(buf, arg, (size_t)(eq - arg));
  buf[eq - arg] = '\0';
  *value = eq[1] ? eq + 1 : NULL; /* "--seed=": no value */
  return true;
}

/* One simulator option at argv[*i] (its value after it, or after '=');
 * *mine = it was one. */
static int take_own(struct sim_cli *c, int argc, char **argv, int *i, bool *mine) {
  char name[32];
  const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
  bool inline_value = split_inline(a, name, sizeof name, &v);
  double x;
  int rc = 0;
  if (inline_value)
    a = name;
  *mine = true;
  if (strcmp(a, "--local") == 0 && inline_value) {
    fprintf(stderr, "dsana sim: --local takes no value\n");
    return DSANA_EUSAGE;
  }
  if (strcmp(a, "--local") == 0)
    return c->opt.local = true, 0;
  if ((rc = take_once(c, a)) != 0)
    ; /* a repeat */
  else if (strcmp(a, "--tasks") == 0)
    c->tasks = v;
  else if (strcmp(a, "--profile") == 0 || strcmp(a, "--costs") == 0)
    c->costs = v;
  else if (strcmp(a, "--seed") == 0 && v && cli_parse_u64(v, 0, 1ull << 53, &c->opt.seed) != 0) {
    fprintf(stderr, "dsana sim: --seed: invalid value '%s' (an integer in 0..2^53)\n", v);
    rc = DSANA_EUSAGE;
  } else if (strcmp(a, "--seed") == 0)
    ; /* taken (or no value: said below) */
  else if (strcmp(a, "--noise") == 0 && !(rc = parse_num(a, v, 0, 2, &x)))
    c->opt.noise = x;
  else if (strcmp(a, "--host-cores") == 0 && !(rc = parse_num(a, v, 0, 1024, &x)))
    c->host_cores = (int)x;
  else if (!rc)
    *mine = false;
  if (*mine && !rc && !v) {
    fprintf(stderr, "dsana sim: missing value for '%s'\n", a);
    rc = DSANA_EUSAGE;
  }
  if (*mine && !inline_value)
    (*i)++;
  return rc;
}

/* Split argv into the simulator's options and the run's (into *out from
 * [1]: [0] is left for the app's name; --max-iter added when the app has
 * one and it is not given). */
static int split_args(int argc, char **argv, const struct dsana_app *app, struct sim_cli *c, char ***out, int *n_out) {
  char **v = calloc((size_t)argc + 3, sizeof *v);
  if (!v)
    return DSANA_ENOMEM;
  int n = 1, rc = 0;
  for (int i = 1; i < argc && !rc; i++) {
    bool mine;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      free(v);
      return 1;
    }
    rc = take_own(c, argc, argv, &i, &mine);
    if (!mine) {
      c->has_max_iter |= strcmp(argv[i], "--max-iter") == 0 || strncmp(argv[i], "--max-iter=", 11) == 0;
      v[n++] = argv[i];
    }
  }
  if (c->tasks)
    v[n++] = (char *)c->tasks;
  if (!c->has_max_iter && has_option(c->tasks ? &sim_tasks_app : app, "max-iter")) {
    v[n++] = (char *)"--max-iter";
    v[n++] = (char *)SIM_DEFAULT_ITERS;
  }
  *out = v;
  *n_out = n;
  if (rc)
    free(v);
  return rc;
}

/* The job, as every role of a real run declares it. */
static int build_job(struct cli_run *r, struct dsana_job *job) {
  char err[1200] = "";
  int rc = r->app->prepare ? r->app->prepare(r->app_state, err, sizeof err) : 0;
  job_init(job, r->cfg.n_workers, r->cfg.n_servers, config_tasks_per_worker(&r->cfg), "launcher");
  job->max_keys = r->cfg.max_keys;
  if (!rc)
    rc = r->app->setup(r->app_state, job, err, sizeof err);
  if (!rc)
    rc = job_finalize(job, err, sizeof err);
  if (rc)
    fprintf(stderr, "dsana sim: %s\n", err[0] ? err : dsana_strerror(rc));
  return rc;
}

static int load_inputs(const struct cli_run *r, const struct sim_cli *c, struct scenario *sc, bool *have_sc,
                       struct sim_costs *costs) {
  char err[1200] = "";
  int rc = 0;
  sim_costs_default(costs);
  if (c->costs)
    rc = sim_costs_load(c->costs, costs, err, sizeof err);
  if (!rc && r->cfg.scenario_path[0]) {
    rc = scenario_load(r->cfg.scenario_path, sc, err, sizeof err);
    *have_sc = rc == 0;
    if (!rc)
      rc = scenario_fit_workers(sc, r->cfg.n_workers, err, sizeof err);
  }
  if (rc)
    fprintf(stderr, "dsana sim: %s\n", err);
  if (c->host_cores >= 0)
    costs->host_cores = (uint32_t)c->host_cores;
  else if (c->opt.local)
    costs->host_cores = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
  return rc;
}

static void print_result(const struct sim_result *res, const struct sim_costs *costs) {
  printf("sim: efficiency %.3g (bound %.6g s / median iteration %.6g s); largest task %.6g s; busy: scheduler CPU "
         "%.0f%%, busiest server CPU %.0f%%, busiest link %.0f%%; %s; %llu events\n",
         res->median_iter_s > 0 ? res->bound_s / res->median_iter_s : 0, res->bound_s, res->median_iter_s,
         res->largest_task_s, 100 * res->sched_busy, 100 * res->server_busy, 100 * res->link_busy,
         costs->host_cores ? "roles share the host's cores" : "every role on its own machine",
         (unsigned long long)res->events);
}

static int run(struct cli_run *r, const struct sim_cli *c) {
  struct dsana_job job;
  struct scenario sc;
  struct sim_costs costs;
  bool have_sc = false;
  if (c->opt.local && !r->cfg.threads) /* the local launcher's share of this machine's cores */
    r->cfg.threads = config_auto_threads(r->cfg.n_workers);
  int rc = build_job(r, &job);
  if (!rc)
    rc = load_inputs(r, c, &sc, &have_sc, &costs);
  if (!rc) {
    struct sim_app_shape shape = {.name = r->app->name,
                                  .block_hooks = r->app->task_block != NULL,
                                  .run_task = r->app->run_task != NULL,
                                  .update = r->app->update != NULL};
    struct sim_options opt = c->opt;
    opt.max_iter = job.max_iter ? job.max_iter : 1;
    struct cli_report rep;
    report_init(&rep, r);
    struct sim_result res;
    char err[512] = "";
    rc = sim_run(&job, &shape, &r->cfg, have_sc ? &sc : NULL, &costs, &opt, &rep.observer, &res, err, sizeof err);
    if (rc)
      fprintf(stderr, "dsana sim: %s\n", err[0] ? err : dsana_strerror(rc));
    else if (!r->cfg.quiet)
      print_result(&res, &costs);
  }
  if (have_sc)
    scenario_fini(&sc);
  job_fini(&job);
  return rc;
}

int cmd_sim_main(int argc, char **argv) {
  struct sim_cli c = {.opt = {.seed = 1}, .host_cores = -1};
  /* dsana sim APP ...: any app of the registry; dsana sim GRAPH: the default */
  const struct dsana_app *named = argc > 1 ? cli_find_app(argv[1]) : NULL;
  if (named) {
    argc--;
    argv++;
  }
  const struct dsana_app *app = named ? named : cli_find_app(SIM_DEFAULT_APP);
  char **v;
  int n, rc = split_args(argc, argv, app, &c, &v, &n);
  if (rc == 1) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (rc)
    return CLI_EXIT_USAGE;
  if (c.tasks && named) {
    fprintf(stderr, "dsana sim: --tasks FILE is the job: it takes no app ('%s')\n", named->name);
    free(v);
    return CLI_EXIT_USAGE;
  }
  if (c.tasks)
    app = &sim_tasks_app;
  if (!app || cli_check_app(app) != 0) {
    free(v);
    return CLI_EXIT_FAIL;
  }
  v[0] = (char *)app->name;
  struct cli_run r;
  cli_name_command("sim");
  rc = cli_parse_run(app, n, v, &r);
  free(v);
  if (!rc && r.help)
    usage(stdout);
  else if (!rc)
    rc = run(&r, &c);
  app->destroy(r.app_state);
  return cli_exit_code(rc);
}
