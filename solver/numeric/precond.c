/*
 * precond.c - the preconditioners of the Krylov methods (krylov.c): ILU(0)
 * on the pattern of the transposed generator (sparse path) and Jacobi
 * (both storages), for A = -Q^T with the balance equation of the fixed
 * state k replaced by "x_k = 1".
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "solver/numeric/linsolve.h"
#include "solver/numeric/precond.h"

/* ILU(0) pivots below this fraction of the diagonal are roundoff noise. */
#define PIVOT_FLOOR 1e-13

/* The factorization looks at the clock after each row once this many
 * entries were merged since the last look (a millisecond or so): by
 * work, not rows, since a row of a dense chain (the fan-out models:
 * 4096 entries a row) costs millions of them. */
#define ILU_CLOCK_WORK (1 << 22)

/* The triangular solves are a chain through the rows: row i waits for
 * the rows its lower (upper) entries name.  Run in row order they use
 * one core: 38% of the default's time on the PEPS resource-sharing
 * model of 20 processes, where the product (31%) uses both.  A level
 * schedule groups the rows whose dependencies are all in earlier
 * levels; the rows of a level are independent, so they are shared
 * among the threads, with the arithmetic of each row unchanged (the
 * answer does not depend on the number of threads).  Chains whose
 * levels hold fewer rows than this on average (a long birth-death
 * chain has a level a row) keep the plain order: a barrier a level
 * would cost more than the level's work.  (Cutting the rows into one
 * block a thread instead, block-Jacobi over ILU(0), lost the coupling
 * between blocks: 39 BiCGSTAB iterations and 5 refinement cycles for
 * 23 and 2 on the same model.) */
#define LEVEL_MIN_ROWS 2048

/* Forward levels (lower entries) when !upper, else backward (upper
 * entries); the rows by level into row[], level starts into ptr[].
 * Returns the number of levels. */
static int64_t level_schedule(const san_csr *qt, const int32_t *dpos, int upper,
                              int32_t *lev, int32_t *row, int64_t *ptr)
{
    const int64_t n = qt->n;
    int64_t nlev = 0;
    for (int64_t k = 0; k < n; k++) {
        const int64_t i = upper ? n - 1 - k : k;
        const int64_t d = qt->rowptr[i] + dpos[i];
        const int64_t b = upper ? d + 1 : qt->rowptr[i], e = upper ? qt->rowptr[i + 1] : d;
        int32_t l = 0;
        for (int64_t p = b; p < e; p++)
            l = lev[qt->col[p]] + 1 > l ? lev[qt->col[p]] + 1 : l;
        lev[i] = l;
        nlev = l + 1 > nlev ? l + 1 : nlev;
    }
    if (ptr) {
        for (int64_t v = 0; v <= nlev; v++)
            ptr[v] = 0;
        for (int64_t i = 0; i < n; i++)
            ptr[lev[i] + 1]++;
        for (int64_t v = 0; v < nlev; v++)
            ptr[v + 1] += ptr[v];
        for (int64_t k = 0; k < n; k++) {     /* ascending rows within a level */
            const int64_t i = upper ? n - 1 - k : k;
            row[ptr[lev[i]]++] = (int32_t)i;
        }
        for (int64_t v = nlev; v > 0; v--)
            ptr[v] = ptr[v - 1];
        ptr[0] = 0;
    }
    return nlev;
}

/* Both schedules, or none (too few rows a level, or no memory: the
 * plain order is as right). */
static void ilu0_levels(num_pc *op)
{
    const san_csr *qt = op->qt;
    const int64_t n = qt->n;
#ifdef _OPENMP
    if (omp_get_max_threads() < 2 || n < 2 * LEVEL_MIN_ROWS)
        return;
#else
    return;
#endif
    /* Off unless SAN_ILU_LEVELS=1: on a loaded machine (load 6 to 11 on
     * 2 cores, bench/kernels on rs 20/9) the schedule took 122-176 ms a
     * pair of solves against 16-31 ms in row order, once 40 against 99:
     * a level ends in a barrier, and a descheduled thread holds every
     * barrier for a time slice; sweeps run several solves at once, so
     * that is the default's case too.  Near idle (load 0.7, 2026-11-30,
     * same model) it still lost: 20.4 ms against 8.9 in row order, the
     * rows of a level scattered through memory.  A copy of the factors
     * in level order (branch k27k) won the kernel in isolation (ms async
     * 8/40: 3.2 ms on 2 threads against 10.9) but not the solve: rs 20
     * BiCGSTAB 4.3-4.7 s -> 5.4-5.7 s at load 3, and 33% more memory; a
     * block ILU(0), one block a thread, cost iterations (BiCGSTAB 28 ->
     * 36, GMRES 24 -> 48).  So the row order stays. */
    const char *env = getenv("SAN_ILU_LEVELS");
    if (!env || strcmp(env, "1") != 0)
        return;
    int32_t *lev = malloc((size_t)n * sizeof *lev);
    if (!lev)
        return;
    int64_t nl = level_schedule(qt, op->dpos, 0, lev, NULL, NULL);
    int64_t nu = level_schedule(qt, op->dpos, 1, lev, NULL, NULL);
    if (n / nl >= LEVEL_MIN_ROWS && n / nu >= LEVEL_MIN_ROWS) {
        op->lrow = malloc((size_t)n * sizeof *op->lrow);
        op->urow = malloc((size_t)n * sizeof *op->urow);
        op->lptr = malloc((size_t)(nl + 1) * sizeof *op->lptr);
        op->uptr = malloc((size_t)(nu + 1) * sizeof *op->uptr);
        if (op->lrow && op->urow && op->lptr && op->uptr) {
            op->nlev_l = level_schedule(qt, op->dpos, 0, lev, op->lrow, op->lptr);
            op->nlev_u = level_schedule(qt, op->dpos, 1, lev, op->urow, op->uptr);
        } else {
            free(op->lrow);
            free(op->urow);
            free(op->lptr);
            free(op->uptr);
            op->lrow = op->urow = NULL;
            op->lptr = op->uptr = NULL;
        }
    }
    free(lev);
}

