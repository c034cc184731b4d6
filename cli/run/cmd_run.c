/*
 * cmd_run.c - `dsana APP ...` (local cluster, or one role under mpirun/srun)
 * and the single-role commands `dsana scheduler APP ...`,
 * `dsana server --scheduler ADDR`, `dsana worker --scheduler ADDR`.
 */
#include "cli/run/cmd_run.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/core/cli_apps.h"
#include "cli/core/exit_codes.h"
#include "cli/core/help.h"
#include "cli/core/opts.h"
#include "cli/core/paths.h"
#include "cli/output/report.h"
#include "cli/run/resume.h"
#include "io/scenario/scenario.h"
#include "net/zmq/secure.h"
#include "net/transport/transport.h"
#include "runtime/core/job.h"
#include "runtime/launch/runtime.h"
#include "runtime/record/checkpoint.h"
#include "runtime/role/app_check.h"
#include "util/text/log.h"
#include "util/text/status.h"

/* The job's secret: from --token-file, or made up for a run that stays on
 * this machine. Runs across machines must name one. A local run over ipc://
 * sockets with no --token-file needs none: its sockets live in a folder only
 * this user can enter (mkdtemp, mode 0700), and CURVE would only encrypt
 * traffic that never leaves the machine (it cost a quarter of the CPU of a
 * local run with an emulated link). */
static int setup_token(struct run_config *cfg, bool local, const char *who) {
  uint8_t token[NET_TOKEN_MAX_BYTES];
  size_t len = 32;
  char err[512];
  int rc;
  if (local && !cfg->token_path[0] && !cfg->scheduler_addr[0])
    return 0;
  if (cfg->token_path[0]) {
    rc = net_read_token_file(cfg->token_path, token, sizeof token, &len, err, sizeof err);
  } else if (local) {
    rc = net_random_token(token, len);
    snprintf(err, sizeof err, "cannot make a job token: %s", dsana_strerror(rc));
  } else {
    rc = DSANA_EUSAGE;
    snprintf(err, sizeof err,
             "--token-file FILE is required when roles run on their own (the job's secret, e.g. "
             "head -c 32 /dev/urandom | base64 > job.token, copied to every machine)");
  }
  if (!rc && (rc = net_curve_secret_from_token(token, len, cfg->curve_secret)) != 0)
    snprintf(err, sizeof err, "this ZeroMQ has no CURVE security");
  if (rc)
    fprintf(stderr, "dsana %s: %s\n", who, err);
  return rc;
}

/* --scenario describes the cluster: without --workers, its worker count
 * is the run's; with fewer --workers than it describes, say which are used. */
static int setup_scenario(struct cli_run *r) {
  char err[512] = "";
  struct scenario sc;
  int rc = scenario_load(r->cfg.scenario_path, &sc, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana %s: %s\n", r->app->name, err);
    return rc;
  }
  if (!r->workers_given && sc.n_workers > 0) {
    r->cfg.n_workers = sc.n_workers;
    log_info("%u workers, as %s describes", sc.n_workers, r->cfg.scenario_path);
  } else if (r->cfg.n_workers < sc.n_workers) {
    fprintf(stderr, "dsana %s: warning: --workers %u runs the first %u of the %u workers %s describes\n", r->app->name,
            r->cfg.n_workers, r->cfg.n_workers, sc.n_workers, r->cfg.scenario_path);
  }
  rc = scenario_fit_workers(&sc, r->cfg.n_workers, err, sizeof err);
  scenario_fini(&sc);
  if (rc)
    fprintf(stderr, "dsana %s: %s\n", r->app->name, err);
  return rc;
}

/* Declare the job once here, so that limits and bad declarations are one
 * line and exit 2 before any process starts; keep the input's facts for
 * the summary and check the iteration cap against --resume. */
static int declare_job(struct cli_run *r, char *err, size_t errlen) {
  struct dsana_job job;
  job_init(&job, r->cfg.n_workers, r->cfg.n_servers, config_tasks_per_worker(&r->cfg), "launcher");
  job.max_keys = r->cfg.max_keys;
  int rc = r->app->setup(r->app_state, &job, err, errlen);
  if (!rc)
    rc = job_finalize(&job, err, errlen);
  if (!rc)
    rc = app_check_job(r->app, &job, err, errlen);
  for (uint32_t i = 0; !rc && i < job.n_facts; i++) {
    r->facts[i].name = job.facts[i].name;
    r->facts[i].value = job.facts[i].value;
  }
  r->n_facts = rc ? 0 : job.n_facts;
  if (!rc && cli_check_resume_cap(r, job.max_iter) != 0) {
    err[0] = '\0';
    rc = DSANA_EUSAGE;
  }
  job_fini(&job);
  return rc;
}

