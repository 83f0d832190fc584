/*
 * stationary.c - the classical iterations for pi Q = 0: power, Jacobi,
 * Gauss-Seidel/SOR.  All work row by row on the transposed generator qt,
 * where row j gives (x Q)_j = sum_i qt[j][i] x_i with one sparse dot.
 *
 * power   x <- x P, P = I + Q / Lambda, Lambda = 1.0001 max |q_jj|: the
 *         uniformized chain, aperiodic because Lambda exceeds every exit
 *         rate (so P has a positive diagonal).  Keeps x >= 0.
 * jacobi  x_j <- x_j - w (x Q)_j / q_jj, all j at once (JOR).  Plain
 *         Jacobi (w = 1) is power iteration on the embedded jump chain,
 *         which oscillates forever on periodic chains (every birth-death
 *         chain is one), so the default weight is 0.9; an explicit omega
 *         in (0,2) other than 1 is used as given.
 * gs      the same update in place, rows in order (SOR with omega).  The
 *         diagonal term uses the old x_j, so the update needs the whole
 *         row sum, found with the diagonal in a single pass.
 *
 * Power and Jacobi get the residual of their input for free (it is the
 * (x Q)_j they compute anyway) and so test it every sweep; Gauss-Seidel
 * pays one sparse product and tests every SAN_LS_CHECK_EVERY sweeps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linsolve.h"

#define JACOBI_DEFAULT_WEIGHT 0.9
#define UNIFORMIZATION_MARGIN 1.0001

typedef enum { PASS_POWER, PASS_JACOBI } pass_kind;

/* y = c (x + (x Q) / Lambda); returns max_j |(x Q)_j|, *ysum = sum(y). */
static double power_pass(const san_csr *qt, const double *restrict x,
                         double *restrict y, double inv_lambda, double c,
                         double *ysum)
{
    const int64_t n = qt->n;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    const double *restrict v = qt->val;
    double m = 0, s = 0;
    SAN_OMP(omp parallel for schedule(static) reduction(max:m) reduction(+:s))
    for (int64_t j = 0; j < n; j++) {
        double t = 0;
        for (int64_t p = rp[j]; p < rp[j + 1]; p++)
            t += v[p] * x[ci[p]];
        double yj = c * (x[j] + t * inv_lambda);
        y[j] = yj;
        s += yj;
        t = fabs(t);
        m = t > m ? t : m;
    }
    *ysum = s;
    return m;
}

/* y = c (x - w (x Q) / q_jj), the diagonal picked up in the same pass. */
static double jacobi_pass(const san_csr *qt, const double *restrict x,
                          double *restrict y, double w, double c,
                          double *ysum)
{
    const int64_t n = qt->n;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    const double *restrict v = qt->val;
    double m = 0, s = 0;
    SAN_OMP(omp parallel for schedule(static) reduction(max:m) reduction(+:s))
    for (int64_t j = 0; j < n; j++) {
        double t = 0, d = -1;
        for (int64_t p = rp[j]; p < rp[j + 1]; p++) {
            t += v[p] * x[ci[p]];
            d = ci[p] == j ? v[p] : d;
        }
        double yj = c * (x[j] - w * t / d);
        y[j] = yj;
        s += yj;
        t = fabs(t);
        m = t > m ? t : m;
    }
    *ysum = s;
    return m;
}

/* One forward SOR sweep in place: x_j <- x_j - w (x Q)_j / q_jj. */
static void gs_sweep(const san_csr *qt, double *restrict x, double w)
{
    const int64_t n = qt->n;
    const int64_t *restrict rp = qt->rowptr;
    const int32_t *restrict ci = qt->col;
    const double *restrict v = qt->val;
    for (int64_t j = 0; j < n; j++) {
        double t = 0, d = -1;
        for (int64_t p = rp[j]; p < rp[j + 1]; p++) {
            t += v[p] * x[ci[p]];
            d = ci[p] == j ? v[p] : d;
        }
        x[j] -= w * t / d;
    }
}

static const char *hint_for(san_method m)
{
    return m == SAN_M_GS ? "try --method gmres or raise --max-iter"
                         : "try --method gs or gmres, or raise --max-iter";
}

/* Stops an iteration that has not converged: the better of the current
 * and the best vector goes to x, the message says why. */
static int give_up(san_ls *c, san_ls_best *best, double *x, san_ls_stop why,
                   long it, double res)
{
    res = san_ls_best_restore(best, x, res);
    san_ls_stop_msg(c, why, it, res, hint_for(c->info->method));
    return 1;
}

