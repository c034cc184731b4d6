/*
 * test_policy_sched.c - the scheduling policies (src/policy/sched*.c).
 *
 * Everything here is a deterministic computation: task durations are
 * synthetic (cost / speed), interleavings come from a fixed-seed PRNG, and
 * the makespan checks run a small event-driven simulation of workers that
 * ask for tasks, run them and report, exactly as the runtime's scheduler
 * role drives the policy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "dsana/dsana.h"
#include "policy/sched.h"

static uint64_t rng_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double rng_unit(uint64_t *state) { return (double)(rng_next(state) >> 11) * 0x1.0p-53; }

static void random_costs(double *cost, uint32_t n, uint64_t seed, double lo, double hi) {
  for (uint32_t t = 0; t < n; t++)
    cost[t] = lo + (hi - lo) * rng_unit(&seed);
}

/* ---- event-driven simulation ------------------------------------------ */

/* Workers hold up to `depth` tasks (1 running + depth-1 prefetched, as the
 * runtime does with depth 2). At each completion the worker reports, and
 * every worker with room asks again (idle ones too: a steal refused before
 * may help now). Returns the iteration's makespan; adds each worker's
 * completed cost to work[] (if not NULL); checks every task runs once. */
struct sim_worker {
  uint32_t held[2];
  uint32_t n_held;
  double start; /* when held[0] started */
};

static void sim_fill(struct sched *s, struct sim_worker *sw, uint32_t w, uint32_t depth, double now, uint32_t *handed,
                     uint32_t n_tasks, uint32_t *ran_by) {
  while (sw->n_held < depth) {
    uint32_t t;
    bool stolen;
    if (sched_next(s, w, &t, &stolen) != 0)
      break;
    assert_true(t < n_tasks);
    assert_int_equal(handed[t], 0);
    handed[t]++;
    if (ran_by != NULL)
      ran_by[t] = w;
    sw->held[sw->n_held++] = t;
    if (sw->n_held == 1)
      sw->start = now;
  }
}

static double sim_iter_ran(struct sched *s, const double *cost, uint32_t n_tasks, const double *speed,
                           uint32_t n_workers, uint32_t depth, double *work, uint32_t *ran_by) {
  struct sim_worker sw[16];
  uint32_t *handed = calloc(n_tasks, sizeof(uint32_t));
  assert_non_null(handed);
  assert_true(n_workers <= 16);
  memset(sw, 0, sizeof(sw));
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  double now = 0;
  for (uint32_t w = 0; w < n_workers; w++)
    sim_fill(s, &sw[w], w, depth, now, handed, n_tasks, ran_by);
  for (uint32_t done = 0; done < n_tasks; done++) {
    uint32_t first = UINT32_MAX;
    double first_at = INFINITY;
    for (uint32_t w = 0; w < n_workers; w++) {
      if (sw[w].n_held == 0)
        continue;
      double at = sw[w].start + cost[sw[w].held[0]] / speed[w];
      if (at < first_at) {
        first_at = at;
        first = w;
      }
    }
    assert_true(first != UINT32_MAX); /* nobody holds work but tasks remain: stranded */
    now = first_at;
    uint32_t t = sw[first].held[0];
    sched_report(s, first, t, cost[t] / speed[first]);
    if (work != NULL)
      work[first] += cost[t];
    sw[first].held[0] = sw[first].held[1];
    sw[first].n_held--;
    sw[first].start = now;
    for (uint32_t w = 0; w < n_workers; w++)
      sim_fill(s, &sw[w], w, depth, now, handed, n_tasks, ran_by);
  }
  for (uint32_t t = 0; t < n_tasks; t++)
    assert_int_equal(handed[t], 1);
  assert_int_equal(sched_remaining(s), 0);
  free(handed);
  return now;
}

static double sim_iter(struct sched *s, const double *cost, uint32_t n_tasks, const double *speed, uint32_t n_workers,
                       uint32_t depth, double *work) {
  return sim_iter_ran(s, cost, n_tasks, speed, n_workers, depth, work, NULL);
}

/* ---- random interleavings --------------------------------------------- */

enum { ST_UNSTARTED = 0, ST_HELD = 1, ST_DONE = 2 };

struct trace {
  uint32_t *ev; /* (w << 20 | t << 1 | stolen) per hand-out */
  size_t len, cap;
};

