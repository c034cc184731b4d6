/*
 * cmd_data.c - `dsana data ...`: convert a libsvm file (plain or gzip), a
 * binary dataset or an IDX pair (MNIST, Fashion-MNIST) to the binary format
 * or to libsvm text, print a dataset's shape and classes, and generate a
 * logistic-regression problem. Thin: the work is in src/io/dataset/; this
 * file parses options and reports, in the style of cmd_graph.c.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/tools/cmd_data.h"
#include "cli/core/exit_codes.h"
#include "cli/core/opts.h"
#include "cli/core/paths.h"
#include "dsana/dataset.h"
#include "dsana/dsana.h"
#include "dsana/outfile.h"
#include "util/text/str.h"

static const char DATA_USAGE[] =
    "usage: dsana data convert IN OUT                    libsvm text (plain or .gz) or binary -> OUT\n"
    "       dsana data convert --idx IMAGES LABELS OUT   an IDX pair (MNIST, Fashion-MNIST) -> OUT\n"
    "       dsana data gen logreg --samples N --features F --nnz-per-row K [--classes C] [--seed X] --out FILE\n"
    "                             [--test-out FILE --test-samples M]   (a held-out set from the same model)\n"
    "       dsana data info FILE                         rows, features, nonzeros, value type, classes\n"
    "OUT ending in .svm or .txt (or .svm.gz, .txt.gz) is written as libsvm text, anything else in dsana's\n"
    "binary format (memory-mapped by the roles). Each subcommand takes -h/--help.\n";

/* Largest number of label: count lines info prints. */
enum { INFO_MAX_LABELS = 100 };

static bool is_text_name(const char *path) {
  return str_ends_with(path, ".svm") || str_ends_with(path, ".txt") || str_ends_with(path, ".svm.gz") ||
         str_ends_with(path, ".txt.gz");
}

/* Options shared by every subcommand. */
struct data_cli {
  const char *cmd; /* "convert", "info", "gen" for messages */
  bool idx;
  bool has_samples, has_features, has_nnz, has_test_samples;
  uint64_t samples, features, nnz_per_row, classes, seed, test_samples;
  const char *out, *test_out;
  const char *pos[4];
  int npos;
};

enum {
  OPT_IDX = 256,
  OPT_SAMPLES,
  OPT_FEATURES,
  OPT_NNZ,
  OPT_CLASSES,
  OPT_SEED,
  OPT_OUT,
  OPT_TEST_OUT,
  OPT_TEST_SAMPLES
};

/* Where a numeric option's value goes (and its "given" flag). */
static uint64_t *num_dest(struct data_cli *c, int ch, bool **given) {
  *given = NULL;
  switch (ch) {
  case OPT_SAMPLES:
    *given = &c->has_samples;
    return &c->samples;
  case OPT_FEATURES:
    *given = &c->has_features;
    return &c->features;
  case OPT_NNZ:
    *given = &c->has_nnz;
    return &c->nnz_per_row;
  case OPT_CLASSES:
    return &c->classes;
  case OPT_SEED:
    return &c->seed;
  case OPT_TEST_SAMPLES:
    *given = &c->has_test_samples;
    return &c->test_samples;
  default:
    return NULL;
  }
}

/* One option; -1 to go on, else an exit code. */
static int take_opt(struct data_cli *c, int ch, const char *name, char **argv, const char *help) {
  bool *given;
  uint64_t *dst = num_dest(c, ch, &given);
  if (dst) {
    if (!cli_parse_decimal(optarg, dst)) {
      fprintf(stderr, "dsana data %s: bad value '%s' for --%s (want a non-negative integer)\n", c->cmd, optarg, name);
      return CLI_EXIT_USAGE;
    }
    if (given)
      *given = true;
    return -1;
  }
  switch (ch) {
  case 'h':
    fputs(help, stdout);
    return CLI_EXIT_OK;
  case OPT_IDX:
    c->idx = true;
    return -1;
  case OPT_OUT:
    c->out = optarg;
    return -1;
  case OPT_TEST_OUT:
    c->test_out = optarg;
    return -1;
  case ':':
    fprintf(stderr, "dsana data %s: option '%s' needs a value\n", c->cmd, argv[optind - 1]);
    return CLI_EXIT_USAGE;
  default:
    fprintf(stderr, "dsana data %s: unknown option '%s' (see --help)\n", c->cmd, argv[optind - 1]);
    return CLI_EXIT_USAGE;
  }
}

