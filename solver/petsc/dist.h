/*
 * dist.h - the distributed pipeline of --engine petsc (internal to
 * solver/petsc/): the reachable states partitioned over the MPI ranks
 * by a hash of their product index, each rank exploring its own states
 * and holding the rows of Q^T that enter them.
 *
 *   dexplore.c   breadth-first exploration by levels, successors sent
 *                to their owners with MPI_Alltoallv
 *   dmatrix.c    the rows of Q^T in compressed rows, then a MATMPIAIJ
 *   dclasses.c   the closed class, by reachability over the matrix
 *   dsolve.c     KSP on the pinned system, the balance residual
 *   dindices.c   results, marginals, throughputs reduced; top states
 *   danalyze.c   the phases, on top of them all
 *   dchain.c     the chain handed to the time-dependent analyses
 *
 * and the leaves they share: dspace.c (a rank's part of the space),
 * dagree.c (the agreement of every rank on a failure), dfixrow.c (the
 * pinned row).
 */
#ifndef SAN_DIST_H
#define SAN_DIST_H

#include <stdint.h>
#include <petscksp.h>
#include "san.h"
#include "solver/space/idmap.h"
#include "lang/model_int.h"
#include "solver/petsc/petsc_solve.h"

/* The ranks and how a failure of one reaches all. */
typedef struct {
    int rank, size;
    volatile int *interrupt;    /* Ctrl-C on this rank */
    double limit;               /* --max-memory of one rank, bytes */
    double deadline;            /* san_now() past which --time-limit stops
                                   every rank (0: none) */
    double time_limit;          /* --time-limit, seconds (for the message) */
    int progress;               /* rank 0, stderr a terminal */
} dctx;

/* An arc i -> j as it travels to the owner of j: j's product index,
 * the source's number on the sending rank, the rate. */
typedef struct {
    int64_t to;
    double rate;
    int32_t src;
} darc;

/* This rank's part of the reachable set and of Q^T. */
typedef struct {
    const san_model *m;
    int64_t nloc;               /* states owned */
    int64_t cap;
    int64_t *index;             /* their product indices, by local number */
    double *exit;               /* their exit rates, -q_jj */
    float *rel;                 /* their smallest transition rate relative
                                   to the exit rate (1: none) */
    idmap map;                  /* product index -> local number */
    int64_t *split;             /* size + 1 after dpartition: rank r owns the
                                   keys in [split[r], split[r+1]);
                                   NULL: owners by the hash, downer() */
    int64_t *kstride;           /* naut: the key's mixed radix (dpartition.c),
                                   the automata in another order than the
                                   product index's; NULL: key = index */
    double *moves;              /* naut: sampled arcs that change each
                                   automaton's state (the first pass) */
    double arcs_seen;           /* arcs the first pass listed, all ranks
                                   (self-loops included) */
    /* the arcs entering owned states, in arrival order: local target,
     * source as (rank, local number), rate; exit rates and self-loops
     * already left out */
    int64_t narc, caparc;
    int32_t *arow, *asrank, *aslocal;
    double *aval;
    /* after the exploration */
    int64_t n;                  /* states over every rank */
    int64_t first;              /* global number of local state 0 */
    int64_t *offset;            /* size + 1: first global number per rank */
    int64_t declared;           /* the reachability function's states */
    int64_t undeclared;         /* reached but rejected by it (all ranks) */
    double buf_bytes;           /* the exploration's send and receive buffers */
    double need;                /* what a growth refused would have held */
    int levels;                 /* rounds of exchange */
    double t_explore;
} dspace;

/* The owner of product index idx among size ranks. */
static inline int downer(int64_t idx, int size)
{
    return (int)((idmap_mix((uint64_t)idx ^ 0x9e3779b97f4a7c15ull) >> 17) % (uint64_t)size);
}

/* The owner of idx among the ranges of split (size + 1 bounds). */
int drange_owner(const int64_t *split, int size, int64_t idx);

/* The key of a state: its local states read in the key's order. */
static inline int64_t dspace_key(const dspace *s, int64_t idx)
{
    if (!s->kstride)
        return idx;
    int64_t key = 0;
    for (int a = s->m->naut - 1; a >= 0; a--) {
        const int ns = s->m->aut[a].nstates;
        key += (idx % ns) * s->kstride[a];
        idx /= ns;
    }
    return key;
}

static inline int dspace_owner(const dspace *s, int64_t idx, int size)
{
    return s->split ? drange_owner(s->split, size, dspace_key(s, idx)) : downer(idx, size);
}

