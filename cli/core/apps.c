/* apps.c - the registry of the apps the command knows (cli_apps.h): the
 * built-in ones, or those a program gave dsana_main or dsana_run. */
#include "cli/core/cli_apps.h"

#include <stdio.h>
#include <string.h>

#include "apps/apps.h"
#include "dsana/launch.h"
#include "runtime/role/app_check.h"
#include "runtime/role/role_params.h"

static const struct dsana_app *const builtin_list[] = {&pagerank_app, &logreg_app, &kmeans_app, &mlp_app, NULL};
/* The registry in use: builtin_list, or given_list's copy of a caller's. */
static const struct dsana_app *given_list[CLI_MAX_APPS + 1];
static const struct dsana_app *const *app_list = builtin_list;

const struct dsana_app *const *dsana_builtin_apps(void) { return builtin_list; }

const struct dsana_app *dsana_builtin_app(const char *name) { return role_find_app(builtin_list, name); }

int cli_use_apps(const struct dsana_app *const *apps, size_t n) {
  if (!apps || n == 0) {
    app_list = builtin_list;
    return 0;
  }
  if (n > CLI_MAX_APPS)
    return DSANA_ERANGE;
  for (size_t i = 0; i < n; i++)
    if (!apps[i])
      return DSANA_EINVAL;
  memcpy(given_list, apps, n * sizeof *apps);
  given_list[n] = NULL;
  app_list = given_list;
  return 0;
}

const struct dsana_app *const *cli_apps(void) { return app_list; }

const struct dsana_app *cli_find_app(const char *name) { return role_find_app(app_list, name); }

cli_predict_fn cli_find_predict(const char *name) {
  static const struct {
    const struct dsana_app *app;
    cli_predict_fn predict;
  } predictors[] = {{&logreg_app, logreg_predict}, {&mlp_app, mlp_predict}};
  for (size_t i = 0; i < sizeof predictors / sizeof predictors[0]; i++)
    if (cli_find_app(name) == predictors[i].app)
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
