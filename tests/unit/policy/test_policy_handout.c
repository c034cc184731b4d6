/*
 * test_policy_handout.c - how many tasks a worker holds and how much of its
 * share it gets at the start of an iteration (src/policy/handout.c): pure
 * functions of speeds and costs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "policy/handout.h"

/* Static scheduling hands everything at once; dynamic holds a bounded number. */
static void test_depth_static_is_everything(void **unused) {
  (void)unused;
  assert_int_equal(handout_depth(SCHED_STATIC, 1e9, 1.0, 4), UINT32_MAX);
  uint32_t d = handout_depth(SCHED_DYNAMIC, 1e9, 1.0, 4);
  assert_true(d < UINT32_MAX);
  assert_true(d <= HANDOUT_DEPTH_MAX + 4 - 1);
}

/* Every worker holds its running tasks and at least one more, however slow
 * it is: a slow worker without a prefetched task idles for a round trip to
 * the scheduler after each task while the others steal its queue. */
static void test_depth_prefetches_for_slow_workers(void **unused) {
  (void)unused;
  for (uint32_t threads = 1; threads <= 4; threads++) {
    assert_true(handout_depth(SCHED_DYNAMIC, 1.0, 1e12, threads) >= threads + HANDOUT_TASKS_IN_FLIGHT - 1);
    assert_true(handout_depth(SCHED_DYNAMIC, 0.0, 1e6, threads) >= threads + 1); /* speed unknown */
  }
}

/* A fast worker holds about HANDOUT_HOLD_S of work: more tasks for a faster
 * worker or cheaper tasks, capped. */
static void test_depth_grows_with_speed(void **unused) {
  (void)unused;
  uint32_t slow = handout_depth(SCHED_DYNAMIC, 1e6, 100.0, 1); /* 10 tasks per ms */
  uint32_t fast = handout_depth(SCHED_DYNAMIC, 4e6, 100.0, 1); /* 40 tasks per ms */
  assert_true(fast > slow);
  assert_int_equal(slow, (uint32_t)(HANDOUT_HOLD_S * 1e6 / 100.0) + 1);
  assert_int_equal(handout_depth(SCHED_DYNAMIC, 1e12, 1.0, 2), HANDOUT_DEPTH_MAX + 1);
}

/* Each compute thread runs a task and the prefetched ones come on top: a
 * thread more holds one task more, at any speed; cheaper tasks, more of
 * them (the same time's worth). */
static void test_depth_threads_on_top(void **unused) {
  (void)unused;
  for (uint32_t threads = 1; threads <= 8; threads++) {
    assert_int_equal(handout_depth(SCHED_DYNAMIC, 4e6, 100.0, threads),
                     handout_depth(SCHED_DYNAMIC, 4e6, 100.0, 1) + threads - 1);
    assert_int_equal(handout_depth(SCHED_DYNAMIC, 1e12, 1.0, threads), HANDOUT_DEPTH_MAX + threads - 1);
  }
  assert_true(handout_depth(SCHED_DYNAMIC, 1e6, 50.0, 1) > handout_depth(SCHED_DYNAMIC, 1e6, 100.0, 1));
}

/* Dynamic scheduling with block-wise tasks hands out a fixed share of a
 * worker's planned work at the start of an iteration; without blocks (a
 * share given at once cannot move off a transient straggler) and under
 * static scheduling (everything by depth) nothing beyond the depth. */
static void test_first_budget(void **unused) {
  (void)unused;
  assert_true(handout_first_budget(SCHED_DYNAMIC, true, 100.0) == HANDOUT_BLOCKS_SHARE_AT_ONCE * 100.0);
  assert_true(handout_first_budget(SCHED_DYNAMIC, false, 100.0) == 0);
  assert_true(handout_first_budget(SCHED_STATIC, true, 100.0) == 0);
  assert_true(handout_first_budget(SCHED_DYNAMIC, true, 0.0) == 0);
}

/* A worker whose own queue is empty steals only while it holds fewer than
 * a task a thread and one ahead: never to fill a deeper hold with tasks
 * that nobody could then take back. */
