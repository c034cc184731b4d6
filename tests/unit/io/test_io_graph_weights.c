/*
 * test_io_graph_weights.c - the text readers' newer options (include/dsana/
 * graph.h): edge weights and their out-weight sums, bad weights named by
 * file and line, networkx's last-weight-wins dedup, the warning for ignored
 * columns, undirected input, dsana's dense-id edge lists (gen -> text and
 * gen -> binary are the same graph), Matrix Market's index 0 message, and
 * its strictness: misspelt banners, values checked even when unused, no
 * field after the value.
 */
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "graph_test_util.h"

static void assert_arrays(const struct dsana_graph *g, uint64_t n, uint64_t m, const uint64_t *off, const uint32_t *src,
                          const double *w, const double *out_w) {
  assert_int_equal(g->n, n);
  assert_int_equal(g->m, m);
  assert_memory_equal(g->in_off, off, (n + 1) * sizeof *off);
  assert_memory_equal(g->in_src, src, m * sizeof *src);
  assert_non_null(g->in_w);
  assert_non_null(g->out_w);
  assert_memory_equal(g->in_w, w, m * sizeof *w);
  assert_memory_equal(g->out_w, out_w, n * sizeof *out_w);
}

/* ids 1, 2, 3 -> 0, 1, 2; 1->2 twice (0.5 then 0.25) */
static const char WEIGHTED[] = "# weighted\n1 2 0.5\n1 3 2\n2\t3  1.5e0\r\n3 1 4\n1 2 0.25\n";

static void test_snap_weights(void **state) {
  const uint64_t off[] = {0, 1, 3, 5};
  const uint32_t src[] = {2, 0, 0, 0, 1};
  const double w[] = {4, 0.5, 0.25, 2, 1.5}, out_w[] = {2.75, 1.5, 4};
  const uint64_t doff[] = {0, 1, 2, 4};
  const uint32_t dsrc[] = {2, 0, 0, 1};
  const double dw[] = {4, 0.25, 2, 1.5}, dout_w[] = {2.25, 1.5, 4};
  struct dsana_graph_opts wo = {.weighted = true}, wd = {.weighted = true, .dedup = true};
  struct dsana_graph g;
  const char *p = text_file("w.txt", WEIGHTED);
  open_ok(p, &wo, &g);
  assert_arrays(&g, 3, 5, off, src, w, out_w);
  dsana_graph_fini(&g);
  open_ok(p, &wd, &g); /* networkx DiGraph: the last weight read wins */
  assert_arrays(&g, 3, 4, doff, dsrc, dw, dout_w);
  dsana_graph_fini(&g);
  open_ok(p, NULL, &g); /* unweighted: the column is ignored */
  assert_null(g.in_w);
  assert_null(g.out_w);
  assert_int_equal(g.m, 5);
  dsana_graph_fini(&g);
}

static void test_snap_bad_weights(void **state) {
  static const struct {
    const char *line, *tok;
  } bad[] = {{"2 3 foo", "'foo'"},       {"2 3 0", "'0'"},           {"2 3 -1", "'-1'"},
             {"2 3 inf", "'inf'"},       {"2 3 nan", "'nan'"},       {"2 3 1e400", "'1e400'"},
             {"2 3 1e-400", "'1e-400'"}, {"2 3 0x10", "'0x10'"},     {"2 3 1.5x", "'1.5x'"},
             {"2 3 -0", "'-0'"},         {"2 3 5e-324", "'5e-324'"}, {"2 3 2.2e-308", "'2.2e-308'"}};
  struct dsana_graph_opts wo = {.weighted = true};
  char text[128];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(text, sizeof text, "# c\n1 2 1\n%s\n3 1 1\n", bad[i].line);
    const char *p = text_file("w.txt", text);
    expect_open_fails(p, &wo, DSANA_EFORMAT, "w.txt:3: edge weight ", "is not a positive finite number");
    assert_non_null(strstr(errbuf, bad[i].tok));
    assert_non_null(strstr(errbuf, "(2.2250738585072014e-308 to 1.7976931348623157e+308)")); /* the range */
  }
  struct dsana_graph gmin; /* the smallest normal weight is one */
  open_ok(text_file("w.txt", "1 2 2.2250738585072014e-308\n2 1 1\n"), &wo, &gmin);
  assert_true(gmin.in_w[1] == DBL_MIN);
  dsana_graph_fini(&gmin);
  expect_open_fails(text_file("w.txt", "1 2 1\n2 3\n"), &wo, DSANA_EFORMAT, "w.txt:2: expected 3 fields", "found 2");
  expect_open_fails(text_file("w.txt", "1 2 1\n2\n"), &wo, DSANA_EFORMAT, "w.txt:2: expected 3 fields", "found 1");
  /* each weight finite, their sum not */
  expect_open_fails(text_file("w.txt", "1 2 1e308\n1 3 1e308\n"), &wo, DSANA_ERANGE,
                    "w.txt: ", "vertex 1 sum to infinity");
  struct dsana_graph g;
  const uint32_t s[] = {0, 1}, d[] = {1, 0};
  const double ws[] = {1, -2};
  assert_int_equal(dsana_graph_from_weighted_edges(2, 2, s, d, ws, NULL, &g, errbuf, sizeof errbuf), DSANA_ERANGE);
  assert_non_null(strstr(errbuf, "edge 1: weight -2"));
  assert_zeroed(&g);
}

