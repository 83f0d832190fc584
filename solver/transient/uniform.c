/*
 * uniform.c - x e^{Q t} by uniformization over an operator (transient.h).
 *
 * Each interval dt is one Poisson(L dt) series: v_0 = x, v_{k+1} = v_k P,
 * acc = sum_{k=left..right} w_k v_k.  Times are advanced interval after
 * interval (pi(t2) from pi(t1)), so ten time points cost the products of
 * the last one plus a few square roots, not ten times as many.
 *
 * Steady-state detection: when max_j |v_{k+1} - v_k| <= ss_tol the
 * iterates have stopped moving, and every later term is taken as v_k:
 * acc += (1 - weights used) v_k (the rest of this interval's series).
 * L is set above the largest exit rate
 * (analysis/transient.c) so that P has a self-loop everywhere and is
 * aperiodic: with L equal to it, a two-state chain of equal rates gives
 * P = [[0,1],[1,0]], whose iterates never settle.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "solver/numeric/linsolve.h"
#include "solver/transient/transient.h"

double tr_unif_step(tr_unif *u, const double *v, double *y)
{
    num_op *op = u->op;
    const int64_t n = op->n;
    const double *src = v;
    if (u->absorb) {            /* absorbing rows: their mass does not move */
        SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static))
        for (int64_t j = 0; j < n; j++)
            u->xm[j] = u->absorb[j] ? 0 : v[j];
        src = u->xm;
    }
    num_op_apply(op, src, y);          /* y = v Q (masked) */
    const double a = 1 / u->rate;
    double m = 0, mass = 0, low = 0;
    SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static) reduction(max:m) \
            reduction(+:mass) reduction(min:low))
    for (int64_t j = 0; j < n; j++) {
        double d = a * y[j];
        y[j] = v[j] + d;
        mass += y[j];
        low = y[j] < low ? y[j] : low;
        d = fabs(d);
        m = d > m ? d : m;
    }
    u->steps++;
    if (u->red) {
        m = u->red->max(m);
        mass = u->red->sum(mass);
        low = -u->red->max(-low);
    }
    /* a distribution times a stochastic matrix is one: no entry below
     * zero, no mass made (the total of n entries rounds by n eps, and
     * every product may move the true total by a few eps: a march of
     * 10^5-10^8 products drifts past 1 + 1e-12 honestly; a passage's
     * percentile search of an M/M/1/89 was refused as diverged at
     * product 475,949 with a total of 1 + 1.6e-12) */
    const double drift = SAN_UNIF_DRIFT * (double)u->steps;
    int bad = low < -SAN_UNIF_ROUNDOFF || !(mass <= 1 + SAN_UNIF_ROUNDOFF + drift);
    if (bad && low >= -SAN_UNIF_ROUNDOFF && mass == mass) { /* (agreed over ranks) */
        const double n_all = u->red ? u->red->sum((double)n) : (double)n;
        bad = !(mass <= 1 + SAN_UNIF_ROUNDOFF + drift + n_all * DBL_EPSILON);
    }
    if (bad && !u->diverged) {
        u->diverged = 1;
        u->diverged_at = u->steps;
        u->bad_mass = mass;
        u->bad_min = low;
    }
    return m;
}

void tr_unif_diverged_text(const tr_unif *u, char *buf, size_t n)
{
    char mass[32] = "NaN";      /* past 1 by a hair: the excess, not a rounded 1 */
    if (u->bad_mass == u->bad_mass)
        snprintf(mass, sizeof mass, "1 %+.3g", u->bad_mass - 1);
    snprintf(buf, n, "the uniformization series left the probability distributions at "
             "product %ld (total mass %s, an entry of %.3g) with rate %.6g: the rate is "
             "below some state's exit rate, or the operator is not a generator; no result "
             "is given", u->diverged_at, mass, u->bad_min, u->rate);
}

static void axpy(const num_op *op, double w, const double *x, double *acc)
{
    const int64_t n = op->n;
    SAN_OMP(omp parallel for if(n >= op->par_min) schedule(static))
    for (int64_t j = 0; j < n; j++)
        acc[j] += w * x[j];
}

/* Should the series stop: a Ctrl-C or the deadline (the clock read
 * every 8 steps: a product of a few states costs less than the read).
 * Over ranks, both are looked at every 8 steps and agreed on, so that
 * every rank stops at the same step. */
static int stopped(const tr_unif *u, int64_t k)
{
    if (u->red) {
        if (k & 7)
            return 0;
        const int mine = (u->interrupt && *u->interrupt) ||
                         (u->deadline > 0 && san_now() > u->deadline);
        return u->red->max(mine) > 0;
    }
    if (u->interrupt && *u->interrupt)
        return 1;
    return u->deadline > 0 && (k & 7) == 0 && san_now() > u->deadline;
}

/* The time the integral has given its terms 0..k: sum_{i<=k} P(N > i)/L
 * over the kept weights. */
static double integ_given(const tr_fg *fg, double rate, int64_t k)
{
    double cum = 0, t = 0;
    for (int64_t i = 0; i <= k; i++) {
        if (i >= fg->left && i <= fg->right)
            cum += fg->w[i - fg->left];
        t += fmax(0, 1 - cum);
    }
    return t / rate;
}

