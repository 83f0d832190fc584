/*
 * ml.c - multilevel aggregation for pi Q = 0 (method "ml"), sparse path.
 *
 * The multiplicative multilevel aggregation of De Sterck, Manteuffel,
 * McCormick, Miller, Pearson, Ruge and Sanders (SISC 2008, 2010), written
 * on the transposed generator A = Q^T that the sparse path stores (row i
 * of A holds the rates into state i).  On every level l the unknown x_l
 * solves A_l x_l = 0 (A_0 = qt, x_0 = pi); one cycle on level l:
 *
 *   1. pre-smoothing: Gauss-Seidel sweeps x_i <- (inflow to i) / (exit
 *      rate of i), computed without subtracting anything, so that tiny
 *      probabilities keep their relative accuracy;
 *   2. aggregates: states joined along strong flows x_j q_ji of the
 *      scaled matrix A diag(x) (strength-of-connection, neighbourhood
 *      aggregation); recomputed in the first cycles, then kept fixed;
 *   3. the coarse chain A_c = P^T A diag(x) P (P the 0/1 aggregate
 *      matrix): the flows between aggregates under x, again a transposed
 *      generator, whose stationary vector is all ones when x is exact;
 *      its diagonal is minus the sum of the aggregate's outflows (no
 *      cancellation of intra-aggregate rates);
 *   4. gamma cycles on the coarse chain from x_c = 1 (V: 1, W: 2), GTH on
 *      the coarsest one; then x_i <- x_i x_c[agg(i)];
 *   5. post-smoothing.
 *
 * The fine iterate is normalized after every cycle and its residual (the
 * one every method is judged by, op.h) decides convergence; the answer
 * then goes through the same checks as every other method (verify.c).
 * Sweeps over large levels run on every core as block Gauss-Seidel: each
 * thread sweeps its own block of rows in place and reads the others'
 * entries from a copy made before the sweep (no data race).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "solver/numeric/linsolve.h"
#include "solver/numeric/recombine.h"

/* A flow into state i is strong when it is at least this fraction of
 * the largest flow into i.  Not 0.25, the usual choice of aggregation
 * AMG: on QVBS's cluster.prism (the repairable cluster as imported from
 * PRISM: repairs of the switches and the backbone at 0.25 and 0.125,
 * slower than the failures of a full cluster, 0.256) the aggregates of
 * 0.25 joined states whose ratios the cycles then kept wrong: the
 * balance of states of 1e-9..1e-13 that should hold 1e-37..1e-45
 * oscillated near 0.3 from cycle to cycle, and only the iterant
 * recombination got it out (without it no convergence in 10,000
 * cycles at N = 64).  Cycles from the uniform vector, theta 0.25 ->
 * 0.5: cluster.prism N = 32, 48, 64, 80, 96, 128: 45, 105, 66+10 (a
 * retry of the checks), 43+14, 43+21, 845 -> 24, 19+8, 18, 22, 25+8,
 * 36; cluster64.san 15 -> 14; tss6 --lump off 23 -> 24; ms async 7/20
 * 17 -> 21; tandem.prism c = 127 19 -> 21; kanban t = 3 15 -> 13;
 * polling.7 12 -> 13; fms n = 3 14 -> 11.  (0.1 took 145 cycles on
 * cluster.prism N = 64.) */
#define ML_THETA 0.5
/* Levels of at most this many states are solved by dense GTH. */
#define ML_COARSEST 300
/* Coarsening that keeps more than this fraction of the states has
 * stalled: that level becomes the coarsest, solved by sweeps. */
#define ML_STALL 0.8
#define ML_COARSE_SWEEPS 20
#define ML_MAX_LEVELS 32
/* Aggregates are rebuilt from the iterate in the first cycles, then
 * kept: the coarse operators still follow x every cycle. */
