/*
 * graph_gen.c - synthetic graphs: Graph500 Kronecker (R-MAT with initiator
 * A=0.57 B=0.19 C=0.19 D=0.05, then a vertex-id permutation) and uniform.
 *
 * Randomness is counter-based: word k of edge e is splitmix64's output for
 * stream position e*W + k under a seed-derived key (W bounds the words an
 * edge uses); four Kronecker levels come from one 32-bit alias-table
 * draw. So any edge can be made on its own and the result never depends on
 * how edges are split among the (two) threads. The permutation is a seed-keyed bijection on scale-bit
 * integers (add, odd multiply, xorshift rounds): no table, no random access.
 * Weights (opts->weighted) come from their own stream, one word per edge:
 * (53 random bits + 1) * 2^-53, uniform in (0, 1]. Undirected and dedup
 * are the builder's (graph_build.c), after generation.
 */
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/graph/graph_internal.h"
#include "util/numeric/splitmix.h"

struct gen {
  uint64_t key, n, m;
  unsigned scale, words; /* kron: levels, 64-bit words per edge */
  uint64_t mask, k0, k1, m1, m2;
  unsigned h;
  uint32_t *src, *dst;
  double *w;     /* weights, or NULL */
  uint64_t wkey; /* key of the weight stream */
};

static inline uint32_t permute(const struct gen *q, uint64_t x) {
  x = (x + q->k0) & q->mask;
  x = (x * q->m1) & q->mask;
  x ^= x >> q->h;
  x = (x * q->m2) & q->mask;
  x ^= x >> q->h;
  x = (x + q->k1) & q->mask;
  return (uint32_t)x;
}

/* Thresholds of the initiator on a 16-bit uniform: A, A+B, A+B+C. */
enum { KRON_TA = 37356, KRON_TAB = 49807, KRON_TABC = 62259 };

/*
 * Four levels at once: the 256 cells of the 4-fold Kronecker power of the
 * initiator, sampled with Walker's alias method from 32 random bits (8 pick
 * a slot, 24 decide between the slot's cell and its alias). Each cell is
 * stored as its 4 source bits and 4 destination bits.
 */
struct kron_alias {
  uint32_t thresh[256];
  uint8_t cell[512]; /* [slot] the slot's cell, [256 + slot] its alias */
};

static uint8_t cell_bits(unsigned c) {
  unsigned s = 0, d = 0;
  for (int j = 3; j >= 0; j--) {
    unsigned q = (c >> (2 * j)) & 3; /* 0 A (0,0), 1 B (0,1), 2 C (1,0), 3 D (1,1) */
    s = (s << 1) | (q >> 1);
    d = (d << 1) | (q & 1);
  }
  return (uint8_t)((s << 4) | d);
}

static void kron_alias_init(struct kron_alias *t) {
  static const double P[4] = {0.57, 0.19, 0.19, 0.05};
  double p[256];
  unsigned small[256], large[256], ns = 0, nl = 0;
  for (unsigned c = 0; c < 256; c++) {
    p[c] = 256.0 * P[(c >> 6) & 3] * P[(c >> 4) & 3] * P[(c >> 2) & 3] * P[c & 3];
    t->cell[c] = t->cell[256 + c] = cell_bits(c);
    t->thresh[c] = 1u << 24;
    if (p[c] < 1.0)
      small[ns++] = c;
    else
      large[nl++] = c;
  }
  while (ns && nl) {
    unsigned a = small[--ns], b = large[nl - 1];
    t->thresh[a] = (uint32_t)(p[a] * (double)(1u << 24) + 0.5);
    t->cell[256 + a] = cell_bits(b);
    p[b] -= 1.0 - p[a];
    if (p[b] < 1.0) {
      nl--;
      small[ns++] = b;
    }
  }
}

static void kron_part(void *arg, unsigned t, unsigned nt) {
  struct gen *q = arg;
  struct kron_alias tab;
  uint64_t lo = q->m * t / nt, hi = q->m * (t + 1) / nt;
  unsigned groups = q->scale / 4, rest = q->scale % 4;
  kron_alias_init(&tab);
  for (uint64_t e = lo; e < hi; e++) {
    uint64_t s = 0, d = 0, w = 0, idx = e * q->words;
    unsigned bits = 0;
    for (unsigned k = 0; k < groups; k++) {
      if (bits < 32) {
        w = splitmix64_at(q->key, idx++);
        bits = 64;
      }
      uint32_t r = (uint32_t)w;
      w >>= 32;
      bits -= 32;
      unsigned slot = r >> 24;
      /* index arithmetic, not a branch: the choice is a coin flip */
      unsigned c = tab.cell[slot | (unsigned)((r & 0xffffff) >= tab.thresh[slot]) << 8];
      s = (s << 4) | (c >> 4);
      d = (d << 4) | (c & 15);
    }
    for (unsigned k = 0; k < rest; k++) {
      if (bits < 16) {
        w = splitmix64_at(q->key, idx++);
        bits = 64;
      }
      unsigned u = (unsigned)(w & 0xffff);
      w >>= 16;
      bits -= 16;
      unsigned row = u >= KRON_TAB;
      unsigned col = (u >= KRON_TA) ^ (u >= KRON_TAB) ^ (u >= KRON_TABC);
      s = (s << 1) | row;
      d = (d << 1) | col;
    }
    q->src[e] = permute(q, s);
    q->dst[e] = permute(q, d);
  }
}

