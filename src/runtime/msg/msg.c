/* msg.c - control message payloads (see msg.h). */
#include "runtime/msg/msg.h"

#include <string.h>

#include "net/wire/wire.h"
#include "policy/sched.h"
#include "runtime/msg/codec.h"
#include "runtime/msg/event.h"

int msg_register_encode(const struct msg_register *m, uint8_t *buf, size_t cap, size_t *len) {
  struct wbuf w;
  wbuf_init(&w, buf, cap);
  wbuf_u32(&w, m->role);
  wbuf_u32(&w, m->index);
  wbuf_str(&w, m->addr);
  wbuf_str(&w, m->host);
  wbuf_u32(&w, m->pid);
  wbuf_u32(&w, m->threads);
  *len = w.len;
  return w.err;
}

int msg_register_decode(const void *p, size_t len, struct msg_register *m) {
  struct rbuf r;
  rbuf_init(&r, p, len);
  m->role = rbuf_u32(&r);
  m->index = rbuf_u32(&r);
  rbuf_str(&r, m->addr, sizeof m->addr);
  rbuf_str(&r, m->host, sizeof m->host);
  m->pid = rbuf_u32(&r);
  m->threads = rbuf_u32(&r);
  if (m->role != ROLE_SERVER && m->role != ROLE_WORKER)
    return DSANA_EPROTO;
  if (m->role == ROLE_WORKER && (m->threads < 1 || m->threads > MSG_MAX_THREADS))
    return DSANA_EPROTO;
  return rbuf_done(&r);
}

static void map_put_head(struct wbuf *w, const struct msg_cluster_map *m) {
  wbuf_u32(w, m->n_servers);
  wbuf_u32(w, m->n_workers);
  wbuf_u32(w, m->your_index);
  wbuf_u32(w, m->sched);
  wbuf_u32(w, m->tasks_per_worker);
  wbuf_u32(w, m->flags);
  wbuf_u32(w, m->n_spaces);
  for (uint32_t i = 0; i < m->n_spaces && i < DSANA_MAX_TABLES; i++)
    wbuf_u64(w, m->chunk_keys[i]);
  wbuf_f64(w, m->peer_timeout_s);
  wbuf_f64(w, m->heartbeat_s);
  wbuf_u64(w, m->max_payload);
  wbuf_str(w, m->app);
  wbuf_str(w, m->scenario_path);
  wbuf_str(w, m->trace_path);
  wbuf_str(w, m->checkpoint_dir);
  wbuf_u32(w, m->checkpoint_every);
  wbuf_str(w, m->resume_dir);
  wbuf_u32(w, m->resume_iter);
}

int msg_map_encode(const struct msg_cluster_map *m, uint8_t *buf, size_t cap, size_t *len) {
  struct wbuf w;
  wbuf_init(&w, buf, cap);
  map_put_head(&w, m);
  wbuf_u32(&w, m->args.n);
  for (uint32_t i = 0; i < m->args.n; i++) {
    wbuf_str(&w, m->args.name[i]);
    wbuf_str(&w, m->args.value[i]);
  }
  for (uint32_t i = 0; i < m->n_servers; i++)
    wbuf_str(&w, m->server_addr[i]);
  *len = w.len;
  return w.err;
}

/* The fixed part; DSANA_EPROTO when a field is out of its range. */
static int map_get_head(struct rbuf *r, struct msg_cluster_map *m) {
  m->n_servers = rbuf_u32(r);
  m->n_workers = rbuf_u32(r);
  m->your_index = rbuf_u32(r);
  m->sched = rbuf_u32(r);
  m->tasks_per_worker = rbuf_u32(r);
  m->flags = rbuf_u32(r);
  m->n_spaces = rbuf_u32(r);
  if (r->err || m->n_spaces > DSANA_MAX_TABLES)
    return DSANA_EPROTO;
  for (uint32_t i = 0; i < m->n_spaces; i++)
    m->chunk_keys[i] = rbuf_u64(r);
  m->peer_timeout_s = rbuf_f64(r);
  m->heartbeat_s = rbuf_f64(r);
  m->max_payload = rbuf_u64(r);
  rbuf_str(r, m->app, sizeof m->app);
  rbuf_str(r, m->scenario_path, sizeof m->scenario_path);
  rbuf_str(r, m->trace_path, sizeof m->trace_path);
  rbuf_str(r, m->checkpoint_dir, sizeof m->checkpoint_dir);
  m->checkpoint_every = rbuf_u32(r);
  rbuf_str(r, m->resume_dir, sizeof m->resume_dir);
  m->resume_iter = rbuf_u32(r);
  if (r->err || m->n_servers == 0 || m->n_servers > MSG_MAX_SERVERS || m->n_workers == 0 ||
      m->n_workers > MSG_MAX_WORKERS || m->sched > SCHED_DYNAMIC || m->tasks_per_worker == 0 ||
      !(m->peer_timeout_s > 0) || !(m->heartbeat_s > 0) || m->max_payload < 4096 || (m->flags & ~MAP_F_ALL))
    return DSANA_EPROTO;
  return 0;
}

