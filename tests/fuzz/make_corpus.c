/*
 * make_corpus.c - writes the seed corpora of the wire, msg, ckpt and zcodec
 * fuzz targets (tests/fuzz/corpus/{wire,msg,ckpt,zcodec}/) with the real encoders, so
 * the seeds follow the formats when they change: valid messages of each
 * kind and a few near misses, in each target's input layout (see the
 * targets' file comments).
 *
 *   cc -std=c11 -D_DEFAULT_SOURCE -I include -I src tests/fuzz/make_corpus.c \
 *      src/net/wire/wire.c src/net/wire/zcodec.c src/runtime/msg/msg.c src/runtime/msg/codec.c \
 *      src/runtime/record/checkpoint.c src/runtime/core/job.c src/io/file/outfile*.c \
 *      $(find src/util -name '*.c') \
 *      -lz -lzstd -lcjson -lm -lpthread -o /tmp/make_corpus && /tmp/make_corpus tests/fuzz/corpus
 *
 * Files it does not name (hand-made seeds) are left alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net/wire/wire.h"
#include "net/wire/zcodec.h"
#include "policy/sched.h"
#include "runtime/record/checkpoint.h"
#include "runtime/msg/event.h"
#include "runtime/msg/msg.h"

static const char *out_dir;

static void put(const char *target, const char *name, const void *a, size_t alen, const void *b, size_t blen) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s/%s", out_dir, target, name);
  FILE *f = fopen(path, "wb");
  if (!f || (alen && fwrite(a, 1, alen, f) != alen) || (blen && fwrite(b, 1, blen, f) != blen) || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

/* ---- wire: [limit selector][64-byte header][payload] ------------------- */

static void wire_seed(const char *name, uint8_t sel, const struct wire_hdr *h, const void *p, size_t len) {
  uint8_t b[1 + WIRE_HDR_BYTES];
  b[0] = sel;
  wire_encode(h, b + 1);
  put("wire", name, b, sizeof b, p, len);
}

