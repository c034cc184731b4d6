/*
 * cpu.c - the apps' one choice of vector kernels (cpu.h): what the CPU
 * supports, lowered by DSANA_CPU, decided on the first call and cached.
 *
 * Any thread: the first callers may race to compute the same value; the
 * cached value is an atomic.
 */
#include "cpu.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum app_cpu app_cpu_detect(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
    return APP_CPU_SCALAR;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq"))
    return APP_CPU_AVX512;
  return APP_CPU_AVX2;
#else
  return APP_CPU_SCALAR;
#endif
}

const char *app_cpu_name(enum app_cpu level) {
  static const char *const names[] = {"scalar", "avx2", "avx512"};
  return (unsigned)level < 3 ? names[level] : "scalar";
}

enum app_cpu app_cpu_parse(const char *s, enum app_cpu have) {
  for (int l = APP_CPU_SCALAR; s && l <= APP_CPU_AVX512; l++)
    if (strcmp(s, app_cpu_name((enum app_cpu)l)) == 0)
      return (enum app_cpu)l < have ? (enum app_cpu)l : have;
  return have;
}

enum app_cpu app_cpu_level(void) {
  static atomic_int cached = -1;
  int l = atomic_load_explicit(&cached, memory_order_relaxed);
  if (l < 0) {
    l = (int)app_cpu_parse(getenv("DSANA_CPU"), app_cpu_detect());
    atomic_store_explicit(&cached, l, memory_order_relaxed);
  }
  return (enum app_cpu)l;
}
