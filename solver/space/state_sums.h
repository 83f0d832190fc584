/*
 * state_sums.h - the indices' sums over a slice of states, and the rule
 * that orders the most probable states (internal to libsan).  One
 * accumulation for every engine: the serial indices
 * (solver/analysis/indices.c) give it chunks of the stationary vector,
 * the distributed one (solver/petsc/dindices.c) a rank's part; each adds
 * the slices' sums its own way (in chunk order; over the ranks).
 */
#ifndef SAN_SPACE_STATE_SUMS_H
#define SAN_SPACE_STATE_SUMS_H

#include <stdint.h>
#include "san.h"
#include "solver/space/succ.h"

/* The sums of a slice: results, throughputs (p times the event's
 * rate), marginals (every automaton's states in a row, automaton a's at
 * moff[a]), each compensated (millions of small terms: res_c, thr_c,
 * marg_c carry what rounding lost; every engine sums the same way, so
 * that their answers differ by the order of the sums only).  Zeroed by
 * the caller. */
typedef struct {
    double *res, *res_c, *thr, *marg, *thr_c, *marg_c;
} space_sums;

/* The offsets of each automaton's marginals in a row (moff[naut] is
 * the row's width); NULL when out of memory.  free() it. */
int64_t *space_marginal_offsets(const san_model *m);

/* *sum += v, compensated (Kahan): *comp carries what rounding lost. */
static inline void space_kahan_add(double *sum, double *comp, double v)
{
    const double y = v - *comp, t = *sum + y;
    *comp = (t - *sum) - y;
    *sum = t;
}

/* Adds the states index[0..n) of probability p[0..n) to S (states of
 * probability 0 add nothing); c, s: the caller's scratch (succ_init'ed,
 * naut ints). */
void space_sums_add(const san_model *m, const int64_t *moff, const int64_t *index,
                    const double *p, int64_t n, succ_ctx *c, int *s, space_sums *S);

/* sol's results, throughputs, marginals (zeroed) and room for ntop top
 * states; -1 when out of memory (what was made is freed by
 * space_solution_clear). */
int space_solution_alloc(const san_model *m, int ntop, san_solution *sol);

/* A candidate for the most probable states: its probability, its
 * mixed-radix index, its number in the caller's numbering. */
typedef struct {
    double p;
    int64_t index, state;
} space_top;

/* The order of the top states, for every engine, storage and thread or
 * rank count: descending probability, ties by increasing mixed-radix
 * index (a state's number depends on the exploration's order, its index
 * does not).  < 0: x comes first. */
int space_top_cmp(const space_top *x, const space_top *y);

/* Keeps t in top[0..*have), the ntop first in that order. */
void space_top_keep(space_top *top, int ntop, int *have, space_top t);

#endif
