/*
 * test_util_refbuf.c - a reference-counted buffer (util/memory/refbuf.h):
 * its data is cache-line aligned and as large as asked; a hold makes it
 * shared, the matching drop unshares it, the last drop frees it (the
 * sanitizer build would report a leak or a double free); drops from many
 * threads at once free it exactly once.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/memory/refbuf.h"

static void holds_and_drops(void **state) {
  (void)state;
  struct refbuf *b = refbuf_new(1000);
  assert_non_null(b);
  assert_int_equal(refbuf_cap(b), 1000);
  assert_int_equal((uintptr_t)refbuf_data(b) % 64, 0);
  refbuf_data(b)[999] = 1; /* all of it is there */
  assert_false(refbuf_shared(b));
  refbuf_hold(b);
  assert_true(refbuf_shared(b));
  refbuf_drop(b);
  assert_false(refbuf_shared(b));
  refbuf_drop(b); /* the last: freed */
  refbuf_drop(NULL);
}

enum { DROPPERS = 4, EACH = 1000 };

static void *drop_many(void *arg) {
  for (int i = 0; i < EACH; i++)
    refbuf_drop(arg);
  return NULL;
}

static void drops_from_threads(void **state) {
  (void)state;
  struct refbuf *b = refbuf_new(8);
  assert_non_null(b);
  for (int i = 0; i < DROPPERS * EACH; i++)
    refbuf_hold(b);
  pthread_t t[DROPPERS];
  for (int i = 0; i < DROPPERS; i++)
    assert_int_equal(pthread_create(&t[i], NULL, drop_many, b), 0);
  for (int i = 0; i < DROPPERS; i++)
    pthread_join(t[i], NULL);
  assert_false(refbuf_shared(b)); /* only the first reference is left */
  refbuf_drop(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(holds_and_drops),
      cmocka_unit_test(drops_from_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
