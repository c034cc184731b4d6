/* handout.c - see handout.h. */
#include "policy/handout.h"

uint32_t handout_depth(enum sched_kind kind, double speed, double mean_cost, uint32_t threads) {
  if (kind == SCHED_STATIC)
    return UINT32_MAX;
  threads = threads ? threads : 1;
  double tasks = (mean_cost > 0 ? HANDOUT_HOLD_S * speed / mean_cost : 0) + threads;
  uint32_t least = HANDOUT_TASKS_IN_FLIGHT - 1 + threads, most = HANDOUT_DEPTH_MAX + threads - 1;
  return tasks < least ? least : tasks > most ? most : (uint32_t)tasks;
}

double handout_first_budget(enum sched_kind kind, bool blocks, double queued_cost) {
  return blocks && kind == SCHED_DYNAMIC ? HANDOUT_BLOCKS_SHARE_AT_ONCE * queued_cost : 0;
}
