/*
 * mlp.c - a multilayer perceptron trained by exact data-parallel SGD on
 * dsana: options, setup and the app table. The design is in mlp.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/apps.h"
#include "apps/common/app_opts.h"
#include "mlp.h"

/* --hidden's rule, in its help and its message, from the limits of mlp.h
 * (plain numbers, so that they can be spelled out here). */
#define STR_(x) #x
#define STR(x) STR_(x)
#define HIDDEN_RULE "1.." STR(MLP_MAX_HIDDEN) " layers of 1.." STR(MLP_MAX_WIDTH) " units"

enum { OPT_HIDDEN = 1 }; /* its row below */
static const struct dsana_app_option mlp_options[] = {
    {"test", "FILE",
     "a test set (libsvm or dsana binary): its accuracy and log-loss at every epoch's start and the end",
     DSANA_OPT_REPORT, NULL, .type = DSANA_VALUE_PATH, DSANA_FIELD(struct mlp_app, d.test_path)},
    [OPT_HIDDEN] = {"hidden", "N[,N...]", "hidden layer widths, " HIDDEN_RULE, DSANA_OPT_PARAM, "256",
                    .type = DSANA_VALUE_APP, .min = 1, .max = MLP_MAX_WIDTH}, /* a width's range; parse_hidden() */
    {"activation", "relu|tanh", "the hidden layers' activation", DSANA_OPT_PARAM, "relu", .type = DSANA_VALUE_CHOICE,
     DSANA_FIELD(struct mlp_app, act)},
    {"batch", "N", "rows a step", DSANA_OPT_PARAM, "256", .type = DSANA_VALUE_UINT, DSANA_FIELD(struct mlp_app, batch),
     .min = 1, .max = 0x1p40},
    {"epochs", "E", "passes over the training set (then one evaluation of every row)", DSANA_OPT_REPORT, "10",
     .type = DSANA_VALUE_UINT, DSANA_FIELD(struct mlp_app, epochs), .min = 1, .max = 100000},
    {"max-iter", "K", "K iterations instead of --epochs (the last evaluates every row)", DSANA_OPT_REPORT, NULL,
     .type = DSANA_VALUE_UINT, DSANA_FIELD(struct mlp_app, max_iter_given), .min = 1, .max = 100000000},
    {"final-eval", "on|off",
     "after the last step, one iteration evaluates every training row (and --test); off: none, the same model "
     "sooner",
     DSANA_OPT_REPORT, "on", .type = DSANA_VALUE_CHOICE, DSANA_FIELD(struct mlp_app, no_final_eval)},
    {"lr", "ETA", "learning rate", DSANA_OPT_PARAM, "0.1", .type = DSANA_VALUE_DOUBLE, DSANA_FIELD(struct mlp_app, lr),
     .max = INFINITY, .open = DSANA_OPEN_MIN},
    {"lr-schedule", "constant|cosine",
     "the rate over the steps: constant, or cosine (lr (1 + cos(pi s / S)) / 2 at step s of S)", DSANA_OPT_PARAM,
     "cosine", .type = DSANA_VALUE_CHOICE, DSANA_FIELD(struct mlp_app, cosine)},
    {"momentum", "MU", "momentum", DSANA_OPT_PARAM, "0.9", .type = DSANA_VALUE_DOUBLE,
     DSANA_FIELD(struct mlp_app, momentum), .max = 1, .open = DSANA_OPEN_MAX},
    {"nesterov", "on|off", "Nesterov's momentum (scikit-learn's default), or off: classical momentum", DSANA_OPT_PARAM,
     "on", .type = DSANA_VALUE_CHOICE, DSANA_FIELD(struct mlp_app, classical)},
    {"l2", "L", "L2 penalty on the weights (scikit-learn's alpha)", DSANA_OPT_PARAM, "1e-4", .type = DSANA_VALUE_DOUBLE,
     DSANA_FIELD(struct mlp_app, l2), .max = INFINITY},
    {"seed", "S", "seed of the initial weights and of the shuffles", DSANA_OPT_PARAM, "1", .type = DSANA_VALUE_UINT,
     DSANA_FIELD(struct mlp_app, seed), .max = 0x1p53},
    {"model-out", "FILE", "write the model (text, see dsana mlp --help)", DSANA_OPT_OUTPUT, NULL,
     .type = DSANA_VALUE_PATH, DSANA_FIELD(struct mlp_app, model_out)},
    {NULL}};

static int mlp_create(void **out) {
  struct mlp_app *a = calloc(1, sizeof *a);
  if (!a)
    return DSANA_ENOMEM;
  sup_data_init(&a->d);
  int rc = dsana_app_set_defaults(&mlp_app, a);
  if (rc) {
    free(a);
    return rc;
  }
  bufpool_init(&a->views);
  mlp_packs_init(&a->packs);
  *out = a;
  return 0;
}

static void mlp_destroy(void *app) {
  struct mlp_app *a = app;
  if (!a)
    return;
  sup_data_fini(&a->d);
  bufpool_fini(&a->views);
  mlp_packs_fini(&a->packs);
  free(a->checked);
  free(a->bands);
  free(a);
}

/* "256" or "256,128": 1..MLP_MAX_HIDDEN widths, each in the range of
 * --hidden's row. */
