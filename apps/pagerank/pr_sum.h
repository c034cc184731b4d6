/*
 * pr_sum.h - PageRank's exact sums over a range of vertices (the dangling
 * mass, the L1 change): the bits of adding each addend with
 * dsana_xsum_add, in four plain 128-bit lanes so that the additions do
 * not wait on each other. Its own header so that a unit test compares it
 * with dsana_xsum_add over addends of every magnitude.
 */
#ifndef DSANA_APPS_PR_SUM_H
#define DSANA_APPS_PR_SUM_H

#include <stdint.h>

#include "dsana/xsum.h"

/* The addends that take no lane (negative, 2^-1 or more, not finite). */
__attribute__((noinline)) static void pr_sum_rest(dsana_xsum *rest, double x) { dsana_xsum_add(rest, x); }

/* x in [0, 2^-1) scaled by 2^80 (the xsum's grid) and truncated, as
 * dsana_xsum_add adds it; anything else is added to *rest and gives 0.
 * Below 2^63 a cast truncates the scaled value exactly; from 2^63 (x at
 * least 2^-17, every value PageRank sums on graphs of fewer than 2^17
 * vertices) it is an integer of two exact parts, below and above 2^63. */
static inline unsigned __int128 pr_scaled(dsana_xsum *rest, double x) {
  double y = x * 0x1p80;
  if (y >= 0 && y < 0x1p63)
    return (uint64_t)(int64_t)y;
  if (y >= 0 && y < 0x1p79) {
    double yh = __builtin_floor(y * 0x1p-63); /* below 2^16 */
    return ((unsigned __int128)(uint64_t)yh << 63) + (uint64_t)(int64_t)(y - yh * 0x1p63);
  }
  pr_sum_rest(rest, x);
  return 0;
}

static inline dsana_xsum pr_sum_total(dsana_xsum t, const unsigned __int128 *lane, int n) {
  for (int j = 0; j < n; j++) {
    unsigned __int128 old = t.lo;
    t.lo += lane[j];
    t.hi += t.lo < old;
  }
  return t;
}

/* The exact sum of addend(a, b, v) over [lo, hi), in four lanes: each
 * takes addends below 2^79 (scaled), so no run of fewer than 2^49 of them
 * overflows it. */
typedef double pr_addend(const double *a, const void *b, uint64_t v);
__attribute__((always_inline)) static inline dsana_xsum pr_lanes_sum(pr_addend *addend, const double *a, const void *b,
                                                                     uint64_t lo, uint64_t hi) {
  dsana_xsum rest = {0};
  unsigned __int128 a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  uint64_t v = lo;
  for (; v + 4 <= hi; v += 4) {
    a0 += pr_scaled(&rest, addend(a, b, v));
    a1 += pr_scaled(&rest, addend(a, b, v + 1));
    a2 += pr_scaled(&rest, addend(a, b, v + 2));
    a3 += pr_scaled(&rest, addend(a, b, v + 3));
  }
  for (; v < hi; v++)
    a0 += pr_scaled(&rest, addend(a, b, v));
  return pr_sum_total(rest, (unsigned __int128[]){a0, a1, a2, a3}, 4);
}

#endif
