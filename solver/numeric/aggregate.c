/*
 * aggregate.c - one aggregation-disaggregation step over a partition
 * (partition.h), on either storage.
 *
 * Given a vector x and a partition of the states into blocks S, the
 * coarse chain has one state per block and the rates
 *
 *     C[S][S'] = sum_{i in S} (x_i / b_S) sum_{j in S'} q_ij,
 *     b_S = sum_{i in S} x_i,
 *
 * the flows between blocks under x's distribution inside each block.
 * When x is the stationary vector, the stationary vector of C is b
 * exactly (weighted aggregation preserves it).  When x is in balance
 * inside the blocks but has the wrong mass on them - the error that
 * nearly decomposable chains hide from every residual test - C is still
 * right to first order and its stationary vector z gives the right
 * masses.  So
 *   - max_S |z_S - b_S| / z_S is the error of x along the partition
 *     (the check of verify.c), and
 *   - scaling each block of x by z_S / b_S removes it (the
 *     disaggregation of Koury, McAllister and Stewart's iterative
 *     aggregation-disaggregation; Stewart, "Introduction to the
 *     Numerical Solution of Markov Chains", 1994, ch. 6).
 * C is solved by GTH (gth.c): entrywise accurate whatever the spread of
 * the coarse rates, which is the point on stiff chains.
 *
 * The flows come from the transposed generator in one pass over its
 * nonzeros on the sparse path.  The tensor descriptor has no rows to
 * read: its storage walks its terms from the sources once (op->flows,
 * kron_flows), or, when it cannot, one product per block gives them (x
 * restricted to block S, times Q, summed by block).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "solver/numeric/linsolve.h"

struct num_agg_ws {
    int cap;                /* blocks the arrays below hold */
    double *F;              /* cap x cap flows, row-major */
    double *b, *z;          /* block masses, coarse solution */
    int *map;               /* coarse state of each block, -1: empty */
    double *C;              /* the coarse chain, dense */
    double *v, *y;          /* operator path: two vectors of n */
    double *tf;             /* sparse path: per thread, flows and masses */
    size_t tf_len;
};

void num_agg_free(num_agg_ws *w)
{
    if (!w)
        return;
    free(w->F);
    free(w->b);
    free(w->z);
    free(w->map);
    free(w->C);
    free(w->v);
    free(w->y);
    free(w->tf);
    free(w);
}

/* The workspace for partitions of up to nblk blocks (grown as needed). */
static num_agg_ws *agg_ws(num_ls *c, int nblk)
{
    num_agg_ws *w = c->agg;
    if (!w) {
        w = c->agg = calloc(1, sizeof *w);
        if (!w)
            return NULL;
    }
    if (nblk <= w->cap)
        return w;
    size_t B = (size_t)nblk;
    free(w->F);
    free(w->b);
    free(w->z);
    free(w->map);
    free(w->C);
    w->F = malloc(B * B * sizeof *w->F);
    w->C = malloc(B * B * sizeof *w->C);
    w->b = malloc(B * sizeof *w->b);
    w->z = malloc(B * sizeof *w->z);
    w->map = malloc(B * sizeof *w->map);
    w->cap = w->F && w->C && w->b && w->z && w->map ? nblk : 0;
    return w->cap ? w : NULL;
}

/* Flows between blocks and block masses from rows [lo, hi) of qt (row
 * j of qt holds q_ij for the i that lead to j), added to F and b. */
static void flows_rows_range(const san_csr *qt, const num_part *p, const double *x,
                             int64_t lo, int64_t hi, double *restrict F, double *restrict b)
{
    const int B = p->nblk;
    const uint16_t *restrict blk = p->blk;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    const double *restrict v = qt->val;
    for (int64_t j = lo; j < hi; j++) {
        const int bj = blk[j];
        b[bj] += x[j];
        for (int64_t t = rp[j]; t < rp[j + 1]; t++) {
            const int32_t i = ci[t];
            const int bi = blk[i];
            if (bi != bj)
                F[(size_t)bi * B + bj] += x[i] * v[t];
        }
    }
}

/* The same over all rows, on every core: each thread sums its own
 * share of the rows into its own F and b (in w->tf), then the shares
 * are added in thread order.  An aggregation pass is the cost of a
 * cycle of the refinement (37 passes a cycle on a 524,288-state nearly
 * decomposable model: 41% of the run on one thread). */
static int flows_rows(num_agg_ws *w, const san_csr *qt, const num_part *p, const double *x,
                      double *F, double *b)
{
    const int64_t n = qt->n;
    const size_t B = (size_t)p->nblk, len = B * B + B;
    int nt = 1;
#ifdef _OPENMP
    if (n >= SAN_LS_PAR_MIN)
        nt = omp_get_max_threads();
#endif
    if (nt <= 1) {
        flows_rows_range(qt, p, x, 0, n, F, b);
        return 0;
    }
    if ((size_t)nt * len > w->tf_len) {
        free(w->tf);
        w->tf = malloc((size_t)nt * len * sizeof *w->tf);
        w->tf_len = w->tf ? (size_t)nt * len : 0;
        if (!w->tf)
            return -1;
    }
    SAN_OMP(omp parallel num_threads(nt))
    {
        int t = 0, T = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        T = omp_get_num_threads();
#endif
        double *tF = w->tf + (size_t)t * len;
        memset(tF, 0, len * sizeof *tF);
        flows_rows_range(qt, p, x, n * t / T, n * (t + 1) / T, tF, tF + B * B);
    }
    for (int t = 0; t < nt; t++) {
        const double *tF = w->tf + (size_t)t * len;
        for (size_t k = 0; k < B * B; k++)
            F[k] += tF[k];
        for (size_t k = 0; k < B; k++)
            b[k] += tF[B * B + k];
    }
    return 0;
}