/* The arcs freed (an assembly given up for the matrix-free product). */
void dspace_drop_arcs(dspace *s);
/* The map product index -> local number made again from s->index.
 * 0 or -1 (memory). */
int dspace_remap(const dctx *c, dspace *s);

/* Bytes this rank holds for its part of the space (dspace.c, with
 * dspace_drop_arcs and dspace_free). */
double dspace_bytes(const dspace *s);
void dspace_free(dspace *s);

/* Every rank agrees on the worst status (dagree.c): st and msg are this
 * rank's (SAN_OK: nothing to say); the lowest failing rank's status and
 * message become everybody's (its message added to d).  A Ctrl-C on
 * any rank, or the deadline passed, counts as a failure
 * (SAN_E_INTERRUPTED) here.  Collective. */
san_status dagree(const dctx *c, san_status st, const char *msg, san_diag *d);

/* Explore from the states the reachability function accepts (each rank
 * keeps those it owns), deal them by ranges (dpartition), number them
 * globally.  Collective; SAN_OK or the agreed failure. */
san_status dexplore(const dctx *c, const san_space_opts *o, dspace *s, san_diag *d);
/* The second pass: every arc to its target's owner, kept there (the
 * rows of Q^T), the exit rates.  Collective. */
san_status dexplore_arcs(const dctx *c, const san_space_opts *o, dspace *s, san_diag *d);

/* The generator as a product that stores no entry (dshell.c): the
 * rank's arcs listed again from the model at each product; the exit
 * rates filled, the remote targets numbered.  s->map must be kept (the
 * shell looks its states up).  *nnz: Q's entries over every rank. */
san_status dshell(const dctx *c, dspace *s, Mat *A, int64_t *nnz, san_diag *d);
int dshell_is(Mat A);
/* 1: the products ignore the pinned rows (the balance test's). */
void dshell_unpin(Mat A, int unpinned);
/* Over every rank: the ghosts (values a product brings), the share of
 * entries between ranks; this rank's bytes. */
void dshell_figures(Mat A, double *ghosts, double *cross, double *bytes);
/* Entries of Q^T's row of local state i when nothing enters its class
 * from outside (its out-arcs and the diagonal). */
int64_t dshell_row_entries(Mat A, int64_t i);
/* An arc i -> j of the rank's: each is a local number, or a ghost slot
 * (a state of another rank) when its flag is set. */
typedef void (*darc_fn)(void *ctx, int64_t i, int ighost, int64_t j, int jghost, double rate);
/* The matrix-free generator's ghosts: the scatter from a vector of the
 * matrix's layout to its ghost slots, and their count. */
void dshell_ghosts(Mat A, VecScatter *sc, PetscInt *nghost);
/* Every arc of the rank's states (sources local, targets local or
 * ghost), listed from the model.  0 or -1 (memory). */
int dshell_each_arc(Mat A, darc_fn fn, void *ctx);
/* The arcs between the rank's own states by source, local numbers
 * (malloc'd; the class check's).  0 or -1 (memory). */
int dshell_local_out(Mat A, PetscInt **ptr, PetscInt **col);

/* After the first pass of dexplore: the states dealt again by ranges
 * of the product index (s->split), exactly balanced, each rank's sorted
 * (local number = position), the map rebuilt.  Collective. */
san_status dpartition(const dctx *c, dspace *s, san_diag *d);

/* The MATMPIAIJ of Q^T (rows = global numbers, this rank's rows the
 * ones it owns); the arcs are freed.  *nnz: nonzeros over every rank. */
san_status dmatrix(const dctx *c, dspace *s, Mat *A, int64_t *nnz, san_diag *d);

/* The closed class: in (a vector of A's layout) gets 1 on its states,
 * 0 on the transient ones; states of isolated pockets are marked
 * (2 in `in`) and counted in *dropped, as the serial check does.
 * Collective. */
san_status dclasses(const dctx *c, const dspace *s, Mat A, Vec in, int64_t *nclosed,
                    int64_t *dropped, san_diag *d);

typedef struct {
    long iterations;
    int rounds;                 /* KSP solves (tightened after a failed check) */
    char ksp[32], pc[32], reason[40];
    double balance;             /* the distributed balance residual */
    double change;              /* the relative change of one more
                                   Jacobi sweep (serial's change term) */
    double residual;            /* max |(pQ)_j| / (max rate x max p) */
    long products;              /* MatMult calls (BiCGSTAB, GMRES: counted) */
    int timed_out;              /* --time-limit reached inside KSP */
    int sweeps;                 /* Jacobi sweeps polishing KSP's answers */
    int agg_parts;              /* partitions of the aggregation check */
    double agg_missed;          /* a fast threshold not checked (0: none) */
    double agg_error;           /* the largest block-mass error (0: none) */
    char agg_what[96];          /* its partition */
    int agg_cycles;             /* aggregation corrections made */
    double product_s;           /* seconds of one product (slowest rank) */
    double product_comm;        /* bytes a product moves between ranks */
    double cross;               /* share of the entries between ranks */
    double rank_bytes;          /* PETSc's resident size, largest rank */
    double seconds;
    int interrupted;
} dsolve_stats;

