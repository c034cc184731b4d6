/*
 * lr_posmap.c - position maps for the sparse tasks of the logistic-
 * regression app (logreg.h): a task's push lists the keys its rows touch,
 * and each non-zero must find its key's position in that list. A map of
 * one uint32 per feature, filled from the task's key list when the task
 * starts, answers that with one load, and only as many maps exist as tasks
 * run at once (the worker's threads), instead of a position per non-zero
 * kept for every task.
 *
 * Thread safety: take and put from any thread (a mutex guards the pool); a
 * taken map is its task's alone until put back.
 */
#include <stdlib.h>

#include "logreg.h"

int lr_posmap_init(struct lr_app *a) { return pthread_mutex_init(&a->posmaps.lock, NULL) ? DSANA_ENOMEM : 0; }

void lr_posmap_fini(struct lr_app *a) {
  for (uint32_t i = 0; i < a->posmaps.n; i++)
    free(a->posmaps.map[i]);
  a->posmaps.n = 0;
  pthread_mutex_destroy(&a->posmaps.lock);
}

int lr_posmap_take(struct lr_app *a, uint32_t **map) {
  struct lr_posmaps *p = &a->posmaps;
  int rc = 0;
  pthread_mutex_lock(&p->lock);
  uint32_t i = 0;
  while (i < p->n && p->busy[i])
    i++;
  if (i == p->n) { /* all in use: one more, allocated once for the run */
    uint32_t *m = i < LR_POSMAPS ? malloc((a->d.train.n_features ? a->d.train.n_features : 1) * sizeof *m) : NULL;
    if (m)
      p->map[p->n++] = m;
    else
      rc = DSANA_ENOMEM;
  }
  if (!rc) {
    p->busy[i] = true;
    *map = p->map[i];
  }
  pthread_mutex_unlock(&p->lock);
  return rc;
}

void lr_posmap_put(struct lr_app *a, uint32_t *map) {
  struct lr_posmaps *p = &a->posmaps;
  pthread_mutex_lock(&p->lock);
  for (uint32_t i = 0; i < p->n; i++)
    if (p->map[i] == map)
      p->busy[i] = false;
  pthread_mutex_unlock(&p->lock);
}
