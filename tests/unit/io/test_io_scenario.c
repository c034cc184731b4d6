/*
 * test_io_scenario.c - scenario files (src/io/scenario/scenario.c): the shipped
 * bench/scenarios parse, every schema violation is rejected with a message
 * naming the file and key, units convert, and transient stragglers are
 * deterministic with the configured frequency.
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
#include <unistd.h>

#include "dsana/dsana.h"
#include "io/scenario/scenario.h"

static void bench_path(char *out, size_t len, const char *file) {
  const char *data = getenv("DSANA_TEST_DATA"); /* <repo>/tests/data */
  assert_non_null(data);
  snprintf(out, len, "%s/../../bench/scenarios/%s", data, file);
}

static void test_shipped_homogeneous(void **unused) {
  char path[4096], err[256] = "";
  struct scenario sc;
  bench_path(path, sizeof(path), "homogeneous-cloud.json");
  int rc = scenario_load(path, &sc, err, sizeof(err));
  if (rc != 0)
    print_error("%s\n", err);
  assert_int_equal(rc, 0);
  assert_int_equal(sc.n_workers, 4);
  for (uint32_t w = 0; w < 4; w++) {
    assert_true(sc.speed[w] == 1.0);
    assert_true(sc.link[w].bandwidth_bytes_per_s == 125e6); /* 1000 Mbit/s */
    assert_true(fabs(sc.link[w].latency_s - 0.0005) < 1e-15);
  }
  assert_true(sc.transient_p == 0.1);
  assert_true(sc.transient_slowdown == 4.0);
  assert_true(sc.ns_per_cost == 3.0);
  assert_int_equal(sc.transient_seed, 7);
  assert_string_equal(sc.name, path);
  assert_int_equal(scenario_fit_workers(&sc, 4, err, sizeof(err)), 0);
  assert_int_equal(scenario_fit_workers(&sc, 5, err, sizeof(err)), DSANA_EINVAL);
  assert_non_null(strstr(err, "workers: 4 entries for 5 workers"));
  scenario_fini(&sc);
}

static void test_shipped_heterogeneous(void **unused) {
  char path[4096], err[256] = "";
  struct scenario sc;
  bench_path(path, sizeof(path), "heterogeneous-cloud.json");
  int rc = scenario_load(path, &sc, err, sizeof(err));
  if (rc != 0)
    print_error("%s\n", err);
  assert_int_equal(rc, 0);
  const double speed[4] = {1, 1, 0.5, 0.25};
  assert_int_equal(sc.n_workers, 4);
  for (uint32_t w = 0; w < 4; w++) {
    assert_true(sc.speed[w] == speed[w]);
    assert_true(sc.link[w].bandwidth_bytes_per_s == 125e6);
    /* No transient: the slowdown is exactly time_scale/speed in every iteration. */
    for (uint32_t it = 0; it < 100; it++)
      assert_true(scenario_slowdown(&sc, w, it) == 4.0 / speed[w]);
  }
  assert_true(sc.transient_p == 0);
  assert_true(sc.time_scale == 4.0);
  assert_true(sc.ns_per_cost == 3.0);
  scenario_fini(&sc);
}

struct bad_case {
  const char *json;
  const char *msg;
};

