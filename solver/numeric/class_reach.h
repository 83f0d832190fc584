/*
 * class_reach.h - how likely each closed class of a chain is to be
 * reached from an initial distribution (class_reach.c; internal to
 * libsan: the long-run answers of solver/analysis and solver/props).
 */
#ifndef SAN_CLASS_REACH_H
#define SAN_CLASS_REACH_H

#include <stddef.h>
#include <stdint.h>
#include "san.h"

/* q: the generator by rows over n states (the rows of the transient
 * states are read, the others not); cls[s]: the closed class of state s
 * (0..K-1), -1 when transient; init: the initial distribution.
 * prob[c]: the probability of ending in class c; err[c] (may be NULL):
 * an estimate of its absolute error (the correction one refinement step
 * of the linear system finds, plus the rounding of the sums); *resid
 * (may be NULL): the system's relative residual.  0, or -1 with msg. */
int num_class_reach(const san_csr *q, const int32_t *cls, int64_t K, const double *init,
                    double *prob, double *err, double *resid, char *msg, size_t msgn);

#endif
