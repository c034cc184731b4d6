/*
 * kernels.c - the apps' vector kernels against each other in one process
 * (bench/learning/kernels.sh): the MLP's forward product (64 rows x 784 inputs x
 * 256 units, Fashion-MNIST's pixels as A, zero groups skipped), its
 * gradient product with the fixed-point pairs (2 blocks of 64 rows, 784 x
 * 256 outputs) and k-means' nearest centroid (every row, k = 10), at each
 * level of apps/common/cpu.h this CPU has, in alternation, several rounds;
 * the best round of each. The MLP's products take floats (apps/mlp/mlp.h).
 *
 *   kernels DATA.bin [ROUNDS]
 *
 * Prints a line per kernel and level: `kernel=K level=L gflops=G
 * ms=T ratio_to_avx2=R`; GFLOP/s counts the multiply-adds the kernel does
 * (skipped zero groups not counted). Also checks that each level's output
 * has the scalar level's bits (exit 1 if not). Built as the `kernels`
 * target (not by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apps/kmeans/kmeans.h"
#include "apps/mlp/mlp.h"

#define NI 784
#define NO 256
#define NB 2

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double rnd(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(int64_t)(*s >> 1) / 4.6e18 - 0.5;
}

struct bench {
  const struct dsana_dataset *ds;
  float *A, *W, *bias, *Z, *D; /* the MLP's products are in floats */
  double *oh, *ol, *cent, *dot;
  uint32_t *idx;
  struct mlp_blocks bk;
  struct mlp_fix fix;
  double nn_flop, tn_flop, km_flop;
};

/* Rows [r0, r0 + 64 NB) of the data as dense blocks of A. */
static void load_blocks(struct bench *b, uint64_t r0) {
  memset(b->A, 0, sizeof(float) * NB * MLP_BLOCK * NI);
  for (uint64_t s = 0; s < NB * MLP_BLOCK; s++)
    for (uint64_t e = b->ds->row_off[r0 + s]; e < b->ds->row_off[r0 + s + 1]; e++)
      b->A[s * NI + b->ds->col[e]] = (float)(dsana_dataset_val(b->ds, e) / 255.0);
}

/* Multiply-adds the products do on these blocks (their zero groups skipped). */
static void count_flop(struct bench *b) {
  double nn = 0, tn = 0;
  for (uint32_t g = 0; g < MLP_BLOCK / 4; g++)
    nn += mlp_nonzero_cols(b->A + 4 * g * NI, NI, NI, b->idx);
  for (uint32_t bl = 0; bl < NB; bl++)
    for (uint32_t j = 0; j < NI; j += 4)
      tn += mlp_nonzero_rows(b->A + bl * MLP_BLOCK * NI + j, NI, MLP_BLOCK, b->idx);
  b->nn_flop = 2.0 * 4 * NO * nn;
  b->tn_flop = 2.0 * 4 * NO * tn;
  b->km_flop = 2.0 * (double)b->ds->nnz * 12; /* k = 10 padded to 12 lanes */
}

static int setup(struct bench *b, const struct dsana_dataset *ds) {
  uint64_t s = 1;
  b->ds = ds;
  b->A = aligned_alloc(64, sizeof(float) * NB * MLP_BLOCK * NI);
  b->W = aligned_alloc(64, sizeof(float) * NI * NO);
  b->bias = aligned_alloc(64, sizeof(float) * NO);
  b->Z = aligned_alloc(64, sizeof(float) * MLP_BLOCK * NO);
  b->D = aligned_alloc(64, sizeof(float) * NB * MLP_BLOCK * NO);
  b->oh = calloc(2 * (size_t)NI * NO, sizeof(double));
  b->cent = malloc(sizeof(double) * 10 * NI);
  b->dot = malloc(sizeof(double) * 16);
  b->idx = malloc(sizeof(uint32_t) * MLP_IDX(NI));
  if (!b->A || !b->W || !b->bias || !b->Z || !b->D || !b->oh || !b->cent || !b->dot || !b->idx)
    return 1;
  b->ol = b->oh + (size_t)NI * NO;
  for (size_t i = 0; i < (size_t)NI * NO; i++)
    b->W[i] = (float)(rnd(&s) * 0.1);
  for (size_t i = 0; i < NO; i++)
    b->bias[i] = (float)(rnd(&s) * 0.1);
  for (size_t i = 0; i < (size_t)NB * MLP_BLOCK * NO; i++)
    b->D[i] = rnd(&s) > 0 ? (float)(rnd(&s) * 1e-3) : 0; /* ReLU's deltas: about half 0 */
  load_blocks(b, 0);
  for (uint32_t m = 0; m < 10; m++) {
    memset(b->cent + m * NI, 0, sizeof(double) * NI);
    uint64_t r = (uint64_t)m * 5923 % ds->n_rows;
    for (uint64_t e = ds->row_off[r]; e < ds->row_off[r + 1]; e++)
      b->cent[m * NI + ds->col[e]] = dsana_dataset_val(ds, e);
  }
  b->bk = (struct mlp_blocks){.n = NB, .a = b->A, .d = b->D, .lda = NI, .ldd = NO};
  b->bk.a_step = (uint64_t)MLP_BLOCK * NI, b->bk.d_step = (uint64_t)MLP_BLOCK * NO;
  for (uint32_t i = 0; i < NB; i++)
    b->bk.rows[i] = MLP_BLOCK;
  b->fix = mlp_fix_for(4);
  count_flop(b);
  return 0;
}

