/*
 * graph_binary_check.c - what a mapped binary graph must be before anyone
 * reads it: the body checks graph_binary_map.c runs once per file and
 * process (each section's CRC32, then what the writer guarantees across
 * sections, in one pass over the edges), and the range check the public
 * API offers for any graph (dsana_graph_check_range).
 *
 * A corrupt section that stays in range would otherwise change results
 * silently: a zeroed out-degree changes ranks, a repeated original id
 * prints a vertex twice. Cost: the CRC32 of the file (zlib, several GB/s)
 * and, fused with in_src's, one sequential pass over the edges and one over
 * the vertices; no allocation unless original ids come out of order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <zlib.h>

#include "dsana/error.h"
#include "io/graphfile/graphfile_internal.h"
#include "util/memory/hostbytes.h"

static const char *const SECTION_NAME[GRAPH_BIN_SECTIONS] = {"in_off", "in_src", "out_deg", "orig_id", "in_w", "out_w"};

enum { SRC_SECTION = 1, CRC_BLOCK = 16384 }; /* edges per CRC32 step: 64 KiB, within L2 */

static int crc_err(const char *path, const unsigned char *h, unsigned s, char *err, size_t errlen) {
  return io_errf(err, errlen, DSANA_EFORMAT,
                 "%s: offset %llu: %s section checksum mismatch (a corrupt file; convert it again)", path,
                 (unsigned long long)hb_get_u64(h, GRAPH_BIN_AT_SECTIONS + 16 * (size_t)s), SECTION_NAME[s]);
}

static uint32_t stored_crc(const unsigned char *h, unsigned s) {
  return hb_get_u32(h, GRAPH_BIN_AT_SECTION_CRC + 4 * (size_t)s);
}

/* Each section's CRC32 against the header's, but in_src's (check_edges
 * computes it as it reads the sources, one pass over the biggest section). */
static int check_crcs(const char *path, const unsigned char *h, char *err, size_t errlen) {
  for (unsigned s = 0; s < GRAPH_BIN_SECTIONS; s++) {
    uint64_t off = hb_get_u64(h, GRAPH_BIN_AT_SECTIONS + 16 * (size_t)s);
    uint64_t len = hb_get_u64(h, GRAPH_BIN_AT_SECTIONS + 8 + 16 * (size_t)s);
    if (s != SRC_SECTION && (uint32_t)crc32_z(0L, h + off, (z_size_t)len) != stored_crc(h, s))
      return crc_err(path, h, s, err, errlen);
  }
  return 0;
}

/* The pass over the edges: a keyed hash of the sources, in_src's CRC32 so far. */
struct edge_pass {
  uint64_t key, src_sum; /* the sum of source_hash(key, u) over the edges' sources u */
  uint32_t crc;
  uint64_t crc_upto; /* edges [0, crc_upto) in crc */
  bool strict;       /* no duplicates: sources strictly ascending */
};

/* A 64-bit mix of vertex u under key (the finalizer of MurmurHash3):
 * out-degrees agree with the sources when the sum of source_hash over the
 * edges' sources equals the sum of out_deg[u] * source_hash(u), a sequential
 * pass (counting per source instead, scattered over an n-sized array, cost
 * twice as much as the rest of the check). Unequal degrees give equal sums
 * with probability about 2^-64, for a key the file cannot know. */
