/* test_sim_run.c - the simulator (src/sim): deterministic for the same
 * inputs and seed, a homogeneous bsp iteration equal to its hand-computed
 * critical path, the static policy's assignment seen per worker, dynamic
 * scheduling ahead of bsp under a straggler, and bad costs files rejected.
 * Jobs come from `--tasks FILE` (cli/run/sim_tasks.h) parsed as the command
 * line does; only simulated time is compared, never the host's clock. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/core/opts.h"
#include "cli/run/sim_tasks.h"
#include "sim/sim.h"

#define MAX_ITERS 8
#define assert_near(a, b, eps) check_near((a), (b), (eps), #a, __FILE__, __LINE__)
#define MAX_W 16

/* cmocka 1.1 has no assert_double_equal. */
static void check_near(double a, double b, double eps, const char *what, const char *file, int line) {
  if (!(fabs(a - b) <= eps)) {
    print_error("%s = %.17g, expected %.17g (within %g)\n", what, a, b, eps);
    _fail(file, line);
  }
}

/* What the observer saw. */
struct seen {
  uint32_t n_iters;
  double wall_s[MAX_ITERS];
  uint32_t tasks[MAX_ITERS][MAX_W];
  double compute_s[MAX_ITERS][MAX_W];
  uint64_t messages[MAX_ITERS];
  double summary_median_s, summary_total_s;
  uint32_t summaries;
};

static void on_iteration(void *arg, const struct rt_iter_report *r) {
  struct seen *s = arg;
  if (s->n_iters >= MAX_ITERS)
    return;
  uint32_t k = s->n_iters++;
  s->wall_s[k] = r->wall_s;
  s->messages[k] = r->messages;
  for (uint32_t w = 0; w < r->n_workers && w < MAX_W; w++) {
    s->tasks[k][w] = r->workers[w].tasks;
    s->compute_s[k][w] = r->workers[w].compute_s;
  }
}

static void on_summary(void *arg, const struct rt_run_report *r) {
  struct seen *s = arg;
  s->summaries++;
  s->summary_median_s = r->median_iter_s;
  s->summary_total_s = r->total_s;
}

/* A tasks file of n tasks of cost `cost` each; returns its path (static buffer). */
static const char *tasks_file(uint32_t n, double cost) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/dsana-test-sim-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fprintf(f, "# test job\n");
  for (uint32_t k = 0; k < n; k++)
    fprintf(f, "%.17g 4\n", cost);
  assert_int_equal(fclose(f), 0);
  return path;
}

static const char *write_file(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/dsana-test-sim-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
  return path;
}

/* Every cost zero but compute (worker_ns_per_cost) and the transport's
 * per-message delivery (net_msg_s): a model simple enough to compute by hand. */
static void simple_costs(struct sim_costs *c, double ns_per_cost, double net_msg_s) {
  memset(c, 0, sizeof *c);
  c->worker_ns_per_cost = ns_per_cost;
  c->net_msg_s = net_msg_s;
}

/* Simulate `dsana sim --tasks PATH ARGS...` with costs c; fills seen and res. */
static int simulate(const char *path, const char *const *args, const struct sim_costs *c, const struct sim_options *o,
                    struct seen *seen, struct sim_result *res) {
  char *argv[32] = {(char *)"sim", (char *)path};
  int argc = 2;
  for (; args[argc - 2]; argc++)
    argv[argc] = (char *)args[argc - 2];
  struct cli_run r;
  assert_int_equal(cli_parse_run(&sim_tasks_app, argc, argv, &r), 0);
  struct dsana_job job;
  char err[512] = "";
  int rc = sim_tasks_app.prepare ? sim_tasks_app.prepare(r.app_state, err, sizeof err) : 0;
  assert_int_equal(rc, 0);
  job_init(&job, r.cfg.n_workers, r.cfg.n_servers, r.cfg.tasks_per_worker, "test");
  rc = sim_tasks_app.setup(r.app_state, &job, err, sizeof err);
  assert_int_equal(rc, 0);
  assert_int_equal(job_finalize(&job, err, sizeof err), 0);
  struct scenario sc;
  bool have_sc = r.cfg.scenario_path[0] != '\0';
  if (have_sc)
    assert_int_equal(scenario_load(r.cfg.scenario_path, &sc, err, sizeof err), 0);
  struct sim_app_shape shape = {.name = "sim", .block_hooks = true, .run_task = true};
  struct sim_options opt = *o;
  opt.max_iter = job.max_iter;
  memset(seen, 0, sizeof *seen);
  struct rt_observer obs = {.arg = seen, .iteration = on_iteration, .summary = on_summary};
  rc = sim_run(&job, &shape, &r.cfg, have_sc ? &sc : NULL, c, &opt, &obs, res, err, sizeof err);
  if (have_sc)
    scenario_fini(&sc);
  job_fini(&job);
  sim_tasks_app.destroy(r.app_state);
  return rc;
}

