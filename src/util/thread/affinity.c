/* affinity.c - keeping a thread on one CPU (affinity.h). */
#define _GNU_SOURCE /* CPU_SET, pthread_setaffinity_np */
#include "util/thread/affinity.h"

#include <pthread.h>
#include <sched.h>

int affinity_bind_nth(uint64_t n) {
  cpu_set_t allowed, one;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) == 0)
    return -1;
  n %= (uint64_t)CPU_COUNT(&allowed);
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &allowed) && n-- == 0) {
      CPU_ZERO(&one);
      CPU_SET(c, &one);
      return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0 ? 0 : -1;
    }
  return -1;
}
