/* checkpoint.c - see checkpoint.h. Shard file (version 2): a header
 * (magic "DSNACKPT", version, iteration, servers, server, tables; per
 * table its keys and width; CRC-32 of the data; CRC-32 of the header),
 * then the server's shard of every table. The manifest is text with hex floats (%a), so
 * the globals round-trip exactly. */
#include "runtime/record/checkpoint.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "dsana/outfile.h"
#include "net/wire/wire.h"
#include "runtime/core/config.h"
#include "runtime/core/job.h"
#include "util/text/log.h"
#include "util/text/status.h"

/* the scheduler copies run_config.job_identity into the manifest */
_Static_assert(CKPT_IDENTITY_MAX == CONFIG_IDENTITY_MAX, "identity sizes differ");

#define CKPT_MAGIC "DSNACKPT"
#define CKPT_VERSION 2
#define CKPT_HDR 32

static void shard_path(char *buf, size_t len, const char *dir, uint32_t s) {
  snprintf(buf, len, "%s/shard-%u.ckpt", dir, s);
}

/* Write the parts to path atomically (dsana/outfile.h: an unnamed
 * temporary in DIR, fsync, rename), so a crash keeps the previous file. */
static int write_atomic(const char *path, const void *const *parts, const size_t *lens, int n, char *err,
                        size_t errlen) {
  struct dsana_outfile *o;
  char why[1200] = "";
  int rc = dsana_outfile_open(path, 0, &o, why, sizeof why);
  for (int i = 0; !rc && i < n; i++)
    rc = dsana_outfile_write(o, parts[i], lens[i]);
  if (o)
    rc = dsana_outfile_commit(o, why, sizeof why);
  if (rc)
    snprintf(err, errlen, "cannot write the checkpoint: %s", why);
  return rc;
}

