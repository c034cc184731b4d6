/*
 * test_apps_mlp_packs.c - the first layer's packed weights shared by a
 * process's tasks (apps/mlp/mlp_packs.c): threads that ask for the same
 * weights and iteration at once share the parts of one copy and all get
 * mlp_pack_b's bytes; a copy is kept for a second ask (nothing packed
 * again), held copies are never keyed anew (a third key while two are
 * held gets NULL: its view packs its own), and a released one is reused.
 * Needs the AVX-512 kernels (packing is theirs): skipped (exit 77),
 * saying so, without them.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "apps/common/cpu.h"
#include "apps/mlp/mlp_mm.h"
#include "apps/mlp/mlp_packs.h"

enum { N_IN = 784, COLS = 256, THREADS = 4 };

static double *weights(uint64_t seed) {
  double *w = malloc(sizeof(double) * N_IN * COLS);
  assert_non_null(w);
  for (size_t i = 0; i < (size_t)N_IN * COLS; i++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    w[i] = (double)(int64_t)(seed >> 11) * 0x1p-60;
  }
  return w;
}

static float *packed(const double *w) {
  float *p = aligned_alloc(64, sizeof(float) * mlp_packed_b_floats(N_IN, COLS));
  assert_non_null(p);
  mlp_pack_b(N_IN, COLS, w, COLS, p);
  return p;
}

struct asker {
  struct mlp_packs *pk;
  const double *w;
  const float *got;
  struct mlp_pack *held;
  pthread_barrier_t *start;
};

static void *ask(void *arg) {
  struct asker *a = arg;
  pthread_barrier_wait(a->start);
  a->got = mlp_packs_get(a->pk, a->w, 7, N_IN, COLS, &a->held);
  return NULL;
}

static void test_threads_share_one_copy(void **state) {
  (void)state;
  struct mlp_packs pk;
  mlp_packs_init(&pk);
  double *w = weights(3);
  float *want = packed(w);
  size_t bytes = sizeof(float) * mlp_packed_b_floats(N_IN, COLS);
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  struct asker a[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    a[i] = (struct asker){.pk = &pk, .w = w, .start = &start};
    assert_int_equal(pthread_create(&t[i], NULL, ask, &a[i]), 0);
  }
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 0; i < THREADS; i++) {
    assert_non_null(a[i].got);
    assert_ptr_equal(a[i].got, a[0].got); /* one copy */
    assert_ptr_equal(a[i].held, a[0].held);
  }
  assert_memory_equal(a[0].got, want, bytes);
  struct mlp_pack *c = a[0].held;
  assert_int_equal(c->users, THREADS);
  assert_int_equal(c->done, c->parts);
  assert_true(c->parts == mlp_pack_b_parts(N_IN, COLS) && c->parts > THREADS);
  for (int i = 0; i < THREADS; i++)
    mlp_packs_put(&pk, a[i].held);
  assert_int_equal(c->users, 0);
  pthread_barrier_destroy(&start);
  free(w), free(want);
  mlp_packs_fini(&pk);
}

static void test_copies_are_kept_and_never_rekeyed_while_held(void **state) {
  (void)state;
  struct mlp_packs pk;
  mlp_packs_init(&pk);
  double *w1 = weights(1), *w2 = weights(2), *w3 = weights(3);
  float *want3 = packed(w3);
  size_t bytes = sizeof(float) * mlp_packed_b_floats(N_IN, COLS);
  struct mlp_pack *h1, *h2, *h3, *again;
  const float *p1 = mlp_packs_get(&pk, w1, 1, N_IN, COLS, &h1);
  const float *p2 = mlp_packs_get(&pk, w2, 2, N_IN, COLS, &h2);
  assert_true(p1 && p2 && p1 != p2);
  assert_null(mlp_packs_get(&pk, w3, 3, N_IN, COLS, &h3)); /* both held */
  assert_null(h3);
  mlp_packs_put(&pk, h3); /* NULL: nothing */
  mlp_packs_put(&pk, h1);
  uint32_t next = h1->next;
  assert_ptr_equal(mlp_packs_get(&pk, w1, 1, N_IN, COLS, &again), p1); /* kept: not packed again */
  assert_int_equal(h1->next, next + 1);
  mlp_packs_put(&pk, again);
  assert_ptr_equal(mlp_packs_get(&pk, w1, 2, N_IN, COLS, &h3), p1); /* another iteration: keyed anew */
  mlp_packs_put(&pk, h3);
  const float *p3 = mlp_packs_get(&pk, w3, 3, N_IN, COLS, &h3);
  assert_ptr_equal(p3, p1); /* the free copy, reused */
  assert_memory_equal(p3, want3, bytes);
  mlp_packs_put(&pk, h3);
  mlp_packs_put(&pk, h2);
  free(w1), free(w2), free(w3), free(want3);
  mlp_packs_fini(&pk);
}

int main(void) {
  if (app_cpu_detect() < APP_CPU_AVX512) {
    fprintf(stderr, "skipped: this CPU has no AVX-512, whose kernels alone take packed weights\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_share_one_copy),
      cmocka_unit_test(test_copies_are_kept_and_never_rekeyed_while_held),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
