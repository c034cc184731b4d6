/* cmd_run.h - running apps and single roles from the command line. */
#ifndef DSANA_CLI_CMD_RUN_H
#define DSANA_CLI_CMD_RUN_H

#include <stdbool.h>

#include "dsana/dsana.h"

/* argv[0] is the app name. Returns the process exit code. */
int cmd_app_main(const struct dsana_app *app, int argc, char **argv, bool scheduler_only);
/* role: "server" or "worker"; argv[0] is the role. Returns the exit code. */
int cmd_role_main(const char *role, int argc, char **argv);

#endif
