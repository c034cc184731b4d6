/*
 * transport_helpers.c - what every transport implementation shares
 * (transport_impl.h): the peer's id, checking a received header, logging a
 * drop, storing a received payload, the time left to a deadline.
 *
 * It sits below both transport.c (the seam, which picks a transport's ops)
 * and the transports (net_zmq.c, net_inproc.c, net_mpi*.c), which call it:
 * so the seam and the transports call one way.
 */
#include "net/transport/transport_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsana/error.h"
#include "util/thread/clock.h"
#include "util/text/log.h"

int net_peer_id(const struct net_peer *p, uint32_t *self_id) {
  /* every transport's identities start with the same tag */
  if (p->len != 5 || p->id[0] != 'D')
    return DSANA_EINVAL;
  *self_id = wire_get_u32(p->id + 1);
  return 0;
}

void net_peer_format(const struct net_sock *s, const struct net_peer *p, char *buf, size_t len) {
  uint32_t id;
  if (!s->listener || !p) {
    snprintf(buf, len, "its listener");
  } else if (net_peer_id(p, &id) == 0) {
    snprintf(buf, len, "peer %08x", id);
  } else if (p->len == 0) {
    snprintf(buf, len, "unidentified peer");
  } else {
    size_t n = (size_t)snprintf(buf, len, "peer ");
    for (uint8_t i = 0; i < p->len && n + 3 <= len; i++)
      n += (size_t)snprintf(buf + n, len - n, "%02x", p->id[i]);
  }
}

void net_log_drop(struct net_sock *s, const struct net_peer *from, const char *tname, const char *why) {
  char peer[80];
  net_peer_format(s, from, peer, sizeof peer);
  log_warn("net: dropped message from %s (type %s): %s", peer, tname, why);
  s->stats.dropped++;
}

const char *net_hdr_type_name(const uint8_t *hdr, size_t len) {
  if (len != WIRE_HDR_BYTES || wire_get_u32(hdr) != WIRE_MAGIC)
    return "UNKNOWN";
  return wire_type_name((uint16_t)(hdr[6] | hdr[7] << 8));
}

int net_accept(struct net_sock *s, const struct net_peer *from, const uint8_t *hdr, size_t hdr_len, bool has_payload,
               size_t payload_len, struct wire_hdr *h) {
  const char *why = NULL;
  const char *tname = net_hdr_type_name(hdr, hdr_len);
  if (wire_decode(hdr, hdr_len, s->max_payload, h, &why) != 0) {
  } else if (h->payload_bytes == 0 && has_payload) {
    why = "unexpected payload";
  } else if (h->payload_bytes > 0 && !has_payload) {
    why = "missing payload";
  } else if (has_payload) {
    wire_check_payload(h, payload_len, &why);
  }
  if (!why)
    return 0;
  net_log_drop(s, from, tname, why);
  return DSANA_EPROTO;
}

int net_msg_copy_payload(struct net_msg *m, const void *data, size_t len) {
  if (len <= sizeof m->impl) {
    memcpy(m->impl, data, len);
    m->payload = m->impl;
    m->store = NET_STORE_INLINE;
    return 0;
  }
  void *copy = malloc(len);
  if (!copy)
    return DSANA_ENOMEM;
  memcpy(copy, data, len);
  m->payload = copy;
  m->store = NET_STORE_HEAP;
  return 0;
}

void net_msg_free_copy(struct net_msg *m) {
  if (m->store == NET_STORE_HEAP)
    free((void *)m->payload);
}

int net_ms_left(uint64_t deadline_ns) {
  uint64_t now = clock_now_ns();
  if (now >= deadline_ns)
    return 0;
  return (int)((deadline_ns - now + 999999u) / 1000000u);
}
