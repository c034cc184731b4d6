/*
 * driver_faults.h - the worker's fault points around a task's pushes
 * (fault.h), as its driver sends them: which message of a flush is the
 * first, the middle or the last push of a task's. Private to driver/:
 * driver_worker.c keeps the state and calls these from its ops'
 * before_send and after_send (driver_internal.h).
 */
#ifndef DSANA_RUNTIME_DRIVER_FAULTS_H
#define DSANA_RUNTIME_DRIVER_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/core/fault.h"
#include "runtime/msg/event.h"

struct drv_push_faults {
  struct fault_plan plan; /* the part of the job's plan that names this worker */
  uint64_t last_push;     /* 1 + (iter << 32 | task) of the last push, 0: none */
};

/* Before message i of q is sent: before the first push of a flush (unless
 * it continues a task's pushes split over flushes); mid-push before the
 * middle one of a task's messages in this flush (half of them sent),
 * before a single-message task's push that follows others in the flush,
 * or before a split task's later messages. */
void drv_push_faults_before(struct drv_push_faults *f, const struct rt_outq *q, size_t i);
/* After message i of q was sent: after the last push of a run of them. */
void drv_push_faults_after(const struct drv_push_faults *f, const struct rt_outq *q, size_t i);

#endif
