/*
 * fuzz_msg.c - libFuzzer target for the runtime's control-message decoders
 * (runtime/msg/msg.c on runtime/msg/codec.c): the registration and the cluster map,
 * which arrive from peers not yet trusted, plus the fixed-layout records.
 *
 * Input: one selector byte, then the payload.
 *   sel % 5 == 0  msg_register_decode    1  msg_map_decode
 *           2  TASK_DONE records: the next byte is the sum count (mod
 *              DSANA_MAX_SUMS + 1), the rest whole records
 *           3  sums (MSG_XSUM_BYTES each) 4  globals (MSG_GLOBALS_BYTES)
 * Beyond "no crash", an accepted payload must obey the limits the decoder
 * promises (roles, counts, flags, NUL-terminated strings), and encoding it
 * again must decode to the same message; when it holds no string with an
 * embedded NUL (which the decoder accepts and truncates at) the bytes must
 * be the input's exactly. The fixed layouts have no failure path: they
 * must round-trip byte for byte (a TASK_DONE record's reserved word
 * excepted, which the encoder writes as 0).
 *
 * Build and run: tests/fuzz/run.sh SECONDS msg
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/wire/wire.h"
#include "policy/sched.h"
#include "runtime/msg/event.h"
#include "runtime/msg/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check_str(const char *s, size_t cap) {
  if (memchr(s, '\0', cap) == NULL)
    abort();
}

static void fuzz_register(const uint8_t *p, size_t len) {
  struct msg_register m, again;
  if (msg_register_decode(p, len, &m) != 0)
    return;
  if (m.role != ROLE_SERVER && m.role != ROLE_WORKER)
    abort();
  fuzz_check_str(m.addr, sizeof m.addr);
  fuzz_check_str(m.host, sizeof m.host);
  uint8_t *buf = malloc(len ? len : 1);
  size_t out = 0;
  if (!buf)
    return;
  if (msg_register_encode(&m, buf, len, &out) != 0 || msg_register_decode(buf, out, &again) != 0 ||
      again.role != m.role || again.index != m.index || again.pid != m.pid || strcmp(again.addr, m.addr) != 0 ||
      strcmp(again.host, m.host) != 0 || (out == len && memcmp(buf, p, len) != 0))
    abort();
  free(buf);
}

static int fuzz_map_equal(const struct msg_cluster_map *a, const struct msg_cluster_map *b) {
  if (a->n_servers != b->n_servers || a->n_workers != b->n_workers || a->your_index != b->your_index ||
      a->sched != b->sched || a->tasks_per_worker != b->tasks_per_worker || a->flags != b->flags ||
      a->n_spaces != b->n_spaces || a->max_payload != b->max_payload ||
      memcmp(&a->peer_timeout_s, &b->peer_timeout_s, sizeof(double)) != 0 ||
      memcmp(&a->heartbeat_s, &b->heartbeat_s, sizeof(double)) != 0 || strcmp(a->app, b->app) != 0 ||
      strcmp(a->scenario_path, b->scenario_path) != 0 || strcmp(a->trace_path, b->trace_path) != 0 ||
      strcmp(a->checkpoint_dir, b->checkpoint_dir) != 0 || a->checkpoint_every != b->checkpoint_every ||
      strcmp(a->resume_dir, b->resume_dir) != 0 || a->resume_iter != b->resume_iter || a->args.n != b->args.n)
    return 0;
  for (uint32_t i = 0; i < a->n_spaces; i++)
    if (a->chunk_keys[i] != b->chunk_keys[i])
      return 0;
  for (uint32_t i = 0; i < a->args.n; i++)
    if (strcmp(a->args.name[i], b->args.name[i]) != 0 || strcmp(a->args.value[i], b->args.value[i]) != 0)
      return 0;
  for (uint32_t i = 0; i < a->n_servers; i++)
    if (strcmp(a->server_addr[i], b->server_addr[i]) != 0)
      return 0;
  return 1;
}

static void fuzz_map(const uint8_t *p, size_t len) {
  /* About 330 KB each: too big for the stack, allocated once. */
  static struct msg_cluster_map *m, *again;
  if (!m && (!(m = calloc(1, sizeof *m)) || !(again = calloc(1, sizeof *again))))
    abort();
  if (msg_map_decode(p, len, m) != 0)
    return;
  if (m->n_servers < 1 || m->n_servers > MSG_MAX_SERVERS || m->n_workers < 1 || m->args.n > MSG_MAX_ARGS ||
      !(m->peer_timeout_s > 0) || !(m->heartbeat_s > 0) || m->tasks_per_worker < 1 || m->sched > SCHED_DYNAMIC ||
      m->n_spaces > DSANA_MAX_TABLES || (m->flags & ~MAP_F_ALL) != 0 || m->max_payload < 4096)
    abort();
  fuzz_check_str(m->app, sizeof m->app);
  fuzz_check_str(m->scenario_path, sizeof m->scenario_path);
  fuzz_check_str(m->trace_path, sizeof m->trace_path);
  fuzz_check_str(m->checkpoint_dir, sizeof m->checkpoint_dir);
  fuzz_check_str(m->resume_dir, sizeof m->resume_dir);
  for (uint32_t i = 0; i < m->args.n; i++) {
    fuzz_check_str(m->args.name[i], sizeof m->args.name[i]);
    fuzz_check_str(m->args.value[i], sizeof m->args.value[i]);
  }
  for (uint32_t i = 0; i < m->n_servers; i++)
    fuzz_check_str(m->server_addr[i], sizeof m->server_addr[i]);
  uint8_t *buf = malloc(len ? len : 1);
  size_t out = 0;
  if (!buf)
    return;
  if (msg_map_encode(m, buf, len, &out) != 0 || msg_map_decode(buf, out, again) != 0 || !fuzz_map_equal(m, again) ||
      (out == len && memcmp(buf, p, len) != 0))
    abort();
  free(buf);
}