/* Same inputs, same seed: the same run, to the bit; another seed differs. */
static void test_deterministic(void **state) {
  (void)state;
  const char *path = tasks_file(64, 1e6);
  const char *args[] = {"--workers", "8", "--servers", "2", "--mode", "dsana", "--max-iter", "5", NULL};
  struct sim_costs c;
  sim_costs_default(&c);
  struct sim_options o = {.seed = 3, .noise = 0.3};
  struct seen a, b;
  struct sim_result ra, rb;
  assert_int_equal(simulate(path, args, &c, &o, &a, &ra), 0);
  assert_int_equal(simulate(path, args, &c, &o, &b, &rb), 0);
  assert_int_equal(a.n_iters, 5);
  assert_memory_equal(&a, &b, sizeof a);
  assert_memory_equal(&ra, &rb, sizeof ra);
  o.seed = 4;
  assert_int_equal(simulate(path, args, &c, &o, &b, &rb), 0);
  assert_true(memcmp(a.wall_s, b.wall_s, sizeof a.wall_s) != 0);
  unlink(path);
}

/* 4 equal workers, 16 tasks of cost 1e6 at 2 ns per unit, bsp: each worker
 * computes 4 tasks (8 ms). With a delivery time L per message, and every
 * CPU cost zero, the critical path of an iteration is ITER_START (L), the
 * worker's PULL (L) and its answer (L), the compute, the PUSH (L) and the
 * server's SHARD_REPORT (L): 8 ms + 5 L. */
static void test_homogeneous_iteration_by_hand(void **state) {
  (void)state;
  const char *path = tasks_file(16, 1e6);
  const char *args[] = {"--workers", "4", "--servers", "1", "--mode", "bsp", "--max-iter", "3", NULL};
  struct sim_costs c;
  struct sim_options o = {.seed = 1};
  struct seen s;
  struct sim_result res;
  simple_costs(&c, 2, 0);
  assert_int_equal(simulate(path, args, &c, &o, &s, &res), 0);
  assert_int_equal(s.n_iters, 3);
  for (uint32_t k = 0; k < 3; k++) {
    assert_near(s.wall_s[k], 8e-3, 1e-12);
    for (uint32_t w = 0; w < 4; w++) {
      assert_int_equal(s.tasks[k][w], 4);
      assert_near(s.compute_s[k][w], 8e-3, 1e-12);
    }
  }
  assert_near(res.bound_s, 8e-3, 1e-12);
  assert_near(res.median_iter_s, 8e-3, 1e-12);
  assert_near(res.largest_task_s, 2e-3, 1e-12);
  simple_costs(&c, 2, 1e-4);
  assert_int_equal(simulate(path, args, &c, &o, &s, &res), 0);
  for (uint32_t k = 0; k < 3; k++)
    assert_near(s.wall_s[k], 8e-3 + 5e-4, 1e-12);
  assert_int_equal(s.summaries, 1);
  assert_near(s.summary_median_s, 8.5e-3, 1e-12);
  assert_near(s.summary_total_s, 3 * 8.5e-3, 1e-12);
  unlink(path);
}

/* The static policy's contiguous blocks (test_policy_sched.c): with 12
 * equal tasks on 3 workers each worker runs 4, in every iteration, and
 * no task is run twice or lost. */
static void test_static_assignment(void **state) {
  (void)state;
  const char *path = tasks_file(12, 1e5);
  const char *args[] = {"--workers", "3", "--servers", "2", "--mode", "bsp", "--max-iter", "4", NULL};
  struct sim_costs c;
  sim_costs_default(&c);
  struct sim_options o = {.seed = 1};
  struct seen s;
  struct sim_result res;
  assert_int_equal(simulate(path, args, &c, &o, &s, &res), 0);
  assert_int_equal(s.n_iters, 4);
  for (uint32_t k = 0; k < 4; k++)
    for (uint32_t w = 0; w < 3; w++)
      assert_int_equal(s.tasks[k][w], 4);
  unlink(path);
}

