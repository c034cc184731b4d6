/* opts.c - common + app options through one getopt_long table (opts.h). */
#include "cli/core/opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/transport/transport.h"
#include "util/text/log.h"

enum {
  OPT_WORKERS = 1000,
  OPT_SERVERS,
  OPT_MODE,
  OPT_SCHED,
  OPT_TPW,
  OPT_THREADS,
  OPT_CHUNK,
  OPT_COMPRESS,
  OPT_SCENARIO,
  OPT_METRICS,
  OPT_TRACE,
  OPT_QUIET,
  OPT_SCHEDULER,
  OPT_BIND,
  OPT_REG_TIMEOUT,
  OPT_PEER_TIMEOUT,
  OPT_VERBOSE,
  OPT_WORKER_LOSS,
  OPT_MAX_RESTARTS,
  OPT_TOKEN,
  OPT_MAX_MSG,
  OPT_MAX_KEYS,
  OPT_CKPT,
  OPT_CKPT_EVERY,
  OPT_RESUME,
  OPT_TRANSPORT,
  OPT_ISOLATE,
  OPT_HELP,
  OPT_APP_BASE = 2000
};

/* A runtime option: its getopt entry, the name of its value, its help
 * (with the default) and, for errors, what a valid value looks like. */
static const struct cli_common_opt common[] = {
    {{"workers", required_argument, NULL, OPT_WORKERS},
     "W",
     "worker processes (default: the --scenario's count, else 1 using every core)",
     "an integer in 1..4096"},
    {{"threads", required_argument, NULL, OPT_THREADS},
     "N",
     "compute threads per worker (default: the cores / the workers on this machine)",
     "an integer in 1..1024"},
    {{"servers", required_argument, NULL, OPT_SERVERS}, "S", "server processes (default 1)", "an integer in 1..1024"},
    {{"mode", required_argument, NULL, OPT_MODE},
     "dsana|bsp",
     "dsana (default): dynamic scheduling, chunked transfers; bsp: the baseline",
     "dsana or bsp"},
    {{"sched", required_argument, NULL, OPT_SCHED},
     "dynamic|static",
     "task scheduling alone (default: dynamic with --mode dsana, static with bsp)",
     "dynamic or static"},
    {{"tasks-per-worker", required_argument, NULL, OPT_TPW},
     "N",
     "tasks per worker per iteration (default 16 or 4 a thread, fewer past 256 tasks a server, at least 4 and one "
     "a thread; PageRank makes fewer "
     "where they would be tiny)",
     "an integer in 1..65536"},
    {{"chunk", required_argument, NULL, OPT_CHUNK},
     "BYTES|auto|off",
     "transfer chunks: auto (~2 ms of transfer; default), off (whole tables; bsp's), BYTES",
     "auto, off, or a byte count that is a multiple of 8 (one value), at least 8, K/M/G suffixes"},
    {{"compress", required_argument, NULL, OPT_COMPRESS},
     "auto|on|off",
     "pulled values XOR the previous iteration's, then zstd (default auto: with --chunk auto over a modelled link "
     "slower than the compressor)",
     "auto, on or off"},
    {{"scenario", required_argument, NULL, OPT_SCENARIO},
     "FILE",
     "emulated cluster (JSON: worker speeds, stragglers, links)",
     "a file name"},
    {{"metrics", required_argument, NULL, OPT_METRICS},
     "FILE",
     "write JSON-lines metrics (iterations, workers, summary)",
     "a file name"},
    {{"trace", required_argument, NULL, OPT_TRACE},
     "FILE",
     "write a timeline (Chrome trace JSON: Perfetto, chrome://tracing)",
     "a file name"},
    {{"quiet", no_argument, NULL, OPT_QUIET}, NULL, "no tables, progress or top-K on the terminal", NULL},
    {{"scheduler", required_argument, NULL, OPT_SCHEDULER},
     "ADDR",
     "scheduler endpoint, e.g. tcp://10.0.0.1:7000 (multi-machine)",
     CLI_ADDR_EXPECT},
    {{"bind", required_argument, NULL, OPT_BIND},
     "HOST",
     "interface servers listen on (default 127.0.0.1)",
     "a host name or address"},
    {{"transport", required_argument, NULL, OPT_TRANSPORT},
     "tcp|mpi",
     "mpi: under mpirun, the ranks talk over MPI (rank 0: the scheduler)",
     "tcp or mpi"},
    {{"isolate", required_argument, NULL, OPT_ISOLATE},
     "processes|threads",
     "a job on this machine: every role a thread of one process (default: in-process messages, the "
     "least overhead; a role's failure ends the job), or each role a process (a worker that dies is "
     "replaced; the default when DSANA_FAULT is set)",
     "processes or threads"},
    {{"register-timeout", required_argument, NULL, OPT_REG_TIMEOUT},
     "SECONDS",
     "wait this long for all roles to register (default 30)",
     CLI_SECONDS_EXPECT},
    {{"peer-timeout", required_argument, NULL, OPT_PEER_TIMEOUT},
     "SECONDS",
     "a peer silent this long is lost (default 5)",
     CLI_SECONDS_EXPECT},
    {{"on-worker-loss", required_argument, NULL, OPT_WORKER_LOSS},
     "reassign|fail",
     "a lost worker's tasks go to the others (default), or the job stops",
     "reassign or fail"},
    {{"max-restarts", required_argument, NULL, OPT_MAX_RESTARTS},
     "N",
     "a killed server (or, in local runs, the scheduler) rolls every role back to the last complete checkpoint "
     "(else the start) and the job goes on, and local runs start a dead worker again, at most N times (default 3; "
     "0: neither)",
     "an integer in 0..100"},
    {{"token-file", required_argument, NULL, OPT_TOKEN},
     "FILE",
     "the job's secret (peers without it are refused); local runs make one",
     "a file name"},
    {{"max-keys", required_argument, NULL, OPT_MAX_KEYS},
     "N",
     "largest table accepted, checked before allocation (default: no limit)",
     "an integer in 1..4294967295"},
    {{"checkpoint", required_argument, NULL, OPT_CKPT},
     "DIR",
     "write consistent checkpoints into DIR (made if missing)",
     "a folder name"},
    {{"checkpoint-every", required_argument, NULL, OPT_CKPT_EVERY},
     "K",
     "iterations between checkpoints (default 10)",
     "an integer in 1..1073741824"},
    {{"resume", required_argument, NULL, OPT_RESUME},
     "DIR",
     "continue from the last complete checkpoint in DIR (its input and options unless given again)",
     "a folder name"},
    {{"max-message", required_argument, NULL, OPT_MAX_MSG},
     "BYTES",
     "largest message accepted, checked before allocation (default 64M)",
     "a byte count >= 4096, K/M/G suffixes"},
    {{"verbose", no_argument, NULL, OPT_VERBOSE},
     NULL,
     "say what runs where: the cluster, its roles, their ends (twice: debug)",
     NULL},
    {{"help", no_argument, NULL, OPT_HELP}, NULL, "this help (also -h)", NULL},
};
#define N_COMMON (sizeof common / sizeof common[0])