static void test_rejects(void **unused) {
  static const struct bad_case cases[] = {
      {"{\"workers\": [{\"sped\": 1}]}", "s.json: unknown key 'sped' in workers[0]"},
      {"{\"workers\": [{\"speed\": 1}], \"wokers\": 1}", "s.json: unknown key 'wokers' at top level"},
      {"{\"workers\": [{\"speed\": 1}, {\"speed\": 1}, {\"speed\": -1}]}", "s.json: workers[2].speed: must be > 0"},
      {"{\"workers\": [{\"speed\": 0}]}", "s.json: workers[0].speed: must be > 0"},
      {"{\"workers\": [{\"speed\": 1}], \"time_scale\": 0.5}", "s.json: time_scale: must be in [1, 1e6]"},
      {"{\"workers\": [{\"speed\": 1}], \"time_scale\": \"x\"}", "s.json: time_scale: must be a number"},
      {"{\"workers\": [{\"speed\": 1}], \"ns_per_cost\": 0}", "s.json: ns_per_cost: must be in (0, 1e9]"},
      {"{\"workers\": [{\"speed\": 1}], \"ns_per_cost\": -3}", "s.json: ns_per_cost: must be in (0, 1e9]"},
      {"{\"workers\": [{\"speed\": 1}], \"ns_per_cost\": 2e9}", "s.json: ns_per_cost: must be in (0, 1e9]"},
      {"{\"workers\": [{\"speed\": 1}], \"ns_per_cost\": \"3\"}", "s.json: ns_per_cost: must be a number"},
      {"{\"workers\": [{\"speed\": \"fast\"}]}", "s.json: workers[0].speed: must be a number"},
      {"{\"workers\": [{\"speed\": 1e999}]}", "s.json: workers[0].speed: must be a finite number"},
      {"{\"workers\": [{}]}", "s.json: workers[0].speed: missing (required)"},
      {"{\"workers\": [{\"speed\": 1, \"speed\": 2}]}", "s.json: duplicate key 'speed' in workers[0]"},
      {"{\"workers\": [1]}", "s.json: workers[0]: must be an object"},
      {"{\"workers\": {\"speed\": 1}}", "s.json: workers: must be an array"},
      {"{\"workers\": []}", "s.json: workers: must have at least one entry"},
      {"{}", "s.json: workers: missing (required without a \"default_worker\")"},
      {"[1, 2]", "s.json: top level: must be an object"},
      {"{\"workers\": [{\"speed\": 1}], \"transient\": {\"probability\": 1.5}}",
       "s.json: transient.probability: must be in [0, 1]"},
      {"{\"workers\": [{\"speed\": 1}], \"transient\": {\"probability\": -0.1}}",
       "s.json: transient.probability: must be in [0, 1]"},
      {"{\"workers\": [{\"speed\": 1}], \"transient\": {\"probability\": true}}",
       "s.json: transient.probability: must be a number"},
      {"{\"workers\": [{\"speed\": 1}], \"transient\": {\"slowdown\": 0.5}}",
       "s.json: transient.slowdown: must be >= 1"},
      {"{\"workers\": [{\"speed\": 1}], \"transient\": {\"seed\": 1.5}}",
       "s.json: transient.seed: must be an integer in [0, 2^53]"},
      {"{\"workers\": [{\"speed\": 1}], \"transient\": {\"p\": 0.1}}", "s.json: unknown key 'p' in transient"},
      {"{\"workers\": [{\"speed\": 1}], \"transient\": 3}", "s.json: transient: must be an object"},
      {"{\"workers\": [{\"speed\": 1}], \"link\": {\"bandwidth_mbit\": -1}}",
       "s.json: link.bandwidth_mbit: must be >= 0 (0 = unlimited)"},
      {"{\"workers\": [{\"speed\": 1, \"link\": {\"latency_ms\": -2}}]}",
       "s.json: workers[0].link.latency_ms: must be >= 0"},
      {"{\"workers\": [{\"speed\": 1}], \"link\": {\"bandwidth_mbit\": 1e-320}}",
       "s.json: link.bandwidth_mbit: 9.99989e-321 out of range (0 = unlimited, else 1e-06 to 1e+09: 1 bit/s to 1 "
       "Pbit/s)"},
      {"{\"workers\": [{\"speed\": 1}], \"link\": {\"bandwidth_mbit\": 1e303}}",
       "s.json: link.bandwidth_mbit: 1e+303 out of range (0 = unlimited, else 1e-06 to 1e+09: 1 bit/s to 1 Pbit/s)"},
      {"{\"workers\": [{\"speed\": 1, \"link\": {\"latency_ms\": 1e-12}}]}",
       "s.json: workers[0].link.latency_ms: 1e-12 out of range (0, else 1e-06 to 1e+06: 1 ns to 1000 s)"},
      {"{\"workers\": [{\"speed\": 1, \"link\": {\"latency_ms\": 1e300}}]}",
       "s.json: workers[0].link.latency_ms: 1e+300 out of range (0, else 1e-06 to 1e+06: 1 ns to 1000 s)"},
      {"{\"workers\": [{\"speed\": 1, \"link\": {\"latency\": 2}}]}",
       "s.json: unknown key 'latency' in workers[0].link"},
      {"{\"workers\": [{\"speed\": 1}], \"link\": {\"latency_ms\": null}}",
       "s.json: link.latency_ms: must be a number"},
      {"{\"workers\": [{\"speed\": 1},]}", "s.json: invalid JSON near byte 26 (line 1, column 27)"},
      {"{\"workers\":\n [{\"speed\" 1}]}", "s.json: invalid JSON near byte 23 (line 2, column 12)"},
      {"{\"workers\": [{\"speed\": 1}]} x", "s.json: invalid JSON near byte 28 (line 1, column 29)"},
      {"", "s.json: invalid JSON near byte 0 (line 1, column 1)"},
      /* what cJSON takes but JSON does not (found by the fuzz target's RFC 8259 checker) */
      {"{\"workers\": [{\"speed\": 1},\x1c{\"speed\": 1}]}",
       "s.json: invalid JSON near byte 26 (line 1, column 27): a control byte"},
      {"{\"workers\": [{\"speed\": 01}]}", "s.json: invalid JSON near byte 23 (line 1, column 24): a number not in "
                                           "JSON's syntax"},
      {"{\"workers\": [{\"speed\": 1.}]}", "s.json: invalid JSON near byte 23 (line 1, column 24): a number not in "
                                           "JSON's syntax"},
      {"{\"workers\": [{\"speed\": 1}], \"link\": {\"latency_ms\": 1}, \"x\ty\": 1}",
       "s.json: invalid JSON near byte 57 (line 1, column 58): a control byte in a string"},
      {"{\"workers\": [{\"speed\\u0000x\": 1}]}",
       "s.json: invalid JSON near byte 20 (line 1, column 21): a \\u0000 escape (cJSON would end the string there)"},
      {"{\"workers\": [{\"speed\\u000\xff\": 1}]}",
       "s.json: invalid JSON near byte 20 (line 1, column 21): a \\u escape without 4 hex digits"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char err[256] = "";
    struct scenario sc;
    int rc = scenario_parse("s.json", cases[i].json, &sc, err, sizeof(err));
    if (rc != DSANA_EFORMAT || strcmp(err, cases[i].msg) != 0)
      print_error("case %zu: %s\n  got rc %d: %s\n  want: %s\n", i, cases[i].json, rc, err, cases[i].msg);
    assert_int_equal(rc, DSANA_EFORMAT);
    assert_string_equal(err, cases[i].msg);
    assert_null(sc.speed); /* nothing to free on failure */
    assert_null(sc.name);
  }
}

static void test_links_and_defaults(void **unused) {
  const char *json = "{\"link\": {\"bandwidth_mbit\": 80, \"latency_ms\": 2},"
                     " \"workers\": [{\"speed\": 2},"
                     " {\"speed\": 0.5, \"link\": {\"bandwidth_mbit\": 8}},"
                     " {\"speed\": 1, \"link\": {\"bandwidth_mbit\": 0, \"latency_ms\": 0}}]}";
  char err[256] = "";
  struct scenario sc;
  assert_int_equal(scenario_parse("l.json", json, &sc, err, sizeof(err)), 0);
  assert_int_equal(sc.n_workers, 3);
  assert_true(sc.global_link.bandwidth_bytes_per_s == 10e6);
  assert_true(sc.global_link.latency_s == 0.002);
  assert_true(sc.link[0].bandwidth_bytes_per_s == 10e6); /* inherits */
  assert_true(sc.link[0].latency_s == 0.002);
  assert_true(sc.link[1].bandwidth_bytes_per_s == 1e6); /* overrides bandwidth only */
  assert_true(sc.link[1].latency_s == 0.002);
  assert_true(sc.link[2].bandwidth_bytes_per_s == 0); /* unlimited */
  assert_true(sc.link[2].latency_s == 0);
  assert_true(sc.transient_p == 0 && sc.transient_slowdown == 1 && sc.transient_seed == 0);
  assert_true(sc.ns_per_cost == 0); /* measured model unless the file fixes a cost */
  assert_true(scenario_slowdown(&sc, 0, 3) == 0.5);
  assert_true(scenario_slowdown(&sc, 1, 3) == 2.0);
  assert_true(scenario_slowdown(&sc, 9, 3) == 1.0);
  assert_int_equal(scenario_fit_workers(&sc, 3, err, sizeof(err)), 0);
  assert_int_equal(scenario_fit_workers(&sc, 1, err, sizeof(err)), 0);
  scenario_fini(&sc);
  scenario_fini(&sc); /* idempotent */

  assert_int_equal(scenario_parse("s.json", "{\"workers\": [{\"speed\": 1}, {\"speed\": 1}]}", &sc, err, sizeof(err)),
                   0);
  assert_int_equal(scenario_fit_workers(&sc, 4, err, sizeof(err)), DSANA_EINVAL);
  assert_string_equal(err, "s.json: workers: 2 entries for 4 workers (or give a \"default_worker\" for the rest)");
  scenario_fini(&sc);

  assert_int_equal(
      scenario_parse("c.json", "{\"workers\": [{\"speed\": 1}], \"ns_per_cost\": 2.5}", &sc, err, sizeof(err)), 0);
  assert_true(sc.ns_per_cost == 2.5);
  scenario_fini(&sc);

  assert_int_equal(scenario_default(3, &sc), 0);
  assert_int_equal(sc.n_workers, 3);
  for (uint32_t w = 0; w < 3; w++) {
    assert_true(sc.speed[w] == 1.0 && sc.link[w].bandwidth_bytes_per_s == 0);
    assert_true(scenario_slowdown(&sc, w, 0) == 1.0);
  }
  scenario_fini(&sc);
  assert_int_equal(scenario_default(0, &sc), DSANA_EINVAL);

  /* A tiny error buffer truncates but stays a terminated string. */
  char small[8];
  assert_int_equal(scenario_parse("s.json", "{}", &sc, small, sizeof(small)), DSANA_EFORMAT);
  assert_int_equal(strlen(small), 7);
}

static void test_file_errors(void **unused) {
  char err[256] = "";
  struct scenario sc;
  assert_int_equal(scenario_load("/nonexistent/s.json", &sc, err, sizeof(err)), DSANA_EIO);
  assert_string_equal(err, "/nonexistent/s.json: No such file or directory");
  assert_int_equal(scenario_load("/", &sc, err, sizeof(err)), DSANA_EIO);
  assert_string_equal(err, "/: not a regular file");

  char path[] = "/tmp/dsana-scenario-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "w");
  assert_non_null(f);
  fputs("{\"workers\": [{\"speed\": 1}]}", f);
  for (unsigned i = 0; i < SCENARIO_MAX_BYTES; i++)
    fputc(' ', f); /* valid JSON, but over the limit */
  fclose(f);
  assert_int_equal(scenario_load(path, &sc, err, sizeof(err)), DSANA_EFORMAT);
  assert_non_null(strstr(err, ": file too large ("));
  assert_int_equal(strncmp(err, path, strlen(path)), 0);
  f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"workers\": [{\"speed\": 1}]}\n", f);
  fclose(f);
  assert_int_equal(scenario_load(path, &sc, err, sizeof(err)), 0);
  scenario_fini(&sc);
  f = fopen(path, "wb");
  assert_non_null(f);
  fwrite("{\"workers\"\0: []}", 1, 16, f);
  fclose(f);
  assert_int_equal(scenario_load(path, &sc, err, sizeof(err)), DSANA_EFORMAT);
  assert_non_null(strstr(err, ": invalid JSON near byte 10 (NUL byte)"));
  unlink(path);
}

