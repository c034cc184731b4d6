/*
 * pr_layouts.c - which tasks' block layouts (pr_block.h) a worker holds.
 *
 * A task's layout is built the first time the worker begins it, and kept.
 * When the plan moves a task to this worker, building it there costs far
 * more than running it (0.1-0.2 ms for 2,300 edges, mostly page faults of
 * fresh memory), so the first begin, which comes while the job loads, also
 * builds spare layouts: the tasks nearest that one first (a plan moves the
 * edges of contiguous ranges), up to PR_SPARE_BYTES (pr_app.spare_bytes
 * when set). A worker's threads begin tasks side by side, hence the lock;
 * it is taken once per begin.
 */
#include <pthread.h>

#include "pagerank.h"

/* Memory for spare layouts, per worker. */
#define PR_SPARE_BYTES ((uint64_t)64 << 20)

/* What task t's layout takes, about: its edges (and weights), a group per
 * edge at most, each edge's destination (short groups) and the chunk index. */
static uint64_t layout_bytes(const struct pr_app *pr, uint32_t t, uint64_t n_chunks) {
  uint64_t lo = pr->task_lo[t], hi = pr->task_lo[t + 1];
  uint64_t edges = pr->g.in_off[hi] - pr->g.in_off[lo];
  return edges * (3 * sizeof(uint32_t) + sizeof(uint64_t) + (pr->weighted ? sizeof(double) : 0)) +
         (n_chunks + 1) * sizeof(uint64_t);
}

static int build(struct pr_app *pr, uint32_t t, uint64_t k) {
  struct pr_block *b = &pr->blocks[t];
  if (b->chunk_grp && b->chunk_keys == k)
    return 0;
  pr_block_fini(b);
  return pr_block_build(b, &pr->g, pr->task_lo[t], pr->task_lo[t + 1], k, pr->weighted);
}

/* Spares around task `first`: first+1, first-1, first+2, ... while they fit. */
static int build_spares(struct pr_app *pr, uint32_t first, uint64_t k) {
  uint64_t n_chunks = (pr->g.n + k - 1) / k, used = 0, budget = pr->spare_bytes ? pr->spare_bytes : PR_SPARE_BYTES;
  for (uint32_t d = 1; d < pr->n_tasks; d++)
    for (int side = 0; side < 2; side++) {
      if (side == 0 ? first + d >= pr->n_tasks : d > first)
        continue;
      uint32_t t = side == 0 ? first + d : first - d;
      used += layout_bytes(pr, t, n_chunks);
      if (used > budget)
        return 0;
      int rc = build(pr, t, k);
      if (rc)
        return rc;
    }
  return 0;
}

const struct pr_block *pr_layout(struct pr_app *pr, uint32_t task, uint64_t chunk_keys, int *rc) {
  uint64_t k = chunk_keys ? chunk_keys : pr->g.n;
  pthread_mutex_lock(&pr->blocks_mu);
  *rc = build(pr, task, k);
  if (!*rc && !pr->spares_built) {
    pr->spares_built = true;
    *rc = build_spares(pr, task, k);
  }
  pthread_mutex_unlock(&pr->blocks_mu);
  return *rc ? NULL : &pr->blocks[task];
}
