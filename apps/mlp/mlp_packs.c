/*
 * mlp_packs.c - the first layer's packed weights shared by a process's
 * tasks of one iteration (mlp_packs.h).
 *
 * Any thread: a copy's key, users and memory change under the lock, and
 * only while nobody holds it; its parts are taken and counted with
 * atomics, so the threads packing it never wait on each other's lock.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mlp_mm.h"
#include "mlp_packs.h"

void mlp_packs_init(struct mlp_packs *pk) {
  memset(pk, 0, sizeof *pk);
  pthread_mutex_init(&pk->mu, NULL);
}

void mlp_packs_fini(struct mlp_packs *pk) {
  for (int i = 0; i < MLP_PACKS; i++)
    free(pk->p[i].buf);
  pthread_mutex_destroy(&pk->mu);
}

static bool same_key(const struct mlp_pack *c, const double *w, uint32_t iter, uint32_t n_in, uint32_t cols) {
  return c->w == w && c->iter == iter && c->n_in == n_in && c->cols == cols;
}

/* Copy c keyed anew for (w, iter, n_in, cols) with no part packed; false
 * when its memory cannot grow. Under the lock, c held by nobody. */
static bool rekey(struct mlp_pack *c, const double *w, uint32_t iter, uint32_t n_in, uint32_t cols) {
  size_t need = mlp_packed_b_floats(n_in, cols);
  if (c->cap < need) {
    free(c->buf);
    c->w = NULL;
    c->cap = 0;
    if (!(c->buf = aligned_alloc(64, (sizeof(float) * need + 63) & ~(size_t)63)))
      return false;
    c->cap = need;
  }
  c->w = w;
  c->iter = iter;
  c->n_in = n_in;
  c->cols = cols;
  c->parts = mlp_pack_b_parts(n_in, cols);
  c->next = c->done = 0;
  return true;
}

/* The copy for the key, or one free to take it (keyed anew), held; NULL. */
static struct mlp_pack *hold(struct mlp_packs *pk, const double *w, uint32_t iter, uint32_t n_in, uint32_t cols) {
  struct mlp_pack *c = NULL;
  pthread_mutex_lock(&pk->mu);
  for (int i = 0; i < MLP_PACKS && !c; i++)
    if (same_key(&pk->p[i], w, iter, n_in, cols))
      c = &pk->p[i];
  for (int i = 0; i < MLP_PACKS && !c; i++)
    if (pk->p[i].users == 0 && rekey(&pk->p[i], w, iter, n_in, cols))
      c = &pk->p[i];
  if (c)
    c->users++;
  pthread_mutex_unlock(&pk->mu);
  return c;
}

const float *mlp_packs_get(struct mlp_packs *pk, const double *w, uint32_t iter, uint32_t n_in, uint32_t cols,
                           struct mlp_pack **held) {
  struct mlp_pack *c = *held = hold(pk, w, iter, n_in, cols);
  if (!c)
    return NULL;
  for (uint32_t u; (u = __atomic_fetch_add(&c->next, 1, __ATOMIC_RELAXED)) < c->parts;) {
    mlp_pack_b_part(n_in, cols, w, cols, c->buf, u);
    __atomic_fetch_add(&c->done, 1, __ATOMIC_RELEASE);
  }
  /* the last parts are another thread's, a panel (16 KiB) each from done */
  for (unsigned spins = 0; __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) < c->parts; spins++)
    if (spins >= 64)
      sched_yield();
  return c->buf;
}

void mlp_packs_put(struct mlp_packs *pk, struct mlp_pack *held) {
  if (!held)
    return;
  pthread_mutex_lock(&pk->mu);
  held->users--;
  pthread_mutex_unlock(&pk->mu);
}
