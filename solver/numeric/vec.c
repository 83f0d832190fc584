/*
 * vec.c - what the kernels do to whole vectors (sum, scale, tame), the
 * residual every method is judged by, and the equation a nonsingular
 * formulation fixes.  A leaf of solver/numeric/.
 */
#include <math.h>
#include "solver/numeric/linsolve.h"

/* The sum that normalizes a distribution is compensated (Neumaier:
 * each thread carries the roundoff of its additions and adds it at the
 * end).  The plain sum of rs 18/9's 155,382 probabilities (tol 1e-12)
 * was 2.0e-12 relative below the exact one, and dividing by it left
 * every probability 2e-12 too large (the index full off by 1.9e-12
 * against its closed form), above the error estimate of 2.7e-13. */
double num_ls_sum(const double *x, int64_t n)
{
    return num_sum_par(x, n, SAN_LS_PAR_MIN);
}

void num_ls_scale(double *x, int64_t n, double a)
{
    SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static))
    for (int64_t i = 0; i < n; i++)
        x[i] *= a;
}

double num_ls_tame(double *x, int64_t n)
{
    const double f = 1.0 / SAN_LS_HUGE;
    num_ls_scale(x, n, f);
    return f;
}

/* The largest |q_jj| over the rows that have a diagonal. */
static double csr_maxd(const san_csr *qt)
{
    const int64_t n = qt->n;
    double md = 0;
    SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static) reduction(max:md))
    for (int64_t j = 0; j < n; j++) {
        int64_t p = num_ls_diag_pos(qt, j);
        double d = p >= 0 ? fabs(qt->val[p]) : 0;
        md = d > md ? d : md;
    }
    return md;
}

/* The residual every method is judged by (op.c: num_resid_value). */
double san_ctmc_residual(const san_csr *qt, const double *pi)
{
    num_op op;
    num_op_csr(&op, qt, csr_maxd(qt));
    return num_op_residual(&op, pi, NULL);
}

int64_t num_ls_pick_fixed(const san_csr *qt, const double *guess)
{
    int64_t best = 0;
    double bw = -1;
    for (int64_t j = 0; j < qt->n; j++) {
        int64_t p = num_ls_diag_pos(qt, j);
        double w = p >= 0 ? fabs(qt->val[p]) : 0;
        if (guess)
            w *= guess[j];
        if (w > bw) {
            bw = w;
            best = j;
        }
    }
    return best;
}
