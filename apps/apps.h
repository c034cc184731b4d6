/*
 * apps.h - the apps built into dsana. The command line (cli/) lists them
 * and hands the list down to the runtime, which finds an app by name for a
 * role started alone.
 */
#ifndef DSANA_APPS_APPS_H
#define DSANA_APPS_APPS_H

#include <stddef.h>

#include "dsana/dsana.h"

extern const struct dsana_app pagerank_app;
extern const struct dsana_app logreg_app;
extern const struct dsana_app kmeans_app;
extern const struct dsana_app mlp_app;

/* Score the rows of a dataset with a logistic-regression model file:
 * "label<TAB>probability" per row into out_path (atomically); *accuracy
 * (may be NULL) the share of rows whose label was predicted. One line in
 * err naming the file on failure. */
int logreg_predict(const char *model_path, const char *data_path, const char *out_path, double *accuracy, char *err,
                   size_t errlen);
/* The same with an MLP model file (dsana mlp --model-out). */
int mlp_predict(const char *model_path, const char *data_path, const char *out_path, double *accuracy, char *err,
                size_t errlen);

#endif