static void trace_add(struct trace *tr, uint32_t w, uint32_t t, bool stolen) {
  if (tr == NULL)
    return;
  if (tr->len == tr->cap) {
    tr->cap = tr->cap ? 2 * tr->cap : 256;
    tr->ev = realloc(tr->ev, tr->cap * sizeof(uint32_t));
    assert_non_null(tr->ev);
  }
  tr->ev[tr->len++] = w << 20 | t << 1 | (uint32_t)stolen;
}

/* One iteration driven by random next/report (and, if allowed, drop)
 * calls. Checks that a task is never handed out while started or done and
 * that every task completes exactly once. Returns the number of drops. */
static uint32_t random_iter(struct sched *s, const double *cost, uint32_t n_tasks, const double *speed,
                            uint32_t n_workers, uint64_t *rng, bool allow_drop, struct trace *tr) {
  uint8_t *state = calloc(n_tasks, 1);
  uint32_t held[16][2], n_held[16] = {0};
  bool alive[16];
  assert_non_null(state);
  assert_true(n_workers <= 16);
  for (uint32_t w = 0; w < n_workers; w++)
    alive[w] = true;
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  uint32_t done = 0, drops = 0, n_alive = n_workers;
  for (long step = 0; done < n_tasks; step++) {
    assert_true(step < 1000000);
    uint32_t w = (uint32_t)(rng_next(rng) % n_workers);
    if (!alive[w])
      continue;
    uint32_t r = (uint32_t)(rng_next(rng) % 1000);
    if (allow_drop && n_alive > 1 && r < 8) {
      /* Worker dies holding what it has: everything goes back. */
      if (n_held[w] == 0)
        sched_drop_worker(s, w, UINT32_MAX);
      for (uint32_t i = 0; i < n_held[w]; i++) {
        sched_drop_worker(s, w, held[w][i]);
        assert_int_equal(state[held[w][i]], ST_HELD);
        state[held[w][i]] = ST_UNSTARTED;
      }
      n_held[w] = 0;
      alive[w] = false;
      n_alive--;
      drops++;
    } else if ((r < 500 && n_held[w] < 2) || n_held[w] == 0) {
      uint32_t t;
      bool stolen;
      int rc = sched_next(s, w, &t, &stolen);
      if (rc == DSANA_EAGAIN)
        continue;
      assert_int_equal(rc, 0);
      assert_true(t < n_tasks);
      assert_int_equal(state[t], ST_UNSTARTED); /* never a started task */
      state[t] = ST_HELD;
      held[w][n_held[w]++] = t;
      trace_add(tr, w, t, stolen);
    } else {
      uint32_t t = held[w][0];
      held[w][0] = held[w][1];
      n_held[w]--;
      assert_int_equal(state[t], ST_HELD);
      state[t] = ST_DONE;
      done++;
      sched_report(s, w, t, cost[t] / speed[w] * (0.5 + rng_unit(rng)));
    }
  }
  for (uint32_t t = 0; t < n_tasks; t++)
    assert_int_equal(state[t], ST_DONE);
  assert_int_equal(sched_remaining(s), 0);
  for (uint32_t w = 0; w < n_workers; w++) {
    uint32_t t;
    bool stolen;
    assert_int_equal(sched_next(s, w, &t, &stolen), DSANA_EAGAIN);
  }
  free(state);
  return drops;
}

/* ---- tests ------------------------------------------------------------- */

/* The policies under test: 0 static, 1 dynamic (longest first), 2 dynamic
 * with contiguous ranges (chunked transfers). */
#define N_VARIANTS 3
static const char *const variant_name[N_VARIANTS] = {"static", "dynamic", "contiguous"};

static struct sched *make_sched(int variant, uint32_t n_workers, const double *cost, uint32_t n_tasks) {
  struct sched *s;
  assert_int_equal(sched_create(variant ? SCHED_DYNAMIC : SCHED_STATIC, n_workers, cost, n_tasks, &s), 0);
  sched_set_contiguous(s, variant == 2);
  return s;
}

