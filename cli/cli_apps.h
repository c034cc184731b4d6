/* cli_apps.h - the built-in apps, by name: the registry the command line
 * hands down to the runtime (role_params.apps). */
#ifndef DSANA_CLI_APPS_H
#define DSANA_CLI_APPS_H

#include "dsana/dsana.h"

/* NULL-terminated. */
const struct dsana_app *const *cli_apps(void);
const struct dsana_app *cli_find_app(const char *name);

#endif
