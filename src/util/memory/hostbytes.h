/*
 * hostbytes.h - fixed-width fields at byte offsets of a header, in the
 * host's byte order (the binary graph and dataset formats are little-
 * endian files read by little-endian hosts: their readers check it). memcpy
 * keeps unaligned offsets defined.
 */
#ifndef DSANA_UTIL_HOSTBYTES_H
#define DSANA_UTIL_HOSTBYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void hb_put_u32(unsigned char *h, size_t at, uint32_t v) { memcpy(h + at, &v, 4); }
static inline void hb_put_u64(unsigned char *h, size_t at, uint64_t v) { memcpy(h + at, &v, 8); }

static inline uint32_t hb_get_u32(const unsigned char *h, size_t at) {
  uint32_t v;
  memcpy(&v, h + at, 4);
  return v;
}

static inline uint64_t hb_get_u64(const unsigned char *h, size_t at) {
  uint64_t v;
  memcpy(&v, h + at, 8);
  return v;
}

#endif
