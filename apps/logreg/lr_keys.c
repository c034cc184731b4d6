/*
 * lr_keys.c - sparse models: the features a task's rows touch (its keys of
 * the model, then the bias), built when the runtime asks for them
 * (task_keys: once per run of the task) and freed when it gives the last
 * one back (task_keys_done). A worker so holds lists only for the tasks it
 * is running, not one per task all job long (80 MB at 1M x 1M with 16
 * tasks). A list is built by marking the features in a bitmap and reading
 * the bits back in order: O(non-zeros + features / 64), no sort.
 *
 * Both hooks run on the worker's control thread only: no lock.
 */
#include <stdlib.h>

#include "logreg.h"

static int build_keys(struct lr_app *a, uint32_t task, struct lr_task_data *td) {
  const struct dsana_dataset *ds = task >= a->n_train_tasks ? &a->d.test : &a->d.train;
  uint64_t F = a->d.train.n_features, words = F / 64 + 1, n = 0;
  if (!a->key_bits && !(a->key_bits = calloc(words, sizeof *a->key_bits)))
    return DSANA_ENOMEM;
  uint64_t *bits = a->key_bits;
  for (uint64_t e = ds->row_off[td->lo]; e < ds->row_off[td->hi]; e++)
    if (ds->col[e] < F) /* (test features the model lacks: ignored) */
      bits[ds->col[e] / 64] |= 1ull << (ds->col[e] % 64);
  for (uint64_t w = 0; w < words; w++)
    n += (uint64_t)__builtin_popcountll(bits[w]);
  uint64_t *keys = malloc((n + 1) * sizeof *keys);
  n = 0;
  for (uint64_t w = 0; w < words; w++) { /* read back and clear */
    for (uint64_t b = bits[w]; keys && b; b &= b - 1)
      keys[n++] = w * 64 + (uint64_t)__builtin_ctzll(b);
    bits[w] = 0;
  }
  if (!keys)
    return DSANA_ENOMEM;
  keys[n++] = F; /* the bias */
  td->keys = keys;
  td->n_keys = n;
  return 0;
}

/* The task's data when it has key lists of table `table`, else NULL. */
static struct lr_task_data *keyed_task(struct lr_app *a, uint32_t task, uint32_t table) {
  if (!a->sparse || table != LR_T_X || task >= a->n_train_tasks + a->n_test_tasks)
    return NULL;
  return &a->td[task];
}

int lr_task_keys(void *app, uint32_t task, uint32_t table, const uint64_t **keys, uint64_t *n) {
  struct lr_app *a = app;
  struct lr_task_data *td = keyed_task(a, task, table);
  if (!td)
    return DSANA_EAGAIN;
  if (!td->keys) {
    int rc = build_keys(a, task, td);
    if (rc)
      return rc;
  }
  td->key_refs++;
  *keys = td->keys;
  *n = td->n_keys;
  return 0;
}

void lr_task_keys_done(void *app, uint32_t task, uint32_t table) {
  struct lr_task_data *td = keyed_task(app, task, table);
  if (!td || td->key_refs == 0 || --td->key_refs > 0)
    return;
  free(td->keys);
  td->keys = NULL;
  td->n_keys = 0;
}
