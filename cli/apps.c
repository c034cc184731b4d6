/* apps.c - the registry of built-in apps the command knows (cli_apps.h). */
#include "cli_apps.h"

#include <stdio.h>
#include <string.h>

#include "apps/apps.h"
#include "runtime/role/app_check.h"

static const struct dsana_app *const app_list[] = {&pagerank_app, &logreg_app, &kmeans_app, &mlp_app, NULL};

const struct dsana_app *const *cli_apps(void) { return app_list; }

const struct dsana_app *cli_find_app(const char *name) {
  for (size_t i = 0; app_list[i]; i++)
    if (strcmp(app_list[i]->name, name) == 0)
      return app_list[i];
  return NULL;
}

cli_predict_fn cli_find_predict(const char *name) {
  static const struct {
    const char *app;
    cli_predict_fn predict;
  } predictors[] = {{"logreg", logreg_predict}, {"mlp", mlp_predict}};
  for (size_t i = 0; i < sizeof predictors / sizeof predictors[0]; i++)
    if (strcmp(predictors[i].app, name) == 0)
      return predictors[i].predict;
  return NULL;
}

int cli_check_app(const struct dsana_app *app) {
  char err[512];
  int rc = app_check(app, err, sizeof err);
  if (rc)
    fprintf(stderr, "dsana: %s\n", err);
  return rc;
}