/* Whole TASK_DONE records of n_sums sums each, decoded and encoded again. */
static void fuzz_task_done(const uint8_t *p, size_t len) {
  if (len < 1)
    return;
  uint32_t n_sums = p[0] % (DSANA_MAX_SUMS + 1);
  size_t rec = msg_task_done_bytes(n_sums);
  uint8_t buf[72 + MSG_XSUM_BYTES * DSANA_MAX_SUMS];
  if (rec != 72 + MSG_XSUM_BYTES * (size_t)n_sums)
    abort();
  for (size_t at = 1; len - at >= rec; at += rec) {
    struct msg_task_done d;
    msg_task_done_decode(p + at, n_sums, &d);
    for (uint32_t k = n_sums; k < DSANA_MAX_SUMS; k++)
      if (d.sums[k].lo != 0 || d.sums[k].hi != 0 || d.sums[k].flags != 0)
        abort();
    msg_task_done_encode(&d, n_sums, buf);
    if (memcmp(buf, p + at, 4) != 0 || wire_get_u32(buf + 4) != 0 || memcmp(buf + 8, p + at + 8, rec - 8) != 0)
      abort();
  }
}

/* The fixed-size payloads have no failure path: they must round-trip. */
static void fuzz_fixed(unsigned sel, const uint8_t *p, size_t len) {
  static uint8_t
      buf[MSG_GLOBALS_BYTES > MSG_XSUM_BYTES * DSANA_MAX_SUMS ? MSG_GLOBALS_BYTES : MSG_XSUM_BYTES * DSANA_MAX_SUMS];
  if (sel == 3) {
    uint32_t n = (uint32_t)(len / MSG_XSUM_BYTES < DSANA_MAX_SUMS ? len / MSG_XSUM_BYTES : DSANA_MAX_SUMS);
    dsana_xsum s[DSANA_MAX_SUMS];
    msg_sums_decode(p, n, s);
    msg_sums_encode(s, n, buf);
    if (memcmp(buf, p, MSG_XSUM_BYTES * (size_t)n) != 0)
      abort();
  } else if (sel == 4 && len >= MSG_GLOBALS_BYTES) {
    static double g[DSANA_MAX_GLOBALS];
    msg_globals_decode(p, g);
    msg_globals_encode(g, buf);
    if (memcmp(buf, p, MSG_GLOBALS_BYTES) != 0)
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  unsigned sel = data[0] % 5u;
  if (sel == 0)
    fuzz_register(data + 1, size - 1);
  else if (sel == 1)
    fuzz_map(data + 1, size - 1);
  else if (sel == 2)
    fuzz_task_done(data + 1, size - 1);
  else
    fuzz_fixed(sel, data + 1, size - 1);
  return 0;
}
