/*
 * precond.c - the preconditioners of the Krylov methods (krylov.c): ILU(0)
 * on the pattern of the transposed generator (sparse path) and Jacobi
 * (both storages), for A = -Q^T with the balance equation of the fixed
 * state k replaced by "x_k = 1".
 */
#include <stdlib.h>
#include <string.h>
#include "linsolve.h"
#include "precond.h"

/* ILU(0) pivots below this fraction of the diagonal are roundoff noise. */
#define PIVOT_FLOOR 1e-13

/* The factorization looks at the clock after each row once this many
 * entries were merged since the last look (a millisecond or so): by
 * work, not rows, since a row of a dense chain (the fan-out models:
 * 4096 entries a row) costs millions of them. */
#define ILU_CLOCK_WORK (1 << 22)

/* ILU(0), IKJ order: row i is eliminated with the rows of its lower
 * columns, each update applied only where row i already has an entry
 * (found by merging the two sorted column lists).  Past the deadline
 * it stops and the preconditioner becomes Jacobi's. */
static void ilu0_factor(san_pc *op)
{
    const san_csr *qt = op->qt;
    const int64_t n = qt->n;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    double *restrict lu = op->lu;
    const int32_t *restrict dpos = op->dpos;
    int64_t work = 0;

    for (int64_t i = 0; i < n; i++) {
        if (work >= ILU_CLOCK_WORK) {
            work = 0;
            if (san_now() >= op->deadline) {
                op->kind = SAN_PC_JACOBI;
                return;
            }
        }
        const int64_t re = rp[i + 1], di = rp[i] + dpos[i];
        for (int64_t p = rp[i]; p < di; p++) {
            if (lu[p] == 0)
                continue;
            const int64_t kc = ci[p], kd = rp[kc] + dpos[kc];
            const double l = (lu[p] *= lu[kd]);
            int64_t q = kd + 1, t = p + 1;
            const int64_t qe = rp[kc + 1];
            work += (qe - q) + (re - t);
            while (q < qe && t < re) {
                if (ci[q] < ci[t])
                    q++;
                else if (ci[q] > ci[t])
                    t++;
                else
                    lu[t++] -= l * lu[q++];
            }
        }
        /* Exact pivots are positive (M-matrix), but on nearly decomposable
         * chains some are far below roundoff and come out as noise: such a
         * pivot falls back to the diagonal of A, which keeps M^-1 bounded
         * (it is only a preconditioner). */
        const double a = -qt->val[di];
        if (!(lu[di] > PIVOT_FLOOR * a))
            lu[di] = a;
        lu[di] = 1.0 / lu[di];
    }
}

/* Loads A (which depends on k) into the factor array and factorizes. */
static void ilu0_refactor(san_pc *op)
{
    const san_csr *qt = op->qt;
    const int64_t n = qt->n, k = op->k;
    SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static))
    for (int64_t j = 0; j < n; j++)
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++)
            op->lu[p] = j == k && qt->col[p] != k ? 0 : -qt->val[p];
    ilu0_factor(op);
}

static int ilu0_build(san_pc *op, char *msg, size_t sz)
{
    const san_csr *qt = op->qt;
    const int64_t n = qt->n, nnz = qt->rowptr[n];
    if (san_now() >= op->deadline) {
        op->kind = SAN_PC_JACOBI;       /* no time for it */
        return 0;
    }
    op->lu = malloc((size_t)nnz * sizeof *op->lu);
    op->dpos = malloc((size_t)n * sizeof *op->dpos);
    if (!op->lu || !op->dpos) {
        char b[32];
        snprintf(msg, sz, "out of memory for the ILU(0) factors (%s); "
                 "try --precond jacobi or --method gs",
                 san_format_bytes((double)nnz * 8, b, sizeof b));
        return -1;
    }
    for (int64_t j = 0; j < n; j++)
        op->dpos[j] = (int32_t)(san_ls_diag_pos(qt, j) - qt->rowptr[j]);
    ilu0_refactor(op);
    return 0;
}

/* x <- (LU)^-1 x in place: unit lower, then upper with inverted pivots. */
static void ilu0_solve(const san_pc *op, double *restrict x)
{
    const san_csr *qt = op->qt;
    const int64_t n = qt->n;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    const double *restrict lu = op->lu;
    const int32_t *restrict dpos = op->dpos;
    for (int64_t i = 0; i < n; i++) {
        double t = x[i];
        for (int64_t p = rp[i], e = rp[i] + dpos[i]; p < e; p++)
            t -= lu[p] * x[ci[p]];
        x[i] = t;
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        const int64_t di = rp[i] + dpos[i];
        double t = x[i];
        for (int64_t p = di + 1; p < rp[i + 1]; p++)
            t -= lu[p] * x[ci[p]];
        x[i] = t * lu[di];
    }
}

/* 1 / A_jj = 1 / |q_jj|: the Jacobi preconditioner, and the weights of
 * the choice of the fixed state (0 for states outside the chain). */
static int dinv_build(san_pc *op, const san_op *A, char *msg, size_t sz)
{
    const int64_t n = op->n;
    op->dinv = malloc((size_t)n * sizeof *op->dinv);
    if (!op->dinv) {
        snprintf(msg, sz, "out of memory for the diagonal (%lld states)",
                 (long long)n);
        return -1;
    }
    SAN_OMP(omp parallel for if(n >= A->par_min) schedule(static))
    for (int64_t j = 0; j < n; j++) {
        double d = san_op_qjj(A, j);
        op->dinv[j] = d != 0 ? -1.0 / d : 0;
    }
    return 0;
}

/* x <- M^-1 x. */
void san_pc_apply(const san_pc *op, double *restrict x)
{
    const int64_t n = op->n;
    if (op->kind == SAN_PC_ILU0) {
        ilu0_solve(op, x);
    } else if (op->kind == SAN_PC_JACOBI) {
        const double *restrict d = op->dinv;
        SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static))
        for (int64_t j = 0; j < n; j++)
            x[j] *= d[j];
    }
}

int san_pc_build(san_pc *pc, const san_op *A, const san_csr *qt, san_precond kind, int64_t k,
                 double deadline, char *msg, size_t sz)
{
    memset(pc, 0, sizeof *pc);
    pc->deadline = deadline;
    pc->kind = kind;
    pc->qt = qt;
    pc->n = A->n;
    pc->k = k;
    pc->par_min = A->par_min;
    if (dinv_build(pc, A, msg, sz) < 0)
        return -1;
    return kind == SAN_PC_ILU0 ? ilu0_build(pc, msg, sz) : 0;
}

void san_pc_refix(san_pc *pc, int64_t k)
{
    if (pc->k == k)
        return;
    pc->k = k;
    if (pc->kind == SAN_PC_ILU0)
        ilu0_refactor(pc);
}

void san_pc_free(san_pc *pc)
{
    free(pc->lu);
    free(pc->dpos);
    free(pc->dinv);
    memset(pc, 0, sizeof *pc);
}
