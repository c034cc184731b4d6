/* driver_faults.c - the worker's fault points around a task's pushes
 * (driver_faults.h), moved out of the sending path of driver_io.c so that
 * only the worker's driver has them. */
#include "runtime/driver/driver_faults.h"

#include <stdbool.h>

/* 1 + (iter << 32 | task) of push o: which task instance it belongs to. */
static uint64_t push_key(const struct rt_out *o) { return 1 + ((uint64_t)o->hdr.iter << 32 | o->hdr.task); }

static bool push_of(const struct rt_out *o, uint64_t key) { return o->hdr.type == WIRE_PUSH && push_key(o) == key; }

void drv_push_faults_before(struct drv_push_faults *f, const struct rt_outq *q, size_t i) {
  const struct rt_out *o = &q->v[i];
  if (o->hdr.type != WIRE_PUSH)
    return;
  uint64_t key = push_key(o);
  bool split = f->last_push == key, run = i > 0 && q->v[i - 1].hdr.type == WIRE_PUSH;
  f->last_push = key;
  if (f->plan.point == FAULT_NONE)
    return;
  size_t a = i, b = i + 1;
  while (a > 0 && push_of(&q->v[a - 1], key))
    a--;
  while (b < q->n && push_of(&q->v[b], key))
    b++;
  if (!run && !split)
    fault_point(&f->plan, FAULT_BEFORE_PUSH, o->hdr.iter);
  else if ((i == a && (split || b - a == 1)) || (b - a >= 2 && i == a + (b - a) / 2))
    fault_point(&f->plan, FAULT_MID_PUSH, o->hdr.iter);
}

void drv_push_faults_after(const struct drv_push_faults *f, const struct rt_outq *q, size_t i) {
  const struct rt_out *o = &q->v[i];
  bool last = i + 1 == q->n || q->v[i + 1].hdr.type != WIRE_PUSH;
  if (o->hdr.type == WIRE_PUSH && last)
    fault_point(&f->plan, FAULT_AFTER_PUSH, o->hdr.iter);
}
