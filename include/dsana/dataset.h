/*
 * dataset.h - labelled sparse data for machine learning: the input side of
 * the io layer that apps such as logistic regression read (public).
 *
 * A dataset is a sparse matrix in compressed sparse rows (CSR), one row per
 * example, plus one label per row. It is read from a libsvm/svmlight text
 * file (plain or gzip), from dsana's own versioned binary format
 * (memory-mapped, checksummed), from a pair of MNIST-style IDX files, or
 * generated (a learnable logistic-regression problem).
 *
 * Features are numbered 0..n_features-1: libsvm index i is feature i-1.
 * n_features is at most DSANA_DATASET_MAX_FEATURES (2^32-1), so a feature
 * always fits in a uint32_t and libsvm indices run from 1 to 2^32-1.
 *
 * Errors: functions return 0 or a negative DSANA_E* code (dsana.h) and, on
 * failure, write one line (no '\n') into err, if err is not NULL, naming the
 * file and the line (text) or byte offset (binary), e.g.
 * "train.svm:17: index 0 (libsvm indices start at 1)". DSANA_EIO: a file
 * cannot be opened, read or written; DSANA_EFORMAT: bad content;
 * DSANA_EINVAL: bad arguments; DSANA_ERANGE: a limit; DSANA_ENOMEM.
 *
 * Thread safety: a dataset is immutable once made; any number of threads
 * may read it. The only global state is the table of mapped files: a file
 * mapped by several datasets of one process (the roles of a job run as its
 * threads) is mapped once, guarded by a mutex. Numbers are read and
 * written with the C library (strtod, printf): keep LC_NUMERIC at "C",
 * the default of a program that never calls setlocale().
 */
#ifndef DSANA_DATASET_H
#define DSANA_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dsana/export.h"

/* Largest n_features (feature ids fit in uint32_t, libsvm index <= this). */
#define DSANA_DATASET_MAX_FEATURES ((uint64_t)UINT32_MAX)

struct dsana_dataset {
  uint64_t n_rows;         /* examples, >= 1 */
  uint64_t n_features;     /* columns; every col[] is below it */
  uint64_t nnz;            /* stored entries (explicit zeros in a text file count) */
  const uint64_t *row_off; /* n_rows+1 offsets into col/val; row_off[0] = 0, row_off[n_rows] = nnz */
  const uint32_t *col;     /* nnz features, strictly ascending within a row */
  /* Exactly one is non-NULL: the value type of the source. libsvm text is
   * read as double; IDX pixels and generated data are float. */
  const float *val_f32;
  const double *val_f64;
  const double *label; /* n_rows labels as read (-1/+1, 0/1, 3, 7, 2.5 ...), finite */
  /* private: how the arrays are owned (heap or a mapping), for messages */
  void *priv_heap[4];
  void *priv_map;
  size_t priv_map_len;
  char *priv_name;
};

/* Value of entry k (0 <= k < nnz) as a double, whatever the stored type. */
static inline double dsana_dataset_val(const struct dsana_dataset *ds, uint64_t k) {
  return ds->val_f64 ? ds->val_f64[k] : (double)ds->val_f32[k];
}

struct dsana_dataset_opts {
  /* n_features is at least this (0: no minimum). Read a test set with the
   * training set's n_features so both index the same model. */
  uint64_t n_features_min;
  /* When not 0: a feature at or above this is an error (naming the line),
   * e.g. the training set's n_features when a test set must not carry
   * features the model has never seen. 0: no limit but the format's. */
  uint64_t n_features_max;
};

/* Every function that makes a dataset leaves *ds zeroed on failure; on
 * success the caller owns it and releases it with dsana_dataset_fini(). */

/*
 * Open a dataset file of any supported format, chosen by content: dsana's
 * binary format (by its magic "DSNADATA"; memory-mapped), else libsvm text,
 * plain or gzip (zlib reads both, whatever the name). IDX files are refused
 * with a message pointing to dsana_dataset_from_idx(): they come in pairs.
 *
 * libsvm text: one row per line, "label index:value index:value ...",
 * fields separated by spaces or tabs; indices are decimal, 1-based and
 * strictly ascending; labels and values are decimal or exponent notation
 * (anything strtod reads that is finite) and are stored as double
 * (val_f64). '#' starts a comment that runs to the end of the line; blank
 * and comment-only lines are skipped (but counted in line numbers); '\r'
 * is ignored, so CRLF files read alike. A row may have no pairs. Refused,
 * naming file:line: a missing label, a non-numeric or non-finite label or
 * value, index 0, an index not above the previous one of its row
 * (duplicate or descending), a malformed pair, an index above
 * DSANA_DATASET_MAX_FEATURES or opts->n_features_max, "qid:" (ranking data),
 * and a file without rows.
 *
 * n_features is the largest index seen (or the binary header's), raised to
 * opts->n_features_min. opts may be NULL.
 *
 * The result is fully checked: a binary file's section checksums and every
 * row pass dsana_dataset_check() before this returns (O(file)); use
 * dsana_dataset_map_binary() to map a binary file in O(1).
 */
