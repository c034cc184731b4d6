/*
 * xsum.c - exact fixed-point sums (see dsana_xsum in dsana.h).
 *
 * Each addend is scaled by 2^80 and rounded to an integer; integer addition
 * is associative, so any partition of the addends gives the same total.
 */
#include <math.h>

#include "dsana/dsana.h"

#define XSUM_FRAC_BITS 80

void dsana_xsum_add(dsana_xsum *s, double x) {
  /* ldexp is exact; splitting into high and low parts keeps every bit of
   * the scaled value that lies above the 2^-80 grid. */
  double scaled = ldexp(x, XSUM_FRAC_BITS - 64);
  double hi = floor(scaled);
  double lo = ldexp(scaled - hi, 64);
  __int128 v = (__int128)(int64_t)hi * ((__int128)1 << 64);
  v += (__int128)(uint64_t)floor(lo);
  s->acc += v;
}

void dsana_xsum_merge(dsana_xsum *into, const dsana_xsum *from) { into->acc += from->acc; }

double dsana_xsum_value(const dsana_xsum *s) {
  __int128 a = s->acc;
  int neg = a < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-a) : (unsigned __int128)a;
  double hi = (double)(uint64_t)(u >> 64);
  double lo = (double)(uint64_t)u;
  double v = ldexp(hi, 64 - XSUM_FRAC_BITS) + ldexp(lo, -XSUM_FRAC_BITS);
  return neg ? -v : v;
}
