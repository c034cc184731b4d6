/*
 * dataset_internal.h - private glue between the dataset_*.c files of the io
 * layer: ownership helpers every source ends in, the atomic output file
 * the writers share, the binary format's checksum check, and the libsvm
 * parser's entry point (for the fuzz target). The text block reader and
 * the two-thread runner are the graph readers' (graph_internal.h), the
 * error-message helper the file plumbing's (file_internal.h). Nothing here
 * is visible outside src/io.
 */
#ifndef DSANA_IO_DATASET_INTERNAL_H
#define DSANA_IO_DATASET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/dataset.h"
#include "io/graph/graph_internal.h"

/* priv_heap slots of struct dsana_dataset. */
enum { DS_HEAP_ROW_OFF = 0, DS_HEAP_COL = 1, DS_HEAP_VAL = 2, DS_HEAP_LABEL = 3 };

/* A dense in-memory dataset's column indices, when dataset_mem.c mapped
 * them (repeated pages): unmapped, and true; else false (not one of them). */
bool ds_dense_cols_release(const uint32_t *col);

/* Name used in messages: the file, or "generated data". Never NULL. */
const char *ds_name(const struct dsana_dataset *ds);

/*
 * Make ds own heap arrays (malloc'd; val is float when f32, else double)
 * and a copy of name. Takes over the arrays whatever happens: on failure
 * (DSANA_ENOMEM, message in err) they are freed and ds is zeroed.
 */
int ds_adopt(struct dsana_dataset *ds, const char *name, uint64_t n_rows, uint64_t n_features, uint64_t nnz,
             uint64_t *row_off, uint32_t *col, void *val, bool f32, double *label, char *err, size_t errlen);

/* Apply opts (n_features_min / _max) to a dataset just read; on failure
 * writes the message and returns the code (ds untouched). */
int ds_apply_opts(struct dsana_dataset *ds, const struct dsana_dataset_opts *opts, char *err, size_t errlen);

/* An output file written under a temporary name in the same folder and
 * renamed over path only when complete. */
struct dsana_outfile;
struct ds_out {
  const char *path;
  struct dsana_outfile *out; /* dsana/outfile.h */
  int fd;                    /* its descriptor: the writers write() sections */
};

/* Start writing path (dsana/outfile.h); on failure "PATH: reason", DSANA_EIO. */
int ds_out_open(struct ds_out *o, const char *path, char *err, size_t errlen);
/* ok: commit (fsync, rename over path); else (or if that fails) discard
 * the temporary file. saved_errno explains a failure
 * that happened before. Returns 0 or DSANA_EIO with "PATH: write failed". */
int ds_out_finish(struct ds_out *o, bool ok, int saved_errno, char *err, size_t errlen);

/* Mapped datasets: compare every section's CRC-32 with the header's. */
int ds_binary_verify_crcs(const struct dsana_dataset *ds, char *err, size_t errlen);

/* The longest libsvm line taken, without its '\n': 64 MiB (a dense row of
 * about five million "index:value" pairs); longer ones are refused. */
#define DS_LIBSVM_MAX_LINE ((size_t)64 << 20)

/* Parse every block of t as libsvm text into ds (opts may be NULL); sets
 * t->max_line to DS_LIBSVM_MAX_LINE. */
int ds_parse_libsvm(struct graph_text *t, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds, char *err,
                    size_t errlen);

#endif