/* One worker at a quarter speed: bsp waits for its 4 tasks (4 x 8 ms),
 * dynamic scheduling moves work to the others and ends close to the
 * balanced bound; every task still runs exactly once per iteration. */
static void test_dynamic_beats_bsp_under_straggler(void **state) {
  (void)state;
  const char *path = tasks_file(16, 1e6);
  const char *sc = write_file("{\"workers\": [{\"speed\": 1}, {\"speed\": 1}, {\"speed\": 1}, {\"speed\": 0.25}],"
                              " \"ns_per_cost\": 2, \"time_scale\": 1}\n");
  char sc_path[64];
  snprintf(sc_path, sizeof sc_path, "%s", sc);
  const char *bsp[] = {"--workers",  "4",     "--servers",  "1", "--mode", "bsp",
                       "--scenario", sc_path, "--max-iter", "3", NULL};
  const char *dyn[] = {"--workers",  "4",     "--servers",  "1", "--mode", "dsana",
                       "--scenario", sc_path, "--max-iter", "3", NULL};
  struct sim_costs c;
  simple_costs(&c, 0, 1e-4);
  struct sim_options o = {.seed = 1};
  struct seen sb, sd;
  struct sim_result rb, rd;
  assert_int_equal(simulate(path, bsp, &c, &o, &sb, &rb), 0);
  assert_int_equal(simulate(path, dyn, &c, &o, &sd, &rd), 0);
  assert_near(rb.median_iter_s, 32e-3 + 5e-4, 1e-12);
  assert_true(rd.median_iter_s < 0.5 * rb.median_iter_s);
  assert_true(rd.median_iter_s >= rd.bound_s);
  /* balanced bound: 16 x 2 ms over total speed 3.25; a task takes 2 ms on a fast worker */
  assert_near(rd.bound_s, 32e-3 / 3.25, 1e-9);
  assert_near(rd.largest_task_s, 2e-3, 1e-12);
  assert_near(rb.largest_task_s, 2e-3, 1e-12);
  for (uint32_t k = 0; k < sd.n_iters; k++) {
    uint32_t total = 0;
    for (uint32_t w = 0; w < 4; w++)
      total += sd.tasks[k][w];
    assert_int_equal(total, 16);
    assert_true(sd.tasks[k][3] < sd.tasks[k][0]);
  }
  unlink(sc_path);
  unlink(path);
}

/* Tiny tasks (20 us: below WPUSH_BATCH_NS) whose pushes are large (1,024
 * keys, 8 KiB each) on a link as fast as the compute: their pushes wait
 * to leave together, but only until they hold WPUSH_BATCH_BYTES, so the
 * link carries them while the later tasks compute. One worker, one server,
 * bsp, every CPU cost zero: an iteration is the pull (32 Ki keys, 256 KiB),
 * the compute (32 x 20 us), and what is left of the pushes (256 KiB) after
 * the last task: one batch, not all of them. */
static void test_tiny_tasks_pushes_overlap_the_compute(void **state) {
  (void)state;
  char body[32 * 16 + 16] = "";
  for (int k = 0; k < 32; k++)
    strcat(body, "1e4 1024\n");
  const char *path = write_file(body);
  char tasks[64];
  snprintf(tasks, sizeof tasks, "%s", path);
  const double bw = 256.0 * 1024 / 640e-6; /* bytes a second: 256 KiB in 0.64 ms */
  char text[256];
  snprintf(text, sizeof text, "{\"workers\": [{\"speed\": 1}], \"link\": {\"bandwidth_mbit\": %.17g}}\n", bw * 8 / 1e6);
  const char *sc = write_file(text);
  char sc_path[64];
  snprintf(sc_path, sizeof sc_path, "%s", sc);
  const char *args[] = {"--workers",  "1",     "--servers",  "1", "--mode", "bsp",
                        "--scenario", sc_path, "--max-iter", "3", NULL};
  struct sim_costs c;
  simple_costs(&c, 2, 0); /* 1e4 units at 2 ns: 20 us a task */
  struct sim_options o = {.seed = 1};
  struct seen s;
  struct sim_result r;
  assert_int_equal(simulate(tasks, args, &c, &o, &s, &r), 0);
  double pull = 640e-6, compute = 32 * 20e-6, pushes = 640e-6;
  print_message("iteration %.1f us: pull %.0f + compute %.0f + pushes %.0f us\n", r.median_iter_s * 1e6, pull * 1e6,
                compute * 1e6, pushes * 1e6);
  assert_true(r.median_iter_s > pull + compute);
  assert_true(r.median_iter_s < pull + compute + 0.25 * pushes);
  unlink(sc_path);
  unlink(tasks);
}