static int diverged(san_ls *c, san_ls_best *best, double *x, long it)
{
    if (!best->x || !(best->res < HUGE_VAL)) {
        snprintf(c->info->msg, sizeof c->info->msg, "%s diverged after %ld "
                 "iterations (the iterate overflowed)",
                 san_method_name(c->info->method), it);
        return -1;
    }
    san_ls_best_restore(best, x, HUGE_VAL);
    snprintf(c->info->msg, sizeof c->info->msg, "%s diverged after %ld "
             "iterations; returning the best vector (residual %.2e)",
             san_method_name(c->info->method), it, best->res);
    return 1;
}

/* Power and Jacobi: two buffers, each pass also measuring its input. */
static int two_buffer_iterate(san_ls *c, double *pi, pass_kind kind,
                              double a)
{
    const san_csr *qt = c->qt;
    const int64_t n = qt->n;
    const double tol = c->o->tol;
    double *y = malloc((size_t)n * sizeof *y);
    double *x = pi, sx, sy, res = -1;
    san_ls_best best;
    long it = 0;
    int st;

    if (!y) {
        snprintf(c->info->msg, sizeof c->info->msg, "out of memory for a "
                 "second vector of %ld states", (long)n);
        return -1;
    }
    san_ls_best_init(&best, n);
    sx = san_ls_sum(x, n);
    for (;;) {
        /* c = 1/sum(x) keeps the iterates normalized at no cost. */
        double m = kind == PASS_POWER
                 ? power_pass(qt, x, y, a, 1.0 / sx, &sy)
                 : jacobi_pass(qt, x, y, a, 1.0 / sx, &sy);
        res = m / (c->maxd * sx);
        if (res <= tol) {
            st = 0;
            break;
        }
        if (!isfinite(sy) || !(sy > 0)) {
            st = diverged(c, &best, x, it);
            break;
        }
        if (it % SAN_LS_CHECK_EVERY == 0)
            san_ls_best_offer(&best, x, res);
        double *t = x;
        x = y;
        y = t;
        sx = sy;
        it++;
        san_ls_stop why = san_ls_poll(c, it, res);
        if (why) {
            res = san_ls_resid(qt, x, c->maxd, NULL);
            st = give_up(c, &best, x, why, it, res);
            break;
        }
    }
    if (x != pi)
        memcpy(pi, x, (size_t)n * sizeof *pi);
    free(x == pi ? y : x);
    san_ls_best_free(&best);
    c->info->iterations = it;
    return st;
}

int san_ls_power(san_ls *c, double *pi)
{
    return two_buffer_iterate(c, pi, PASS_POWER,
                              1.0 / (UNIFORMIZATION_MARGIN * c->maxd));
}

int san_ls_jacobi(san_ls *c, double *pi)
{
    double w = c->o->omega;
    if (!(w > 0 && w < 2) || w == 1.0)
        w = JACOBI_DEFAULT_WEIGHT;
    return two_buffer_iterate(c, pi, PASS_JACOBI, w);
}

int san_ls_gs(san_ls *c, double *pi)
{
    const san_csr *qt = c->qt;
    const int64_t n = qt->n;
    const double tol = c->o->tol, w = c->o->omega;
    double res = -1, s;
    san_ls_best best;
    long it = 0;
    int st;

    if (!(w > 0 && w < 2)) {
        snprintf(c->info->msg, sizeof c->info->msg, "omega %g outside "
                 "(0, 2): SOR cannot converge", w);
        return -1;
    }
    san_ls_best_init(&best, n);
    for (;;) {
        gs_sweep(qt, pi, w);
        it++;
        int checked = it % SAN_LS_CHECK_EVERY == 0;
        if (checked) {
            res = san_ls_resid(qt, pi, c->maxd, &s);
            if (res <= tol) {
                st = 0;
                break;
            }
            if (!isfinite(s) || !(s > 0)) {
                st = diverged(c, &best, pi, it);
                break;
            }
            /* Gauss-Seidel does not keep the sum: renormalize now and
             * then so that the iterate can neither overflow nor vanish. */
            san_ls_scale(pi, n, 1.0 / s);
            san_ls_best_offer(&best, pi, res);
        }
        san_ls_stop why = san_ls_poll(c, it, res);
        if (why) {
            if (!checked)
                res = san_ls_resid(qt, pi, c->maxd, NULL);
            if (res <= tol) {
                st = 0;
                break;
            }
            st = give_up(c, &best, pi, why, it, res);
            break;
        }
    }
    san_ls_best_free(&best);
    c->info->iterations = it;
    return st;
}
