/* cmd_run.h - running apps and single roles from the command line. */
#ifndef DSANA_CLI_CMD_RUN_H
#define DSANA_CLI_CMD_RUN_H

#include <stdbool.h>

#include "cli/output/report.h"
#include "dsana/dsana.h"

/* argv[0] is the app name. Returns the process exit code (a stop signal
 * kills the process, as the shell expects). */
int cmd_app_main(const struct dsana_app *app, int argc, char **argv, bool scheduler_only);
/* What a job's run tells its caller beyond its status. */
struct cli_outcome {
  struct cli_summary summary; /* the scheduler's, when it ran in this process */
};
/* The job of `dsana [scheduler] APP ...` for a caller that stays: its
 * status, 0 or DSANA_E* (DSANA_EUSAGE for bad usage, said on stderr),
 * never a signal; *out (NULL: not wanted) gets what the job reported. The
 * app must have passed cli_check_app. */
int cmd_app_job(const struct dsana_app *app, int argc, char **argv, bool scheduler_only, struct cli_outcome *out);
struct cli_run;
/* A parsed run (cli_parse_run) on this machine, as `dsana APP ...` runs it
 * without a launcher: the job's token, the checks of its files and app,
 * then every role (threads or processes, r->cfg.isolate). The job's result
 * reaches r->app's output hook in the scheduler. Returns 0 or a negative
 * DSANA_E* code after one line on stderr; DSANA_EINTR when a stop signal
 * ended the job (runtime_launch_signal() says which). r->app_state stays
 * the caller's. */
int cmd_app_run_local(struct cli_run *r);
/* role: "server" or "worker"; argv[0] is the role. Returns the exit code. */
int cmd_role_main(const char *role, int argc, char **argv);

#endif
