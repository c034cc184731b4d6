/*
 * test_apps_bufpool.c - the apps' pool of large scratch buffers
 * (apps/common/bufpool.c): a buffer given back is handed out again for a
 * request it can hold (the MLP's task views: no fresh pages a task), a
 * larger request gets a new one, every buffer is 64-byte aligned with a
 * capacity of at least the request, the pool keeps at most BUFPOOL_KEEP
 * (the rest are freed: valgrind sees no leak), and without a pool the calls
 * are a plain allocation and free.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "apps/common/bufpool.h"

static void test_a_buffer_given_back_is_handed_out_again(void **state) {
  (void)state;
  struct bufpool bp;
  bufpool_init(&bp);
  size_t cap = 0, cap2 = 0;
  char *a = bufpool_get(&bp, 3 << 20, &cap);
  assert_non_null(a);
  assert_true(cap >= (3u << 20));
  assert_int_equal((uintptr_t)a % 64, 0);
  memset(a, 1, cap);
  bufpool_put(&bp, a, cap);
  char *b = bufpool_get(&bp, 1 << 20, &cap2); /* smaller: the same buffer, its whole capacity */
  assert_ptr_equal(b, a);
  assert_int_equal(cap2, cap);
  char *c = bufpool_get(&bp, 5 << 20, &cap); /* none kept is large enough: a new one */
  assert_non_null(c);
  assert_ptr_not_equal(c, a);
  assert_true(cap >= (5u << 20));
  bufpool_put(&bp, c, cap);
  bufpool_put(&bp, b, cap2);
  bufpool_fini(&bp);
}

static void test_the_pool_keeps_a_bounded_number(void **state) {
  (void)state;
  struct bufpool bp;
  bufpool_init(&bp);
  void *p[BUFPOOL_KEEP + 3];
  size_t cap[BUFPOOL_KEEP + 3];
  for (int i = 0; i < BUFPOOL_KEEP + 3; i++) {
    p[i] = bufpool_get(&bp, 4096 + (size_t)i, &cap[i]);
    assert_non_null(p[i]);
    assert_int_equal(cap[i] % 64, 0);
  }
  for (int i = 0; i < BUFPOOL_KEEP + 3; i++)
    bufpool_put(&bp, p[i], cap[i]);
  assert_int_equal(bp.n, BUFPOOL_KEEP);
  bufpool_fini(&bp);
  assert_int_equal(bp.n, 0);
}

static void test_without_a_pool_plain_memory(void **state) {
  (void)state;
  size_t cap = 0;
  void *p = bufpool_get(NULL, 100, &cap);
  assert_non_null(p);
  assert_int_equal(cap, 128);
  assert_int_equal((uintptr_t)p % 64, 0);
  bufpool_put(NULL, p, cap);
  bufpool_put(NULL, NULL, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_buffer_given_back_is_handed_out_again),
      cmocka_unit_test(test_the_pool_keeps_a_bounded_number),
      cmocka_unit_test(test_without_a_pool_plain_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