static void test_invalid_inputs(void **unused) {
  struct sched *s = (struct sched *)1;
  double ok[3] = {1, 2, 3};
  assert_int_equal(sched_create(SCHED_DYNAMIC, 0, ok, 3, &s), DSANA_EINVAL);
  assert_null(s);
  assert_int_equal(sched_create(SCHED_DYNAMIC, 2, ok, 0, &s), DSANA_EINVAL);
  assert_int_equal(sched_create(SCHED_DYNAMIC, 2, NULL, 3, &s), DSANA_EINVAL);
  assert_int_equal(sched_create(SCHED_STATIC, 2, ok, 3, NULL), DSANA_EINVAL);
  assert_int_equal(sched_create((enum sched_kind)7, 2, ok, 3, &s), DSANA_EINVAL);
  double bad[4][2] = {{1, 0}, {1, -1}, {NAN, 1}, {1, INFINITY}};
  for (int i = 0; i < 4; i++)
    assert_int_equal(sched_create(SCHED_STATIC, 2, bad[i], 2, &s), DSANA_EINVAL);

  assert_int_equal(sched_create(SCHED_DYNAMIC, 2, ok, 3, &s), 0);
  uint32_t t;
  bool stolen;
  assert_int_equal(sched_next(s, 0, &t, &stolen), DSANA_EAGAIN); /* no iteration yet */
  bool none[2] = {false, false};
  assert_int_equal(sched_begin_iter(s, none), DSANA_EINVAL);
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  assert_int_equal(sched_next(s, 2, &t, &stolen), DSANA_EINVAL);
  assert_int_equal(sched_next(s, 0, NULL, &stolen), DSANA_EINVAL);
  assert_true(sched_speed_est(s, 0) == 0); /* nothing observed */
  sched_report(s, 5, 0, 1.0);              /* out of range: ignored */
  sched_report(s, 0, 99, 1.0);
  sched_destroy(s);
  sched_destroy(NULL);

  enum sched_kind k;
  assert_int_equal(sched_kind_parse("static", &k), 0);
  assert_int_equal(k, SCHED_STATIC);
  assert_int_equal(sched_kind_parse("dynamic", &k), 0);
  assert_int_equal(k, SCHED_DYNAMIC);
  assert_int_equal(sched_kind_parse("Dynamic", &k), DSANA_EINVAL);
  assert_int_equal(sched_kind_parse("", &k), DSANA_EINVAL);
  assert_string_equal(sched_kind_name(SCHED_STATIC), "static");
  assert_string_equal(sched_kind_name(SCHED_DYNAMIC), "dynamic");
}

static void expect_block(struct sched *s, uint32_t w, uint32_t lo, uint32_t hi) {
  for (uint32_t i = lo; i < hi; i++) {
    uint32_t t;
    bool stolen;
    assert_int_equal(sched_next(s, w, &t, &stolen), 0);
    assert_int_equal(t, i);
    assert_false(stolen);
    sched_report(s, w, t, 1.0);
  }
  uint32_t t;
  bool stolen;
  /* Static never steals, even though others still have work. */
  assert_int_equal(sched_next(s, w, &t, &stolen), DSANA_EAGAIN);
}

static void test_static_split(void **unused) {
  double cost[10];
  random_costs(cost, 10, 1, 1, 100); /* costs must not matter */
  struct sched *s;
  assert_int_equal(sched_create(SCHED_STATIC, 3, cost, 10, &s), 0);
  for (int iter = 0; iter < 3; iter++) {
    assert_int_equal(sched_begin_iter(s, NULL), 0);
    assert_int_equal(sched_remaining(s), 10);
    expect_block(s, 0, 0, 3);
    expect_block(s, 2, 6, 10);
    expect_block(s, 1, 3, 6);
    for (uint32_t w = 0; w < 3; w++)
      assert_int_equal(sched_stolen(s, w), 0);
    assert_int_equal(sched_remaining(s), 0);
  }
  bool alive[3] = {true, false, true};
  assert_int_equal(sched_begin_iter(s, alive), 0);
  expect_block(s, 2, 5, 10);
  expect_block(s, 0, 0, 5);
  uint32_t t;
  bool stolen;
  assert_int_equal(sched_next(s, 1, &t, &stolen), DSANA_EAGAIN);
  sched_destroy(s);

  /* A slow worker changes nothing under static. */
  double speed[4] = {1, 1, 1, 0.25}, c64[64], work[4] = {0};
  random_costs(c64, 64, 2, 1, 10);
  assert_int_equal(sched_create(SCHED_STATIC, 4, c64, 64, &s), 0);
  for (int iter = 0; iter < 3; iter++)
    sim_iter(s, c64, 64, speed, 4, 2, NULL);
  sim_iter(s, c64, 64, speed, 4, 2, work);
  for (uint32_t w = 0; w < 4; w++) {
    double expect = 0;
    for (uint32_t i = w * 16; i < (w + 1) * 16; i++)
      expect += c64[i];
    assert_true(fabs(work[w] - expect) < 1e-9);
    assert_int_equal(sched_stolen(s, w), 0);
  }
  sched_destroy(s);
}

