/*
 * test_runtime_hold.c - emulated items held on the control thread until
 * their modelled end (src/runtime/emulate/hold.c): an item comes back at
 * its start plus its modelled time, not before; one item per virtual
 * thread; what it said final on the way comes out at its place on the
 * stretched clock, in order, before the item itself; a release that the
 * clock overshot shortens the next item of that thread by as much (up to
 * 2 ms). Times are given, not read: nothing here depends on the machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/emulate/hold.h"

static struct witem item(uint64_t slot) { return (struct witem){.kind = WITEM_RUN, .slot = slot}; }

static void test_item_comes_back_at_its_modelled_end(void **unused) {
  struct hold *h;
  assert_int_equal(hold_create(2, &h), 0);
  assert_int_equal(hold_due_ns(h), 0);
  struct witem a = item(1), b = item(2), c = item(3), got;
  uint64_t t0;
  assert_true(hold_add(h, &a, 1000, 10, 5000, NULL)); /* ends at 6000 */
  assert_true(hold_add(h, &b, 2000, 10, 1000, NULL)); /* ends at 3000 */
  assert_false(hold_has_room(h));
  assert_false(hold_add(h, &c, 2000, 10, 1000, NULL)); /* two virtual threads, both busy */
  assert_int_equal(hold_count(h), 2);
  assert_int_equal(hold_due_ns(h), 3000);
  assert_false(hold_take(h, 2999, &got, &t0));
  assert_true(hold_take(h, 3000, &got, &t0));
  assert_int_equal(got.slot, 2);
  assert_int_equal(t0, 2000);
  assert_false(hold_take(h, 3000, &got, &t0));
  assert_true(hold_has_room(h));
  assert_int_equal(hold_due_ns(h), 6000);
  assert_true(hold_take(h, 6000, &got, &t0));
  assert_int_equal(got.slot, 1);
  assert_int_equal(hold_count(h), 0);
  assert_int_equal(hold_due_ns(h), 0);
  hold_destroy(h);
}

struct published {
  int n;
  uint64_t count[4], at[4];
  uint64_t now;
};

static void record(void *arg, _Atomic uint64_t *ready, uint64_t n) {
  struct published *p = arg;
  atomic_store(ready, n);
  if (p->n < 4) {
    p->count[p->n] = n;
    p->at[p->n] = p->now;
  }
  p->n++;
}

/* Marks 100 and 400 ns into a 1,000 ns real run stretched to 10,000 ns:
 * out at 1,000 and 4,000 ns after the start; the item only once both are. */
static void test_marks_on_the_stretched_clock(void **unused) {
  struct hold *h;
  assert_int_equal(hold_create(1, &h), 0);
  _Atomic uint64_t ready = 0;
  struct hold_marks mk = {.ready = &ready, .n = 2, .at = {100, 400}, .n_said = {1, 3}};
  struct witem a = item(7), got;
  uint64_t t0;
  struct published p = {0};
  assert_true(hold_add(h, &a, 50000, 1000, 10000, &mk));
  assert_int_equal(hold_due_ns(h), 51000);
  p.now = 50999;
  hold_marks_due(h, p.now, record, &p);
  assert_int_equal(p.n, 0);
  p.now = 54500;
  hold_marks_due(h, p.now, record, &p); /* both are due: in order */
  assert_int_equal(p.n, 2);
  assert_int_equal(p.count[0], 1);
  assert_int_equal(p.count[1], 3);
  assert_int_equal(atomic_load(&ready), 3);
  assert_int_equal(hold_due_ns(h), 60000);
  assert_false(hold_take(h, 59999, &got, &t0));
  assert_true(hold_take(h, 60000, &got, &t0));
  assert_int_equal(got.slot, 7);
  /* the item does not come back before a mark that is due */
  struct hold_marks late = {.ready = &ready, .n = 1, .at = {999}, .n_said = {5}};
  assert_true(hold_add(h, &a, 70000, 1000, 2000, &late)); /* the mark at 71998, the end at 72000 */
  assert_false(hold_take(h, 80000, &got, &t0));
  p.now = 80000;
  hold_marks_due(h, p.now, record, &p);
  assert_int_equal(p.n, 3);
  assert_true(hold_take(h, 80000, &got, &t0));
  hold_destroy(h);
}

/* A release 300 ns late: the next item of that thread ends 300 ns early;
 * credit never makes an item end before it started, and stays below 2 ms. */
static void test_overshoot_is_taken_off_the_next_item(void **unused) {
  struct hold *h;
  assert_int_equal(hold_create(1, &h), 0);
  struct witem a = item(1), got;
  uint64_t t0;
  assert_true(hold_add(h, &a, 0, 10, 1000, NULL));
  assert_true(hold_take(h, 1300, &got, &t0));
  assert_true(hold_add(h, &a, 1300, 10, 1000, NULL));
  assert_int_equal(hold_due_ns(h), 2000); /* 1300 + 1000 - 300 */
  assert_true(hold_take(h, 2000, &got, &t0));
  /* 5 ms late: 2 ms of credit at most, and an item of 1 us takes 1 us of it */
  assert_true(hold_add(h, &a, 10000, 10, 1000, NULL));
  assert_true(hold_take(h, 10000 + 1000 + 5000000, &got, &t0));
  assert_true(hold_add(h, &a, 6000000, 10, 1000, NULL));
  assert_int_equal(hold_due_ns(h), 6000000);
  assert_true(hold_take(h, 6000000, &got, &t0));
  assert_true(hold_add(h, &a, 7000000, 10, 3000000, NULL));
  assert_int_equal(hold_due_ns(h), 7000000 + 3000000 - (2000000 - 1000));
  hold_destroy(h);
}

static void test_a_hold_needs_a_thread(void **unused) {
  struct hold *h = NULL;
  assert_int_not_equal(hold_create(0, &h), 0);
  assert_null(h);
  hold_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_item_comes_back_at_its_modelled_end),
      cmocka_unit_test(test_marks_on_the_stretched_clock),
      cmocka_unit_test(test_overshoot_is_taken_off_the_next_item),
      cmocka_unit_test(test_a_hold_needs_a_thread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