int tr_unif_advance(tr_unif *u, double *x, double dt)
{
    num_op *op = u->op;
    const int64_t n = op->n;
    if (dt <= 0)
        return 0;
    if (u->ss_at >= 0) {        /* already stationary: nothing moves */
        u->elapsed += dt;
        return 0;
    }
    tr_fg fg;
    if (tr_fg_compute(u->rate * dt, u->eps, &fg) < 0)
        return -1;
    double *v = u->v, *y = u->y, *acc = u->acc;
    memcpy(v, x, n * sizeof *v);
    memset(acc, 0, n * sizeof *acc);
    double used = 0, cum = 0;      /* cum: Poisson CDF up to k */
    int stationary = 0;
    int64_t k = 0;
    for (k = 0; k <= fg.right; k++) {
        if (k >= fg.left) {
            axpy(op, fg.w[k - fg.left], v, acc);
            used += fg.w[k - fg.left];
            cum = used;
        }
        /* int_0^dt Poisson(k; L s) ds = P(N_{L dt} > k) / L */
        if (u->integ)
            axpy(op, fmax(0, 1 - cum) / u->rate, v, u->integ);
        if (k == fg.right)
            break;
        if (stopped(u, k)) {
            tr_fg_free(&fg);
            return 1;
        }
        double d = tr_unif_step(u, v, y);
        if (u->diverged) {
            tr_fg_free(&fg);
            return SAN_UNIF_DIVERGED;
        }
        double *t = v;
        v = y;
        y = t;
        if (u->ss_tol > 0 && d <= u->ss_tol) {
            /* the rest of the series is v: weights not yet added */
            axpy(op, fmax(0, 1 - used), v, acc);
            if (u->integ)           /* the time of the interval not yet given */
                axpy(op, fmax(0, dt - integ_given(&fg, u->rate, k)), v, u->integ);
            stationary = 1;
            break;
        }
    }
    memcpy(x, acc, n * sizeof *x);
    u->trunc_sum += fg.trunc;
    /* x itself stationary (its first step did not move it): the later
     * intervals are skipped.  A detection after k > 0 steps only says
     * that v_k, the chain after k jumps, is: x(t) = sum w_k v_k is not,
     * and the next interval starts its series again. */
    if (stationary && k == 0)
        u->ss_at = u->elapsed;
    u->elapsed += dt;
    tr_fg_free(&fg);
    return 0;
}

/* Mass of v outside the absorbing set. */
static double outside(const tr_unif *u, const double *v)
{
    const int64_t n = u->op->n;
    double s = 0;
    SAN_OMP(omp parallel for if(n >= u->op->par_min) schedule(static) reduction(+:s))
    for (int64_t j = 0; j < n; j++)
        if (!u->absorb[j])
            s += v[j];
    return u->red ? u->red->sum(s) : s;
}

/* Mass of v in the absorbing states of this kind (SAN_ABSORB_*). */
static double absorbed(const tr_unif *u, const double *v, char kind)
{
    const int64_t n = u->op->n;
    double s = 0;
    SAN_OMP(omp parallel for if(n >= u->op->par_min) schedule(static) reduction(+:s))
    for (int64_t j = 0; j < n; j++)
        if (u->absorb[j] == kind)
            s += v[j];
    return u->red ? u->red->sum(s) : s;
}

int tr_unif_mean(tr_unif *u, const double *x, double tol, double max_steps, double *mean,
                  double *reach, double *h)
{
    num_op *op = u->op;
    const int64_t n = op->n;
    double *v = u->v, *y = u->y;
    memcpy(v, x, n * sizeof *v);
    if (h)
        memset(h, 0, n * sizeof *h);
    double sum = 0, prev = -1, d = HUGE_VAL;
    *mean = HUGE_VAL;
    *reach = NAN;
    for (int64_t k = 0;; k++) {
        double m = outside(u, v);
        /* nothing moves and the mass outside does not shrink: it is held
         * where the target cannot be reached (a decay of 1e-14 a step
         * would still be absorption, in ~1e14 steps; the roundoff of the
         * sum is ~1e-16) */
        if (prev > 0 && prev - m <= 1e-14 * m && d <= 1e-13 * m && m > tol) {
            *reach = absorbed(u, v, SAN_ABSORB_TARGET);
            return SAN_UNIF_HELD;
        }
        if (h)
            for (int64_t j = 0; j < n; j++)
                if (!u->absorb[j])
                    h[j] += v[j] / u->rate;
        sum += m / u->rate;
        /* the mass outside decays by a ratio rho per step once the slow
         * mode dominates: the rest of the series is m rho / (1 - rho) / L */
        double rho = prev > 0 ? m / prev : 1;
        if (m == 0 || (rho < 1 && k > 8 && m * rho / (1 - rho) / u->rate <= tol * sum)) {
            /* mass ended where the target cannot be reached: T is
             * infinite with its probability, and P(reach) wants the
             * mass still outside below 1e-13 (not the mean's tol) */
            const double missed = absorbed(u, v, SAN_ABSORB_MISSED);
            if (missed == 0 || m <= 1e-13) {
                if (m > 0 && rho < 1)
                    sum += m * rho / (1 - rho) / u->rate;
                *mean = missed > 0 ? HUGE_VAL : sum;
                *reach = missed > 0 ? absorbed(u, v, SAN_ABSORB_TARGET) : 1;
                return 0;
            }
        }
        if ((double)k >= max_steps)
            return 2;
        if (stopped(u, k))
            return 1;
        prev = m;
        d = tr_unif_step(u, v, y);
        if (u->diverged)
            return SAN_UNIF_DIVERGED;
        double *t = v;
        v = y;
        y = t;
    }
}