static void uniform_part(void *arg, unsigned t, unsigned nt) {
  struct gen *q = arg;
  uint64_t lo = q->m * t / nt, hi = q->m * (t + 1) / nt;
  for (uint64_t e = lo; e < hi; e++) {
    unsigned __int128 a = (unsigned __int128)splitmix64_at(q->key, 2 * e) * q->n;
    unsigned __int128 b = (unsigned __int128)splitmix64_at(q->key, 2 * e + 1) * q->n;
    q->src[e] = (uint32_t)(a >> 64);
    q->dst[e] = (uint32_t)(b >> 64);
  }
}

/* Edge e's weight: uniform in (0, 1], a multiple of 2^-53. */
static inline double weight_at(const struct gen *q, uint64_t e) {
  return (double)((splitmix64_at(q->wkey, e) >> 11) + 1) * 0x1p-53;
}

static void weight_part(void *arg, unsigned t, unsigned nt) {
  struct gen *q = arg;
  for (uint64_t e = q->m * t / nt, hi = q->m * (t + 1) / nt; e < hi; e++)
    q->w[e] = weight_at(q, e);
}

static int run(struct gen *q, void (*part)(void *, unsigned, unsigned), const struct dsana_graph_opts *opts,
               struct dsana_graph *g, char *err, size_t errlen) {
  bool weighted = opts && opts->weighted;
  unsigned nt = q->m >= (1u << 16) ? graph_threads() : 1;
  q->src = graph_big_alloc(q->m * sizeof *q->src);
  q->dst = graph_big_alloc(q->m * sizeof *q->dst);
  q->w = weighted ? graph_big_alloc(q->m * sizeof *q->w) : NULL;
  if (!q->src || !q->dst || (weighted && !q->w)) {
    free(q->src);
    free(q->dst);
    free(q->w);
    return io_errf(err, errlen, DSANA_ENOMEM, "out of memory for %llu generated edges", (unsigned long long)q->m);
  }
  graph_parallel(part, q, nt);
  if (weighted) {
    q->wkey = splitmix64_mix(q->key ^ 0x7765696768747300ull);
    graph_parallel(weight_part, q, nt);
  }
  struct graph_edges e = {.n = q->n,
                          .m = q->m,
                          .src = q->src,
                          .dst = q->dst,
                          .w = q->w,
                          .owned = true,
                          .dedup = opts && opts->dedup,
                          .mirror = opts && opts->undirected};
  return graph_build(&e, g, err, errlen);
}

int dsana_graph_gen_kron(unsigned scale, unsigned edge_factor, uint64_t seed, const struct dsana_graph_opts *opts,
                         struct dsana_graph *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  if (scale < 1 || scale > 31)
    return io_errf(err, errlen, DSANA_EINVAL, "kron scale %u: must be 1..31", scale);
  if (edge_factor < 1)
    return io_errf(err, errlen, DSANA_EINVAL, "kron edge factor %u: must be >= 1", edge_factor);
  struct gen q = {.key = splitmix64_mix(seed ^ 0x6B726F6E00000000ull), .scale = scale, .words = scale / 4 + scale % 4};
  q.n = 1ull << scale;
  q.m = (uint64_t)edge_factor << scale;
  q.mask = q.n - 1;
  q.k0 = splitmix64_at(q.key, UINT64_MAX - 1);
  q.k1 = splitmix64_at(q.key, UINT64_MAX - 2);
  q.m1 = splitmix64_at(q.key, UINT64_MAX - 3) | 1;
  q.m2 = splitmix64_at(q.key, UINT64_MAX - 4) | 1;
  q.h = (scale + 1) / 2;
  return run(&q, kron_part, opts, g, err, errlen);
}

int dsana_graph_gen_uniform(uint64_t n, uint64_t m, uint64_t seed, const struct dsana_graph_opts *opts,
                            struct dsana_graph *g, char *err, size_t errlen) {
  memset(g, 0, sizeof *g);
  if (n < 1 || n > GRAPH_MAX_VERTICES)
    return io_errf(err, errlen, DSANA_EINVAL, "uniform: %llu vertices: must be 1..%llu", (unsigned long long)n,
                   (unsigned long long)GRAPH_MAX_VERTICES);
  if (m > (UINT64_MAX >> 3))
    return io_errf(err, errlen, DSANA_EINVAL, "uniform: %llu edges: too many", (unsigned long long)m);
  struct gen q = {.key = splitmix64_mix(seed ^ 0x756E69666F726Dull), .n = n, .m = m};
  return run(&q, uniform_part, opts, g, err, errlen);
}