#define ML_SETUP_CYCLES 3
/* W-cycles (two coarse visits a level) with two sweeps before and two
 * after.  Measured at tol 1e-12 (cycles, V(1,1) -> W(2,2)): ms async
 * 8/40 54 -> 28, rs 20/9 30 -> 22, cluster 64/side 26 -> 18, ncd17 33
 * -> 25, for about the same solve time (a W(2,2) cycle costs about twice
 * a V(1,1): the coarse levels are 1/6 of the fine one and below).
 * Tried: W(1,1) 45 and theta 0.1 45 on ms 8/40; setup over 6 cycles 55. */
#define ML_PRE 2
#define ML_POST 2
#define ML_GAMMA 2

typedef struct {
    san_csr a;              /* A_l (level 0: a shallow copy of qt) */
    int64_t *dpos;          /* position of the diagonal of each row */
    double *x;              /* the level's iterate (level 0: pi) */
    double *xo;             /* copy of x for the parallel sweeps */
    int32_t *agg;           /* state -> aggregate on the next level */
    int32_t *cpos;          /* nonzero -> nonzero of the next level;
                               inside an aggregate: the diagonal, a sink
                               that is then overwritten (no branch in
                               the product; see galerkin_rows) */
    int64_t *mptr;          /* members of each aggregate: */
    int32_t *mem;           /*   mem[mptr[I] .. mptr[I+1]) */
} ml_level;

typedef struct {
    ml_level lv[ML_MAX_LEVELS];
    int nlev;               /* level nlev-1 is the coarsest */
    int nt;                 /* threads for the large levels */
    double *dense;          /* GTH scratch */
    double *tbuf;           /* the other threads' coarse values */
    size_t tlen;
} ml_ws;

/* ------------------------------------------------------------------ */
/* Levels                                                               */
/* ------------------------------------------------------------------ */

static void level_free(ml_level *L, int own)
{
    if (own)
        san_csr_free(&L->a);
    if (own)
        free(L->x);
    free(L->dpos);
    free(L->xo);
    free(L->agg);
    free(L->cpos);
    free(L->mptr);
    free(L->mem);
    memset(L, 0, sizeof *L);
}

/* Frees the levels from l on (their matrices are owned from 1 on). */
static void levels_free(ml_ws *w, int from)
{
    for (int l = from; l < ML_MAX_LEVELS; l++) {
        if (l == 0) {
            free(w->lv[0].dpos);
            free(w->lv[0].xo);
            free(w->lv[0].agg);
            free(w->lv[0].cpos);
            free(w->lv[0].mptr);
            free(w->lv[0].mem);
            memset(&w->lv[0], 0, sizeof w->lv[0]);
        } else {
            level_free(&w->lv[l], 1);
        }
    }
}

static int threads_for(const ml_ws *w, int64_t n)
{
    return n >= SAN_LS_PAR_MIN ? w->nt : 1;
}

/* ------------------------------------------------------------------ */
/* Smoothing                                                            */
/* ------------------------------------------------------------------ */

/* Gauss-Seidel over rows [lo, hi): entries of other rows come from xo. */
static void sweep_range(const ml_level *L, double *x, const double *xo,
                        int64_t lo, int64_t hi, int backward)
{
    const int64_t *restrict rp = L->a.rowptr, *restrict dp = L->dpos;
    const int32_t *restrict ci = L->a.col;
    const double *restrict v = L->a.val;
    for (int64_t k = lo; k < hi; k++) {
        const int64_t i = backward ? hi - 1 - (k - lo) : k;
        const int64_t d = dp[i];
        double in = 0;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
            if (p == d)
                continue;
            const int64_t j = ci[p];
            in += v[p] * (j >= lo && j < hi ? x[j] : xo[j]);
        }
        if (v[d] < 0)           /* no exit rate: an aggregate that x left empty */
            x[i] = in / -v[d];
    }
}

static void sweep(ml_ws *w, ml_level *L, int backward)
{
    const int64_t n = L->a.n;
    const int nt = threads_for(w, n);
    if (nt <= 1 || !L->xo) {
        sweep_range(L, L->x, L->x, 0, n, backward);
        return;
    }
    memcpy(L->xo, L->x, (size_t)n * sizeof *L->xo);
    SAN_OMP(omp parallel for num_threads(nt) schedule(static, 1))
    for (int t = 0; t < nt; t++)
        sweep_range(L, L->x, L->xo, n * t / nt, n * (t + 1) / nt, backward);
}