/* Roles sharing host cores (--local, --host-cores): two workers whose
 * per-task CPU (100 us, 8 tasks each) dominates run side by side on two
 * cores, as on two machines, and one after the other on one core. Work
 * booked ahead on a core (a role's thread busy until then) must not keep
 * the other worker from the gap before it. */
static void test_host_cores(void **state) {
  (void)state;
  const char *path = tasks_file(16, 1e6);
  const char *args[] = {"--workers", "2", "--servers", "1", "--mode", "bsp", "--max-iter", "2", NULL};
  struct sim_costs c;
  simple_costs(&c, 1e-3, 0); /* 1 us of compute per task */
  c.worker_task_s = 100e-6;
  struct sim_options o = {.seed = 1};
  struct seen s;
  struct sim_result r0, r1, r2;
  assert_int_equal(simulate(path, args, &c, &o, &s, &r0), 0);
  assert_near(r0.median_iter_s, 8 * 101e-6, 1e-12);
  c.host_cores = 2;
  assert_int_equal(simulate(path, args, &c, &o, &s, &r2), 0);
  assert_near(r2.median_iter_s, r0.median_iter_s, 0.02 * r0.median_iter_s);
  c.host_cores = 1;
  assert_int_equal(simulate(path, args, &c, &o, &s, &r1), 0);
  assert_near(r1.median_iter_s, 2 * r0.median_iter_s, 1e-9);
  unlink(path);
}

/* Costs files (profiles): known keys override, a profile of another
 * version and anything else is a one-line error. */
static void test_costs_file(void **state) {
  (void)state;
  struct sim_costs c;
  char err[512] = "";
  sim_costs_default(&c);
  const char *p = write_file("{\"sched_msg_s\": 2.5e-5, \"host_cores\": 2}");
  assert_int_equal(sim_costs_load(p, &c, err, sizeof err), 0);
  assert_near(c.sched_msg_s, 2.5e-5, 0);
  assert_int_equal(c.host_cores, 2);
  unlink(p);
  p = write_file("{\"profile_version\": 1, \"worker_task_s\": 2e-5}"); /* bench/sim_calibrate.sh's */
  assert_int_equal(sim_costs_load(p, &c, err, sizeof err), 0);
  assert_near(c.worker_task_s, 2e-5, 0);
  unlink(p);
  p = write_file("{\"profile_version\": 2, \"worker_task_s\": 3e-5}"); /* another dsana's profile */
  assert_int_not_equal(sim_costs_load(p, &c, err, sizeof err), 0);
  assert_non_null(strstr(err, "profile_version: 2"));
  assert_near(c.worker_task_s, 2e-5, 0);
  unlink(p);
  const char *bad[] = {"{\"no_such_cost\": 1}",
                       "{\"sched_msg_s\": -1}",
                       "{\"sched_msg_s\": \"x\"}",
                       "{\"profile_version\": 1.5}",
                       "[1, 2]",
                       "{",
                       NULL};
  for (int k = 0; bad[k]; k++) {
    p = write_file(bad[k]);
    err[0] = '\0';
    assert_int_not_equal(sim_costs_load(p, &c, err, sizeof err), 0);
    assert_true(err[0] != '\0');
    assert_null(strchr(err, '\n'));
    unlink(p);
  }
  assert_int_not_equal(sim_costs_load("/nonexistent/costs.json", &c, err, sizeof err), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_deterministic),
      cmocka_unit_test(test_homogeneous_iteration_by_hand),
      cmocka_unit_test(test_static_assignment),
      cmocka_unit_test(test_dynamic_beats_bsp_under_straggler),
      cmocka_unit_test(test_host_cores),
      cmocka_unit_test(test_costs_file),
      cmocka_unit_test(test_tiny_tasks_pushes_overlap_the_compute),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
