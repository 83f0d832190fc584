/*
 * precond.h - the preconditioners of the Krylov methods (internal to
 * libsan): M approximates A = -Q^T with row k of Q^T reduced to its
 * diagonal (krylov.c says why).
 */
#ifndef SAN_PRECOND_H
#define SAN_PRECOND_H

#include <stdint.h>
#include "solver/numeric/op.h"

typedef struct {
    san_precond kind;           /* ILU0, JACOBI or NONE */
    const san_csr *qt;          /* the rows, for ILU(0) */
    int64_t n, k;               /* size, the fixed state */
    int64_t par_min;            /* vector loops on one thread below */
    double *lu;                 /* ILU(0) on the pattern of qt, pivots
                                   stored inverted */
    int32_t *dpos;              /* offset of the diagonal in each row */
    /* Level schedules of the two triangular solves (precond.c); NULL:
     * too few rows a level, the solves run in row order. */
    int32_t *lrow, *urow;       /* rows by level of L, of U */
    int64_t *lptr, *uptr;       /* level starts in them */
    int64_t nlev_l, nlev_u;
    double *dinv;               /* 1 / A_jj (0 where A_jj = 0): Jacobi,
                                   and the weights for choosing k */
    double deadline;            /* san_now() past which an ILU(0)
                                   factorization gives way to Jacobi */
} num_pc;

/* Builds M for fixed state k (ILU0 needs qt); k < 0 defers ILU(0)'s
 * factorization to the first num_pc_refix, once k is chosen from the
 * diagonal (dinv) that the build makes.  An ILU(0) factorization
 * still running at deadline (a point on san_now()'s clock, INFINITY:
 * none) is dropped for Jacobi: the solve that follows stops at its
 * time limit anyway, and a factorization can take longer than the
 * exploration (rs N=22, 4 M states: tens of seconds on a loaded
 * machine).  0, or -1 with msg. */
int num_pc_build(num_pc *pc, const num_op *A, const san_csr *qt, san_precond kind, int64_t k,
                 double deadline, char *msg, size_t sz);
/* The fixed state moved: ILU(0) is factorized again. */
void num_pc_refix(num_pc *pc, int64_t k);
/* x <- M^-1 x. */
void num_pc_apply(const num_pc *pc, double *restrict x);
void num_pc_free(num_pc *pc);

#endif