static void test_steals_only_to_keep_threads_busy(void **unused) {
  (void)unused;
  for (uint32_t threads = 1; threads <= 8; threads++) {
    uint32_t keep = HANDOUT_TASKS_IN_FLIGHT - 1 + threads;
    assert_true(handout_may_steal(0, threads));
    assert_true(handout_may_steal(keep - 1, threads));
    assert_false(handout_may_steal(keep, threads));
    assert_false(handout_may_steal(handout_hold(SCHED_DYNAMIC, 1e6, 100.0, threads, 64, 64, 256), threads));
  }
  assert_true(handout_may_steal(1, 0) == handout_may_steal(1, 1)); /* threads not known yet: one */
  assert_false(handout_may_steal(2, 0));
}

/* The refills an iteration affords: in the first, HANDOUT_FIRST_REFILLS_PER_WORKER
 * a worker (up to the cap); then all of HANDOUT_REFILLS_PER_ITER until the
 * message cost is known, and after that as many as HANDOUT_REFILL_SHARE of
 * the iteration pays for at two messages each, at least one. */
static void test_refills_follow_the_message_cost(void **unused) {
  (void)unused;
  assert_int_equal(handout_refills(0, 25e-6, 4), 4 * HANDOUT_FIRST_REFILLS_PER_WORKER);
  assert_int_equal(handout_refills(0, 0, 4), 4 * HANDOUT_FIRST_REFILLS_PER_WORKER);
  assert_int_equal(handout_refills(0, 25e-6, 4096), HANDOUT_REFILLS_PER_ITER);
  assert_int_equal(handout_refills(0.02, 0, 4), HANDOUT_REFILLS_PER_ITER);
  /* 20 ms an iteration at 25 us a message (roles as processes): 20 */
  assert_int_equal(handout_refills(0.02, 25e-6, 4), (uint32_t)(HANDOUT_REFILL_SHARE * 0.02 / 50e-6));
  /* cheap messages: the cap; dear ones: one */
  assert_int_equal(handout_refills(0.02, 1e-9, 4), HANDOUT_REFILLS_PER_ITER);
  assert_int_equal(handout_refills(0.001, 1e-3, 4), 1);
  assert_true(handout_refills(0.02, 5e-6, 4) > handout_refills(0.02, 25e-6, 4));
}

/* In the first iteration no speed is known: a worker of 4 with 16 tasks
 * holds a quarter of them and a task a thread (2), so its share goes in
 * 4 hand-outs, not 14 of one or two tasks. */
static void test_first_iteration_share_in_a_few_handouts(void **unused) {
  (void)unused;
  uint32_t refills = handout_refills(0, 0, 4);
  assert_int_equal(handout_hold(SCHED_DYNAMIC, 0, 1e5, 2, 16, 4, refills), 16 / HANDOUT_FIRST_REFILLS_PER_WORKER + 2);
  assert_int_equal(handout_hold(SCHED_STATIC, 0, 1e5, 2, 16, 4, refills), UINT32_MAX);
}

/* A share is handed in (refills / workers) parts, at least one, plus a
 * task a thread; static scheduling holds everything. */
static void test_share_depth_by_refills(void **unused) {
  (void)unused;
  assert_int_equal(handout_share_depth(SCHED_STATIC, 16, 16, 1, 256), UINT32_MAX);
  assert_int_equal(handout_share_depth(SCHED_DYNAMIC, 16, 16, 1, 256), 1 + 1); /* 16 refills of 1 */
  assert_int_equal(handout_share_depth(SCHED_DYNAMIC, 16, 16, 1, 64), 4 + 1);  /* 4 of 4 */
  assert_int_equal(handout_share_depth(SCHED_DYNAMIC, 16, 16, 2, 8), 16 + 2);  /* under one each: all */
  assert_int_equal(handout_hold(SCHED_DYNAMIC, 0, 0, 1, 16, 64, 64), 16 + 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_depth_static_is_everything),
      cmocka_unit_test(test_depth_prefetches_for_slow_workers),
      cmocka_unit_test(test_depth_grows_with_speed),
      cmocka_unit_test(test_depth_threads_on_top),
      cmocka_unit_test(test_first_budget),
      cmocka_unit_test(test_steals_only_to_keep_threads_busy),
      cmocka_unit_test(test_refills_follow_the_message_cost),
      cmocka_unit_test(test_first_iteration_share_in_a_few_handouts),
      cmocka_unit_test(test_share_depth_by_refills),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
