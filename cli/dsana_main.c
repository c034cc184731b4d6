/*
 * dsana_main.c - the dsana command (dsana/launch.h): dispatch to apps,
 * roles and the graph, data and sim tools, with the apps a program gives
 * or the built-in ones. cli/main.c is the dsana executable's call of it.
 */
#include <malloc.h>
#include <sys/resource.h>
#include <stdio.h>
#include <string.h>

#include "cli/core/cli_apps.h"
#include "cli/core/exit_codes.h"
#include "cli/core/help.h"
#include "cli/run/cmd_run.h"
#include "cli/run/cmd_sim.h"
#include "cli/tools/cmd_data.h"
#include "cli/tools/cmd_graph.h"
#include "cli/tools/cmd_predict.h"
#include "dsana/dsana.h"
#include "dsana/launch.h"
#include "util/text/proctitle.h"

static void usage(FILE *f) {
  fprintf(f, "usage: dsana APP [options] ARGS      run APP on a local cluster (forks scheduler, servers, workers)\n"
             "       dsana scheduler APP --scheduler ADDR --token-file F [options] ARGS   only the scheduler, on ADDR\n"
             "       dsana server|worker --scheduler ADDR --token-file F               one server or worker of it\n"
             "       dsana sim GRAPH|--tasks FILE [options]              simulate a run (docs/sim.md)\n"
             "       dsana graph convert|info|gen ...                      graph tools\n"
             "       dsana data convert|info|gen ...                       dataset tools (libsvm, IDX, binary)\n"
             "       dsana --help | --version\n\napps:\n");
  for (const struct dsana_app *const *a = cli_apps(); *a; a++)
    fprintf(f, "  %-12s %s\n", (*a)->name, (*a)->summary);
  fprintf(f, "\nruntime options (dsana APP --help shows the app's own):\n");
  cli_print_common_help(f);
  fprintf(f, "\nUnder mpirun or srun, one command line starts every role: rank 0 is the scheduler (it listens on\n"
             "--scheduler ADDR), ranks 1..S the servers, the rest workers.\n");
}

/* Table transfers allocate and free megabyte-sized message buffers every
 * iteration; served by mmap, each one costs fresh page faults on this
 * machine (they dominated pull time). Keep them in the heap for reuse. */
static void tune_malloc(void) {
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1024 << 20);
}

/* Descriptors: the soft limit up to the hard one (at most 1M), so that
 * peers holding idle connections (until ZeroMQ's handshake timeout drops
 * them) cannot starve a role of the descriptors its outputs need. */
static void raise_fd_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
    return;
  rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
  if (rl.rlim_cur < want) {
    rl.rlim_cur = want;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

static int dispatch(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0) {
    printf("dsana %s\n", DSANA_VERSION_STRING);
    return CLI_EXIT_OK;
  }
  if (strcmp(cmd, "graph") == 0)
    return cmd_graph_main(argc - 1, argv + 1);
  if (strcmp(cmd, "sim") == 0)
    return cmd_sim_main(argc - 1, argv + 1);
  if (strcmp(cmd, "data") == 0)
    return cmd_data_main(argc - 1, argv + 1);
  if (argc > 2 && strcmp(argv[2], "predict") == 0 && cli_find_predict(cmd))
    return cmd_predict_main(cmd, cli_find_predict(cmd), argc - 2, argv + 2);
  if (strcmp(cmd, "server") == 0 || strcmp(cmd, "worker") == 0)
    return cmd_role_main(cmd, argc - 1, argv + 1);
  if (strcmp(cmd, "scheduler") == 0) {
    const struct dsana_app *app = argc > 2 ? cli_find_app(argv[2]) : NULL;
    if (!app && argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
      cli_print_scheduler_help(stdout);
      return CLI_EXIT_OK;
    }
    if (!app) {
      fprintf(stderr, "dsana scheduler: expected an app name after 'scheduler' (see dsana --help)\n");
      return CLI_EXIT_USAGE;
    }
    return cmd_app_main(app, argc - 2, argv + 2, true);
  }
  const struct dsana_app *app = cli_find_app(cmd);
  if (!app) {
    fprintf(stderr, "dsana: unknown command '%s' (see dsana --help)\n", cmd);
    return CLI_EXIT_USAGE;
  }
  return cmd_app_main(app, argc - 1, argv + 1, false);
}

int dsana_main(int argc, char **argv, const struct dsana_app *const *apps, size_t n) {
  if (cli_use_apps(apps, n) != 0) {
    fprintf(stderr, "dsana: %zu apps given: at most %d, none NULL\n", n, CLI_MAX_APPS);
    return CLI_EXIT_FAIL;
  }
  argv = proctitle_init(argc, argv); /* the forked roles retitle themselves */
  tune_malloc();
  raise_fd_limit();
  int code = dispatch(argc, argv);
  cli_use_apps(NULL, 0);
  return code;
}
