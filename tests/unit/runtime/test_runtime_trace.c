/* test_runtime_trace.c - trace parts written by one process (two roles at once),
 * merged and read back with cJSON: valid Chrome trace JSON, sane spans,
 * named tracks, the bounded buffer and its drop report, disabled tracing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "dsana/dsana.h"
#include "runtime/record/trace.h"

struct tdir {
  char dir[64];
  char path[4][128];
};

static int setup_dir(void **state) {
  struct tdir *t = calloc(1, sizeof *t);
  if (!t)
    return -1;
  snprintf(t->dir, sizeof t->dir, "/tmp/dsana_trace_XXXXXX");
  if (!mkdtemp(t->dir)) {
    free(t);
    return -1;
  }
  static const char *const names[4] = {"part0", "part1", "missing", "trace.json"};
  for (int i = 0; i < 4; i++)
    snprintf(t->path[i], sizeof t->path[i], "%s/%s", t->dir, names[i]);
  *state = t;
  return 0;
}

static int teardown_dir(void **state) {
  struct tdir *t = *state;
  for (int i = 0; i < 4; i++)
    unlink(t->path[i]);
  rmdir(t->dir);
  free(t);
  return 0;
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static size_t dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  size_t n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      n++;
  if (d)
    closedir(d);
  return n;
}

static cJSON *read_json(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)len + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
  text[len] = '\0';
  fclose(f);
  cJSON *root = cJSON_Parse(text);
  free(text);
  assert_non_null(root);
  return root;
}

static const char *str_field(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_field(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  assert_true(cJSON_IsNumber(v));
  return v->valuedouble;
}

/* The metadata event `meta` ("process_name"/"thread_name") for pid/tid, or NULL. */
static const char *meta_name(const cJSON *events, const char *meta, int pid, int tid) {
  const cJSON *ev;
  cJSON_ArrayForEach(ev, events) {
    const char *ph = str_field(ev, "ph"), *name = str_field(ev, "name");
    if (!ph || strcmp(ph, "M") || !name || strcmp(name, meta) || num_field(ev, "pid") != pid)
      continue;
    if (tid >= 0 && num_field(ev, "tid") != tid)
      continue;
    return str_field(cJSON_GetObjectItemCaseSensitive(ev, "args"), "name");
  }
  return NULL;
}

/* Checks every "X" event and returns how many there are. */
static size_t check_spans(const cJSON *events) {
  size_t n = 0;
  const cJSON *ev;
  cJSON_ArrayForEach(ev, events) {
    const char *ph = str_field(ev, "ph");
    assert_non_null(ph);
    if (strcmp(ph, "X"))
      continue;
    n++;
    assert_non_null(str_field(ev, "name"));
    assert_non_null(str_field(ev, "cat"));
    assert_true(num_field(ev, "ts") >= 0);
    assert_true(num_field(ev, "dur") >= 0);
    num_field(ev, "pid");
    num_field(ev, "tid");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    assert_true(cJSON_IsObject(args));
    num_field(args, "iter");
  }
  return n;
}

static const cJSON *trace_events(const cJSON *root) {
  assert_true(cJSON_IsObject(root));
  assert_string_equal(str_field(root, "displayTimeUnit"), "ms");
  const cJSON *events = cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
  assert_true(cJSON_IsArray(events));
  return events;
}

