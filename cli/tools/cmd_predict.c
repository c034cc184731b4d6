/*
 * cmd_predict.c - `dsana logreg|mlp predict MODEL DATA --out FILE`: one line
 * per row of DATA, "label<TAB>probability" of the class the model
 * predicts (dsana/outfile.h: atomic for a regular file, gzip for .gz),
 * checked writable and distinct from MODEL and DATA first; the accuracy
 * against DATA's labels on stdout. No cluster: scoring is one pass over the data.
 */
#include "cli/tools/cmd_predict.h"

#include <getopt.h>
#include <stdio.h>

#include "cli/core/exit_codes.h"
#include "cli/core/opts.h"
#include "cli/core/paths.h"
#include "dsana/dsana.h"

static void usage(FILE *f, const char *app) {
  fprintf(f,
          "usage: dsana %s predict MODEL DATA --out FILE [--quiet]\n"
          "Score DATA (libsvm text, .gz, or a dsana binary dataset) with MODEL (dsana %s --model-out):\n"
          "FILE gets 'label<TAB>probability' of the predicted class per row; the accuracy is printed.\n",
          app, app);
}

int cmd_predict_main(const char *app, cli_predict_fn predict, int argc, char **argv) {
  static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
                                       {"quiet", no_argument, NULL, 'q'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  const char *out = NULL;
  int quiet = 0;
  opterr = 0;
  optind = 1;
  bool seen[sizeof opts / sizeof opts[0]] = {false};
  for (int c; (c = getopt_long(argc, argv, ":ho:q", opts, NULL)) != -1;) {
    const char *twice = cli_repeated_option(opts, seen, c);
    if (twice) {
      fprintf(stderr, "dsana %s predict: --%s given twice (give each option once)\n", app, twice);
      return CLI_EXIT_USAGE;
    }
    if (c == 'o')
      out = optarg;
    else if (c == 'q')
      quiet = 1;
    else if (c == 'h') {
      usage(stdout, app);
      return CLI_EXIT_OK;
    } else {
      fprintf(stderr, "dsana %s predict: %s '%s' (see dsana %s predict --help)\n", app,
              c == ':' ? "missing value for" : "unknown option", argv[optind - 1], app);
      return CLI_EXIT_USAGE;
    }
  }
  if (argc - optind != 2 || !out || !out[0]) {
    fprintf(stderr, "dsana %s predict: expected MODEL DATA and --out FILE (see dsana %s predict --help)\n", app, app);
    return CLI_EXIT_USAGE;
  }
  if (cli_check_predict_paths(argv[optind], argv[optind + 1], out) != 0)
    return CLI_EXIT_USAGE;
  char err[1024] = "";
  double accuracy = 0;
  int rc = predict(argv[optind], argv[optind + 1], out, &accuracy, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana %s predict: %s\n", app, err[0] ? err : "failed");
    return cli_exit_input(rc);
  }
  if (!quiet)
    printf("accuracy: %.6f\n", accuracy);
  return CLI_EXIT_OK;
}
