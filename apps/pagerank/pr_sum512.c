/*
 * pr_sum512.c - PageRank's exact range sums (pr_sum.h) in AVX-512: the
 * bits of pr_lanes_sum, which are those of dsana_xsum_add on every addend,
 * 8 addends at a time.
 *
 * An addend x in [0, 2^-1) is scaled by 2^80 (exactly: a power of two) to
 * y < 2^79 and cut into two integers below 2^40, y = h 2^40 + l with
 * h = floor(y 2^-40) and l = y - h 2^40 (both exact: l is a multiple of
 * y's ulp below 2^40), l truncated toward zero as the xsum's grid does;
 * h and l go into 64-bit lanes, which take 2^24 such parts before one
 * could overflow and are emptied into the 192-bit total every 2^20
 * vectors. Integer sums do not depend on their order, so the total is
 * the scalar loop's. Any other addend (negative, 2^-1 or more, not
 * finite) goes to dsana_xsum_add alone, as pr_sum.h does.
 *
 * Any thread.
 */
#include "apps/common/cpu.h"
#include "pr_sum.h"

bool pr_sum_vector(void) { return app_cpu_level() >= APP_CPU_AVX512; }

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw")))
#define AVX512_INLINE __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw"), always_inline)) static inline

#define PR_FLUSH_VECTORS (1u << 20) /* vectors between emptying the lanes */

/* The addends v..v+7 (lanes outside k: +0). */
AVX512_INLINE __m512d addend8(enum pr_addend_kind kind, const double *a, const void *b, uint64_t v, __mmask8 k) {
  if (kind == PR_ADDEND_DANGLING) {
    __m256i d = _mm256_maskz_loadu_epi32(k, (const uint32_t *)b + v);
    return _mm512_maskz_loadu_pd(_mm256_mask_cmpeq_epi32_mask(k, d, _mm256_setzero_si256()), a + v);
  }
  __m512d x = _mm512_maskz_loadu_pd(k, a + v);
  if (kind == PR_ADDEND_CHANGE)
    x = _mm512_abs_pd(_mm512_sub_pd(x, _mm512_maskz_loadu_pd(k, (const double *)b + v)));
  return x;
}

/* The lanes' parts into *t: sum of h 2^40 + l over the lanes. */
AVX512_INLINE void empty_lanes(__m512i *h, __m512i *l, dsana_xsum *t) {
  uint64_t hs[8], ls[8];
  _mm512_storeu_si512(hs, *h);
  _mm512_storeu_si512(ls, *l);
  for (int i = 0; i < 8; i++) {
    unsigned __int128 old = t->lo;
    t->lo += ((unsigned __int128)hs[i] << 40) + ls[i];
    t->hi += t->lo < old;
  }
  *h = *l = _mm512_setzero_si512();
}

AVX512_INLINE dsana_xsum sum8(enum pr_addend_kind kind, const double *a, const void *b, uint64_t lo, uint64_t hi) {
  const __m512d scale = _mm512_set1_pd(0x1p80), lim = _mm512_set1_pd(0x1p79), zero = _mm512_setzero_pd();
  const __m512d down = _mm512_set1_pd(0x1p-40), up = _mm512_set1_pd(0x1p40);
  dsana_xsum t = {0};
  __m512i h_acc = _mm512_setzero_si512(), l_acc = _mm512_setzero_si512();
  uint32_t since = 0;
  for (uint64_t v = lo; v < hi; v += 8) {
    __mmask8 k = hi - v >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (hi - v)) - 1);
    __m512d x = addend8(kind, a, b, v, k), y = _mm512_mul_pd(x, scale);
    __mmask8 in = _mm512_cmp_pd_mask(y, zero, _CMP_GE_OQ) & _mm512_cmp_pd_mask(y, lim, _CMP_LT_OQ);
    if (__builtin_expect(in != 0xff, 0)) { /* lanes outside k are +0: in */
      double xs[8];
      _mm512_storeu_pd(xs, x);
      for (int i = 0; i < 8; i++)
        if (!(in >> i & 1))
          pr_sum_rest(&t, xs[i]);
      y = _mm512_maskz_mov_pd(in, y);
    }
    __m512d h = _mm512_roundscale_pd(_mm512_mul_pd(y, down), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    h_acc = _mm512_add_epi64(h_acc, _mm512_cvttpd_epu64(h));
    l_acc = _mm512_add_epi64(l_acc, _mm512_cvttpd_epu64(_mm512_fnmadd_pd(h, up, y)));
    if (++since == PR_FLUSH_VECTORS) {
      empty_lanes(&h_acc, &l_acc, &t);
      since = 0;
    }
  }
  empty_lanes(&h_acc, &l_acc, &t);
  return t;
}

AVX512 dsana_xsum pr_sum_avx512(enum pr_addend_kind kind, const double *a, const void *b, uint64_t lo, uint64_t hi) {
  if (kind == PR_ADDEND_DANGLING)
    return sum8(PR_ADDEND_DANGLING, a, b, lo, hi);
  if (kind == PR_ADDEND_CHANGE)
    return sum8(PR_ADDEND_CHANGE, a, b, lo, hi);
  return sum8(PR_ADDEND_VALUE, a, b, lo, hi);
}
#else /* no AVX-512: pr_sum_vector() is false, this is never called */
dsana_xsum pr_sum_avx512(enum pr_addend_kind kind, const double *a, const void *b, uint64_t lo, uint64_t hi) {
  (void)kind, (void)a, (void)b, (void)lo, (void)hi;
  return (dsana_xsum){0};
}
#endif
