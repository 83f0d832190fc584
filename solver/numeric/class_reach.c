/*
 * class_reach.c - the probability of ending in each closed class of a
 * chain, from an initial distribution alpha: the expected time z spent
 * in each transient state solves z A = alpha_T (A = -Q restricted to the
 * transient states, restricted.c), and the flow z sends into a class,
 * sum over transient s of z[s] q[s][j] for j in the class, plus the
 * initial mass already in it, is the probability of entering it.
 *
 * The error of those probabilities is estimated by one step of
 * iterative refinement: the residual r = alpha_T - z A, accumulated in
 * long double, solved for the correction dz (dz A = r); the flow dz
 * sends into a class is how far its probability moves, taken as its
 * error, with the rounding of the sums (a few ulps of each term) added.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "solver/numeric/class_reach.h"
#include "solver/numeric/restricted.h"

/* prob[c] += the flow x (over the transient states, numbered by map)
 * sends into each class; mag[c] (NULL: not kept) += its terms' sizes. */
static void flow_into(const san_csr *q, const int32_t *cls, const int64_t *map,
                      const double *x, double *prob, double *mag)
{
    for (int64_t s = 0; s < q->n; s++) {
        if (map[s] < 0)
            continue;
        for (int64_t k = q->rowptr[s]; k < q->rowptr[s + 1]; k++) {
            const int32_t c = cls[q->col[k]];
            if (c < 0)
                continue;
            prob[c] += x[map[s]] * q->val[k];
            if (mag)
                mag[c] += fabs(x[map[s]] * q->val[k]);
        }
    }
}

/* r = b - x A over the transient states, A = -Q restricted to them. */
static void residual(const san_csr *q, const int64_t *map, int64_t nu, const double *b,
                     const double *x, double *r)
{
    long double *acc = calloc((size_t)(nu ? nu : 1), sizeof *acc);
    if (!acc) {         /* no refinement: the correction taken as 0 */
        for (int64_t i = 0; i < nu; i++)
            r[i] = 0;
        return;
    }
    for (int64_t i = 0; i < nu; i++)
        acc[i] = b[i];
    for (int64_t s = 0; s < q->n; s++) {
        if (map[s] < 0)
            continue;
        for (int64_t k = q->rowptr[s]; k < q->rowptr[s + 1]; k++) {
            const int64_t j = map[q->col[k]];
            if (j >= 0)         /* (x A)[j] = sum_s x[s] (-q[s][j]) */
                acc[j] += (long double)x[map[s]] * q->val[k];
        }
    }
    for (int64_t i = 0; i < nu; i++)
        r[i] = (double)acc[i];
    free(acc);
}

int num_class_reach(const san_csr *q, const int32_t *cls, int64_t K, const double *init,
                    double *prob, double *err, double *resid, char *msg, size_t msgn)
{
    const int64_t n = q->n;
    for (int64_t c = 0; c < K; c++) {
        prob[c] = 0;
        if (err)
            err[c] = 0;
    }
    if (resid)
        *resid = 0;
    int64_t nu = 0;
    int64_t *map = malloc((size_t)(n ? n : 1) * sizeof *map);
    if (!map) {
        snprintf(msg, msgn, "out of memory for the reach probabilities of %lld states",
                 (long long)n);
        return -1;
    }
    for (int64_t s = 0; s < n; s++) {
        map[s] = cls[s] < 0 ? nu++ : -1;
        if (cls[s] >= 0)
            prob[cls[s]] += init[s];
    }
    if (nu == 0) {
        free(map);
        return 0;
    }
    double *b = malloc((size_t)nu * sizeof *b), *z = malloc((size_t)nu * sizeof *z);
    double *r = malloc((size_t)nu * sizeof *r), *dz = malloc((size_t)nu * sizeof *dz);
    double *mag = calloc((size_t)(K ? K : 1), sizeof *mag);
    int rc = -1;
    if (!b || !z || !r || !dz || !mag) {
        snprintf(msg, msgn, "out of memory for the reach probabilities of %lld transient "
                 "states", (long long)nu);
        goto out;
    }
    for (int64_t s = 0; s < n; s++)
        if (map[s] >= 0)
            b[map[s]] = init[s];
    if (num_restricted_solve(q, map, nu, b, z, 1, resid, msg, msgn) < 0)
        goto out;
    flow_into(q, cls, map, z, prob, mag);
    if (err) {
        residual(q, map, nu, b, z, r);
        if (num_restricted_solve(q, map, nu, r, dz, 1, NULL, msg, msgn) < 0)
            goto out;
        double *dp = calloc((size_t)(K ? K : 1), sizeof *dp);
        if (!dp) {
            snprintf(msg, msgn, "out of memory for the reach probabilities' error");
            goto out;
        }
        flow_into(q, cls, map, dz, dp, NULL);
        for (int64_t c = 0; c < K; c++)
            err[c] = fabs(dp[c]) + 4 * DBL_EPSILON * (mag[c] + prob[c]);
        free(dp);
    }
    rc = 0;
out:
    free(map);
    free(b);
    free(z);
    free(r);
    free(dz);
    free(mag);
    return rc;
}
