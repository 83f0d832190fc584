/*
 * stationary.c - the classical iterations for pi Q = 0: power, Jacobi,
 * Gauss-Seidel/SOR.
 *
 * power   x <- x P, P = I + Q / Lambda, Lambda = 1.0001 max |q_jj|: the
 *         uniformized chain, aperiodic because Lambda exceeds every exit
 *         rate (so P has a positive diagonal).  Keeps x >= 0.
 * jacobi  x_j <- x_j - w (x Q)_j / q_jj, all j at once (JOR).  Plain
 *         Jacobi (w = 1) is power iteration on the embedded jump chain,
 *         which oscillates forever on periodic chains (every birth-death
 *         chain is one), so the default weight is 0.9; an explicit omega
 *         in (0,2) other than 1 is used as given.
 * gs      the same update in place, row after row (SOR with omega),
 *         sweeping forward and backward in turn (symmetric SOR).  The
 *         diagonal term uses the old x_j, so the update needs the whole
 *         row sum, found with the diagonal in a single pass.
 *
 * Power and Jacobi need only products x Q (op.h), so they run on both
 * storages; each sweep is one num_op_pass, which also measures its input
 * (the (x Q)_j it computes anyway), so they test the residual every
 * sweep.  Gauss-Seidel needs the rows of the transposed generator qt,
 * where row j gives (x Q)_j = sum_i qt[j][i] x_i with one sparse dot: it
 * is sparse-only, and pays one product for the residual every
 * SAN_LS_CHECK_EVERY sweeps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/numeric/linsolve.h"

#define JACOBI_DEFAULT_WEIGHT 0.9
#define UNIFORMIZATION_MARGIN 1.0001

/* The SOR update of one row in place: x_j <- x_j - w (x Q)_j / q_jj. */
static inline void sor_row(const int64_t *restrict rp,
                           const int32_t *restrict ci,
                           const double *restrict v, double *restrict x,
                           int64_t j, double w)
{
    double t = 0, d = -1;
    for (int64_t p = rp[j]; p < rp[j + 1]; p++) {
        t += v[p] * x[ci[p]];
        d = ci[p] == j ? v[p] : d;
    }
    /* w / d does not depend on x: computed apart, it keeps the division
     * off the chain x[j-1] -> x[j] that bounds the speed of a sweep. */
    const double r = w / d;
    x[j] -= t * r;
}

/* One SOR sweep, forward or backward.  A sweep carries information
 * across the whole chain in its own direction but only one transition
 * against it; alternating the two (symmetric Gauss-Seidel) serves chains
 * whose mass must flow either way along the state order, e.g. a long
 * birth-death chain started from uniform, which forward sweeps alone
 * take about n sweeps to fix when its mass sits at the low end. */
static void sor_sweep(const san_csr *qt, double *restrict x, double w,
                      int backward)
{
    const int64_t n = qt->n;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    const double *restrict v = qt->val;
    if (backward) {
        for (int64_t j = n - 1; j >= 0; j--) {
            sor_row(rp, ci, v, x, j, w);
            if (x[j] > SAN_LS_HUGE)
                num_ls_tame(x, n);
        }
    } else {
        for (int64_t j = 0; j < n; j++) {
            sor_row(rp, ci, v, x, j, w);
            if (x[j] > SAN_LS_HUGE)
                num_ls_tame(x, n);
        }
    }
}

/* What to try instead; the tensor path has no Gauss-Seidel. */
static const char *hint_for(const num_ls *c)
{
    if (!c->op->rows)
        return "try --method auto (or iad, bicgstab), or raise --max-iter";
    return c->info->method == SAN_M_GS
         ? "try --method auto (or iad, bicgstab), or raise --max-iter"
         : "try --method auto (or iad, gs), or raise --max-iter";
}


/* The sum of the iterate overflowed or stopped being positive (SOR with
 * too large an omega): the best vector seen, if any, is the answer. */
static int diverged(num_ls *c, num_ls_best *best, double *x, long it,
                    double sum)
{
    const char *name = san_method_name(c->info->method);
    if (!best->x || !(best->res < HUGE_VAL)) {
        snprintf(c->info->msg, sizeof c->info->msg, "%s diverged after %ld "
                 "iterations (the iterate sums to %g)", name, it, sum);
        return -1;
    }
    num_ls_best_restore(best, x, HUGE_VAL);
    snprintf(c->info->msg, sizeof c->info->msg, "%s diverged after %ld "
             "iterations (the iterate sums to %g); returning the best "
             "vector (residual %.2e)%s", name, it, sum, best->res,
             c->o->omega > 1 ? "; try a smaller omega" : "");
    return 1;
}

/* A stationary method's residual (looked at every SAN_LS_CHECK_EVERY
 * sweeps) that has not halved in this many sweeps while at the roundoff
 * floor will not reach a tol below it: the best vector goes to the
 * checks (num_ls_stalled). */
#define STALL_ITERS (5 * SAN_LS_CHECK_EVERY)

/* The kernel stops at its roundoff floor with its best vector in x. */
static int stalled(num_ls *c, num_ls_best *best, double *x, long it)
{
    double res = num_ls_best_restore(best, x, HUGE_VAL);
    snprintf(c->info->msg, sizeof c->info->msg, "%s stopped at its roundoff floor "
             "(residual %.2e) after %ld iterations", san_method_name(c->info->method),
             res, it);
    return 1;
}

