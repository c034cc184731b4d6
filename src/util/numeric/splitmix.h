/*
 * splitmix.h - splitmix64 (Steele, Lea, Flood 2014), the counter-based
 * randomness under everything dsana generates or draws from a seed: graph
 * and dataset generators (word i of a stream is a pure function of its key
 * and i, whatever the thread count), the scenario's transient stragglers
 * and the simulator's noise. Changing it changes every generated file.
 */
#ifndef DSANA_UTIL_SPLITMIX_H
#define DSANA_UTIL_SPLITMIX_H

#include <stdint.h>

/* The increment of the splitmix64 sequence (2^64 / the golden ratio). */
#define SPLITMIX64_GOLDEN 0x9E3779B97F4A7C15ull

/* splitmix64's finaliser: a bijective mix of the 64 bits of z. */
static inline uint64_t splitmix64_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Word i (0, 1, ...) of the stream whose state starts at key. */
static inline uint64_t splitmix64_at(uint64_t key, uint64_t i) {
  return splitmix64_mix(key + (i + 1) * SPLITMIX64_GOLDEN);
}

#endif
