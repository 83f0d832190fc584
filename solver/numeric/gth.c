/*
 * gth.c - Grassmann-Taksar-Heyman elimination for small stiff chains.
 *
 * Gaussian elimination on the off-diagonal rates only: each pivot is the
 * sum of the rates leaving a state towards the states not yet
 * eliminated, computed by additions of positive numbers.  No diagonal is
 * ever formed by subtraction, so rates spanning 1e-6 to 1e6 lose nothing
 * (an LU on the generator keeps the small rate to about 1e-4 relative):
 * every probability comes out with a relative error of a few n epsilon
 * (O'Cinneide, Numer. Math. 65, 1993).  Dense, O(n^3): the solver of
 * chains of at most SAN_GTH_MAX_N states, and of the coarse chains of
 * the aggregation (aggregate.c).  The back substitution starts from
 * pi_0 = 1: where state 0 is 1e-300 of the largest (a tandem queue's
 * empty state) the others overflow unless tamed (linsolve.h).
 */
#include <stdlib.h>
#include <string.h>
#include "solver/numeric/linsolve.h"

int num_gth_dense(double *a, int64_t n, double *pi)
{
    /* eliminate states n-1 .. 1, folding their flows into the others */
    for (int64_t k = n - 1; k > 0; k--) {
        double s = 0;
        for (int64_t j = 0; j < k; j++)
            s += a[k * n + j];
        if (!(s > 0))
            return (int)(k > INT32_MAX ? INT32_MAX : k);
        double *restrict ak = a + k * n;
        for (int64_t i = 0; i < k; i++) {
            double f = a[i * n + k] / s;
            if (f == 0)
                continue;
            double *restrict ai = a + i * n;
            for (int64_t j = 0; j < k; j++)
                ai[j] += f * ak[j];
        }
        a[k * n + k] = s;                       /* keep the pivot */
    }
    /* back substitution: pi_k = sum_{i<k} pi_i a[i][k] / s_k */
    pi[0] = 1;
    double sum = 1;
    for (int64_t k = 1; k < n; k++) {
        double x = 0;
        for (int64_t i = 0; i < k; i++)
            x += pi[i] * a[i * n + k];
        pi[k] = x / a[k * n + k];
        sum += pi[k];
        if (pi[k] > SAN_LS_HUGE) {      /* state 0 far below the others */
            sum *= num_ls_tame(pi, k + 1);
        }
    }
    for (int64_t i = 0; i < n; i++)
        pi[i] /= sum;
    return 0;
}

int num_ls_gth(num_ls *c, double *pi)
{
    const san_csr *qt = c->qt;
    const int64_t n = qt->n;
    double *a = calloc((size_t)(n * n), sizeof *a);   /* a[i*n+j] = Q[i][j], i != j */
    if (!a) {
        snprintf(c->info->msg, sizeof c->info->msg, "out of memory for GTH (%lld states)",
                 (long long)n);
        c->info->status = SAN_E_NOMEM;
        return -1;
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++)
            if (qt->col[t] != j)
                a[qt->col[t] * n + j] = qt->val[t];
    int k = num_gth_dense(a, n, pi);
    free(a);
    c->info->iterations = 0;
    if (k > 0) {
        c->final = 1;
        snprintf(c->info->msg, sizeof c->info->msg, "GTH: state %d cannot reach the "
                 "states before it: the chain is not irreducible", k);
        return -1;
    }
    return 0;
}