/* Check inputs before any process starts: the files the run reads and
 * writes, the scenario, checkpoints, then the app's data. */
static int prepare_app(struct cli_run *r, bool local) {
  char err[512] = "";
  int rc = cli_check_paths(r);
  if (!rc && r->cfg.scenario_path[0])
    rc = setup_scenario(r);
  if (!rc && local) /* the scenario's workers, else 1 x all cores (config.h) */
    config_local_layout(&r->cfg, r->workers_given || r->cfg.scenario_path[0]);
  if (!rc)
    rc = cli_setup_checkpoints(r);
  if (rc)
    return rc;
  rc = r->app->prepare ? r->app->prepare(r->app_state, err, sizeof err) : 0;
  if (!rc)
    rc = declare_job(r, err, sizeof err);
  if (rc && (err[0] || rc != DSANA_EUSAGE))
    fprintf(stderr, "dsana %s: %s\n", r->app->name, err[0] ? err : dsana_strerror(rc));
  return rc;
}

/* Under mpirun/srun: rank 0 scheduler, 1..S servers, the rest workers.
 * With --transport mpi the ranks talk over MPI: the scheduler is mpi://0,
 * servers listen at their own rank, and no token is needed (MPI's launcher
 * connected the ranks). */
static int run_ranked(struct cli_run *r, uint32_t rank, uint32_t size) {
  bool mpi = strcmp(r->cfg.transport, "mpi") == 0;
  if (mpi)
    snprintf(r->cfg.scheduler_addr, sizeof r->cfg.scheduler_addr, "mpi://0");
  if (!r->cfg.scheduler_addr[0] || size < 2 + r->cfg.n_servers) {
    fprintf(stderr, "dsana %s: under a launcher, %sat least %u ranks (1 scheduler, %u servers, 1 worker)\n",
            r->app->name, mpi ? "" : "--scheduler ADDR is required and ", 2 + r->cfg.n_servers, r->cfg.n_servers);
    return DSANA_EUSAGE;
  }
  r->cfg.n_workers = size - 1 - r->cfg.n_servers;
  if (!r->cfg.threads)
    r->cfg.threads = config_auto_threads(runtime_launcher_local_size());
  r->workers_given = true; /* the launcher's ranks say how many */
  int trc = mpi ? 0 : setup_token(&r->cfg, false, r->app->name);
  if (trc)
    return trc;
  struct cli_report rep;
  report_init(&rep, r);
  struct role_params p = {.cfg = &r->cfg,
                          .apps = cli_apps(),
                          .app = r->app,
                          .app_state = r->app_state,
                          .args = &r->args,
                          .observer = &rep.observer};
  enum rt_role role;
  runtime_rank_role(rank, r->cfg.n_servers, &role, &p.index);
  if (role == ROLE_SCHEDULER) {
    int rc = prepare_app(r, false);
    return rc ? rc : runtime_run_role(role, &p);
  }
  p.app = NULL; /* servers and workers take the app from the scheduler */
  return runtime_run_role(role, &p);
}

/* `dsana scheduler`: a lost server rolls the job back (every role
 * registers again) to its last checkpoint, at most --max-restarts times;
 * the lost server's place waits for a new `dsana server`. */
static int run_scheduler_alone(struct run_config *cfg, const struct role_params *p) {
  static struct run_config start; /* 5 KiB */
  struct runtime_recovery rec = {0};
  start = *cfg;
  cfg->server_loss_rollback = cfg->max_restarts > 0;
  runtime_catch_stop_signals(); /* Ctrl-C: tell every role the job ended */
  int rc;
  while ((rc = runtime_run_role(ROLE_SCHEDULER, p)) == DSANA_ERESTART && runtime_rollback(cfg, &start, &rec)) {
    log_warn("waiting up to %.0f s for every role, the lost server's replacement too, to register at %s",
             cfg->register_timeout_s, cfg->scheduler_addr);
    cfg->start_without_workers = true; /* workers lost before stay lost */
  }
  if (rc && rc != DSANA_ERESTART && rc != DSANA_EUSAGE) /* (a failed rollback named it) */
    runtime_report_checkpoint(cfg->checkpoint_dir);
  return rc;
}

/* The whole job on this machine, as `dsana APP ...` runs it without a
 * launcher: the job's token, the checks of its files and app, then every
 * role (threads or processes, r->cfg.isolate); *rep reports it. */
