/*
 * restricted.h - linear systems of -Q restricted to a set of states
 * (restricted.c; internal to libsan): the unbounded operators of
 * solver/props and the closed classes' reach probabilities
 * (class_reach.c).
 */
#ifndef SAN_RESTRICTED_H
#define SAN_RESTRICTED_H

#include <stddef.h>
#include <stdint.h>
#include "san.h"

/* A = -Q restricted to the states s with map[s] >= 0 (numbered
 * 0..nu-1 by map); x A = b when transpose, A x = b otherwise; *resid
 * (may be NULL) the relative residual.  0, or -1 with msg. */
int num_restricted_solve(const san_csr *q, const int64_t *map, int64_t nu, const double *b, double *x,
                         int transpose, double *resid, char *msg, size_t msgn);

#endif