static void test_slow_worker_gets_a_quarter(void **unused) {
  double speed[4] = {1, 1, 1, 0.25}, cost[64];
  random_costs(cost, 64, 3, 1, 10);
  struct sched *s;
  assert_int_equal(sched_create(SCHED_DYNAMIC, 4, cost, 64, &s), 0);
  for (int iter = 0; iter < 4; iter++)
    sim_iter(s, cost, 64, speed, 4, 1, NULL);
  /* Estimates are exact for noiseless durations. */
  for (uint32_t w = 0; w < 4; w++)
    assert_true(fabs(sched_speed_est(s, w) - speed[w]) < 1e-6 * speed[w] + 1e-3);
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  double fast = (sched_queued_cost(s, 0) + sched_queued_cost(s, 1) + sched_queued_cost(s, 2)) / 3;
  double ratio = sched_queued_cost(s, 3) / fast;
  print_message("slow worker assigned %.1f vs %.1f per fast worker (ratio %.3f)\n", sched_queued_cost(s, 3), fast,
                ratio);
  assert_true(ratio > 0.20 && ratio < 0.30);
  /* And in a full iteration, after steals, it still runs about a quarter. */
  double work[4] = {0};
  sim_iter(s, cost, 64, speed, 4, 2, work);
  ratio = work[3] / ((work[0] + work[1] + work[2]) / 3);
  print_message("slow worker ran a share of %.3f (prefetch depth 2)\n", ratio);
  assert_true(ratio > 0.15 && ratio < 0.35);
  sched_destroy(s);
}

static void test_estimate_damps_outliers(void **unused) {
  double cost[2] = {4, 4};
  struct sched *s;
  assert_int_equal(sched_create(SCHED_DYNAMIC, 1, cost, 2, &s), 0);
  uint32_t t;
  bool stolen;
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(sched_next(s, 0, &t, &stolen), 0);
    sched_report(s, 0, t, 2.0);  /* 2 cost units per second */
    sched_report(s, 0, t, 0.01); /* duplicate: ignored */
  }
  assert_true(fabs(sched_speed_est(s, 0) - 2.0) < 1e-12);
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  assert_int_equal(sched_next(s, 0, &t, &stolen), 0);
  sched_report(s, 0, t, 400.0); /* 100x slower: clamped to half the estimate */
  assert_true(fabs(sched_speed_est(s, 0) - (0.5 * 2.0 + 0.5 * 1.0)) < 1e-12);
  assert_int_equal(sched_next(s, 0, &t, &stolen), 0);
  sched_report(s, 0, t, 0.0); /* no timing information */
  assert_true(fabs(sched_speed_est(s, 0) - 1.5) < 1e-12);
  assert_int_equal(sched_next(s, 0, &t, &stolen), DSANA_EAGAIN);
  sched_destroy(s);
}

/* Two workers, six tasks of cost 1, an iteration begun: equal speeds, so
 * the contiguous layout by cost, w0 = {0,1,2}, w1 = {3,4,5}, each run in
 * task order. */
static struct sched *two_workers_six_tasks(void) {
  static const double cost[6] = {1, 1, 1, 1, 1, 1};
  struct sched *s;
  assert_int_equal(sched_create(SCHED_DYNAMIC, 2, cost, 6, &s), 0);
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  return s;
}

static void test_steal_only_when_it_helps(void **unused) {
  struct sched *s = two_workers_six_tasks();
  uint32_t t;
  bool stolen;
  assert_int_equal(sched_next(s, 1, &t, &stolen), 0);
  assert_int_equal(t, 3);
  for (uint32_t expect = 0; expect <= 2; expect++) {
    assert_int_equal(sched_next(s, 0, &t, &stolen), 0);
    assert_int_equal(t, expect);
    assert_false(stolen);
    sched_report(s, 0, t, 1.0);
  }
  /* w1 still queues {4,5}: taking its tail helps (1 < 2). */
  assert_int_equal(sched_next(s, 0, &t, &stolen), 0);
  assert_int_equal(t, 5);
  assert_true(stolen);
  assert_int_equal(sched_stolen(s, 0), 1);
  /* w1 queues {4}: moving it would not finish sooner (1 < 1 is false). */
  assert_int_equal(sched_next(s, 0, &t, &stolen), DSANA_EAGAIN);
  assert_int_equal(sched_remaining(s), 1);
  sched_report(s, 1, 3, 1.0);
  assert_int_equal(sched_next(s, 1, &t, &stolen), 0);
  assert_int_equal(t, 4);
  assert_false(stolen);
  assert_int_equal(sched_next(s, 1, &t, &stolen), DSANA_EAGAIN);
  assert_int_equal(sched_stolen(s, 1), 0);
  sched_destroy(s);
}

