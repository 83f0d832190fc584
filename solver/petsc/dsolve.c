/*
 * dsolve.c - pi Q = 0 on the distributed Q^T with PETSc's KSP, and the
 * accuracy check that decides "converged".
 *
 * The singular system is made regular as in the serial direct solve:
 * the equation of the closed-class state with the largest exit rate
 * (a well-scaled pivot) is replaced by x_fix = 1, and every state
 * outside the closed class (transient, dropped pockets) gets the
 * equation x_j = 0 (MatZeroRows), which also takes the transient
 * states' arcs out of the closed class's equations.  The answer is
 * clipped at 0 and normalized.
 *
 * The check is the BALANCE of every state of the closed class (the
 * serial contract's first test, numeric/verify.c):
 *     |in_j - out_j| <= tol (in_j + out_j + d_j 1e-14),
 * computed with the distributed matrix: (Q^T x)_j is in_j - out_j; the
 * pinned row's own entries are kept aside to compute its balance too.
 * The same pass gives serial's change term: the largest relative change
 * of a probability that one more Jacobi sweep would make (the step is
 * (Q^T x)_j / d_j), which must be within tol too; the error estimate is
 * the largest of the three (danalyze.c).  Serial also extrapolates the
 * change with the contraction of its refinement cycles (r / (1 - r)):
 * not here, the vector is KSP's, not a fixed-point iteration's, and
 * there is no ratio unless the polishing cycles ran.
 * A vector that fails them is solved again from itself with a relative
 * tolerance 1000 times smaller, up to MAX_ROUNDS KSP solves, then
 * reported NOT CONVERGED with its residual.  The serial contract's
 * second test, aggregation over partitions that hold the slow modes,
 * is not made here (the partitions are not distributed): on a nearly
 * decomposable chain a vector can pass the balance test with blocks of
 * the wrong mass.  doc/distributed.md says so.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/services.h"
#include "solver/numeric/linsolve.h"
#include "solver/petsc/dist.h"
#include "solver/numeric/op.h"

#define MAX_ROUNDS 3

/* The closed-class state with the largest exit rate. */
static PetscErrorCode pick_fix(Vec diag, Vec in, PetscInt *fix)
{
    PetscInt lo, hi, best = -1;
    PetscCall(VecGetOwnershipRange(diag, &lo, &hi));
    const PetscScalar *dg, *ia;
    PetscCall(VecGetArrayRead(diag, &dg));
    PetscCall(VecGetArrayRead(in, &ia));
    double bw = -1, all;
    for (PetscInt j = lo; j < hi; j++)
        if (ia[j - lo] == 1 && fabs(dg[j - lo]) > bw) {
            bw = fabs(dg[j - lo]);
            best = j;
        }
    PetscCall(VecRestoreArrayRead(in, &ia));
    PetscCall(VecRestoreArrayRead(diag, &dg));
    PetscCallMPI(MPI_Allreduce(&bw, &all, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    PetscInt mine = bw == all ? best : PETSC_MAX_INT;
    PetscCallMPI(MPI_Allreduce(&mine, fix, 1, MPIU_INT, MPI_MIN, PETSC_COMM_WORLD));
    return 0;
}

/* p = max(v, 0) on the closed class, 0 elsewhere, summed to 1.  Each
 * rank's sum is the serial normalization's compensated one (num_sum_par,
 * one thread a rank, as the chain's products), the ranks' sums added:
 * VecSum's plain sum of rs 18/9's 155,382 states (--lump off, one rank)
 * was 1.0e-12 off, so that the answer summed to 1 + 1.0e-12 (its
 * compensated indices said so) for an error estimate of 5.1e-13. */
static PetscErrorCode normalized(Vec v, Vec in, Vec p)
{
    PetscInt nloc;
    PetscCall(VecGetLocalSize(v, &nloc));
    const PetscScalar *va, *ia;
    PetscScalar *pa;
    PetscCall(VecGetArrayRead(v, &va));
    PetscCall(VecGetArrayRead(in, &ia));
    PetscCall(VecGetArray(p, &pa));
    for (PetscInt j = 0; j < nloc; j++)
        pa[j] = ia[j] == 1 && va[j] > 0 ? va[j] : 0;
    double mine = num_sum_par(pa, nloc, INT64_MAX), s = 0;
    PetscCall(VecRestoreArray(p, &pa));
    PetscCall(VecRestoreArrayRead(in, &ia));
    PetscCall(VecRestoreArrayRead(v, &va));
    PetscCallMPI(MPI_Allreduce(&mine, &s, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    if (s > 0 && isfinite(s))
        PetscCall(VecScale(p, 1 / s));
    else
        PetscCall(VecSet(p, 0));    /* nothing usable: the balance test fails */
    return 0;
}

/* The relative change of a probability a (p summed to 1) moved by
 * Jacobi's step s, clipped at 0 as the sweeps clip it (serial's
 * num_rel_change); a step not finite is no change measured (inf). */
static double step_change(double a, double s)
{
    if (!isfinite(s))
        return INFINITY;
    return num_rel_change(a, a + s > 0 ? a + s : 0, 1);
}

/* The answer meets the contract: every state in balance, no sweep
 * moving a probability by more than tol, every partition's blocks
 * within tol (agg_error 0 when none was checked). */
static int within(const dsolve_stats *st, double tol)
{
    return st->balance <= tol && st->change <= tol && st->agg_error <= tol;
}

/* The balance residual of p over the closed class (max over ranks), and
 * the normwise residual max |(pQ)_j| / (max rate x max p).  With step:
 * Jacobi's step from p, and *change the largest relative change of a
 * probability above the floor that the step would make (serial's change
 * term, verify.c: what one more sweep moves), at no product more. */
static PetscErrorCode balance(Mat A, Vec p, Vec in, Vec diag, Vec y, PetscInt fix, fixrow *f,
                              Vec step, double *change, double *rho, double *resid)
{
    /* the matrix-free generator unpins for this product: every row is
     * Q^T's own, the pinned one included */
    const int shell = dshell_is(A);
    if (shell)
        dshell_unpin(A, 1);
    PetscCall(MatMult(A, p, y));
    if (shell)
        dshell_unpin(A, 0);
    double yfix = 0;
    if (!shell)
        PetscCall(fixrow_apply(f, p, &yfix));
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(p, &lo, &hi));
    const PetscScalar *pa, *ya, *ia, *da;
    PetscCall(VecGetArrayRead(p, &pa));
    PetscCall(VecGetArrayRead(y, &ya));
    PetscCall(VecGetArrayRead(in, &ia));
    PetscCall(VecGetArrayRead(diag, &da));
    PetscScalar *sa = NULL;
    if (step)
        PetscCall(VecGetArray(step, &sa));
    double r = 0, big = 0, rate = 0, pmax = 0, ch = 0;
    for (PetscInt j = lo; j < hi; j++) {
        const PetscInt k = j - lo;
        if (sa)
            sa[k] = 0;
        if (ia[k] != 1)
            continue;
        const double dj = -da[k], net = j == fix && !shell ? yfix : ya[k];
        if (sa && dj > 0) {
            sa[k] = net / dj;   /* Jacobi's step: p_j to (inflow_j / exit_j) */
            ch = fmax(ch, step_change(pa[k], sa[k]));
        }
        const double out = dj * pa[k], inflow = net + out;
        const double den = inflow + out + dj * SAN_PROB_FLOOR;
        /* a NaN fails (a KSP that broke down leaves them: no comparison
         * with a NaN is true, and it passed as balanced) */
        const double rj = !isfinite(net) || !isfinite(den) ? INFINITY
                          : den > 0 ? fabs(net) / den : fabs(net) > 0 ? INFINITY : 0;
        r = fmax(r, rj);
        big = fmax(big, fabs(net));
        rate = fmax(rate, dj);
        pmax = fmax(pmax, pa[k]);
    }
    if (step)
        PetscCall(VecRestoreArray(step, &sa));
    PetscCall(VecRestoreArrayRead(diag, &da));
    PetscCall(VecRestoreArrayRead(in, &ia));
    PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCall(VecRestoreArrayRead(p, &pa));
    double loc[5] = { r, big, rate, pmax, ch }, all[5];
    PetscCallMPI(MPI_Allreduce(loc, all, 5, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    if (change)
        *change = all[3] > 0 ? all[4] : INFINITY;
    /* no probability left (a vector of NaN is normalized to zeros):
     * nothing is balanced */
    *rho = all[3] > 0 ? all[0] : INFINITY;
    *resid = all[2] * all[3] > 0 ? all[1] / (all[2] * all[3]) : all[1];
    return 0;
}

/* The balance test inside the iteration, every BALANCE_EVERY
 * iterations (a product and a normalization, against the 2 products of
 * each BiCGSTAB iteration): the KSP stops as soon as the answer meets
 * the contract, whatever its own residual says (on ms async, 952,180
 * states, one rank met it at 100 iterations with the relative residual
 * still above 1e-13).  And every iteration, Ctrl-C on any rank stops
 * all (one MPI_Allreduce of the flag). */
#define BALANCE_EVERY 25

/* A KSP whose balance residual has not halved in this many iterations
 * has stagnated (serial's STAGNATION_ITERS): it stops, and the
 * aggregation cycles take over.  On the ncd model BiCGSTAB ran its 10,000
 * iterations to DIVERGED_ITS on 2 ranks before the cycles solved it. */
#define STAGNATION_ITS 500

typedef struct {
    void *dflt;
    const dctx *c;
    int interrupted, timed_out, balanced, stagnated;
    double best;
    PetscInt best_it;
    Mat A;
    Vec in, diag, y, p;
    PetscInt fix;
    fixrow *f;
    double tol, rho, resid;
} conv_ctx;

static PetscErrorCode converged(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *why,
                                void *ctx)
{
    conv_ctx *cc = ctx;
    PetscCall(KSPConvergedDefault(ksp, it, rnorm, why, cc->dflt));
    /* 2: Ctrl-C on this rank, 1: past the deadline */
    int mine = cc->c->interrupt && *cc->c->interrupt ? 2
               : cc->c->deadline > 0 && san_now() > cc->c->deadline, any = 0;
    PetscCallMPI(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    if (any) {
        cc->interrupted = any == 2;
        cc->timed_out = any == 1;
        *why = KSP_DIVERGED_ITS;
        return 0;
    }
    if (*why == KSP_CONVERGED_ITERATING && it > 0 && it % BALANCE_EVERY == 0) {
        Vec v;
        PetscCall(KSPBuildSolution(ksp, NULL, &v));
        PetscCall(normalized(v, cc->in, cc->p));
        PetscCall(balance(cc->A, cc->p, cc->in, cc->diag, cc->y, cc->fix, cc->f, NULL, NULL,
                          &cc->rho, &cc->resid));
        if (cc->rho <= cc->tol) {
            cc->balanced = 1;
            *why = KSP_CONVERGED_ATOL;  /* PETSc has no code of its own for it */
        } else if (!(cc->rho <= 0.5 * cc->best) && it - cc->best_it >= STAGNATION_ITS) {
            cc->stagnated = 1;
            *why = KSP_DIVERGED_ITS;
        }
        if (cc->rho <= 0.5 * cc->best) {
            cc->best = cc->rho;
            cc->best_it = it;
        }
    }
    return 0;
}

static PetscErrorCode conv_destroy(void *ctx)
{
    conv_ctx *cc = ctx;
    PetscCall(KSPConvergedDefaultDestroy(cc->dflt));
    return 0;
}

/* Rows outside the closed class, and the pinned row, become identity
 * rows; b gets 1 at fix. */
static PetscErrorCode pin(Mat A, Vec in, PetscInt fix, Vec b)
{
    PetscInt lo, hi, n = 0;
    PetscCall(VecGetOwnershipRange(in, &lo, &hi));
    PetscInt *rows;
    PetscCall(PetscMalloc1(hi - lo + 1, &rows));
    const PetscScalar *ia;
    PetscCall(VecGetArrayRead(in, &ia));
    for (PetscInt j = lo; j < hi; j++)
        if (ia[j - lo] != 1 || j == fix)
            rows[n++] = j;
    PetscCall(VecRestoreArrayRead(in, &ia));
    PetscCall(VecSet(b, 0));
    if (fix >= lo && fix < hi)
        PetscCall(VecSetValue(b, fix, 1, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
    /* b[rows] = 1 * b[rows]: 1 at fix, 0 on the others */
    PetscCall(MatZeroRows(A, n, rows, 1.0, b, b));
    PetscCall(PetscFree(rows));
    return 0;
}

/* The values a product brings from other ranks (the off-diagonal
 * block's columns, 8 bytes each) and the share of the entries in the
 * off-diagonal blocks (arcs between ranks), summed over the ranks. */
static PetscErrorCode comm_figures(const dctx *c, Mat A, dsolve_stats *st)
{
    Mat Ad, Ao = NULL;
    const PetscInt *cmap;
    PetscInt ghosts = 0, rows;
    MatInfo ia, io;
    double loc[3] = { 0, 0, 0 }, all[3];
    if (c->size > 1) {
        PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &cmap));
        PetscCall(MatGetSize(Ao, &rows, &ghosts));
        PetscCall(MatGetInfo(Ao, MAT_LOCAL, &io));
        loc[1] = io.nz_used;
    }
    PetscCall(MatGetInfo(A, MAT_LOCAL, &ia));
    loc[0] = 8.0 * ghosts;
    loc[2] = ia.nz_used;
    PetscCallMPI(MPI_Allreduce(loc, all, 3, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    st->product_comm = all[0];
    st->cross = all[2] > 0 ? all[1] / all[2] : 0;
    return 0;
}

/* Damped Jacobi sweeps on pi Q = 0 after a KSP solve that missed the
 * balance test: p_j moves toward inflow_j / exit_j, POLISH_OMEGA of the
 * way, then p is clipped and normalized and the balance measured again,
 * up to POLISH_SWEEPS times (one product each).  KSP leaves the largest
 * relative imbalance on the states of least probability, which its
 * residual norm does not see; a sweep corrects each state from its
 * neighbours (the serial code polishes with Gauss-Seidel).  Measured on
 * ms async 3/4 with the matrix-free generator and Jacobi's
 * preconditioner: 3 KSP solves left 6.4e-12 against --tol 1e-12. */
#define POLISH_SWEEPS 10
#define POLISH_OMEGA 0.8

static PetscErrorCode polish(Mat A, Vec x, Vec in, Vec diag, Vec y, PetscInt fix, fixrow *f,
                             Vec step, Vec w, double tol, dsolve_stats *st, double *resid)
{
    for (int k = 0; k < POLISH_SWEEPS && (st->balance > tol || st->change > tol); k++) {
        PetscCall(VecAXPY(x, POLISH_OMEGA, step));
        PetscCall(normalized(x, in, w));
        PetscCall(VecCopy(w, x));
        PetscCall(balance(A, x, in, diag, y, fix, f, step, &st->change, &st->balance, resid));
        st->products++;
        st->sweeps++;
    }
    return 0;
}

/* Seconds of one product, the slowest rank's, over a few. */
static PetscErrorCode time_product(Mat A, Vec x, Vec y, double *sec)
{
    const int reps = 5;
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    double t0 = san_now();
    for (int k = 0; k < reps; k++)
        PetscCall(MatMult(A, x, y));
    double t = (san_now() - t0) / reps;
    PetscCallMPI(MPI_Allreduce(&t, sec, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    return 0;
}

/* Cycles of the aggregation check and correction: the partitions'
 * coarse chains rescale the blocks (iterative aggregation-
 * disaggregation, as serial's verify.c), then damped Jacobi sweeps
 * smooth within them; the answer passes when the balance and every
 * partition's error are within tol.  On a nearly decomposable chain
 * this is the method that converges (KSP with block-Jacobi breaks down
 * there: its blocks are the nearly closed ones); a vector KSP left with
 * no probability (NaN) starts again from the uniform one. */
#define AGG_CYCLES 50

static PetscErrorCode aggregate(dagg *g, Mat A, Vec x, Vec in, Vec diag, Vec y, PetscInt fix,
                                fixrow *f, Vec step, Vec w, double tol, dsolve_stats *st,
                                double *resid)
{
    PetscReal sum;
    PetscCall(VecSum(x, &sum));
    if (!(sum > 0)) {
        PetscCall(normalized(in, in, x));
        PetscCall(balance(A, x, in, diag, y, fix, f, step, &st->change, &st->balance, resid));
    }
    for (int k = 0; k <= AGG_CYCLES; k++) {
        PetscCall(dagg_check(g, A, x, fix, f, 0, &st->agg_error, st->agg_what,
                             sizeof st->agg_what));
        if (within(st, tol) || k == AGG_CYCLES)
            return 0;
        PetscCall(dagg_check(g, A, x, fix, f, 1, &st->agg_error, st->agg_what,
                             sizeof st->agg_what));
        PetscCall(normalized(x, in, w));
        PetscCall(VecCopy(w, x));
        PetscCall(balance(A, x, in, diag, y, fix, f, step, &st->change, &st->balance, resid));
        st->products++;
        st->agg_cycles++;
        PetscCall(polish(A, x, in, diag, y, fix, f, step, w, tol, st, resid));
    }
    return 0;
}

static PetscErrorCode run(const dctx *c, const dspace *s, Mat A, Vec in, Vec x,
                          const san_solve_opts *o, const char *options, dsolve_stats *st)
{
    Vec diag, b, v, y, step, w;
    PetscCall(VecDuplicate(in, &step));
    PetscCall(VecDuplicate(in, &w));
    PetscCall(VecDuplicate(in, &diag));
    PetscCall(VecDuplicate(in, &b));
    PetscCall(VecDuplicate(in, &v));
    PetscCall(VecDuplicate(in, &y));
    PetscCall(MatGetDiagonal(A, diag));
    PetscInt fix;
    PetscCall(pick_fix(diag, in, &fix));
    fixrow f;
    PetscCall(fixrow_save(A, x, fix, &f));
    dagg *ag;       /* its partitions need the matrix before the pins */
    PetscCall(dagg_create(s, A, in, diag, &ag));
    st->agg_parts = dagg_parts(ag);
    st->agg_missed = dagg_missed(ag);
    PetscCall(pin(A, in, fix, b));
    PetscCall(normalized(in, in, v));   /* uniform over the closed class */
    {   /* scaled so that v_fix = 1, the pinned equation */
        PetscInt lo, hi;
        PetscCall(VecGetOwnershipRange(v, &lo, &hi));
        double vf = 0, all;
        if (fix >= lo && fix < hi) {
            const PetscScalar *va;
            PetscCall(VecGetArrayRead(v, &va));
            vf = va[fix - lo];
            PetscCall(VecRestoreArrayRead(v, &va));
        }
        PetscCallMPI(MPI_Allreduce(&vf, &all, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
        if (all > 0)
            PetscCall(VecScale(v, 1 / all));
    }
    if (options && *options)
        PetscCall(PetscOptionsInsertString(NULL, options));
    KSP ksp;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    /* BiCGSTAB, as the serial auto picks on large chains: on ms async
     * (25,822 states, block-Jacobi/ILU over 2 ranks) it reached the
     * balance test in 56 iterations where GMRES(50) stalled at a
     * residual of 0.17 for thousands */
    PetscCall(KSPSetType(ksp, KSPBCGS));
    if (dshell_is(A)) {     /* no entries to factor: the diagonal (--petsc-options may change it) */
        PC pc0;
        PetscCall(KSPGetPC(ksp, &pc0));
        PetscCall(PCSetType(pc0, PCJACOBI));
    }
    conv_ctx cc = { NULL, c, 0, 0, 0, 0, INFINITY, 0, A, in, diag, y, x, fix, &f, o->tol, 0, 0 };
    PetscCall(KSPConvergedDefaultCreate(&cc.dflt));
    PetscCall(KSPSetConvergenceTest(ksp, converged, &cc, conv_destroy));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    double rtol = o->tol * 1e-3;
    /* dtol off: from the uniform guess the first residual is ~1e5 |b|
     * (the rates unscaled), which PETSc's default divergence test took
     * for divergence at iteration 0 on a 10^6-state model */
    PetscCall(KSPSetTolerances(ksp, rtol, 1e-300, 1e300,
                               o->max_iter > 0 ? (PetscInt)o->max_iter : PETSC_DEFAULT));
    PetscCall(KSPSetFromOptions(ksp));
    double t0 = san_now(), resid = 0;
    st->balance = st->change = INFINITY;
    for (st->rounds = 1; st->rounds <= MAX_ROUNDS; st->rounds++) {
        cc.best = INFINITY;     /* each solve judged on its own progress */
        cc.best_it = 0;
        PetscCall(KSPSolve(ksp, b, v));
        PetscInt its;
        PetscCall(KSPGetIterationNumber(ksp, &its));
        st->iterations += its;
        KSPType kt;
        PetscCall(KSPGetType(ksp, &kt));
        /* BiCGSTAB: 2 products an iteration, GMRES 1; + the first
         * residual, + the balance checks */
        st->products += its * (!strcmp(kt, KSPBCGS) ? 2 : !strcmp(kt, KSPGMRES) ? 1 : 0) + 2 +
                        its / BALANCE_EVERY;
        PetscCall(normalized(v, in, x));
        PetscCall(balance(A, x, in, diag, y, fix, &f, step, &st->change, &st->balance, &resid));
        PetscCall(polish(A, x, in, diag, y, fix, &f, step, w, o->tol, st, &resid));
        if (!cc.interrupted && !cc.timed_out)
            PetscCall(aggregate(ag, A, x, in, diag, y, fix, &f, step, w, o->tol, st, &resid));
        if (within(st, o->tol) || cc.interrupted || cc.timed_out)
            break;
        rtol = fmax(rtol * 1e-3, 1e-300);
        PetscCall(KSPSetTolerances(ksp, rtol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    }
    if (st->rounds > MAX_ROUNDS)
        st->rounds = MAX_ROUNDS;
    st->residual = resid;
    st->interrupted = cc.interrupted;
    st->timed_out = cc.timed_out && !within(st, o->tol);
    KSPType kt;
    PC pc;
    PCType pt;
    KSPConvergedReason why;
    PetscCall(KSPGetType(ksp, &kt));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCGetType(pc, &pt));
    PetscCall(KSPGetConvergedReason(ksp, &why));
    snprintf(st->ksp, sizeof st->ksp, "%s", kt);
    snprintf(st->pc, sizeof st->pc, "%s", pt ? pt : "?");
    snprintf(st->reason, sizeof st->reason, "%s", cc.interrupted ? "interrupted" : cc.timed_out ? "time limit"
                                                 : cc.stagnated ? "stagnated"
                                                 : cc.balanced ? "balance met"
                                                               : KSPConvergedReasons[why]);
    st->seconds = san_now() - t0;
    PetscLogDouble mem;
    PetscCall(PetscMemoryGetCurrentUsage(&mem));
    double m = mem;
    PetscCallMPI(MPI_Allreduce(&m, &st->rank_bytes, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(time_product(A, x, y, &st->product_s));
    /* the values a product brings from other ranks: the off-diagonal
     * block's columns (8 bytes each), summed over the ranks */
    if (dshell_is(A)) {
        double ghosts, bytes;
        dshell_figures(A, &ghosts, &st->cross, &bytes);
        st->product_comm = 8.0 * ghosts;
    } else
        PetscCall(comm_figures(c, A, st));
    PetscCall(KSPDestroy(&ksp));
    dagg_free(ag);
    PetscCall(fixrow_free(&f));
    PetscCall(VecDestroy(&step));
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&diag));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&v));
    PetscCall(VecDestroy(&y));
    return 0;
}

san_status dsolve(const dctx *c, const dspace *s, Mat A, Vec in, Vec x,
                  const san_solve_opts *o, const char *options, dsolve_stats *st, san_diag *d)
{
    memset(st, 0, sizeof *st);
    if (run(c, s, A, in, x, o, options, st)) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: the PETSc solve failed (see its "
                     "message above)");
        return SAN_E_NOMEM;
    }
    if (st->interrupted || st->timed_out)
        return SAN_E_INTERRUPTED;
    return within(st, o->tol) ? SAN_OK : SAN_E_NOTCONV;
}