/* pi Q = 0 over the closed class (in), the others 0; x gets the answer,
 * normalized.  SAN_OK when the balance of every state holds to tol,
 * SAN_E_NOTCONV (x the best vector) otherwise.  A is modified (the
 * pinned and the transient rows).  Collective. */
san_status dsolve(const dctx *c, const dspace *s, Mat A, Vec in, Vec x,
                  const san_solve_opts *o, const char *options, dsolve_stats *st, san_diag *d);

/* Results, marginals, throughputs and the ntop most probable states of
 * x, reduced over the ranks; sol->top[k].state = k and top_index[k]
 * its product index (every rank gets them).  Collective. */
san_status dindices(const dctx *c, const dspace *s, Vec x, int ntop, san_solution *sol,
                    int64_t *top_index, san_diag *d);

/* This rank's part of the answer x (states not dropped), sorted by
 * index, for san_engine_vector (dvector.c).  Collective. */
san_status dvector_keep(const dctx *c, const dspace *s, Vec x, Vec in, void **out, san_diag *d);
/* The same from this rank's array x (dropped: per state, 1 to leave out;
 * may be NULL).  Collective. */
san_status dvector_keep_array(const dctx *c, const dspace *s, const double *x,
                              const char *dropped, void **out, san_diag *d);

/* The pinned row of the solve (dfixrow.c): its entries as they were (the
 * row is an identity row in the matrix), on its owner, and a scatter of
 * the values at its columns (collective; nothing on the other ranks). */
typedef struct {
    PetscInt len;
    PetscScalar *val;
    PetscInt *col;
    Vec xs;
    VecScatter sc;
} fixrow;
/* Keep row fix of A aside before the solve pins it, with a scatter of
 * the x values it reads onto its owner.  Collective. */
PetscErrorCode fixrow_save(Mat A, Vec x, PetscInt fix, fixrow *f);
/* The kept row times x, on its owner.  Collective. */
PetscErrorCode fixrow_apply(fixrow *f, Vec x, double *y);
/* v's values at the pinned row's columns into out (len).  Collective. */
PetscErrorCode fixrow_values(fixrow *f, Vec v, double *out);
PetscErrorCode fixrow_free(fixrow *f);

/* The aggregation check (dagg.c): partitions per automaton and by the
 * components of the fast transitions, made before the solve pins rows;
 * then the largest error of the block masses of p against the coarse
 * chains' answers (*err, over *what), p's blocks rescaled to them when
 * correct.  Collective. */
typedef struct dagg dagg;
PetscErrorCode dagg_create(const dspace *s, Mat A, Vec in, Vec diag, dagg **out);
PetscErrorCode dagg_check(dagg *g, Mat A, Vec p, PetscInt fix, fixrow *fr, int correct,
                          double *err, char *what, size_t n);
/* The partitions made; the fast threshold whose components were too
 * many to check (0: none). */
int dagg_parts(const dagg *g);
double dagg_missed(const dagg *g);
void dagg_free(dagg *g);

/* Steps 1 to 3 of every distributed analysis (danalyze.c): the states
 * explored, Q^T assembled, the closed class found (in: 1 on it, 0 on
 * transient states, 2 on dropped pockets); ans->sp.t_check and
 * ans->t_space set.  Collective; b freed by dbuilt_free whatever the status. */
typedef struct {
    dctx c;
    dspace s;
    Mat A;
    Vec in, x;
    int64_t nnz, nclosed, dropped;
    int shell;                  /* A is the matrix-free MATSHELL */
} dbuilt;

/* The counts over every rank into ans->sp (n without the dropped
 * pockets), ans->nonzeros and ans->ranks, for the report. */
void dfill_space(const dctx *c, const dspace *s, int64_t nnz, int64_t nclosed,
                 int64_t dropped, psc_answer *ans);
/* The largest peak resident size of a rank.  Collective. */
double dpeak_rss(void);

san_status dbuild(const san_model *m, const san_analysis_opts *o, double t0, dbuilt *b,
                  psc_answer *ans, san_diag *d);
void dbuilt_free(dbuilt *b);

#endif
