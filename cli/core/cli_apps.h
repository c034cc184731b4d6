/* cli_apps.h - the apps the command knows, by name: the registry the
 * command line hands down to the runtime (role_params.apps). The built-in
 * ones unless a program gave its own (dsana/launch.h). */
#ifndef DSANA_CLI_APPS_H
#define DSANA_CLI_APPS_H

#include <stddef.h>

#include "dsana/dsana.h"

#define CLI_MAX_APPS 64

/* Make apps[0..n) the registry (pointers copied; the apps must outlive
 * its use), or the built-in apps again when apps is NULL or n 0. 0, or
 * DSANA_ERANGE beyond CLI_MAX_APPS, DSANA_EINVAL for a NULL app. Not
 * thread-safe: set it before a command runs. */
int cli_use_apps(const struct dsana_app *const *apps, size_t n);
/* The registry in use, NULL-terminated. */
const struct dsana_app *const *cli_apps(void);
const struct dsana_app *cli_find_app(const char *name);
/* `dsana APP predict`: scores a dataset with a model file APP wrote
 * (apps/apps.h), or NULL for an app without one (or not in the registry). */
typedef int (*cli_predict_fn)(const char *model_path, const char *data_path, const char *out_path, double *accuracy,
                              char *err, size_t errlen);
cli_predict_fn cli_find_predict(const char *name);
/* Before the command line calls any of app's hooks: 0, or DSANA_EINVAL
 * when app breaks the app contract (runtime/role/app_check.h), said in one line
 * on stderr. */
int cli_check_app(const struct dsana_app *app);

#endif
