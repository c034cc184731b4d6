/* msg.c - control message payloads (see msg.h). */
#include "runtime/msg.h"

#include <string.h>

#include "net/wire.h"
#include "runtime/codec.h"

const char *node_role_name(enum node_role r) {
  switch (r) {
  case ROLE_SCHEDULER:
    return "scheduler";
  case ROLE_SERVER:
    return "server";
  case ROLE_WORKER:
    return "worker";
  }
  return "unknown";
}

int msg_register_encode(const struct msg_register *m, uint8_t *buf, size_t cap, size_t *len) {
  struct wbuf w;
  wbuf_init(&w, buf, cap);
  wbuf_u32(&w, m->role);
  wbuf_u32(&w, m->index);
  wbuf_str(&w, m->addr);
  *len = w.len;
  return w.err;
}

int msg_register_decode(const void *p, size_t len, struct msg_register *m) {
  struct rbuf r;
  rbuf_init(&r, p, len);
  m->role = rbuf_u32(&r);
  m->index = rbuf_u32(&r);
  rbuf_str(&r, m->addr, sizeof m->addr);
  if (m->role != ROLE_SERVER && m->role != ROLE_WORKER)
    return DSANA_EPROTO;
  return rbuf_done(&r);
}

int msg_map_encode(const struct msg_cluster_map *m, uint8_t *buf, size_t cap, size_t *len) {
  struct wbuf w;
  wbuf_init(&w, buf, cap);
  wbuf_u32(&w, m->n_servers);
  wbuf_u32(&w, m->n_workers);
  wbuf_u32(&w, m->your_index);
  wbuf_u32(&w, m->mode);
  wbuf_u32(&w, m->sched);
  wbuf_u32(&w, m->tasks_per_worker);
  wbuf_u64(&w, m->chunk_keys);
  wbuf_f64(&w, m->peer_timeout_s);
  wbuf_f64(&w, m->heartbeat_s);
  wbuf_str(&w, m->app);
  wbuf_str(&w, m->scenario_path);
  wbuf_str(&w, m->trace_path);
  wbuf_str(&w, m->checkpoint_dir);
  wbuf_u32(&w, m->checkpoint_every);
  wbuf_str(&w, m->resume_dir);
  wbuf_u32(&w, m->resume_iter);
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

int msg_map_decode(const void *p, size_t len, struct msg_cluster_map *m) {
  struct rbuf r;
  rbuf_init(&r, p, len);
  m->n_servers = rbuf_u32(&r);
  m->n_workers = rbuf_u32(&r);
  m->your_index = rbuf_u32(&r);
  m->mode = rbuf_u32(&r);
  m->sched = rbuf_u32(&r);
  m->tasks_per_worker = rbuf_u32(&r);
  m->chunk_keys = rbuf_u64(&r);
  m->peer_timeout_s = rbuf_f64(&r);
  m->heartbeat_s = rbuf_f64(&r);
  rbuf_str(&r, m->app, sizeof m->app);
  rbuf_str(&r, m->scenario_path, sizeof m->scenario_path);
  rbuf_str(&r, m->trace_path, sizeof m->trace_path);
  rbuf_str(&r, m->checkpoint_dir, sizeof m->checkpoint_dir);
  m->checkpoint_every = rbuf_u32(&r);
  rbuf_str(&r, m->resume_dir, sizeof m->resume_dir);
  m->resume_iter = rbuf_u32(&r);
  m->args.n = rbuf_u32(&r);
  if (r.err || m->n_servers == 0 || m->n_servers > MSG_MAX_SERVERS || m->n_workers == 0 ||
      m->args.n > MSG_MAX_ARGS || m->mode > MODE_DSANA || m->sched > SCHED_DYNAMIC ||
      m->tasks_per_worker == 0 || !(m->peer_timeout_s > 0) || !(m->heartbeat_s > 0))
    return DSANA_EPROTO;
  for (uint32_t i = 0; i < m->args.n; i++) {
    rbuf_str(&r, m->args.name[i], sizeof m->args.name[i]);
    rbuf_str(&r, m->args.value[i], sizeof m->args.value[i]);
  }
  for (uint32_t i = 0; i < m->n_servers; i++)
    rbuf_str(&r, m->server_addr[i], sizeof m->server_addr[i]);
  return rbuf_done(&r);
}

void msg_task_done_encode(const struct msg_task_done *m, uint8_t buf[MSG_TASK_DONE_BYTES]) {
  wire_put_u64(buf, m->compute_ns);
  wire_put_u64(buf + 8, m->wait_ns);
  wire_put_u64(buf + 16, m->idle_ns);
  wire_put_u64(buf + 24, m->bytes_in);
  wire_put_u64(buf + 32, m->bytes_out);
  wire_put_u64(buf + 40, m->overlap_ns);
  wire_put_u64(buf + 48, m->overrun_ns);
}

void msg_task_done_decode(const uint8_t buf[MSG_TASK_DONE_BYTES], struct msg_task_done *m) {
  m->compute_ns = wire_get_u64(buf);
  m->wait_ns = wire_get_u64(buf + 8);
  m->idle_ns = wire_get_u64(buf + 16);
  m->bytes_in = wire_get_u64(buf + 24);
  m->bytes_out = wire_get_u64(buf + 32);
  m->overlap_ns = wire_get_u64(buf + 40);
  m->overrun_ns = wire_get_u64(buf + 48);
}

void msg_report_encode(const struct msg_report *m, uint8_t buf[128]) {
  for (int i = 0; i < DSANA_MAX_SUMS; i++) {
    unsigned __int128 v = (unsigned __int128)m->sums[i].acc;
    wire_put_u64(buf + 16 * i, (uint64_t)v);
    wire_put_u64(buf + 16 * i + 8, (uint64_t)(v >> 64));
  }
}

void msg_report_decode(const uint8_t buf[128], struct msg_report *m) {
  for (int i = 0; i < DSANA_MAX_SUMS; i++) {
    unsigned __int128 v = wire_get_u64(buf + 16 * i + 8);
    v = (v << 64) | wire_get_u64(buf + 16 * i);
    m->sums[i].acc = (__int128)v;
  }
}

void msg_globals_encode(const double g[DSANA_MAX_GLOBALS], uint8_t buf[64]) {
  for (int i = 0; i < DSANA_MAX_GLOBALS; i++)
    wire_put_f64(buf + 8 * i, g[i]);
}

void msg_globals_decode(const uint8_t buf[64], double g[DSANA_MAX_GLOBALS]) {
  for (int i = 0; i < DSANA_MAX_GLOBALS; i++)
    g[i] = wire_get_f64(buf + 8 * i);
}
