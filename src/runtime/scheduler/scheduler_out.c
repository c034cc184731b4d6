/* scheduler_out.c - how the scheduler's messages leave: to one role, to
 * all, and the abort that tells every role why the job stops or rolls
 * back (the bottom of the scheduler's files, see scheduler_internal.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "runtime/scheduler/scheduler_internal.h"
#include "util/text/log.h"

int sch_send(struct scheduler *s, struct peer_slot *to, const struct wire_hdr *h, const void *payload, size_t len,
             struct rt_outq *out) {
  s->acc.messages++;
  to->last_sent_ns = rt_now(s->env);
  return rt_reply(out, &to->peer, h, payload, len, 0);
}

int sch_send_owned(struct scheduler *s, struct peer_slot *to, const struct wire_hdr *h, void *payload, size_t len,
                   struct rt_outq *out) {
  s->acc.messages++;
  to->last_sent_ns = rt_now(s->env);
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

/* Log why the job stops (at debug level when `said`: a line on this
 * stderr said it already), tell every role still in it (ABORT with
 * `flags`), and fail this run with rc. */
__attribute__((format(printf, 6, 0))) static int abort_all(struct scheduler *s, struct rt_outq *out, uint32_t flags,
                                                           int rc, bool said, const char *fmt, va_list ap) {
  char why[480];
  vsnprintf(why, sizeof why, fmt, ap);
  if (said)
    log_debug("%s", why);
  else
    log_error("%s", why);
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
  s->failed = rc;
  return rc;
}

__attribute__((format(printf, 4, 5))) static int abort_quietly_if(struct scheduler *s, struct rt_outq *out, bool said,
                                                                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = abort_all(s, out, 0, DSANA_EPEER, said, fmt, ap);
  va_end(ap);
  return rc;
}

int sch_abort(struct scheduler *s, struct rt_outq *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = abort_all(s, out, 0, DSANA_EPEER, false, fmt, ap);
  va_end(ap);
  return rc;
}

int sch_abort_rc(struct scheduler *s, struct rt_outq *out, int rc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rc = abort_all(s, out, 0, rc, false, fmt, ap);
  va_end(ap);
  return rc;
}

int sch_role_failed(struct scheduler *s, struct rt_outq *out, enum rt_role role, uint32_t idx, const char *why,
                    size_t len) {
  /* a role of a local job (threads, or processes the launcher forked) said
   * why on this stderr already; one on another machine said it on its own */
  bool said = s->params.shared_process || s->params.local_stderr;
  return abort_quietly_if(s, out, said, "%s %u failed: %.*s", rt_role_name(role), idx, (int)len, why);
}

__attribute__((format(printf, 3, 4))) static int end_job(struct scheduler *s, struct rt_outq *out, const char *fmt,
                                                         ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = abort_all(s, out, WIRE_F_ENDED, DSANA_EINTR, false, fmt, ap);
  va_end(ap);
  return rc;
}

int scheduler_end(struct scheduler *s, const char *why, struct rt_outq *out) {
  return s->failed ? s->failed : end_job(s, out, "%s", why);
}

int sch_rollback(struct scheduler *s, struct rt_outq *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = abort_all(s, out, WIRE_F_ROLLBACK, DSANA_ERESTART, false, fmt, ap);
  va_end(ap);
  return rc;
}