static int parse_hidden(struct mlp_app *a, const struct dsana_app_option *o, const char *s) {
  uint32_t n = 0;
  while (*s) {
    char num[32];
    size_t len = strcspn(s, ",");
    uint64_t w;
    if (len == 0 || len >= sizeof num || n >= MLP_MAX_HIDDEN)
      return DSANA_EINVAL;
    memcpy(num, s, len);
    num[len] = 0;
    if (app_parse_uint(num, (uint64_t)o->min, (uint64_t)o->max, &w))
      return DSANA_EINVAL;
    a->hidden[n++] = (uint32_t)w;
    s += len;
    if (*s == ',' && !*++s)
      return DSANA_EINVAL;
  }
  a->n_hidden = n;
  return n ? 0 : DSANA_EINVAL;
}

/* Options: their rows above, --hidden here; the positional argument, TRAIN. */
static int mlp_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  struct mlp_app *a = app;
  if (!name)
    return sup_data_set_train(&a->d, value, err, errlen);
  int rc = dsana_app_parse_option(mlp_options, a, name, value, err, errlen);
  if (rc == DSANA_ENOTSUP && (rc = parse_hidden(a, &mlp_options[OPT_HIDDEN], value)) != 0) /* the one the app parses */
    snprintf(err, errlen, "--%s %s: invalid value (comma-separated widths, " HIDDEN_RULE ")", name, value);
  return rc;
}

/* In the process that starts the job: every input checked whole, text
 * converted to binary files the roles map. */
static int mlp_prepare(void *app, char *err, size_t errlen) {
  struct mlp_app *a = app;
  int rc = sup_data_convert(&a->d, "dsana mlp", err, errlen);
  return rc ? rc : mlp_layout(a, err, errlen);
}

/* Every role: the data (mapped), the layout, tables and tasks; then the
 * pages that pass touched leave the role's memory. */
static int mlp_setup(void *app, struct dsana_job *job, char *err, size_t errlen) {
  struct mlp_app *a = app;
  int rc = sup_data_load(&a->d, false, err, errlen);
  if (!rc)
    rc = mlp_layout(a, err, errlen);
  if (!rc)
    rc = mlp_declare(a, job, err, errlen);
  sup_data_forget_pages(&a->d);
  return rc;
}

const struct dsana_app mlp_app = {
    .name = "mlp",
    .summary = "a multilayer perceptron (softmax classifier) trained by exact mini-batch SGD with momentum",
    .args = "TRAIN",
    .help = "TRAIN and --test: libsvm/svmlight text (plain or .gz; indices from 1) or a dsana binary dataset\n"
            "(Fashion-MNIST: dsana data convert --idx IMAGES LABELS OUT). Labels: 2 or more distinct values,\n"
            "classes in ascending order. Network: the inputs, --hidden layers (ReLU or tanh), a softmax over\n"
            "the classes; weights and biases start uniform in +-sqrt(6 / (fan_in + fan_out)) (Glorot), drawn\n"
            "from --seed. Loss: mean cross-entropy + (l2 / 2B) |W|^2 over a batch of B rows, the biases not\n"
            "penalised (scikit-learn's MLPClassifier with alpha = l2). Each epoch visits the rows in a new\n"
            "order (a shuffle seeded by --seed and the epoch), --batch rows a step:\n"
            "  v <- momentum v - lr g;  w <- w + momentum v - lr g   (--nesterov off: w <- w + v)\n"
            "with g the batch's mean gradient; --lr-schedule cosine anneals lr to 0 over the steps (constant:\n"
            "lr every step). The defaults are a recipe: on Fashion-MNIST (60000 rows) one hidden layer of 256\n"
            "ReLU units, batches of 256, lr 0.1 annealed by the cosine, Nesterov momentum 0.9 and l2 1e-4 reach\n"
            "test accuracy 0.887 in 10 epochs (0.867 with --lr-schedule constant --nesterov off).\n"
            "After --epochs epochs (or --max-iter K - 1 steps) one more iteration evaluates every training\n"
            "row and takes no step: the run's train_loss and train_accuracy are the model's (--final-eval\n"
            "off: no such iteration, K steps; the same model without its scores). Other\n"
            "iterations report their batch's loss and accuracy (before the step), epoch_loss and\n"
            "epoch_accuracy at an epoch's last step, and the test set's accuracy and log-loss at every\n"
            "epoch's first step (the model after the epoch before) and at the end (nan in between, null\n"
            "in --metrics).\n"
            "The model is bit-identical for any --workers, --servers, --mode, chunk size or straggler\n"
            "pattern: each block of a batch (at most 64 rows, blocks as equal as can be) adds its gradient\n"
            "in a fixed order, and the blocks'\n"
            "sums are added exactly. Model file: '# dsana mlp model', a header line (layer widths,\n"
            "activation), the labels, then one parameter per line (%.17g): W_1 row by row (input i's\n"
            "weights together), b_1, W_2, b_2, ... Score new data: dsana mlp predict MODEL DATA --out FILE.\n",
    .options = mlp_options,
    .create = mlp_create,
    .destroy = mlp_destroy,
    .set_option = mlp_set_option,
    .prepare = mlp_prepare,
    .setup = mlp_setup,
    .init = mlp_init,
    .run_task = mlp_run_task,
    .finish = mlp_finish,
    .reduce = mlp_reduce,
    .output = mlp_output,
};