static void wire_seeds(void) {
  static uint8_t payload[MSG_GLOBALS_BYTES];
  uint64_t keys[3] = {5, 9, 70};
  memcpy(payload, keys, sizeof keys);
  struct wire_hdr h = wire_hdr_make(WIRE_ITER_START, 0);
  h.iter = 3;
  h.payload_bytes = MSG_GLOBALS_BYTES;
  wire_seed("iter_start", 0, &h, payload, MSG_GLOBALS_BYTES);
  h = wire_hdr_make(WIRE_PULL, 0x02000001u);
  h.table = 1, h.iter = 4, h.flags = WIRE_F_SHARE_OK, h.key_lo = 0, h.key_hi = 500;
  wire_seed("pull_range", 0, &h, NULL, 0);
  h = wire_hdr_make(WIRE_PULL, 2);
  h.iter = 4, h.task = 17, h.flags = WIRE_F_KEYS, h.count = 3, h.key_lo = 5, h.key_hi = 71, h.payload_bytes = 24;
  wire_seed("pull_keys", 0, &h, keys, 24);
  h = wire_hdr_make(WIRE_PULL_REPLY, 1);
  h.iter = 4, h.task = 17, h.flags = WIRE_F_PACKED, h.count = 2, h.key_lo = 0, h.key_hi = 10, h.payload_bytes = 16;
  wire_seed("pull_reply_packed", 3, &h, payload, 16);
  h = wire_hdr_make(WIRE_PULL_REPLY, 1);
  h.iter = 5, h.chunk = 2, h.flags = WIRE_F_SHARED, h.buffer = 1, h.key_lo = 20, h.key_hi = 30;
  wire_seed("pull_reply_shared", 0, &h, NULL, 0);
  h = wire_hdr_make(WIRE_PUSH, 3);
  h.table = 2, h.iter = 4, h.task = 9, h.flags = WIRE_F_END | WIRE_F_KEYS, h.count = 2, h.key_lo = 5, h.key_hi = 10;
  h.payload_bytes = 32;
  wire_seed("push_end_keys", 1, &h, payload, 32);
  h = wire_hdr_make(WIRE_PUSH, 3);
  h.flags = WIRE_F_XSUM, h.count = 2, h.key_lo = 0, h.key_hi = 2, h.payload_bytes = 32;
  wire_seed("push_xsum", 0, &h, payload, 32);
  h = wire_hdr_make(WIRE_REGISTER, 0);
  h.payload_bytes = 11;
  wire_seed("register_var", 0, &h, "registering", 11);
  h = wire_hdr_make(WIRE_TASK_DONE, 2);
  h.count = 1, h.payload_bytes = 64 + 16 * 8;
  wire_seed("task_done", 0, &h, payload, 64 + 16 * 8);
  h = wire_hdr_make(WIRE_ABORT, 0);
  h.payload_bytes = 9;
  wire_seed("abort", 0, &h, "bad input", 9);
  h = wire_hdr_make(WIRE_STOP, 0);
  wire_seed("stop", 2, &h, NULL, 0);
  h = wire_hdr_make(WIRE_FETCH_AHEAD, 0);
  h.iter = 7;
  wire_seed("fetch_ahead", 0, &h, NULL, 0);
  /* near misses */
  h = wire_hdr_make(WIRE_HEARTBEAT, 1);
  h.magic ^= 0x20;
  wire_seed("bad_magic", 0, &h, NULL, 0);
  h = wire_hdr_make(WIRE_PUSH, 1);
  h.flags = 1u << 6;
  wire_seed("bad_unknown_flag", 0, &h, NULL, 0);
  h = wire_hdr_make(WIRE_PULL, 1);
  h.key_lo = 10, h.key_hi = 9;
  wire_seed("bad_inverted_range", 0, &h, NULL, 0);
  h = wire_hdr_make(WIRE_PUSH, 1);
  h.payload_bytes = 12;
  wire_seed("bad_partial_word", 0, &h, payload, 12);
  h = wire_hdr_make(WIRE_PUSH, 1);
  h.payload_bytes = 8;
  wire_seed("bad_over_limit", 2, &h, payload, 8);            /* selector 2: a limit of 0 */
  uint8_t v2[1 + 48] = {0, 'D', 'S', 'N', 'A', 2, 0, 13, 0}; /* a version-2 HEARTBEAT */
  put("wire", "bad_v2_header", v2, sizeof v2, NULL, 0);
  put("wire", "short", "\0DSNA\3\0", 7, NULL, 0);
}

/* ---- msg: [selector][payload] ------------------------------------------ */

static void msg_seed(const char *name, uint8_t sel, const void *p, size_t len) { put("msg", name, &sel, 1, p, len); }

