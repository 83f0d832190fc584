/*
 * passage_int.h - first-passage figures by linear solves on the sparse
 * generator: the mean by a steady-state solve, the probability of
 * reaching the target by an absorption solve (passage.c; internal to
 * solver/analysis/).
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

/* The probability that the passage from alpha ever enters the target,
 * on sp's sparse generator: 1 exactly (*exact = 1) when every state it
 * can visit can still reach the target (a graph search); otherwise by
 * one sparse LU solve of the absorption probabilities,
 *     (-Q_UU) h = Q_UT 1,   P(reach) = alpha_T + alpha_U h,
 * U the states it can visit that can reach the target (the others miss
 * it for sure).  Never by the mass of a series: a passage of mean 1e16
 * leaves the series' mass unmoved for 1e16 products.  0; -1 out of
 * memory or the solve failed (msg). */
int san_passage_reach_solve(const san_space *sp, const double *alpha, const char *target,
                            double *reach, int *exact, char *msg, size_t msgsz);

/* The rows the solves above read: sp itself on the sparse storage;
 * on the descriptor (pos: the position of each state of sp) a sparse
 * generator built beside it within room bytes, alpha and target (on
 * the positions) carried to its numbering. */
typedef struct {
    const san_space *sp;
    const double *alpha;
    const char *target;
    san_space full;         /* built: its own space */
    int built;
} passage_rows;

/* 0 ready; 1 none (over room, or the explorations differ: a note in d);
 * -1 out of memory. */
int passage_rows_get(passage_rows *pr, const san_space *sp, const int64_t *pos,
                     const double *alpha, const char *target, const san_space_opts *o,
                     double room, san_diag *d);
void passage_rows_free(passage_rows *pr);

#endif
