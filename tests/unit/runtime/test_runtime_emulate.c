/*
 * test_runtime_emulate.c - modelled compute durations (src/runtime/emulate/emulate.c):
 * the cost model (scenario ns_per_cost) times a piece from its cost alone,
 * whatever it took here and whichever piece ran before; the measured model
 * uses the fastest time a slot has run so far; real time past the model is
 * returned and counted as overrun; points inside a piece (what it made
 * ready) happen on the modelled clock. Durations are a few microseconds, so
 * the sleeps the model asks for are short; no test asserts on wall time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runtime/emulate/emulate.h"
#include "util/thread/clock.h"

static void test_cost_model(void **unused) {
  struct emulate e;
  assert_int_equal(emulate_init(&e, 64, 5.0), 0);
  assert_null(e.best); /* no history with a cost model */
  /* cost 100 x 5 ns x slowdown 2, whatever the real time below it */
  assert_int_equal(emulate_work(&e, 3, 10, 100, 2.0), 1000);
  assert_int_equal(emulate_work(&e, 3, 900, 100, 2.0), 1000);
  assert_int_equal(emulate_work(&e, 7, 1, 100, 2.0), 1000); /* another slot, same cost: same time */
  /* the model applies at slowdown 1 too (speed 1, no time_scale) */
  assert_int_equal(emulate_work(&e, 0, 1, 300, 1.0), 1500);
  /* a faster node: below the cost at speed 1 */
  assert_int_equal(emulate_work(&e, 0, 1, 300, 0.5), 750);
  assert_int_equal(e.overrun_ns, 0);
  /* real time past the model is returned as it is and counted */
  assert_int_equal(emulate_work(&e, 1, 5000, 100, 2.0), 5000);
  assert_int_equal(e.overrun_ns, 4000);
  /* no cost reported: modelled as instant, all real time is overrun */
  assert_int_equal(emulate_work(&e, 1, 200, 0, 2.0), 200);
  assert_int_equal(e.overrun_ns, 4200);
  emulate_fini(&e);
}

static void test_measured_model(void **unused) {
  struct emulate e;
  assert_int_equal(emulate_init(&e, 8, 0), 0);
  assert_non_null(e.best);
  /* without a slowdown nothing is emulated: the real time, no history */
  assert_int_equal(emulate_work(&e, 2, 777, 1e9, 1.0), 777);
  /* the fastest time of the slot so far, times the slowdown; cost ignored */
  assert_int_equal(emulate_work(&e, 2, 2000, 1e9, 2.0), 4000);
  assert_int_equal(emulate_work(&e, 2, 3000, 1, 2.0), 4000);
  assert_int_equal(emulate_work(&e, 2, 1000, 1, 2.0), 2000);
  assert_int_equal(emulate_work(&e, 5, 3000, 1, 2.0), 6000); /* slots are separate */
  assert_int_equal(e.overrun_ns, 0);
  /* slower than slowdown x best: overrun */
  assert_int_equal(emulate_work(&e, 2, 2500, 1, 2.0), 2500);
  assert_int_equal(e.overrun_ns, 500);
  /* a slot beyond the history is modelled from its own time */
  assert_int_equal(emulate_work(&e, 99, 1500, 1, 3.0), 4500);
  emulate_fini(&e);

  assert_int_equal(emulate_init(&e, 0, 0), 0);
  assert_null(e.best);
  assert_int_equal(emulate_work(&e, 0, 1000, 1, 1.5), 1500);
  emulate_fini(&e);
}

/* The model without the sleep: what emulate_work() would stretch to. */
static void test_model_without_sleeping(void **unused) {
  struct emulate e;
  assert_int_equal(emulate_init(&e, 0, 1e6), 0); /* 1 ms a unit: a sleep would show */
  assert_int_equal(emulate_model(&e, 0, 10, 50, 2.0), 100000000);
  assert_int_equal(emulate_model(&e, 0, 10, 0, 2.0), 10); /* no cost: real time, all overrun */
  assert_int_equal(e.overrun_ns, 10);
  assert_int_equal(e.debt_ns, 0); /* nothing owed: the caller holds the work itself */
  emulate_fini(&e);
  assert_int_equal(emulate_init(&e, 4, 0), 0);
  assert_int_equal(emulate_model(&e, 1, 700, 1, 1.0), 700); /* no slowdown, no history: not stretched */
  assert_int_equal(emulate_model(&e, 1, 700, 1, 3.0), 2100);
  emulate_fini(&e);
}