static void msg_seeds(void) {
  static uint8_t buf[1 << 16];
  size_t len;
  struct msg_register r = {.role = ROLE_SERVER, .index = 1, .pid = 4242};
  strcpy(r.addr, "tcp://127.0.0.1:5555");
  strcpy(r.host, "node-1");
  if (msg_register_encode(&r, buf, sizeof buf, &len))
    exit(1);
  msg_seed("register_server", 0, buf, len);
  r = (struct msg_register){.role = ROLE_WORKER, .index = UINT32_MAX, .pid = 7};
  if (msg_register_encode(&r, buf, sizeof buf, &len))
    exit(1);
  msg_seed("register_worker_any", 0, buf, len);
  wire_put_u32(buf, ROLE_SCHEDULER);
  msg_seed("bad_register_role", 0, buf, len);

  struct msg_cluster_map *m = calloc(1, sizeof *m);
  m->n_servers = 1, m->n_workers = 1, m->sched = SCHED_STATIC, m->tasks_per_worker = 1;
  m->peer_timeout_s = 10, m->heartbeat_s = 1, m->max_payload = 4096;
  strcpy(m->app, "pagerank");
  strcpy(m->server_addr[0], "ipc:///tmp/s0");
  if (msg_map_encode(m, buf, sizeof buf, &len))
    exit(1);
  msg_seed("map_minimal", 1, buf, len);
  m->heartbeat_s = 0;
  if (msg_map_encode(m, buf, sizeof buf, &len))
    exit(1);
  msg_seed("bad_map_heartbeat", 1, buf, len);
  m->heartbeat_s = 0.5, m->n_servers = 2, m->n_workers = 3, m->your_index = 2, m->sched = SCHED_DYNAMIC;
  m->tasks_per_worker = 16, m->flags = MAP_F_FETCH_AHEAD, m->n_spaces = 2, m->chunk_keys[0] = 4096;
  m->chunk_keys[1] = 0, m->max_payload = 64 << 20;
  strcpy(m->scenario_path, "/tmp/scenario.json");
  strcpy(m->trace_path, "/tmp/trace.json");
  strcpy(m->checkpoint_dir, "/tmp/ckpt");
  m->checkpoint_every = 5;
  strcpy(m->resume_dir, "/tmp/ckpt-old");
  m->resume_iter = 10;
  m->args.n = 2;
  strcpy(m->args.value[0], "graph.bin");
  strcpy(m->args.name[1], "tol");
  strcpy(m->args.value[1], "1e-9");
  strcpy(m->server_addr[1], "ipc:///tmp/s1");
  if (msg_map_encode(m, buf, sizeof buf, &len))
    exit(1);
  msg_seed("map_two_servers", 1, buf, len);
  msg_seed("bad_map_truncated", 1, buf, len - 5);
  wire_put_u32(buf + 24, DSANA_MAX_TABLES + 1); /* n_spaces */
  msg_seed("bad_map_spaces", 1, buf, len);
  free(m);

  struct msg_task_done d = {.task = 3,
                            .compute_ns = 1000,
                            .setup_ns = 20,
                            .idle_ns = 3,
                            .bytes_in = 4096,
                            .bytes_out = 512,
                            .overlap_ns = 7,
                            .overrun_ns = 1,
                            .bytes_in_raw = 8192};
  for (int k = 0; k < 8; k++)
    d.sums[k] =
        (dsana_xsum){.lo = (unsigned __int128)(((__int128)k - 2) * ((__int128)1 << 70)), .hi = k < 2 ? UINT64_MAX : 0};
  buf[0] = 8; /* sums per record */
  msg_task_done_encode(&d, 8, buf + 1);
  d.task = 4;
  msg_task_done_encode(&d, 8, buf + 1 + msg_task_done_bytes(8));
  msg_seed("task_done", 2, buf, 1 + 2 * msg_task_done_bytes(8));
  msg_sums_encode(d.sums, 4, buf);
  msg_seed("sums", 3, buf, 4 * MSG_XSUM_BYTES);
  double g[DSANA_MAX_GLOBALS] = {0.85, 1e-9, -0.0, 3};
  msg_globals_encode(g, buf);
  msg_seed("globals", 4, buf, MSG_GLOBALS_BYTES);
}

/* ---- ckpt: [u16 manifest length][manifest][shard file] ---------------- */

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  static uint8_t buf[1 << 17];
  if (!f)
    exit(1);
  *len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  uint8_t *copy = malloc(*len);
  memcpy(copy, buf, *len);
  return copy;
}

static void ckpt_seed(const char *name, const uint8_t *man, size_t mlen, const uint8_t *sh, size_t slen) {
  uint8_t n[2] = {(uint8_t)mlen, (uint8_t)(mlen >> 8)};
  uint8_t *both = malloc(mlen + slen + 1);
  memcpy(both, man, mlen);
  memcpy(both + mlen, sh, slen);
  put("ckpt", name, n, 2, both, mlen + slen);
  free(both);
}

