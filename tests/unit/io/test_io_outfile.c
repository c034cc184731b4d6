/* test_io_outfile.c - the output module (dsana/outfile.h): regular files
 * replaced atomically (mode kept, nothing left behind on success, failure
 * or discard), symbolic links followed (the link stays a link), FIFOs
 * written in place (never replaced), gzip for ".gz", the checks made
 * before a run, file identity, anonymous files, and a full disk
 * (RLIMIT_FSIZE) that leaves the old file intact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "dsana/dsana.h"
#include "dsana/outfile.h"

static char dir[64];

static int make_dir(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/dsana_outfile_XXXXXX");
  return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static const char *in_dir(const char *name) {
  static char buf[4][256];
  static int at;
  at = (at + 1) % 4;
  snprintf(buf[at], sizeof buf[at], "%s/%s", dir, name);
  return buf[at];
}

static size_t entries(void) {
  DIR *d = opendir(dir);
  size_t n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d)
    closedir(d);
  return n;
}

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static char *slurp(const char *path) {
  static char buf[4096];
  gzFile z = gzopen(path, "rb"); /* reads plain files as they are */
  assert_non_null(z);
  int n = gzread(z, buf, sizeof buf - 1);
  gzclose(z);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

static int write_text(const char *path, unsigned flags, const char *text, char *err) {
  struct dsana_outfile *o;
  int rc = dsana_outfile_open(path, flags, &o, err, 256);
  if (rc)
    return rc;
  dsana_outfile_printf(o, "%s", text);
  return dsana_outfile_commit(o, err, 256);
}

static void test_new_and_replace(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(write_text(in_dir("a.tsv"), 0, "one\n", err), 0);
  assert_string_equal(slurp(in_dir("a.tsv")), "one\n");
  assert_int_equal(entries(), 1); /* no temporary left */
  chmod(in_dir("a.tsv"), 0640);
  struct stat before, after;
  stat(in_dir("a.tsv"), &before);
  assert_int_equal(write_text(in_dir("a.tsv"), 0, "two\n", err), 0);
  stat(in_dir("a.tsv"), &after);
  assert_string_equal(slurp(in_dir("a.tsv")), "two\n");
  assert_int_equal(after.st_mode & 07777, 0640);
  assert_true(before.st_ino != after.st_ino); /* replaced, not rewritten */
  assert_true(dsana_outfile_replaces(in_dir("a.tsv")));
  assert_int_equal(entries(), 1);
}

static void test_symlinks_followed(void **state) {
  (void)state;
  char err[256], link[256];
  put(in_dir("target"), "old\n");
  assert_int_equal(symlink("target", in_dir("link")), 0);
  assert_int_equal(write_text(in_dir("link"), 0, "new\n", err), 0);
  struct stat st;
  assert_int_equal(lstat(in_dir("link"), &st), 0);
  assert_true(S_ISLNK(st.st_mode)); /* the link stays a link */
  assert_string_equal(slurp(in_dir("target")), "new\n");
  /* a dangling link: its target is created */
  assert_int_equal(symlink("made", in_dir("dangling")), 0);
  assert_int_equal(write_text(in_dir("dangling"), 0, "x\n", err), 0);
  assert_string_equal(slurp(in_dir("made")), "x\n");
  ssize_t n = readlink(in_dir("dangling"), link, sizeof link - 1);
  assert_true(n > 0);
  assert_true(dsana_outfile_same(in_dir("link"), in_dir("target")));
  assert_true(dsana_outfile_same(in_dir("dangling"), in_dir("made")));
  assert_false(dsana_outfile_same(in_dir("link"), in_dir("made")));
  assert_int_equal(entries(), 4);
}

static void test_fifo_in_place(void **state) {
  (void)state;
  char err[256], buf[64] = "";
  assert_int_equal(mkfifo(in_dir("fifo"), 0600), 0);
  assert_false(dsana_outfile_replaces(in_dir("fifo")));
  assert_int_equal(dsana_outfile_check(in_dir("fifo"), err, sizeof err), 0); /* does not wait for a reader */
  int rd = open(in_dir("fifo"), O_RDONLY | O_NONBLOCK);
  assert_true(rd >= 0);
  assert_int_equal(write_text(in_dir("fifo"), 0, "through\n", err), 0);
  assert_int_equal(read(rd, buf, sizeof buf - 1), 8);
  assert_string_equal(buf, "through\n");
  close(rd);
  struct stat st;
  assert_int_equal(lstat(in_dir("fifo"), &st), 0);
  assert_true(S_ISFIFO(st.st_mode)); /* never replaced by a regular file */
}