static void test_transient_frequency(void **unused) {
  const char *json = "{\"workers\": [{\"speed\": 1}, {\"speed\": 0.5}, {\"speed\": 1},"
                     " {\"speed\": 1}], \"transient\": {\"probability\": 0.1, \"slowdown\": 4,"
                     " \"seed\": 7}}";
  char err[256] = "";
  struct scenario a, b, c;
  assert_int_equal(scenario_parse("t.json", json, &a, err, sizeof(err)), 0);
  assert_int_equal(scenario_parse("t.json", json, &b, err, sizeof(err)), 0);
  assert_int_equal(scenario_parse("t.json", json, &c, err, sizeof(err)), 0);
  c.transient_seed = 8;
  uint32_t strikes = 0, differ = 0, n = 0;
  uint32_t per_worker[4] = {0};
  for (uint32_t w = 0; w < 4; w++) {
    for (uint32_t it = 0; it < 25000; it++, n++) {
      double f = scenario_slowdown(&a, w, it);
      assert_true(f == scenario_slowdown(&b, w, it)); /* deterministic */
      assert_true(f == scenario_slowdown(&a, w, it));
      double base = 1.0 / a.speed[w];
      assert_true(f == base || f == 4.0 * base);
      if (f != base) {
        strikes++;
        per_worker[w]++;
      }
      differ += f != scenario_slowdown(&c, w, it);
    }
  }
  double freq = (double)strikes / n;
  print_message("transient frequency %.4f over %u (worker, iteration) pairs\n", freq, n);
  assert_true(fabs(freq - 0.1) < 0.005);
  for (uint32_t w = 0; w < 4; w++)
    assert_true(fabs(per_worker[w] / 25000.0 - 0.1) < 0.01);
  assert_true(differ > n / 10); /* another seed, another pattern */
  a.transient_p = 0;
  for (uint32_t it = 0; it < 1000; it++)
    assert_true(scenario_slowdown(&a, 0, it) == 1.0);
  a.transient_p = 1;
  for (uint32_t it = 0; it < 1000; it++)
    assert_true(scenario_slowdown(&a, 0, it) == 4.0);
  scenario_fini(&a);
  scenario_fini(&b);
  scenario_fini(&c);
}

