/* handout.c - see handout.h. */
#include "policy/handout.h"

uint32_t handout_depth(enum sched_kind kind, double speed, double fastest, double mean_cost) {
  if (kind == SCHED_STATIC)
    return UINT32_MAX;
  if (fastest > 0 && speed < HANDOUT_SLOW_FRACTION * fastest)
    return 1;
  double tasks = mean_cost > 0 ? HANDOUT_HOLD_S * speed / mean_cost : 0;
  if (tasks + 1 < HANDOUT_TASKS_IN_FLIGHT)
    return HANDOUT_TASKS_IN_FLIGHT;
  return tasks + 1 > HANDOUT_DEPTH_MAX ? HANDOUT_DEPTH_MAX : (uint32_t)tasks + 1;
}

double handout_first_budget(enum sched_kind kind, bool blocks, double queued_cost) {
  return blocks && kind == SCHED_DYNAMIC ? HANDOUT_BLOCKS_SHARE_AT_ONCE * queued_cost : 0;
}
