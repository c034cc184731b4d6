/*
 * launch_recover.c - automatic recovery (runtime_rollback in runtime.h):
 * a job stopped by a lost server or scheduler is rolled back, every role,
 * to its last complete checkpoint (or its start) and launched again by the
 * local launcher; a scheduler run alone (dsana scheduler) restarts itself
 * the same way after a lost server, and the other roles register again.
 *
 * Why rollback and not replicas: a checkpoint already holds a consistent
 * cut of every server's shard and the scheduler's globals, and BSP
 * iterations are deterministic, so a rerun from it reaches the same bytes;
 * replicas would double every push to keep what a checkpoint keeps anyway.
 * The price is the iterations since the checkpoint.
 *
 * A failure that repeats from the same point (a deterministic error, not a
 * lost process) is not retried: each restart must start from a later
 * checkpoint than the one before. Faults injected with DSANA_FAULT fire in
 * the first attempt only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/record/checkpoint.h"
#include "runtime/launch/launch_internal.h"
#include "runtime/launch/runtime.h"
#include "util/text/log.h"

void runtime_report_checkpoint(const char *dir) {
  struct ckpt_manifest m;
  char err[1200];
  if (!dir || !dir[0])
    return; /* no checkpoints asked for */
  if (ckpt_validate(dir, &m, err, sizeof err) == 0)
    log_error("last complete checkpoint: iteration %u in %s; continue with --resume %s", m.iter, dir, dir);
  else
    log_error("no complete checkpoint in %s yet (%s)", dir, err);
}

/* This job's last complete checkpoint into cfg's resume fields; false
 * when there is none (another job's does not count). */
static bool take_checkpoint(struct run_config *cfg) {
  static struct ckpt_manifest m; /* 12 KiB */
  char err[1200];
  const char *dir = cfg->checkpoint_dir;
  if (!dir[0] || ckpt_validate(dir, &m, err, sizeof err) != 0 || m.n_servers != cfg->n_servers ||
      strcmp(m.identity, cfg->job_identity) != 0)
    return false;
  snprintf(cfg->resume_dir, sizeof cfg->resume_dir, "%s", dir);
  config_set_resume_point(cfg, m.iter, m.globals, m.residual);
  return true;
}

bool runtime_rollback(struct run_config *cfg, const struct run_config *start, struct runtime_recovery *r) {
  if (r->restarts >= cfg->max_restarts) {
    if (cfg->max_restarts)
      log_error("the job failed again after %u automatic restart%s: it stops", r->restarts,
                r->restarts == 1 ? "" : "s");
    runtime_report_checkpoint(cfg->checkpoint_dir);
    return false;
  }
  if (!take_checkpoint(cfg)) { /* from where this launch started */
    snprintf(cfg->resume_dir, sizeof cfg->resume_dir, "%s", start->resume_dir);
    config_set_resume_point(cfg, start->resume_iter, start->resume_globals, start->resume_residual);
  }
  if (r->restarts > 0 && cfg->resume_iter <= r->from) {
    log_error("the job failed again before passing iteration %u, where it restarted: it stops", r->from);
    runtime_report_checkpoint(cfg->checkpoint_dir);
    return false;
  }
  r->restarts++;
  r->from = cfg->resume_iter;
  cfg->fault = (struct fault_plan){.point = FAULT_NONE};
  if (cfg->resume_iter)
    log_warn("automatic recovery %u of %u: every role restarts after iteration %u (checkpoint in %s)", r->restarts,
             cfg->max_restarts, cfg->resume_iter, cfg->resume_dir);
  else
    log_warn("automatic recovery %u of %u: no checkpoint to roll back to, every role restarts from the start",
             r->restarts, cfg->max_restarts);
  return true;
}
