/*
 * transient.h - time-dependent analysis on an operator (internal to
 * libsan): Poisson weights with rigorous truncation (foxglynn.c) and
 * uniformization over y = x Q (uniform.c), whatever stores Q (op.h: the
 * sparse generator or the tensor descriptor).
 *
 * Uniformization: with a rate L >= max_j |q_jj|, P = I + Q / L is a
 * stochastic matrix and
 *     x e^{Q t} = sum_k Poisson(k; L t) x P^k,
 * so one product x Q per term, the Poisson weights cut to [left, right]
 * with a bound on the mass left out.
 */
#ifndef SAN_TRANSIENT_H
#define SAN_TRANSIENT_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include "solver/numeric/op.h"

/* Poisson(lambda) weights over [left, right], after Fox and Glynn
 * (CACM 31(4), 1988): computed from the mode outwards by the ratios
 * p(k+1)/p(k) = lambda/(k+1), normalized by their own sum (never by
 * e^-lambda, which underflows past lambda ~ 745), the ends placed where
 * a rigorous bound of the tails' mass falls to eps. */
typedef struct {
    double lambda;
    int64_t left, right;    /* weights of k = left..right are kept */
    double *w;              /* w[k - left]: summing to 1 */
    double trunc;           /* upper bound of the Poisson mass outside
                               [left, right] (<= eps) */
} tr_fg;

/* 0; -1 when lambda is not finite and >= 0, eps not in (0, 0.5), or
 * out of memory. */
int tr_fg_compute(double lambda, double eps, tr_fg *fg);
void tr_fg_free(tr_fg *fg);
/* The right truncation point alone (for step counts before starting):
 * no weights kept.  -1 as tr_fg_compute. */
int64_t tr_fg_right(double lambda, double eps, double *trunc);

/* Vectors spread over MPI ranks (solver/petsc/): each process holds its
 * part, and these make a figure of its part the figure of the whole.
 * Collective: every rank calls them at the same point. */
typedef struct {
    double (*sum)(double v);
    double (*max)(double v);
} tr_reduce;

/* The uniformization rate above the largest exit rate: P = I + Q/L then
 * keeps a self-loop of weight >= 1/65 in every state, so that it is
 * aperiodic and steady-state detection can fire (uniform.c says why);
 * the cost is 1.6% more products. */
#define SAN_UNIF_MARGIN (1.0 + 1.0 / 64)

/* tr_unif.absorb: the target of a passage, and the states known to
 * miss it (closed classes without a target state), made absorbing so
 * that no mass is held where the series could mistake it for a slow
 * passage. */
#define SAN_ABSORB_TARGET 1
#define SAN_ABSORB_MISSED 2

/* Uniformization in progress over op. */
typedef struct {
    num_op *op;
    double rate;            /* L: uniformization rate */
    double eps;             /* truncation of each interval */
    double ss_tol;          /* steady state when max_j |x_{k+1} - x_k|
                               falls to this (0: never) */
    const char *absorb;     /* per position: SAN_ABSORB_* (non-zero:
                               absorbing, its outgoing rates ignored);
                               NULL: none */
    volatile int *interrupt;
    double deadline;        /* san_now() past which to stop; 0: none */
    const tr_reduce *red;  /* the vectors are this rank's part (NULL:
                               one process): the steady-state test, the
                               masses and the decision to stop are
                               agreed over the ranks */
    /* scratch (n doubles each, owned by the caller) */
    double *v, *y, *acc, *xm;   /* xm only when absorb */
    double *integ;          /* when not NULL: += the integral of x(s) ds
                               over each interval (accumulated rewards,
                               expected sojourn times) */
    /* measured, over every call */
    long steps;
    double trunc_sum;       /* sum of the intervals' truncation bounds */
    double ss_at;           /* time (from the first call) the steady state
                               was detected; -1: not */
    double elapsed;         /* model time advanced so far */
    /* the divergence guard (tr_unif_step): set when a step left the
     * distributions, what it saw */
    int diverged;
    long diverged_at;       /* the product that did */
    double bad_mass;        /* total mass after it */
    double bad_min;         /* its most negative entry */
} tr_unif;

/* Roundoff a step of P = I + Q/L may leave on a distribution: entries
 * down to -SAN_UNIF_ROUNDOFF, a total up to 1 + SAN_UNIF_ROUNDOFF +
 * n DBL_EPSILON (the sum's own rounding).  A rate L below an exit rate
 * makes P negative there, and the first step already goes past it. */
#define SAN_UNIF_ROUNDOFF 1e-12
/* What each product may add to the total by rounding (4 eps: the
 * entries' own rounding, the self-loops' 1 - q/L), counted over every
 * product of the run: the guard's total is 1 + SAN_UNIF_ROUNDOFF + the
 * products so far times this. */
#define SAN_UNIF_DRIFT (4 * DBL_EPSILON)

/* A short text of what the guard saw (u->diverged set), for messages. */
void tr_unif_diverged_text(const tr_unif *u, char *buf, size_t n);

/* x <- x e^{Q dt} (x a distribution, n entries).  0; 1 stopped
 * (interrupt or deadline: x unchanged); -1 out of memory or a Poisson
 * parameter L dt too large for weights; SAN_UNIF_DIVERGED when a step
 * left the distributions (u->diverged: x unchanged). */
#define SAN_UNIF_DIVERGED 3
int tr_unif_advance(tr_unif *u, double *x, double dt);

/* The mean time to absorption from x (absorb set): the series
 * (1/L) sum_k |v_k outside absorb|, stopped when the mass left outside
 * would add less than tol relative (its decay ratio measured; when
 * some mass reached SAN_ABSORB_MISSED states, the mean is infinite and
 * the series goes on until the mass outside is below 1e-13, for
 * *reach), or when the iterates stop moving (SAN_UNIF_HELD: mass held
 * where absorb cannot be reached, or a passage too long for the
 * series: the caller knows which).  h (n doubles, may be NULL) gets the
 * expected time spent in each state.  *reach: the mass absorbed in the
 * target (1 when nothing was missed); 0, 1 stopped, 2 over max_steps,
 * -1 out of memory, SAN_UNIF_DIVERGED as tr_unif_advance. */
#define SAN_UNIF_HELD 4
int tr_unif_mean(tr_unif *u, const double *x, double tol, double max_steps, double *mean,
                  double *reach, double *h);

/* One step v <- v P (P = I + Q/L, absorbing rows respected); returns
 * max_j |(vP)_j - v_j|.  The guard: when vP has an entry below
 * -SAN_UNIF_ROUNDOFF or a total above 1 within roundoff (v is a
 * distribution, P stochastic: neither can happen unless L is below an
 * exit rate or Q is not a generator), u->diverged is set. */
double tr_unif_step(tr_unif *u, const double *v, double *y);

#endif
