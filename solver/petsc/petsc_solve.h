/*
 * petsc_solve.h - the stationary system on PETSc over MPI (internal to
 * libsan; built with ./configure --with-petsc, petsc_none.c otherwise).
 */
#ifndef SAN_PETSC_SOLVE_H
#define SAN_PETSC_SOLVE_H

#include <stddef.h>
#include "san.h"

/* What the distributed solve measured. */
typedef struct {
    int ranks;
    long iterations;
    char ksp[32], pc[32];       /* the KSP and PC types used */
    char reason[40];            /* KSP's converged reason */
    double rank_bytes;          /* the largest per-rank memory (PETSc's
                                   own allocations: matrix, vectors, PC) */
    double seconds;
} san_petsc_stats;

/* Solve Q^T x = 0, sum x = 1, with the rows of qt (the transposed
 * generator of an irreducible chain) distributed in contiguous ranges
 * over the ranks of MPI_COMM_WORLD; x (qt->n, every rank) receives the
 * gathered answer, normalized.  options: PETSc options ("-ksp_type bcgs
 * -pc_type asm"), added to those of PETSC_OPTIONS.  0 done (converged
 * or not: the caller verifies), -1 failed (msg says why). */
int san_petsc_stationary(const san_csr *qt, double *x, const char *options,
                         double tol, long max_iter, san_petsc_stats *st,
                         char *msg, size_t msglen);

/* Start PETSc and MPI (once; finalized at exit): 0, -1 when it cannot
 * (or when libsan is built without PETSc). */
int san_petsc_init(void);

/* This process's rank and the rank count (0 and 1 without PETSc, or
 * before the first distributed solve). */
int san_petsc_rank(int *size);

#endif