/* A worker's speed is its threads' together, but a stolen task runs on
 * one of them: the same state as above with w0 on 2 threads (its tasks of
 * cost 1 reported at 1 s each, the runtime's seconds over the threads:
 * speed 1 together, 0.5 a thread) takes nothing from w1's {4,5}, which a
 * thread of w0 would finish no sooner (2 s < 2 s is false). */
static void test_steal_counts_one_thread(void **unused) {
  static const double cost[6] = {1, 1, 1, 1, 1, 1};
  struct sched *s;
  assert_int_equal(sched_create(SCHED_DYNAMIC, 2, cost, 6, &s), 0);
  sched_set_threads(s, 0, 2);
  sched_set_threads(s, 7, 2); /* no such worker: ignored */
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  uint32_t t;
  bool stolen;
  assert_int_equal(sched_next(s, 1, &t, &stolen), 0);
  for (uint32_t expect = 0; expect <= 2; expect++) {
    assert_int_equal(sched_next(s, 0, &t, &stolen), 0);
    assert_int_equal(t, expect);
    sched_report(s, 0, t, 1.0);
  }
  assert_int_equal(sched_next(s, 0, &t, &stolen), DSANA_EAGAIN);
  assert_int_equal(sched_stolen(s, 0), 0);
  assert_true(sched_queued_cost(s, 1) == 2.0);
  sched_set_threads(s, 0, 0); /* 0 counts as 1: then it helps (1 s < 2 s) */
  assert_int_equal(sched_next(s, 0, &t, &stolen), 0);
  assert_int_equal(t, 5);
  assert_true(stolen);
  sched_destroy(s);
}

/* Four workers of 4 threads, their threads at speeds 4, 4, 2, 1 (reports
 * are seconds over the threads, as the runtime sends them), 64 equal
 * tasks: a task runs on one thread, so the quarter-speed worker's share is
 * a round of 4 tasks (4 s), not the 64 / 11 ~ 6 its speed is owed (two
 * rounds, 8 s), and the plan is 24, 24, 12, 4: six, six, three and one
 * rounds of 1 s, 1 s, 2 s and 4 s, all done at 4 s (the proportional
 * plan, 23-24, 23-24, 11-12, 5-6, takes 8 s). Contiguous ranges and LPT
 * alike. */
static void test_plan_counts_rounds_of_threads(void **unused) {
  double cost[64];
  static const double thread_speed[4] = {4, 4, 2, 1};
  for (uint32_t t = 0; t < 64; t++)
    cost[t] = 4;
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    struct sched *s;
    assert_int_equal(sched_create(SCHED_DYNAMIC, 4, cost, 64, &s), 0);
    sched_set_contiguous(s, contiguous);
    for (uint32_t w = 0; w < 4; w++)
      assert_int_equal(sched_set_threads(s, w, 4), 0);
    assert_int_equal(sched_set_threads(s, 4, 4), DSANA_EINVAL);
    uint32_t count[4] = {0};
    for (int iter = 0; iter < 3; iter++) {
      assert_int_equal(sched_begin_iter(s, NULL), 0);
      uint32_t t;
      bool stolen;
      for (uint32_t w = 0; w < 4; w++)
        for (count[w] = 0; sched_next_own(s, w, &t, &stolen) == 0; count[w]++)
          sched_report(s, w, t, cost[t] / thread_speed[w] / 4);
    }
    assert_int_equal(count[0], 24);
    assert_int_equal(count[1], 24);
    assert_int_equal(count[2], 12);
    assert_int_equal(count[3], 4);
    sched_destroy(s);
  }
}

/* The hand-outs that start an iteration take only a worker's own queue:
 * where sched_next() would steal (same state, same request), sched_next_own()
 * says there is nothing, and leaves the other queue as it was. */