static inline uint64_t source_hash(uint64_t key, uint64_t u) {
  uint64_t x = u ^ key;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

/* Extend the CRC32 of in_src and the sum of its sources' hashes over
 * edges below k, a block at a time, so each block is read from memory once. */
static void crc_sources_to(const struct dsana_graph *g, struct edge_pass *p, uint64_t k) {
  while (p->crc_upto < k) {
    uint64_t len = g->m - p->crc_upto < CRC_BLOCK ? g->m - p->crc_upto : CRC_BLOCK;
    const uint32_t *src = g->in_src + p->crc_upto;
    p->crc = (uint32_t)crc32_z(p->crc, (const unsigned char *)src, (z_size_t)(len * 4));
    for (uint64_t i = 0; i < len; i++)
      p->src_sum += source_hash(p->key, src[i]);
    p->crc_upto += len;
  }
}

/* The sources of destination v: below n, ascending (strictly when the file
 * promises no duplicates); each counted. */
static int check_sources(const char *path, const struct dsana_graph *g, uint64_t v, struct edge_pass *p, char *err,
                         size_t errlen) {
  for (uint64_t k = g->in_off[v]; k < g->in_off[v + 1]; k++) {
    uint32_t u = g->in_src[k];
    if (u >= g->n)
      return io_errf(err, errlen, DSANA_EFORMAT, "%s: in_src[%llu] = %u: not below n = %llu", path,
                     (unsigned long long)k, u, (unsigned long long)g->n);
    if (k > g->in_off[v] && (u < g->in_src[k - 1] || (p->strict && u == g->in_src[k - 1])))
      return io_errf(err, errlen, DSANA_EFORMAT, "%s: in_src[%llu] = %u after %u: sources of vertex %llu not %s", path,
                     (unsigned long long)k, u, g->in_src[k - 1], (unsigned long long)v,
                     p->strict ? "strictly ascending (the header says no duplicates)" : "ascending");
  }
  return 0;
}

/* Offsets monotone from 0 to m, sources (check_sources) and in_src's
 * CRC32; a damaged in_src is named as such rather than by the first
 * invariant it breaks. */
static int check_edges(const char *path, const unsigned char *h, const struct dsana_graph *g, struct edge_pass *p,
                       char *err, size_t errlen) {
  if (g->in_off[0] != 0 || g->in_off[g->n] != g->m)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: in_off[0] = %llu, in_off[n] = %llu, expected 0 and %llu", path,
                   (unsigned long long)g->in_off[0], (unsigned long long)g->in_off[g->n], (unsigned long long)g->m);
  int rc = 0;
  for (uint64_t v = 0; v < g->n && !rc; v++) {
    if (g->in_off[v + 1] < g->in_off[v] || g->in_off[v + 1] > g->m)
      return io_errf(err, errlen, DSANA_EFORMAT, "%s: in_off[%llu..%llu] = %llu..%llu: not monotone within %llu", path,
                     (unsigned long long)v, (unsigned long long)v + 1, (unsigned long long)g->in_off[v],
                     (unsigned long long)g->in_off[v + 1], (unsigned long long)g->m);
    crc_sources_to(g, p, g->in_off[v + 1]);
    rc = check_sources(path, g, v, p, err, errlen);
  }
  crc_sources_to(g, p, g->m);
  return p->crc != stored_crc(h, SRC_SECTION) ? crc_err(path, h, SRC_SECTION, err, errlen) : rc;
}

/* The first vertex whose out_deg differs from its edges counted (the
 * sums disagreed), named; an error all the same if none does. */
static int find_degree(const char *path, const struct dsana_graph *g, char *err, size_t errlen) {
  uint64_t *cnt = calloc(g->n ? g->n : 1, sizeof *cnt);
  if (!cnt)
    return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory checking out-degrees", path);
  for (uint64_t k = 0; k < g->m; k++)
    cnt[g->in_src[k]]++;
  uint64_t u = 0;
  while (u < g->n && cnt[u] == g->out_deg[u])
    u++;
  int rc = u < g->n
               ? io_errf(err, errlen, DSANA_EFORMAT, "%s: out_deg[%llu] = %u, but %llu edges leave vertex %llu", path,
                         (unsigned long long)u, g->out_deg[u], (unsigned long long)cnt[u], (unsigned long long)u)
               : io_errf(err, errlen, DSANA_EFORMAT, "%s: out_deg: out-degrees do not match the edges", path);
  free(cnt);
  return rc;
}

/* out_deg[u] equal to the edges leaving u: their sum is m and their keyed
 * hash sum is the sources' (source_hash). */
static int check_degrees(const char *path, const struct dsana_graph *g, const struct edge_pass *p, char *err,
                         size_t errlen) {
  uint64_t sum = 0, hash_sum = 0;
  for (uint64_t u = 0; u < g->n; u++) {
    sum += g->out_deg[u];
    hash_sum += g->out_deg[u] * source_hash(p->key, u);
  }
  return sum != g->m || hash_sum != p->src_sum ? find_degree(path, g, err, errlen) : 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int dup_id_err(const char *path, uint64_t id, char *err, size_t errlen) {
  return io_errf(err, errlen, DSANA_EFORMAT, "%s: orig_id: original id %llu given to two vertices", path,
                 (unsigned long long)id);
}

/* Original ids in no order (a reordered graph): distinct, by a bitmap over
 * [min, max] when that is no bigger than the section, else by sorting. */
static int check_ids_unordered(const char *path, const uint64_t *id, uint64_t n, char *err, size_t errlen) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint64_t v = 0; v < n; v++) {
    lo = id[v] < lo ? id[v] : lo;
    hi = id[v] > hi ? id[v] : hi;
  }
  bool bitmap = (hi - lo) / 64 < n;
  uint64_t *a = bitmap ? calloc((hi - lo) / 64 + 1, 8) : malloc(n * 8);
  if (!a)
    return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory checking original ids", path);
  uint64_t dup = 0;
  bool found = false;
  if (bitmap) {
    for (uint64_t v = 0; v < n && !found; v++) {
      uint64_t b = id[v] - lo, bit = (uint64_t)1 << (b % 64);
      found = a[b / 64] & bit;
      dup = id[v];
      a[b / 64] |= bit;
    }
  } else {
    memcpy(a, id, n * 8);
    qsort(a, n, 8, cmp_u64);
    for (uint64_t v = 1; v < n && !found; v++)
      found = a[v] == a[v - 1], dup = a[v];
  }
  free(a);
  return found ? dup_id_err(path, dup, err, errlen) : 0;
}