DSANA_API int dsana_dataset_open(const char *path, const struct dsana_dataset_opts *opts, struct dsana_dataset *ds,
                                 char *err, size_t errlen);

/*
 * Write ds in dsana's binary format, atomically: a temporary file in the
 * same folder, fsync, rename. Version 1 layout: a 256-byte header (magic,
 * version, n_rows, n_features, nnz, value type, the offset, size and CRC-32
 * of each section, the file size, the header's own CRC-32), then the
 * sections row_off, col, values, label, each at a 64-byte aligned offset,
 * little-endian. Sections are written straight from ds's arrays (no copy).
 * ds must be consistent (as every dataset this API makes is).
 */
DSANA_API int dsana_dataset_write_binary(const struct dsana_dataset *ds, const char *path, char *err, size_t errlen);

/*
 * Write ds as libsvm text, atomically (temporary file and rename); gzip
 * when path ends in ".gz". Labels and double values are printed with
 * "%.15g" when that reads back exactly, else "%.17g"; float values with
 * "%.9g". Reading the file back gives the same numbers (float values come
 * back as doubles that round to the same floats).
 */
DSANA_API int dsana_dataset_write_libsvm(const struct dsana_dataset *ds, const char *path, char *err, size_t errlen);

/*
 * Memory-map a binary dataset read-only. Checks, in O(1): magic, version,
 * the header's CRC-32, sizes, section offsets and bounds against the file
 * size, row_off[0] = 0 and row_off[n_rows] = nnz. The rows themselves are
 * NOT checked: call dsana_dataset_check() on the rows you will read before
 * trusting them (a worker checks its own rows).
 */
DSANA_API int dsana_dataset_map_binary(const char *path, struct dsana_dataset *ds, char *err, size_t errlen);

/*
 * Check rows [row_lo, row_hi): offsets monotone and within nnz, features
 * strictly ascending and below n_features, values and labels finite. When
 * the range is every row and ds is mapped, also the CRC-32 of every
 * section (a damaged file is refused, never half-read). O(entries checked).
 * DSANA_ERANGE when the range is outside [0, n_rows]; DSANA_EFORMAT with
 * the file, row and byte offset (mapped) in err otherwise.
 */
DSANA_API int dsana_dataset_check(const struct dsana_dataset *ds, uint64_t row_lo, uint64_t row_hi, char *err,
                                  size_t errlen);

/* true when the file starts with the binary dataset magic. */
DSANA_API bool dsana_dataset_is_binary(const char *path);

/*
 * Read an MNIST-style pair of IDX files, each plain or gzip:
 * images_path (magic 0x00000803: unsigned bytes, n x rows x cols,
 * big-endian header) and labels_path (magic 0x00000801: n unsigned bytes).
 * Row i is image i: n_features = rows*cols (pixel (y, x) is feature
 * y*cols + x), value pixel/255 as float (val_f32) in (0, 1], zero pixels
 * not stored; label i as a double (0..255). Refused, naming the file: a
 * magic mismatch, a truncated file (with the bytes expected and found),
 * trailing bytes, image and label counts that differ, a zero dimension or
 * an absurd one (rows*cols above 2^24, or more than 2^40 pixels).
 */
DSANA_API int dsana_dataset_from_idx(const char *images_path, const char *labels_path, struct dsana_dataset *ds,
                                     char *err, size_t errlen);

/*
 * Generate a learnable sparse classification problem: n_rows rows of
 * exactly nnz_per_row distinct features drawn uniformly from n_features,
 * values uniform in (0, 1] (float, multiples of 2^-24), and labels drawn
 * from a hidden linear model with weights uniform in [-s, s],
 * s = 12/sqrt(nnz_per_row) (a margin's standard deviation is then about
 * 4): for n_classes == 2, label +1 with probability sigmoid(w.x), else -1;
 * for n_classes > 2, label c in 0..n_classes-1 with probability
 * softmax(W x)_c. The same arguments give the same bytes for any thread
 * count (labels use libm's exp, so keep the C library fixed to compare
 * files across machines). DSANA_EINVAL: n_rows or nnz_per_row 0,
 * nnz_per_row > n_features, n_features > DSANA_DATASET_MAX_FEATURES,
 * n_classes outside 2..1024, or n_rows * nnz_per_row above 2^40.
 */
DSANA_API int dsana_dataset_gen_logreg(uint64_t n_rows, uint64_t n_features, uint32_t nnz_per_row, uint32_t n_classes,
                                       uint64_t seed, struct dsana_dataset *ds, char *err, size_t errlen);
/* Rows first_row .. first_row + n_rows - 1 of the sequence the same
 * arguments give (row r's columns, values and label depend on r, the seed
 * and the hidden model alone): with first_row = the training set's n_rows,
 * a held-out test set from the same model and distribution. The limits
 * above hold for first_row + n_rows rows. */