bool cli_parse_decimal(const char *s, uint64_t *out) {
  char *end;
  if (!s || !*s || *s == '-' || *s == '+')
    return false;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end)
    return false;
  *out = v;
  return true;
}

/* The command the user typed, when it is not the app's own ("sim"). */
static const char *cli_command_override;

void cli_name_command(const char *name) { cli_command_override = name; }

const char *cli_command(const struct cli_run *r) { return cli_command_override ? cli_command_override : r->app->name; }

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out) {
  char *end;
  errno = 0;
  if (!s || s[0] == '-' || s[0] == '\0')
    return DSANA_EINVAL;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v < min || v > max)
    return DSANA_EINVAL;
  *out = v;
  return 0;
}

int cli_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out) {
  uint64_t v;
  int rc = cli_parse_u64(s, min, max, &v);
  if (!rc)
    *out = (uint32_t)v;
  return rc;
}

int cli_parse_seconds(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= CLI_SECONDS_MIN && v <= CLI_SECONDS_MAX))
    return DSANA_EINVAL;
  *out = v;
  return 0;
}

/* A scheme is required ("127.0.0.1:7021" is a usage error), and a tcp://
 * address needs a numeric port in 1..65535 after its host: zmq fails on
 * "tcp://HOST" only when each role tries it, and did not refuse port
 * 99999. */
bool cli_addr_valid(const char *v) {
  if (!strstr(v, "://"))
    return false;
  if (strncmp(v, "mpi://", 6) == 0)
    return true;
  if (!net_addr_valid(v))
    return false;
  if (strncmp(v, "tcp://", 6) != 0)
    return true;
  const char *colon = strrchr(v + 6, ':'); /* the last one: tcp://[::1]:7000 */
  uint32_t port;
  return colon && colon > v + 6 && cli_parse_u32(colon + 1, 1, 65535, &port) == 0;
}

