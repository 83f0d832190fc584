/*
 * petsc.c - the stationary system pi Q = 0 on PETSc over MPI.
 *
 * Design of this first slice (issue 20): every rank holds the whole
 * transposed generator (the exploration runs on every rank, redundantly:
 * it is deterministic, so every rank numbers the states alike and no
 * state needs to travel); the rows of Q^T are split in contiguous ranges
 * (PETSc's default split) and assembled as a MATMPIAIJ, each rank
 * inserting its own rows only.  The singular system is made regular as
 * in the serial direct solve: the equation of one state (the one with
 * the largest exit rate) is replaced by x_fix = 1; the answer is then
 * normalized.  The solution is gathered on every rank, which runs the
 * serial verification (the accuracy contract) on it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <petscksp.h>
#include "petsc_solve.h"

static int we_initialized;

static void finalize(void)
{
    if (we_initialized)
        PetscFinalize();
}

/* PETSc (and MPI) up; 0 or -1. */
int san_petsc_init(void)
{
    PetscBool up = PETSC_FALSE;
    PetscInitialized(&up);
    if (up)
        return 0;
    if (PetscInitializeNoArguments() != 0)
        return -1;
    we_initialized = 1;
    atexit(finalize);
    return 0;
}

int san_petsc_rank(int *size)
{
    PetscBool up = PETSC_FALSE;
    PetscInitialized(&up);
    int r = 0, s = 1;
    if (up) {
        MPI_Comm_rank(PETSC_COMM_WORLD, &r);
        MPI_Comm_size(PETSC_COMM_WORLD, &s);
    }
    if (size)
        *size = s;
    return r;
}

/* The state whose equation is replaced: the largest |q_jj|, as the
 * serial direct solve does (a well-scaled pivot). */
static int64_t fixed_row(const san_csr *qt)
{
    int64_t best = 0;
    double bw = -1;
    for (int64_t j = 0; j < qt->n; j++)
        for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++)
            if (qt->col[t] == j && fabs(qt->val[t]) > bw) {
                bw = fabs(qt->val[t]);
                best = j;
            }
    return best;
}

/* Nonzeros of the local rows in the diagonal block and outside it, for
 * the preallocation (without it, assembly of 10^6 rows takes minutes). */
static void count_nnz(const san_csr *qt, PetscInt r0, PetscInt r1, int64_t fix,
                      PetscInt *dn, PetscInt *on)
{
    for (PetscInt j = r0; j < r1; j++) {
        PetscInt d = 0, o = 0;
        if (j == fix)
            d = 1;
        else
            for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++) {
                if (qt->col[t] >= r0 && qt->col[t] < r1)
                    d++;
                else
                    o++;
            }
        dn[j - r0] = d;
        on[j - r0] = o;
    }
}

/* The rank's rows of Q^T, row fix replaced by e_fix. */
static PetscErrorCode assemble(Mat A, const san_csr *qt, PetscInt r0, PetscInt r1, int64_t fix)
{
    PetscInt maxlen = 1;
    for (PetscInt j = r0; j < r1; j++)
        if (qt->rowptr[j + 1] - qt->rowptr[j] > maxlen)
            maxlen = (PetscInt)(qt->rowptr[j + 1] - qt->rowptr[j]);
    PetscInt *cols;
    PetscCall(PetscMalloc1(maxlen, &cols));
    for (PetscInt j = r0; j < r1; j++) {
        if (j == fix) {
            PetscScalar one = 1;
            PetscCall(MatSetValues(A, 1, &j, 1, &j, &one, INSERT_VALUES));
            continue;
        }
        PetscInt len = (PetscInt)(qt->rowptr[j + 1] - qt->rowptr[j]);
        for (PetscInt k = 0; k < len; k++)
            cols[k] = qt->col[qt->rowptr[j] + k];
        PetscCall(MatSetValues(A, 1, &j, len, cols, qt->val + qt->rowptr[j], INSERT_VALUES));
    }
    PetscCall(PetscFree(cols));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    return 0;
}

/* Every rank receives the whole solution, clipped at 0 and normalized. */
static PetscErrorCode gather(Vec v, double *x, int64_t n)
{
    VecScatter sc;
    Vec all;
    PetscCall(VecScatterCreateToAll(v, &sc, &all));
    PetscCall(VecScatterBegin(sc, v, all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, v, all, INSERT_VALUES, SCATTER_FORWARD));
    const PetscScalar *a;
    PetscCall(VecGetArrayRead(all, &a));
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
        x[i] = a[i] > 0 ? a[i] : 0;
        s += x[i];
    }
    PetscCall(VecRestoreArrayRead(all, &a));
    for (int64_t i = 0; s > 0 && i < n; i++)
        x[i] /= s;
    PetscCall(VecScatterDestroy(&sc));
    PetscCall(VecDestroy(&all));
    return 0;
}

