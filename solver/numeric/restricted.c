/*
 * restricted.c - the linear systems of -Q restricted to a set of states
 * (internal to libsan; solver/props and class_reach.c): A x = b or
 * x A = b with A = -Q restricted to a set of states U (the rows and columns of U, each row's diagonal its whole
 * exit rate, so that what leaves U is what makes A nonsingular).
 *
 * These are the systems of reachability probabilities (P=? [a U b]:
 * U the states that reach b through a-states), of expected rewards until
 * a set (R=? [F b]), and of the expected time spent in the transient
 * states (x A = alpha: how likely each closed class is to be reached).
 * Every state of U leaves U with positive probability by construction,
 * so A is a nonsingular M-matrix: sparse LU (UMFPACK) with its iterative
 * refinement, the residual recomputed and reported.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>
#include "solver/numeric/restricted.h"

typedef SuiteSparse_long sslong;

int num_restricted_solve(const san_csr *q, const int64_t *map, int64_t nu, const double *b,
                         double *x, int transpose, double *resid, char *msg, size_t msgn)
{
    /* A's rows of U in compressed rows = compressed columns of A^T */
    sslong nnz = 0;
    for (int64_t s = 0; s < q->n; s++)
        if (map[s] >= 0)
            for (int64_t k = q->rowptr[s]; k < q->rowptr[s + 1]; k++)
                if (map[q->col[k]] >= 0)
                    nnz++;
    sslong *ap = malloc((size_t)(nu + 1) * sizeof *ap);
    sslong *ai = malloc((size_t)(nnz ? nnz : 1) * sizeof *ai);
    double *ax = malloc((size_t)(nnz ? nnz : 1) * sizeof *ax);
    if (!ap || !ai || !ax) {
        free(ap);
        free(ai);
        free(ax);
        snprintf(msg, msgn, "out of memory for the linear system of %lld states",
                 (long long)nu);
        return -1;
    }
    sslong k2 = 0;
    ap[0] = 0;
    for (int64_t s = 0; s < q->n; s++) {
        if (map[s] < 0)
            continue;
        for (int64_t k = q->rowptr[s]; k < q->rowptr[s + 1]; k++) {
            int64_t j = map[q->col[k]];
            if (j < 0)
                continue;
            ai[k2] = j;
            ax[k2] = -q->val[k];
            k2++;
        }
        ap[map[s] + 1] = k2;
    }
    double ctrl[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_dl_defaults(ctrl);
    ctrl[UMFPACK_PRL] = 0;
    void *sym = NULL, *num = NULL;
    int rc = 0;
    sslong st = umfpack_dl_symbolic(nu, nu, ap, ai, ax, &sym, ctrl, info);
    if (st == UMFPACK_OK)
        st = umfpack_dl_numeric(ap, ai, ax, sym, &num, ctrl, info);
    /* The matrix held is A^T (A's rows as columns): A x = b is its
     * transposed system, x A = b (A^T x = b) its own. */
    if (st == UMFPACK_OK)
        st = umfpack_dl_solve(transpose ? UMFPACK_A : UMFPACK_At, ap, ai, ax, x, b, num, ctrl,
                              info);
    if (st != UMFPACK_OK) {
        snprintf(msg, msgn, "the sparse LU of the linear system (%lld states) failed: "
                 "UMFPACK status %ld%s", (long long)nu, (long)st,
                 st == UMFPACK_ERROR_out_of_memory ? " (out of memory)" :
                 st == UMFPACK_WARNING_singular_matrix ? " (singular)" : "");
        rc = -1;
    }
    umfpack_dl_free_symbolic(&sym);
    umfpack_dl_free_numeric(&num);
    if (rc == 0 && resid) {
        /* max |A x - b| / (max |A| max |x| + max |b|), relative */
        double *r = calloc((size_t)(nu ? nu : 1), sizeof *r);
        double amax = 0, xmax = 0, bmax = 0, rmax = 0;
        if (!r) {
            *resid = NAN;
        } else {
            for (sslong c = 0; c < nu; c++)
                for (sslong k = ap[c]; k < ap[c + 1]; k++) {
                    /* entry A^T[ai][c] = A[c][ai] */
                    if (transpose)
                        r[ai[k]] += ax[k] * x[c];
                    else
                        r[c] += ax[k] * x[ai[k]];
                    amax = fmax(amax, fabs(ax[k]));
                }
            for (sslong i = 0; i < nu; i++) {
                rmax = fmax(rmax, fabs(r[i] - b[i]));
                xmax = fmax(xmax, fabs(x[i]));
                bmax = fmax(bmax, fabs(b[i]));
            }
            *resid = rmax / fmax(amax * xmax + bmax, 1e-300);
            free(r);
        }
    }
    free(ap);
    free(ai);
    free(ax);
    return rc;
}
