/* hold.c - emulated items held until their modelled end (see hold.h). */
#include "runtime/emulate/hold.h"

#include <stdlib.h>

#include "dsana/dsana.h"
#include "runtime/emulate/emulate.h"

struct held {
  struct witem it;
  uint64_t t0, end_ns;
  struct hold_marks marks; /* at[] rescaled to clock_now_ns() times */
  uint32_t fired;
  bool busy;
};

struct hold {
  uint32_t n_threads, count;
  struct held *slot;  /* one per virtual thread */
  int64_t *credit_ns; /* per virtual thread: overshoot not yet taken off */
};

int hold_create(uint32_t n_threads, struct hold **out) {
  struct hold *h = calloc(1, sizeof *h);
  if (h && n_threads) {
    h->n_threads = n_threads;
    h->slot = calloc(n_threads, sizeof *h->slot);
    h->credit_ns = calloc(n_threads, sizeof *h->credit_ns);
  }
  if (!h || !h->slot || !h->credit_ns) {
    hold_destroy(h);
    return n_threads ? DSANA_ENOMEM : DSANA_EINVAL;
  }
  *out = h;
  return 0;
}

void hold_destroy(struct hold *h) {
  if (!h)
    return;
  free(h->slot);
  free(h->credit_ns);
  free(h);
}

uint32_t hold_count(const struct hold *h) { return h->count; }

bool hold_has_room(const struct hold *h) { return h->count < h->n_threads; }

bool hold_add(struct hold *h, const struct witem *it, uint64_t t0, uint64_t real_ns, uint64_t modelled_ns,
              const struct hold_marks *marks) {
  uint32_t v = 0;
  while (v < h->n_threads && h->slot[v].busy)
    v++;
  if (v == h->n_threads)
    return false;
  struct held *s = &h->slot[v];
  int64_t take = h->credit_ns[v] < (int64_t)modelled_ns ? h->credit_ns[v] : (int64_t)modelled_ns;
  h->credit_ns[v] -= take;
  *s = (struct held){.it = *it, .t0 = t0, .end_ns = t0 + modelled_ns - (uint64_t)take, .busy = true};
  double scale = real_ns ? (double)modelled_ns / (double)real_ns : 1;
  for (uint32_t i = 0; marks && i < marks->n && i < HOLD_MARKS; i++) {
    uint64_t at = t0 + (uint64_t)((double)marks->at[i] * scale);
    s->marks.at[i] = at < s->end_ns ? at : s->end_ns;
    s->marks.n_said[i] = marks->n_said[i];
    s->marks.n = i + 1;
  }
  s->marks.ready = marks ? marks->ready : NULL;
  h->count++;
  return true;
}

/* The slot's next event: its next mark, else its end. */
static uint64_t next_event(const struct held *s) { return s->fired < s->marks.n ? s->marks.at[s->fired] : s->end_ns; }

uint64_t hold_due_ns(const struct hold *h) {
  uint64_t due = 0;
  for (uint32_t v = 0; v < h->n_threads; v++)
    if (h->slot[v].busy && (due == 0 || next_event(&h->slot[v]) < due))
      due = next_event(&h->slot[v]);
  return due;
}

void hold_marks_due(struct hold *h, uint64_t now_ns, void (*publish)(void *arg, _Atomic uint64_t *ready, uint64_t n),
                    void *arg) {
  for (uint32_t v = 0; v < h->n_threads; v++) {
    struct held *s = &h->slot[v];
    for (; s->busy && s->fired < s->marks.n && s->marks.at[s->fired] <= now_ns; s->fired++)
      publish(arg, s->marks.ready, s->marks.n_said[s->fired]);
  }
}

bool hold_take(struct hold *h, uint64_t now_ns, struct witem *it, uint64_t *t0) {
  for (uint32_t v = 0; v < h->n_threads; v++) {
    struct held *s = &h->slot[v];
    if (!s->busy || s->fired < s->marks.n || s->end_ns > now_ns)
      continue;
    int64_t credit = h->credit_ns[v] + (int64_t)(now_ns - s->end_ns);
    h->credit_ns[v] = credit < EMULATE_MAX_CREDIT_NS ? credit : EMULATE_MAX_CREDIT_NS;
    *it = s->it;
    *t0 = s->t0;
    s->busy = false;
    h->count--;
    return true;
  }
  return false;
}