/* Parse argv (argv[0] = subcommand word); positionals go to c->pos.
 * Returns -1 to continue, else an exit code. */
static int parse_opts(struct data_cli *c, int argc, char **argv, const struct option *longopts, const char *help) {
  int ch, idx = -1;
  bool seen[64] = {false}; /* (the data commands' tables are shorter) */
  optind = 0;              /* glibc: full re-initialisation, the main CLI may have used getopt */
  opterr = 0;
  while ((ch = getopt_long(argc, argv, ":h", longopts, &idx)) != -1) {
    const char *twice = cli_repeated_option(longopts, seen, ch);
    if (twice) {
      fprintf(stderr, "dsana data %s: --%s given twice (give each option once)\n", c->cmd, twice);
      return CLI_EXIT_USAGE;
    }
    int rc = take_opt(c, ch, idx >= 0 ? longopts[idx].name : "?", argv, help);
    if (rc >= 0)
      return rc;
    idx = -1;
  }
  for (int i = optind; i < argc; i++) {
    if (c->npos == 4) {
      fprintf(stderr, "dsana data %s: too many arguments ('%s')\n", c->cmd, argv[i]);
      return CLI_EXIT_USAGE;
    }
    c->pos[c->npos++] = argv[i];
  }
  return -1;
}

/* Write ds to path: libsvm text for a text name, else binary. */
static int write_out(const struct dsana_dataset *ds, const char *path) {
  char err[512];
  int rc = is_text_name(path) ? dsana_dataset_write_libsvm(ds, path, err, sizeof err)
                              : dsana_dataset_write_binary(ds, path, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana: %s\n", err);
    return CLI_EXIT_FAIL;
  }
  printf("%s: %" PRIu64 " rows, %" PRIu64 " features, %" PRIu64 " nonzeros (%s)\n", path, ds->n_rows, ds->n_features,
         ds->nnz, ds->val_f32 ? "float" : "double");
  return CLI_EXIT_OK;
}

static int cmd_convert(int argc, char **argv) {
  static const struct option lo[] = {{"idx", no_argument, NULL, OPT_IDX}, {"help", no_argument, NULL, 'h'}, {0}};
  struct data_cli c = {.cmd = "convert"};
  int rc = parse_opts(&c, argc, argv, lo,
                      "usage: dsana data convert IN OUT\n"
                      "       dsana data convert --idx IMAGES LABELS OUT\n"
                      "Read IN (libsvm/svmlight text, plain or gzip; or a dsana binary dataset), or an IDX pair\n"
                      "(images 0x00000803 and labels 0x00000801, plain or gzip; pixels scaled to [0,1] as float,\n"
                      "zero pixels not stored), and write OUT atomically: libsvm text when OUT ends in .svm or\n"
                      ".txt (.gz: gzipped), dsana's binary format otherwise.\n");
  if (rc >= 0)
    return rc;
  if (c.npos != (c.idx ? 3 : 2)) {
    fprintf(stderr, "dsana data convert: want %s (see --help)\n", c.idx ? "IMAGES LABELS OUT" : "IN and OUT");
    return CLI_EXIT_USAGE;
  }
  if (cli_check_tool_output("data convert", c.pos[c.npos - 1], (const char *const *)c.pos, c.npos - 1) != 0)
    return CLI_EXIT_USAGE;
  char err[512];
  struct dsana_dataset ds;
  rc = c.idx ? dsana_dataset_from_idx(c.pos[0], c.pos[1], &ds, err, sizeof err)
             : dsana_dataset_open(c.pos[0], NULL, &ds, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana: %s\n", err);
    return cli_exit_input(rc);
  }
  rc = write_out(&ds, c.pos[c.npos - 1]);
  dsana_dataset_fini(&ds);
  return rc;
}

