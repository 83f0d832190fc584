/*
 * estimate.h - memory estimates without building the state space
 * (internal to libsan; used by `san check`).
 *
 * Two ways of storing the generator are compared: the sparse path
 * (solver/space.c: every nonzero of Q and of its transpose) and the
 * tensor descriptor (solver/kron*.c).  Both depend on how many states are
 * reachable and the sparse one on the nonzeros per row, neither of which
 * is known before the exploration; they are estimated cheaply from the
 * reachability function and a sample of states.
 */
#ifndef SAN_ESTIMATE_H
#define SAN_ESTIMATE_H

#include <stdint.h>
#include "san.h"

/* What the state count is. */
typedef enum {
    EST_DECLARED,           /* the states the reachability function accepts
                               (counted exactly) */
    EST_REACHABLE,          /* partial reachability: explored from the
                               accepted states, exact (small spaces only) */
    EST_PRODUCT             /* the product space: an upper bound */
} est_basis;

typedef struct {
    int ok;                 /* 0: nothing estimated, see why */
    char why[256];
    int64_t states;         /* state count on `basis` */
    est_basis basis;
    int64_t states_at_least; /* partial reachability, space too large to
                               explore here: the states found (else 0) */
    /* Nonzeros of Q per state: successors other than the state itself,
     * plus the diagonal, averaged over `sampled` states (every state of
     * the basis when nonzeros_exact).  nonzeros_known 0: not estimated
     * (why_nonzeros says why), and sparse_bytes is then 0. */
    int nonzeros_known;
    char why_nonzeros[256];
    int nonzeros_exact;
    int64_t sampled;
    double nonzeros_per_state;
    double nonzeros;        /* states * nonzeros_per_state */
    double sparse_bytes;    /* peak of the sparse path: see estimate.c */
    double kron_bytes;      /* san_kron_estimate_bytes(m, states) */
    int over_sparse_limit;  /* more states than the sparse path numbers
                               (32-bit state numbers) */
} est_memory;

/* Fill *e; returns 0, or -1 when out of memory (e->ok is then 0). */
int est_memory_estimate(const san_model *m, est_memory *e);

/* Peak bytes of the sparse path for n states and nnz nonzeros of Q. */
double est_sparse_bytes(const san_model *m, double n, double nnz);

/* The same for the n states of a space built without Q (index: their
 * product indices): the nonzeros per state counted on up to 4096 of
 * them, evenly spaced.  0 when not estimated. */
double est_sparse_bytes_of(const san_model *m, const int64_t *index, int64_t n);

/* "states accepted by the reachability function" and so on. */
const char *est_basis_name(est_basis b);    /* "declared", "reachable", "product" */

#endif
