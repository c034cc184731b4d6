/* cmd_predict.h - `dsana logreg predict MODEL DATA --out FILE`: score a
 * dataset with a trained logistic-regression model. */
#ifndef DSANA_CLI_CMD_PREDICT_H
#define DSANA_CLI_CMD_PREDICT_H

/* argv[0] is "predict". Returns the exit code: 0 ok, 2 bad usage or bad
 * input, 1 other failures. */
int cmd_predict_main(int argc, char **argv);

#endif
