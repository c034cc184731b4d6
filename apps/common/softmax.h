/*
 * softmax.h - the softmax classifier's output layer, shared by the apps
 * that end in one (logreg with more than two classes, mlp): a row's
 * cross-entropy and its gradient with respect to the scores, and the
 * class a model predicts.
 */
#ifndef DSANA_APPS_COMMON_SOFTMAX_H
#define DSANA_APPS_COMMON_SOFTMAX_H

#include <stdbool.h>
#include <stdint.h>

#define SOFTMAX_MAX_CLASSES 1024
/* dloss/dz below this is taken as 0: its products would be subnormal
 * numbers, which cost a CPU a hundred cycles each, and every exact sum
 * drops them anyway (it keeps 2^-80 and above). */
#define SOFTMAX_GRAD_FLOOR 0x1p-200

/* Cross-entropy of scores z (2 <= K <= SOFTMAX_MAX_CLASSES) for class y:
 * log sum_c e^z_c - z_y; dloss/dz_c = p_c - [c = y] into gz (may be
 * NULL); *right: the top class (the first of ties) is y. */
double softmax_xent(const double *z, uint32_t K, uint32_t y, double *gz, bool *right);
/* The top class of scores z (the first of ties) and its probability. */
uint32_t softmax_top(const double *z, uint32_t K, double *prob);

#endif