/* Scales x to sum s; 0, or -1 when its sum is not positive and finite. */
static int normalize(ml_ws *w, double *x, int64_t n, double s)
{
    double t = 0;
    const int nt = threads_for(w, n);
    SAN_OMP(omp parallel for num_threads(nt) reduction(+:t) schedule(static))
    for (int64_t i = 0; i < n; i++)
        t += x[i];
    if (!(t > 0) || !isfinite(t))
        return -1;
    const double a = s / t;
    SAN_OMP(omp parallel for num_threads(nt) schedule(static))
    for (int64_t i = 0; i < n; i++)
        x[i] *= a;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Aggregates and the coarse pattern                                    */
/* ------------------------------------------------------------------ */

/* The largest flow into each state under x (for the strength test). */
static void max_inflow(const ml_level *L, double *m, int nt)
{
    const int64_t n = L->a.n;
    SAN_OMP(omp parallel for num_threads(nt) schedule(static))
    for (int64_t i = 0; i < n; i++) {
        double b = 0;
        for (int64_t p = L->a.rowptr[i]; p < L->a.rowptr[i + 1]; p++)
            if (p != L->dpos[i]) {
                double f = L->a.val[p] * L->x[L->a.col[p]];
                b = f > b ? f : b;
            }
        m[i] = b;
    }
}

#define STRONG(L, m, i, p) ((p) != (L)->dpos[i] && \
        (L)->a.val[p] * (L)->x[(L)->a.col[p]] >= ML_THETA * (m)[i] && (m)[i] > 0)

/* Neighbourhood aggregation on the strong inflows: (1) a state whose
 * strong neighbours are all free forms an aggregate with them; (2) a
 * free state joins the aggregate of its strongest aggregated neighbour;
 * (3) what is left forms aggregates with its free strong neighbours.
 * Returns the number of aggregates, -1 out of memory. */
static int64_t aggregate(ml_ws *w, ml_level *L)
{
    const int64_t n = L->a.n;
    const int64_t *rp = L->a.rowptr;
    const int32_t *ci = L->a.col;
    double *m = malloc((size_t)n * sizeof *m);
    int32_t *ag = malloc((size_t)n * sizeof *ag);
    if (!m || !ag) {
        free(m);
        free(ag);
        return -1;
    }
    max_inflow(L, m, threads_for(w, n));
    for (int64_t i = 0; i < n; i++)
        ag[i] = -1;
    int64_t nc = 0;
    for (int64_t i = 0; i < n; i++) {
        if (ag[i] >= 0)
            continue;
        int free_nb = 1;
        for (int64_t p = rp[i]; p < rp[i + 1] && free_nb; p++)
            if (STRONG(L, m, i, p) && ag[ci[p]] >= 0)
                free_nb = 0;
        if (!free_nb)
            continue;
        ag[i] = (int32_t)nc;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            if (STRONG(L, m, i, p))
                ag[ci[p]] = (int32_t)nc;
        nc++;
    }
    /* (2): m is reused for the choice, -2 marks a state joined here */
    int32_t *join = (int32_t *)m;           /* n int32 fit in n doubles */
    for (int64_t i = 0; i < n; i++) {
        join[i] = -1;
        if (ag[i] >= 0)
            continue;
        double best = 0;
        double mi = 0;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            if (p != L->dpos[i]) {
                double f = L->a.val[p] * L->x[ci[p]];
                mi = f > mi ? f : mi;
            }
        for (int64_t p = rp[i]; p < rp[i + 1]; p++) {
            if (p == L->dpos[i] || ag[ci[p]] < 0)
                continue;
            double f = L->a.val[p] * L->x[ci[p]];
            if (f >= ML_THETA * mi && f > best) {
                best = f;
                join[i] = ag[ci[p]];
            }
        }
    }
    for (int64_t i = 0; i < n; i++)
        if (ag[i] < 0 && join[i] >= 0)
            ag[i] = join[i];
    /* (3) */
    for (int64_t i = 0; i < n; i++) {
        if (ag[i] >= 0)
            continue;
        double mi = 0;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            if (p != L->dpos[i]) {
                double f = L->a.val[p] * L->x[ci[p]];
                mi = f > mi ? f : mi;
            }
        ag[i] = (int32_t)nc;
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            if (p != L->dpos[i] && ag[ci[p]] < 0 &&
                L->a.val[p] * L->x[ci[p]] >= ML_THETA * mi)
                ag[ci[p]] = (int32_t)nc;
        nc++;
    }
    free(m);
    free(L->agg);
    L->agg = ag;
    return nc;
}

