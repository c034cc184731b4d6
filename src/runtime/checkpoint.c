/* checkpoint.c - see checkpoint.h. Shard file: a 64-byte header (magic
 * "DSNACKPT", version, fields, CRC-32 of the data, CRC-32 of the header),
 * then the tables' values. The manifest is text with hex floats (%a), so
 * the globals round-trip exactly. */
#include "runtime/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "net/wire.h"
#include "runtime/job.h"

#define CKPT_MAGIC "DSNACKPT"
#define CKPT_VERSION 1
#define CKPT_HDR 64

static void shard_path(char *buf, size_t len, const char *dir, uint32_t s) {
  snprintf(buf, len, "%s/shard-%u.ckpt", dir, s);
}

/* Write len bytes to path atomically: temporary file, fsync, rename. */
static int write_atomic(const char *path, const void *const *parts, const size_t *lens, int n, char *err,
                        size_t errlen) {
  char tmp[1200];
  snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int ok = fd >= 0;
  for (int i = 0; ok && i < n; i++) {
    const char *p = parts[i];
    for (size_t at = 0; ok && at < lens[i];) {
      ssize_t w = write(fd, p + at, lens[i] - at);
      if (w < 0 && errno == EINTR)
        continue;
      ok = w > 0;
      at += ok ? (size_t)w : 0;
    }
  }
  ok = ok && fsync(fd) == 0;
  if (fd >= 0 && close(fd) != 0)
    ok = 0;
  if (!ok || rename(tmp, path) != 0) {
    snprintf(err, errlen, "%s: cannot write the checkpoint: %s", path, strerror(errno));
    unlink(tmp);
    return DSANA_EIO;
  }
  return 0;
}

static uint32_t crc_of(const void *p, size_t len) {
  uLong c = crc32(0L, Z_NULL, 0);
  const Bytef *b = p;
  while (len > 0) {
    uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
    c = crc32(c, b, n);
    b += n;
    len -= n;
  }
  return (uint32_t)c;
}

static void shard_header(const struct ckpt_shard *sh, uint32_t data_crc, uint8_t h[CKPT_HDR]) {
  memset(h, 0, CKPT_HDR);
  memcpy(h, CKPT_MAGIC, 8);
  wire_put_u32(h + 8, CKPT_VERSION);
  wire_put_u32(h + 12, sh->iter);
  wire_put_u32(h + 16, sh->n_servers);
  wire_put_u32(h + 20, sh->server);
  wire_put_u32(h + 24, sh->n_tables);
  wire_put_u64(h + 32, sh->n_keys);
  wire_put_u64(h + 40, sh->lo);
  wire_put_u64(h + 48, sh->hi);
  wire_put_u32(h + 56, data_crc);
  wire_put_u32(h + 60, crc_of(h, 60));
}

int ckpt_write_shard(const char *dir, const struct ckpt_shard *sh, double *const *tables, char *err, size_t errlen) {
  size_t bytes = (size_t)(sh->hi - sh->lo) * sizeof(double);
  uLong c = crc32(0L, Z_NULL, 0);
  for (uint32_t t = 0; t < sh->n_tables; t++)
    c = crc32(c, (const Bytef *)tables[t], (uInt)bytes);
  uint8_t h[CKPT_HDR];
  shard_header(sh, (uint32_t)c, h);
  const void *parts[1 + DSANA_MAX_TABLES] = {h};
  size_t lens[1 + DSANA_MAX_TABLES] = {CKPT_HDR};
  for (uint32_t t = 0; t < sh->n_tables; t++) {
    parts[1 + t] = tables[t];
    lens[1 + t] = bytes;
  }
  char path[1100];
  shard_path(path, sizeof path, dir, sh->server);
  return write_atomic(path, parts, lens, 1 + (int)sh->n_tables, err, errlen);
}

static int read_exact(FILE *f, void *p, size_t len) { return fread(p, 1, len, f) == len ? 0 : -1; }

