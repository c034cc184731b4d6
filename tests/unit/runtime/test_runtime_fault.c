/*
 * test_runtime_fault.c - fault plans (src/runtime/core/fault.c): the text a test
 * gives in DSANA_FAULT parses into the plan it says, a malformed one into
 * no plan at all, a role keeps only the plan that names it, and a spent
 * corruption does not fire twice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dsana/dsana.h"
#include "runtime/core/fault.h"

static void test_worker_and_server_plans_parse(void **unused) {
  (void)unused;
  struct fault_plan p;
  assert_int_equal(fault_plan_parse("worker=1,iter=4,point=mid-push,how=kill", &p), 0);
  assert_int_equal(p.point, FAULT_MID_PUSH);
  assert_false(p.server);
  assert_int_equal(p.index, 1);
  assert_int_equal(p.iter, 4);
  assert_int_equal(p.how, FAULT_KILL);
  assert_int_equal(fault_plan_parse("server=0,iter=7,point=commit,how=exit", &p), 0);
  assert_int_equal(p.point, FAULT_COMMIT);
  assert_true(p.server);
  assert_int_equal(p.how, FAULT_EXIT);
  assert_int_equal(fault_plan_parse("server=2,iter=3,point=compressed,how=flip", &p), 0);
  assert_int_equal(p.point, FAULT_COMPRESSED);
  assert_int_equal(p.how, FAULT_FLIP);
}

static void test_no_text_is_no_plan(void **unused) {
  (void)unused;
  struct fault_plan p = {.point = FAULT_COMMIT};
  assert_int_equal(fault_plan_parse(NULL, &p), 0);
  assert_int_equal(p.point, FAULT_NONE);
  assert_int_equal(fault_plan_parse("", &p), 0);
  assert_int_equal(p.point, FAULT_NONE);
}

static void test_malformed_plans_refused_and_empty(void **unused) {
  (void)unused;
  static const char *const bad[] = {
      "worker=1",                                        /* cut short */
      "worker=1,iter=4,point=commit,how=kill",           /* a server's point */
      "server=1,iter=4,point=mid-push,how=kill",         /* a worker's point */
      "server=1,iter=4,point=compressed,how=kill",       /* corruption flips */
      "worker=1,iter=4,point=before-task,how=flip",      /* only corruption flips */
      "worker=1,iter=4,point=before-task,how=explode",   /* no such way */
      "scheduler=0,iter=4,point=before-task,how=kill",   /* no such role */
      "worker=1,iter=4,point=before-task,how=kill,more", /* trailing text */
      "worker=-1,iter=4,point=before-task,how=kill",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct fault_plan p = {.point = FAULT_COMMIT};
    assert_int_equal(fault_plan_parse(bad[i], &p), DSANA_EINVAL);
    assert_int_equal(p.point, FAULT_NONE);
  }
}

static void test_a_role_keeps_only_its_plan(void **unused) {
  (void)unused;
  struct fault_plan p;
  assert_int_equal(fault_plan_parse("worker=2,iter=5,point=before-task,how=exit", &p), 0);
  assert_int_equal(fault_plan_for(&p, false, 2).point, FAULT_BEFORE_TASK);
  assert_int_equal(fault_plan_for(&p, false, 1).point, FAULT_NONE);
  assert_int_equal(fault_plan_for(&p, true, 2).point, FAULT_NONE); /* server 2 is another role */
  /* a point that does not match returns (it would end the process if it did) */
  struct fault_plan mine = fault_plan_for(&p, false, 2);
  fault_point(&mine, FAULT_BEFORE_TASK, 4);
  fault_point(&mine, FAULT_AFTER_PUSH, 5);
}

static void test_corruption_flips_one_bit_once(void **unused) {
  (void)unused;
  struct fault_plan p;
  assert_int_equal(fault_plan_parse("server=0,iter=3,point=compressed,how=flip", &p), 0);
  uint8_t bytes[8] = {0};
  fault_corrupt(&p, 2, bytes, sizeof bytes); /* another iteration */
  assert_int_equal(bytes[4], 0);
  fault_corrupt(&p, 3, bytes, sizeof bytes);
  assert_int_equal(bytes[4], 0x10);
  fault_corrupt(&p, 3, bytes, sizeof bytes); /* spent */
  assert_int_equal(bytes[4], 0x10);
  assert_int_equal(p.point, FAULT_NONE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_worker_and_server_plans_parse),     cmocka_unit_test(test_no_text_is_no_plan),
      cmocka_unit_test(test_malformed_plans_refused_and_empty), cmocka_unit_test(test_a_role_keeps_only_its_plan),
      cmocka_unit_test(test_corruption_flips_one_bit_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
