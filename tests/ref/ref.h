/*
 * ref.h - private glue of the reference PageRank (tests/ref/): the input
 * readers (ref_input.c), the output comparison (ref_compare.c) and the
 * helpers both use. Shares nothing with dsana: only libc, zlib and libm.
 */
#ifndef DSANA_TESTS_REF_H
#define DSANA_TESTS_REF_H

#include <stddef.h>
#include <stdint.h>

/* Print "ref_pagerank: MSG" on stderr and exit 2. */
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xrealloc(void *p, size_t n);
double parse_double_opt(const char *name, const char *s);

struct edge {
  uint64_t src, dst;
  double w;   /* 1 when unweighted */
  size_t seq; /* position in the input (after --undirected's mirroring) */
};

/* What read_edges was asked for and found. */
struct input {
  int weighted, undirected;
  int dense;        /* the first line was the dense-id line */
  uint64_t dense_k; /* ... with ids 0..dense_k */
};

/* The edges of a SNAP file (see ref_pagerank.c for the format); *m_out of them. */
struct edge *read_edges(const char *path, struct input *in, size_t *m_out);

/* The personalization vector of FILE over the sorted vertex ids[0..n), summing to 1. */
double *read_personalization(const char *path, const uint64_t *ids, size_t n);

/* ref_pagerank --compare A B [--max-diff X] (argv[1] is "--compare"). */
int run_compare(int argc, char **argv);

#endif
