/* usage.c - a role's wake-ups and CPU time over the steady iterations (usage.h). */
#include "runtime/msg/usage.h"

#include <stdlib.h>

#include "dsana/dsana.h"
#include "net/wire.h"

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

static bool encode(const struct rt_env *e, const struct usage_window *w, uint32_t last_iter, uint8_t *buf) {
  struct rt_usage u;
  uint64_t iters;
  if (!usage_since(e, w, last_iter, &u, &iters))
    return false;
  wire_put_u64(buf, u.wakeups);
  wire_put_u64(buf + 8, u.cpu_ns);
  wire_put_u64(buf + 16, iters);
  return true;
}

int usage_send_bye(const struct rt_env *e, const struct usage_window *w, uint32_t sender, uint32_t last_iter,
                   struct rt_outq *out) {
  struct wire_hdr h = wire_hdr_make(WIRE_BYE, sender);
  uint8_t *buf = malloc(USAGE_BYTES);
  if (buf && encode(e, w, last_iter, buf))
    return rt_send_owned(out, ROLE_SCHEDULER, 0, &h, buf, USAGE_BYTES, 0);
  free(buf); /* nothing counted (or no memory for it): a plain BYE */
  return rt_send(out, ROLE_SCHEDULER, 0, &h, NULL, 0);
}

int usage_decode(const void *payload, size_t len, struct rt_usage *u, uint64_t *iters) {
  if (len != USAGE_BYTES)
    return DSANA_EPROTO;
  const uint8_t *p = payload;
  u->wakeups = wire_get_u64(p);
  u->cpu_ns = wire_get_u64(p + 8);
  *iters = wire_get_u64(p + 16);
  return *iters ? 0 : DSANA_EPROTO;
}
