/* clock.h - monotonic time and sleeping, in nanoseconds. */
#ifndef DSANA_UTIL_CLOCK_H
#define DSANA_UTIL_CLOCK_H

#include <stdint.h>

uint64_t clock_now_ns(void);
/* CPU time of the calling thread (user and system). */
uint64_t clock_thread_cpu_ns(void);
void clock_sleep_ns(uint64_t ns);
static inline double clock_ns_to_s(uint64_t ns) { return (double)ns * 1e-9; }

#endif
