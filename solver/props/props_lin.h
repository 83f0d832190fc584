/*
 * props_lin.h - the linear systems of the unbounded operators
 * (linear.c; internal to solver/props).
 */
#ifndef SAN_PROPS_LIN_H
#define SAN_PROPS_LIN_H

#include <stddef.h>
#include <stdint.h>
#include "san.h"

/* A = -Q restricted to the states s with map[s] >= 0 (numbered
 * 0..nu-1 by map); x A = b when transpose, A x = b otherwise; *resid
 * (may be NULL) the relative residual.  0, or -1 with msg. */
int props_solve(const san_csr *q, const int64_t *map, int64_t nu, const double *b, double *x,
                int transpose, double *resid, char *msg, size_t msgn);

#endif
