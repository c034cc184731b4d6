/*
 * cpu.h - the one choice of vector kernels for every app (mlp, logreg,
 * kmeans): which instruction set this process's kernels use, detected
 * once and cached. Every level computes the same bits (each kernel's
 * file says in which order), so the choice changes speed only.
 *
 * DSANA_CPU=scalar|avx2|avx512 in the environment lowers the level (for
 * tests and benchmarks); a level above what the CPU has is capped to it.
 */
#ifndef DSANA_APPS_COMMON_CPU_H
#define DSANA_APPS_COMMON_CPU_H

enum app_cpu {
  APP_CPU_SCALAR = 0, /* portable C (fma() where a kernel fuses) */
  APP_CPU_AVX2 = 1,   /* AVX2 and FMA */
  APP_CPU_AVX512 = 2, /* AVX-512 F, VL, BW, DQ (and AVX2, FMA) */
};

/* The level this process's kernels use: the CPU's, lowered by DSANA_CPU.
 * Read once (the first call), then cached; any thread. */
enum app_cpu app_cpu_level(void);
/* What the CPU has, DSANA_CPU aside. */
enum app_cpu app_cpu_detect(void);
/* "scalar", "avx2" or "avx512". */
const char *app_cpu_name(enum app_cpu level);
/* The level DSANA_CPU's value `s` asks for, capped at `have`; an unknown
 * or empty value leaves `have`. Pure. */
enum app_cpu app_cpu_parse(const char *s, enum app_cpu have);

#endif