struct sleeps {
  int calls;
  uint64_t until[4];
};

static void record_sleep(void *arg, uint64_t until_ns) {
  struct sleeps *sl = arg;
  if (sl->calls < 4)
    sl->until[sl->calls] = until_ns;
  sl->calls++;
}

/* The sleep hook is asked to wait out the modelled time; one that returns
 * at once (as if it had been busy sending) leaves the time owed, and the
 * next piece asks for both. */
static void test_sleep_hook(void **unused) {
  struct emulate e;
  struct sleeps sl = {0};
  /* 1 ms per unit of cost: far above the time the calls themselves take,
   * even under valgrind, and nothing really sleeps */
  assert_int_equal(emulate_init(&e, 0, 1e6), 0);
  emulate_set_sleep(&e, record_sleep, &sl);
  uint64_t t0 = clock_now_ns();
  assert_int_equal(emulate_work(&e, 0, 0, 50, 1.0), 50000000);
  assert_int_equal(sl.calls, 1);
  assert_true(sl.until[0] >= t0 + 50000000);
  uint64_t t1 = clock_now_ns();
  assert_int_equal(emulate_work(&e, 0, 0, 50, 1.0), 50000000);
  assert_int_equal(sl.calls, 2);
  assert_true(sl.until[1] > t1 + 50000000); /* this piece's and most of the last one's */
  assert_true(sl.until[1] <= clock_now_ns() + 100000000);
  assert_int_equal(e.overrun_ns, 0);
  emulate_fini(&e);
}

struct marks_seen {
  struct sleeps *sl;
  int n;
  uint32_t which[4];
  int sleeps_before[4];
};

static void on_mark(void *arg, uint32_t i) {
  struct marks_seen *m = arg;
  if (m->n < 4) {
    m->which[m->n] = i;
    m->sleeps_before[m->n] = m->sl->calls;
  }
  m->n++;
}

/* Points inside a piece of work happen on the modelled clock: a point a
 * quarter into the real run, a quarter into the modelled one, in order,
 * each after the sleep that leads to it; without a stretch, at once. */
static void test_marks_on_the_modelled_clock(void **unused) {
  struct emulate e;
  struct sleeps sl = {0};
  struct marks_seen seen = {.sl = &sl};
  assert_int_equal(emulate_init(&e, 0, 1e6), 0);
  emulate_set_sleep(&e, record_sleep, &sl);
  uint64_t start = clock_now_ns(), at[3] = {250, 500, 900};
  struct emulate_marks mk = {.start_ns = start, .real_at = at, .n = 3, .at = on_mark, .arg = &seen};
  assert_int_equal(emulate_work_marked(&e, 0, 1000, 50, 1.0, &mk), 50000000); /* 50 ms modelled, 1 us real */
  assert_int_equal(seen.n, 3);
  assert_int_equal(sl.calls, 4); /* to each point, then to the end */
  const uint64_t want[3] = {start + 12500000, start + 25000000, start + 45000000};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(seen.which[i], i);
    assert_int_equal(seen.sleeps_before[i], i + 1);
    assert_int_equal(sl.until[i], want[i]);
  }
  assert_true(sl.until[3] >= start + 49000000);
  emulate_fini(&e);

  struct sleeps none = {0};
  struct marks_seen now = {.sl = &none};
  mk.arg = &now;
  assert_int_equal(emulate_init(&e, 0, 0), 0);
  emulate_set_sleep(&e, record_sleep, &none);
  assert_int_equal(emulate_work_marked(&e, 0, 1000, 1, 1.0, &mk), 1000);
  assert_int_equal(now.n, 3);
  assert_int_equal(none.calls, 0);
  emulate_fini(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cost_model),
      cmocka_unit_test(test_measured_model),
      cmocka_unit_test(test_model_without_sleeping),
      cmocka_unit_test(test_sleep_hook),
      cmocka_unit_test(test_marks_on_the_modelled_clock),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