/* The members of each aggregate (counting sort). */
static int members(ml_level *L, int64_t nc)
{
    const int64_t n = L->a.n;
    free(L->mptr);
    free(L->mem);
    L->mptr = calloc((size_t)nc + 1, sizeof *L->mptr);
    L->mem = malloc((size_t)n * sizeof *L->mem);
    if (!L->mptr || !L->mem)
        return -1;
    for (int64_t i = 0; i < n; i++)
        L->mptr[L->agg[i] + 1]++;
    for (int64_t I = 0; I < nc; I++)
        L->mptr[I + 1] += L->mptr[I];
    int64_t *next = malloc((size_t)nc * sizeof *next);
    if (!next)
        return -1;
    memcpy(next, L->mptr, (size_t)nc * sizeof *next);
    for (int64_t i = 0; i < n; i++)
        L->mem[next[L->agg[i]]++] = (int32_t)i;
    free(next);
    return 0;
}

/* The pattern of A_c = P^T A P: row I holds its diagonal first, then
 * the aggregates with flows into I; cpos maps every fine nonzero to its
 * coarse one (inside an aggregate: the coarse diagonal, see galerkin). */
static int pattern(ml_level *L, ml_level *C, int64_t nc)
{
    const int64_t nnz = L->a.rowptr[L->a.n];
    int64_t *mark = malloc((size_t)nc * sizeof *mark);
    C->a.n = nc;
    C->a.rowptr = malloc(((size_t)nc + 1) * sizeof *C->a.rowptr);
    C->a.col = malloc((size_t)(nnz + nc) * sizeof *C->a.col);
    C->dpos = malloc((size_t)nc * sizeof *C->dpos);
    free(L->cpos);
    L->cpos = malloc((size_t)(nnz ? nnz : 1) * sizeof *L->cpos);
    if (!mark || !C->a.rowptr || !C->a.col || !C->dpos || !L->cpos) {
        free(mark);
        return -1;
    }
    for (int64_t I = 0; I < nc; I++)
        mark[I] = -1;
    int64_t k = 0;
    for (int64_t I = 0; I < nc; I++) {
        C->a.rowptr[I] = k;
        C->dpos[I] = k;
        mark[I] = k;
        C->a.col[k++] = (int32_t)I;
        for (int64_t t = L->mptr[I]; t < L->mptr[I + 1]; t++) {
            const int64_t i = L->mem[t];
            for (int64_t p = L->a.rowptr[i]; p < L->a.rowptr[i + 1]; p++) {
                const int32_t J = L->agg[L->a.col[p]];
                if (J == I) {
                    L->cpos[p] = (int32_t)C->dpos[I];
                    continue;
                }
                if (mark[J] < C->a.rowptr[I]) {
                    mark[J] = k;
                    C->a.col[k++] = J;
                }
                L->cpos[p] = (int32_t)mark[J];
            }
        }
    }
    C->a.rowptr[nc] = k;
    free(mark);
    int32_t *col = realloc(C->a.col, (size_t)k * sizeof *col);
    if (col)
        C->a.col = col;
    C->a.val = malloc((size_t)k * sizeof *C->a.val);
    C->x = malloc((size_t)nc * sizeof *C->x);
    if (!C->a.val || !C->x)
        return -1;
    if (nc >= SAN_LS_PAR_MIN && !(C->xo = malloc((size_t)nc * sizeof *C->xo)))
        return -1;
    return 0;
}

