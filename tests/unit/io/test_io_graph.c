/*
 * test_io_graph.c - the graph readers, the binary format, the generators
 * and the CSC builder (src/io/graph/, src/io/graphfile/) against the
 * contract in graph.h: exact arrays on small hand-checked inputs, and one
 * test per bad input for its error code and a message naming the file and
 * line or offset.
 * Data files come from $DSANA_TEST_DATA; scratch files go to a temp dir.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "dsana/dsana.h"
#include "dsana/graph.h"
#include "graph_test_util.h"

static void write_gz(const char *path, const char *text) {
  gzFile z = gzopen(path, "wb");
  assert_non_null(z);
  assert_int_equal(gzwrite(z, text, (unsigned)strlen(text)), (int)strlen(text));
  assert_int_equal(gzclose(z), Z_OK);
}

static void assert_graph(const struct dsana_graph *g, uint64_t n, uint64_t m, const uint64_t *in_off,
                         const uint32_t *in_src, const uint32_t *out_deg) {
  assert_int_equal(g->n, n);
  assert_int_equal(g->m, m);
  assert_memory_equal(g->in_off, in_off, (n + 1) * sizeof *in_off);
  if (m)
    assert_memory_equal(g->in_src, in_src, m * sizeof *in_src);
  assert_memory_equal(g->out_deg, out_deg, n * sizeof *out_deg);
}

/* --- CSC build and the binary round trip ------------------------------- */

static void test_from_edges_csc(void **state) {
  /* 0->1, 2->1, 1->1 (loop), 0->1 (dup), 3->0, 1->2; vertex 4 isolated */
  const uint32_t src[] = {2, 0, 1, 0, 3, 1};
  const uint32_t dst[] = {1, 1, 1, 1, 0, 2};
  const uint64_t off[] = {0, 1, 5, 6, 6, 6};
  const uint32_t ins[] = {3, 0, 0, 1, 2, 1};
  const uint32_t deg[] = {2, 2, 1, 1, 0};
  struct dsana_graph g;
  assert_int_equal(dsana_graph_from_edges(5, 6, src, dst, NULL, &g, errbuf, sizeof errbuf), 0);
  assert_graph(&g, 5, 6, off, ins, deg);
  assert_null(g.orig_id);
  struct dsana_graph_stats st;
  dsana_graph_stats(&g, &st);
  assert_int_equal(st.n, 5);
  assert_int_equal(st.m, 6);
  assert_int_equal(st.dangling, 1); /* only 4 has no out-edge */
  assert_int_equal(st.isolated, 1);
  assert_int_equal(st.self_loops, 1);
  assert_int_equal(st.duplicates, 1);
  assert_int_equal(st.max_in, 4);
  assert_int_equal(st.min_in, 0);
  assert_int_equal(st.max_out, 2);
  assert_int_equal(st.min_out, 0);
  dsana_graph_fini(&g);
  assert_zeroed(&g);

  struct dsana_graph_opts dd = {.dedup = true};
  const uint64_t doff[] = {0, 1, 4, 5, 5, 5};
  const uint32_t dins[] = {3, 0, 1, 2, 1};
  const uint32_t ddeg[] = {1, 2, 1, 1, 0};
  assert_int_equal(dsana_graph_from_edges(5, 6, src, dst, &dd, &g, errbuf, sizeof errbuf), 0);
  assert_graph(&g, 5, 5, doff, dins, ddeg);
  dsana_graph_stats(&g, &st);
  assert_int_equal(st.duplicates, 0);
  assert_int_equal(st.self_loops, 1);
  dsana_graph_fini(&g);

  const uint32_t bad[] = {0, 5};
  assert_int_equal(dsana_graph_from_edges(5, 2, bad, bad, NULL, &g, errbuf, sizeof errbuf), DSANA_ERANGE);
  assert_zeroed(&g);
}

static void test_stats_dangling(void **state) {
  /* 0->1, 1->2: 2 dangling; 3 isolated */
  const uint32_t src[] = {0, 1}, dst[] = {1, 2};
  struct dsana_graph g;
  struct dsana_graph_stats st;
  assert_int_equal(dsana_graph_from_edges(4, 2, src, dst, NULL, &g, errbuf, sizeof errbuf), 0);
  dsana_graph_stats(&g, &st);
  assert_int_equal(st.dangling, 2);
  assert_int_equal(st.isolated, 1);
  assert_int_equal(st.self_loops, 0);
  assert_int_equal(st.duplicates, 0);
  assert_int_equal(st.min_in, 0);
  assert_int_equal(st.max_in, 1);
  dsana_graph_fini(&g);
}

