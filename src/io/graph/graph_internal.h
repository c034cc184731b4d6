/*
 * graph_internal.h - private glue between the graph_*.c files of the io
 * layer: the CSC builder every reader and generator ends in, the line
 * reader the text parsers share, number scanning for weights, and the
 * warning helper; the error helper, shared mappings, in-memory sources and
 * the byte source are the file plumbing's (file_internal.h, included), the
 * file formats' own glue is graphfile_internal.h. Nothing here is visible
 * outside src/io.
 */
#ifndef DSANA_IO_GRAPH_INTERNAL_H
#define DSANA_IO_GRAPH_INTERNAL_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/graph.h"
#include "io/file/file_internal.h"

/* priv_heap slots of struct dsana_graph. */
enum {
  GRAPH_HEAP_IN_OFF = 0,
  GRAPH_HEAP_IN_SRC = 1,
  GRAPH_HEAP_OUT_DEG = 2,
  GRAPH_HEAP_ORIG_ID = 3,
  GRAPH_HEAP_IN_W = 4,
  GRAPH_HEAP_OUT_W = 5,
  GRAPH_HEAP_SLOTS = 6
};

/* Largest vertex count: ids must fit in uint32_t (n < 2^32). */
#define GRAPH_MAX_VERTICES ((uint64_t)UINT32_MAX)

/* malloc for big arrays: also asks for transparent huge pages (the
 * builder's scatters are TLB-bound without them). Free with free(). */
void *graph_big_alloc(size_t bytes);
void *graph_big_calloc(size_t bytes);

/* Does the file start with these 8 bytes (a binary format's magic)? false
 * when it cannot be read or is shorter. */
bool graph_file_has_magic(const char *path, const char magic[8]);

/* Format one warning line and hand it to opts->warn (nothing if NULL). */
void graph_warnf(const struct dsana_graph_opts *opts, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Threads the builder and generators use (<= 2; results never depend on it). */
unsigned graph_threads(void);

/* Run fn(arg, t, nthreads) for t in [0, nthreads) on threads; t = 0 runs on
 * the caller. Falls back to running every t serially if a thread cannot
 * start, so fn must only depend on t, never on concurrency. */
void graph_parallel(void (*fn)(void *arg, unsigned t, unsigned nthreads), void *arg, unsigned nthreads);

/* Edges for graph_build, in input order (which dedup's "last weight wins"
 * and the order of multi-edges follow). */
struct graph_edges {
  const char *path; /* names the input in messages, or NULL */
  uint64_t n, m;
  uint32_t *src, *dst; /* m ids < n (checked by the callers) */
  double *w;           /* m positive finite weights, or NULL: unweighted (non-NULL even if m = 0) */
  uint64_t *orig_id;   /* n original ids or NULL: always taken over (ends in g or freed) */
  bool owned;          /* src, dst, w were malloc'd by the caller: freed here, success or not */
  bool dedup;          /* collapse duplicate edges, keeping the last weight */
  bool mirror;         /* undirected input: edge i gives src->dst then dst->src (once if a loop) */
};

/* Build the CSC of e into g (weights: in_w and out_w too). Leaves *g zeroed
 * on failure; e's arrays are consumed as the comments above say. */
int graph_build(struct graph_edges *e, struct dsana_graph *g, char *err, size_t errlen);

/* Collapse adjacent equal sources of every destination in place (the last
 * weight of a run wins when in_w is not NULL); recount out_deg; new *m. */
void graph_dedup_in_place(uint64_t n, uint64_t *in_off, uint32_t *in_src, double *in_w, uint32_t *out_deg, uint64_t *m);

/* out_w of a CSC: n sums in ascending destination, then in_src order.
 * DSANA_ERANGE (naming path and the vertex) if a sum is not finite. */
int graph_sum_out_w(const char *path, uint64_t n, const uint64_t *in_off, const uint32_t *in_src, const double *in_w,
                    const uint64_t *orig_id, double **out_w, char *err, size_t errlen);

/* A decimal number token at p (digits, '.', exponent, sign; no inf, nan or
 * hex) ending at a blank or '\n': true with *out and *end past it. */
bool graph_scan_number(const char *p, const char **end, double *out);

/* An edge weight is a positive finite number, and a normal one: a
 * subnormal weight's reciprocal (1 / out-weight) overflows. GRAPH_WEIGHT_RANGE
 * says so in messages. */
static inline bool graph_weight_ok(double w) { return w >= DBL_MIN && w <= DBL_MAX; }
#define GRAPH_WEIGHT_RANGE "positive finite number (2.2250738585072014e-308 to 1.7976931348623157e+308)"

/* A heap copy of in (orig_id copied; in_w and out_w too when weights and in
 * has them, out_w re-summed after dedup), duplicates collapsed when dedup.
 * in must be valid (checked). */
int graph_copy(const struct dsana_graph *in, bool dedup, bool weights, struct dsana_graph *out, char *err,
               size_t errlen);

/* The longest line the text readers take, without its '\n' (libsvm rows
 * may be longer: DS_LIBSVM_MAX_LINE). */
#define GRAPH_TEXT_MAX_LINE ((size_t)1 << 20)

/* Line-block reader over a plain or gzip file (infile_src). */
struct graph_text {
  const char *path;
  struct infile_src src;
  size_t max_line; /* longest line taken (GRAPH_TEXT_MAX_LINE after open; set before the first next) */
  char *buf;
  size_t cap;   /* allocated bytes of buf */
  size_t len;   /* valid bytes in buf */
  size_t block; /* bytes of buf handed out by the last graph_text_next */
  bool eof;
  bool replay; /* hand out the same block again (after a peek) */
};

/* Open path for reading; on failure writes "PATH: reason" and returns DSANA_EIO. */
int graph_text_open(struct graph_text *t, const char *path, char *err, size_t errlen);
/* Next block of whole lines [*p, *end), the last byte always '\n' (a final
 * line without one gets it added). Returns 1 with a block, 0 at end of
 * file, or a negative code (gzip errors, read errors, DSANA_EFORMAT for a
 * line longer than t->max_line) with err set. lines_done: the lines of the
 * blocks handed out before (the caller counts them), so that a long line's
 * message names its number. */
int graph_text_next(struct graph_text *t, uint64_t lines_done, const char **p, const char **end, char *err,
                    size_t errlen);
void graph_text_close(struct graph_text *t);

static inline bool graph_is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Parse a decimal id at *pp (digits only, no sign), ending at a blank or
 * '\n': 0 ok (*pp moved past it), 1 not a number, 2 negative, 3 overflow. */
static inline int graph_scan_u64(const char **pp, uint64_t *out) {
  const char *p = *pp;
  uint64_t x = 0;
  if (*p == '-')
    return (p[1] >= '0' && p[1] <= '9') ? 2 : 1;
  if ((unsigned)(*p - '0') > 9)
    return 1;
  do {
    unsigned d = (unsigned)(*p - '0');
    if (x > (UINT64_MAX - d) / 10)
      return 3;
    x = x * 10 + d;
    p++;
  } while ((unsigned)(*p - '0') <= 9);
  if (!graph_is_blank(*p) && *p != '\n')
    return 1;
  *pp = p;
  *out = x;
  return 0;
}

/* Copy a token (up to whitespace) for an error message, printable, at most
 * outlen-1 bytes. */
void graph_token(const char *p, char *out, size_t outlen);

#endif