static void test_own_hand_out_never_steals(void **unused) {
  struct sched *s = two_workers_six_tasks();
  uint32_t t;
  bool stolen;
  for (uint32_t expect = 0; expect <= 2; expect++) {
    assert_int_equal(sched_next_own(s, 0, &t, &stolen), 0);
    assert_int_equal(t, expect);
    assert_false(stolen);
  }
  assert_int_equal(sched_next_own(s, 0, &t, &stolen), DSANA_EAGAIN);
  assert_int_equal(sched_stolen(s, 0), 0);
  assert_true(sched_queued_cost(s, 1) == 3.0);
  assert_int_equal(sched_next(s, 0, &t, &stolen), 0); /* the stealing call does take one */
  assert_int_equal(t, 5);
  assert_true(stolen);
  assert_int_equal(sched_stolen(s, 0), 1);
  sched_destroy(s);
}

static void test_drop_worker(void **unused) {
  double cost[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  for (int k = 0; k < 2; k++) {
    struct sched *s;
    uint32_t t, lost;
    bool stolen, ran[9] = {false};
    assert_int_equal(sched_create(k ? SCHED_DYNAMIC : SCHED_STATIC, 3, cost, 9, &s), 0);
    assert_int_equal(sched_begin_iter(s, NULL), 0);
    assert_int_equal(sched_next(s, 1, &lost, &stolen), 0);
    sched_drop_worker(s, 1, lost);
    sched_drop_worker(s, 1, lost); /* repeated: ignored */
    sched_report(s, 1, lost, 1.0); /* late report from the dead: ignored */
    assert_int_equal(sched_remaining(s), 9);
    assert_int_equal(sched_next(s, 1, &t, &stolen), DSANA_EAGAIN);
    /* What w1 left is not w0's own: once w0's queue is drained, only the
     * stealing call takes it (a worker holding enough must not hoard it). */
    uint32_t w0_own = 0;
    while (sched_next_own(s, 0, &t, &stolen) == 0) {
      assert_false(stolen);
      assert_false(ran[t]);
      ran[t] = true;
      sched_report(s, 0, t, 1.0);
      w0_own++;
    }
    assert_true(w0_own >= 1);
    assert_true(sched_remaining(s) >= 3); /* w1's three at least */
    assert_int_equal(sched_next(s, 0, &t, &stolen), 0);
    assert_true(stolen);
    assert_false(ran[t]);
    ran[t] = true;
    sched_report(s, 0, t, 1.0);
    uint32_t w = 0, idle = 0;
    while (idle < 2) {
      if (sched_next(s, w, &t, &stolen) == 0) {
        assert_false(ran[t]);
        ran[t] = true;
        sched_report(s, w, t, 1.0);
        idle = 0;
      } else {
        idle++;
      }
      w = w == 0 ? 2 : 0;
    }
    for (uint32_t i = 0; i < 9; i++)
      assert_true(ran[i]);
    assert_int_equal(sched_remaining(s), 0);
    assert_true(sched_stolen(s, 0) + sched_stolen(s, 2) >= 3); /* w1's share moved */
    /* The next iteration brings it back. */
    assert_int_equal(sched_begin_iter(s, NULL), 0);
    assert_int_equal(sched_next(s, 1, &t, &stolen), 0);
    sched_destroy(s);
  }
}

static void test_exactly_once_random(void **unused) {
  const double speed[5] = {1, 0.7, 1.3, 0.25, 1};
  for (int k = 0; k < N_VARIANTS; k++) {
    uint32_t drops = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
      uint32_t n_tasks = 1 + (uint32_t)(seed * 7 % 61), n_workers = 1 + (uint32_t)(seed % 5);
      double *cost = malloc(n_tasks * sizeof(double));
      assert_non_null(cost);
      random_costs(cost, n_tasks, seed, 0.5, 20);
      struct sched *s = make_sched(k, n_workers, cost, n_tasks);
      uint64_t rng = seed * 1000 + (uint64_t)k;
      for (int iter = 0; iter < 4; iter++)
        drops += random_iter(s, cost, n_tasks, speed, n_workers, &rng, iter % 2 == 1, NULL);
      sched_destroy(s);
      free(cost);
    }
    print_message("%s: %u workers dropped mid-iteration\n", variant_name[k], drops);
    assert_true(drops >= 10);
  }
}

