/*
 * sched_members.c - workers leaving and joining during a run.
 *
 * A worker silent for --peer-timeout is lost. Unless --on-worker-loss fail,
 * its unfinished tasks of the current iteration go back to the policy and
 * on to the other workers; whatever it pushed for them is superseded on the
 * servers by the re-run (identical values, counted once), so the output is
 * byte-identical to a run without the loss. A replacement worker may
 * register later (`dsana worker --scheduler ADDR`): it takes a lost
 * worker's slot and gets tasks from the next iteration on.
 */
#include <string.h>

#include "runtime/scheduler.h"
#include "util/clock.h"
#include "util/log.h"

void sch_alive_mask(struct scheduler *s, bool *alive) {
  for (uint32_t w = 0; w < s->cfg.n_workers; w++) {
    s->workers[w].joining = false;
    alive[w] = s->workers[w].registered && !s->workers[w].lost;
  }
}

int sch_lose_worker(struct scheduler *s, uint32_t w) {
  struct peer_slot *slot = &s->workers[w];
  slot->lost = true;
  s->lost_workers++;
  uint32_t alive = 0;
  for (uint32_t i = 0; i < s->cfg.n_workers; i++)
    alive += s->workers[i].registered && !s->workers[i].lost && !s->workers[i].joining;
  if (alive == 0) {
    sch_abort(s, "worker %u lost and no worker is left: the job stops", w);
    return DSANA_EPEER;
  }
  log_warn("worker %u lost (silent for %.1f s): its tasks of iteration %u go to the other %u worker%s", w,
           clock_ns_to_s(clock_now_ns() - slot->last_heard_ns), s->iter, alive, alive == 1 ? "" : "s");
  if (s->stopping) {
    sch_check_finished(s);
    return 0;
  }
  /* its queue, then every task it held and did not finish */
  sched_drop_worker(s->policy, w, UINT32_MAX);
  for (uint32_t t = 0; t < s->job.n_tasks; t++)
    if (s->task_owner[t] == w && !s->task_seen[t])
      sched_drop_worker(s->policy, w, t);
  /* the others may be idle: give each something to do */
  for (uint32_t i = 0; i < s->cfg.n_workers; i++)
    for (int k = 0; k < 2; k++) {
      int rc = sch_hand_out(s, i);
      if (rc)
        return rc;
    }
  return 0;
}

int sch_on_late_register(struct scheduler *s, const struct net_msg *m) {
  struct msg_register reg;
  if (msg_register_decode(m->payload, m->hdr.payload_bytes, &reg) != 0 || reg.role != ROLE_WORKER) {
    log_warn("refused a late registration: only workers may join a running job");
    return 0;
  }
  uint32_t w = reg.index;
  if (w == UINT32_MAX)
    for (w = 0; w < s->cfg.n_workers && !s->workers[w].lost; w++) {
    }
  if (w >= s->cfg.n_workers || !s->workers[w].lost || s->stopping) {
    log_warn("refused a late worker registration (index %u): no lost worker's place to take", reg.index);
    return 0;
  }
  struct peer_slot *slot = &s->workers[w];
  slot->peer = m->from;
  slot->lost = false;
  slot->joining = true; /* live from the next iteration */
  slot->bye = false;
  slot->last_heard_ns = clock_now_ns();
  s->lost_workers--;
  log_warn("worker %u rejoined; it takes part from iteration %u", w, s->iter + 1);
  return sch_send_map_to(s, 1, w);
}
