/*
 * logreg.c - L2-regularised logistic regression (two classes or
 * multinomial) on dsana: options, setup and the app table. The design is
 * in logreg.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apps/apps.h"
#include "logreg.h"

static const struct dsana_app_option lr_options[] = {
    {"test", "FILE", "a test set (libsvm or dsana binary): its accuracy and log-loss every iteration", DSANA_OPT_REPORT,
     NULL, .type = DSANA_VALUE_PATH, DSANA_FIELD(struct lr_app, d.test_path)},
    {"l2", "L", "L2 regularisation strength (scikit-learn's C = 1/L)", DSANA_OPT_PARAM, "1", .type = DSANA_VALUE_DOUBLE,
     DSANA_FIELD(struct lr_app, l2), .max = INFINITY},
    {"max-iter", "N", "evaluations of the objective at most", DSANA_OPT_REPORT, "100", .type = DSANA_VALUE_UINT,
     DSANA_FIELD(struct lr_app, max_iter), .min = 1, .max = 1000000},
    {"tol", "TOL", "stop when the 2-norm of the objective's gradient is below TOL", DSANA_OPT_PARAM, "1e-4",
     .type = DSANA_VALUE_DOUBLE, DSANA_FIELD(struct lr_app, tol), .max = INFINITY},
    {"batch", "N", "mini-batch SGD (see below), N rows a step; default: off (full-batch L-BFGS)", DSANA_OPT_PARAM, NULL,
     .type = DSANA_VALUE_UINT, DSANA_FIELD(struct lr_app, batch), .min = 1, .max = 0x1p40},
    {"seed", "S", "seed of the SGD batches' order (a shuffle per epoch)", DSANA_OPT_PARAM, "1",
     .type = DSANA_VALUE_UINT, DSANA_FIELD(struct lr_app, seed), .max = 0x1p53},
    {"lr", "ETA", "SGD's learning rate: step t moves by ETA/sqrt(t) times the batch gradient", DSANA_OPT_PARAM, "2",
     .type = DSANA_VALUE_DOUBLE, DSANA_FIELD(struct lr_app, lr), .max = INFINITY, .open = DSANA_OPEN_MIN},
    {"model-out", "FILE", "write the model: one weight per line (%.17g), see dsana logreg --help", DSANA_OPT_OUTPUT,
     NULL, .type = DSANA_VALUE_PATH, DSANA_FIELD(struct lr_app, model_out)},
    {NULL}};

static int lr_create(void **out) {
  struct lr_app *a = calloc(1, sizeof *a);
  if (!a)
    return DSANA_ENOMEM;
  sup_data_init(&a->d);
  if (lr_posmap_init(a) != 0) {
    free(a);
    return DSANA_ENOMEM;
  }
  int rc = dsana_app_set_defaults(&logreg_app, a); /* --l2, --max-iter, --tol, --seed, --lr */
  if (rc) {
    lr_posmap_fini(a);
    free(a);
    return rc;
  }
  *out = a;
  return 0;
}

static void lr_destroy(void *app) {
  struct lr_app *a = app;
  if (!a)
    return;
  lr_data_fini(a);
  lr_posmap_fini(a);
  free(a);
}

/* Options: their rows above; the positional argument, TRAIN. */
static int lr_set_option(void *app, const char *name, const char *value, char *err, size_t errlen) {
  struct lr_app *a = app;
  if (!name)
    return sup_data_set_train(&a->d, value, err, errlen);
  return dsana_app_parse_option(lr_options, a, name, value, err, errlen);
}

/* In the process that starts the job: every input checked whole, text
 * converted to binary files the roles map. */
static int lr_prepare(void *app, char *err, size_t errlen) {
  struct lr_app *a = app;
  return lr_convert_inputs(a, err, errlen);
}

/* Every role: the data (mapped), its classes and tasks; then the pages
 * that pass touched leave the role's memory (a worker reads its rows
 * again, the others none). */
static int lr_setup(void *app, struct dsana_job *job, char *err, size_t errlen) {
  struct lr_app *a = app;
  int rc = lr_load(a, false, err, errlen);
  if (!rc)
    rc = lr_declare(a, job, err, errlen);
  sup_data_forget_pages(&a->d);
  return rc;
}

const struct dsana_app logreg_app = {
    .name = "logreg",
    .summary = "L2-regularised logistic regression, two classes or multinomial (L-BFGS or mini-batch SGD, exact)",
    .args = "TRAIN",
    .help = "TRAIN and --test: libsvm/svmlight text (plain or .gz; indices from 1) or a dsana binary dataset\n"
            "(dsana data convert; Fashion-MNIST: dsana data convert --idx IMAGES LABELS OUT). Labels: two\n"
            "distinct values (a sigmoid model) or more (softmax), mapped to classes in ascending order.\n"
            "Objective: mean logistic loss + (l2 / 2N) |w|^2, the bias not penalised (scikit-learn's\n"
            "LogisticRegression with C = 1/l2). Optimiser: L-BFGS (10 pairs, vector-free: every vector is\n"
            "sharded on the servers) with a backtracking line search; one iteration is one evaluation;\n"
            "--tol is on the 2-norm of the objective's gradient. The defaults (L-BFGS, --l2 1, 100 iterations:\n"
            "scikit-learn's C = 1, max_iter = 100) reach test accuracy 0.8449 on Fashion-MNIST, the best of\n"
            "--l2 0.1 to 10000 at 100 iterations; up to 1000 iterations add at most 0.002 (--l2 10: 0.8467\n"
            "at 300); mini-batch SGD (--batch 256, --lr 2) reaches 0.832 in 10 epochs.\n"
            "Mini-batch SGD (--batch N): each epoch visits the rows in a new order (a shuffle seeded by --seed\n"
            "and the epoch), N rows a step; step t (iteration t = 1, 2, ...) moves the model by\n"
            "-ETA/sqrt(t) times the batch's gradient (its rows' mean loss gradient, summed exactly, plus\n"
            "(l2/N) w), ETA = --lr. It runs --max-iter iterations (--tol is not used): the last one takes no\n"
            "step but evaluates every training row, so the run's train_loss and train_accuracy are the\n"
            "model's; the others report their batch's loss and accuracy (before the step) and the\n"
            "gradient's norm. The test set is scored at iteration 1, at the start of every epoch and at\n"
            "the last (in between its columns are nan, null in --metrics).\n"
            "Figures: train_loss is the objective (mean loss plus the L2 term), train_logloss the data's\n"
            "mean loss alone (scikit-learn's log_loss), test_logloss the same on --test.\n"
            "Test features the model lacks are ignored (with a warning), test labels it lacks count as\n"
            "errors. The model is bit-identical for any --workers, --servers, --mode, chunk size or\n"
            "straggler pattern. Score new data: dsana logreg predict MODEL DATA --out FILE.\n",
    .options = lr_options,
    .create = lr_create,
    .destroy = lr_destroy,
    .set_option = lr_set_option,
    .prepare = lr_prepare,
    .setup = lr_setup,
    .init = lr_init,
    .task_keys = lr_task_keys,
    .task_keys_done = lr_task_keys_done,
    .run_task = lr_run_task,
    .finish = lr_finish,
    .update = lr_update,
    .reduce = lr_reduce,
    .output = lr_output,
};