static void test_deterministic(void **unused) {
  const double speed[4] = {1, 1, 0.5, 0.25};
  double cost[40];
  random_costs(cost, 40, 11, 1, 9);
  for (int k = 0; k < N_VARIANTS; k++) {
    struct trace tr[2] = {{0}, {0}};
    for (int run = 0; run < 2; run++) {
      struct sched *s = make_sched(k, 4, cost, 40);
      uint64_t rng = 42;
      for (int iter = 0; iter < 5; iter++)
        random_iter(s, cost, 40, speed, 4, &rng, iter == 3, &tr[run]);
      sched_destroy(s);
    }
    assert_int_equal(tr[0].len, tr[1].len);
    assert_memory_equal(tr[0].ev, tr[1].ev, tr[0].len * sizeof(uint32_t));
    free(tr[0].ev);
    free(tr[1].ev);
  }
}

static void test_sim_makespan(void **unused) {
  const double speed[4] = {1, 1, 0.5, 0.25};
  double cost[64], total = 0;
  random_costs(cost, 64, 2020, 1, 10);
  for (int t = 0; t < 64; t++)
    total += cost[t];
  double bound = total / (1 + 1 + 0.5 + 0.25);
  double span[2][2][4]; /* [kind][depth-1][iter] */
  for (int k = 0; k < 2; k++) {
    for (uint32_t depth = 1; depth <= 2; depth++) {
      struct sched *s;
      assert_int_equal(sched_create(k ? SCHED_DYNAMIC : SCHED_STATIC, 4, cost, 64, &s), 0);
      for (int iter = 0; iter < 4; iter++)
        span[k][depth - 1][iter] = sim_iter(s, cost, 64, speed, 4, depth, NULL);
      sched_destroy(s);
      print_message("%-7s depth %u: makespans %.1f %.1f %.1f %.1f (bound %.1f, last/bound %.3f)\n",
                    k ? "dynamic" : "static", depth, span[k][depth - 1][0], span[k][depth - 1][1],
                    span[k][depth - 1][2], span[k][depth - 1][3], bound, span[k][depth - 1][3] / bound);
    }
  }
  for (uint32_t d = 0; d < 2; d++) {
    /* After 3 observed iterations, dynamic is within 10% of the bound... */
    assert_true(span[1][d][3] >= bound * (1 - 1e-12));
    assert_true(span[1][d][3] <= 1.10 * bound);
    /* ... while static waits for the slowest worker's quarter of the work. */
    assert_true(span[0][d][3] > 2.0 * bound);
  }
}

/* Equal workers whose measured speed jitters by a few percent between
 * iterations: as equal as the estimates tell, they get the contiguous
 * layout by cost, and stickiness keeps tasks on the worker that ran them
 * (block caches stay warm) instead of reshuffling on noise, at little
 * cost: a contiguous share is off by up to half a task (here tasks of cost
 * 1..10 over 4 workers: one is up to 11 % of a share), plus the noise. */
static void test_sticky_under_noise(void **unused) {
  double cost[64], total = 0;
  random_costs(cost, 64, 77, 1, 10);
  for (int t = 0; t < 64; t++)
    total += cost[t];
  uint32_t ran[2][64];
  uint64_t rng = 5;
  struct sched *s;
  assert_int_equal(sched_create(SCHED_DYNAMIC, 4, cost, 64, &s), 0);
  uint32_t same = 0, compared = 0;
  double worst = 0;
  for (int iter = 0; iter < 10; iter++) {
    double speed[4], sum_speed = 0;
    for (int w = 0; w < 4; w++) {
      speed[w] = 1.0 + 0.06 * (rng_unit(&rng) - 0.5);
      sum_speed += speed[w];
    }
    double span = sim_iter_ran(s, cost, 64, speed, 4, 2, NULL, ran[iter % 2]);
    if (iter >= 2) {
      for (int t = 0; t < 64; t++)
        same += ran[0][t] == ran[1][t];
      compared += 64;
      if (span / (total / sum_speed) > worst)
        worst = span / (total / sum_speed);
    }
  }
  print_message("sticky: %.1f%% of tasks kept their worker; worst makespan/bound %.3f\n", 100.0 * same / compared,
                worst);
  assert_true(same >= 0.85 * compared);
  assert_true(worst <= 1.15);
  sched_destroy(s);
}

/* Contiguous dynamic assignment (chunked transfers): every worker's queue
 * is one range of consecutive tasks, in worker order, sized by speed; the
 * makespan stays near the bound and the ranges do not move on noise. */