/* "off", "auto", or a byte count with an optional K/M/G suffix (>= 8). */
static int parse_chunk(const char *v, struct run_config *c) {
  if (strcmp(v, "off") == 0 || strcmp(v, "auto") == 0) {
    c->chunk = strcmp(v, "off") == 0 ? CHUNK_OFF : CHUNK_AUTO;
    return 0;
  }
  char *end;
  errno = 0;
  if (v[0] < '0' || v[0] > '9')
    return DSANA_EINVAL;
  unsigned long long n = strtoull(v, &end, 10);
  int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
  if (shift)
    end++;
  /* chunks hold whole values: a size that is not a multiple of 8 would be
   * cut down silently, so it is refused with the reason */
  if (errno || *end || n == 0 || n > (1ull << 40) >> shift || (n << shift) < 8 || (n << shift) % 8)
    return DSANA_EINVAL;
  c->chunk = CHUNK_FIXED;
  c->chunk_bytes = n << shift;
  return 0;
}

static int copy_str(char *dst, size_t cap, const char *src) {
  if (strlen(src) >= cap || !src[0])
    return DSANA_EINVAL;
  memcpy(dst, src, strlen(src) + 1);
  return 0;
}

static int set_common(struct cli_run *r, int id, const char *v) {
  struct run_config *c = &r->cfg;
  switch (id) {
  case OPT_WORKERS:
    r->workers_given = true;
    return cli_parse_u32(v, 1, 4096, &c->n_workers);
  case OPT_THREADS:
    return cli_parse_u32(v, 1, 1024, &c->threads);
  case OPT_SERVERS:
    r->servers_given = true;
    return cli_parse_u32(v, 1, MSG_MAX_SERVERS, &c->n_servers);
  case OPT_MODE:
    if (strcmp(v, "bsp") && strcmp(v, "dsana"))
      return DSANA_EINVAL;
    c->mode = strcmp(v, "dsana") == 0 ? MODE_DSANA : MODE_BSP;
    if (!c->sched_set)
      c->sched = c->mode == MODE_DSANA ? SCHED_DYNAMIC : SCHED_STATIC;
    if (!c->chunk_set)
      c->chunk = c->mode == MODE_DSANA ? CHUNK_AUTO : CHUNK_OFF;
    return 0;
  case OPT_CHUNK:
    c->chunk_set = true;
    return parse_chunk(v, c);
  case OPT_COMPRESS:
    return compress_mode_parse(v, &c->compress);
  case OPT_SCHED:
    c->sched_set = true;
    return sched_kind_parse(v, &c->sched);
  case OPT_TPW:
    c->tasks_per_worker_set = true;
    return cli_parse_u32(v, 1, 1u << 16, &c->tasks_per_worker);
  case OPT_SCENARIO:
    return copy_str(c->scenario_path, sizeof c->scenario_path, v);
  case OPT_METRICS:
    return copy_str(c->metrics_path, sizeof c->metrics_path, v);
  case OPT_TRACE:
    return copy_str(c->trace_path, sizeof c->trace_path, v);
  case OPT_QUIET:
    c->quiet = true;
    return 0;
  case OPT_SCHEDULER:
    if (!cli_addr_valid(v))
      return DSANA_EINVAL;
    return copy_str(c->scheduler_addr, sizeof c->scheduler_addr, v);
  case OPT_BIND:
    return copy_str(c->bind_host, sizeof c->bind_host, v);
  case OPT_REG_TIMEOUT:
    return cli_parse_seconds(v, &c->register_timeout_s);
  case OPT_PEER_TIMEOUT:
    return cli_parse_seconds(v, &c->peer_timeout_s);
  case OPT_MAX_RESTARTS:
    return cli_parse_u32(v, 0, 100, &c->max_restarts);
  case OPT_WORKER_LOSS:
    if (strcmp(v, "reassign") && strcmp(v, "fail"))
      return DSANA_EINVAL;
    c->fail_on_worker_loss = strcmp(v, "fail") == 0;
    return 0;
  case OPT_MAX_MSG: {
    struct run_config tmp = *c;
    if (parse_chunk(v, &tmp) != 0 || tmp.chunk != CHUNK_FIXED || tmp.chunk_bytes < 4096)
      return DSANA_EINVAL;
    c->max_payload_bytes = tmp.chunk_bytes; /* same K/M/G syntax */
    return 0;
  }
  case OPT_MAX_KEYS: {
    uint32_t k;
    if (cli_parse_u32(v, 1, UINT32_MAX, &k) != 0)
      return DSANA_EINVAL;
    c->max_keys = k;
    return 0;
  }
  case OPT_CKPT:
    if (!c->checkpoint_every)
      c->checkpoint_every = 10;
    return copy_str(c->checkpoint_dir, sizeof c->checkpoint_dir, v);
  case OPT_CKPT_EVERY:
    return cli_parse_u32(v, 1, 1u << 30, &c->checkpoint_every);
  case OPT_RESUME:
    return copy_str(c->resume_dir, sizeof c->resume_dir, v);
  case OPT_TOKEN:
    return copy_str(c->token_path, sizeof c->token_path, v);
  case OPT_TRANSPORT:
    if (strcmp(v, "tcp") && strcmp(v, "mpi"))
      return DSANA_EINVAL;
    return copy_str(c->transport, sizeof c->transport, v);
  case OPT_ISOLATE:
    if (strcmp(v, "threads") && strcmp(v, "processes"))
      return DSANA_EINVAL;
    c->isolate = strcmp(v, "threads") == 0 ? ISOLATE_THREADS : ISOLATE_PROCESSES;
    return 0;
  case OPT_VERBOSE:
    c->verbose++;
    log_set_level(c->verbose > 1 ? LOG_DEBUG : LOG_INFO);
    return 0;
  }
  return DSANA_EINVAL;
}

