/*
 * dataset_mem.c - datasets over arrays the caller already holds: CSR
 * arrays (a scipy.sparse CSR matrix) borrowed whole, or a dense row-major
 * matrix whose values are borrowed in place, every entry stored (zeros
 * too), with the row offsets and column indices built here. Registered
 * with dsana_dataset_mem_register (mem_source.c), it is an app's TRAIN or
 * DATA like any file; the app's checks (finite values and labels,
 * ascending columns) then run on it as on a mapped file.
 *
 * A dense matrix's column indices repeat every row. Written out they are
 * 4 bytes an entry of fresh memory (188 MB for Fashion-MNIST, 0.35 s of
 * first-touch page faults on a virtual machine); instead the fewest rows
 * that fill whole pages are written once into a memfd and mapped over and
 * over (Linux), the same pages under every period: 15 ms, and they stay in
 * cache. Where that would take too many mappings, the indices are written.
 *
 * Thread safety: a mutex guards the table of those mappings.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dsana/dataset.h"
#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"

#define REPEAT_MAPS_MAX 4096 /* mappings one dataset's indices may take */
#define REPEAT_MAX 64        /* such datasets alive at once; more write theirs */

static pthread_mutex_t repeat_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
  void *base;
  size_t len;
} repeat_tab[REPEAT_MAX];

static uint64_t gcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* One period (rows_per rows, a whole number of pages) in a memfd; -1 on failure. */
static int period_fd(uint64_t n_features, uint64_t rows_per, size_t bytes) {
#if defined(MFD_CLOEXEC)
  int fd = memfd_create("dsana-dense-cols", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  uint32_t *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    close(fd);
    return -1;
  }
  for (uint64_t r = 0; r < rows_per; r++)
    for (uint64_t j = 0; j < n_features; j++)
      p[r * n_features + j] = (uint32_t)j;
  munmap(p, bytes);
  return fd;
#else
  (void)n_features, (void)rows_per, (void)bytes;
  return -1;
#endif
}

/* The period mapped read-only over [base, base + n * bytes). */
static bool map_repeats(char *base, int fd, size_t bytes, uint64_t n) {
  for (uint64_t k = 0; k < n; k++)
    if (mmap(base + k * bytes, bytes, PROT_READ, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd, 0) == MAP_FAILED)
      return false;
  return true;
}

/* The indices of n_rows dense rows as repeated mappings, or NULL (the
 * caller writes them). */