int msg_map_decode(const void *p, size_t len, struct msg_cluster_map *m) {
  struct rbuf r;
  rbuf_init(&r, p, len);
  if (map_get_head(&r, m) != 0)
    return DSANA_EPROTO;
  m->args.n = rbuf_u32(&r);
  if (r.err || m->args.n > MSG_MAX_ARGS)
    return DSANA_EPROTO;
  for (uint32_t i = 0; i < m->args.n; i++) {
    rbuf_str(&r, m->args.name[i], sizeof m->args.name[i]);
    rbuf_str(&r, m->args.value[i], sizeof m->args.value[i]);
  }
  for (uint32_t i = 0; i < m->n_servers; i++)
    rbuf_str(&r, m->server_addr[i], sizeof m->server_addr[i]);
  return rbuf_done(&r);
}

size_t msg_task_done_bytes(uint32_t n_sums) { return 8 + 8 * 8 + MSG_XSUM_BYTES * (size_t)n_sums; }

void msg_task_done_encode(const struct msg_task_done *m, uint32_t n_sums, uint8_t *buf) {
  wire_put_u32(buf, m->task);
  wire_put_u32(buf + 4, 0);
  const uint64_t v[8] = {m->compute_ns, m->setup_ns,   m->idle_ns,    m->bytes_in,
                         m->bytes_out,  m->overlap_ns, m->overrun_ns, m->bytes_in_raw};
  for (int i = 0; i < 8; i++)
    wire_put_u64(buf + 8 + 8 * i, v[i]);
  msg_sums_encode(m->sums, n_sums, buf + 72);
}

void msg_task_done_decode(const uint8_t *buf, uint32_t n_sums, struct msg_task_done *m) {
  memset(m, 0, sizeof *m);
  m->task = wire_get_u32(buf);
  uint64_t *v[8] = {&m->compute_ns, &m->setup_ns,   &m->idle_ns,    &m->bytes_in,
                    &m->bytes_out,  &m->overlap_ns, &m->overrun_ns, &m->bytes_in_raw};
  for (int i = 0; i < 8; i++)
    *v[i] = wire_get_u64(buf + 8 + 8 * i);
  msg_sums_decode(buf + 72, n_sums, m->sums);
}

void msg_sums_encode(const dsana_xsum *sums, uint32_t n, uint8_t *buf) {
  for (uint32_t i = 0; i < n; i++) {
    uint8_t *b = buf + MSG_XSUM_BYTES * i;
    wire_put_u64(b, (uint64_t)sums[i].lo);
    wire_put_u64(b + 8, (uint64_t)(sums[i].lo >> 64));
    wire_put_u64(b + 16, sums[i].hi);
    wire_put_u64(b + 24, sums[i].flags);
  }
}

void msg_sums_decode(const uint8_t *buf, uint32_t n, dsana_xsum *sums) {
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t *b = buf + MSG_XSUM_BYTES * i;
    sums[i].lo = (unsigned __int128)wire_get_u64(b + 8) << 64 | wire_get_u64(b);
    sums[i].hi = wire_get_u64(b + 16);
    sums[i].flags = wire_get_u64(b + 24); /* bits other than DSANA_XSUM_INVALID mean nothing */
  }
}

/* Every ITER_START carries all DSANA_MAX_GLOBALS values: on a little-endian
 * host the wire's layout (IEEE-754 bits, little-endian) is the array's own,
 * and one copy replaces 512 calls each way (~4 % of a small iteration's CPU). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
void msg_globals_encode(const double g[DSANA_MAX_GLOBALS], uint8_t buf[MSG_GLOBALS_BYTES]) {
  memcpy(buf, g, MSG_GLOBALS_BYTES);
}

void msg_globals_decode(const uint8_t buf[MSG_GLOBALS_BYTES], double g[DSANA_MAX_GLOBALS]) {
  memcpy(g, buf, MSG_GLOBALS_BYTES);
}
#else
void msg_globals_encode(const double g[DSANA_MAX_GLOBALS], uint8_t buf[MSG_GLOBALS_BYTES]) {
  for (int i = 0; i < DSANA_MAX_GLOBALS; i++)
    wire_put_f64(buf + 8 * i, g[i]);
}

void msg_globals_decode(const uint8_t buf[MSG_GLOBALS_BYTES], double g[DSANA_MAX_GLOBALS]) {
  for (int i = 0; i < DSANA_MAX_GLOBALS; i++)
    g[i] = wire_get_f64(buf + 8 * i);
}
#endif
