/*
 * passage_int.h - first-passage figures by linear solves on the sparse
 * generator: the mean by a steady-state solve, the probability of
 * reaching the target by an absorption solve (passage.c; internal to
 * solver/analysis/).
 */
#ifndef SAN_PASSAGE_INT_H
#define SAN_PASSAGE_INT_H

#include "san.h"
#include "solver/space/space_int.h"

typedef struct {
    double mean;            /* E[T] */
    double rel_error;       /* estimated relative error of mean (NaN when
                               the solve is not verified) */
    int64_t states;         /* of the regenerative chain */
    san_status status;      /* of the solve */
    san_solve_info info;
} an_passage_mean;

/* The return rows of a regenerative chain hold one entry per initial
 * state: past this many entries in all (and past the generator's own
 * count) the solves below are not tried (the series instead). */
#define SAN_REGEN_MAX_ENTRIES 5e7

/* alpha: the initial distribution, target: per state, on sp's sparse
 * generator.  0 (out filled); 1 when some state reachable from alpha
 * cannot reach the target (E[T] infinite: nothing solved); -1 out of
 * memory. */
int an_passage_mean_solve(const san_space *sp, const double *alpha, const char *target,
                           const san_solve_opts *o, an_passage_mean *out);

/* The probability that the passage from alpha ever enters the target,
 * on sp's sparse generator: 1 exactly (*exact = 1) when every state it
 * can visit can still reach the target (a graph search).  Otherwise the
 * passage ends on entering the target or a state that cannot reach it
 * (missed): both made to return to alpha at rate r, a cycle ends in the
 * target with probability P(reach), and with pi the stationary vector
 * of that regenerative chain (san_ctmc_solve under o: GTH for the small
 * stiff ones, whose tiny rates a diagonal would round away),
 *     P(reach) = pi(target) / (pi(target) + pi(missed)).
 * Never the mass of a series: a passage of mean 1e16 leaves the series'
 * mass unmoved for 1e16 products.  Nor an LU solve of the absorption
 * probabilities: a crash at rate 1e-17 beside a rate of 1.12 vanishes
 * from the diagonal (P(reach) 1 for 0.94).  0; -1 out of memory or the
 * solve failed (msg); info: that solve (method 0 when none). */
int an_passage_reach_solve(const san_space *sp, const double *alpha, const char *target,
                            const san_solve_opts *o, double *reach, int *exact,
                            san_solve_info *info, char *msg, size_t msgsz);

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
