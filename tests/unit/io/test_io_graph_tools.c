/*
 * test_io_graph_tools.c - the binary format's versions (files of versions
 * 1 and 2 refused with a word to reconvert; version 3 keeps weights; a
 * corrupt weight section is refused), the weight checks of check_range, vertex
 * reordering (degree order, original ids, weights following their edges)
 * and personalization vectors (good files and every bad case).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <zlib.h>

#include "graph_test_util.h"

static uint32_t version_of(const char *path) {
  unsigned char h[16];
  assert_int_equal(read_bytes(path, h, sizeof h), sizeof h);
  return (uint32_t)h[8] | (uint32_t)h[9] << 8;
}

static void test_binary_old_versions_refused(void **state) {
  /* written by the version-1 writer, before every section had a CRC32 */
  const char *v1 = data_path("v1_snap_basic.dsg");
  assert_int_equal(version_of(v1), 1);
  expect_open_fails(v1, NULL, DSANA_EFORMAT, "v1_snap_basic.dsg: offset 8: version 1, ", "reconvert");
  /* a version-2 file (weighted) the same: its version field is read first */
  unsigned char buf[1 << 16];
  struct dsana_graph g;
  struct dsana_graph_opts wo = {.weighted = true};
  assert_int_equal(dsana_graph_gen_kron(4, 4, 2, &wo, &g, errbuf, sizeof errbuf), 0);
  const char *p = tmp_path("old.dsg");
  assert_int_equal(dsana_graph_write_binary(&g, p, errbuf, sizeof errbuf), 0);
  dsana_graph_fini(&g);
  size_t len = read_bytes(p, buf, sizeof buf);
  buf[8] = 2;
  write_bytes(p, buf, len);
  expect_open_fails(p, &wo, DSANA_EFORMAT, "old.dsg: offset 8: version 2, ", "dsana graph convert");
}

static void test_binary_weights(void **state) {
  struct dsana_graph g, h, o, gd;
  struct dsana_graph_opts wo = {.weighted = true}, wd = {.weighted = true, .dedup = true};
  assert_int_equal(dsana_graph_gen_kron(9, 8, 2, &wo, &g, errbuf, sizeof errbuf), 0);
  const char *p = tmp_path("w.dsg");
  assert_int_equal(dsana_graph_write_binary(&g, p, errbuf, sizeof errbuf), 0);
  assert_int_equal(version_of(p), 3);
  assert_int_equal(dsana_graph_map_binary(p, &h, errbuf, sizeof errbuf), 0);
  assert_same_graph(&g, &h);
  assert_int_equal(dsana_graph_check_range(&h, 0, h.n, errbuf, sizeof errbuf), 0);
  open_ok(p, &wo, &o); /* weighted: the mapping itself */
  assert_non_null(o.priv_map);
  assert_same_graph(&g, &o);
  dsana_graph_fini(&o);
  open_ok(p, NULL, &o); /* unweighted view: weights hidden */
  assert_null(o.in_w);
  assert_null(o.out_w);
  assert_int_equal(o.m, g.m);
  dsana_graph_fini(&o);
  open_ok(p, &wd, &o); /* dedup of the file == dedup at build time (last weight wins) */
  assert_int_equal(dsana_graph_gen_kron(9, 8, 2, &wd, &gd, errbuf, sizeof errbuf), 0);
  assert_true(gd.m < g.m);
  assert_same_graph(&gd, &o);
  dsana_graph_fini(&o);
  dsana_graph_fini(&gd);
  dsana_graph_fini(&h);
  dsana_graph_fini(&g);
}

/* Flip one byte at off of a copy of src, expect map_binary to name what. */
static void expect_corrupt(const unsigned char *src, size_t len, size_t off, const char *what) {
  unsigned char buf[1 << 16];
  memcpy(buf, src, len);
  buf[off] ^= 0x10;
  const char *p = tmp_path("corrupt.dsg");
  write_bytes(p, buf, len);
  struct dsana_graph g;
  errbuf[0] = '\0';
  assert_int_equal(dsana_graph_map_binary(p, &g, errbuf, sizeof errbuf), DSANA_EFORMAT);
  if (!strstr(errbuf, what))
    print_error("err '%s', want '%s'\n", errbuf, what);
  assert_non_null(strstr(errbuf, "corrupt.dsg: offset "));
  assert_non_null(strstr(errbuf, what));
  assert_zeroed(&g);
  expect_open_fails(p, &(struct dsana_graph_opts){.weighted = true}, DSANA_EFORMAT, "corrupt.dsg", what);
}