DSANA_API int dsana_dataset_gen_logreg_rows(uint64_t first_row, uint64_t n_rows, uint64_t n_features,
                                            uint32_t nnz_per_row, uint32_t n_classes, uint64_t seed,
                                            struct dsana_dataset *ds, char *err, size_t errlen);

/*
 * The distinct labels of ds in ascending order, so an app can map a label
 * to a class 0..k-1 (its rank, see dsana_dataset_class_of) and back
 * (labels[c]). *labels is malloc'd and owned by the caller (free()).
 * Binary problems come out as {-1, +1} or {0, 1}: class 0 is the negative
 * label and class 1 the positive one, in both conventions. A dataset with
 * a single label gives k = 1 (a test set may lack a class: map its labels
 * with the training set's classes). Labels that compare equal as doubles
 * ("1", "+1", "1.0") are one class. DSANA_EFORMAT if a label is not finite
 * (only possible on a mapped file not yet checked), DSANA_ENOMEM.
 */
DSANA_API int dsana_dataset_classes(const struct dsana_dataset *ds, double **labels, uint64_t *k);

/* The class of label: its index c in labels[0..k) (ascending, as from
 * dsana_dataset_classes) through *cls. DSANA_ERANGE if it is not there
 * (e.g. a test-set label the training set never had). */
DSANA_API int dsana_dataset_class_of(const double *labels, uint64_t k, double label, uint64_t *cls);

/* Rows per class: counts[c] (caller-owned, k entries) = rows whose label is
 * labels[c]. DSANA_ERANGE, counting stopped, if a row's label is not among
 * labels; err then names the row and its label. */
DSANA_API int dsana_dataset_class_counts(const struct dsana_dataset *ds, const double *labels, uint64_t k,
                                         uint64_t *counts, char *err, size_t errlen);

/*
 * Datasets over arrays the caller holds (dataset_mem.c), values as double.
 * from_csr borrows every array (row_off: n_rows+1 offsets from 0; col and
 * val: row_off[n_rows] entries; label: n_rows); from_dense borrows the
 * n_rows x n_features row-major values x and the labels, storing every
 * entry (zeros too), and builds the row offsets and column indices (owned
 * by ds). Borrowed arrays must outlive ds. Rows are not checked here: the
 * readers below check them (dsana_dataset_open, dsana_dataset_check).
 * DSANA_EINVAL / DSANA_ERANGE / DSANA_ENOMEM with one line in err.
 */
DSANA_API int dsana_dataset_from_csr(uint64_t n_rows, uint64_t n_features, const uint64_t *row_off, const uint32_t *col,
                                     const double *val, const double *label, struct dsana_dataset *ds, char *err,
                                     size_t errlen);
DSANA_API int dsana_dataset_from_dense(uint64_t n_rows, uint64_t n_features, const double *x, const double *label,
                                       struct dsana_dataset *ds, char *err, size_t errlen);
/* The same over float values (val_f32: a float32 array read in place). */
DSANA_API int dsana_dataset_from_dense_f32(uint64_t n_rows, uint64_t n_features, const float *x, const double *label,
                                           struct dsana_dataset *ds, char *err, size_t errlen);
/* Register ds as an in-memory source (see dsana_graph_mem_register in
 * graph.h; names "dsana-mem:dataset:N"): dsana_dataset_open,
 * dsana_dataset_is_binary and dsana_dataset_map_binary take the name as a
 * mapped binary file. Release with dsana_mem_unregister(name). Its arrays
 * must not change while it is registered: once dsana_dataset_check has
 * passed all its rows (on ds or a view of the same arrays), later checks
 * pass at once. */
DSANA_API int dsana_dataset_mem_register(const struct dsana_dataset *ds, char *name, size_t len);

/* Forget an in-memory source by name (also in graph.h). */
DSANA_API void dsana_mem_unregister(const char *name);

/* Release what ds owns (heap arrays or the mapping) and zero it. NULL and
 * zeroed datasets are fine. */
DSANA_API void dsana_dataset_fini(struct dsana_dataset *ds);
/* A mapped dataset (dsana_dataset_map_binary) leaves this process's
 * resident memory: its pages are read again from the page cache when next
 * touched. After a pass over every row (checks, classes, cutting tasks) a
 * role so keeps resident only the rows it reads later. Nothing for a
 * dataset on the heap. */
DSANA_API void dsana_dataset_forget_pages(const struct dsana_dataset *ds);
/* Cut rows [0, n_rows) into at most `want` ranges of about equal non-zeros
 * plus rows, each boundary a multiple of `block` rows (so per-block
 * results do not depend on the cut); returns how many ranges (k, at most
 * want and at least 1 for a dataset with rows), bounds in cut[0..k]. */
DSANA_API uint32_t dsana_dataset_cut_rows(const struct dsana_dataset *ds, uint64_t block, uint32_t want, uint64_t *cut);

#endif
