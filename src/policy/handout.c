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

uint32_t handout_refills(double iter_s, double msg_s, uint32_t n_workers) {
  if (!(iter_s > 0)) {
    uint64_t first = (uint64_t)HANDOUT_FIRST_REFILLS_PER_WORKER * (n_workers ? n_workers : 1);
    return first < HANDOUT_REFILLS_PER_ITER ? (uint32_t)first : HANDOUT_REFILLS_PER_ITER;
  }
  if (!(msg_s > 0))
    return HANDOUT_REFILLS_PER_ITER;
  double n = HANDOUT_REFILL_SHARE * iter_s / (2 * msg_s);
  return n >= HANDOUT_REFILLS_PER_ITER ? HANDOUT_REFILLS_PER_ITER : n >= 1 ? (uint32_t)n : 1;
}

uint32_t handout_share_depth(enum sched_kind kind, uint32_t share, uint32_t n_workers, uint32_t threads,
                             uint32_t refills) {
  if (kind == SCHED_STATIC)
    return UINT32_MAX;
  uint32_t each = n_workers ? refills / n_workers : 1;
  each = each ? each : 1;
  return (share + each - 1) / each + (threads ? threads : 1);
}

uint32_t handout_hold(enum sched_kind kind, double speed, double mean_cost, uint32_t threads, uint32_t share,
                      uint32_t n_workers, uint32_t refills) {
  uint32_t by_time = handout_depth(kind, speed, mean_cost, threads);
  uint32_t by_share = handout_share_depth(kind, share, n_workers, threads, refills);
  return by_share > by_time ? by_share : by_time;
}

bool handout_may_steal(uint32_t outstanding, uint32_t threads) {
  return outstanding < HANDOUT_TASKS_IN_FLIGHT - 1 + (threads ? threads : 1);
}

double handout_first_budget(enum sched_kind kind, bool blocks, double queued_cost) {
  return blocks && kind == SCHED_DYNAMIC ? HANDOUT_BLOCKS_SHARE_AT_ONCE * queued_cost : 0;
}