static void test_binary_weights_corrupt(void **state) {
  /* 3 vertices, 4 weighted edges: in_w at 192 + 64 + 64 + 64 = 384 (no orig_id), out_w after it */
  const uint32_t s[] = {0, 1, 2, 2}, d[] = {1, 2, 0, 1};
  const double w[] = {0.5, 1.5, 2, 3};
  struct dsana_graph g;
  assert_int_equal(dsana_graph_from_weighted_edges(3, 4, s, d, w, NULL, &g, errbuf, sizeof errbuf), 0);
  const char *p = tmp_path("small_w.dsg");
  assert_int_equal(dsana_graph_write_binary(&g, p, errbuf, sizeof errbuf), 0);
  dsana_graph_fini(&g);
  unsigned char buf[1 << 16];
  size_t len = read_bytes(p, buf, sizeof buf);
  uint64_t in_w_at, out_w_at;
  memcpy(&in_w_at, buf + 40 + 16 * 4, 8);
  memcpy(&out_w_at, buf + 40 + 16 * 5, 8);
  assert_true(in_w_at >= 192 && out_w_at > in_w_at && out_w_at + 24 == len);
  expect_corrupt(buf, len, (size_t)in_w_at + 13, "in_w section checksum mismatch");
  expect_corrupt(buf, len, (size_t)out_w_at + 7, "out_w section checksum mismatch");
  expect_corrupt(buf, len, 16, "offset 184: header checksum mismatch");
  expect_corrupt(buf, len, 164, "offset 184: header checksum mismatch"); /* the out_w CRC itself */
  write_bytes(tmp_path("corrupt.dsg"), buf, 150);
  expect_open_fails(tmp_path("corrupt.dsg"), NULL, DSANA_EFORMAT, "corrupt.dsg: offset 150: ", "truncated");
}

static void test_check_range_weights(void **state) {
  uint64_t off[] = {0, 1, 2};
  uint32_t src[] = {1, 0}, deg[] = {1, 1};
  double in_w[] = {1, -1}, out_w[] = {-1, 1};
  struct dsana_graph g = {.n = 2, .m = 2, .in_off = off, .in_src = src, .out_deg = deg, .in_w = in_w, .out_w = out_w};
  assert_int_equal(dsana_graph_check_range(&g, 1, 2, errbuf, sizeof errbuf), DSANA_EFORMAT);
  assert_non_null(strstr(errbuf, "in_w[1]"));
  in_w[1] = 1;
  assert_int_equal(dsana_graph_check_range(&g, 0, 1, errbuf, sizeof errbuf), DSANA_EFORMAT);
  assert_non_null(strstr(errbuf, "out_w[0]"));
  out_w[0] = 0; /* zero with an out-edge */
  assert_int_equal(dsana_graph_check_range(&g, 0, 1, errbuf, sizeof errbuf), DSANA_EFORMAT);
  out_w[0] = 1;
  assert_int_equal(dsana_graph_check_range(&g, 0, 2, errbuf, sizeof errbuf), 0);
}

struct in_edge {
  uint64_t id, pos; /* original source id, position in the destination's list */
  double w;
};