static void test_binary_round_trip(void **state) {
  struct dsana_graph g, h, o;
  assert_int_equal(dsana_graph_gen_kron(10, 8, 3, NULL, &g, errbuf, sizeof errbuf), 0);
  const char *p = tmp_path("kron10.dsg");
  assert_int_equal(dsana_graph_write_binary(&g, p, errbuf, sizeof errbuf), 0);
  assert_true(dsana_graph_is_binary(p));
  assert_int_equal(dsana_graph_map_binary(p, &h, errbuf, sizeof errbuf), 0);
  assert_same_graph(&g, &h);
  assert_int_equal(dsana_graph_check_range(&h, 0, h.n, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_graph_check_range(&h, 3, h.n + 1, errbuf, sizeof errbuf), DSANA_ERANGE);
  assert_int_equal(dsana_graph_open(p, NULL, &o, errbuf, sizeof errbuf), 0);
  assert_same_graph(&g, &o);
  dsana_graph_fini(&o);

  /* dedup through graph_open of a binary file equals dedup at build time */
  struct dsana_graph_opts dd = {.dedup = true};
  struct dsana_graph gd;
  assert_int_equal(dsana_graph_gen_kron(10, 8, 3, &dd, &gd, errbuf, sizeof errbuf), 0);
  assert_true(gd.m < g.m);
  assert_int_equal(dsana_graph_open(p, &dd, &o, errbuf, sizeof errbuf), 0);
  assert_same_graph(&gd, &o);
  dsana_graph_fini(&o);
  dsana_graph_fini(&gd);
  dsana_graph_fini(&h);

  /* with orig_id, from a SNAP file */
  assert_int_equal(dsana_graph_open(data_path("snap_basic_crlf.txt"), NULL, &o, errbuf, sizeof errbuf), 0);
  p = tmp_path("snap.dsg");
  assert_int_equal(dsana_graph_write_binary(&o, p, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_graph_map_binary(p, &h, errbuf, sizeof errbuf), 0);
  assert_same_graph(&o, &h);
  dsana_graph_fini(&h);
  dsana_graph_fini(&o);
  dsana_graph_fini(&g);
  assert_int_equal(access(tmp_path("snap.dsg"), R_OK), 0);
}

static void test_check_range_corrupt(void **state) {
  uint64_t off[] = {0, 2, 1, 3};
  uint32_t src[] = {0, 1, 7};
  uint32_t deg[] = {1, 1, 1};
  struct dsana_graph g = {.n = 3, .m = 3, .in_off = off, .in_src = src, .out_deg = deg};
  assert_int_equal(dsana_graph_check_range(&g, 0, 1, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_graph_check_range(&g, 1, 2, errbuf, sizeof errbuf), DSANA_EFORMAT);
  off[2] = 2;
  assert_int_equal(dsana_graph_check_range(&g, 2, 3, errbuf, sizeof errbuf), DSANA_EFORMAT);
  assert_non_null(strstr(errbuf, "in_src[2]"));
}

/* --- text formats ------------------------------------------------------ */

/* snap_basic_crlf.txt: ids 10, 20, 30, 10^12 -> 0..3;
 * edges 0->1, 0->2, 2->0, 1->1, 3->0, 0->1 */
static void check_snap_basic(const struct dsana_graph *g, bool dedup) {
  const uint64_t orig[] = {10, 20, 30, 1000000000000ull};
  const uint64_t off[] = {0, 2, 5, 6, 6};
  const uint32_t ins[] = {2, 3, 0, 0, 1, 0};
  const uint32_t deg[] = {3, 1, 1, 1};
  const uint64_t doff[] = {0, 2, 4, 5, 5};
  const uint32_t dins[] = {2, 3, 0, 1, 0};
  const uint32_t ddeg[] = {2, 1, 1, 1};
  if (dedup)
    assert_graph(g, 4, 5, doff, dins, ddeg);
  else
    assert_graph(g, 4, 6, off, ins, deg);
  assert_non_null(g->orig_id);
  assert_memory_equal(g->orig_id, orig, sizeof orig);
  assert_int_equal(dsana_graph_orig_id(g, 3), 1000000000000ull);
}

static void test_snap_basic(void **state) {
  struct dsana_graph g;
  struct dsana_graph_stats st;
  struct dsana_graph_opts dd = {.dedup = true};
  assert_int_equal(dsana_graph_open(data_path("snap_basic_crlf.txt"), NULL, &g, errbuf, sizeof errbuf), 0);
  check_snap_basic(&g, false);
  dsana_graph_stats(&g, &st);
  assert_int_equal(st.self_loops, 1);
  assert_int_equal(st.duplicates, 1);
  assert_int_equal(st.dangling, 0);
  assert_int_equal(st.isolated, 0);
  assert_int_equal(st.max_in, 3);
  assert_int_equal(st.min_in, 0);
  assert_int_equal(st.max_out, 3);
  assert_int_equal(st.min_out, 1);
  dsana_graph_fini(&g);
  assert_int_equal(dsana_graph_open(data_path("snap_basic_crlf.txt"), &dd, &g, errbuf, sizeof errbuf), 0);
  check_snap_basic(&g, true);
  dsana_graph_fini(&g);
}

static void test_snap_dense_ids(void **state) {
  /* dense ids take the rank-table path; 4 never appears, so 5 -> 4 */
  const char *p = tmp_path("dense.txt");
  const char text[] = "0 5\n5 0\n3\t1\n1 2 extra fields here\n";
  const uint64_t orig[] = {0, 1, 2, 3, 5};
  const uint64_t off[] = {0, 1, 2, 3, 3, 4};
  const uint32_t ins[] = {4, 3, 1, 0};
  const uint32_t deg[] = {1, 1, 0, 1, 1};
  struct dsana_graph g;
  write_bytes(p, text, strlen(text));
  assert_int_equal(dsana_graph_open(p, NULL, &g, errbuf, sizeof errbuf), 0);
  assert_graph(&g, 5, 4, off, ins, deg);
  assert_memory_equal(g.orig_id, orig, sizeof orig);
  dsana_graph_fini(&g);
}

static void test_snap_gzip(void **state) {
  unsigned char buf[4096];
  size_t len = read_bytes(data_path("snap_basic_crlf.txt"), buf, sizeof buf - 1);
  buf[len] = '\0';
  const char *p = tmp_path("basic.txt.gz");
  write_gz(p, (const char *)buf);
  struct dsana_graph g;
  assert_int_equal(dsana_graph_open(p, NULL, &g, errbuf, sizeof errbuf), 0);
  check_snap_basic(&g, false);
  dsana_graph_fini(&g);
  /* gzip detected by content, whatever the name */
  p = tmp_path("basic_no_suffix");
  write_gz(p, (const char *)buf);
  assert_int_equal(dsana_graph_open(p, NULL, &g, errbuf, sizeof errbuf), 0);
  check_snap_basic(&g, false);
  dsana_graph_fini(&g);
}

static void test_snap_large_blocks(void **state) {
  /* more than one reader block (8 MiB): lines split across blocks */
  const char *p = tmp_path("big.txt");
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  uint64_t m = 1200000;
  fprintf(f, "# big\n");
  for (uint64_t i = 0; i < m; i++)
    fprintf(f, "%llu\t%llu\n", (unsigned long long)(i * 7 % 100003), (unsigned long long)(i * 13 % 100003));
  fclose(f);
  struct dsana_graph g;
  assert_int_equal(dsana_graph_open(p, NULL, &g, errbuf, sizeof errbuf), 0);
  assert_int_equal(g.m, m);
  assert_int_equal(g.n, 100003);
  assert_int_equal(dsana_graph_check_range(&g, 0, g.n, errbuf, sizeof errbuf), 0);
  for (uint64_t v = 0; v < g.n; v++)
    for (uint64_t k = g.in_off[v] + 1; k < g.in_off[v + 1]; k++)
      assert_true(g.in_src[k - 1] <= g.in_src[k]);
  dsana_graph_fini(&g);
}

static void test_snap_first_block(void **state) {
  /* The reader starts with a 64 KiB block and moves to 8 MiB ones: a file
   * just past the first block, and a comment line longer than it. */
  const char *p = tmp_path("first_block.txt");
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  uint64_t m = 0;
  for (long len = 0; len <= 70000; m++)
    len += fprintf(f, "%llu\t%llu\n", (unsigned long long)m, (unsigned long long)(m + 1));
  fclose(f);
  struct dsana_graph g;
  assert_int_equal(dsana_graph_open(p, NULL, &g, errbuf, sizeof errbuf), 0);
  assert_int_equal(g.m, m);
  assert_int_equal(g.n, m + 1);
  dsana_graph_fini(&g);

  f = fopen(p, "w");
  assert_non_null(f);
  fputc('#', f);
  for (int i = 0; i < 100000; i++)
    fputc('x', f);
  fprintf(f, "\n1\t2\n3\t4\n");
  fclose(f);
  assert_int_equal(dsana_graph_open(p, NULL, &g, errbuf, sizeof errbuf), 0);
  assert_int_equal(g.m, 2);
  assert_int_equal(g.n, 4);
  dsana_graph_fini(&g);
}

static void test_mtx_pattern_general(void **state) {
  const uint64_t off[] = {0, 1, 2, 3, 4};
  const uint32_t ins[] = {0, 0, 1, 2};
  const uint32_t deg[] = {2, 1, 1, 0};
  const uint64_t orig[] = {1, 2, 3, 4};
  struct dsana_graph g;
  assert_int_equal(dsana_graph_open(data_path("mtx_pattern_general.mtx"), NULL, &g, errbuf, sizeof errbuf), 0);
  assert_graph(&g, 4, 4, off, ins, deg);
  assert_memory_equal(g.orig_id, orig, sizeof orig);
  dsana_graph_fini(&g);
}

static void test_mtx_real_symmetric(void **state) {
  const uint64_t off[] = {0, 2, 4, 5};
  const uint32_t ins[] = {0, 1, 0, 2, 1};
  const uint32_t deg[] = {2, 2, 1};
  struct dsana_graph g;
  assert_int_equal(dsana_graph_open(data_path("mtx_real_symmetric.mtx"), NULL, &g, errbuf, sizeof errbuf), 0);
  assert_graph(&g, 3, 5, off, ins, deg);
  dsana_graph_fini(&g);
}

static void test_mtx_integer_dedup(void **state) {
  struct dsana_graph g;
  struct dsana_graph_stats st;
  struct dsana_graph_opts dd = {.dedup = true};
  assert_int_equal(dsana_graph_open(data_path("mtx_integer_dups.mtx"), NULL, &g, errbuf, sizeof errbuf), 0);
  assert_int_equal(g.m, 3);
  dsana_graph_stats(&g, &st);
  assert_int_equal(st.duplicates, 1);
  dsana_graph_fini(&g);
  assert_int_equal(dsana_graph_open(data_path("mtx_integer_dups.mtx"), &dd, &g, errbuf, sizeof errbuf), 0);
  assert_int_equal(g.m, 2);
  assert_int_equal(g.out_deg[0], 1);
  dsana_graph_fini(&g);
}

/* --- generators -------------------------------------------------------- */

static void test_gen_kron(void **state) {
  struct dsana_graph a, b, c;
  assert_int_equal(dsana_graph_gen_kron(12, 16, 1, NULL, &a, errbuf, sizeof errbuf), 0);
  assert_int_equal(a.n, 4096);
  assert_int_equal(a.m, 16 * 4096);
  assert_int_equal(dsana_graph_check_range(&a, 0, a.n, errbuf, sizeof errbuf), 0);
  setenv("DSANA_IO_THREADS", "1", 1);
  assert_int_equal(dsana_graph_gen_kron(12, 16, 1, NULL, &b, errbuf, sizeof errbuf), 0);
  setenv("DSANA_IO_THREADS", "3", 1);
  assert_int_equal(dsana_graph_gen_kron(12, 16, 1, NULL, &c, errbuf, sizeof errbuf), 0);
  unsetenv("DSANA_IO_THREADS");
  assert_same_graph(&a, &b);
  assert_same_graph(&a, &c);
  dsana_graph_fini(&c);
  assert_int_equal(dsana_graph_gen_kron(12, 16, 2, NULL, &c, errbuf, sizeof errbuf), 0);
  assert_int_equal(c.m, a.m);
  assert_true(memcmp(a.in_src, c.in_src, a.m * sizeof *a.in_src) != 0);
  /* skewed: the maximum in-degree is far above the mean of 16 */
  struct dsana_graph_stats st;
  dsana_graph_stats(&a, &st);
  assert_true(st.max_in > 200);
  assert_true(st.duplicates > 0);
  dsana_graph_fini(&a);
  dsana_graph_fini(&b);
  dsana_graph_fini(&c);
  assert_int_equal(dsana_graph_gen_kron(0, 16, 1, NULL, &a, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_int_equal(dsana_graph_gen_kron(32, 16, 1, NULL, &a, errbuf, sizeof errbuf), DSANA_EINVAL);
  assert_zeroed(&a);
}

static void test_gen_uniform(void **state) {
  struct dsana_graph a, b, c;
  assert_int_equal(dsana_graph_gen_uniform(1000, 100000, 7, NULL, &a, errbuf, sizeof errbuf), 0);
  assert_int_equal(a.n, 1000);
  assert_int_equal(a.m, 100000);
  setenv("DSANA_IO_THREADS", "1", 1);
  assert_int_equal(dsana_graph_gen_uniform(1000, 100000, 7, NULL, &b, errbuf, sizeof errbuf), 0);
  unsetenv("DSANA_IO_THREADS");
  assert_same_graph(&a, &b);
  assert_int_equal(dsana_graph_gen_uniform(1000, 100000, 8, NULL, &c, errbuf, sizeof errbuf), 0);
  assert_true(memcmp(a.in_src, c.in_src, a.m * sizeof *a.in_src) != 0);
  struct dsana_graph_stats st;
  dsana_graph_stats(&a, &st);
  assert_true(st.max_in < 200 && st.min_in > 40); /* mean 100 */
  dsana_graph_fini(&a);
  dsana_graph_fini(&b);
  dsana_graph_fini(&c);
  assert_int_equal(dsana_graph_gen_uniform(0, 10, 1, NULL, &a, errbuf, sizeof errbuf), DSANA_EINVAL);
}

/* --- bad inputs -------------------------------------------------------- */

static void test_bad_missing(void **state) {
  expect_open_fails(data_path("no_such_graph.txt"), NULL, DSANA_EIO, "no_such_graph.txt: No such file or directory",
                    NULL);
  struct dsana_graph g;
  assert_int_equal(dsana_graph_map_binary(data_path("no_such_graph.dsg"), &g, errbuf, sizeof errbuf), DSANA_EIO);
  assert_non_null(strstr(errbuf, "no_such_graph.dsg"));
  assert_false(dsana_graph_is_binary(data_path("no_such_graph.dsg")));
}

static void test_bad_snap_text(void **state) {
  expect_open_fails(data_path("bad_snap_nonnumeric.txt"), NULL, DSANA_EFORMAT, "bad_snap_nonnumeric.txt:3: ", "'x1'");
  expect_open_fails(data_path("bad_snap_negative.txt"), NULL, DSANA_EFORMAT, "bad_snap_negative.txt:2: negative",
                    "'-4'");
  expect_open_fails(data_path("bad_snap_one_field.txt"), NULL, DSANA_EFORMAT, "bad_snap_one_field.txt:2: ", "found 1");
  expect_open_fails(data_path("bad_snap_empty.txt"), NULL, DSANA_EFORMAT, "bad_snap_empty.txt: empty graph", NULL);
  expect_open_fails(data_path("bad_snap_overflow.txt"), NULL, DSANA_EFORMAT, "bad_snap_overflow.txt:2: ", "range");
  const char *p = tmp_path("zero_bytes.txt");
  write_bytes(p, "", 0);
  expect_open_fails(p, NULL, DSANA_EFORMAT, "zero_bytes.txt: empty graph", NULL);
  p = tmp_path("binary_junk.txt");
  write_bytes(p, "1 2\n\0\x01\x02 3\n", 10);
  expect_open_fails(p, NULL, DSANA_EFORMAT, "binary_junk.txt:2: non-numeric", NULL);
  expect_open_fails(tmpdir, NULL, DSANA_EIO, tmpdir, NULL); /* a directory */
}

static void test_bad_gzip(void **state) {
  unsigned char buf[1 << 16];
  char text[40000];
  size_t k = 0;
  for (int i = 0; i < 3000; i++)
    k += (size_t)snprintf(text + k, sizeof text - k, "%d %d\n", i, (i * 31) % 1000);
  const char *good = tmp_path("good.txt.gz");
  write_gz(good, text);
  size_t len = read_bytes(good, buf, sizeof buf);
  assert_true(len > 100);

  const char *trunc = tmp_path("truncated.txt.gz");
  write_bytes(trunc, buf, len / 2);
  expect_open_fails(trunc, NULL, DSANA_EFORMAT, "truncated.txt.gz: ", "unexpected end of gzip data");

  const char *corrupt = tmp_path("corrupt.txt.gz");
  for (size_t i = 20; i < 60; i++)
    buf[i] ^= 0x5a;
  write_bytes(corrupt, buf, len);
  expect_open_fails(corrupt, NULL, DSANA_EFORMAT, "corrupt.txt.gz: ", "gzip");

  /* gzip magic and then garbage */
  const unsigned char junk[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xff, 0xff, 0xff, 0xff};
  const char *bad = tmp_path("junk.gz");
  write_bytes(bad, junk, sizeof junk);
  expect_open_fails(bad, NULL, DSANA_EFORMAT, "junk.gz: ", "gzip");
}

static void test_bad_mtx(void **state) {
  expect_open_fails(data_path("bad_mtx_banner.mtx"), NULL, DSANA_EFORMAT, "bad_mtx_banner.mtx:1: ", "banner");
  expect_open_fails(data_path("bad_mtx_array.mtx"), NULL, DSANA_EFORMAT, "bad_mtx_array.mtx:1: ", "array");
  expect_open_fails(data_path("bad_mtx_too_few.mtx"), NULL, DSANA_EFORMAT,
                    "bad_mtx_too_few.mtx:4: ", "3 entries declared, 2 found");
  expect_open_fails(data_path("bad_mtx_too_many.mtx"), NULL, DSANA_EFORMAT, "bad_mtx_too_many.mtx:4: ", "more entries");
  expect_open_fails(data_path("bad_mtx_out_of_range.mtx"), NULL, DSANA_EFORMAT,
                    "bad_mtx_out_of_range.mtx:4: ", "outside");
  expect_open_fails(data_path("bad_mtx_missing_value.mtx"), NULL, DSANA_EFORMAT,
                    "bad_mtx_missing_value.mtx:4: ", "value");
}

/* What the fuzz targets' reference readers found dsana taking: a signed
 * SNAP id, a Matrix Market banner with a sixth word or a NUL byte inside a
 * word, a size line with a fourth field. Each is refused naming the line. */
static void test_bad_fields_the_formats_do_not_have(void **state) {
  static const char banner[] = "%%MatrixMarket matrix coordinate real general";
  char text[256];
  expect_open_fails(text_file("plus_id.txt", "1 2\n+0 1\n"), NULL, DSANA_EFORMAT, "plus_id.txt:2: ", "'+0'");
  snprintf(text, sizeof text, "%s symmetric\n2 2 1\n1 2 1.5\n", banner);
  expect_open_fails(text_file("six_words.mtx", text), NULL, DSANA_EFORMAT, "six_words.mtx:1: ", "'symmetric'");
  snprintf(text, sizeof text, "%s\n2 2 1 7\n1 2 1.5\n", banner);
  expect_open_fails(text_file("size_four.mtx", text), NULL, DSANA_EFORMAT, "size_four.mtx:2: ", "extra field '7'");
  const char nul[] = "%%MatrixMarket matrix coordinate real general\0dted\n2 2 1\n1 2 1.5\n";
  const char *p = tmp_path("nul_banner.mtx");
  write_bytes(p, nul, sizeof nul - 1);
  expect_open_fails(p, NULL, DSANA_EFORMAT, "nul_banner.mtx:1: ", "symmetry");
}

/* Write a small binary graph and return its bytes in buf. */
static size_t binary_bytes(const char *path, unsigned char *buf, size_t cap) {
  const uint32_t src[] = {0, 1, 2, 2}, dst[] = {1, 2, 0, 1};
  struct dsana_graph g;
  assert_int_equal(dsana_graph_from_edges(3, 4, src, dst, NULL, &g, errbuf, sizeof errbuf), 0);
  assert_int_equal(dsana_graph_write_binary(&g, path, errbuf, sizeof errbuf), 0);
  dsana_graph_fini(&g);
  return read_bytes(path, buf, cap);
}

static void expect_map_error(const char *path, const char *s1, const char *s2) {
  struct dsana_graph g;
  errbuf[0] = '\0';
  int rc = dsana_graph_map_binary(path, &g, errbuf, sizeof errbuf);
  if (rc != DSANA_EFORMAT || !strstr(errbuf, s1) || !strstr(errbuf, s2))
    print_error("%s: rc %d, err '%s'\n", path, rc, errbuf);
  assert_int_equal(rc, DSANA_EFORMAT);
  assert_non_null(strstr(errbuf, s1));
  assert_non_null(strstr(errbuf, s2));
  assert_zeroed(&g);
}

static void test_bad_binary(void **state) {
  unsigned char buf[4096], b2[4096];
  const char *p = tmp_path("small.dsg");
  size_t len = binary_bytes(p, buf, sizeof buf);
  assert_true(len > 192 && len < sizeof buf);

  const char *t = tmp_path("truncated.dsg");
  write_bytes(t, buf, len - 5);
  expect_map_error(t, "truncated.dsg: offset ", "truncated");
  expect_open_fails(t, NULL, DSANA_EFORMAT, "truncated.dsg: offset ", "truncated");
  write_bytes(t, buf, 100);
  expect_map_error(t, "truncated.dsg: offset 100: ", "truncated");

  memcpy(b2, buf, len);
  b2[0] = 'X';
  t = tmp_path("bad_magic.dsg");
  write_bytes(t, b2, len);
  expect_map_error(t, "bad_magic.dsg: offset 0: ", "bad magic");

  memcpy(b2, buf, len);
  b2[8] = 7;
  t = tmp_path("version7.dsg");
  write_bytes(t, b2, len);
  expect_map_error(t, "version7.dsg: offset 8: ", "version 7 not supported (this build reads version 3)");
  expect_open_fails(t, NULL, DSANA_EFORMAT, "version7.dsg: offset 8: ", "version 7");

  memcpy(b2, buf, len);
  b2[16] ^= 1; /* n */
  t = tmp_path("bad_crc.dsg");
  write_bytes(t, b2, len);
  expect_map_error(t, "bad_crc.dsg: offset 184: ", "checksum mismatch");

  memcpy(b2, buf, len);
  memcpy(b2 + len, "trailing", 8);
  t = tmp_path("trailing.dsg");
  write_bytes(t, b2, len + 8);
  expect_map_error(t, "trailing.dsg: offset ", "file size");

  /* in_off[n] != m: the section's CRC32 sees it first */
  memcpy(b2, buf, len);
  b2[192 + 3 * 8] ^= 0x40;
  t = tmp_path("bad_in_off.dsg");
  write_bytes(t, b2, len);
  expect_map_error(t, "bad_in_off.dsg: offset 192: ", "in_off section checksum mismatch");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_from_edges_csc),
      cmocka_unit_test(test_stats_dangling),
      cmocka_unit_test(test_binary_round_trip),
      cmocka_unit_test(test_check_range_corrupt),
      cmocka_unit_test(test_snap_basic),
      cmocka_unit_test(test_snap_dense_ids),
      cmocka_unit_test(test_snap_gzip),
      cmocka_unit_test(test_snap_large_blocks),
      cmocka_unit_test(test_snap_first_block),
      cmocka_unit_test(test_mtx_pattern_general),
      cmocka_unit_test(test_mtx_real_symmetric),
      cmocka_unit_test(test_mtx_integer_dedup),
      cmocka_unit_test(test_gen_kron),
      cmocka_unit_test(test_gen_uniform),
      cmocka_unit_test(test_bad_missing),
      cmocka_unit_test(test_bad_snap_text),
      cmocka_unit_test(test_bad_gzip),
      cmocka_unit_test(test_bad_mtx),
      cmocka_unit_test(test_bad_fields_the_formats_do_not_have),
      cmocka_unit_test(test_bad_binary),
  };
  return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
