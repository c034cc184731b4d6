/*
 * xsum.c - exact fixed-point sums (see dsana_xsum in dsana.h).
 *
 * Each addend is scaled by 2^80 and truncated toward zero to an integer,
 * read straight from its IEEE-754 bits; integer addition is associative, so
 * any partition of the addends gives the same total. dsana_xsum_add() is
 * inline in dsana.h: apps call it once per key in their hot loops.
 */
#include <math.h>
#include <string.h>

#include "dsana/dsana.h"

#define XSUM_FRAC_BITS DSANA_XSUM_FRAC_BITS

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
