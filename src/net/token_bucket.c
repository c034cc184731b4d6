/*
 * token_bucket.c - the link emulator's rate limiter (token_bucket.h).
 *
 * Tokens are bytes. They accrue at rate_bytes_per_s up to burst_bytes; a
 * send takes its size at once and may drive the balance negative. The
 * sender then waits until the debt is paid, which keeps the long-run rate
 * at the configured bandwidth however the sends are sized. Time is passed
 * in by the caller, so the arithmetic is testable with a simulated clock.
 */
#include "net/token_bucket.h"

#include <math.h>

void token_bucket_init(struct token_bucket *tb, double rate_bytes_per_s, double burst_bytes,
                       uint64_t now_ns) {
  tb->rate_bytes_per_s = rate_bytes_per_s > 0 ? rate_bytes_per_s : 0;
  tb->burst_bytes = burst_bytes > 0 ? burst_bytes : 0;
  tb->tokens = tb->burst_bytes; /* start full: a fresh link may burst */
  tb->last_ns = now_ns;
}

static void token_bucket_refill(struct token_bucket *tb, uint64_t now_ns) {
  /* A clock that steps back earns nothing (and does not move last_ns back). */
  if (now_ns <= tb->last_ns)
    return;
  double earned = (double)(now_ns - tb->last_ns) * 1e-9 * tb->rate_bytes_per_s;
  tb->tokens = fmin(tb->tokens + earned, tb->burst_bytes);
  tb->last_ns = now_ns;
}

uint64_t token_bucket_take(struct token_bucket *tb, uint64_t bytes, uint64_t now_ns) {
  if (tb->rate_bytes_per_s <= 0)
    return 0;
  token_bucket_refill(tb, now_ns);
  tb->tokens -= (double)bytes;
  if (tb->tokens >= 0)
    return 0;
  /* Multiply first: whole-byte debts at whole rates then divide exactly. */
  double wait_ns = ceil(-tb->tokens * 1e9 / tb->rate_bytes_per_s);
  /* Saturate rather than overflow for absurd sizes against tiny rates. */
  if (wait_ns >= 1.8e19)
    return UINT64_MAX;
  return (uint64_t)wait_ns;
}
