/*
 * dataset_idx.c - MNIST-style IDX pairs (Fashion-MNIST, MNIST, ...):
 * an images file (magic 0x00000803: unsigned bytes, n x rows x cols) and a
 * labels file (magic 0x00000801: n unsigned bytes), big-endian headers,
 * each plain or gzip (read as the text inputs are, infile_src.c: gzip
 * members may follow one another, any other byte after the gzip data is
 * refused with its offset where zlib's gzread would drop it silently).
 * Image i becomes row i with
 * its non-zero pixels as features y*cols + x, value pixel/255 as float;
 * label i its label. Both headers are read and compared before any pixel,
 * and the data is streamed: no copy of the file is held in memory.
 */
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "io/dataset/dataset_internal.h"

enum { IDX_IMAGES = 0x00000803, IDX_LABELS = 0x00000801 };
#define IDX_MAX_PIXELS_PER_IMAGE (1ull << 24)
#define IDX_MAX_PIXELS (1ull << 40)

struct idx_file {
  const char *path;
  struct infile_src src; /* plain or gzip, strict about what follows the gzip data */
  bool open;
  uint64_t pos;      /* bytes read so far */
  uint64_t expected; /* bytes the file should have, as far as known */
  uint32_t dim[3];   /* n, then rows and cols for images */
};

static int idx_open(struct idx_file *f, const char *path, char *err, size_t errlen) {
  memset(f, 0, sizeof *f);
  f->path = path;
  int rc = infile_src_open(&f->src, path, err, errlen);
  f->open = rc == 0;
  return rc;
}

static void idx_close(struct idx_file *f) {
  if (f->open)
    infile_src_close(&f->src);
  f->open = false;
}

/* Exactly len bytes, or why not (a read or gzip error, or truncation). */
static int idx_read(struct idx_file *f, void *buf, size_t len, char *err, size_t errlen) {
  size_t got = 0;
  while (got < len) {
    size_t n = 0;
    int rc = infile_src_read(&f->src, (char *)buf + got, len - got, &n, err, errlen);
    if (rc)
      return rc;
    if (n == 0)
      return io_errf(err, errlen, DSANA_EFORMAT, "%s: truncated file: %llu bytes expected, %llu found", f->path,
                     (unsigned long long)f->expected, (unsigned long long)(f->pos + got));
    got += n;
  }
  f->pos += len;
  return 0;
}

/* Nothing may follow the data the header announces (the source refuses
 * bytes after the gzip data itself). */
static int idx_expect_end(struct idx_file *f, char *err, size_t errlen) {
  char c;
  size_t n = 0;
  int rc = infile_src_read(&f->src, &c, 1, &n, err, errlen);
  if (!rc && n > 0)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %llu: data after the %llu bytes the header announces",
                   f->path, (unsigned long long)f->pos, (unsigned long long)f->expected);
  return rc;
}

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Magic and dimensions; f->dim filled, f->expected the header's bytes. */
static int idx_header(struct idx_file *f, uint32_t magic, char *err, size_t errlen) {
  unsigned char h[16];
  unsigned ndims = magic & 0xff;
  f->expected = 4 + 4 * (uint64_t)ndims;
  int rc = idx_read(f, h, 4, err, errlen); /* the magic first: a wrong file is named as such */
  if (rc)
    return rc;
  uint32_t got = be32(h);
  if (got != magic) {
    uint32_t other = magic == IDX_IMAGES ? IDX_LABELS : IDX_IMAGES;
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 0: magic 0x%08x, expected 0x%08x (IDX %s)%s", f->path, got,
                   magic,
                   magic == IDX_IMAGES ? "images: unsigned bytes, 3 dimensions" : "labels: unsigned bytes, 1 dimension",
                   got == other ? (magic == IDX_IMAGES ? ": is it the labels file?" : ": is it the images file?") : "");
  }
  if ((rc = idx_read(f, h + 4, 4 * ndims, err, errlen)) != 0)
    return rc;
  for (unsigned d = 0; d < ndims; d++) {
    f->dim[d] = be32(h + 4 + 4 * d);
    if (f->dim[d] == 0)
      return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset %u: dimension %u is 0", f->path, 4 + 4 * d, d);
  }
  return 0;
}

static int check_images(struct idx_file *im, char *err, size_t errlen) {
  uint64_t per = (uint64_t)im->dim[1] * im->dim[2];
  if (per > IDX_MAX_PIXELS_PER_IMAGE || per * im->dim[0] > IDX_MAX_PIXELS)
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: offset 4: %u images of %u x %u pixels: absurd dimensions", im->path,
                   im->dim[0], im->dim[1], im->dim[2]);
  im->expected = 16 + per * im->dim[0];
  return 0;
}

/* Room for want items of elem bytes in *arr (*cap of them), doubling.
 * Arrays grow as data arrives, never to what a header merely claims. */
static bool room_for(void **arr, uint64_t *cap, uint64_t want, size_t elem) {
  if (want <= *cap)
    return true;
  uint64_t ncap = *cap ? *cap : 4096;
  while (ncap < want)
    ncap *= 2;
  void *p = realloc(*arr, ncap * elem);
  if (!p)
    return false;
  *arr = p;
  *cap = ncap;
  return true;
}