static inline void lower_row(const num_pc *op, double *restrict x, int64_t i)
{
    const int64_t *restrict rp = op->qt->rowptr;
    const int32_t *restrict ci = op->qt->col;
    const double *restrict lu = op->lu;
    double t = x[i];
    for (int64_t p = rp[i], e = rp[i] + op->dpos[i]; p < e; p++)
        t -= lu[p] * x[ci[p]];
    x[i] = t;
}

static inline void upper_row(const num_pc *op, double *restrict x, int64_t i)
{
    const int64_t *restrict rp = op->qt->rowptr;
    const int32_t *restrict ci = op->qt->col;
    const double *restrict lu = op->lu;
    const int64_t di = rp[i] + op->dpos[i];
    double t = x[i];
    for (int64_t p = di + 1; p < rp[i + 1]; p++)
        t -= lu[p] * x[ci[p]];
    x[i] = t * lu[di];
}

/* x <- (LU)^-1 x in place: unit lower, then upper with inverted pivots. */
static void ilu0_solve(const num_pc *op, double *restrict x)
{
    const int64_t n = op->qt->n;
    if (!op->lrow) {
        for (int64_t i = 0; i < n; i++)
            lower_row(op, x, i);
        for (int64_t i = n - 1; i >= 0; i--)
            upper_row(op, x, i);
        return;
    }
    SAN_OMP(omp parallel)
    {
        for (int64_t v = 0; v < op->nlev_l; v++) {
            SAN_OMP(omp for schedule(static))
            for (int64_t k = op->lptr[v]; k < op->lptr[v + 1]; k++)
                lower_row(op, x, op->lrow[k]);
        }
        for (int64_t v = 0; v < op->nlev_u; v++) {
            SAN_OMP(omp for schedule(static))
            for (int64_t k = op->uptr[v]; k < op->uptr[v + 1]; k++)
                upper_row(op, x, op->urow[k]);
        }
    }
}

/* ILU(0), IKJ order, row i: eliminated with the rows of its lower
 * columns, each update applied only where row i already has an entry
 * (found by merging the two sorted column lists).  Returns the work
 * done (entries merged). */
static int64_t ilu0_factor_row(num_pc *op, int64_t i)
{
    const san_csr *qt = op->qt;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    double *restrict lu = op->lu;
    const int32_t *restrict dpos = op->dpos;
    int64_t work = 0;
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
    return work + 1;
}

/* Row after row, or level after level of the forward schedule (a row
 * reads only rows of earlier levels).  Past the deadline it stops and
 * the preconditioner becomes Jacobi's. */
static void ilu0_factor(num_pc *op)
{
    const int64_t n = op->qt->n;
    int64_t work = 0;
    if (op->lrow) {
        for (int64_t v = 0; v < op->nlev_l; v++) {
            if (san_now() >= op->deadline) {
                op->kind = SAN_PC_JACOBI;
                return;
            }
            SAN_OMP(omp parallel for schedule(dynamic, 256))
            for (int64_t k = op->lptr[v]; k < op->lptr[v + 1]; k++)
                ilu0_factor_row(op, op->lrow[k]);
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        if (work >= ILU_CLOCK_WORK) {
            work = 0;
            if (san_now() >= op->deadline) {
                op->kind = SAN_PC_JACOBI;
                return;
            }
        }
        work += ilu0_factor_row(op, i);
    }
}

/* Loads A (which depends on k) into the factor array and factorizes. */
static void ilu0_refactor(num_pc *op)
{
    const san_csr *qt = op->qt;
    const int64_t n = qt->n, k = op->k;
    SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static))
    for (int64_t j = 0; j < n; j++)
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++)
            op->lu[p] = j == k && qt->col[p] != k ? 0 : -qt->val[p];
    ilu0_factor(op);
}

static int ilu0_build(num_pc *op, char *msg, size_t sz)
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
        op->dpos[j] = (int32_t)(num_ls_diag_pos(qt, j) - qt->rowptr[j]);
    ilu0_levels(op);
    if (op->k >= 0)
        ilu0_refactor(op);
    return 0;
}

/* 1 / A_jj = 1 / |q_jj|: the Jacobi preconditioner, and the weights of
 * the choice of the fixed state (0 for states outside the chain). */
static int dinv_build(num_pc *op, const num_op *A, char *msg, size_t sz)
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
        double d = num_op_qjj(A, j);
        op->dinv[j] = d != 0 ? -1.0 / d : 0;
    }
    return 0;
}

/* x <- M^-1 x. */
void num_pc_apply(const num_pc *op, double *restrict x)
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

int num_pc_build(num_pc *pc, const num_op *A, const san_csr *qt, san_precond kind, int64_t k,
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

void num_pc_refix(num_pc *pc, int64_t k)
{
    if (pc->k == k)     /* a deferred build (k < 0) always factorizes */
        return;
    pc->k = k;
    if (pc->kind == SAN_PC_ILU0)
        ilu0_refactor(pc);
}

void num_pc_free(num_pc *pc)
{
    free(pc->lu);
    free(pc->dpos);
    free(pc->lrow);
    free(pc->urow);
    free(pc->lptr);
    free(pc->uptr);
    free(pc->dinv);
    memset(pc, 0, sizeof *pc);
}
