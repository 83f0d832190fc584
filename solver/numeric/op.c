/*
 * op.c - the operator y = x Q (op.h): the counted products, the
 * residual, the sparse operator over the transposed generator, and the
 * vector helpers the kernels share.
 */
#include <math.h>
#include <stdlib.h>
#include <cblas.h>
#include "solver/numeric/linsolve.h"

/* cblas takes int lengths: longer vectors go in chunks of this. */
#define BLAS_CHUNK (1L << 30)

/* ------------------------------------------------------------------ */
/* The residual                                                         */
/* ------------------------------------------------------------------ */

double num_resid_scale(double maxd, const num_op_stats *st)
{
    /* maxd is 0 only on a one-state chain, where x Q = 0 */
    return (maxd > 0 ? maxd : 1) * st->xmax;
}

double num_resid_value(double m, double maxd, const num_op_stats *st)
{
    double s = num_resid_scale(maxd, st);
    if (m != m)
        return NAN;
    if (!(s > 0))
        return HUGE_VAL;
    return m / s;
}

double num_op_residual(num_op *op, const double *x, num_op_stats *st)
{
    num_op_stats tmp;
    if (!st)
        st = &tmp;
    double m = num_op_pass(op, x, NULL, 0, 0, 0, st);
    return num_resid_value(m, op->maxd, st);
}

double num_op_qjj(const num_op *op, int64_t j)
{
    if (op->diag)
        return op->diag[j];
    return op->rows->val[num_ls_diag_pos(op->rows, j)];
}

/* ------------------------------------------------------------------ */
/* Counted products                                                     */
/* ------------------------------------------------------------------ */

void num_op_apply(num_op *op, const double *x, double *y)
{
    double t = san_ls_now();
    op->apply(op, x, y);
    op->product_s += san_ls_now() - t;
    op->products++;
}

/* The sweep of num_op_pass over t = x Q already in op->w. */
static double sweep(const num_op *op, const double *restrict x,
                    double *restrict y, int jacobi, double a, double c,
                    num_op_stats *st)
{
    const int64_t n = op->n;
    const double *restrict t = op->w, *restrict dg = op->diag;
    double m = 0, xs = 0, xm = -HUGE_VAL, ys = 0;
    if (!y) {
        SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static) reduction(max:m, xm) reduction(+:xs))
        for (int64_t j = 0; j < n; j++) {
            double tj = fabs(t[j]);
            m = tj > m ? tj : m;
            xs += x[j];
            xm = x[j] > xm ? x[j] : xm;
        }
    } else {
        SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static) reduction(max:m, xm) reduction(+:xs, ys))
        for (int64_t j = 0; j < n; j++) {
            double tj = t[j], step;
            if (jacobi)
                step = dg[j] != 0 ? -a * tj / dg[j] : 0;
            else
                step = tj * a;
            double yj = c * (x[j] + step);
            y[j] = yj;
            ys += yj;
            tj = fabs(tj);
            m = tj > m ? tj : m;
            xs += x[j];
            xm = x[j] > xm ? x[j] : xm;
        }
    }
    st->xsum = xs;
    st->xmax = xm;
    st->ysum = ys;
    return m;
}

double num_op_pass(num_op *op, const double *x, double *y, int jacobi,
                   double a, double c, num_op_stats *st)
{
    double t0 = san_ls_now(), m;
    if (op->pass) {
        m = op->pass(op, x, y, jacobi, a, c, st);
        op->product_s += san_ls_now() - t0;
    } else {
        op->apply(op, x, op->w);
        op->product_s += san_ls_now() - t0;
        m = sweep(op, x, y, jacobi, a, c, st);
    }
    op->products++;
    return m;
}

/* ------------------------------------------------------------------ */
/* The sparse operator                                                  */
/* ------------------------------------------------------------------ */

/* Row j of qt is column j of Q: (x Q)_j is one sparse dot, the rows
 * split statically between threads. */
static void csr_apply(const num_op *op, const double *restrict x,
                      double *restrict y)
{
    const san_csr *qt = op->rows;
    const int64_t n = qt->n;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    const double *restrict v = qt->val;
    SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static))
    for (int64_t j = 0; j < n; j++) {
        double t = 0;
        for (int64_t p = rp[j]; p < rp[j + 1]; p++)
            t += v[p] * x[ci[p]];
        y[j] = t;
    }
}

/* The fused pass: the product, the power or Jacobi step and the
 * measures in one pass over the rows, the diagonal of the Jacobi step
 * picked up from the row on the way; no scratch vector, so that power
 * and Jacobi need only their two iterates. */
