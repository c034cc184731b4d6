/*
 * xsum.h - exact sums of doubles (dsana_xsum, util/numeric/xsum.c): what SUM
 * tables, partial sums and metrics add with. Its own header so that the
 * layers below the app contract use it without including dsana.h;
 * dsana.h includes it.
 */
#ifndef DSANA_XSUM_H
#define DSANA_XSUM_H

#include <stdbool.h>
#include <stdint.h>

#include "dsana/export.h"

/*
 * Exact, order-independent sums of doubles with a fixed resolution of
 * 2^-80 (each addend is truncated toward zero to that grid): a 192-bit
 * two's-complement fixed-point integer, so totals up to 2^111 (~2.6e33)
 * in magnitude are exact. Partial sums computed on any partition of the
 * addends add up to bit-identical totals: what keeps SUM tables,
 * convergence tests and reported metrics identical for every worker
 * count, server count and schedule.
 * An addend that is NaN, infinite or beyond 2^90 (~1.2e27) in magnitude
 * cannot be summed exactly: it marks the sum invalid (a flag that every
 * merge carries on, whatever the partition) and its value is NaN — the
 * runtime then stops the job naming the table and key, or the sum, never
 * a silently wrong total.
 */
typedef struct dsana_xsum {
  unsigned __int128 lo; /* the low 128 bits */
  uint64_t hi;          /* the high 64 bits (its top bit: the sign) */
  uint64_t flags;       /* DSANA_XSUM_INVALID: an addend could not be summed */
} dsana_xsum;

#define DSANA_XSUM_FRAC_BITS 80
#define DSANA_XSUM_INVALID 1u
/* doubles' worth of one dsana_xsum (its size on the wire and in pushes) */
#define DSANA_XSUM_WORDS (sizeof(dsana_xsum) / sizeof(double))

DSANA_API void dsana_xsum_add_bits(dsana_xsum *s, double x);
/* Add x. Inline fast path: |x| * 2^80 is exact (a power-of-two scaling)
 * and, below 2^63, a cast truncates it exactly: a 64-bit signed addend,
 * sign-extended into the 192 bits (its carry into hi, less one when it is
 * negative). Other addends (and NaN, which fails the comparison) take the
 * general path, which reads the IEEE-754 bits. */
static inline void dsana_xsum_add(dsana_xsum *s, double x) {
  double y = (x < 0 ? -x : x) * 0x1p80;
  if (y < 0x1p63) {
    long long v = x < 0 ? -(long long)y : (long long)y;
    unsigned __int128 old = s->lo;
    s->lo += (unsigned __int128)(__int128)v;
    s->hi += (uint64_t)(s->lo < old) - (uint64_t)(v < 0);
    return;
  }
  if (y < 0x1p127) { /* |x| < 2^47: two exact 64-bit halves, y = yh * 2^64 + yl */
    double yh = __builtin_floor(y * 0x1p-64);
    unsigned __int128 m = (unsigned __int128)(uint64_t)yh << 64 | (uint64_t)(y - yh * 0x1p64), old = s->lo;
    if (x < 0) {
      s->lo -= m;
      s->hi -= s->lo > old;
    } else {
      s->lo += m;
      s->hi += s->lo < old;
    }
    return;
  }
  dsana_xsum_add_bits(s, x);
}
DSANA_API void dsana_xsum_merge(dsana_xsum *into, const dsana_xsum *from);
/* The total, rounded to a nearby double (the same for the same total);
 * NaN for an invalid sum. */
DSANA_API double dsana_xsum_value(const dsana_xsum *s);
/* Is the sum exact (no addend marked it invalid)? */
static inline bool dsana_xsum_valid(const dsana_xsum *s) { return !(s->flags & DSANA_XSUM_INVALID); }

#endif /* DSANA_XSUM_H */