/* "label L: count" lines, at most INFO_MAX_LABELS of them. */
static int print_classes(const struct dsana_dataset *ds) {
  double *labels;
  uint64_t k;
  char err[512];
  if (dsana_dataset_classes(ds, &labels, &k) != 0) {
    fprintf(stderr, "dsana: %s: out of memory listing classes\n", ds->priv_name ? ds->priv_name : "dataset");
    return CLI_EXIT_FAIL;
  }
  uint64_t *counts = malloc((k ? k : 1) * sizeof *counts);
  if (!counts || dsana_dataset_class_counts(ds, labels, k, counts, err, sizeof err) != 0) {
    fprintf(stderr, "dsana: out of memory counting classes\n");
    free(labels);
    free(counts);
    return CLI_EXIT_FAIL;
  }
  printf("classes: %" PRIu64 "\n", k);
  for (uint64_t c = 0; c < k && c < INFO_MAX_LABELS; c++)
    printf("label %.17g: %" PRIu64 "\n", labels[c], counts[c]);
  if (k > INFO_MAX_LABELS)
    printf("labels_not_shown: %" PRIu64 "\n", k - INFO_MAX_LABELS);
  free(labels);
  free(counts);
  return CLI_EXIT_OK;
}

static void print_shape(const struct dsana_dataset *ds, const char *path) {
  double cells = (double)ds->n_rows * (double)ds->n_features;
  printf("format: %s\n", dsana_dataset_is_binary(path) ? "binary" : "libsvm");
  printf("rows: %" PRIu64 "\n", ds->n_rows);
  printf("features: %" PRIu64 "\n", ds->n_features);
  printf("nnz: %" PRIu64 "\n", ds->nnz);
  printf("nnz_per_row: %.6g\n", (double)ds->nnz / (double)ds->n_rows);
  printf("density: %.6g\n", cells > 0 ? (double)ds->nnz / cells : 0.0);
  printf("value_type: %s\n", ds->val_f32 ? "float" : "double");
}

static int cmd_info(int argc, char **argv) {
  static const struct option lo[] = {{"help", no_argument, NULL, 'h'}, {0}};
  struct data_cli c = {.cmd = "info"};
  int rc = parse_opts(&c, argc, argv, lo,
                      "usage: dsana data info FILE\n"
                      "Read FILE (libsvm text, plain or gzip, or a binary dataset: checked whole) and print its\n"
                      "format, rows, features, nonzeros, value type and classes with their row counts, one\n"
                      "'key: value' per line (at most 100 'label L: rows' lines).\n");
  if (rc >= 0)
    return rc;
  if (c.npos != 1) {
    fprintf(stderr, "dsana data info: want one FILE (see --help)\n");
    return CLI_EXIT_USAGE;
  }
  char err[512];
  struct dsana_dataset ds;
  rc = dsana_dataset_open(c.pos[0], NULL, &ds, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana: %s\n", err);
    return cli_exit_input(rc);
  }
  print_shape(&ds, c.pos[0]);
  rc = print_classes(&ds);
  dsana_dataset_fini(&ds);
  return rc;
}

/* Usage checks of gen logreg; -1 when fine, else an exit code. */
static int check_gen(const struct data_cli *c) {
  const char *kind = c->npos ? c->pos[0] : NULL;
  if (!kind || strcmp(kind, "logreg") != 0) {
    fprintf(stderr, "dsana data gen: want 'logreg'%s%s (see --help)\n", kind ? ", not " : "", kind ? kind : "");
    return CLI_EXIT_USAGE;
  }
  if (c->npos > 1) {
    fprintf(stderr, "dsana data gen: unexpected argument '%s'\n", c->pos[1]);
    return CLI_EXIT_USAGE;
  }
  if (!c->out || !c->has_samples || !c->has_features || !c->has_nnz) {
    fprintf(stderr, "dsana data gen logreg: --samples, --features, --nnz-per-row and --out are required\n");
    return CLI_EXIT_USAGE;
  }
  if (c->nnz_per_row > UINT32_MAX || c->classes > UINT32_MAX) {
    fprintf(stderr, "dsana data gen logreg: --nnz-per-row and --classes must be below 2^32\n");
    return CLI_EXIT_USAGE;
  }
  if (!c->test_out != !c->has_test_samples || (c->has_test_samples && c->test_samples == 0)) {
    fprintf(stderr, "dsana data gen logreg: --test-out FILE and --test-samples N (N >= 1) go together\n");
    return CLI_EXIT_USAGE;
  }
  if (c->test_out && dsana_outfile_same(c->out, c->test_out)) {
    fprintf(stderr, "dsana data gen logreg: --out and --test-out name the same file %s\n", c->out);
    return CLI_EXIT_USAGE;
  }
  if (cli_check_tool_output("data gen logreg", c->out, NULL, 0) != 0 ||
      (c->test_out && cli_check_tool_output("data gen logreg", c->test_out, NULL, 0) != 0))
    return CLI_EXIT_USAGE;
  return -1;
}

