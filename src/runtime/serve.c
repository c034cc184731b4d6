/* serve.c - see serve.h. */
#include "runtime/serve.h"

int serve_values(struct net_sock *s, const struct net_peer *to, enum wire_type type, uint32_t sender,
                 const struct serve_range *r, const double *values, uint64_t max_keys) {
  for (uint64_t at = r->lo; at < r->hi;) {
    uint64_t end = r->hi - at > max_keys ? at + max_keys : r->hi;
    struct wire_hdr h = wire_hdr_make(type, sender);
    h.table = r->table;
    h.iter = r->iter;
    h.key_lo = at;
    h.key_hi = end;
    h.payload_bytes = (end - at) * sizeof(double);
    int rc = net_send(s, to, &h, values + (at - r->lo), (size_t)h.payload_bytes);
    if (rc)
      return rc;
    at = end;
  }
  return 0;
}
