/* keymask.c - see keymask.h. Walks a word of the bitmap at a time. */
#include "runtime/core/keymask.h"

#include <string.h>

/* Bits of word w that are read keys inside [lo, hi). */
static uint64_t read_bits(const uint64_t *unread, uint64_t w, uint64_t lo, uint64_t hi) {
  uint64_t bits = ~unread[w];
  uint64_t first = w * 64;
  if (lo > first)
    bits &= ~0ull << (lo - first);
  if (hi < first + 64)
    bits &= (1ull << (hi - first)) - 1;
  return bits;
}

uint64_t keymask_count(const uint64_t *unread, uint64_t lo, uint64_t hi) {
  if (!unread)
    return hi > lo ? hi - lo : 0;
  uint64_t n = 0;
  for (uint64_t w = lo / 64; lo < hi && w <= (hi - 1) / 64; w++)
    n += (uint64_t)__builtin_popcountll(read_bits(unread, w, lo, hi));
  return n;
}

uint64_t keymask_pack(const uint64_t *unread, const double *src, uint64_t lo, uint64_t hi, double *dst) {
  if (!unread) {
    if (hi > lo)
      memcpy(dst, src + lo, (hi - lo) * sizeof *dst);
    return hi > lo ? hi - lo : 0;
  }
  uint64_t n = 0;
  for (uint64_t w = lo / 64; lo < hi && w <= (hi - 1) / 64; w++)
    for (uint64_t bits = read_bits(unread, w, lo, hi); bits; bits &= bits - 1)
      dst[n++] = src[w * 64 + (uint64_t)__builtin_ctzll(bits)];
  return n;
}

uint64_t keymask_pack_wide(const uint64_t *unread, const double *src, uint32_t width, uint64_t lo, uint64_t hi,
                           double *dst) {
  if (width == 1)
    return keymask_pack(unread, src, lo, hi, dst);
  uint64_t n = 0;
  for (uint64_t k = lo; k < hi; k++)
    if (keymask_read(unread, k))
      memcpy(dst + n++ * width, src + k * width, width * sizeof *dst);
  return n;
}

void keymask_unpack(const uint64_t *unread, const double *src, uint64_t lo, uint64_t hi, double *dst) {
  if (!unread) {
    if (hi > lo)
      memcpy(dst + lo, src, (hi - lo) * sizeof *dst);
    return;
  }
  uint64_t n = 0;
  for (uint64_t w = lo / 64; lo < hi && w <= (hi - 1) / 64; w++)
    for (uint64_t bits = read_bits(unread, w, lo, hi); bits; bits &= bits - 1)
      dst[w * 64 + (uint64_t)__builtin_ctzll(bits)] = src[n++];
}
