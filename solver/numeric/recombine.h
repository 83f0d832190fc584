/*
 * recombine.h - iterant recombination for the multilevel methods
 * (internal to libsan): the sparse ml (numeric/ml.c) and ml over the
 * Kronecker descriptor (kron/multilevel.c) accelerate their cycles with
 * the same least-squares combination of their last iterates (De Sterck,
 * Miller, Sanders, Winlaw, "Recursively accelerated multilevel
 * aggregation for Markov chains", SISC 2010).
 *
 * The combination x + sum_j b_j (x_j - x) of the current iterate and the
 * last NUM_REC_WINDOW - 1 ones minimizes the balance of every state
 * relative to its flows, in least squares: the balances y_j = x_j Q are
 * those of the products already made (linearity).  It is taken when it
 * is a distribution of better balance.  What differs between the two
 * solvers is where -q_jj is kept: num_rec_diag reads it in place.
 */
#ifndef SAN_NUM_RECOMBINE_H
#define SAN_NUM_RECOMBINE_H

#include <math.h>
#include <stdint.h>
#include "solver/numeric/op.h"

/* 3: x and the two before it.  Measured in the two solvers' files (kron
 * multilevel.c: rs 20 40 -> 13 cycles; ml.c: cluster.prism). */
#define NUM_REC_WINDOW 3

/* Where q_jj is: val[pos[j]] (the sparse ml: the diagonal's place in a
 * row of the transposed CSR) or val[j] when pos is NULL (a diagonal
 * vector, the descriptor's).  Read in place, not copied: the sparse
 * ml's memory holds no vector for it. */
typedef struct {
    const double *val;
    const int64_t *pos;
} num_rec_diag;

static inline double num_rec_negd(const num_rec_diag *d, int64_t j)
{
    return -d->val[d->pos ? d->pos[j] : j];
}

/* The last iterates and their balances, in a ring. */
typedef struct {
    int k;                  /* older iterates held */
    int next;               /* where the next one goes */
    double *x[NUM_REC_WINDOW - 1], *y[NUM_REC_WINDOW - 1];
} num_rec;

/* 2 (NUM_REC_WINDOW - 1) vectors of n; -1 out of memory (num_rec_free
 * then releases what was taken). */
int num_rec_init(num_rec *r, int64_t n);
void num_rec_free(num_rec *r);
/* Keeps x and its balance y = x Q as the newest of the window. */
void num_rec_push(num_rec *r, const double *x, const double *y, int64_t n);
/* The iterate pushed last; NULL before the first. */
const double *num_rec_last(const num_rec *r);

/* Recombines x (balance y, residual *res, largest state balance *bal)
 * in place when the combination is a distribution (no negative entry;
 * the sum stays 1, the coefficients sum to 1) whose largest state
 * balance is below *bal and residual at most 2 *res; then y, *res and
 * *bal are the combination's.  Rows with d = 0 carry no weight.
 * Returns 1 when x changed. */
int num_rec_combine(const num_rec *r, const num_op *op, const num_rec_diag *dg, double *x,
                    double *y, double *res, double *bal);

/* The largest relative change of a probability above SAN_PROB_FLOOR
 * between x and xp (HUGE_VAL when NaN).  Vector loops on one thread
 * below par_min. */
double num_rec_change(const double *x, const double *xp, int64_t n, int64_t par_min);

#endif
