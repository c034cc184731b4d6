/*
 * peak.c - this machine's two ceilings for a dense kernel, measured with
 * every core busy: double-precision floating-point throughput (fused
 * multiply-adds on independent registers; AVX2+FMA when the CPU has it,
 * else SSE2 multiplies and adds) and main-memory read bandwidth (each
 * thread sums its own slice of a 1 GiB array, far larger than any cache).
 *
 *   peak [THREADS]   (default: the online CPUs)
 *
 * Prints one line: `threads=N gflops=G gbs=B isa=avx2|sse2`, the best of
 * 5 rounds of each. bench/learning/logreg.sh and bench/learning/mlp.sh set the throughput
 * they reach against it. Built as the `peak` target (not by default).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define MEM_BYTES (1ull << 30)
#define FLOP_ROUNDS 40000000ull

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct job {
  const double *mem;
  size_t n;      /* doubles of the slice */
  double result; /* written by the thread, so the work is not optimised away */
  int avx2;
};

#if defined(__x86_64__)
/* 10 independent chains of 4-wide fused multiply-adds: 80 flops a round.
 * Each chain starts from its own value: chains alike from the start are
 * one chain to the compiler, which then runs one and counts ten. */
__attribute__((target("avx2,fma"))) static double flops_avx2(void) {
  __m256d a0 = _mm256_set1_pd(0.10), a1 = _mm256_set1_pd(0.11), a2 = _mm256_set1_pd(0.12), a3 = _mm256_set1_pd(0.13),
          a4 = _mm256_set1_pd(0.14), a5 = _mm256_set1_pd(0.15), a6 = _mm256_set1_pd(0.16), a7 = _mm256_set1_pd(0.17),
          a8 = _mm256_set1_pd(0.18), a9 = _mm256_set1_pd(0.19);
  __m256d m = _mm256_set1_pd(0.999999), c = _mm256_set1_pd(1e-7);
  for (unsigned long long k = 0; k < FLOP_ROUNDS; k++) {
    a0 = _mm256_fmadd_pd(a0, m, c);
    a1 = _mm256_fmadd_pd(a1, m, c);
    a2 = _mm256_fmadd_pd(a2, m, c);
    a3 = _mm256_fmadd_pd(a3, m, c);
    a4 = _mm256_fmadd_pd(a4, m, c);
    a5 = _mm256_fmadd_pd(a5, m, c);
    a6 = _mm256_fmadd_pd(a6, m, c);
    a7 = _mm256_fmadd_pd(a7, m, c);
    a8 = _mm256_fmadd_pd(a8, m, c);
    a9 = _mm256_fmadd_pd(a9, m, c);
  }
  __m256d s =
      _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, a1), _mm256_add_pd(a2, a3)),
                    _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a4, a5), _mm256_add_pd(a6, a7)), _mm256_add_pd(a8, a9)));
  double out[4];
  _mm256_storeu_pd(out, s);
  return out[0] + out[1] + out[2] + out[3];
}
#endif

/* 10 independent chains of 2-wide multiplies and adds: 40 flops a round. */
static double flops_sse2(void) {
  typedef double v2 __attribute__((vector_size(16)));
  v2 a[10], m = {0.999999, 0.999999}, c = {1e-7, 1e-7};
  for (int i = 0; i < 10; i++) /* distinct starts: see flops_avx2() */
    a[i] = (v2){0.1 + 0.01 * i, 0.1 + 0.01 * i};
  for (unsigned long long k = 0; k < FLOP_ROUNDS; k++)
    for (int i = 0; i < 10; i++)
      a[i] = a[i] * m + c;
  double s = 0;
  for (int i = 0; i < 10; i++)
    s += a[i][0] + a[i][1];
  return s;
}

static void *flops_thread(void *arg) {
  struct job *j = arg;
#if defined(__x86_64__)
  j->result = j->avx2 ? flops_avx2() : flops_sse2();
#else
  j->result = flops_sse2();
#endif
  return NULL;
}

static void *read_thread(void *arg) {
  struct job *j = arg;
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  for (size_t i = 0; i + 8 <= j->n; i += 8) {
    s0 += j->mem[i];
    s1 += j->mem[i + 1];
    s2 += j->mem[i + 2];
    s3 += j->mem[i + 3];
    s4 += j->mem[i + 4];
    s5 += j->mem[i + 5];
    s6 += j->mem[i + 6];
    s7 += j->mem[i + 7];
  }
  j->result = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
  return NULL;
}

/* Seconds for `threads` threads each running fn on its job. */
static double run(int threads, void *(*fn)(void *), struct job *jobs) {
  pthread_t tid[256];
  double t0 = now_s();
  for (int t = 0; t < threads; t++)
    if (pthread_create(&tid[t], NULL, fn, &jobs[t]) != 0) {
      fprintf(stderr, "peak: cannot start a thread\n");
      exit(1);
    }
  for (int t = 0; t < threads; t++)
    pthread_join(tid[t], NULL);
  return now_s() - t0;
}

int main(int argc, char **argv) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = argc > 1 ? atoi(argv[1]) : (int)(online > 0 ? online : 1);
  if (threads < 1 || threads > 256) {
    fprintf(stderr, "peak: THREADS must be 1..256\n");
    return 2;
  }
  int avx2 = 0;
#if defined(__x86_64__)
  avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  size_t n = MEM_BYTES / sizeof(double);
  double *mem = malloc(MEM_BYTES);
  if (!mem) {
    fprintf(stderr, "peak: cannot allocate 1 GiB\n");
    return 1;
  }
  for (size_t i = 0; i < n; i++)
    mem[i] = (double)(i & 1023);
  struct job jobs[256];
  for (int t = 0; t < threads; t++)
    jobs[t] = (struct job){.mem = mem + n / (size_t)threads * (size_t)t, .n = n / (size_t)threads, .avx2 = avx2};
  double best_f = 0, best_b = 0;
  for (int round = 0; round < 5; round++) {
    double s = run(threads, flops_thread, jobs);
    double flops = (double)FLOP_ROUNDS * (avx2 ? 80 : 40) * threads;
    best_f = flops / s > best_f ? flops / s : best_f;
    s = run(threads, read_thread, jobs);
    double bytes = (double)(n / (size_t)threads) * sizeof(double) * threads;
    best_b = bytes / s > best_b ? bytes / s : best_b;
  }
  printf("threads=%d gflops=%.2f gbs=%.2f isa=%s\n", threads, best_f / 1e9, best_b / 1e9, avx2 ? "avx2" : "sse2");
  free(mem);
  return 0;
}
