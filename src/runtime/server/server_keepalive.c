/* server_keepalive.c - a server's heartbeat from inside a long computation
 * on its control thread (server_state.h), sent past the role's queue. */
#include "runtime/server/server_state.h"

void server_keepalive(struct server *sv) {
  uint64_t now = rt_now(sv->env);
  if (!sv->map || !sv->env->send_scheduler_now || now - sv->last_sent_ns < (uint64_t)(sv->map->heartbeat_s * 1e9))
    return;
  struct wire_hdr h = wire_hdr_make(WIRE_HEARTBEAT, sv->index);
  if (sv->env->send_scheduler_now(sv->env->arg, &h) == 0)
    sv->last_sent_ns = now;
}
