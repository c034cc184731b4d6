/* cpu_busy.c - the process's count of threads busy with real work (cpu_busy.h). */
#include "util/thread/cpu_busy.h"

#include <stdatomic.h>

#include "util/thread/clock.h"

#define CPU_BUSY_QUIET_NS 2000000u

static atomic_int busy;
static _Atomic uint64_t last_end_ns; /* when a piece of work last ended */

void cpu_busy_add(int delta) {
  atomic_fetch_add_explicit(&busy, delta, memory_order_relaxed);
  if (delta < 0)
    atomic_store_explicit(&last_end_ns, clock_now_ns(), memory_order_relaxed);
}

bool cpu_busy_quiet(uint64_t now_ns) {
  uint64_t last = atomic_load_explicit(&last_end_ns, memory_order_relaxed);
  return atomic_load_explicit(&busy, memory_order_relaxed) == 0 && (last == 0 || now_ns - last > CPU_BUSY_QUIET_NS);
}