void ckpt_report_failure(const char *err) {
  static atomic_bool reported;
  if (!atomic_exchange(&reported, true))
    log_error("%s (the job goes on; later checkpoint failures are not repeated)", err);
  status_mark_incomplete();
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

/* Bytes of server s's shard of table t. */
static size_t table_bytes(const struct ckpt_shard *sh, uint32_t t) {
  uint64_t lo, hi;
  shard_range(sh->shape.n_keys[t], sh->n_servers, sh->server, &lo, &hi);
  return (size_t)(hi - lo) * sh->shape.width[t] * sizeof(double);
}

/* The header: 48 fixed bytes, 16 per table (keys, width), CRCs of the
 * data and of the header itself. */
static size_t shard_header(const struct ckpt_shard *sh, uint32_t data_crc, uint8_t *h) {
  size_t len = CKPT_HDR + 16 * (size_t)sh->shape.n_tables + 8;
  memset(h, 0, len);
  memcpy(h, CKPT_MAGIC, 8);
  wire_put_u32(h + 8, CKPT_VERSION);
  wire_put_u32(h + 12, sh->iter);
  wire_put_u32(h + 16, sh->n_servers);
  wire_put_u32(h + 20, sh->server);
  wire_put_u32(h + 24, sh->shape.n_tables);
  for (uint32_t t = 0; t < sh->shape.n_tables; t++) {
    wire_put_u64(h + CKPT_HDR + 16 * t, sh->shape.n_keys[t]);
    wire_put_u32(h + CKPT_HDR + 16 * t + 8, sh->shape.width[t]);
  }
  wire_put_u32(h + len - 8, data_crc);
  wire_put_u32(h + len - 4, crc_of(h, len - 4));
  return len;
}

int ckpt_write_shard(const char *dir, const struct ckpt_shard *sh, double *const *tables, char *err, size_t errlen) {
  uLong c = crc32(0L, Z_NULL, 0);
  for (uint32_t t = 0; t < sh->shape.n_tables; t++)
    c = crc32_z(c, (const Bytef *)tables[t], table_bytes(sh, t));
  uint8_t h[CKPT_HDR + 16 * DSANA_MAX_TABLES + 8];
  const void *parts[1 + DSANA_MAX_TABLES] = {h};
  size_t lens[1 + DSANA_MAX_TABLES] = {shard_header(sh, (uint32_t)c, h)};
  for (uint32_t t = 0; t < sh->shape.n_tables; t++) {
    parts[1 + t] = tables[t];
    lens[1 + t] = table_bytes(sh, t);
  }
  char path[1100];
  shard_path(path, sizeof path, dir, sh->server);
  return write_atomic(path, parts, lens, 1 + (int)sh->shape.n_tables, err, errlen);
}

static int read_exact(FILE *f, void *p, size_t len) { return fread(p, 1, len, f) == len ? 0 : -1; }

/* Read and check the header against want's. */
static int read_header(FILE *f, const char *path, const struct ckpt_shard *want, uint32_t *data_crc, char *err,
                       size_t errlen) {
  uint8_t h[CKPT_HDR + 16 * DSANA_MAX_TABLES + 8], expect[sizeof h];
  size_t len = CKPT_HDR + 16 * (size_t)want->shape.n_tables + 8;
  if (read_exact(f, h, CKPT_HDR) != 0 || memcmp(h, CKPT_MAGIC, 8) != 0) {
    snprintf(err, errlen, "%s: not a dsana checkpoint (or truncated header)", path);
    return DSANA_EFORMAT;
  }
  if (wire_get_u32(h + 8) != CKPT_VERSION) {
    snprintf(err, errlen, "%s: version %u not supported (this build reads %d)", path, wire_get_u32(h + 8),
             CKPT_VERSION);
    return DSANA_EFORMAT;
  }
  if (wire_get_u32(h + 24) != want->shape.n_tables || read_exact(f, h + CKPT_HDR, len - CKPT_HDR) != 0 ||
      wire_get_u32(h + len - 4) != crc_of(h, len - 4)) {
    snprintf(err, errlen, "%s: another job's tables, or a header checksum mismatch (corrupt)", path);
    return DSANA_EFORMAT;
  }
  *data_crc = wire_get_u32(h + len - 8);
  shard_header(want, *data_crc, expect);
  if (memcmp(h, expect, len) != 0) {
    snprintf(err, errlen, "%s: belongs to another job or iteration (iteration %u, %u servers)", path,
             wire_get_u32(h + 12), wire_get_u32(h + 16));
    return DSANA_EFORMAT;
  }
  return 0;
}

/* The next bytes of f, added to the data CRC *c: into dst, or with dst
 * NULL (only checking) through a small buffer, so checking a shard takes
 * no memory of its size whatever its header declares. -1 if f ends first. */
static int read_table(FILE *f, double *dst, size_t bytes, uLong *c) {
  if (dst) {
    if (read_exact(f, dst, bytes) != 0)
      return -1;
    *c = crc32_z(*c, (const Bytef *)dst, bytes);
    return 0;
  }
  uint8_t chunk[16384];
  while (bytes > 0) {
    size_t n = bytes < sizeof chunk ? bytes : sizeof chunk;
    if (read_exact(f, chunk, n) != 0)
      return -1;
    *c = crc32_z(*c, chunk, n);
    bytes -= n;
  }
  return 0;
}

int ckpt_read_shard(const char *dir, const struct ckpt_shard *want, double *const *tables, char *err, size_t errlen) {
  char path[1100];
  shard_path(path, sizeof path, dir, want->server);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return DSANA_EIO;
  }
  uint32_t want_crc = 0;
  int rc = read_header(f, path, want, &want_crc, err, errlen);
  uLong c = crc32(0L, Z_NULL, 0);
  for (uint32_t t = 0; rc == 0 && t < want->shape.n_tables; t++) {
    if (read_table(f, tables ? tables[t] : NULL, table_bytes(want, t), &c) != 0) {
      snprintf(err, errlen, "%s: truncated (table %u)", path, t);
      rc = DSANA_EFORMAT;
    }
  }
  if (rc == 0 && ((uint32_t)c != want_crc || fgetc(f) != EOF)) {
    snprintf(err, errlen, "%s: data checksum mismatch or trailing bytes (corrupt)", path);
    rc = DSANA_EFORMAT;
  }
  fclose(f);
  return rc;
}

int ckpt_write_manifest(const char *dir, const struct ckpt_manifest *m, char *err, size_t errlen) {
  static char text[64 * 1024]; /* 512 globals in %a: ~16 KiB, the identity <= 8 KiB */
  int n = snprintf(text, sizeof text, "dsana-checkpoint 2\niter %u\nservers %u\ntables %u\nresidual %a\n", m->iter,
                   m->n_servers, m->shape.n_tables, m->residual);
  for (uint32_t t = 0; t < m->shape.n_tables; t++)
    n += snprintf(text + n, sizeof text - (size_t)n, "table %llu %u\n", (unsigned long long)m->shape.n_keys[t],
                  m->shape.width[t]);
  for (int g = 0; g < DSANA_MAX_GLOBALS; g++)
    n += snprintf(text + n, sizeof text - (size_t)n, "global %a\n", m->globals[g]);
  for (const char *line = m->identity, *end; *line && (end = strchr(line, '\n')) != NULL; line = end + 1)
    n += snprintf(text + n, sizeof text - (size_t)n, "job %.*s\n", (int)(end - line), line);
  n += snprintf(text + n, sizeof text - (size_t)n, "crc %08x\n", crc_of(text, (size_t)n));
  char path[1100];
  snprintf(path, sizeof path, "%s/manifest", dir);
  const void *parts[1] = {text};
  size_t lens[1] = {(size_t)n};
  return write_atomic(path, parts, lens, 1, err, errlen);
}

