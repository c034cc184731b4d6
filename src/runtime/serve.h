/*
 * serve.h - sending a key range of table values as a stream of messages of
 * at most max_keys keys each (PULL_REPLY to workers, FINAL_DATA to the
 * scheduler). Receivers count keys to know when a range is complete.
 */
#ifndef DSANA_RUNTIME_SERVE_H
#define DSANA_RUNTIME_SERVE_H

#include <stdint.h>

#include "net/transport.h"

struct serve_range {
  uint32_t table, iter;
  uint64_t lo, hi;
};

/* values[0] is the value of key r->lo. `to` is NULL on a dialer. */
int serve_values(struct net_sock *s, const struct net_peer *to, enum wire_type type, uint32_t sender,
                 const struct serve_range *r, const double *values, uint64_t max_keys);

#endif
