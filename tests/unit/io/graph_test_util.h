/*
 * graph_test_util.h - helpers the graph-input unit tests share
 * (test_io_graph.c, test_io_graph_weights.c, test_io_graph_tools.c,
 * test_io_graph_binary_check.c): the files of io_test_files.h, graph
 * comparisons including weights, a warning collector for
 * dsana_graph_opts.warn, and "this fails with that message" checks.
 * Static functions: include once per test program, after cmocka.h.
 */
#ifndef DSANA_TESTS_GRAPH_TEST_UTIL_H
#define DSANA_TESTS_GRAPH_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/dsana.h"
#include "dsana/graph.h"

#include "io_test_files.h"

static inline void assert_zeroed(const struct dsana_graph *g) {
  static const struct dsana_graph zero;
  assert_memory_equal(g, &zero, sizeof zero);
}

/* Same CSC arrays, orig ids and weights (bit for bit). */
static inline void assert_same_graph(const struct dsana_graph *a, const struct dsana_graph *b) {
  assert_int_equal(a->n, b->n);
  assert_int_equal(a->m, b->m);
  assert_memory_equal(a->in_off, b->in_off, (a->n + 1) * sizeof *a->in_off);
  if (a->m)
    assert_memory_equal(a->in_src, b->in_src, a->m * sizeof *a->in_src);
  assert_memory_equal(a->out_deg, b->out_deg, a->n * sizeof *a->out_deg);
  assert_true((a->orig_id == NULL) == (b->orig_id == NULL));
  if (a->orig_id)
    assert_memory_equal(a->orig_id, b->orig_id, a->n * sizeof *a->orig_id);
  assert_true((a->in_w == NULL) == (b->in_w == NULL));
  assert_true((a->out_w == NULL) == (b->out_w == NULL));
  if (a->in_w && a->m)
    assert_memory_equal(a->in_w, b->in_w, a->m * sizeof *a->in_w);
  if (a->out_w)
    assert_memory_equal(a->out_w, b->out_w, a->n * sizeof *a->out_w);
}

/* Warnings collected through dsana_graph_opts.warn. */
struct warnings {
  int count;
  char last[512];
};

static inline void collect_warning(void *ctx, const char *msg) {
  struct warnings *w = ctx;
  w->count++;
  snprintf(w->last, sizeof w->last, "%s", msg);
}

/* Expect dsana_graph_open(path, opts) to fail with rc and an err holding s1
 * (and s2), one line, *g zeroed. */
static inline void expect_open_fails(const char *path, const struct dsana_graph_opts *opts, int rc, const char *s1,
                                     const char *s2) {
  struct dsana_graph g;
  errbuf[0] = '\0';
  int got = dsana_graph_open(path, opts, &g, errbuf, sizeof errbuf);
  if (got != rc || !strstr(errbuf, s1) || (s2 && !strstr(errbuf, s2)))
    print_error("%s: rc %d (want %d), err '%s' (want '%s' and '%s')\n", path, got, rc, errbuf, s1, s2 ? s2 : "");
  assert_int_equal(got, rc);
  assert_non_null(strstr(errbuf, s1));
  if (s2)
    assert_non_null(strstr(errbuf, s2));
  assert_null(strchr(errbuf, '\n'));
  assert_zeroed(&g);
}

/* dsana_graph_open that must succeed. */
static inline void open_ok(const char *path, const struct dsana_graph_opts *opts, struct dsana_graph *g) {
  int rc = dsana_graph_open(path, opts, g, errbuf, sizeof errbuf);
  if (rc)
    print_error("%s: %s\n", path, errbuf);
  assert_int_equal(rc, 0);
}

#endif
