/*
 * test_io_graph_binary_check.c - a binary graph's body is checked before
 * it is handed out: a damaged byte in any section is a checksum mismatch
 * naming the file and the section, and a file whose checksums were made to
 * match (a writer's bug, a crafted file) is refused for what the writer
 * guarantees: out-degrees that are the edges' counts, sources below n and
 * ascending, distinct original ids, known flags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <zlib.h>

#include "graph_test_util.h"

enum { AT_SECTIONS = 40, AT_SECTION_CRC = 144, AT_CRC = 184, SEC_IN_OFF = 0, SEC_IN_SRC, SEC_OUT_DEG, SEC_ORIG_ID };

static unsigned char good[1 << 16];
static size_t good_len;

/* The binary bytes of snap_basic_crlf.txt (ids 10, 20, 30, 10^12; 6 edges,
 * a duplicate among them) into good. */
static void make_good(void) {
  struct dsana_graph g;
  open_ok(data_path("snap_basic_crlf.txt"), NULL, &g);
  assert_non_null(g.orig_id);
  const char *p = tmp_path("good.dsg");
  assert_int_equal(dsana_graph_write_binary(&g, p, errbuf, sizeof errbuf), 0);
  dsana_graph_fini(&g);
  good_len = read_bytes(p, good, sizeof good);
}

static uint64_t get_u64(const unsigned char *b, size_t at) {
  uint64_t x;
  memcpy(&x, b + at, 8);
  return x;
}

static unsigned char *section(unsigned char *b, unsigned s) { return b + get_u64(b, AT_SECTIONS + 16 * s); }

/* Make b's checksums match its bytes again, as a buggy writer would. */
static void reseal(unsigned char *b) {
  for (unsigned s = 0; s < 6; s++) {
    uint32_t crc = (uint32_t)crc32(0L, section(b, s), (uInt)get_u64(b, AT_SECTIONS + 8 + 16 * s));
    memcpy(b + AT_SECTION_CRC + 4 * s, &crc, 4);
  }
  uint32_t crc = (uint32_t)crc32(0L, b, AT_CRC);
  memcpy(b + AT_CRC, &crc, 4);
}

/* b written as name must be refused naming the file and s1, s2. */
static void expect_refused(const char *name, const unsigned char *b, const char *s1, const char *s2) {
  const char *p = tmp_path(name);
  write_bytes(p, b, good_len);
  char want[300];
  snprintf(want, sizeof want, "%s: ", name);
  expect_open_fails(p, NULL, DSANA_EFORMAT, want, s1);
  assert_non_null(strstr(errbuf, s2));
  struct dsana_graph g;
  assert_int_equal(dsana_graph_map_binary(p, &g, errbuf, sizeof errbuf), DSANA_EFORMAT);
  assert_zeroed(&g);
}

static void test_every_section_checksummed(void **state) {
  static const char *const what[] = {"in_off section", "in_src section", "out_deg section", "orig_id section"};
  make_good();
  for (unsigned s = SEC_IN_OFF; s <= SEC_ORIG_ID; s++) {
    unsigned char b[sizeof good];
    memcpy(b, good, good_len);
    section(b, s)[1] ^= 0x04; /* one bit of the section's first value */
    char name[32];
    snprintf(name, sizeof name, "flip%u.dsg", s);
    expect_refused(name, b, what[s], "checksum mismatch");
  }
}

static void test_out_degrees_match_edges(void **state) {
  make_good();
  unsigned char b[sizeof good];
  memcpy(b, good, good_len);
  memset(section(b, SEC_OUT_DEG), 0, 4 * 4); /* all zeroed: every vertex dangling */
  reseal(b);
  expect_refused("zero_deg.dsg", b, "out_deg[0] = 0, but 3 edges leave vertex 0", "");
  memcpy(b, good, good_len);
  uint32_t *deg = (uint32_t *)section(b, SEC_OUT_DEG);
  deg[1]++, deg[2]--; /* the same sum, moved between vertices */
  reseal(b);
  expect_refused("moved_deg.dsg", b, "out_deg[1] = 2, but 1 edges leave vertex 1", "");
  memcpy(b, good, good_len);
  deg[3] = 0xfffffff0u; /* huge */
  reseal(b);
  expect_refused("huge_deg.dsg", b, "out_deg[3] = 4294967280, but 1 edges", "");
}