/* Fine rows [lo, hi) of L added into the coarse values cv.  Streaming
 * the fine rows in order matters: walking them by aggregate (members)
 * jumped between rows, defeated the prefetcher and took 36% of a solve
 * on rs 20 processes, three times the sweeps' share. */
static void galerkin_rows(const ml_level *L, const ml_level *C, double *restrict cv,
                          int64_t lo, int64_t hi)
{
    const int64_t *restrict rp = L->a.rowptr;
    const int32_t *restrict ci = L->a.col, *restrict cp = L->cpos;
    const double *restrict v = L->a.val, *restrict x = L->x;
    (void)C;
    for (int64_t i = lo; i < hi; i++)
        for (int64_t p = rp[i]; p < rp[i + 1]; p++)
            cv[cp[p]] += v[p] * x[ci[p]];
}

/* The values of A_c under L's iterate: off-diagonal entries summed from
 * the fine flows (one pass over the fine nonzeros; each thread its share
 * of the rows into its own copy, added after), then each diagonal minus
 * the outflows of its aggregate.  When x is 0 in a whole aggregate
 * (underflow) its column is 0. */
static int galerkin(ml_ws *w, const ml_level *L, ml_level *C)
{
    const int64_t nc = C->a.n, cnz = C->a.rowptr[nc], n = L->a.n;
    int nt = threads_for(w, n);
    double *restrict cv = C->a.val;
    if (nt > 1 && (size_t)(nt - 1) * (size_t)cnz > w->tlen) {
        free(w->tbuf);
        w->tlen = 0;
        w->tbuf = malloc((size_t)(nt - 1) * (size_t)cnz * sizeof *w->tbuf);
        if (!w->tbuf)
            nt = 1;
        else
            w->tlen = (size_t)(nt - 1) * (size_t)cnz;
    }
    if (nt <= 1) {
        memset(cv, 0, (size_t)cnz * sizeof *cv);
        galerkin_rows(L, C, cv, 0, n);
    } else {
        SAN_OMP(omp parallel num_threads(nt))
        {
            int t = 0;
#ifdef _OPENMP
            t = omp_get_thread_num();
#endif
            double *mine = t == 0 ? cv : w->tbuf + (size_t)(t - 1) * (size_t)cnz;
            memset(mine, 0, (size_t)cnz * sizeof *mine);
            galerkin_rows(L, C, mine, n * t / nt, n * (t + 1) / nt);
            SAN_OMP(omp barrier)
            SAN_OMP(omp for schedule(static))
            for (int64_t q = 0; q < cnz; q++)
                for (int u = 1; u < nt; u++)
                    cv[q] += w->tbuf[(size_t)(u - 1) * (size_t)cnz + (size_t)q];
        }
    }
    for (int64_t I = 0; I < nc; I++)
        cv[C->dpos[I]] = 0;
    for (int64_t I = 0; I < nc; I++)
        for (int64_t q = C->a.rowptr[I]; q < C->a.rowptr[I + 1]; q++)
            if (q != C->dpos[I])
                cv[C->dpos[C->a.col[q]]] -= cv[q];
    return 0;
}

/* Level l + 1 from l's iterate: aggregates, members, pattern.  Sets
 * w->nlev (l + 1 when coarsening stalls: l is then the coarsest).
 * 0, or -1 out of memory. */
static int setup(ml_ws *w, int l)
{
    ml_level *L = &w->lv[l];
    levels_free(w, l + 1);
    w->nlev = l + 1;
    if (l + 1 >= ML_MAX_LEVELS || L->a.n <= ML_COARSEST)
        return 0;
    int64_t nc = aggregate(w, L);
    if (nc < 0)
        return -1;
    if (nc <= 1 || (double)nc > ML_STALL * (double)L->a.n)
        return 0;
    if (members(L, nc) < 0 || pattern(L, &w->lv[l + 1], nc) < 0)
        return -1;
    w->nlev = l + 2;
    return 0;
}