/* Original ids distinct: one pass when ascending (every reader writes them
 * so), check_ids_unordered otherwise. */
static int check_orig_ids(const char *path, const struct dsana_graph *g, char *err, size_t errlen) {
  if (!g->orig_id)
    return 0;
  for (uint64_t v = 1; v < g->n; v++)
    if (g->orig_id[v] <= g->orig_id[v - 1])
      return g->orig_id[v] == g->orig_id[v - 1] ? dup_id_err(path, g->orig_id[v], err, errlen)
                                                : check_ids_unordered(path, g->orig_id, g->n, err, errlen);
  return 0;
}

/* Weights of destinations [lo, hi): in_w positive finite, out_w consistent. */
static int check_weights(const struct dsana_graph *g, uint64_t lo, uint64_t hi, char *err, size_t errlen) {
  for (uint64_t k = g->in_off[lo]; k < g->in_off[hi]; k++)
    if (!graph_weight_ok(g->in_w[k]))
      return io_errf(err, errlen, DSANA_EFORMAT, "in_w[%llu] = %g: not a " GRAPH_WEIGHT_RANGE, (unsigned long long)k,
                     g->in_w[k]);
  for (uint64_t v = lo; v < hi; v++) {
    double s = g->out_w[v];
    if (!(isfinite(s) && s >= 0.0) || (s > 0.0) != (g->out_deg[v] > 0))
      return io_errf(err, errlen, DSANA_EFORMAT, "out_w[%llu] = %g with out-degree %u: not a sum of positive weights",
                     (unsigned long long)v, s, g->out_deg[v]);
  }
  return 0;
}

/* A key for source_hash, new per check (fixed if the kernel gives none). */
static uint64_t hash_key(void) {
  uint64_t key = 0x9e3779b97f4a7c15ull;
  if (getrandom(&key, sizeof key, GRND_NONBLOCK) != (ssize_t)sizeof key)
    key = 0x9e3779b97f4a7c15ull;
  return key;
}

int graph_bin_check_body(const char *path, const unsigned char *h, const struct dsana_graph *g, char *err,
                         size_t errlen) {
  int rc = check_crcs(path, h, err, errlen);
  if (rc)
    return rc;
  struct edge_pass p = {.key = hash_key(), .strict = hb_get_u64(h, 32) & GRAPH_BIN_NO_DUPLICATES};
  rc = check_edges(path, h, g, &p, err, errlen);
  if (!rc)
    rc = check_degrees(path, g, &p, err, errlen);
  if (!rc)
    rc = check_orig_ids(path, g, err, errlen);
  if (!rc && g->in_w) {
    char why[160];
    if ((rc = check_weights(g, 0, g->n, why, sizeof why)) != 0)
      io_errf(err, errlen, rc, "%s: %s", path, why);
  }
  return rc;
}

int dsana_graph_check_range(const struct dsana_graph *g, uint64_t lo, uint64_t hi, char *err, size_t errlen) {
  if (lo > hi || hi > g->n)
    return io_errf(err, errlen, DSANA_ERANGE, "destination range [%llu, %llu) outside [0, %llu)",
                   (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)g->n);
  if (g->priv_map)
    return 0; /* a mapped file: graph_bin_check_body passed before it was handed out */
  for (uint64_t v = lo; v < hi; v++) {
    uint64_t a = g->in_off[v], b = g->in_off[v + 1];
    if (a > b || b > g->m)
      return io_errf(err, errlen, DSANA_EFORMAT, "in_off[%llu..%llu] = %llu..%llu: not monotone within %llu edges",
                     (unsigned long long)v, (unsigned long long)v + 1, (unsigned long long)a, (unsigned long long)b,
                     (unsigned long long)g->m);
    for (uint64_t k = a; k < b; k++)
      if (g->in_src[k] >= g->n)
        return io_errf(err, errlen, DSANA_EFORMAT, "in_src[%llu] = %u: not below n = %llu", (unsigned long long)k,
                       g->in_src[k], (unsigned long long)g->n);
  }
  return g->in_w && g->out_w && lo < hi ? check_weights(g, lo, hi, err, errlen) : 0;
}