static void test_extra_columns_warning(void **state) {
  struct warnings w = {0};
  struct dsana_graph_opts o = {.warn = collect_warning, .warn_ctx = &w};
  struct dsana_graph g;
  /* a SNAP temporal graph: timestamps in the third column, one warning per file */
  const char *p = text_file("g.txt", "1 2 1217567877\n2 3 1217573613\n3 1 1217606247 x\n");
  open_ok(p, &o, &g);
  dsana_graph_fini(&g);
  assert_int_equal(w.count, 1);
  char want[600];
  snprintf(want, sizeof want,
           "%s: extra columns after the first two ignored (use --weighted to read the third as edge weights)", p);
  assert_string_equal(w.last, want);
  /* trailing blanks and CR are not columns */
  w.count = 0;
  open_ok(text_file("g.txt", "1 2  \t\r\n2 3\r\n"), &o, &g);
  dsana_graph_fini(&g);
  assert_int_equal(w.count, 0);
  /* weighted: a fourth column */
  o.weighted = true;
  open_ok(text_file("g.txt", "1 2 3 4\n2 3 1\n"), &o, &g);
  dsana_graph_fini(&g);
  assert_int_equal(w.count, 1);
  assert_non_null(strstr(w.last, "g.txt: extra columns after the first three ignored"));
  /* a failed read warns nothing (its one line is the error) */
  w.count = 0;
  o.weighted = false;
  expect_open_fails(text_file("g.txt", "1 2 3\nx 1\n"), &o, DSANA_EFORMAT, "g.txt:2: ", "'x'");
  assert_int_equal(w.count, 0);
}

static void test_undirected(void **state) {
  /* ids 1, 2, 3 -> 0, 1, 2; arcs 1->2 2->1, 2->2 (once), 3->1 1->3 */
  const uint64_t off[] = {0, 2, 4, 5};
  const uint32_t src[] = {1, 2, 0, 1, 0}, deg[] = {2, 2, 1};
  struct dsana_graph_opts uo = {.undirected = true};
  struct dsana_graph g;
  open_ok(text_file("u.txt", "1 2\n2 2\n3 1\n"), &uo, &g);
  assert_int_equal(g.n, 3);
  assert_int_equal(g.m, 5);
  assert_memory_equal(g.in_off, off, sizeof off);
  assert_memory_equal(g.in_src, src, sizeof src);
  assert_memory_equal(g.out_deg, deg, sizeof deg);
  dsana_graph_fini(&g);
  /* weighted: both arcs carry the weight; dedup: networkx Graph, last line wins */
  struct dsana_graph_opts uw = {.undirected = true, .weighted = true, .dedup = true};
  const uint64_t woff[] = {0, 1, 2};
  const uint32_t wsrc[] = {1, 0};
  const double w[] = {5, 5}, out_w[] = {5, 5};
  open_ok(text_file("u.txt", "1 2 3\n2 1 5\n"), &uw, &g);
  assert_arrays(&g, 2, 2, woff, wsrc, w, out_w);
  dsana_graph_fini(&g);
  /* Matrix Market: a general file is mirrored, a symmetric one already is */
  open_ok(text_file("u.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 3\n"), &uo, &g);
  assert_int_equal(g.m, 3);
  dsana_graph_fini(&g);
  struct dsana_graph h;
  open_ok(data_path("mtx_real_symmetric.mtx"), &uo, &g);
  open_ok(data_path("mtx_real_symmetric.mtx"), NULL, &h);
  assert_same_graph(&g, &h);
  dsana_graph_fini(&g);
  dsana_graph_fini(&h);
  /* in-memory edges */
  const uint32_t s[] = {0, 1}, d[] = {1, 1};
  assert_int_equal(dsana_graph_from_edges(2, 2, s, d, &uo, &g, errbuf, sizeof errbuf), 0);
  assert_int_equal(g.m, 3);
  dsana_graph_fini(&g);
}