/* ------------------------------------------------------------------ */
/* The cycle                                                            */
/* ------------------------------------------------------------------ */

/* The coarsest level: GTH when small (dense, a[i][j] the rate i -> j),
 * else sweeps; sweeps too when GTH finds the level reducible (an
 * aggregate without mass). */
static void coarsest(ml_ws *w, ml_level *L)
{
    const int64_t n = L->a.n;
    if (n <= ML_COARSEST && w->dense) {
        double *a = w->dense, *z = w->dense + n * n;
        memset(a, 0, (size_t)(n * n) * sizeof *a);
        for (int64_t j = 0; j < n; j++)
            for (int64_t p = L->a.rowptr[j]; p < L->a.rowptr[j + 1]; p++)
                if (p != L->dpos[j])
                    a[(int64_t)L->a.col[p] * n + j] += L->a.val[p];
        if (num_gth_dense(a, n, z) == 0) {
            memcpy(L->x, z, (size_t)n * sizeof *z);
            return;
        }
    }
    for (int k = 0; k < ML_COARSE_SWEEPS; k++)
        sweep(w, L, k % 2);
}

static int cycle(ml_ws *w, int l, int rebuild)
{
    ml_level *L = &w->lv[l];
    if (l == w->nlev - 1 && !rebuild) {
        coarsest(w, L);
        return 0;
    }
    for (int k = 0; k < ML_PRE; k++)
        sweep(w, L, 0);
    if (rebuild && setup(w, l) < 0)
        return -1;
    if (l == w->nlev - 1) {
        coarsest(w, L);
        return 0;
    }
    ml_level *C = &w->lv[l + 1];
    galerkin(w, L, C);
    for (int64_t I = 0; I < C->a.n; I++)
        C->x[I] = 1;
    for (int g = 0; g < ML_GAMMA; g++)
        if (cycle(w, l + 1, rebuild && g == 0) < 0)
            return -1;
    const int64_t n = L->a.n;
    SAN_OMP(omp parallel for num_threads(threads_for(w, n)) schedule(static))
    for (int64_t i = 0; i < n; i++)
        L->x[i] *= C->x[L->agg[i]];
    for (int k = 0; k < ML_POST; k++)
        sweep(w, L, 1);
    if (l > 0)
        normalize(w, L->x, n, (double)n);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The kernel                                                           */
/* ------------------------------------------------------------------ */

/* Level 0 over c->qt, its iterate pi: the pattern's diagonals and the
 * scratch once (a kept workspace has them from its first solve). */
static int ws_init(ml_ws *w, num_ls *c, double *pi)
{
    const san_csr *qt = c->qt;
    const int64_t n = qt->n;
    ml_level *L = &w->lv[0];
    L->a = *qt;
    L->x = pi;
    if (w->dense)
        return 0;
    w->nt = 1;
#ifdef _OPENMP
    w->nt = omp_get_max_threads();
#endif
    L->dpos = malloc((size_t)n * sizeof *L->dpos);
    w->dense = malloc((size_t)(ML_COARSEST * ML_COARSEST + ML_COARSEST) * sizeof *w->dense);
    if (!L->dpos || !w->dense)
        return -1;
    if (n >= SAN_LS_PAR_MIN && !(L->xo = malloc((size_t)n * sizeof *L->xo)))
        return -1;
    for (int64_t j = 0; j < n; j++)
        L->dpos[j] = num_ls_diag_pos(qt, j);
    w->nlev = 1;
    return 0;
}

static void ws_free(ml_ws *w)
{
    levels_free(w, 0);
    free(w->dense);
    free(w->tbuf);
}

static int out_of_memory(num_ls *c)
{
    snprintf(c->info->msg, sizeof c->info->msg, "out of memory for the levels of the "
             "multilevel method (%lld states)", (long long)c->qt->n);
    c->info->status = SAN_E_NOMEM;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Top-level acceleration: iterant recombination                        */
/* ------------------------------------------------------------------ */

/* The best combination of the current iterate and the last ones in the
 * least-squares norm of the balance of every state relative to its
 * flows, taken when it is a distribution of better balance
 * (recombine.c).  The sparse ml reads -q_jj where the transposed
 * generator keeps it (level 0's dpos): no vector more. */
typedef struct {
    num_rec w;                      /* the last iterates and their A x */
    double *y0;                     /* A x0 */
} ml_recomb;

static int recomb_init(ml_recomb *r, int64_t n)
{
    int rc = num_rec_init(&r->w, n);
    r->y0 = malloc((size_t)n * sizeof *r->y0);
    return rc < 0 || !r->y0 ? -1 : 0;
}

static void recomb_free(ml_recomb *r)
{
    free(r->y0);
    num_rec_free(&r->w);
}

/* The largest relative change of a probability above the floor since
 * the last iterate kept (HUGE_VAL before there is one).  Balance alone
 * is not enough to stop: on a birth-death chain of 20,001 states whose
 * wells are separated by barriers of probability 1e-80, every state was
 * in balance to 1e-12 (the barrier states held to the absolute floor)
 * while the wells' masses were still wrong by orders of magnitude and
 * moving by 1e-2..1e-4 a cycle.  The change must fall below tol, or
 * below ML_CHANGE_TOL times tol when it has stopped halving for
 * ML_CHANGE_STALL cycles: at the roundoff floor probabilities keep
 * moving by 2e-12 relative a cycle on rs 20 processes (tol 1e-12).
 * Stopping at 1e3 tol while the change still fell left a 20,001-state
 * random walk 3e-8 off (contraction 0.95 a cycle), within the checks. */
#define ML_CHANGE_TOL 1e3
#define ML_CHANGE_STALL 5
static double change(const num_ls *c, const ml_recomb *r, const double *x)
{
    const double *xp = num_rec_last(&r->w);
    return xp ? num_rec_change(x, xp, c->op->n, c->op->par_min) : HUGE_VAL;
}

/* The two measures of an iterate x with balance y = A x: the residual
 * every method is judged by (op.h, relative to the largest flow) and the
 * balance of every state relative to its own flows (verify.c's test;
 * the probabilities below SAN_PROB_FLOOR held to an absolute accuracy).
 * The second one decides on chains of rare states: on the repairable
 * cluster of 64 workstations a residual of 4e-18 still left blocks of
 * rare states 2e-11 off. */
typedef struct { double res, bal; } ml_quality;

/* The quality of x (summing to 1) from y = A x. */
static ml_quality quality_of(num_ls *c, const num_rec_diag *dg, const double *x,
                             const double *y)
{
    const int64_t n = c->op->n;
    double xmax = 0, ymax = 0, bal = 0;
    SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static) reduction(max:xmax, ymax, bal))
    for (int64_t i = 0; i < n; i++) {
        xmax = x[i] > xmax ? x[i] : xmax;
        ymax = fabs(y[i]) > ymax ? fabs(y[i]) : ymax;
        double bi = num_state_balance(y[i], x[i], num_rec_negd(dg, i), SAN_PROB_FLOOR);
        bal = bi > bal ? bi : bal;
    }
    num_op_stats st = { 1.0, xmax, 0 };
    ml_quality q = { num_resid_value(ymax, c->op->maxd, &st), bal };
    if (q.bal != q.bal)
        q.bal = HUGE_VAL;
    return q;
}