static int run_local(struct cli_run *r, struct cli_report *rep) {
  int rc = setup_token(&r->cfg, true, r->app->name);
  if (!rc)
    rc = prepare_app(r, true);
  if (rc)
    return rc;
  struct role_params p = {.cfg = &r->cfg,
                          .apps = cli_apps(),
                          .app = r->app,
                          .app_state = r->app_state,
                          .args = &r->args,
                          .index = UINT32_MAX,
                          .observer = &rep->observer};
  return r->cfg.isolate == ISOLATE_THREADS ? runtime_launch_threads(&p) : runtime_launch_local(&p);
}

int cmd_app_run_local(struct cli_run *r) {
  struct cli_report rep;
  report_init(&rep, r);
  return run_local(r, &rep);
}

/* The job of a parsed command line: mpirun's ranks, a scheduler alone, or
 * the whole job on this machine; *rep reports it (the scheduler's summary,
 * when the scheduler ran in this process). */
static int run_job(struct cli_run *r, bool scheduler_only, struct cli_report *rep) {
  const struct dsana_app *app = r->app;
  uint32_t rank, size;
  int ranked = runtime_launcher_rank(&rank, &size);
  bool mpi = strcmp(r->cfg.transport, "mpi") == 0;
  int rc;
  report_init(rep, r);
  if (ranked == DSANA_EINVAL) {
    fprintf(stderr, "dsana %s: the launcher's rank variables are malformed\n", app->name);
    rc = DSANA_EUSAGE;
  } else if (mpi && !net_addr_valid("mpi://0")) {
    fprintf(stderr,
            "dsana %s: --transport mpi: this dsana was built without MPI (install libopenmpi-dev and "
            "rebuild)\n",
            app->name);
    rc = DSANA_EUSAGE;
  } else if (mpi && (ranked != 0 || scheduler_only)) {
    fprintf(stderr,
            "dsana %s: --transport mpi runs every role under mpirun (mpirun -n N dsana %s ... --transport "
            "mpi)\n",
            scheduler_only ? "scheduler" : app->name, app->name);
    rc = DSANA_EUSAGE;
  } else if (ranked == 0 && !scheduler_only) {
    rc = run_ranked(r, rank, size);
  } else if (scheduler_only) {
    if (!r->cfg.scheduler_addr[0]) {
      fprintf(stderr, "dsana scheduler: --scheduler ADDR (where to listen) is required\n");
      rc = DSANA_EUSAGE;
    } else if ((rc = setup_token(&r->cfg, false, "scheduler")) == 0 && (rc = prepare_app(r, false)) == 0) {
      struct role_params p = {.cfg = &r->cfg,
                              .apps = cli_apps(),
                              .app = app,
                              .app_state = r->app_state,
                              .args = &r->args,
                              .observer = &rep->observer};
      rc = run_scheduler_alone(&r->cfg, &p);
    }
  } else {
    rc = run_local(r, rep);
  }
  return rc;
}

int cmd_app_job(const struct dsana_app *app, int argc, char **argv, bool scheduler_only, struct cli_outcome *out) {
  if (out)
    memset(out, 0, sizeof *out);
  struct cli_run r;
  int rc = cli_parse_run(app, argc, argv, &r);
  if (!rc && !r.help && r.cfg.resume_dir[0])
    rc = cli_resume_fill(&r); /* what the user did not give again */
  if (!rc && r.help)
    cli_print_app_help(app, scheduler_only, stdout);
  if (rc || r.help) {
    if (r.app_state)
      app->destroy(r.app_state);
    return rc ? DSANA_EUSAGE : 0;
  }
  struct cli_report rep;
  rc = run_job(&r, scheduler_only, &rep);
  if (out)
    out->summary = rep.summary;
  app->destroy(r.app_state);
  return rc;
}

int cmd_app_main(const struct dsana_app *app, int argc, char **argv, bool scheduler_only) {
  if (cli_check_app(app) != 0)
    return CLI_EXIT_FAIL;
  int rc = cmd_app_job(app, argc, argv, scheduler_only, NULL);
  if (rc == DSANA_EINTR && runtime_launch_signal()) { /* die of it, as the shell expects: 128+N */
    fflush(stdout);
    signal(runtime_launch_signal(), SIG_DFL);
    raise(runtime_launch_signal());
    return 128 + runtime_launch_signal();
  }
  return cli_exit_code(rc);
}

