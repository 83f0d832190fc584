/*
 * passage_int.h - the mean first-passage time by a steady-state solve
 * on the sparse generator (passage.c; internal to solver/analysis/).
 */
#ifndef SAN_PASSAGE_INT_H
#define SAN_PASSAGE_INT_H

#include "san.h"

typedef struct {
    double mean;            /* E[T] */
    double rel_error;       /* estimated relative error of mean (NaN when
                               the solve is not verified) */
    int64_t states;         /* of the regenerative chain */
    san_status status;      /* of the solve */
    san_solve_info info;
} san_passage_mean;

/* alpha: the initial distribution, target: per state, on sp's sparse
 * generator.  0 (out filled); 1 when some state reachable from alpha
 * cannot reach the target (E[T] infinite: nothing solved); -1 out of
 * memory. */
int san_passage_mean_solve(const san_space *sp, const double *alpha, const char *target,
                           const san_solve_opts *o, san_passage_mean *out);

#endif
