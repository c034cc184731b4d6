/* shuffle.c - the seeded per-epoch permutation of shuffle.h. */
#include "shuffle.h"

uint64_t shuffle_mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void shuffle_init(struct shuffle *f, uint64_t seed, uint64_t epoch, uint64_t n) {
  unsigned bits = 1;
  while (bits < 64 && (n - 1) >> bits)
    bits++;
  f->half_bits = (bits + 1) / 2;
  f->mask = (1ULL << f->half_bits) - 1;
  f->key = shuffle_mix64(shuffle_mix64(seed ^ 0x6a09e667f3bcc909ULL) + epoch);
  f->n = n;
}

static uint64_t round_fn(const struct shuffle *f, unsigned r, uint64_t v) {
  return shuffle_mix64(f->key + 0x9e3779b97f4a7c15ULL * (r + 1) + v) & f->mask;
}

uint64_t shuffle_row(const struct shuffle *f, uint64_t p) {
  do {
    uint64_t l = p >> f->half_bits, r = p & f->mask;
    for (unsigned k = 0; k < 4; k++) {
      uint64_t t = l ^ round_fn(f, k, r);
      l = r;
      r = t;
    }
    p = l << f->half_bits | r;
  } while (p >= f->n);
  return p;
}

uint64_t shuffle_pos(const struct shuffle *f, uint64_t i) {
  do {
    uint64_t l = i >> f->half_bits, r = i & f->mask;
    for (unsigned k = 4; k-- > 0;) {
      uint64_t t = r ^ round_fn(f, k, l);
      r = l;
      l = t;
    }
    i = l << f->half_bits | r;
  } while (i >= f->n);
  return i;
}

uint64_t shuffle_steps_per_epoch(uint64_t n, uint64_t batch) {
  uint64_t b = batch < n ? batch : n;
  return (n + b - 1) / b;
}

struct shuffle_batch shuffle_batch_of(uint64_t n, uint64_t batch, uint64_t step) {
  uint64_t b = batch < n ? batch : n, spe = (n + b - 1) / b, p0 = (step % spe) * b;
  return (struct shuffle_batch){.epoch = step / spe, .p0 = p0, .p1 = p0 + b < n ? p0 + b : n};
}
