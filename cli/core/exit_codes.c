/* exit_codes.c - see exit_codes.h. */
#include "cli/core/exit_codes.h"

#include "dsana/dsana.h"

int cli_exit_code(int rc) {
  if (rc == 0 || rc == DSANA_EENDED) /* (the scheduler ended the job on purpose) */
    return status_exit_code(0, CLI_EXIT_FAIL);
  return rc == DSANA_EUSAGE || rc == DSANA_EFORMAT || rc == DSANA_EIO || rc == DSANA_EINVAL || rc == DSANA_ERANGE
             ? CLI_EXIT_USAGE
             : CLI_EXIT_FAIL;
}

int cli_exit_input(int rc) { return rc == DSANA_ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE; }
