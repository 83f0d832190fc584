/*
 * petsc_solve.h - the steady state over MPI ranks with PETSc (internal
 * to libsan; built with ./configure --with-petsc, petsc_none.c
 * otherwise).  The distributed pipeline is described in dist.h.
 */
#ifndef SAN_PETSC_SOLVE_H
#define SAN_PETSC_SOLVE_H

#include "san.h"

/* san_analyze for --engine petsc, on every rank of mpirun: the states
 * explored, the generator assembled, the steady state solved and its
 * indices reduced, each rank on its own part (solver/petsc/dist.h).
 * Every rank returns the same status and holds the same indices; a
 * holds the counts and the top states, not the whole vector (a->sp's
 * index lists the top states only, sol.pi is NULL). */
san_status san_petsc_analyze(const san_model *m, const san_analysis_opts *o, san_analysis *a,
                             san_diag *d);

/* Start PETSc and MPI (once; finalized at exit): 0, -1 when it cannot
 * (or when libsan is built without PETSc). */
int san_petsc_init(void);

/* This process's rank and the rank count (0 and 1 without PETSc, or
 * before the first distributed solve). */
int san_petsc_rank(int *size);

#endif