/* Rows [first, first + n) of the generator's sequence, written to path. */
static int gen_rows(const struct data_cli *c, uint64_t first, uint64_t n, const char *path) {
  char err[512];
  struct dsana_dataset ds;
  int rc = dsana_dataset_gen_logreg_rows(first, n, c->features, (uint32_t)c->nnz_per_row, (uint32_t)c->classes, c->seed,
                                         &ds, err, sizeof err);
  if (rc) {
    fprintf(stderr, "dsana data %s\n", err);
    return rc == DSANA_EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
  }
  rc = write_out(&ds, path);
  dsana_dataset_fini(&ds);
  return rc;
}

static int cmd_gen(int argc, char **argv) {
  static const struct option lo[] = {{"samples", required_argument, NULL, OPT_SAMPLES},
                                     {"features", required_argument, NULL, OPT_FEATURES},
                                     {"nnz-per-row", required_argument, NULL, OPT_NNZ},
                                     {"classes", required_argument, NULL, OPT_CLASSES},
                                     {"seed", required_argument, NULL, OPT_SEED},
                                     {"out", required_argument, NULL, OPT_OUT},
                                     {"test-out", required_argument, NULL, OPT_TEST_OUT},
                                     {"test-samples", required_argument, NULL, OPT_TEST_SAMPLES},
                                     {"help", no_argument, NULL, 'h'},
                                     {0}};
  struct data_cli c = {.cmd = "gen", .classes = 2, .seed = 1};
  int rc = parse_opts(&c, argc, argv, lo,
                      "usage: dsana data gen logreg --samples N --features F --nnz-per-row K [--classes C]\n"
                      "                             [--seed X] --out FILE [--test-out FILE --test-samples M]\n"
                      "N rows of K distinct features out of F, values uniform in (0,1] (float), labels drawn\n"
                      "from a hidden linear model: -1/+1 by its sigmoid when C = 2 (the default), 0..C-1 by its\n"
                      "softmax otherwise (C <= 1024). Same seed (default 1), same file, for any thread count.\n"
                      "--test-out: M more rows from the same model and distribution (rows N..N+M-1 of the same\n"
                      "sequence), a held-out test set for --test.\n"
                      "FILE ending in .svm or .txt (.gz: gzipped): libsvm text; else the binary format.\n");
  if (rc >= 0)
    return rc;
  if ((rc = check_gen(&c)) >= 0)
    return rc;
  rc = gen_rows(&c, 0, c.samples, c.out);
  return rc || !c.test_out ? rc : gen_rows(&c, c.samples, c.test_samples, c.test_out);
}

int cmd_data_main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "dsana data: want a subcommand: convert, info or gen (see dsana data --help)\n");
    return CLI_EXIT_USAGE;
  }
  const char *sub = argv[1];
  if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0 || strcmp(sub, "help") == 0) {
    fputs(DATA_USAGE, stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(sub, "convert") == 0)
    return cmd_convert(argc - 1, argv + 1);
  if (strcmp(sub, "info") == 0)
    return cmd_info(argc - 1, argv + 1);
  if (strcmp(sub, "gen") == 0)
    return cmd_gen(argc - 1, argv + 1);
  fprintf(stderr, "dsana data: unknown subcommand '%s' (want convert, info or gen)\n", sub);
  return CLI_EXIT_USAGE;
}
