/*
 * xsum.c - exact fixed-point sums (see dsana_xsum in dsana.h).
 *
 * Each addend is scaled by 2^80 and truncated toward zero to an integer,
 * read straight from its IEEE-754 bits; integer addition is associative, so
 * any partition of the addends gives the same total. dsana_xsum_add() is
 * inline in dsana.h (apps call it once per key in their hot loops); this
 * file has its general path.
 */
#include <math.h>
#include <string.h>

#include "dsana/dsana.h"

#define XSUM_FRAC_BITS DSANA_XSUM_FRAC_BITS

void dsana_xsum_add_bits(dsana_xsum *s, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int exp = (int)((bits >> 52) & 0x7ff);
  uint64_t mant = bits & ((1ull << 52) - 1);
  if (exp == 0x7ff)
    return; /* inf/nan: outside the contract, ignored */
  if (exp == 0)
    exp = 1; /* subnormal */
  else
    mant |= 1ull << 52;
  /* x = mant * 2^(exp - 1075); scaled by 2^80: mant * 2^(exp - 995). */
  int shift = exp - 1075 + XSUM_FRAC_BITS;
  __int128 v;
  if (shift >= 0)
    v = shift <= 74 ? (__int128)mant << shift : 0; /* beyond 2^47: outside the contract */
  else
    v = shift > -64 ? (__int128)(mant >> -shift) : 0;
  s->acc += (bits >> 63) ? -v : v;
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