static size_t count_app_opts(const struct dsana_app *app) {
  size_t n = 0;
  while (app->options && app->options[n].name)
    n++;
  return n;
}

static struct option *build_table(const struct dsana_app *app) {
  size_t na = count_app_opts(app);
  struct option *t = calloc(N_COMMON + na + 1, sizeof *t);
  if (!t)
    return NULL;
  for (size_t i = 0; i < N_COMMON; i++)
    t[i] = common[i].opt;
  for (size_t i = 0; i < na; i++)
    t[N_COMMON + i] = (struct option){app->options[i].name, app->options[i].arg ? required_argument : no_argument, NULL,
                                      OPT_APP_BASE + (int)i};
  return t;
}

/* Give the app option `name` (NULL: a positional argument) the value
 * `value`, as if it were on the command line. Returns 0, or DSANA_EUSAGE
 * after one line on stderr (the app refused it, or too many). */
static int cli_add_app_arg(struct cli_run *r, const char *name, const char *value) {
  return cli_add_app_arg_from(r, name, value, NULL);
}

int cli_add_app_arg_from(struct cli_run *r, const char *name, const char *value, const char *origin) {
  char err[512] = "";
  if (r->args.n >= MSG_MAX_ARGS || strlen(value) >= MSG_ARG_MAX) {
    fprintf(stderr, "dsana %s: too many or too long arguments\n", cli_command(r));
    return DSANA_EUSAGE;
  }
  if (r->app->set_option(r->app_state, name, value, err, sizeof err) != 0) {
    fprintf(stderr, "dsana %s: %s%s%s\n", cli_command(r), origin ? origin : "", origin ? " " : "", err);
    return DSANA_EUSAGE;
  }
  snprintf(r->args.name[r->args.n], MSG_NAME_MAX, "%s", name ? name : "");
  snprintf(r->args.value[r->args.n], MSG_ARG_MAX, "%s", value);
  r->args.n++;
  return 0;
}

static const struct cli_common_opt *common_opt(int id) {
  for (size_t i = 0; i < N_COMMON; i++)
    if (common[i].opt.val == id)
      return &common[i];
  return &common[N_COMMON - 1];
}

const char *cli_option_value(const struct cli_run *r, const struct dsana_app_option *o) {
  const char *v = o->arg ? o->default_value : NULL;
  for (uint32_t i = 0; i < r->args.n; i++)
    if (strcmp(r->args.name[i], o->name) == 0)
      v = o->arg ? r->args.value[i] : "on";
  return v;
}

const struct cli_common_opt *cli_common_options(size_t *n) {
  *n = N_COMMON;
  return common;
}

/* What MPI cannot do, refused before anything starts: MPI's launcher
 * connects the ranks (no --scheduler, no token), and a rank that dies ends
 * an MPI job, so there is no replacing lost workers (checkpoints and
 * --resume are the recovery). */