/* The n labels, as doubles. */
static int read_labels(struct idx_file *lb, double **out, char *err, size_t errlen) {
  unsigned char buf[1 << 16];
  uint64_t n = lb->dim[0], cap = 0;
  void *label = NULL;
  int rc = 0;
  for (uint64_t i = 0; i < n && !rc; i += sizeof buf) {
    size_t k = n - i < sizeof buf ? (size_t)(n - i) : sizeof buf;
    rc = idx_read(lb, buf, k, err, errlen);
    if (!rc && !room_for(&label, &cap, i + k, sizeof(double)))
      rc = io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", lb->path);
    for (size_t j = 0; j < k && !rc; j++)
      ((double *)label)[i + j] = buf[j];
  }
  if (!rc)
    rc = idx_expect_end(lb, err, errlen);
  if (rc)
    free(label);
  else
    *out = label;
  return rc;
}

/* The CSR of the images' non-zero pixels. */
struct idx_csr {
  void *row_off, *col, *val; /* uint64_t, uint32_t, float */
  uint64_t rows_cap, nnz, cap;
};

static bool csr_room(struct idx_csr *c, uint64_t more) {
  uint64_t cap = c->cap;
  if (!room_for(&c->col, &cap, c->nnz + more, sizeof(uint32_t)))
    return false;
  return room_for(&c->val, &c->cap, c->nnz + more, sizeof(float));
}

static void append_image(struct idx_csr *c, const unsigned char *px, uint64_t per, const float *scale) {
  uint32_t *col = c->col;
  float *val = c->val;
  for (uint64_t j = 0; j < per; j++) {
    if (px[j]) {
      col[c->nnz] = (uint32_t)j;
      val[c->nnz++] = scale[px[j]];
    }
  }
}

/* k images of per pixels from buf, rows first .. first+k-1. */
static int append_batch(struct idx_csr *c, const unsigned char *buf, uint64_t first, uint64_t k, uint64_t per,
                        const float *scale) {
  if (!room_for(&c->row_off, &c->rows_cap, first + k + 1, sizeof(uint64_t)))
    return DSANA_ENOMEM;
  for (uint64_t j = 0; j < k; j++) {
    if (!csr_room(c, per))
      return DSANA_ENOMEM;
    append_image(c, buf + j * per, per, scale);
    ((uint64_t *)c->row_off)[first + j + 1] = c->nnz;
  }
  return 0;
}

/* Give back the doubling's slack (never to 0 bytes). */
static void csr_trim(struct idx_csr *c) {
  uint64_t keep = c->nnz ? c->nnz : 1;
  void *col = realloc(c->col, keep * sizeof(uint32_t));
  c->col = col ? col : c->col;
  void *val = realloc(c->val, keep * sizeof(float));
  c->val = val ? val : c->val;
}

static int read_images(struct idx_file *im, struct idx_csr *c, char *err, size_t errlen) {
  uint64_t n = im->dim[0], per = (uint64_t)im->dim[1] * im->dim[2];
  uint64_t batch = per >= (1u << 20) ? 1 : (1u << 20) / per;
  float scale[256];
  for (int p = 0; p < 256; p++)
    scale[p] = (float)p / 255.0f;
  unsigned char *buf = malloc(batch * per);
  if (!buf || !room_for(&c->row_off, &c->rows_cap, 1, sizeof(uint64_t))) {
    free(buf);
    return io_errf(err, errlen, DSANA_ENOMEM, "%s: out of memory", im->path);
  }
  ((uint64_t *)c->row_off)[0] = 0;
  int rc = 0;
  for (uint64_t i = 0; i < n && !rc; i += batch) {
    uint64_t k = n - i < batch ? n - i : batch;
    rc = idx_read(im, buf, (size_t)(k * per), err, errlen);
    if (!rc)
      rc = append_batch(c, buf, i, k, per, scale);
    if (rc == DSANA_ENOMEM)
      io_errf(err, errlen, rc, "%s: out of memory at image %llu", im->path, (unsigned long long)i);
  }
  free(buf);
  if (!rc)
    csr_trim(c);
  return rc ? rc : idx_expect_end(im, err, errlen);
}

/* Both headers, compared, before any data. */
static int read_headers(struct idx_file *im, struct idx_file *lb, char *err, size_t errlen) {
  int rc = idx_header(im, IDX_IMAGES, err, errlen);
  if (!rc)
    rc = check_images(im, err, errlen);
  if (!rc)
    rc = idx_header(lb, IDX_LABELS, err, errlen);
  if (rc)
    return rc;
  lb->expected = 8 + (uint64_t)lb->dim[0];
  if (im->dim[0] != lb->dim[0])
    return io_errf(err, errlen, DSANA_EFORMAT, "%s: %u images, but %s: %u labels", im->path, im->dim[0], lb->path,
                   lb->dim[0]);
  return 0;
}

int dsana_dataset_from_idx(const char *images_path, const char *labels_path, struct dsana_dataset *ds, char *err,
                           size_t errlen) {
  struct idx_file im, lb;
  struct idx_csr c = {0};
  double *label = NULL;
  memset(ds, 0, sizeof *ds);
  if (!images_path || !labels_path)
    return io_errf(err, errlen, DSANA_EINVAL, "dataset_from_idx: NULL path");
  int rc = idx_open(&im, images_path, err, errlen);
  if (rc)
    return rc;
  rc = idx_open(&lb, labels_path, err, errlen);
  if (!rc) {
    rc = read_headers(&im, &lb, err, errlen);
    if (!rc)
      rc = read_labels(&lb, &label, err, errlen);
    if (!rc)
      rc = read_images(&im, &c, err, errlen);
    idx_close(&lb);
  }
  idx_close(&im);
  if (rc) {
    free(c.row_off);
    free(c.col);
    free(c.val);
    free(label);
    return rc;
  }
  return ds_adopt(ds, images_path, im.dim[0], (uint64_t)im.dim[1] * im.dim[2], c.nnz, c.row_off, c.col, c.val, true,
                  label, err, errlen);
}