static void test_sources_in_range_and_ascending(void **state) {
  make_good();
  unsigned char b[sizeof good];
  memcpy(b, good, good_len);
  uint32_t *src = (uint32_t *)section(b, SEC_IN_SRC);
  src[5] = 0xffffffffu;
  reseal(b);
  expect_refused("big_src.dsg", b, "in_src[5] = 4294967295: not below n = 4", "");
  memcpy(b, good, good_len);
  const uint64_t *off = (const uint64_t *)section(b, SEC_IN_OFF);
  /* vertex 0's in-edges are from 2 and 3: swap them */
  assert_int_equal(off[1] - off[0], 2);
  uint32_t t = src[off[0]];
  src[off[0]] = src[off[0] + 1];
  src[off[0] + 1] = t;
  reseal(b);
  expect_refused("unsorted.dsg", b, "sources of vertex 0 not ascending", "in_src[1] = 2 after 3");
}

static void test_orig_ids_distinct(void **state) {
  make_good();
  unsigned char b[sizeof good];
  memcpy(b, good, good_len);
  uint64_t *id = (uint64_t *)section(b, SEC_ORIG_ID);
  id[1] = id[0]; /* ascending order broken by a repeat: vertex 10 printed twice */
  reseal(b);
  expect_refused("dup_id.dsg", b, "original id 10 given to two vertices", "orig_id");
  memcpy(b, good, good_len);
  id[0] = 30, id[2] = 10, id[3] = 30; /* out of order, then a repeat (the bitmap path) */
  reseal(b);
  expect_refused("dup_id2.dsg", b, "original id 30 given to two vertices", "");
  memcpy(b, good, good_len);
  id[0] = 1ull << 62, id[3] = 20; /* a span too wide for a bitmap: sorted */
  reseal(b);
  expect_refused("dup_id3.dsg", b, "original id 20 given to two vertices", "");
  memcpy(b, good, good_len);
  id[0] = 1ull << 62, id[3] = 5; /* out of order and distinct: fine */
  reseal(b);
  const char *p = tmp_path("perm_id.dsg");
  write_bytes(p, b, good_len);
  struct dsana_graph g;
  open_ok(p, NULL, &g);
  assert_true(g.orig_id[0] == 1ull << 62 && g.orig_id[3] == 5);
  dsana_graph_fini(&g);
}

static void test_unknown_flags_and_duplicates_flag(void **state) {
  make_good();
  unsigned char b[sizeof good];
  memcpy(b, good, good_len);
  b[32] |= 0x20;
  reseal(b);
  expect_refused("flags.dsg", b, "offset 32: unknown flags 0x", "");
  memcpy(b, good, good_len);
  b[32] |= 2; /* "no duplicates", but 0->1 is there twice */
  reseal(b);
  expect_refused("dups.dsg", b, "not strictly ascending", "no duplicates");
}

/* A file shorter than version 1's 128-byte header is refused with the
 * size the current header needs, not version 1's. */
static void test_short_file_names_current_header_size(void **state) {
  make_good();
  for (size_t len = 8; len <= 190; len += 91) {
    const char *p = tmp_path("short.dsg");
    write_bytes(p, good, len);
    char want[64];
    snprintf(want, sizeof want, "short.dsg: offset %zu: ", len);
    expect_open_fails(p, NULL, DSANA_EFORMAT, want, "truncated file (header needs 192 bytes)");
  }
}

static void test_checked_once_per_file(void **state) {
  /* a file is checked when first mapped; a new file at the same path
   * (another inode, or another header) is checked again */
  make_good();
  const char *p = tmp_path("again.dsg");
  write_bytes(p, good, good_len);
  struct dsana_graph g;
  open_ok(p, NULL, &g);
  dsana_graph_fini(&g);
  unsigned char b[sizeof good];
  memcpy(b, good, good_len);
  memset(section(b, SEC_OUT_DEG), 0, 16);
  reseal(b);
  write_bytes(p, b, good_len); /* the same size, maybe the same mtime tick */
  expect_open_fails(p, NULL, DSANA_EFORMAT, "again.dsg: ", "out_deg[0] = 0");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_section_checksummed),
      cmocka_unit_test(test_out_degrees_match_edges),
      cmocka_unit_test(test_sources_in_range_and_ascending),
      cmocka_unit_test(test_orig_ids_distinct),
      cmocka_unit_test(test_unknown_flags_and_duplicates_flag),
      cmocka_unit_test(test_checked_once_per_file),
      cmocka_unit_test(test_short_file_names_current_header_size),
  };
  return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