/* The same with one product per block over any operator. */
static void flows_op(num_op *op, const num_part *p, const double *x, double *F, double *b,
                     double *v, double *y)
{
    const int B = p->nblk;
    const int64_t n = op->n;
    const uint16_t *blk = p->blk;
    for (int64_t j = 0; j < n; j++)
        b[blk[j]] += x[j];
    for (int S = 0; S < B; S++) {
        if (!(b[S] > 0))
            continue;
        for (int64_t j = 0; j < n; j++)
            v[j] = blk[j] == S ? x[j] : 0;
        num_op_apply(op, v, y);
        double *row = F + (size_t)S * B;
        for (int64_t j = 0; j < n; j++)
            if (blk[j] != S)
                row[blk[j]] += y[j];
    }
}

/* The same in one pass when the operator can (op->flows), counted and
 * timed as a product.  0, or nonzero when it cannot. */
static int flows_fast(num_op *op, const num_part *p, const double *x, double *F, double *b)
{
    if (!op->flows)
        return 1;
    const int64_t n = op->n;
    const uint16_t *blk = p->blk;
    double t = san_ls_now();
    int rc = op->flows(op, blk, p->nblk, p->aut, p->naut, x, F);
    op->product_s += san_ls_now() - t;
    if (rc != 0)
        return rc;
    op->products++;
    for (int64_t j = 0; j < n; j++)
        b[blk[j]] += x[j];
    return 0;
}

int num_agg_cost(const num_op *op, const num_part *p)
{
    if (op->rows || (op->flows && op->flows(op, p->blk, p->nblk, p->aut, p->naut, NULL,
                                            NULL) == 0))
        return 1;
    return p->nblk;
}

int num_coarse_solve(int B, double *F, double *b, double *z, double *C, int *map)
{
    double tot = 0;
    int nb = 0;
    for (int S = 0; S < B; S++) {
        tot += b[S];
        map[S] = b[S] > 0 ? nb++ : -1;
    }
    if (nb < 2 || !(tot > 0))
        return 1;
    memset(C, 0, (size_t)nb * nb * sizeof *C);
    for (int S = 0; S < B; S++) {
        if (map[S] < 0)
            continue;
        for (int T = 0; T < B; T++)
            if (T != S && map[T] >= 0)
                C[(size_t)map[S] * nb + map[T]] = F[(size_t)S * B + T] / b[S];
    }
    double *zc = F;             /* the flows are no longer needed */
    if (num_gth_dense(C, nb, zc) != 0)
        return 1;
    for (int S = B - 1; S >= 0; S--)    /* zc[map[S]] <= S: backwards is safe */
        z[S] = map[S] >= 0 ? zc[map[S]] : 0;
    for (int S = 0; S < B; S++)
        b[S] /= tot;
    return 0;
}

double num_coarse_error(int B, const double *b, const double *z, const int *map)
{
    double worst = 0;
    for (int S = 0; S < B; S++) {
        if (map[S] < 0)
            continue;
        const double d = fabs(z[S] - b[S]) / (fmax(z[S], b[S]) + SAN_PROB_FLOOR);
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* The coarse chain of the blocks with mass, solved by GTH into w->z
 * (indexed by block, summing to 1); b normalized to sum 1 too.  0, or 1
 * when the coarse chain is not irreducible under x. */
static int coarse_solve(num_agg_ws *w, int B)
{
    return num_coarse_solve(B, w->F, w->b, w->z, w->C, w->map);
}

int num_agg_step(num_ls *c, const num_part *p, double *x, int apply, double *delta)
{
    const int B = p->nblk;
    num_agg_ws *w = agg_ws(c, B);
    *delta = 0;
    if (!w) {
        snprintf(c->info->msg, sizeof c->info->msg, "out of memory for the aggregation "
                 "of %s", p->what);
        c->info->status = SAN_E_NOMEM;
        return -1;
    }
    memset(w->F, 0, (size_t)B * B * sizeof *w->F);
    memset(w->b, 0, (size_t)B * sizeof *w->b);
    if (c->op->rows) {
        if (flows_rows(w, c->op->rows, p, x, w->F, w->b) < 0) {
            snprintf(c->info->msg, sizeof c->info->msg, "out of memory for the "
                     "aggregation of %s", p->what);
            c->info->status = SAN_E_NOMEM;
            return -1;
        }
    } else {
        int rc = flows_fast(c->op, p, x, w->F, w->b);
        if (rc > 0) {
            if (!w->v)
                w->v = malloc((size_t)c->op->n * sizeof *w->v);
            if (!w->y)
                w->y = malloc((size_t)c->op->n * sizeof *w->y);
            rc = w->v && w->y ? 0 : -1;
            if (rc == 0)
                flows_op(c->op, p, x, w->F, w->b, w->v, w->y);
        }
        if (rc < 0) {
            snprintf(c->info->msg, sizeof c->info->msg, "out of memory for the "
                     "aggregation of %s", p->what);
            c->info->status = SAN_E_NOMEM;
            return -1;
        }
    }
    if (coarse_solve(w, B) != 0)
        return 1;
    *delta = num_coarse_error(B, w->b, w->z, w->map);
    if (!apply)
        return 0;
    /* block S becomes z_S sum(x): x keeps its own scale */
    const int64_t n = c->op->n;
    double *f = w->C;                   /* reused: one factor per block */
    for (int S = 0; S < B; S++)
        f[S] = w->map[S] >= 0 ? w->z[S] / w->b[S] : 1;
    const uint16_t *blk = p->blk;
    SAN_OMP(omp parallel for if(n >= c->op->par_min) schedule(static))
    for (int64_t j = 0; j < n; j++)
        x[j] *= f[blk[j]];
    return 0;
}
