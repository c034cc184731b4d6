/*
 * affinity.h - keeping a thread on one CPU.
 *
 * On a machine with few cores the kernel's wake-up placement often puts
 * two threads woken together on one core for a time slice while another
 * core idles; a runtime whose threads run in phases (all compute, then
 * all servers) loses that slice every iteration. Threads that know they
 * are the machine's n-th of a kind bind to the n-th CPU.
 */
#ifndef DSANA_UTIL_AFFINITY_H
#define DSANA_UTIL_AFFINITY_H

#include <stdint.h>

/* Keep the calling thread on the n-th CPU (counted modulo their number)
 * of those the process may run on. 0, or -1 when the kernel refused. */
int affinity_bind_nth(uint64_t n);

#endif