int ckpt_read_shard(const char *dir, const struct ckpt_shard *want, double *const *tables, char *err,
                    size_t errlen) {
  char path[1100];
  shard_path(path, sizeof path, dir, want->server);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return DSANA_EIO;
  }
  uint8_t h[CKPT_HDR], expect[CKPT_HDR];
  int rc = DSANA_EFORMAT;
  size_t bytes = (size_t)(want->hi - want->lo) * sizeof(double);
  if (read_exact(f, h, CKPT_HDR) != 0 || memcmp(h, CKPT_MAGIC, 8) != 0)
    snprintf(err, errlen, "%s: not a dsana checkpoint (or truncated header)", path);
  else if (wire_get_u32(h + 60) != crc_of(h, 60))
    snprintf(err, errlen, "%s: header checksum mismatch (corrupt)", path);
  else if (wire_get_u32(h + 8) != CKPT_VERSION)
    snprintf(err, errlen, "%s: version %u not supported (this build reads %d)", path, wire_get_u32(h + 8), CKPT_VERSION);
  else if (shard_header(want, wire_get_u32(h + 56), expect), memcmp(h, expect, CKPT_HDR) != 0)
    snprintf(err, errlen, "%s: belongs to another job or iteration (iteration %u, %u servers, %llu keys)", path,
             wire_get_u32(h + 12), wire_get_u32(h + 16), (unsigned long long)wire_get_u64(h + 32));
  else
    rc = 0;
  uLong c = crc32(0L, Z_NULL, 0);
  double *scratch = rc == 0 && !tables ? malloc(bytes ? bytes : 8) : NULL;
  for (uint32_t t = 0; rc == 0 && t < want->n_tables; t++) {
    double *dst = tables ? tables[t] : scratch;
    if (!dst || read_exact(f, dst, bytes) != 0) {
      snprintf(err, errlen, "%s: truncated (table %u)", path, t);
      rc = DSANA_EFORMAT;
    } else {
      c = crc32(c, (const Bytef *)dst, (uInt)bytes);
    }
  }
  if (rc == 0 && ((uint32_t)c != wire_get_u32(h + 56) || fgetc(f) != EOF)) {
    snprintf(err, errlen, "%s: data checksum mismatch or trailing bytes (corrupt)", path);
    rc = DSANA_EFORMAT;
  }
  free(scratch);
  fclose(f);
  return rc;
}

int ckpt_write_manifest(const char *dir, const struct ckpt_manifest *m, char *err, size_t errlen) {
  char text[2048];
  int n = snprintf(text, sizeof text, "dsana-checkpoint 1\niter %u\nservers %u\ntables %u\nkeys %llu\nresidual %a\n",
                   m->iter, m->n_servers, m->n_tables, (unsigned long long)m->n_keys, m->residual);
  for (int g = 0; g < DSANA_MAX_GLOBALS; g++)
    n += snprintf(text + n, sizeof text - (size_t)n, "global %a\n", m->globals[g]);
  n += snprintf(text + n, sizeof text - (size_t)n, "crc %08x\n", crc_of(text, (size_t)n));
  char path[1100];
  snprintf(path, sizeof path, "%s/manifest", dir);
  const void *parts[1] = {text};
  size_t lens[1] = {(size_t)n};
  return write_atomic(path, parts, lens, 1, err, errlen);
}

int ckpt_read_manifest(const char *dir, struct ckpt_manifest *m, char *err, size_t errlen) {
  char path[1100], text[2048];
  snprintf(path, sizeof path, "%s/manifest", dir);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s (no complete checkpoint in %s)", path, strerror(errno), dir);
    return DSANA_EIO;
  }
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  char *crc_at = strstr(text, "crc ");
  unsigned crc = 0;
  unsigned long long keys = 0;
  memset(m, 0, sizeof *m);
  int got = sscanf(text, "dsana-checkpoint 1\niter %u\nservers %u\ntables %u\nkeys %llu\nresidual %la\n", &m->iter,
                   &m->n_servers, &m->n_tables, &keys, &m->residual);
  int globals = 0;
  for (const char *at = text; globals < DSANA_MAX_GLOBALS && (at = strstr(at, "\nglobal ")) != NULL; at++)
    globals += sscanf(at + 1, "global %la", &m->globals[globals]) == 1;
  m->n_keys = keys;
  if (!crc_at || sscanf(crc_at, "crc %x", &crc) != 1 || crc != crc_of(text, (size_t)(crc_at - text)) ||
      got != 5 || globals != DSANA_MAX_GLOBALS || m->n_servers == 0 || m->n_tables == 0 || m->n_tables > DSANA_MAX_TABLES) {
    snprintf(err, errlen, "%s: malformed or corrupt manifest", path);
    return DSANA_EFORMAT;
  }
  return 0;
}

int ckpt_validate(const char *dir, struct ckpt_manifest *m, char *err, size_t errlen) {
  int rc = ckpt_read_manifest(dir, m, err, errlen);
  for (uint32_t s = 0; rc == 0 && s < m->n_servers; s++) {
    struct ckpt_shard sh = {.iter = m->iter, .n_servers = m->n_servers, .server = s, .n_tables = m->n_tables,
                            .n_keys = m->n_keys};
    shard_range(m->n_keys, m->n_servers, s, &sh.lo, &sh.hi);
    rc = ckpt_read_shard(dir, &sh, NULL, err, errlen);
  }
  return rc;
}
