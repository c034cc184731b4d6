/*
 * pr_sum.h - PageRank's exact sums over a range of vertices (the dangling
 * mass, the L1 change): the bits of adding each addend with
 * dsana_xsum_add, in four plain 128-bit lanes so that the additions do
 * not wait on each other. Its own header so that a unit test compares it
 * with dsana_xsum_add over addends of every magnitude.
 */
#ifndef DSANA_APPS_PR_SUM_H
#define DSANA_APPS_PR_SUM_H

#include <stdbool.h>
#include <stdint.h>

#include "dsana/xsum.h"

/* The addends that take no lane (negative, 2^-1 or more, not finite). */
__attribute__((noinline)) static void pr_sum_rest(dsana_xsum *rest, double x) { dsana_xsum_add(rest, x); }

/* x in [0, 2^-1) scaled by 2^80 (the xsum's grid) and truncated, as
 * dsana_xsum_add adds it; anything else is added to *rest and gives 0.
 * Below 2^63 a cast truncates the scaled value exactly; from 2^63 (x at
 * least 2^-17) it is an integer of two exact parts, below and above 2^63.
 * `mixed`: the addends fall on both sides of 2^-17 in no order a branch
 * predictor could follow (ranks of a graph of fewer than 2^17 vertices
 * among the 0s of the vertices an addend leaves out): every one is taken
 * in two parts, the upper one 0 below 2^-17, without a branch between. */
__attribute__((always_inline)) static inline unsigned __int128 pr_scaled(dsana_xsum *rest, double x, bool mixed) {
  double y = x * 0x1p80;
  if (!mixed && y >= 0 && y < 0x1p63)
    return (uint64_t)(int64_t)y;
  if (__builtin_expect(!(y >= 0 && y < 0x1p79), 0)) {
    pr_sum_rest(rest, x);
    return 0;
  }
  double yh = __builtin_floor(y * 0x1p-63); /* below 2^16 */
  return ((unsigned __int128)(uint64_t)(int64_t)yh << 63) + (uint64_t)(int64_t)(y - yh * 0x1p63);
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
 * overflows it. `mixed` as for pr_scaled. */
typedef double pr_addend(const double *a, const void *b, uint64_t v);
__attribute__((always_inline)) static inline dsana_xsum pr_lanes_sum(pr_addend *addend, const double *a, const void *b,
                                                                     uint64_t lo, uint64_t hi, bool mixed) {
  dsana_xsum rest = {0};
  unsigned __int128 a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  uint64_t v = lo;
  for (; v + 4 <= hi; v += 4) {
    a0 += pr_scaled(&rest, addend(a, b, v), mixed);
    a1 += pr_scaled(&rest, addend(a, b, v + 1), mixed);
    a2 += pr_scaled(&rest, addend(a, b, v + 2), mixed);
    a3 += pr_scaled(&rest, addend(a, b, v + 3), mixed);
  }
  for (; v < hi; v++)
    a0 += pr_scaled(&rest, addend(a, b, v), mixed);
  return pr_sum_total(rest, (unsigned __int128[]){a0, a1, a2, a3}, 4);
}

/* The addends pr_sum_avx512 knows: a[v] (b NULL); a[v] where the
 * out-degree ((const uint32_t *)b)[v] is 0, else +0 (the dangling mass);
 * |a[v] - ((const double *)b)[v]| (the L1 change). */
enum pr_addend_kind { PR_ADDEND_VALUE, PR_ADDEND_DANGLING, PR_ADDEND_CHANGE };
/* pr_lanes_sum's bits (those of dsana_xsum_add on every addend) over
 * [lo, hi), 8 addends at a time (pr_sum512.c); call it only where
 * pr_sum_vector() says so. */
dsana_xsum pr_sum_avx512(enum pr_addend_kind kind, const double *a, const void *b, uint64_t lo, uint64_t hi);
/* Whether this process's sums take pr_sum_avx512 (the apps' one CPU
 * level, apps/common/cpu.h, is AVX-512). */
bool pr_sum_vector(void);

#endif