/* The next "\nKEY" at or after at, before end; NULL if none. strstr()
 * would do, but under the sanitizers each call measures the whole rest of
 * the text, and a manifest has 512 global lines. */
static const char *find_line(const char *at, const char *end, const char *key) {
  size_t k = strlen(key);
  while ((at = memchr(at, '\n', (size_t)(end - at))) != NULL) {
    if ((size_t)(end - at) > k && memcmp(at + 1, key, k) == 0)
      return at;
    at++;
  }
  return NULL;
}

/* The "job ..." lines of text[0, text_end) before the crc, without their prefix. */
static void read_identity(const char *text, const char *text_end, const char *stop, struct ckpt_manifest *m) {
  size_t n = 0;
  for (const char *at = text; (at = find_line(at, text_end, "job ")) != NULL && (!stop || at < stop); at++) {
    const char *line = at + 5, *end = strchr(line, '\n');
    if (!end || n + (size_t)(end - line) + 2 > sizeof m->identity)
      break;
    memcpy(m->identity + n, line, (size_t)(end - line) + 1);
    n += (size_t)(end - line) + 1;
  }
  m->identity[n] = '\0';
}

int ckpt_read_manifest(const char *dir, struct ckpt_manifest *m, char *err, size_t errlen) {
  char path[1100];
  static char text[64 * 1024];
  snprintf(path, sizeof path, "%s/manifest", dir);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: %s (no complete checkpoint in %s)", path, strerror(errno), dir);
    return DSANA_EIO;
  }
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  const char *end = text + strlen(text); /* the text stops at a NUL */
  char *crc_at = strstr(text, "crc ");
  unsigned crc = 0;
  memset(m, 0, sizeof *m);
  int got = sscanf(text, "dsana-checkpoint 2\niter %u\nservers %u\ntables %u\nresidual %la\n", &m->iter, &m->n_servers,
                   &m->shape.n_tables, &m->residual);
  uint32_t tables = 0;
  for (const char *at = text; got == 4 && tables < m->shape.n_tables && tables < DSANA_MAX_TABLES &&
                              (at = find_line(at, end, "table ")) != NULL;
       at++) {
    unsigned long long keys;
    if (sscanf(at + 1, "table %llu %u", &keys, &m->shape.width[tables]) == 2 && keys > 0 && m->shape.width[tables] > 0)
      m->shape.n_keys[tables++] = keys;
  }
  int globals = 0;
  for (const char *at = text; globals < DSANA_MAX_GLOBALS && (at = find_line(at, end, "global ")) != NULL; at++) {
    /* strtod, not sscanf: glibc's sscanf measures its whole input, the rest of the text, on each of 512 lines */
    char *num_end;
    double v = strtod(at + 8, &num_end);
    if (num_end != at + 8)
      m->globals[globals++] = v;
  }
  read_identity(text, end, crc_at, m);
  if (!crc_at || sscanf(crc_at, "crc %x", &crc) != 1 || crc != crc_of(text, (size_t)(crc_at - text)) || got != 4 ||
      globals != DSANA_MAX_GLOBALS || m->n_servers == 0 || m->shape.n_tables == 0 ||
      m->shape.n_tables > DSANA_MAX_TABLES || tables != m->shape.n_tables) {
    snprintf(err, errlen, "%s: malformed or corrupt manifest", path);
    return DSANA_EFORMAT;
  }
  return 0;
}

int ckpt_validate(const char *dir, struct ckpt_manifest *m, char *err, size_t errlen) {
  int rc = ckpt_read_manifest(dir, m, err, errlen);
  for (uint32_t s = 0; rc == 0 && s < m->n_servers; s++) {
    struct ckpt_shard sh = {.iter = m->iter, .n_servers = m->n_servers, .server = s, .shape = m->shape};
    rc = ckpt_read_shard(dir, &sh, NULL, err, errlen);
  }
  return rc;
}