/* A default worker and groups describe any number of workers: the list
 * first, then each group's share of the rest spread evenly, the same for
 * the same count; wrong groups are refused naming the key. */
static void test_default_worker_and_groups(void **unused) {
  (void)unused;
  struct scenario sc;
  char err[256] = "";
  const char *json = "{\"workers\": [{\"speed\": 3}], \"default_worker\": {\"speed\": 1},"
                     " \"groups\": [{\"fraction\": 0.1, \"speed\": 0.25}, {\"fraction\": 0.2, \"speed\": 0.5,"
                     " \"link\": {\"latency_ms\": 3}}], \"link\": {\"latency_ms\": 1}}";
  assert_int_equal(scenario_parse("d.json", json, &sc, err, sizeof(err)), 0);
  assert_int_equal(sc.n_workers, 1);
  assert_int_equal(scenario_fit_workers(&sc, 1001, err, sizeof(err)), 0);
  assert_int_equal(sc.n_workers, 1001);
  assert_true(sc.speed[0] == 3);
  uint32_t n[4] = {0}, first_quarter = 0;
  for (uint32_t w = 1; w < 1001; w++) {
    int k = sc.speed[w] == 0.25 ? 0 : sc.speed[w] == 0.5 ? 1 : sc.speed[w] == 1 ? 2 : 3;
    n[k]++;
    first_quarter += k == 0 && w <= 250;
    assert_true(sc.link[w].latency_s == (k == 1 ? 0.003 : 0.001));
  }
  assert_int_equal(n[0], 100);
  assert_int_equal(n[1], 200);
  assert_int_equal(n[2], 700);
  assert_int_equal(n[3], 0);
  assert_int_equal(first_quarter, 25); /* spread evenly, not bunched */
  double again[1001];
  memcpy(again, sc.speed, sizeof again);
  scenario_fini(&sc);
  assert_int_equal(scenario_parse("d.json", json, &sc, err, sizeof(err)), 0);
  assert_int_equal(scenario_fit_workers(&sc, 1001, err, sizeof(err)), 0);
  assert_memory_equal(again, sc.speed, sizeof again); /* every role makes the same workers */
  scenario_fini(&sc);

  assert_int_equal(scenario_parse("o.json", "{\"default_worker\": {\"speed\": 2}}", &sc, err, sizeof(err)), 0);
  assert_int_equal(scenario_fit_workers(&sc, 5, err, sizeof(err)), 0);
  assert_true(sc.speed[4] == 2 && scenario_slowdown(&sc, 4, 0) == 0.5);
  scenario_fini(&sc);

  const char *bad[][2] = {
      {"{\"groups\": [{\"fraction\": 0.5, \"speed\": 1}], \"workers\": [{\"speed\": 1}]}", "b.json: groups: needs"},
      {"{\"default_worker\": {\"speed\": 1}, \"groups\": [{\"fraction\": 0.7, \"speed\": 1}, {\"fraction\": 0.4, "
       "\"speed\": 2}]}",
       "b.json: groups[1].fraction: the groups' fractions add up to more than 1"},
      {"{\"default_worker\": {\"speed\": 1}, \"groups\": [{\"fraction\": 0, \"speed\": 1}]}",
       "b.json: groups[0].fraction: must be in (0, 1]"},
      {"{\"default_worker\": {\"speed\": 0}}", "b.json: default_worker.speed: must be > 0"},
      {"{\"default_worker\": {\"speed\": 1, \"fraction\": 1}}", "b.json: "},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    assert_int_equal(scenario_parse("b.json", bad[i][0], &sc, err, sizeof(err)), DSANA_EFORMAT);
    if (strncmp(err, bad[i][1], strlen(bad[i][1])) != 0)
      fail_msg("%s: got '%s', want '%s...'", bad[i][0], err, bad[i][1]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shipped_homogeneous),       cmocka_unit_test(test_shipped_heterogeneous),
      cmocka_unit_test(test_default_worker_and_groups), cmocka_unit_test(test_rejects),
      cmocka_unit_test(test_links_and_defaults),        cmocka_unit_test(test_file_errors),
      cmocka_unit_test(test_transient_frequency),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