static void test_gzip_by_suffix(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(write_text(in_dir("r.gz"), DSANA_OUT_GZIP_SUFFIX, "1\t0.5\n", err), 0);
  unsigned char magic[2] = {0};
  FILE *f = fopen(in_dir("r.gz"), "rb");
  assert_int_equal(fread(magic, 1, 2, f), 2);
  fclose(f);
  assert_int_equal(magic[0], 0x1f);
  assert_int_equal(magic[1], 0x8b);
  assert_string_equal(slurp(in_dir("r.gz")), "1\t0.5\n");
  /* without the flag the name is only a name */
  assert_int_equal(write_text(in_dir("p.gz"), 0, "plain\n", err), 0);
  f = fopen(in_dir("p.gz"), "rb");
  assert_int_equal(fgetc(f), 'p');
  fclose(f);
}

static void test_checks(void **state) {
  (void)state;
  char err[256];
  assert_int_equal(dsana_outfile_check(in_dir("new.tsv"), err, sizeof err), 0);
  assert_int_equal(dsana_outfile_check("-", err, sizeof err), 0);
  assert_int_not_equal(dsana_outfile_check(in_dir("no/such/dir/x"), err, sizeof err), 0);
  assert_non_null(strstr(err, "no folder"));
  assert_int_not_equal(dsana_outfile_check(dir, err, sizeof err), 0);
  assert_non_null(strstr(err, "is a directory"));
  assert_int_equal(dsana_outfile_check_dir(in_dir("ck"), err, sizeof err), 0);
  assert_int_not_equal(dsana_outfile_check_dir(in_dir("no/ck"), err, sizeof err), 0);
  put(in_dir("file"), "x");
  assert_int_not_equal(dsana_outfile_check_dir(in_dir("file"), err, sizeof err), 0);
  struct dsana_outfile *o;
  assert_int_not_equal(dsana_outfile_open(dir, 0, &o, err, sizeof err), 0);
  assert_null(o);
  assert_true(dsana_outfile_same(in_dir("n1"), in_dir("./n1")));
  assert_false(dsana_outfile_same(in_dir("n1"), in_dir("n2")));
  assert_true(dsana_outfile_same("-", "-"));
}

static void test_discard_keeps_old(void **state) {
  (void)state;
  char err[256];
  put(in_dir("keep"), "old\n");
  struct dsana_outfile *o;
  assert_int_equal(dsana_outfile_open(in_dir("keep"), 0, &o, err, sizeof err), 0);
  dsana_outfile_printf(o, "half");
  dsana_outfile_flush(o);
  dsana_outfile_discard(o);
  assert_string_equal(slurp(in_dir("keep")), "old\n");
  assert_int_equal(entries(), 1);
}

/* A full disk, as RLIMIT_FSIZE makes it: the write fails, the reason is
 * reported, the old file is intact, no temporary is left. */
static void test_full_disk(void **state) {
  (void)state;
  char err[256];
  put(in_dir("ranks"), "old\n");
  struct rlimit old, small = {.rlim_cur = 4096, .rlim_max = RLIM_INFINITY};
  getrlimit(RLIMIT_FSIZE, &old);
  small.rlim_max = old.rlim_max;
  signal(SIGXFSZ, SIG_IGN);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
  struct dsana_outfile *o;
  assert_int_equal(dsana_outfile_open(in_dir("ranks"), 0, &o, err, sizeof err), 0);
  for (int i = 0; i < 200000; i++)
    dsana_outfile_printf(o, "%d\t0.123456789\n", i);
  int rc = dsana_outfile_commit(o, err, sizeof err);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, SIG_DFL);
  assert_int_equal(rc, DSANA_EIO);
  assert_non_null(strstr(err, "write failed: File too large"));
  assert_string_equal(slurp(in_dir("ranks")), "old\n");
  assert_int_equal(entries(), 1);
}

static void test_anonymous(void **state) {
  (void)state;
  char err[256], path[64], buf[16] = "";
  setenv("TMPDIR", dir, 1);
  int fd;
  assert_int_equal(dsana_outfile_anon(path, sizeof path, &fd, err, sizeof err), 0);
  assert_int_equal(entries(), 0); /* nothing to leave behind */
  assert_false(dsana_outfile_replaces(path));
  assert_int_equal(write_text(path, 0, "graph", err), 0);
  assert_int_equal(pread(fd, buf, sizeof buf - 1, 0), 5);
  assert_string_equal(buf, "graph");
  close(fd);
  unsetenv("TMPDIR");
  assert_int_equal(entries(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_new_and_replace, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_symlinks_followed, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_fifo_in_place, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_gzip_by_suffix, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_checks, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_discard_keeps_old, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_full_disk, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_anonymous, make_dir, remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
