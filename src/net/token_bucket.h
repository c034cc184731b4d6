/*
 * token_bucket.h - a pure token bucket for link emulation: how long a send
 * of N bytes must wait so that the long-run rate stays at the bandwidth.
 * No clock inside: the caller passes the current time (testable).
 */
#ifndef DSANA_NET_TOKEN_BUCKET_H
#define DSANA_NET_TOKEN_BUCKET_H

#include <stdint.h>

struct token_bucket {
  double rate_bytes_per_s; /* 0 = unlimited */
  double burst_bytes;      /* capacity */
  double tokens;           /* may go negative: debt paid by waiting */
  uint64_t last_ns;
};

void token_bucket_init(struct token_bucket *tb, double rate_bytes_per_s, double burst_bytes,
                       uint64_t now_ns);
/* Take `bytes` at time now_ns; returns how many ns the sender must wait
 * before the bytes may leave (0 if within the burst). */
uint64_t token_bucket_take(struct token_bucket *tb, uint64_t bytes, uint64_t now_ns);

#endif
