/* fault.c - see fault.h. */
#include "runtime/core/fault.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dsana/dsana.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

static enum fault_point point_named(const char *s, bool server) {
  static const char *const worker_points[] = {"", "before-task", "before-push", "mid-push", "after-push"};
  if (server)
    return strcmp(s, "commit") == 0 ? FAULT_COMMIT : strcmp(s, "compressed") == 0 ? FAULT_COMPRESSED : FAULT_NONE;
  for (int i = 1; i < 5; i++)
    if (strcmp(s, worker_points[i]) == 0)
      return (enum fault_point)i;
  return FAULT_NONE;
}

int fault_plan_parse(const char *spec, struct fault_plan *plan) {
  memset(plan, 0, sizeof *plan);
  if (!spec || !spec[0])
    return 0;
  char role[8] = "", point[32] = "", how[16] = "";
  unsigned index, iter;
  int at_index = 0, at_iter = 0, end = 0; /* %u would take "-1" */
  if (sscanf(spec, "%7[a-z]=%n%u,iter=%n%u,point=%31[a-z-],how=%15[a-z]%n", role, &at_index, &index, &at_iter, &iter,
             point, how, &end) != 5 ||
      spec[end] != '\0' || !isdigit((unsigned char)spec[at_index]) || !isdigit((unsigned char)spec[at_iter]) ||
      (strcmp(role, "worker") && strcmp(role, "server")))
    return DSANA_EINVAL;
  bool server = role[0] == 's';
  enum fault_point at = point_named(point, server);
  int by = strcmp(how, "kill") == 0   ? FAULT_KILL
           : strcmp(how, "exit") == 0 ? FAULT_EXIT
           : strcmp(how, "flip") == 0 ? FAULT_FLIP
                                      : -1;
  if (at == FAULT_NONE || by < 0 ||
      (by == FAULT_FLIP) != (at == FAULT_COMPRESSED)) /* flip is how a piece is corrupted */
    return DSANA_EINVAL;
  *plan = (struct fault_plan){.point = at, .server = server, .index = index, .iter = iter, .how = (enum fault_how)by};
  return 0;
}

struct fault_plan fault_plan_for(const struct fault_plan *plan, bool server, uint32_t index) {
  if (plan->point == FAULT_NONE || plan->server != server || plan->index != index)
    return (struct fault_plan){.point = FAULT_NONE};
  return *plan;
}

void fault_point(const struct fault_plan *plan, enum fault_point at, uint32_t iter) {
  if (plan->point != at || plan->iter != iter)
    return;
  if (at == FAULT_COMMIT)
    log_warn("fault injection: dying after committing iteration %u", iter);
  else
    log_warn("fault injection: dying at iteration %u", iter);
  /* mid-push: the messages sent before this point reach their servers (a
   * transport's I/O thread carries them), as when a worker dies with half
   * a push delivered */
  if (at == FAULT_MID_PUSH)
    clock_sleep_ns(200000000);
  if (plan->how == FAULT_KILL)
    raise(SIGKILL);
  _exit(FAULT_EXIT_CODE);
}

void fault_corrupt(struct fault_plan *plan, uint32_t iter, uint8_t *bytes, size_t len) {
  if (plan->point != FAULT_COMPRESSED || plan->iter != iter || len == 0)
    return;
  plan->point = FAULT_NONE;
  bytes[len / 2] ^= 0x10;
  log_warn("fault injection: flipped a bit of a compressed piece of iteration %u", iter);
}