int cmd_role_main(const char *role, int argc, char **argv) {
  static const struct option opts[] = {{"scheduler", required_argument, NULL, 's'},
                                       {"index", required_argument, NULL, 'i'},
                                       {"bind", required_argument, NULL, 'b'},
                                       {"peer-timeout", required_argument, NULL, 'p'},
                                       {"register-timeout", required_argument, NULL, 'r'},
                                       {"token-file", required_argument, NULL, 't'},
                                       {"threads", required_argument, NULL, 'n'},
                                       {"verbose", no_argument, NULL, 'v'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  struct run_config cfg;
  config_defaults(&cfg);
  cli_fault_from_env(&cfg);
  uint32_t index = UINT32_MAX;
  opterr = 0;
  optind = 1;
  bool seen[sizeof opts / sizeof opts[0]] = {false};
  for (int c; (c = getopt_long(argc, argv, ":hv", opts, NULL)) != -1;) {
    int bad = 0;
    const char *twice = cli_repeated_option(opts, seen, c);
    if (twice) {
      fprintf(stderr, "dsana %s: --%s given twice (give each option once)\n", role, twice);
      return CLI_EXIT_USAGE;
    }
    if (c == 's')
      bad = snprintf(cfg.scheduler_addr, sizeof cfg.scheduler_addr, "%s", optarg) >= (int)sizeof cfg.scheduler_addr;
    else if (c == 'i')
      bad = cli_parse_u32(optarg, 0, 1u << 20, &index) != 0;
    else if (c == 'b')
      bad = snprintf(cfg.bind_host, sizeof cfg.bind_host, "%s", optarg) >= (int)sizeof cfg.bind_host;
    else if (c == 'p')
      bad = cli_parse_seconds(optarg, &cfg.peer_timeout_s) != 0;
    else if (c == 'r')
      bad = cli_parse_seconds(optarg, &cfg.register_timeout_s) != 0;
    else if (c == 'n')
      bad = cli_parse_u32(optarg, 1, 1024, &cfg.threads) != 0;
    else if (c == 't')
      bad = snprintf(cfg.token_path, sizeof cfg.token_path, "%s", optarg) >= (int)sizeof cfg.token_path;
    else if (c == 'v')
      log_set_level(++cfg.verbose > 1 ? LOG_DEBUG : LOG_INFO);
    else if (c == 'h') {
      cli_print_role_help(role, stdout);
      return CLI_EXIT_OK;
    } else {
      fprintf(stderr, "dsana %s: %s '%s'\n", role, c == ':' ? "missing value for" : "unknown option", argv[optind - 1]);
      return CLI_EXIT_USAGE;
    }
    if (c == 's' && !bad)
      bad = !cli_addr_valid(optarg);
    if (bad) {
      fprintf(stderr, "dsana %s: %s %s: invalid value (%s)\n", role, argv[optind - 2], optarg,
              c == 's'   ? CLI_ADDR_EXPECT
              : c == 'i' ? "an integer in 0..1048576"
              : c == 'n' ? "an integer in 1..1024"
              : c == 'b' ? "a host name or address"
              : c == 't' ? "a file name"
                         : CLI_SECONDS_EXPECT);
      return CLI_EXIT_USAGE;
    }
  }
  if (!cfg.scheduler_addr[0] || optind != argc) {
    fprintf(stderr, "dsana %s: %s (see dsana %s --help)\n", role,
            optind != argc ? "unexpected argument" : "--scheduler ADDR is required", role);
    return CLI_EXIT_USAGE;
  }
  if (strncmp(cfg.scheduler_addr, "mpi://", 6) == 0) {
    /* an MPI job's ranks are fixed when mpirun starts it: none joins later */
    fprintf(stderr,
            "dsana %s: cannot join an MPI job on its own (its ranks all start with mpirun; a lost rank "
            "stops the job)\n",
            role);
    return CLI_EXIT_USAGE;
  }
  if (setup_token(&cfg, false, role) != 0)
    return CLI_EXIT_USAGE;
  struct role_params p = {.cfg = &cfg, .apps = cli_apps(), .index = index};
  log_info("%s: joining the scheduler at %s", role, cfg.scheduler_addr);
  int rc;
  while ((rc = runtime_run_role(strcmp(role, "server") == 0 ? ROLE_SERVER : ROLE_WORKER, &p)) == DSANA_ERESTART) {
    /* the job rolls back: register again once the scheduler has restarted
     * (its old socket gone, so that the registration is not lost with it);
     * an injected fault fires in the first run only */
    cfg.fault = (struct fault_plan){.point = FAULT_NONE};
    sleep(1);
    log_warn("registering again with the scheduler at %s", cfg.scheduler_addr);
  }
  log_info("%s: done (%s)", role, rc ? dsana_strerror(rc) : "the job ended");
  return cli_exit_code(rc);
}
