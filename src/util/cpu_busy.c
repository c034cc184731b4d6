/* cpu_busy.c - the process's count of threads busy with real work (cpu_busy.h). */
#define _GNU_SOURCE /* CPU_COUNT */
#include "util/cpu_busy.h"

#include <sched.h>
#include <stdatomic.h>

static atomic_int busy;
static atomic_int cpus; /* 0: not read yet */

void cpu_busy_add(int delta) { atomic_fetch_add_explicit(&busy, delta, memory_order_relaxed); }

static int cpus_allowed(void) {
  int n = atomic_load_explicit(&cpus, memory_order_relaxed);
  if (n == 0) {
    cpu_set_t set;
    n = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
    atomic_store_explicit(&cpus, n, memory_order_relaxed);
  }
  return n;
}

bool cpu_busy_core_free(void) { return atomic_load_explicit(&busy, memory_order_relaxed) < cpus_allowed(); }
