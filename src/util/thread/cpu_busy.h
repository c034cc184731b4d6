/*
 * cpu_busy.h - whether threads of this process are running real work
 * (a compute thread's item), or did so lately.
 *
 * A thread about to wait may poll for a while instead of sleeping (waking
 * a thread costs tens of microseconds on a virtual machine); it should do
 * so only in a process whose compute threads are quiet: the kernel shares
 * a core between a poller and a compute thread whatever the poller yields,
 * and a job whose tasks go to compute threads has iterations long enough
 * not to need it (measured: Kronecker 18, 4.9 -> 5.1-6.4 ms an iteration
 * when threads polled between tasks).
 */
#ifndef DSANA_UTIL_CPU_BUSY_H
#define DSANA_UTIL_CPU_BUSY_H

#include <stdbool.h>
#include <stdint.h>

/* A compute thread starts (+1) or ends (-1) a piece of real work. */
void cpu_busy_add(int delta);

/* No piece of real work runs, nor ended in the 2 ms before now_ns
 * (CLOCK_MONOTONIC, clock.h). */
bool cpu_busy_quiet(uint64_t now_ns);

#endif