static void test_mtx_weights(void **state) {
  struct dsana_graph_opts wo = {.weighted = true};
  struct dsana_graph g;
  /* symmetric: (2,1) 2.5 gives 1->0 and 0->1, both 2.5; (1,1) 1 once */
  open_ok(text_file("s.mtx", "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1.0\n2 1 2.5\n"), &wo, &g);
  const uint64_t off[] = {0, 2, 3};
  const uint32_t src[] = {0, 1, 0};
  const double w[] = {1, 2.5, 2.5}, out_w[] = {3.5, 2.5};
  assert_arrays(&g, 2, 3, off, src, w, out_w);
  dsana_graph_fini(&g);
  open_ok(data_path("mtx_integer_dups.mtx"), &(struct dsana_graph_opts){.weighted = true, .dedup = true}, &g);
  assert_int_equal(g.m, 2);
  assert_true(g.in_w[1] == 7.0); /* 1 2 5 then 1 2 7: the last wins */
  dsana_graph_fini(&g);
  expect_open_fails(data_path("mtx_pattern_general.mtx"), &wo, DSANA_EFORMAT, "mtx_pattern_general.mtx:1: ", "pattern");
  expect_open_fails(data_path("mtx_real_symmetric.mtx"), &wo, DSANA_EFORMAT,
                    "mtx_real_symmetric.mtx:4: ", "edge weight '-2.5' is not a positive finite number");
}