/* One timed run of kernel k at level l; a checksum of its output into *sum. */
static double run(struct bench *b, int k, enum app_cpu l, int reps, double *sum) {
  double t0 = now_s();
  *sum = 0;
  if (k == 0) {
    for (int r = 0; r < reps; r++)
      mlp_mm_nn_at(l, MLP_BLOCK, NI, NO, b->A, NI, b->W, NO, b->bias, b->Z, NO, b->idx);
    for (size_t i = 0; i < (size_t)MLP_BLOCK * NO; i++)
      *sum += b->Z[i];
  } else if (k == 1) {
    memset(b->oh, 0, sizeof(double) * 2 * NI * NO);
    for (int r = 0; r < reps; r++)
      mlp_mm_tn_fix_at(l, &b->bk, NI, NO, &b->fix, b->oh, b->ol, NO, b->idx);
    for (size_t i = 0; i < (size_t)2 * NI * NO; i++)
      *sum += b->oh[i] * (double)(i + 1);
  } else {
    struct km_centres cs;
    if (km_centres_init(&cs, b->cent, 10, NI))
      return -1;
    for (uint64_t i = 0; i < b->ds->n_rows; i++) {
      double d;
      *sum += km_nearest_at(l, &cs, b->ds, i, b->dot, &d) + d;
    }
    km_centres_fini(&cs);
  }
  return now_s() - t0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: kernels DATA.bin [ROUNDS]\n");
    return 2;
  }
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  struct dsana_dataset ds;
  char err[512];
  if (dsana_dataset_open(argv[1], NULL, &ds, err, sizeof err) || ds.n_features != NI || ds.n_rows < 2 * MLP_BLOCK) {
    fprintf(stderr, "kernels: %s: %s\n", argv[1], err[0] ? err : "not 784 features");
    return 2;
  }
  struct bench b;
  if (setup(&b, &ds)) {
    fprintf(stderr, "kernels: out of memory\n");
    return 2;
  }
  static const char *names[] = {"mlp_forward", "mlp_gradient", "kmeans_nearest"};
  const int reps[] = {20, 10, 1};
  const double flop[] = {b.nn_flop * reps[0], b.tn_flop * reps[1], b.km_flop};
  int top = (int)app_cpu_detect(), bad = 0;
  for (int k = 0; k < 3; k++) {
    double best[3] = {1e30, 1e30, 1e30}, sums[3];
    for (int r = 0; r < rounds; r++)
      for (int l = top; l >= APP_CPU_SCALAR; l--) {
        if (l == APP_CPU_SCALAR && r > 0)
          continue; /* slow: once is enough for its figure */
        double t = run(&b, k, (enum app_cpu)l, l == APP_CPU_SCALAR && k < 2 ? 1 : reps[k], &sums[l]);
        t = l == APP_CPU_SCALAR && k < 2 ? t * reps[k] : t;
        best[l] = t < best[l] ? t : best[l];
      }
    for (int l = APP_CPU_SCALAR; l <= top; l++) {
      bad |= k != 1 && sums[l] != sums[APP_CPU_SCALAR] && l > APP_CPU_SCALAR;
      printf("kernel=%s level=%s gflops=%.2f ms=%.3f ratio_to_avx2=%.3f\n", names[k], app_cpu_name((enum app_cpu)l),
             flop[k] / best[l] * 1e-9, best[l] * 1e3 / (k < 2 ? reps[k] : 1),
             top >= APP_CPU_AVX2 ? best[l] / best[APP_CPU_AVX2] : 1.0);
    }
  }
  dsana_dataset_fini(&ds);
  if (bad)
    fprintf(stderr, "kernels: a level's output differs from the scalar level's\n");
  return bad;
}
