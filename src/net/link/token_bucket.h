/*
 * token_bucket.h - a pure token bucket for link emulation: how long a send
 * of N bytes must wait so that the long-run rate stays at the bandwidth.
 * No clock inside: the caller passes the current time (testable). The
 * outbox (outbox.h) paces every emulated link with one, burst 0: each
 * message then leaves bytes / rate after the previous one, as on a wire.
 *
 * It is kept in its virtual-scheduling form (the GCRA of ATM networks):
 * `tat_ns` is the time at which the link will have carried every byte
 * taken so far; a send may start at once while that is at most the burst's
 * worth of time ahead of now. Integer nanoseconds, so back-to-back sends
 * chain exactly (each ends bytes / rate after the one before).
 */
#ifndef DSANA_NET_TOKEN_BUCKET_H
#define DSANA_NET_TOKEN_BUCKET_H

#include <stdint.h>

struct token_bucket {
  double rate_bytes_per_s; /* 0 = unlimited */
  uint64_t burst_ns;       /* the capacity, as time at the rate */
  uint64_t tat_ns;         /* when everything taken so far has left */
};

/* A full bucket at now_ns. rate <= 0 means unlimited. */
void token_bucket_init(struct token_bucket *tb, double rate_bytes_per_s, double burst_bytes, uint64_t now_ns);
/* Take `bytes` at time now_ns; returns how many ns the sender must wait
 * before the bytes may leave (0 if within the burst; UINT64_MAX when the
 * wait does not fit). A time earlier than an earlier call's earns nothing:
 * the bytes still queue behind what was taken before. */
uint64_t token_bucket_take(struct token_bucket *tb, uint64_t bytes, uint64_t now_ns);
/* What token_bucket_take(tb, bytes, now_ns) would return, taking nothing. */
uint64_t token_bucket_peek(const struct token_bucket *tb, uint64_t bytes, uint64_t now_ns);

#endif
