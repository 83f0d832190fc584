/*
 * gth.c - Grassmann-Taksar-Heyman elimination for small stiff chains.
 *
 * Gaussian elimination on the off-diagonal rates only: each pivot is the
 * sum of the rates leaving a state towards the states not yet
 * eliminated, computed by additions of positive numbers.  No diagonal is
 * ever formed by subtraction, so rates spanning 1e-6 to 1e6 lose nothing
 * (an LU on the generator keeps the small rate to about 1e-4 relative).
 * Dense, O(n^3): used for chains of at most SAN_GTH_MAX_N states.
 */
#include <stdlib.h>
#include <string.h>
#include "linsolve.h"

int san_ls_gth(san_ls *c, double *pi)
{
    const san_csr *qt = c->qt;
    const int64_t n = qt->n;
    double *a = calloc((size_t)(n * n), sizeof *a);   /* a[i*n+j] = Q[i][j], i != j */
    if (!a) {
        snprintf(c->info->msg, sizeof c->info->msg, "out of memory for GTH (%lld states)",
                 (long long)n);
        return -1;
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++)
            if (qt->col[t] != j)
                a[qt->col[t] * n + j] = qt->val[t];
    /* eliminate states n-1 .. 1, folding their flows into the others */
    for (int64_t k = n - 1; k > 0; k--) {
        double s = 0;
        for (int64_t j = 0; j < k; j++)
            s += a[k * n + j];
        if (!(s > 0)) {
            free(a);
            snprintf(c->info->msg, sizeof c->info->msg, "GTH: state %lld cannot reach the "
                     "states before it: the chain is not irreducible", (long long)k);
            return -1;
        }
        for (int64_t i = 0; i < k; i++) {
            double f = a[i * n + k] / s;
            if (f == 0)
                continue;
            for (int64_t j = 0; j < k; j++)
                a[i * n + j] += f * a[k * n + j];
        }
        a[k * n + k] = s;                       /* keep the pivot */
    }
    /* back substitution: pi_k = sum_{i<k} pi_i a[i][k] / s_k */
    pi[0] = 1;
    for (int64_t k = 1; k < n; k++) {
        double x = 0;
        for (int64_t i = 0; i < k; i++)
            x += pi[i] * a[i * n + k];
        pi[k] = x / a[k * n + k];
    }
    free(a);
    double sum = san_ls_sum(pi, n);
    for (int64_t i = 0; i < n; i++)
        pi[i] /= sum;
    return 0;
}
