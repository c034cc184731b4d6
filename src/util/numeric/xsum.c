/*
 * xsum.c - exact fixed-point sums (see dsana_xsum in dsana/xsum.h).
 *
 * Each addend is scaled by 2^80 and truncated toward zero to an integer,
 * read straight from its IEEE-754 bits, and added to a 192-bit two's-
 * complement integer (hi:lo); integer addition modulo 2^192 is
 * associative, so any partition of the addends gives the same total, and
 * a total within the range is exact even when partial sums wrapped.
 * dsana_xsum_add() is inline in dsana/xsum.h (apps call it once per key in
 * their hot loops); this file has its general path.
 */
#include <math.h>
#include <string.h>

#include "dsana/xsum.h"

#define XSUM_FRAC_BITS DSANA_XSUM_FRAC_BITS
#define XSUM_MAX_SHIFT (90 + XSUM_FRAC_BITS - 53) /* an addend below 2^90 */

/* (hi:lo) += sign * (mhi:mlo), modulo 2^192. */
static void add192(dsana_xsum *s, bool neg, uint64_t mhi, unsigned __int128 mlo) {
  if (neg) { /* two's complement of the 192-bit magnitude */
    mhi = ~mhi + (mlo == 0);
    mlo = ~mlo + 1;
  }
  unsigned __int128 old = s->lo;
  s->lo += mlo;
  s->hi += mhi + (s->lo < old);
}

void dsana_xsum_add_bits(dsana_xsum *s, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int exp = (int)((bits >> 52) & 0x7ff);
  uint64_t mant = bits & ((1ull << 52) - 1);
  if (exp == 0x7ff) { /* inf or NaN */
    s->flags |= DSANA_XSUM_INVALID;
    return;
  }
  if (exp == 0)
    exp = 1; /* subnormal */
  else
    mant |= 1ull << 52;
  /* x = mant * 2^(exp - 1075); scaled by 2^80: mant * 2^(exp - 995). */
  int shift = exp - 1075 + XSUM_FRAC_BITS;
  if (shift > XSUM_MAX_SHIFT) {
    s->flags |= DSANA_XSUM_INVALID;
    return;
  }
  bool neg = (bits >> 63) != 0;
  if (shift >= 0 && shift <= 74) { /* |x| < 2^47, the usual case: the magnitude fits in lo */
    unsigned __int128 m = (unsigned __int128)mant << shift, old = s->lo;
    if (neg) {
      s->lo -= m;
      s->hi -= s->lo > old;
    } else {
      s->lo += m;
      s->hi += s->lo < old;
    }
    return;
  }
  uint64_t mhi = 0;
  unsigned __int128 mlo;
  if (shift >= 0) {
    mlo = (unsigned __int128)mant << shift; /* shift <= 117: the bits past 128 go to mhi */
    mhi = shift > 75 ? (uint64_t)(mant >> (128 - shift)) : 0;
  } else {
    mlo = shift > -64 ? mant >> -shift : 0;
  }
  add192(s, neg, mhi, mlo);
}

void dsana_xsum_merge(dsana_xsum *into, const dsana_xsum *from) {
  unsigned __int128 old = into->lo;
  into->lo += from->lo;
  into->hi += from->hi + (into->lo < old);
  into->flags |= from->flags;
}

double dsana_xsum_value(const dsana_xsum *s) {
  if (s->flags & DSANA_XSUM_INVALID)
    return NAN;
  bool neg = s->hi >> 63;
  uint64_t hi = s->hi;
  unsigned __int128 u = s->lo;
  if (neg) {
    hi = ~hi + (u == 0);
    u = ~u + 1;
  }
  double top = (double)(uint64_t)(u >> 64);
  double low = (double)(uint64_t)u;
  double v = ldexp(top, 64 - XSUM_FRAC_BITS) + ldexp(low, -XSUM_FRAC_BITS);
  if (hi) /* beyond 2^48: the third word first, the rounding the same for the same total */
    v = ldexp((double)hi, 128 - XSUM_FRAC_BITS) + v;
  return neg ? -v : v;
}
