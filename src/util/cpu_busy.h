/*
 * cpu_busy.h - how many threads of this process are running real work
 * (a compute thread's item), against the CPUs the process may use.
 *
 * A thread about to wait may poll for a while instead of sleeping (waking
 * a thread costs tens of microseconds on a virtual machine); it should do
 * so only while a core is free of real work, or its polling takes that
 * core's time from the computation it waits for.
 */
#ifndef DSANA_UTIL_CPU_BUSY_H
#define DSANA_UTIL_CPU_BUSY_H

#include <stdbool.h>

/* A thread starts (+1) or ends (-1) a piece of real work. */
void cpu_busy_add(int delta);

/* Are fewer threads busy than the CPUs this process may use? */
bool cpu_busy_core_free(void);

#endif
