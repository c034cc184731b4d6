/*
 * shuffle.h - a seeded permutation of [0, n) for the apps' mini-batch
 * training (logreg --batch, mlp): epoch e of a run seeded s visits the
 * rows in the order sigma(s, e), computed a position at a time in either
 * direction without storing the permutation, so every worker finds the
 * rows of a batch on its own and nothing crosses iterations.
 *
 * sigma is a 4-round Feistel network over the smallest even power of two
 * >= n, keyed by (seed, epoch) through splitmix64's finaliser, walked in
 * cycles until it lands inside [0, n) (a bijection of [0, n)).
 */
#ifndef DSANA_APPS_COMMON_SHUFFLE_H
#define DSANA_APPS_COMMON_SHUFFLE_H

#include <stdint.h>

struct shuffle {
  uint64_t key, n, mask;
  unsigned half_bits;
};

/* sigma(seed, epoch) over [0, n), n >= 1. */
void shuffle_init(struct shuffle *f, uint64_t seed, uint64_t epoch, uint64_t n);
/* Position p of the epoch -> its row. */
uint64_t shuffle_row(const struct shuffle *f, uint64_t p);
/* Row i -> its position in the epoch. */
uint64_t shuffle_pos(const struct shuffle *f, uint64_t i);
/* Mini-batch steps over n rows, min(batch, n) rows each: step s = 0, 1, ...
 * is batch s % spe of epoch s / spe (spe = the steps an epoch, the last
 * batch of an epoch the rest), the epoch's positions [p0, p1). */
struct shuffle_batch {
  uint64_t epoch, p0, p1;
};
uint64_t shuffle_steps_per_epoch(uint64_t n, uint64_t batch);
struct shuffle_batch shuffle_batch_of(uint64_t n, uint64_t batch, uint64_t step);

/* splitmix64's finaliser: a well-mixed 64-bit hash of z. */
uint64_t shuffle_mix64(uint64_t z);

#endif
