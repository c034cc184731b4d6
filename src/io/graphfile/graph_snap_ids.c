/*
 * graph_snap_ids.c - the SNAP reader's id remap: original ids (any uint64)
 * to 0..n-1 in ascending order, with orig_id keeping the originals. A dense
 * rank table when ids are dense enough, else a radix sort of all ids and a
 * binary search per endpoint.
 */
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"
#include "util/numeric/sorted.h"

/* LSD radix sort of a[0..len) by 16-bit digits, up to the bits of max;
 * 8-bit digits for short arrays, where clearing and scanning 65536 counts
 * (512 KiB) per pass would cost more than the sort. */
static bool radix_sort_u64(uint64_t *a, size_t len, uint64_t max) {
  unsigned bits = len < 65536 ? 8 : 16;
  size_t buckets = (size_t)1 << bits, mask = buckets - 1;
  uint64_t *tmp = malloc((len ? len : 1) * sizeof *tmp);
  size_t *cnt = malloc(buckets * sizeof *cnt);
  if (!tmp || !cnt) {
    free(tmp);
    free(cnt);
    return false;
  }
  uint64_t *from = a, *to = tmp;
  for (unsigned shift = 0; shift < 64 && (max >> shift); shift += bits) {
    memset(cnt, 0, buckets * sizeof *cnt);
    for (size_t i = 0; i < len; i++)
      cnt[(from[i] >> shift) & mask]++;
    size_t s = 0;
    for (size_t d = 0; d < buckets; d++) {
      size_t c = cnt[d];
      cnt[d] = s;
      s += c;
    }
    for (size_t i = 0; i < len; i++)
      to[cnt[(from[i] >> shift) & mask]++] = from[i];
    uint64_t *sw = from;
    from = to;
    to = sw;
  }
  if (from != a)
    memcpy(a, from, len * sizeof *a);
  free(tmp);
  free(cnt);
  return true;
}

/* Distinct sorted ids of both endpoint arrays -> *ids, *n. */
static int distinct_ids(const struct graph_ids *in, uint64_t **ids, uint64_t *n) {
  size_t m = in->m, k = 0;
  uint64_t *all = malloc(2 * m * sizeof *all);
  if (!all)
    return DSANA_ENOMEM;
  memcpy(all, in->src, m * sizeof *all);
  memcpy(all + m, in->dst, m * sizeof *all);
  if (!radix_sort_u64(all, 2 * m, in->max_id)) {
    free(all);
    return DSANA_ENOMEM;
  }
  for (size_t i = 0; i < 2 * m; i++)
    if (i == 0 || all[i] != all[k - 1])
      all[k++] = all[i];
  uint64_t *shrunk = realloc(all, k * sizeof *all);
  *ids = shrunk ? shrunk : all;
  *n = k;
  return 0;
}

/* The index of x, which is one of the n distinct ascending ids. */
static inline uint32_t rank_of(const uint64_t *ids, uint64_t n, uint64_t x) {
  return (uint32_t)sorted_lower_bound_u64(ids, n, x);
}

int graph_remap_ids(const struct graph_ids *in, uint32_t *src32, uint32_t *dst32, uint64_t **orig, uint64_t *n) {
  size_t m = in->m;
  if (in->max_id < (uint64_t)UINT32_MAX && in->max_id / 4 <= m) {
    /* Dense enough: a rank table indexed by original id. */
    uint64_t span = in->max_id + 1, k = 0;
    uint32_t *rank = calloc(span, sizeof *rank);
    if (!rank)
      return DSANA_ENOMEM;
    for (size_t i = 0; i < m; i++)
      rank[in->src[i]] = rank[in->dst[i]] = 1;
    for (uint64_t x = 0; x < span; x++)
      k += rank[x];
    uint64_t *ids = malloc(k * sizeof *ids);
    if (!ids) {
      free(rank);
      return DSANA_ENOMEM;
    }
    k = 0;
    for (uint64_t x = 0; x < span; x++)
      if (rank[x]) {
        ids[k] = x;
        rank[x] = (uint32_t)k++;
      }
    for (size_t i = 0; i < m; i++) {
      src32[i] = rank[in->src[i]];
      dst32[i] = rank[in->dst[i]];
    }
    free(rank);
    *orig = ids;
    *n = k;
    return 0;
  }
  uint64_t *ids, k;
  int rc = distinct_ids(in, &ids, &k);
  if (rc)
    return rc;
  if (k > GRAPH_MAX_VERTICES) {
    free(ids);
    return DSANA_ERANGE;
  }
  for (size_t i = 0; i < m; i++) {
    src32[i] = rank_of(ids, k, in->src[i]);
    dst32[i] = rank_of(ids, k, in->dst[i]);
  }
  *orig = ids;
  *n = k;
  return 0;
}
