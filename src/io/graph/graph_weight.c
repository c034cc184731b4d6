/*
 * graph_weight.c - edge weights in the io layer: the decimal-number scanner
 * the text parsers (SNAP, Matrix Market, personalization files) read weights
 * with, and the out-weight sums every weighted graph carries (out_w), summed
 * in one fixed order so they are the same on every run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/graph/graph_internal.h"

static inline bool is_end(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'; }

/* Only decimal syntax reaches strtod: it would also take "inf", "nan",
 * hexadecimal and leading blanks. */
static bool decimal_chars(const char *p, const char **tok_end) {
  const char *q = p;
  while (!is_end(*q)) {
    char c = *q++;
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return false;
  }
  *tok_end = q;
  return q > p;
}

bool graph_scan_number(const char *p, const char **end, double *out) {
  const char *tok_end, *stop;
  if (!decimal_chars(p, &tok_end))
    return false;
  double v = strtod(p, (char **)&stop); /* stops at the blank or '\n' after the token at the latest */
  if (stop != tok_end)
    return false;
  *out = v;
  *end = stop;
  return true;
}

int graph_sum_out_w(const char *path, uint64_t n, const uint64_t *in_off, const uint32_t *in_src, const double *in_w,
                    const uint64_t *orig_id, double **out_w, char *err, size_t errlen) {
  double *s = graph_big_calloc((n ? n : 1) * sizeof *s);
  *out_w = NULL;
  if (!s)
    return io_errf(err, errlen, DSANA_ENOMEM, "%s%sout of memory summing out-weights", path ? path : "",
                   path ? ": " : "");
  for (uint64_t v = 0; v < n; v++)
    for (uint64_t k = in_off[v]; k < in_off[v + 1]; k++)
      s[in_src[k]] += in_w[k];
  for (uint64_t u = 0; u < n; u++) {
    if (!isfinite(s[u])) {
      free(s);
      return io_errf(err, errlen, DSANA_ERANGE, "%s%sthe out-edge weights of vertex %llu sum to infinity",
                     path ? path : "", path ? ": " : "", (unsigned long long)(orig_id ? orig_id[u] : u));
    }
  }
  *out_w = s;
  return 0;
}
