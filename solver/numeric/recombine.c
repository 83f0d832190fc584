/*
 * recombine.c - iterant recombination of the multilevel methods'
 * iterates (recombine.h says what; numeric/ml.c and kron/multilevel.c
 * record what it gains).  One copy for both storages: they differ only
 * in where -q_jj is read (num_rec_diag).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "solver/numeric/linsolve.h"
#include "solver/numeric/recombine.h"

#define W NUM_REC_WINDOW

int num_rec_init(num_rec *r, int64_t n)
{
    memset(r, 0, sizeof *r);
    for (int j = 0; j < W - 1; j++) {
        r->x[j] = malloc((size_t)n * sizeof *r->x[j]);
        r->y[j] = malloc((size_t)n * sizeof *r->y[j]);
        if (!r->x[j] || !r->y[j])
            return -1;
    }
    return 0;
}

void num_rec_free(num_rec *r)
{
    for (int j = 0; j < W - 1; j++) {
        free(r->x[j]);
        free(r->y[j]);
    }
}

void num_rec_push(num_rec *r, const double *x, const double *y, int64_t n)
{
    memcpy(r->x[r->next], x, (size_t)n * sizeof *x);
    memcpy(r->y[r->next], y, (size_t)n * sizeof *y);
    r->next = (r->next + 1) % (W - 1);
    r->k += r->k < W - 1;
}

const double *num_rec_last(const num_rec *r)
{
    return r->k ? r->x[(r->next + W - 2) % (W - 1)] : NULL;
}

/* Solves the k x k system g b = h (k <= W - 1) by elimination with
 * partial pivoting; -1 when singular. */
static int small_solve(int k, double g[][W], double *h, double *b)
{
    for (int p = 0; p < k; p++) {
        int q = p;
        for (int i = p + 1; i < k; i++)
            if (fabs(g[i][p]) > fabs(g[q][p]))
                q = i;
        if (!(fabs(g[q][p]) > 0))
            return -1;
        for (int j = 0; j < k; j++) {
            double t = g[p][j]; g[p][j] = g[q][j]; g[q][j] = t;
        }
        double t = h[p]; h[p] = h[q]; h[q] = t;
        for (int i = p + 1; i < k; i++) {
            double f = g[i][p] / g[p][p];
            for (int j = p; j < k; j++)
                g[i][j] -= f * g[p][j];
            h[i] -= f * h[p];
        }
    }
    for (int p = k - 1; p >= 0; p--) {
        double t = h[p];
        for (int j = p + 1; j < k; j++)
            t -= g[p][j] * b[j];
        b[p] = t / g[p][p];
    }
    return 0;
}

/* The normal equations g b = h of min || D (y + sum_j b_j (y_j - y)) ||
 * with D = diag(1 / (d_i (x_i + floor))): the balance of every state
 * relative to its flows.  A row with d = 0 has no flows (the
 * descriptor's positions outside the reachable set) and is skipped: its
 * weight would be infinite.  Regularized by 1e-13 of the trace; -1 when
 * there is nothing to solve. */
static int normal_eqs(const num_rec *r, const num_op *op, const num_rec_diag *dg,
                      const double *x, const double *y, double g[][W], double *h)
{
    const int64_t n = op->n;
    const int k = r->k;
    double gg[W * W] = {0};
    double *const *Y = r->y;
    SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static) reduction(+:gg[:W * W]))
    for (int64_t i = 0; i < n; i++) {
        const double d = num_rec_negd(dg, i);
        if (d == 0)
            continue;
        double dd[W - 1];
        const double wt = 1 / (d * (x[i] + SAN_PROB_FLOOR));
        for (int j = 0; j < k; j++)
            dd[j] = (Y[j][i] - y[i]) * wt;
        for (int j = 0; j < k; j++) {
            for (int l = 0; l <= j; l++)
                gg[j * W + l] += dd[j] * dd[l];
            gg[j * W + W - 1] -= dd[j] * y[i] * wt;
        }
    }
    double tr = 0;
    for (int j = 0; j < k; j++) {
        for (int l = 0; l <= j; l++)
            g[j][l] = g[l][j] = gg[j * W + l];
        h[j] = gg[j * W + W - 1];
        tr += g[j][j];
    }
    if (!(tr > 0) || !isfinite(tr))
        return -1;
    for (int j = 0; j < k; j++)
        g[j][j] += 1e-13 * tr;
    return 0;
}

int num_rec_combine(const num_rec *r, const num_op *op, const num_rec_diag *dg, double *x,
                    double *y, double *res, double *bal)
{
    const int64_t n = op->n;
    const int k = r->k;
    double g[W][W] = {{0}}, h[W] = {0}, b[W];
    if (k == 0 || !dg->val)
        return 0;
    if (normal_eqs(r, op, dg, x, y, g, h) < 0 || small_solve(k, g, h, b) < 0)
        return 0;
    /* first pass: is the combination a distribution of better balance?
     * second: write it */
    double *const *X = r->x, *const *Y = r->y;
    double xmin = HUGE_VAL, xmax = 0, ymax = 0, nbal = 0;
    SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static) reduction(min:xmin) reduction(max:xmax, ymax, nbal))
    for (int64_t i = 0; i < n; i++) {
        double xs = x[i], ys = y[i];
        for (int j = 0; j < k; j++) {
            xs += b[j] * (X[j][i] - x[i]);
            ys += b[j] * (Y[j][i] - y[i]);
        }
        double bi = num_state_balance(ys, xs, num_rec_negd(dg, i), SAN_PROB_FLOOR);
        nbal = bi > nbal ? bi : nbal;
        xmin = xs < xmin ? xs : xmin;
        xmax = xs > xmax ? xs : xmax;
        ys = fabs(ys);
        ymax = ys > ymax ? ys : ymax;
    }
    num_op_stats st = { 1.0, xmax, 0 };
    const double nres = num_resid_value(ymax, op->maxd, &st);
    if (!(xmin >= 0) || !(nbal < *bal) || !(nres <= 2 * *res))
        return 0;
    SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static))
    for (int64_t i = 0; i < n; i++) {
        double xs = x[i], ys = y[i];
        for (int j = 0; j < k; j++) {
            xs += b[j] * (X[j][i] - x[i]);
            ys += b[j] * (Y[j][i] - y[i]);
        }
        x[i] = xs;
        y[i] = ys;
    }
    *res = nres;
    *bal = nbal;
    return 1;
}

double num_rec_change(const double *x, const double *xp, int64_t n, int64_t par_min)
{
    double ch = 0;
    SAN_OMP(omp parallel for if(n >= par_min) schedule(static) reduction(max:ch))
    for (int64_t i = 0; i < n; i++) {
        double m = fmax(x[i], xp[i]);
        double e = m > SAN_PROB_FLOOR ? fabs(x[i] - xp[i]) / m : 0;
        ch = e > ch ? e : ch;
    }
    return ch != ch ? HUGE_VAL : ch;
}