static int check_transport(struct cli_run *r, bool reassign_given) {
  const struct run_config *c = &r->cfg;
  const char *why = NULL;
  bool mpi = strcmp(c->transport, "mpi") == 0;
  if (!mpi && strncmp(c->scheduler_addr, "mpi://", 6) == 0)
    why = "mpi:// addresses are for --transport mpi under mpirun";
  else if (mpi && c->scheduler_addr[0])
    why = "--transport mpi needs no --scheduler: rank 0 is the scheduler";
  else if (mpi && c->token_path[0])
    why = "--transport mpi takes no --token-file: MPI's launcher connects the ranks";
  else if (mpi && reassign_given)
    why = "--on-worker-loss reassign is not possible with --transport mpi: a lost rank stops the job (use "
          "--checkpoint and --resume)";
  else if (c->isolate == ISOLATE_THREADS && (mpi || c->scheduler_addr[0]))
    why = "--isolate threads runs the whole job in this process: no --scheduler, no --transport mpi";
  else if (c->isolate == ISOLATE_THREADS && c->fault.point != FAULT_NONE)
    why = "DSANA_FAULT kills or stops a role's process: use --isolate processes";
  if (why) {
    fprintf(stderr, "dsana %s: %s\n", cli_command(r), why);
    return DSANA_EUSAGE;
  }
  if (mpi)
    r->cfg.fail_on_worker_loss = true;
  if (r->cfg.isolate == ISOLATE_AUTO) /* threads, unless a test injects a fault into a role's process */
    r->cfg.isolate = r->cfg.fault.point != FAULT_NONE ? ISOLATE_PROCESSES : ISOLATE_THREADS;
  return 0;
}

const char *cli_repeated_option(const struct option *table, bool *seen, int val) {
  size_t i = 0;
  while (table[i].name && table[i].val != val)
    i++;
  if (!table[i].name || table[i].has_arg == no_argument)
    return NULL;
  if (seen[i])
    return table[i].name;
  seen[i] = true;
  return NULL;
}

static int parse_options(struct cli_run *r, int argc, char **argv, const struct option *table, bool *seen,
                         bool *reassign_given) {
  int id;
  while ((id = getopt_long(argc, argv, ":h", table, NULL)) != -1) {
    if (id == '?' || id == ':') {
      const char *bad = argv[optind - 1];
      fprintf(stderr, "dsana %s: %s '%s' (see dsana %s --help)\n", cli_command(r),
              id == '?' ? "unknown option" : "missing value for", bad, cli_command(r));
      return DSANA_EUSAGE;
    }
    if (id == OPT_HELP || id == 'h') {
      r->help = 1; /* the caller prints the usage it runs */
      return 0;
    }
    const char *twice = cli_repeated_option(table, seen, id);
    if (twice) {
      fprintf(stderr, "dsana %s: --%s given twice (give each option once)\n", cli_command(r), twice);
      return DSANA_EUSAGE;
    }
    if (id >= OPT_APP_BASE) {
      const struct dsana_app_option *o = &r->app->options[id - OPT_APP_BASE];
      if (cli_add_app_arg(r, o->name, optarg ? optarg : "") != 0)
        return DSANA_EUSAGE;
    } else if (set_common(r, id, optarg) != 0) {
      const struct cli_common_opt *o = common_opt(id);
      fprintf(stderr, "dsana %s: --%s %s: invalid value (%s)\n", cli_command(r), o->opt.name, optarg ? optarg : "",
              o->expect);
      return DSANA_EUSAGE;
    }
    if (id == OPT_WORKER_LOSS)
      *reassign_given = !r->cfg.fail_on_worker_loss;
  }
  return 0;
}

static int parse_loop(struct cli_run *r, int argc, char **argv, const struct option *table) {
  opterr = 0;
  optind = 1;
  bool reassign_given = false;
  size_t n_opts = 0;
  while (table[n_opts].name)
    n_opts++;
  bool *seen = calloc(n_opts + 1, sizeof *seen);
  if (!seen)
    return DSANA_ENOMEM;
  int rc = parse_options(r, argc, argv, table, seen, &reassign_given);
  free(seen);
  if (rc)
    return rc;
  if (check_transport(r, reassign_given) != 0)
    return DSANA_EUSAGE;
  for (int i = optind; i < argc; i++)
    if (cli_add_app_arg(r, NULL, argv[i]) != 0)
      return DSANA_EUSAGE;
  return 0;
}

void cli_fault_from_env(struct run_config *c) {
  const char *spec = getenv("DSANA_FAULT");
  if (fault_plan_parse(spec, &c->fault) != 0)
    log_warn("ignoring malformed DSANA_FAULT '%s'", spec);
}

int cli_parse_run(const struct dsana_app *app, int argc, char **argv, struct cli_run *r) {
  memset(r, 0, sizeof *r);
  config_defaults(&r->cfg);
  cli_fault_from_env(&r->cfg);
  r->app = app;
  if (app->create(&r->app_state) != 0)
    return DSANA_ENOMEM;
  struct option *table = build_table(app);
  if (!table)
    return DSANA_ENOMEM;
  /* getopt permutes argv so that options may follow positionals. */
  int rc = parse_loop(r, argc, argv, table);
  free(table);
  return rc;
}