static void ckpt_seeds(void) {
  char dir[] = "/tmp/dsana-make-corpus-XXXXXX", path[1100], err[1400];
  if (!mkdtemp(dir))
    exit(1);
  /* the fuzz target's job: one server, iteration 5, 64 x 1 and 32 x 2 */
  struct ckpt_shard sh = {
      .iter = 5, .n_servers = 1, .server = 0, .shape = {.n_tables = 2, .n_keys = {64, 32}, .width = {1, 2}}};
  static double a[64], b[64];
  for (int i = 0; i < 64; i++)
    a[i] = i * 0.25, b[i] = -i;
  double *tables[2] = {a, b};
  struct ckpt_manifest m = {.iter = 5, .n_servers = 1, .shape = sh.shape, .residual = 1.5e-7};
  m.globals[0] = 0.85;
  m.globals[1] = 1.0 / 3;
  if (ckpt_write_shard(dir, &sh, tables, err, sizeof err) || ckpt_write_manifest(dir, &m, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(1);
  }
  size_t mlen, slen;
  snprintf(path, sizeof path, "%s/manifest", dir);
  uint8_t *man = slurp(path, &mlen);
  snprintf(path, sizeof path, "%s/shard-0.ckpt", dir);
  uint8_t *shard = slurp(path, &slen);
  ckpt_seed("valid", man, mlen, shard, slen);
  shard[slen - 3] ^= 1;
  ckpt_seed("bad_data_crc", man, mlen, shard, slen);
  shard[slen - 3] ^= 1;
  shard[20] ^= 1; /* the server index, under the header checksum */
  ckpt_seed("bad_header_crc", man, mlen, shard, slen);
  shard[20] ^= 1;
  ckpt_seed("truncated_shard", man, mlen, shard, slen - 8);
  free(man);
  free(shard);
  unlink(path);
  /* other jobs: three tables on one server (valid on its own), and on two
   * servers (shard 0 of 2 only) */
  for (uint32_t servers = 1; servers <= 2; servers++) {
    sh = (struct ckpt_shard){.iter = 9,
                             .n_servers = servers,
                             .server = 0,
                             .shape = {.n_tables = 3, .n_keys = {10, 10, 3}, .width = {1, 4, 2}}};
    double *three[3] = {a, b, a};
    m = (struct ckpt_manifest){.iter = 9, .n_servers = servers, .shape = sh.shape};
    if (ckpt_write_shard(dir, &sh, three, err, sizeof err) || ckpt_write_manifest(dir, &m, err, sizeof err))
      exit(1);
    snprintf(path, sizeof path, "%s/manifest", dir);
    man = slurp(path, &mlen);
    unlink(path);
    snprintf(path, sizeof path, "%s/shard-0.ckpt", dir);
    shard = slurp(path, &slen);
    unlink(path);
    ckpt_seed(servers == 1 ? "other_job" : "other_job_two_servers", man, mlen, shard, slen);
    free(man);
    free(shard);
  }
  rmdir(dir);
}

/* ---- zcodec: [base bit | count-1 high bits][count-1 low byte][payload] -- */

static void zcodec_seed(const char *name, uint64_t n, int base, const uint8_t *p, size_t len) {
  uint8_t sel[2] = {(uint8_t)(((n - 1) >> 8) << 1 | (base & 1)), (uint8_t)(n - 1)};
  put("zcodec", name, sel, 2, p, len);
}

static void zcodec_seeds(void) {
  static double v[4096], b[4096];
  static uint8_t enc[4096 * 8];
  struct zcodec *z;
  if (zcodec_create(&z))
    exit(1);
  for (int i = 0; i < 4096; i++) {
    b[i] = 1.0 / (i + 1);
    v[i] = b[i] * (1.0 + 1e-6 * (i % 7));
  }
  size_t len;
  if (zcodec_encode(z, v, b, 4096, enc, sizeof enc, &len))
    exit(1);
  zcodec_seed("converging_4096", 4096, 1, enc, len);
  zcodec_seed("bad_count_4095", 4095, 1, enc, len);
  zcodec_seed("bad_truncated", 4096, 1, enc, len / 2);
  if (zcodec_encode(z, v, NULL, 100, enc, sizeof enc, &len))
    exit(1);
  zcodec_seed("plain_100", 100, 0, enc, len);
  enc[len / 2] ^= 0x10;
  zcodec_seed("bad_flipped_100", 100, 0, enc, len);
  memset(v, 0, sizeof v);
  if (zcodec_encode(z, v, NULL, 1, enc, sizeof enc, &len) != DSANA_ERANGE ||
      zcodec_encode(z, v, NULL, 4096, enc, sizeof enc, &len))
    exit(1);
  zcodec_seed("zeros_4096", 4096, 0, enc, len);
  zcodec_destroy(z);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  out_dir = argv[1];
  wire_seeds();
  msg_seeds();
  ckpt_seeds();
  zcodec_seeds();
  return 0;
}
