/* usage.c - a role's wake-ups and CPU time over the steady iterations (usage.h). */
#include "runtime/msg/usage.h"

#include <stdlib.h>

#include "dsana/dsana.h"
#include "net/wire/wire.h"

void usage_iter_start(const struct rt_env *e, struct usage_window *w, uint32_t iter) {
  if (w->open || iter != USAGE_FIRST_ITER || !e->usage)
    return;
  w->open = true;
  w->valid = e->usage(e->arg, &w->at) == 0;
  w->from_iter = iter;
}

bool usage_since(const struct rt_env *e, const struct usage_window *w, uint32_t last_iter, struct rt_usage *u,
                 uint64_t *iters) {
  struct rt_usage now;
  if (!w->open || !w->valid || last_iter < w->from_iter || e->usage(e->arg, &now) != 0)
    return false;
  u->wakeups = now.wakeups - w->at.wakeups;
  u->cpu_ns = now.cpu_ns - w->at.cpu_ns;
  *iters = last_iter - w->from_iter + 1;
  return true;
}

static void encode(const struct rt_env *e, const struct usage_window *w, uint32_t last_iter, uint64_t stale,
                   uint8_t *buf) {
  struct rt_usage u = {0};
  uint64_t iters = 0;
  if (!usage_since(e, w, last_iter, &u, &iters)) { /* nothing counted */
    u = (struct rt_usage){0};
    iters = 0;
  }
  wire_put_u64(buf, u.wakeups);
  wire_put_u64(buf + 8, u.cpu_ns);
  wire_put_u64(buf + 16, iters);
  wire_put_u64(buf + 24, stale);
}

int usage_send_bye(const struct rt_env *e, const struct usage_window *w, uint32_t sender, uint32_t last_iter,
                   uint64_t stale, struct rt_outq *out) {
  struct wire_hdr h = wire_hdr_make(WIRE_BYE, sender);
  uint8_t *buf = malloc(USAGE_BYTES);
  if (!buf)
    return DSANA_ENOMEM;
  encode(e, w, last_iter, stale, buf);
  return rt_send_owned(out, ROLE_SCHEDULER, 0, &h, buf, USAGE_BYTES, 0);
}

int usage_decode(const void *payload, size_t len, struct rt_usage *u, uint64_t *iters, uint64_t *stale) {
  if (len != USAGE_BYTES)
    return DSANA_EPROTO;
  const uint8_t *p = payload;
  u->wakeups = wire_get_u64(p);
  u->cpu_ns = wire_get_u64(p + 8);
  *iters = wire_get_u64(p + 16);
  *stale = wire_get_u64(p + 24);
  return 0;
}