static double csr_pass(const num_op *op, const double *restrict x,
                       double *restrict y, int jacobi, double a, double c,
                       num_op_stats *st)
{
    const san_csr *qt = op->rows;
    const int64_t n = qt->n;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    const double *restrict v = qt->val;
    double m = 0, xs = 0, xm = -HUGE_VAL, ys = 0;
    if (!y) {
        SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static) reduction(max:m, xm) reduction(+:xs))
        for (int64_t j = 0; j < n; j++) {
            double t = 0;
            for (int64_t p = rp[j]; p < rp[j + 1]; p++)
                t += v[p] * x[ci[p]];
            t = fabs(t);
            m = t > m ? t : m;
            xs += x[j];
            xm = x[j] > xm ? x[j] : xm;
        }
    } else if (!jacobi) {
        SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static) reduction(max:m, xm) reduction(+:xs, ys))
        for (int64_t j = 0; j < n; j++) {
            double t = 0;
            for (int64_t p = rp[j]; p < rp[j + 1]; p++)
                t += v[p] * x[ci[p]];
            double yj = c * (x[j] + t * a);
            y[j] = yj;
            ys += yj;
            t = fabs(t);
            m = t > m ? t : m;
            xs += x[j];
            xm = x[j] > xm ? x[j] : xm;
        }
    } else {
        SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static) reduction(max:m, xm) reduction(+:xs, ys))
        for (int64_t j = 0; j < n; j++) {
            double t = 0, d = 0;
            for (int64_t p = rp[j]; p < rp[j + 1]; p++) {
                t += v[p] * x[ci[p]];
                d = ci[p] == j ? v[p] : d;
            }
            double yj = c * (x[j] - (d != 0 ? a * t / d : 0));
            y[j] = yj;
            ys += yj;
            t = fabs(t);
            m = t > m ? t : m;
            xs += x[j];
            xm = x[j] > xm ? x[j] : xm;
        }
    }
    st->xsum = xs;
    st->xmax = xm;
    st->ysum = ys;
    return m;
}

void num_op_csr(num_op *op, const san_csr *qt, double maxd)
{
    *op = (num_op){ 0 };
    op->n = qt->n;
    op->apply = csr_apply;
    op->pass = csr_pass;
    op->rows = qt;
    op->maxd = maxd;
    op->par_min = SAN_LS_PAR_MIN;
    op->blas_one_thread = 1;
    op->ctx = qt;
}

/* ------------------------------------------------------------------ */
/* Vectors                                                              */
/* ------------------------------------------------------------------ */

/* Compensated (vec.c says why): the kernel of num_ls_sum too */
double num_sum_par(const double *x, int64_t n, int64_t par_min)
{
    double s = 0, c = 0;
    SAN_OMP(omp parallel for if(n >= par_min) schedule(static) reduction(+:s, c))
    for (int64_t i = 0; i < n; i++) {
        const double t = s + x[i];
        c += fabs(s) >= fabs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
        s = t;
    }
    return s + c;
}

double num_op_sum(const num_op *op, const double *x)
{
    return num_sum_par(x, op->n, op->par_min);
}

void num_op_scale(const num_op *op, double *x, double a)
{
    const int64_t n = op->n;
    SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static))
    for (int64_t i = 0; i < n; i++)
        x[i] *= a;
}

double num_vdot(int64_t n, const double *x, const double *y)
{
    double s = 0;
    for (int64_t i = 0; i < n; i += BLAS_CHUNK) {
        int len = (int)(n - i < BLAS_CHUNK ? n - i : BLAS_CHUNK);
        s += cblas_ddot(len, x + i, 1, y + i, 1);
    }
    return s;
}

void num_vaxpy(int64_t n, double a, const double *x, double *y)
{
    for (int64_t i = 0; i < n; i += BLAS_CHUNK) {
        int len = (int)(n - i < BLAS_CHUNK ? n - i : BLAS_CHUNK);
        cblas_daxpy(len, a, x + i, 1, y + i, 1);
    }
}

double num_vnrm2(int64_t n, const double *x)
{
    if (n <= BLAS_CHUNK)
        return cblas_dnrm2((int)n, x, 1);
    double s = 0;
    for (int64_t i = 0; i < n; i += BLAS_CHUNK) {
        int len = (int)(n - i < BLAS_CHUNK ? n - i : BLAS_CHUNK);
        double t = cblas_dnrm2(len, x + i, 1);
        s += t * t;
    }
    return sqrt(s);
}