/* The workspace: the levels, the recombination's window and A x, the
 * best iterate, and the cycles run over its life (the aggregates are
 * rebuilt in the first ML_SETUP_CYCLES of them). */
struct num_ml {
    ml_ws w;
    ml_recomb r;
    num_ls_best best;
    long cycles;
};

num_ml *num_ml_new(void)
{
    return calloc(1, sizeof(num_ml));
}

void num_ml_free(num_ml *m)
{
    if (!m)
        return;
    ws_free(&m->w);
    recomb_free(&m->r);
    num_ls_best_free(&m->best);
    free(m);
}

/* The vectors of a solve of n states (once), the window and the best
 * iterate emptied (a kept workspace's come from another chain). */
static int ml_start(num_ml *m, num_ls *c, double *pi)
{
    const int64_t n = c->qt->n;
    if (ws_init(&m->w, c, pi) < 0)
        return -1;
    if (!m->r.y0) {
        if (recomb_init(&m->r, n) < 0)
            return -1;
        num_ls_best_init(&m->best, n);
    }
    m->r.w.k = 0;
    m->r.w.next = 0;
    m->best.res = HUGE_VAL;
    return 0;
}

int num_ls_ml(num_ls *c, double *pi)
{
    num_ml *m = num_ml_new();
    int rc = m ? num_ls_ml_kept(c, pi, m) : out_of_memory(c);
    num_ml_free(m);
    return rc;
}

