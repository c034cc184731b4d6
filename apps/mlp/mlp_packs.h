/*
 * mlp_packs.h - the first layer's weights packed once a process and
 * iteration for all the tasks that read them (the AVX-512 forward
 * product's panels of floats, mlp_mm.h), where each task packed its own
 * copy: a 784 x 256 layer is 1.6 MB read and 0.8 MB written per task, and the
 * tasks of a worker's threads start together. Threads that arrive while
 * a copy is being made take parts of it (mlp_pack_b_part) until none is
 * left, then wait for the others' parts: a pack costs its process once,
 * and about 1 / (threads) of it on each thread's clock.
 *
 * Any thread. Two copies are kept (an iteration's and the next one's,
 * whose tasks may begin before the last of this one end); a view that
 * finds both in use packs its own.
 */
#ifndef DSANA_APPS_MLP_PACKS_H
#define DSANA_APPS_MLP_PACKS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define MLP_PACKS 2

struct mlp_pack {
  const double *w; /* the weights packed: key with iter, n_in, cols (NULL: none yet) */
  uint32_t iter, n_in, cols;
  uint32_t users;      /* views holding it (under the lock) */
  uint32_t parts;      /* mlp_pack_b_parts() */
  uint32_t next, done; /* the next part to take; parts packed (atomics) */
  float *buf;          /* 64-byte aligned, cap floats */
  size_t cap;
};

struct mlp_packs {
  pthread_mutex_t mu;
  struct mlp_pack p[MLP_PACKS];
};

void mlp_packs_init(struct mlp_packs *pk);
/* Frees the copies; none may be held. */
void mlp_packs_fini(struct mlp_packs *pk);
/* W (n_in x cols, rows cols apart, not padded) of iteration iter packed,
 * made now if no copy of it is (this thread taking parts of it), held
 * until mlp_packs_put(*held); NULL when no copy is free or memory runs out
 * (the caller packs its own). The weights at w must not change while held. */
const float *mlp_packs_get(struct mlp_packs *pk, const double *w, uint32_t iter, uint32_t n_in, uint32_t cols,
                           struct mlp_pack **held);
void mlp_packs_put(struct mlp_packs *pk, struct mlp_pack *held);

#endif