static uint32_t *repeat_cols(uint64_t n_rows, uint64_t n_features) {
  long page = sysconf(_SC_PAGESIZE);
  uint64_t per_page = page > 0 ? (uint64_t)page / sizeof(uint32_t) : 0;
  if (!per_page)
    return NULL;
  uint64_t rows_per = per_page / gcd(n_features, per_page); /* rows_per * n_features: whole pages */
  size_t bytes = rows_per * n_features * sizeof(uint32_t);
  uint64_t n = (n_rows + rows_per - 1) / rows_per;
  if (n < 4 || n > REPEAT_MAPS_MAX)
    return NULL;
  int slot = -1;
  pthread_mutex_lock(&repeat_mu);
  for (int i = 0; i < REPEAT_MAX && slot < 0; i++)
    if (!repeat_tab[i].base)
      slot = i;
  char *base = slot < 0 ? MAP_FAILED : mmap(NULL, n * bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int fd = base == MAP_FAILED ? -1 : period_fd(n_features, rows_per, bytes);
  bool ok = fd >= 0 && map_repeats(base, fd, bytes, n);
  if (fd >= 0)
    close(fd); /* the mappings keep the memfd */
  if (ok)
    repeat_tab[slot].base = base, repeat_tab[slot].len = n * bytes;
  else if (base != MAP_FAILED)
    munmap(base, n * bytes);
  pthread_mutex_unlock(&repeat_mu);
  return ok ? (uint32_t *)(void *)base : NULL;
}

bool ds_dense_cols_release(const uint32_t *col) {
  bool found = false;
  pthread_mutex_lock(&repeat_mu);
  for (int i = 0; i < REPEAT_MAX && !found; i++)
    if (col && repeat_tab[i].base == (const void *)col) {
      munmap(repeat_tab[i].base, repeat_tab[i].len);
      repeat_tab[i].base = NULL;
      found = true;
    }
  pthread_mutex_unlock(&repeat_mu);
  return found;
}

static int check_shape(uint64_t n_rows, uint64_t n_features, const double *label, char *err, size_t errlen) {
  if (n_rows == 0 || !label)
    return io_errf(err, errlen, DSANA_EINVAL, "in-memory dataset: no rows");
  if (n_features == 0 || n_features > DSANA_DATASET_MAX_FEATURES)
    return io_errf(err, errlen, DSANA_EINVAL, "in-memory dataset: %llu features (want 1 to %llu)",
                   (unsigned long long)n_features, (unsigned long long)DSANA_DATASET_MAX_FEATURES);
  return 0;
}

int dsana_dataset_from_csr(uint64_t n_rows, uint64_t n_features, const uint64_t *row_off, const uint32_t *col,
                           const double *val, const double *label, struct dsana_dataset *ds, char *err, size_t errlen) {
  memset(ds, 0, sizeof *ds);
  int rc = check_shape(n_rows, n_features, label, err, errlen);
  if (rc)
    return rc;
  if (!row_off || row_off[0] != 0 || (row_off[n_rows] && (!col || !val)))
    return io_errf(err, errlen, DSANA_EINVAL, "in-memory dataset: row offsets do not start at 0");
  *ds = (struct dsana_dataset){.n_rows = n_rows,
                               .n_features = n_features,
                               .nnz = row_off[n_rows],
                               .row_off = row_off,
                               .col = col,
                               .val_f64 = val,
                               .label = label};
  return 0;
}

/* The dense dataset over x64 or x32 (one of them). */
static int from_dense(uint64_t n_rows, uint64_t n_features, const double *x64, const float *x32, const double *label,
                      struct dsana_dataset *ds, char *err, size_t errlen) {
  memset(ds, 0, sizeof *ds);
  int rc = check_shape(n_rows, n_features, label, err, errlen);
  if (rc)
    return rc;
  uint64_t nnz = n_rows * n_features;
  if (nnz / n_features != n_rows || nnz > ((uint64_t)1 << 40))
    return io_errf(err, errlen, DSANA_ERANGE, "in-memory dataset: %llu x %llu entries is too many",
                   (unsigned long long)n_rows, (unsigned long long)n_features);
  uint64_t *off = graph_big_alloc((n_rows + 1) * sizeof *off);
  uint32_t *mapped = off ? repeat_cols(n_rows, n_features) : NULL;
  uint32_t *col = mapped ? NULL : graph_big_alloc(nnz * sizeof *col + 1);
  if (!off || (!mapped && !col)) {
    free(off);
    free(col);
    return io_errf(err, errlen, DSANA_ENOMEM, "in-memory dataset: out of memory");
  }
  for (uint64_t i = 0; i <= n_rows; i++)
    off[i] = i * n_features;
  for (uint64_t i = 0; col && i < n_rows; i++)
    for (uint64_t j = 0; j < n_features; j++)
      col[i * n_features + j] = (uint32_t)j;
  *ds = (struct dsana_dataset){.n_rows = n_rows,
                               .n_features = n_features,
                               .nnz = nnz,
                               .row_off = off,
                               .col = mapped ? mapped : col,
                               .val_f64 = x64,
                               .val_f32 = x32,
                               .label = label,
                               .priv_heap = {off, col}}; /* a mapping goes with ds_dense_cols_release */
  return 0;
}

int dsana_dataset_from_dense(uint64_t n_rows, uint64_t n_features, const double *x, const double *label,
                             struct dsana_dataset *ds, char *err, size_t errlen) {
  return from_dense(n_rows, n_features, x, NULL, label, ds, err, errlen);
}

int dsana_dataset_from_dense_f32(uint64_t n_rows, uint64_t n_features, const float *x, const double *label,
                                 struct dsana_dataset *ds, char *err, size_t errlen) {
  return from_dense(n_rows, n_features, NULL, x, label, ds, err, errlen);
}