static void test_contiguous_ranges(void **unused) {
  const double speed[4] = {1, 1, 0.5, 0.25};
  double cost[64], total = 0;
  random_costs(cost, 64, 31, 1, 10);
  for (int t = 0; t < 64; t++)
    total += cost[t];
  double bound = total / 2.75;
  struct sched *s = make_sched(2, 4, cost, 64);
  double span = 0;
  for (int iter = 0; iter < 4; iter++)
    span = sim_iter(s, cost, 64, speed, 4, 2, NULL);
  print_message("contiguous: makespan %.1f, bound %.1f (x%.3f)\n", span, bound, span / bound);
  assert_true(span <= 1.10 * bound);
  /* the next iteration's queues, popped in full: consecutive ranges */
  assert_int_equal(sched_begin_iter(s, NULL), 0);
  uint32_t next = 0;
  for (uint32_t w = 0; w < 4; w++) {
    double share = sched_queued_cost(s, w) / total;
    print_message("worker %u: share %.3f (speed share %.3f)\n", w, share, speed[w] / 2.75);
    assert_true(fabs(share - speed[w] / 2.75) < 0.05);
    uint32_t t;
    bool stolen;
    while (sched_queued_cost(s, w) > 0) {
      assert_int_equal(sched_next(s, w, &t, &stolen), 0);
      assert_false(stolen);
      assert_int_equal(t, next++);
    }
  }
  assert_int_equal(next, 64);
  sched_destroy(s);

  /* equal workers with a few percent of noise: the ranges stay put */
  uint32_t ran[2][64], same = 0, compared = 0;
  uint64_t rng = 9;
  s = make_sched(2, 4, cost, 64);
  for (int iter = 0; iter < 10; iter++) {
    double jitter[4];
    for (int w = 0; w < 4; w++)
      jitter[w] = 1.0 + 0.06 * (rng_unit(&rng) - 0.5);
    sim_iter_ran(s, cost, 64, jitter, 4, 2, NULL, ran[iter % 2]);
    if (iter >= 2) {
      for (int t = 0; t < 64; t++)
        same += ran[0][t] == ran[1][t];
      compared += 64;
    }
  }
  print_message("contiguous, noisy equal workers: %.1f%% of tasks kept their worker\n", 100.0 * same / compared);
  assert_true(same >= 0.85 * compared);
  sched_destroy(s);
}

/* A worker frozen for a few iterations (1000x slower), then fast again:
 * it keeps getting a task every iteration (a probe), and its estimate is
 * back within 20% of its speed at most 3 iterations after it recovered,
 * under both dynamic variants (speed-proportional LPT and contiguous). */
static void test_frozen_worker_estimate_recovers(void **unused) {
  double cost[64];
  random_costs(cost, 64, 5, 1, 10);
  for (int variant = 1; variant <= 2; variant++) {
    struct sched *s = make_sched(variant, 4, cost, 64);
    double speed[4] = {1, 1, 1, 1};
    for (int iter = 0; iter < 3; iter++)
      sim_iter(s, cost, 64, speed, 4, 2, NULL);
    speed[3] = 0.001;
    for (int iter = 0; iter < 8; iter++) {
      double work[4] = {0};
      sim_iter(s, cost, 64, speed, 4, 2, work);
      assert_true(work[3] > 0); /* never left out */
    }
    assert_true(sched_speed_est(s, 3) < 0.15); /* measured slow (each sample clamped to half) */
    speed[3] = 1;
    int back = 0;
    for (int iter = 1; iter <= 3 && !back; iter++) {
      double work[4] = {0};
      sim_iter(s, cost, 64, speed, 4, 2, work);
      assert_true(work[3] > 0);
      if (fabs(sched_speed_est(s, 3) - 1.0) < 0.2)
        back = iter;
    }
    print_message("variant %d: estimate back within 20%% after %d iteration(s) (%.3f)\n", variant, back,
                  sched_speed_est(s, 3));
    assert_true(back >= 1 && back <= 3);
    sched_destroy(s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_invalid_inputs),
      cmocka_unit_test(test_static_split),
      cmocka_unit_test(test_slow_worker_gets_a_quarter),
      cmocka_unit_test(test_estimate_damps_outliers),
      cmocka_unit_test(test_steal_only_when_it_helps),
      cmocka_unit_test(test_steal_counts_one_thread),
      cmocka_unit_test(test_plan_counts_rounds_of_threads),
      cmocka_unit_test(test_own_hand_out_never_steals),
      cmocka_unit_test(test_drop_worker),
      cmocka_unit_test(test_exactly_once_random),
      cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_sim_makespan),
      cmocka_unit_test(test_sticky_under_noise),
      cmocka_unit_test(test_contiguous_ranges),
      cmocka_unit_test(test_frozen_worker_estimate_recovers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