int num_ls_ml_kept(num_ls *c, double *pi, num_ml *m)
{
    const int64_t n = c->qt->n;
    ml_ws *const w = &m->w;
    ml_recomb *const r = &m->r;
    num_ls_best *const best = &m->best;
    double res = HUGE_VAL;
    long it = 0, recombined = 0, ch_since = 0;
    double ch_best = HUGE_VAL;
    int rc;
    if (ml_start(m, c, pi) < 0)
        return out_of_memory(c);
    const num_rec_diag dg = { c->qt->val, w->lv[0].dpos };
    for (;;) {
        if (cycle(w, 0, m->cycles < ML_SETUP_CYCLES) < 0)
            return out_of_memory(c);
        it++;
        m->cycles++;
        if (normalize(w, pi, n, 1.0) < 0) {
            num_ls_best_restore(best, pi, HUGE_VAL);
            snprintf(c->info->msg, sizeof c->info->msg, "ml broke down after %ld "
                     "cycles (the iterate does not sum to a positive number)", it);
            rc = best->res < HUGE_VAL ? 1 : -1;
            break;
        }
        num_ls_oracle(c, pi, it);
        num_op_apply(c->op, pi, r->y0);
        ml_quality q = quality_of(c, &dg, pi, r->y0);
        if ((q.res > c->tol || q.bal > c->tol) )
            recombined += num_rec_combine(&r->w, c->op, &dg, pi, r->y0, &q.res, &q.bal);
        res = q.res;
        /* a chain solved by GTH on level 0 has nothing to watch */
        double ch = w->nlev == 1 && n <= ML_COARSEST ? 0 : change(c, r, pi);
        if (ch < 0.5 * ch_best) {
            ch_best = ch;
            ch_since = 0;
        } else {
            ch_since++;
        }
        const int settled = ch <= c->tol ||
                            (ch <= ML_CHANGE_TOL * c->tol && ch_since >= ML_CHANGE_STALL);
        if (q.res <= c->tol && q.bal <= c->tol && settled) {
            rc = 0;
            break;
        }
        num_rec_push(&r->w, pi, r->y0, n);
        num_ls_best_offer(best, pi, res);
        num_ls_stop why = num_ls_poll(c, it, res);
        if (why) {
            res = num_ls_give_up(c, best, pi, why, it, res, "try --method auto (or iad, "
                                 "bicgstab), or raise --max-iter");
            rc = 1;
            break;
        }
    }
    num_ls_progress_end(c);
    if (getenv("SAN_ML_TRACE")) {
        fprintf(stderr, "ml: %ld cycles (%ld recombined), levels", it, recombined);
        for (int l = 0; l < w->nlev; l++)
            fprintf(stderr, " %lld/%lld", (long long)w->lv[l].a.n,
                    (long long)w->lv[l].a.rowptr[w->lv[l].a.n]);
        fprintf(stderr, "\n");
    }
    c->info->iterations = it;
    return rc;
}
