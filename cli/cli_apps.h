/* cli_apps.h - the built-in apps, by name: the registry the command line
 * hands down to the runtime (role_params.apps). */
#ifndef DSANA_CLI_APPS_H
#define DSANA_CLI_APPS_H

#include "dsana/dsana.h"

/* NULL-terminated. */
const struct dsana_app *const *cli_apps(void);
const struct dsana_app *cli_find_app(const char *name);
/* Before the command line calls any of app's hooks: 0, or DSANA_EINVAL
 * when app breaks the app contract (runtime/app_check.h), said in one line
 * on stderr. */
int cli_check_app(const struct dsana_app *app);

#endif
