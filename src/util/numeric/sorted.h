/*
 * sorted.h - binary search in ascending arrays: the first index whose
 * element is not below a value (C++'s std::lower_bound), for the key lists
 * of pulls, the segment boundaries of a shard, vertex ids and class labels.
 * One body, instantiated per element type; header-only, so that the hot
 * callers keep it inlined.
 */
#ifndef DSANA_UTIL_SORTED_H
#define DSANA_UTIL_SORTED_H

#include <stdint.h>

/* static inline uint64_t name(const type *a, uint64_t n, type x): the
 * first i in [0, n] with !(a[i] < x) (n when every element is below x);
 * a[0..n) ascending. A NaN x gives 0. */
#define SORTED_LOWER_BOUND(name, type)                             \
  static inline uint64_t name(const type *a, uint64_t n, type x) { \
    uint64_t lo = 0, hi = n;                                       \
    while (lo < hi) {                                              \
      uint64_t mid = lo + (hi - lo) / 2;                           \
      if (a[mid] < x)                                              \
        lo = mid + 1;                                              \
      else                                                         \
        hi = mid;                                                  \
    }                                                              \
    return lo;                                                     \
  }

SORTED_LOWER_BOUND(sorted_lower_bound_u64, uint64_t)
SORTED_LOWER_BOUND(sorted_lower_bound_f64, double)

#endif
