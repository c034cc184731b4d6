/*
 * graph_internal.h - private glue between the graph_*.c files of the io
 * layer: the CSC builder every reader and generator ends in, the line
 * reader the text parsers share, and the error-message helper.
 * Nothing here is visible outside src/io.
 */
#ifndef DSANA_IO_GRAPH_INTERNAL_H
#define DSANA_IO_GRAPH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

#include "dsana/graph.h"

/* priv_heap slots of struct dsana_graph. */
enum { GRAPH_HEAP_IN_OFF = 0, GRAPH_HEAP_IN_SRC = 1, GRAPH_HEAP_OUT_DEG = 2, GRAPH_HEAP_ORIG_ID = 3 };

/* Largest vertex count: ids must fit in uint32_t (n < 2^32). */
#define GRAPH_MAX_VERTICES ((uint64_t)UINT32_MAX)

/* malloc for big arrays: also asks for transparent huge pages (the
 * builder's scatters are TLB-bound without them). Free with free(). */
void *graph_big_alloc(size_t bytes);
void *graph_big_calloc(size_t bytes);

/* Format one line into err (if err and errlen) and return code. */
int graph_errf(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Threads the builder and generators use (<= 2; results never depend on it). */
unsigned graph_threads(void);

/* Run fn(arg, t, nthreads) for t in [0, nthreads) on threads; t = 0 runs on
 * the caller. Falls back to running every t serially if a thread cannot
 * start, so fn must only depend on t, never on concurrency. */
void graph_parallel(void (*fn)(void *arg, unsigned t, unsigned nthreads), void *arg, unsigned nthreads);

/*
 * Build the CSC of edges (src[i] -> dst[i]), i < m, ids < n (checked by the
 * callers). If owned, src and dst were malloc'd by the caller and are freed
 * here (as soon as possible, success or not). orig_id (n entries, may be
 * NULL) is always taken over: it ends in g or is freed.
 * Leaves *g zeroed on failure.
 */
int graph_build(uint64_t n, uint64_t m, uint32_t *src, uint32_t *dst, bool owned, uint64_t *orig_id,
                bool dedup, struct dsana_graph *g, char *err, size_t errlen);

/* A heap copy of in with duplicate edges collapsed (orig_id copied). */
int graph_dedup_copy(const struct dsana_graph *in, struct dsana_graph *out, char *err, size_t errlen);

/* Line-block reader over a plain or gzip file (zlib reads both). */
struct graph_text {
  const char *path;
  gzFile gz;
  char *buf;
  size_t cap;     /* allocated bytes of buf */
  size_t len;     /* valid bytes in buf */
  size_t block;   /* bytes of buf handed out by the last graph_text_next */
  bool eof;
  bool replay;    /* hand out the same block again (after a peek) */
};

/* Open path for reading; on failure writes "PATH: reason" and returns DSANA_EIO. */
int graph_text_open(struct graph_text *t, const char *path, char *err, size_t errlen);
/* Next block of whole lines [*p, *end), the last byte always '\n' (a final
 * line without one gets it added). Returns 1 with a block, 0 at end of
 * file, or a negative code (gzip errors, read errors) with err set. */
int graph_text_next(struct graph_text *t, const char **p, const char **end, char *err, size_t errlen);
void graph_text_close(struct graph_text *t);

/* The text parsers: read every block of t into g. */
int graph_parse_snap(struct graph_text *t, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                     size_t errlen);
int graph_parse_mtx(struct graph_text *t, const struct dsana_graph_opts *opts, struct dsana_graph *g, char *err,
                    size_t errlen);

/* Copy a token (up to whitespace) for an error message, printable, at most
 * outlen-1 bytes. */
void graph_token(const char *p, char *out, size_t outlen);

/* Binary-format flags (header field at offset 32). */
#define GRAPH_BIN_HAS_ORIG_ID 1u
#define GRAPH_BIN_NO_DUPLICATES 2u
/* Flags of a mapped graph (0 for a heap graph). */
uint64_t graph_binary_flags(const struct dsana_graph *g);

#endif
