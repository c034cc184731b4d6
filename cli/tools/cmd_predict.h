/* cmd_predict.h - `dsana logreg|mlp predict MODEL DATA --out FILE`: score
 * a dataset with a trained logistic-regression or MLP model. */
#ifndef DSANA_CLI_CMD_PREDICT_H
#define DSANA_CLI_CMD_PREDICT_H

#include "cli/core/cli_apps.h"

/* app: the app's name, predict its scorer (cli_find_predict); argv[0] is
 * "predict". Returns the exit code: 0 ok, 2 bad usage or bad input, 1
 * other failures. */
int cmd_predict_main(const char *app, cli_predict_fn predict, int argc, char **argv);

#endif