static void test_mtx_index_zero(void **state) {
  const char *p = text_file("m.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 3 3\n1 2\n0 1\n2 1\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "m.mtx:5: index 0 (Matrix Market indices start at 1)", NULL);
  p = text_file("m.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n2 0 1.5\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "m.mtx:3: index 0 (Matrix Market indices start at 1)", NULL);
}

/* gen -> text (dsana_graph_write_snap) -> read equals gen -> binary -> map. */
static void gen_text_equals_binary(const struct dsana_graph_opts *opts, const char *txt) {
  struct dsana_graph gen, text, bin;
  assert_int_equal(dsana_graph_gen_kron(10, 8, 4, opts, &gen, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_graph_write_snap(&gen, tmp_path(txt), "# a comment\n", errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_graph_write_binary(&gen, tmp_path("gen.dsg"), errbuf, sizeof errbuf), 0);
  struct dsana_graph_opts ro = {.weighted = opts->weighted};
  open_ok(tmp_path(txt), &ro, &text);
  assert_int_equal(dsana_graph_map_binary(tmp_path("gen.dsg"), &bin, errbuf, sizeof errbuf), 0);
  assert_int_equal(text.n, 1024); /* isolated vertices kept */
  assert_null(text.orig_id);
  assert_same_graph(&gen, &text);
  assert_same_graph(&text, &bin);
  struct dsana_graph_stats st;
  dsana_graph_stats(&text, &st);
  assert_true(st.isolated > 0);
  dsana_graph_fini(&gen);
  dsana_graph_fini(&text);
  dsana_graph_fini(&bin);
}

static void test_gen_text_equals_binary(void **state) {
  gen_text_equals_binary(&(struct dsana_graph_opts){0}, "gen.txt");
  gen_text_equals_binary(&(struct dsana_graph_opts){.weighted = true}, "genw.txt.gz");
  gen_text_equals_binary(&(struct dsana_graph_opts){.weighted = true, .undirected = true, .dedup = true}, "genu.txt");
  /* weights do not depend on the thread count */
  struct dsana_graph a, b;
  struct dsana_graph_opts wo = {.weighted = true};
  assert_int_equal(dsana_graph_gen_uniform(5000, 100000, 3, &wo, &a, errbuf, sizeof errbuf), 0);
  setenv("DSANA_IO_THREADS", "1", 1);
  assert_int_equal(dsana_graph_gen_uniform(5000, 100000, 3, &wo, &b, errbuf, sizeof errbuf), 0);
  unsetenv("DSANA_IO_THREADS");
  assert_same_graph(&a, &b);
  for (uint64_t k = 0; k < a.m; k++)
    assert_true(a.in_w[k] > 0.0 && a.in_w[k] <= 1.0);
  dsana_graph_fini(&a);
  dsana_graph_fini(&b);
}

static void test_dense_id_line(void **state) {
  struct dsana_graph g;
  open_ok(text_file("d.txt", "# dsana graph: dense ids 0..5\r\n# Nodes: 6\n3 1\n"), NULL, &g);
  assert_int_equal(g.n, 6);
  assert_int_equal(g.m, 1);
  assert_null(g.orig_id);
  dsana_graph_fini(&g);
  open_ok(text_file("d.txt", "# dsana graph: dense ids 0..2\n"), NULL, &g); /* no edges, 3 vertices */
  assert_int_equal(g.n, 3);
  assert_int_equal(g.m, 0);
  dsana_graph_fini(&g);
  /* found by fuzz_snap: weighted without edges is still a weighted graph */
  open_ok(tmp_path("d.txt"), &(struct dsana_graph_opts){.weighted = true}, &g);
  assert_non_null(g.in_w);
  assert_non_null(g.out_w);
  assert_true(g.out_w[0] == 0.0 && g.out_w[2] == 0.0);
  dsana_graph_fini(&g);
  /* not the first line: an ordinary comment, ids remapped */
  open_ok(text_file("d.txt", "# x\n# dsana graph: dense ids 0..5\n3 1\n"), NULL, &g);
  assert_int_equal(g.n, 2);
  assert_non_null(g.orig_id);
  dsana_graph_fini(&g);
  expect_open_fails(text_file("d.txt", "# dsana graph: dense ids 0..5\n1 2\n6 1\n"), NULL, DSANA_EFORMAT,
                    "d.txt:3: vertex id 6 outside 0..5", NULL);
  expect_open_fails(text_file("d.txt", "# dsana graph: dense ids 0..x\n1 2\n"), NULL, DSANA_EFORMAT,
                    "d.txt:1: malformed dense-id line", NULL);
  expect_open_fails(text_file("d.txt", "# dsana graph: dense ids 0..4294967295\n1 2\n"), NULL, DSANA_ERANGE,
                    "d.txt:1: ", "vertices");
}

static void test_mtx_strict(void **state) {
  (void)state;
  struct dsana_graph_opts wo = {.weighted = true};
  struct dsana_graph g;
  const char *p = text_file("b.mtx", "%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "b.mtx:1: misspelt Matrix Market banner '%MatrixMarket'", NULL);
  p = text_file("b.mtx", "%% Matrix Market matrix coordinate pattern general\n3 3 1\n1 2\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "b.mtx:1: misspelt Matrix Market banner", NULL);
  p = text_file("b.mtx", "% matrixmarket matrix coordinate pattern general\n3 3 1\n1 2\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "b.mtx:1: misspelt Matrix Market banner", NULL);
  open_ok(text_file("k.txt", "% sym unweighted\n1 2\n2 3\n"), NULL, &g); /* KONECT's comment: SNAP */
  assert_int_equal(g.m, 2);
  dsana_graph_fini(&g);
  p = text_file("v.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 abc\n2 3 1\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "v.mtx:3: value 'abc' is not a finite decimal number", NULL);
  p = text_file("v.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 1e400\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "v.mtx:4: value '1e400' is not a finite decimal number", NULL);
  p = text_file("v.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 2 1.5\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "v.mtx:3: value '1.5' is not an integer", NULL);
  expect_open_fails(p, &wo, DSANA_EFORMAT, "v.mtx:3: value '1.5' is not an integer", NULL);
  p = text_file("v.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1 7\n2 3 1\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "v.mtx:3: extra field '7' after 'row col value'", NULL);
  expect_open_fails(p, &wo, DSANA_EFORMAT, "v.mtx:3: extra field '7' after 'row col value'", NULL);
  p = text_file("v.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3 0.5\n");
  expect_open_fails(p, NULL, DSANA_EFORMAT, "v.mtx:4: extra field '0.5' after 'row col' (the banner says pattern)",
                    NULL);
  /* negative and zero values are matrix entries: fine unweighted, blanks after them too */
  open_ok(text_file("v.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 -3 \r\n2 3 +0\n"), NULL, &g);
  assert_int_equal(g.m, 2);
  dsana_graph_fini(&g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_snap_weights),
      cmocka_unit_test(test_snap_bad_weights),
      cmocka_unit_test(test_extra_columns_warning),
      cmocka_unit_test(test_undirected),
      cmocka_unit_test(test_mtx_weights),
      cmocka_unit_test(test_mtx_index_zero),
      cmocka_unit_test(test_mtx_strict),
      cmocka_unit_test(test_gen_text_equals_binary),
      cmocka_unit_test(test_dense_id_line),
  };
  return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