/* Power and Jacobi: two buffers, each pass also measuring its input. */
static int two_buffer_iterate(num_ls *c, double *pi, int jacobi, double a)
{
    num_op *op = c->op;
    const int64_t n = op->n;
    const double tol = c->tol;
    double *y = malloc((size_t)n * sizeof *y);
    double *x = pi, sx, res = -1;
    num_op_stats st;
    num_ls_best best;
    long it = 0;
    int rc;

    if (!y) {
        snprintf(c->info->msg, sizeof c->info->msg, "out of memory for a "
                 "second vector of %lld states", (long long)n);
        c->info->status = SAN_E_NOMEM;
        return -1;
    }
    num_ls_stall stall;
    num_ls_stall_init(&stall);
    num_ls_best_init(&best, n);
    sx = num_op_sum(op, x);
    for (;;) {
        /* c = 1/sum(x) keeps the iterates normalized at no cost. */
        double m = num_op_pass(op, x, y, jacobi, a, 1.0 / sx, &st);
        res = num_resid_value(m, op->maxd, &st);
        if (res <= tol && it > 0) {     /* never the start vector as is */
            rc = 0;
            break;
        }
        if (!isfinite(st.ysum) || !(st.ysum > 0)) {
            rc = diverged(c, &best, x, it, st.ysum);
            break;
        }
        if (it % SAN_LS_CHECK_EVERY == 0) {
            num_ls_best_offer(&best, x, res);
            if (num_ls_stalled(c, &stall, it, res, STALL_ITERS)) {
                rc = stalled(c, &best, x, it);
                break;
            }
        }
        double *t = x;
        x = y;
        y = t;
        sx = st.ysum;
        it++;
        num_ls_oracle(c, x, it);
        num_ls_stop why = num_ls_poll(c, it, res);
        if (why) {
            res = num_op_residual(op, x, NULL);
            rc = res > tol;
            if (rc)
                num_ls_give_up(c, &best, x, why, it, res, hint_for(c));
            break;
        }
    }
    if (x != pi)
        memcpy(pi, x, (size_t)n * sizeof *pi);
    free(x == pi ? y : x);
    num_ls_best_free(&best);
    c->info->iterations = it;
    return rc;
}

int num_ls_power(num_ls *c, double *pi)
{
    return two_buffer_iterate(c, pi, 0,
                              1.0 / (UNIFORMIZATION_MARGIN * c->op->maxd));
}

int num_ls_jacobi(num_ls *c, double *pi)
{
    double w = c->o->omega;
    if (!(w > 0 && w < 2) || w == 1.0)
        w = JACOBI_DEFAULT_WEIGHT;
    return two_buffer_iterate(c, pi, 1, w);
}

void num_ls_gs_sweeps(const san_csr *qt, double *x, int sweeps)
{
    for (int k = 0; k < sweeps; k++) {
        sor_sweep(qt, x, 1.0, k % 2);
        double s = num_ls_sum(x, qt->n);
        if (!(s > 0) || !isfinite(s))
            return;
        num_ls_scale(x, qt->n, 1.0 / s);
    }
}

int num_ls_gs(num_ls *c, double *pi)
{
    const san_csr *qt = c->qt;
    const int64_t n = qt->n;
    const double tol = c->tol, w = c->o->omega;
    double res = -1;
    num_op_stats xs;
    num_ls_best best;
    long it = 0;
    int st;

    if (!(w > 0 && w < 2)) {
        snprintf(c->info->msg, sizeof c->info->msg, "omega %g outside "
                 "(0, 2): SOR cannot converge", w);
        return -1;
    }
    num_ls_stall stall;
    num_ls_stall_init(&stall);
    num_ls_best_init(&best, n);
    for (;;) {
        sor_sweep(qt, pi, w, it % 2 == 1);
        it++;
        num_ls_oracle(c, pi, it);
        /* the first sweep is checked too: a good guess (a warm start,
         * or a retry) stops there */
        int checked = it % SAN_LS_CHECK_EVERY == 0 || it == 1;
        if (checked) {
            res = num_op_residual(c->op, pi, &xs);
            if (res <= tol) {
                st = 0;
                break;
            }
            if (!isfinite(xs.xsum) || !(xs.xsum > 0)) {
                st = diverged(c, &best, pi, it, xs.xsum);
                break;
            }
            /* Gauss-Seidel does not keep the sum: renormalize now and
             * then so that the iterate can neither overflow nor vanish. */
            num_ls_scale(pi, n, 1.0 / xs.xsum);
            num_ls_best_offer(&best, pi, res);
            if (num_ls_stalled(c, &stall, it, res, STALL_ITERS)) {
                st = stalled(c, &best, pi, it);
                break;
            }
        }
        num_ls_stop why = num_ls_poll(c, it, res);
        if (why) {
            if (!checked)
                res = num_op_residual(c->op, pi, NULL);
            if (res <= tol) {
                st = 0;
                break;
            }
            num_ls_give_up(c, &best, pi, why, it, res, hint_for(c));
            st = 1;
            break;
        }
    }
    num_ls_best_free(&best);
    c->info->iterations = it;
    return st;
}
