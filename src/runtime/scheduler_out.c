/* scheduler_out.c - how the scheduler's messages leave: to one role, to
 * all, and the abort that tells every role why the job stops or rolls
 * back (the bottom of the scheduler's files, see scheduler_internal.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/scheduler_internal.h"
#include "util/log.h"

int sch_send(struct scheduler *s, const struct peer_slot *to, const struct wire_hdr *h, const void *payload,
             size_t len, struct rt_outq *out) {
  s->acc.messages++;
  return rt_reply(out, &to->peer, h, payload, len, 0);
}

int sch_send_owned(struct scheduler *s, const struct peer_slot *to, const struct wire_hdr *h, void *payload,
                   size_t len, struct rt_outq *out) {
  s->acc.messages++;
  return rt_reply_owned(out, &to->peer, h, payload, len, 0);
}

/* A role that cannot be reached is dead or leaving: the liveness check
 * decides what that means, so a failed send is not fatal here. */
void sch_broadcast(struct scheduler *s, bool servers, bool workers, const struct wire_hdr *h, const void *payload,
                   size_t len, struct rt_outq *out) {
  for (uint32_t i = 0; servers && i < s->cfg.n_servers; i++)
    if (s->servers[i].registered && !s->servers[i].bye)
      sch_send(s, &s->servers[i], h, payload, len, out);
  for (uint32_t i = 0; workers && i < s->cfg.n_workers; i++)
    if (s->workers[i].registered && !s->workers[i].bye && !s->workers[i].lost)
      sch_send(s, &s->workers[i], h, payload, len, out);
}

/* ABORT (with `flags`) to every role still in the job, saying why. */
static void abort_all(struct scheduler *s, uint32_t flags, const char *why, struct rt_outq *out) {
  struct wire_hdr h = wire_hdr_make(WIRE_ABORT, 0);
  h.flags = flags;
  char *copy = strdup(why);
  for (uint32_t i = 0; copy && i < s->cfg.n_servers + s->cfg.n_workers; i++) {
    struct peer_slot *p = i < s->cfg.n_servers ? &s->servers[i] : &s->workers[i - s->cfg.n_servers];
    if (p->registered && !p->bye && !p->lost)
      sch_send(s, p, &h, copy, strlen(copy), out);
  }
  /* the queue borrows `copy` until drained: hand it over with the last one */
  if (copy && out->n && out->v[out->n - 1].payload == copy)
    out->v[out->n - 1].owned = copy;
  else
    free(copy);
}

int sch_abort(struct scheduler *s, struct rt_outq *out, const char *fmt, ...) {
  char why[480];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  log_error("%s", why);
  abort_all(s, 0, why, out);
  s->failed = DSANA_EPEER;
  return DSANA_EPEER;
}

int sch_rollback(struct scheduler *s, struct rt_outq *out, const char *fmt, ...) {
  char why[480];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  log_error("%s", why);
  abort_all(s, WIRE_F_ROLLBACK, why, out);
  s->failed = DSANA_ERESTART;
  return DSANA_ERESTART;
}