static PetscErrorCode solve(const san_csr *qt, double *x, const char *options, double tol,
                            long max_iter, san_petsc_stats *st)
{
    PetscInt n = (PetscInt)qt->n;
    const int64_t fix = fixed_row(qt);
    PetscLogDouble t0, t1, mem;
    PetscCall(PetscTime(&t0));
    if (options && *options)
        PetscCall(PetscOptionsInsertString(NULL, options));
    Mat A;
    PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
    PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(A, MATAIJ));
    PetscInt r0 = 0, r1 = 0, nloc = PETSC_DECIDE;
    PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &nloc, &n));
    PetscCallMPI(MPI_Scan(&nloc, &r1, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    r0 = r1 - nloc;
    PetscInt *dn, *on;
    PetscCall(PetscMalloc2(nloc ? nloc : 1, &dn, nloc ? nloc : 1, &on));
    count_nnz(qt, r0, r1, fix, dn, on);
    PetscCall(MatSeqAIJSetPreallocation(A, 0, dn));
    PetscCall(MatMPIAIJSetPreallocation(A, 0, dn, 0, on));
    PetscCall(PetscFree2(dn, on));
    PetscCall(assemble(A, qt, r0, r1, fix));

    Vec b, v;
    PetscCall(MatCreateVecs(A, &v, &b));
    PetscCall(VecSet(b, 0));
    if (fix >= r0 && fix < r1)
        PetscCall(VecSetValue(b, (PetscInt)fix, 1.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
    PetscCall(VecSet(v, 1.0));      /* the uniform guess, as in serial */

    KSP ksp;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPGMRES));
    PetscCall(KSPGMRESSetRestart(ksp, 50));
    /* the residual of the pinned system is looser than the balance test:
     * a relative 1e-3 tol leaves the verification little to polish */
    /* dtol off: from the uniform guess the first residual is ~1e5 |b|
     * (|b| = 1, the rates unscaled), which PETSc's default divergence
     * test (1e5) took for divergence at iteration 0 on the 952,180-state
     * ms model: measured, the serial check then did the whole solve */
    PetscCall(KSPSetTolerances(ksp, tol * 1e-3, 1e-300, 1e300,
                               max_iter > 0 ? (PetscInt)max_iter : PETSC_DEFAULT));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSolve(ksp, b, v));
    PetscInt its;
    PetscCall(KSPGetIterationNumber(ksp, &its));
    KSPType kt;
    PC pc;
    PCType pt;
    PetscCall(KSPGetType(ksp, &kt));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCGetType(pc, &pt));
    snprintf(st->ksp, sizeof st->ksp, "%s", kt);
    snprintf(st->pc, sizeof st->pc, "%s", pt ? pt : "?");
    st->iterations = its;
    KSPConvergedReason why;
    PetscCall(KSPGetConvergedReason(ksp, &why));
    snprintf(st->reason, sizeof st->reason, "%s", KSPConvergedReasons[why]);
    PetscCall(PetscMemoryGetCurrentUsage(&mem));
    double m = mem;
    PetscCallMPI(MPI_Allreduce(&m, &st->rank_bytes, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(gather(v, x, qt->n));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&v));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscTime(&t1));
    st->seconds = t1 - t0;
    return 0;
}

int san_petsc_stationary(const san_csr *qt, double *x, const char *options, double tol,
                         long max_iter, san_petsc_stats *st, char *msg, size_t msglen)
{
    memset(st, 0, sizeof *st);
    if (qt->n > PETSC_MAX_INT) {
        snprintf(msg, msglen, "--engine petsc: %lld states need a PETSc built with 64-bit indices",
                 (long long)qt->n);
        return -1;
    }
    if (san_petsc_init() < 0) {
        snprintf(msg, msglen, "--engine petsc: PETSc did not initialize");
        return -1;
    }
    MPI_Comm_size(PETSC_COMM_WORLD, &st->ranks);
    if (solve(qt, x, options, tol, max_iter, st) != 0) {
        snprintf(msg, msglen, "--engine petsc: the PETSc solve failed (see its message above)");
        return -1;
    }
    return 0;
}
