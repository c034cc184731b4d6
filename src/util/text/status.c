/* status.c - the incomplete-run mark (status.h). */
#include "util/text/status.h"

#include <stdatomic.h>

static atomic_bool incomplete;

void status_mark_incomplete(void) { atomic_store(&incomplete, true); }
static bool status_incomplete(void) { return atomic_load(&incomplete); }
void status_reset(void) { atomic_store(&incomplete, false); }

int status_exit_code(int rc, int fail_code) {
  if (rc)
    return fail_code;
  return status_incomplete() ? STATUS_EXIT_INCOMPLETE : 0;
}