static void test_two_parts_merge(void **state) {
  struct tdir *t = *state;
  uint64_t t0 = 5000000000ull;

  /* Two roles of one process trace at once, each to its own part. */
  struct trace *sched = NULL, *worker = NULL;
  assert_int_equal(trace_open(t->path[0], "scheduler", 1, 0, 64, &sched), 0);
  assert_non_null(sched);
  /* A track name with characters JSON must escape. */
  const char *track = "worker \"2\" \\ x";
  assert_int_equal(trace_open(t->path[1], track, 3, 2, 64, &worker), 0);
  trace_span(sched, "assign", "sched", t0, t0 + 2000, 1, NULL, 0);
  trace_span(worker, "compute", "task", t0 + 100, t0 + 1100, 1, "task", 7);
  trace_span(sched, "converge", "sched", t0 + 3000, t0 + 3500, 1, "residual", 1e-3);
  trace_span(worker, "push", "net", t0 + 1100, t0 + 1600, 1, "bytes", 4096);
  trace_span(worker, "backwards", "net", t0 + 2000, t0 + 1000, 2, NULL, 0); /* clamped to dur 0 */
  assert_int_equal(trace_close(sched), 0);
  assert_int_equal(trace_close(worker), 0);

  const char *const parts[] = {t->path[0], t->path[2], t->path[1], NULL};
  char err[256];
  assert_int_equal(trace_merge(t->path[3], parts, err, sizeof err), 0);
  assert_false(file_exists(t->path[0]));
  assert_false(file_exists(t->path[1]));
  assert_int_equal(dir_entries(t->dir), 1); /* only the merged trace: no temporaries */

  cJSON *root = read_json(t->path[3]);
  const cJSON *events = trace_events(root);
  assert_int_equal(check_spans(events), 5);
  assert_string_equal(meta_name(events, "process_name", 1, -1), "scheduler");
  assert_string_equal(meta_name(events, "process_name", 3, -1), "workers");
  assert_string_equal(meta_name(events, "thread_name", 1, 0), "scheduler");
  assert_string_equal(meta_name(events, "thread_name", 3, 2), track);

  /* Microsecond timestamps from the earliest event (the trace starts at 0,
   * not at the clock's ~4,000 s), args carried through. */
  int seen_push = 0, seen_back = 0;
  const cJSON *ev;
  cJSON_ArrayForEach(ev, events) {
    const char *name = str_field(ev, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    if (!strcmp(name, "push")) {
      seen_push = 1;
      assert_true(num_field(ev, "ts") == 1.1);
      assert_true(num_field(ev, "dur") == 0.5);
      assert_true(num_field(args, "bytes") == 4096);
      assert_true(num_field(ev, "tid") == 2);
    } else if (!strcmp(name, "assign")) {
      assert_true(num_field(ev, "ts") == 0); /* the earliest event */
    } else if (!strcmp(name, "backwards")) {
      seen_back = 1;
      assert_true(num_field(ev, "dur") == 0);
      assert_true(num_field(args, "iter") == 2);
    }
  }
  assert_true(seen_push && seen_back);
  cJSON_Delete(root);
}

static void test_bounded_buffer_reports_drops(void **state) {
  struct tdir *t = *state;
  struct trace *tr;
  assert_int_equal(trace_open(t->path[0], "worker 0", 3, 0, 10, &tr), 0);
  for (uint32_t i = 0; i < 15; i++)
    trace_span(tr, "compute", "task", 1000ull * i, 1000ull * i + 500, i, NULL, 0);
  assert_int_equal(trace_close(tr), 0);

  const char *const parts[] = {t->path[0], NULL};
  char err[256];
  assert_int_equal(trace_merge(t->path[3], parts, err, sizeof err), 0);
  cJSON *root = read_json(t->path[3]);
  const cJSON *events = trace_events(root);
  assert_int_equal(check_spans(events), 10);

  int reported = 0;
  const cJSON *ev;
  cJSON_ArrayForEach(ev, events) {
    const char *name = str_field(ev, "name");
    if (strcmp(name, "trace_dropped"))
      continue;
    reported = 1;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    assert_true(num_field(args, "dropped") == 5);
    assert_true(num_field(args, "max_events") == 10);
    assert_true(num_field(ev, "ts") == 10.0); /* the first span that did not fit */
  }
  assert_true(reported);
  /* Oldest kept: iterations 0..9 survive. */
  cJSON_ArrayForEach(ev, events) {
    if (!strcmp(str_field(ev, "ph"), "X"))
      assert_true(num_field(cJSON_GetObjectItemCaseSensitive(ev, "args"), "iter") < 10);
  }
  cJSON_Delete(root);
}

static void test_disabled_writes_nothing(void **state) {
  struct tdir *t = *state;
  trace_span(NULL, "compute", "task", 0, 10, 0, NULL, 0); /* no trace: off */
  assert_int_equal(trace_close(NULL), 0);
  assert_int_equal(dir_entries(t->dir), 0);

  /* A trace with no spans writes a part with none. */
  struct trace *tr;
  assert_int_equal(trace_open(t->path[0], "worker 1", 3, 1, 4, &tr), 0);
  assert_int_equal(trace_close(tr), 0);
  const char *const parts[] = {t->path[0], NULL};
  assert_int_equal(trace_merge(t->path[3], parts, NULL, 0), 0);
  cJSON *root = read_json(t->path[3]);
  assert_int_equal(check_spans(trace_events(root)), 0);
  cJSON_Delete(root);
}

static void test_empty_and_missing_parts(void **state) {
  struct tdir *t = *state;
  /* A role that died after trace_open leaves an empty part; one that never
   * started leaves none. Both merge cleanly. */
  struct trace *tr;
  assert_int_equal(trace_open(t->path[0], "server 0", 2, 0, 8, &tr), 0);
  const char *const parts[] = {t->path[2], t->path[0], NULL};
  char err[256];
  assert_int_equal(trace_merge(t->path[3], parts, err, sizeof err), 0);
  assert_int_equal(trace_close(tr), 0); /* recreates part0; teardown removes it */
  cJSON *root = read_json(t->path[3]);
  assert_int_equal(cJSON_GetArraySize(trace_events(root)), 0);
  cJSON_Delete(root);
}

static void test_malformed_part_keeps_inputs(void **state) {
  struct tdir *t = *state;
  FILE *f = fopen(t->path[0], "w");
  assert_non_null(f);
  fputs("{\"ph\":\"X\",\"name\":\"ok\"}\n{\"ph\":\"X\",\"name\n", f);
  fclose(f);
  const char *const parts[] = {t->path[0], NULL};
  char err[256];
  assert_int_equal(trace_merge(t->path[3], parts, err, sizeof err), DSANA_EFORMAT);
  assert_non_null(strstr(err, "part0:2"));
  assert_true(file_exists(t->path[0]));
  assert_false(file_exists(t->path[3]));
  assert_int_equal(dir_entries(t->dir), 1);
}

static void test_open_errors(void **state) {
  struct tdir *t = *state;
  char bad[160];
  snprintf(bad, sizeof bad, "%s/no/such/dir/part", t->dir);
  struct trace *tr = (struct trace *)1;
  assert_int_equal(trace_open(bad, "w", 3, 0, 8, &tr), DSANA_EIO);
  assert_null(tr);
  assert_int_equal(trace_open(t->path[0], "w", 3, 0, 0, &tr), DSANA_EINVAL);
  assert_int_equal(trace_open(NULL, "w", 3, 0, 8, &tr), DSANA_EINVAL);
  assert_null(tr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_two_parts_merge, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_bounded_buffer_reports_drops, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_disabled_writes_nothing, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_empty_and_missing_parts, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_malformed_part_keeps_inputs, setup_dir, teardown_dir),
      cmocka_unit_test_setup_teardown(test_open_errors, setup_dir, teardown_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
