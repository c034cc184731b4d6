/*
 * token_bucket.c - the link emulator's rate limiter (token_bucket.h).
 *
 * Tokens are bytes, accruing at rate_bytes_per_s up to the burst. In the
 * virtual-scheduling form a send of b bytes moves tat to max(tat, now) plus
 * b / rate; it must wait until tat is no more than burst_ns ahead of now.
 * That keeps the long-run rate at the bandwidth however the sends are
 * sized, and a link idle for a while lets at most the burst out at once.
 */
#include "net/link/token_bucket.h"

#define TB_NEVER UINT64_MAX

void token_bucket_init(struct token_bucket *tb, double rate_bytes_per_s, double burst_bytes, uint64_t now_ns) {
  tb->rate_bytes_per_s = rate_bytes_per_s > 0 ? rate_bytes_per_s : 0;
  double burst = burst_bytes > 0 && tb->rate_bytes_per_s > 0 ? burst_bytes / tb->rate_bytes_per_s * 1e9 : 0;
  tb->burst_ns = burst < 1.8e19 ? (uint64_t)burst : TB_NEVER;
  tb->tat_ns = now_ns; /* full: nothing owed */
}

/* The new tat after taking bytes at now_ns (TB_NEVER when it overflows). */
static uint64_t tb_next_tat(const struct token_bucket *tb, uint64_t bytes, uint64_t now_ns) {
  uint64_t from = tb->tat_ns > now_ns ? tb->tat_ns : now_ns;
  double ns = (double)bytes / tb->rate_bytes_per_s * 1e9;
  if (from == TB_NEVER || ns >= 1.8e19 || (uint64_t)ns > TB_NEVER - from)
    return TB_NEVER;
  return from + (uint64_t)ns;
}

static uint64_t tb_wait(const struct token_bucket *tb, uint64_t tat, uint64_t now_ns) {
  if (tat == TB_NEVER)
    return TB_NEVER;
  uint64_t allowed = now_ns + (tb->burst_ns < TB_NEVER - now_ns ? tb->burst_ns : TB_NEVER - now_ns);
  return tat > allowed ? tat - allowed : 0;
}

uint64_t token_bucket_take(struct token_bucket *tb, uint64_t bytes, uint64_t now_ns) {
  if (tb->rate_bytes_per_s <= 0)
    return 0;
  tb->tat_ns = tb_next_tat(tb, bytes, now_ns);
  return tb_wait(tb, tb->tat_ns, now_ns);
}

uint64_t token_bucket_peek(const struct token_bucket *tb, uint64_t bytes, uint64_t now_ns) {
  if (tb->rate_bytes_per_s <= 0)
    return 0;
  return tb_wait(tb, tb_next_tat(tb, bytes, now_ns), now_ns);
}
