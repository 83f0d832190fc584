/*
 * petsc_solve.h - the steady state over MPI ranks with PETSc (internal
 * to libsan; built with ./configure --with-petsc, petsc_none.c
 * otherwise).  The distributed pipeline is described in dist.h.
 */
#ifndef SAN_PETSC_SOLVE_H
#define SAN_PETSC_SOLVE_H

#include "san.h"
#include "solver/numeric/op.h"
#include "solver/transient/transient.h"
#include "solver/space/solution.h"
#include "solver/space/space_int.h"

/* What the engine found, for solver/analysis/ (the layer above, which
 * calls it) to take into its san_analysis: the engine fills this and
 * never sees an analysis's layout.  The counts are over every rank: sp
 * holds them, and in place of every state's index the top states' only
 * (sol.top[k].state is k); sol.pi is NULL (no rank has the whole
 * vector).  ranks is set with the counts (0: none were made). */
typedef struct {
    san_space sp;               /* valid when have_space */
    san_solution sol;           /* valid when have_sol */
    int have_space, have_sol, have_indices;
    int ranks;                  /* MPI ranks (0: the counts not made) */
    int64_t nonzeros;           /* Q's entries over every rank */
    double rank_bytes;          /* the largest peak resident size of a rank */
    double t_space, t_solve;    /* seconds */
    void *kept;                 /* engine_keep_vector: this rank's part of
                                   the answer (psc_vector reads it) */
} psc_answer;

/* san_analyze for --engine petsc, on every rank of mpirun: the states
 * explored, the generator assembled, the steady state solved and its
 * indices reduced, each rank on its own part (solver/petsc/dist.h).
 * Every rank returns the same status and holds the same indices in
 * *ans (zeroed first). */
san_status psc_analyze(const san_model *m, const san_analysis_opts *o, psc_answer *ans,
                       san_diag *d);

/* A chain spread over the MPI ranks for the time-dependent analyses:
 * solver/analysis/transient.c runs them over it as over a serial space,
 * each rank on its part of every vector, the sums and maxima reduced
 * (red), the indices of a vector computed over every rank (indices).
 * Made by psc_chain on every rank (collective), with ans (zeroed
 * first) holding the counts over every rank for the report, as for a
 * steady state: sp (no index), ranks, nonzeros, t_space. */
typedef struct psc_dchain psc_dchain;
struct psc_dchain {
    san_space local;            /* this rank's states: m, n, index; no Q */
    const char *dropped;        /* per local state: 1 in a dropped pocket
                                   (no initial mass: serial drops them) */
    num_op op;                  /* y = x Q on this rank's part (collective);
                                   maxd the largest exit rate of all */
    tr_reduce red;
    int rank;                   /* only rank 0 draws progress */
    double held;                /* bytes this rank holds (states, matrix) */
    double limit;               /* --max-memory of one rank */
    /* results, marginals, throughputs of the vector whose part on this
     * rank is x, over every rank; no top states.  Collective. */
    san_status (*indices)(psc_dchain *ch, const double *x, san_solution *sol, san_diag *d);
    /* this rank's part x of a vector kept for san_engine_vector.
     * Collective. */
    san_status (*keep)(psc_dchain *ch, const double *x, void **out, san_diag *d);
    void *impl;
};

san_status psc_chain(const san_model *m, const san_analysis_opts *o, psc_answer *ans,
                     psc_dchain **out, san_diag *d);
/* The chain freed; the largest peak resident size of a rank returned.
 * Collective. */
double psc_chain_free(psc_dchain *ch);

/* The rank's part of a steady-state answer kept (engine_keep_vector),
 * its merge to rank 0 (san_engine_vector), its release. */
san_status psc_vector(const void *kept, int (*row)(void *ctx, int64_t index, double p),
                            void *ctx);
void psc_vector_free(void *kept);

/* Start PETSc and MPI (once; finalized at exit): 0, -1 when it cannot
 * (or when libsan is built without PETSc). */
int psc_init(void);

/* This process's rank and the rank count (0 and 1 without PETSc, or
 * before the first distributed solve). */
int psc_rank(int *size);

#endif