static int cmp_in_edge(const void *a, const void *b) {
  const struct in_edge *x = a, *y = b;
  if (x->id != y->id)
    return (x->id > y->id) - (x->id < y->id);
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Destination v's in-edges as (original source, weight), stably sorted by source. */
static size_t in_edges(const struct dsana_graph *g, uint64_t v, struct in_edge *out) {
  size_t k = 0;
  for (uint64_t j = g->in_off[v]; j < g->in_off[v + 1]; j++, k++)
    out[k] = (struct in_edge){dsana_graph_orig_id(g, g->in_src[j]), k, g->in_w ? g->in_w[j] : 0.0};
  qsort(out, k, sizeof *out, cmp_in_edge);
  return k;
}

/* a and b have the same edges in original ids, weights following their
 * edges and a pair's multi-edges in the same order; same out-weights. */
static void assert_same_edges(const struct dsana_graph *a, const struct dsana_graph *b) {
  static struct in_edge ea[4096], eb[4096];
  assert_int_equal(a->m, b->m);
  for (uint64_t v = 0; v < a->n; v++) {
    uint64_t bv = 0;
    while (dsana_graph_orig_id(b, bv) != dsana_graph_orig_id(a, v))
      bv++;
    size_t na = in_edges(a, v, ea), nb = in_edges(b, bv, eb);
    assert_int_equal(na, nb);
    for (size_t k = 0; k < na; k++)
      assert_true(ea[k].id == eb[k].id && ea[k].w == eb[k].w);
    assert_int_equal(a->out_deg[v], b->out_deg[bv]);
    if (a->in_w)
      assert_true(a->out_w[v] == b->out_w[bv]); /* exact: the test weights are dyadic */
  }
}

static void test_reorder_degree(void **state) {
  /* ids 10 20 30 40 50 -> 0..4; in-degrees 10:1 20:3 30:2 40:0 50:2 */
  const char text[] = "10 20 0.5\n30 20 0.25\n40 20 2\n20 30 1\n10 30 4\n20 50 0.5\n20 50 0.125\n50 10 8\n";
  struct dsana_graph_opts wo = {.weighted = true};
  struct dsana_graph g, r, back;
  open_ok(text_file("r.txt", text), &wo, &g);
  assert_int_equal(dsana_graph_reorder(&g, DSANA_GRAPH_ORDER_DEGREE, &r, errbuf, sizeof errbuf), 0);
  const uint64_t want_orig[] = {20, 30, 50, 10, 40}; /* 30 before 50: tie by old index */
  assert_non_null(r.orig_id);
  assert_memory_equal(r.orig_id, want_orig, sizeof want_orig);
  for (uint64_t v = 1; v < r.n; v++)
    assert_true(r.in_off[v + 1] - r.in_off[v] <= r.in_off[v] - r.in_off[v - 1]);
  assert_same_edges(&g, &r);
  /* new index 2 (id 50) reads 20 (new 0) twice, weights 0.5 then 0.125 in input order */
  assert_int_equal(r.in_off[3] - r.in_off[2], 2);
  assert_true(r.in_w[r.in_off[2]] == 0.5 && r.in_w[r.in_off[2] + 1] == 0.125);
  assert_int_equal(dsana_graph_write_binary(&r, tmp_path("r.dsg"), errbuf, sizeof errbuf), 0);
  open_ok(tmp_path("r.dsg"), &wo, &back);
  assert_same_graph(&r, &back);
  uint32_t *order;
  assert_int_equal(dsana_graph_orig_order(&back, &order, errbuf, sizeof errbuf), 0);
  assert_non_null(order);
  for (uint64_t i = 1; i < back.n; i++)
    assert_true(back.orig_id[order[i - 1]] < back.orig_id[order[i]]);
  free(order);
  assert_int_equal(dsana_graph_orig_order(&g, &order, errbuf, sizeof errbuf), 0);
  assert_null(order); /* a reader's graph already is in id order */
  dsana_graph_fini(&back);
  dsana_graph_fini(&r);
  /* none: a copy; a graph without orig_id gets one */
  assert_int_equal(dsana_graph_reorder(&g, DSANA_GRAPH_ORDER_NONE, &r, errbuf, sizeof errbuf), 0);
  assert_same_graph(&g, &r);
  dsana_graph_fini(&r);
  dsana_graph_fini(&g);
  assert_int_equal(dsana_graph_gen_kron(8, 4, 1, NULL, &g, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_graph_reorder(&g, DSANA_GRAPH_ORDER_DEGREE, &r, errbuf, sizeof errbuf), 0);
  assert_same_edges(&g, &r);
  dsana_graph_fini(&r);
  dsana_graph_fini(&g);
}

static void pers_fails(const struct dsana_graph *g, const char *text, const char *s1, const char *s2) {
  double *vec = (double *)1;
  const char *p = text_file("p.txt", text);
  errbuf[0] = '\0';
  int rc = dsana_graph_load_personalization(p, g, &vec, errbuf, sizeof errbuf);
  if (rc == 0 || !strstr(errbuf, s1) || (s2 && !strstr(errbuf, s2)))
    print_error("rc %d err '%s', want '%s' '%s'\n", rc, errbuf, s1, s2 ? s2 : "");
  assert_true(rc < 0);
  assert_null(vec);
  assert_non_null(strstr(errbuf, s1));
  if (s2)
    assert_non_null(strstr(errbuf, s2));
}

static void test_personalization(void **state) {
  struct dsana_graph g, r;
  double *vec;
  open_ok(data_path("snap_basic_crlf.txt"), NULL, &g); /* ids 10 20 30 10^12 */
  const char *p = text_file("p.txt", "# teleport here\n20\t1\n\n  10 3 \r\n1000000000000 0\n");
  assert_int_equal(dsana_graph_load_personalization(p, &g, &vec, errbuf, sizeof errbuf), 0);
  const double want[] = {0.75, 0.25, 0, 0};
  assert_memory_equal(vec, want, sizeof want);
  free(vec);
  /* the same file over a reordered graph: mapped through orig_id */
  assert_int_equal(dsana_graph_reorder(&g, DSANA_GRAPH_ORDER_DEGREE, &r, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_graph_load_personalization(p, &r, &vec, errbuf, sizeof errbuf), 0);
  for (uint64_t v = 0; v < r.n; v++)
    assert_true(vec[v] == (r.orig_id[v] == 10 ? 0.75 : r.orig_id[v] == 20 ? 0.25 : 0.0));
  free(vec);
  dsana_graph_fini(&r);
  pers_fails(&g, "10 1\n25 1\n", "p.txt:2: vertex 25 is not in the graph", NULL);
  pers_fails(&g, "10 1\n20 -1\n", "p.txt:2: personalization weight '-1' ", "non-negative finite");
  pers_fails(&g, "10 abc\n", "p.txt:1: personalization weight 'abc'", NULL);
  pers_fails(&g, "10 inf\n", "p.txt:1: personalization weight 'inf'", NULL);
  pers_fails(&g, "10 1\n#\n10 2\n", "p.txt:3: vertex 10 listed twice", NULL);
  pers_fails(&g, "10\n", "p.txt:1: expected 2 fields (vertex, weight), found 1", NULL);
  pers_fails(&g, "10 1 2\n", "p.txt:1: expected 2 fields (vertex, weight), found more", "'2'");
  pers_fails(&g, "x 1\n", "p.txt:1: non-numeric vertex id 'x'", NULL);
  pers_fails(&g, "-10 1\n", "p.txt:1: negative vertex id '-10'", NULL);
  pers_fails(&g, "10 0\n20 0\n", "p.txt: personalization weights are all zero", NULL);
  pers_fails(&g, "# nothing\n", "p.txt: personalization weights are all zero (or none listed)", NULL);
  pers_fails(&g, "10 1e308\n20 1e308\n", "p.txt: personalization weights sum to infinity", NULL);
  assert_int_equal(dsana_graph_load_personalization(tmp_path("nope.txt"), &g, &vec, errbuf, sizeof errbuf), DSANA_EIO);
  assert_non_null(strstr(errbuf, "nope.txt: No such file"));
  dsana_graph_fini(&g);
  /* no orig_id: ids are indices */
  assert_int_equal(dsana_graph_gen_uniform(5, 10, 1, NULL, &g, errbuf, sizeof errbuf), 0);
  p = text_file("p.txt", "4 2\n0 2\n");
  assert_int_equal(dsana_graph_load_personalization(p, &g, &vec, errbuf, sizeof errbuf), 0);
  assert_true(vec[0] == 0.5 && vec[4] == 0.5 && vec[2] == 0.0);
  free(vec);
  pers_fails(&g, "5 1\n", "p.txt:1: vertex 5 is not in the graph", NULL);
  dsana_graph_fini(&g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_binary_old_versions_refused),
      cmocka_unit_test(test_binary_weights),
      cmocka_unit_test(test_binary_weights_corrupt),
      cmocka_unit_test(test_check_range_weights),
      cmocka_unit_test(test_reorder_degree),
      cmocka_unit_test(test_personalization),
  };
  return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
