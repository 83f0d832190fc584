/*
 * correct.c - the error of an answer measured, not inferred: a
 * correction from the LU of the generator (direct.c), when it is cheap.
 *
 * The checks of verify.c (balance state by state, aggregation over the
 * partitions, the change of a further cycle) are indicators: on a long
 * birth-death chain the local errors that each pass add up along the
 * chain, and the answer's true error was 2 to 12 times the reported
 * estimate (tests/difftest/boundtest.py: M/M/1/K, K up to 2,000 with rho
 * near 1, a queue with phase-modulated arrivals, a tandem line with
 * blocking; every method, both storages).  The error e = pi - x solves
 *
 *     e Q = -x Q,   sum e = 1 - sum x,
 *
 * whose matrix is the chain's own: solved with its LU, e is x's error to
 * first order, whatever the chain's conditioning (the amplification that
 * no residual shows is in the solve).  The residual x Q is summed in long
 * double, so that the cancellation between a state's inflow and outflow
 * does not become the correction.  x + e is then the answer, and a second
 * correction from the same factors measures its error: the estimate.
 *
 * It is done where the LU costs less than the iterations it checks:
 * chains stored up to CORRECT_MAX_N states (or more, when their band
 * says the LU is cheap) with a factorization under CORRECT_MAX_FLOPS,
 * and chains on the descriptor up to PROBE_MAX_N states, whose
 * generator is read by one product per state.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/numeric/linsolve.h"

/* Stored chains: 20,000 states and 1e8 flops keep the factorization
 * well under the iterations it checks.  Measured on the default solve
 * (load 10, medians): ms async 8/40 lumped (3,118 states) 0.33 -> 0.43
 * s and 10 -> 17 MB; a 32,768-state tandem grid spent 0.3 s in the
 * symbolic analysis only to find the LU over the flop limit, so stored
 * chains past 20,000 states are not tried. */
#define CORRECT_MAX_N 20000
#define CORRECT_MAX_FLOPS 1e8
/* The descriptor: one product per state builds the generator. */
#define PROBE_MAX_N 4096

/* The transposed generator over the positions where d > 0 (pos[i]: the
 * vector position of compact state i), read from the operator one unit
 * vector at a time.  0 or -1. */
static int probe_rows(num_op *op, const double *d, san_csr *qt, int64_t *pos, int64_t m)
{
    const int64_t n = op->n;
    int64_t *at = malloc((size_t)n * sizeof *at);
    double *e = calloc((size_t)n, sizeof *e), *y = malloc((size_t)n * sizeof *y);
    int64_t *cnt = calloc((size_t)m + 1, sizeof *cnt);
    int64_t cap = 8 * m, nz = 0;
    int64_t *ti = malloc((size_t)cap * sizeof *ti), *tj = malloc((size_t)cap * sizeof *tj);
    double *tv = malloc((size_t)cap * sizeof *tv);
    int rc = -1;
    if (!at || !e || !y || !cnt || !ti || !tj || !tv)
        goto out;
    for (int64_t j = 0, i = 0; j < n; j++)
        at[j] = d[j] > 0 ? (pos[i] = j, i++) : -1;
    for (int64_t i = 0; i < m; i++) {
        e[pos[i]] = 1;
        num_op_apply(op, e, y);
        e[pos[i]] = 0;
        for (int64_t j = 0; j < n; j++) {
            if (y[j] == 0 || at[j] < 0)
                continue;
            if (nz == cap) {
                cap *= 2;
                int64_t *a = realloc(ti, (size_t)cap * sizeof *a);
                int64_t *b = a ? realloc(tj, (size_t)cap * sizeof *b) : NULL;
                double *v = b ? realloc(tv, (size_t)cap * sizeof *v) : NULL;
                ti = a ? a : ti;
                tj = b ? b : tj;
                tv = v ? v : tv;
                if (!v)
                    goto out;
            }
            ti[nz] = i;                 /* q_ij: row at[j] of qt */
            tj[nz] = at[j];
            tv[nz++] = y[j];
            cnt[at[j] + 1]++;
        }
    }
    qt->n = m;
    qt->rowptr = malloc((size_t)(m + 1) * sizeof *qt->rowptr);
    qt->col = malloc((size_t)(nz ? nz : 1) * sizeof *qt->col);
    qt->val = malloc((size_t)(nz ? nz : 1) * sizeof *qt->val);
    if (!qt->rowptr || !qt->col || !qt->val)
        goto out;
    qt->rowptr[0] = 0;
    for (int64_t j = 0; j < m; j++)
        qt->rowptr[j + 1] = qt->rowptr[j] + cnt[j + 1];
    memcpy(cnt, qt->rowptr, (size_t)m * sizeof *cnt);
    /* entries land in each row in increasing column order (i ascends) */
    for (int64_t t = 0; t < nz; t++) {
        int64_t p = cnt[tj[t]]++;
        qt->col[p] = (int32_t)ti[t];
        qt->val[p] = tv[t];
    }
    rc = 0;
out:
    free(at);
    free(e);
    free(y);
    free(cnt);
    free(ti);
    free(tj);
    free(tv);
    return rc;
}

/* Every state's exit rate, summed in long double from its off-diagonal
 * rates: the stored diagonal is that sum rounded, a perturbation of
 * the chain by an epsilon per state that a long chain amplifies (an
 * M/M/1/1000 at rho 1.01: the refinement against the stored diagonal
 * settled 1.0e-11 from the exact answer, measured against rational
 * arithmetic, while its corrections said 3e-15). */
static long double *exit_rates(const san_csr *qt)
{
    long double *out = calloc((size_t)qt->n, sizeof *out);
    if (!out)
        return NULL;
    for (int64_t j = 0; j < qt->n; j++)
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++)
            if (qt->col[p] != j)
                out[qt->col[p]] += qt->val[p];
    return out;
}

/* b = -(x Q), each entry summed in long double with the exit rates of
 * exit_rates() on the diagonal. */
static void minus_residual(const san_csr *qt, const long double *out, const double *x,
                           double *b)
{
    for (int64_t j = 0; j < qt->n; j++) {
        long double r = -out[j] * x[j];
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++)
            if (qt->col[p] != j)
                r += (long double)qt->val[p] * x[qt->col[p]];
        b[j] = (double)-r;
    }
}

/* One correction: the relative error u solves u (D Q) = -x Q with D
 * the scale w (f's factors are of D Q); x += w u, negatives from
 * roundoff cut, x summed to 1; the largest relative change of a
 * probability above the floor (HUGE_VAL when the correction is not
 * sound). */
static double correct_once(const num_lu *f, const san_csr *qt, const long double *out,
                           const double *w, double *x, double *b, double *u)
{
    const int64_t n = qt->n;
    minus_residual(qt, out, x, b);
    if (num_lu_solve(f, b, u) != 0)
        return HUGE_VAL;
    double s = 0;
    for (int64_t j = 0; j < n; j++) {
        u[j] *= w[j];
        if (!isfinite(u[j]))
            return HUGE_VAL;
        s += x[j] + u[j];
    }
    if (!(s > 0))
        return HUGE_VAL;
    double ch = 0, fl = SAN_PROB_FLOOR;
    for (int64_t j = 0; j < n; j++) {
        double xn = (x[j] + u[j]) / s;
        if (xn < 0) {
            if (xn < -fl)
                return HUGE_VAL;     /* more than roundoff: not a correction */
            xn = 0;
        }
        double m = fmax(xn, x[j]);
        double c = m > fl ? fabs(xn - x[j]) / m : 0;
        ch = c > ch ? c : ch;
        x[j] = xn;
    }
    return ch;
}

/* The generator with every row i scaled by w_i: the flows of the
 * answer, D Q (as its transpose: column i of qt).  Solving for the
 * RELATIVE error in these units makes the LU's normwise accuracy an
 * accuracy per state: unscaled, the error of the large probabilities
 * swamped the small ones (an answer tilted from 1.7e-12 relative at
 * its large states to 1.9e-10 at 1e-35, along a slow queue beside a
 * fast automaton, stayed so through 12 corrections of 1e-11 each). */
/* Probabilities below this scale as it: a zero would make D Q
 * singular, and a denormal times a rate underflows (an M/M/1/100000 at
 * rho 1.5 has most of its states below 1e-308). */
#define SCALE_MIN 1e-200

static int scaled_rows(const san_csr *qt, const double *y, san_csr *fq, double *w)
{
    const int64_t n = qt->n, nz = qt->rowptr[n];
    for (int64_t j = 0; j < n; j++)
        w[j] = fmax(y[j], SCALE_MIN);
    fq->n = n;
    fq->rowptr = qt->rowptr;
    fq->col = qt->col;
    fq->val = malloc((size_t)(nz ? nz : 1) * sizeof *fq->val);
    if (!fq->val)
        return -1;
    for (int64_t p = 0; p < nz; p++)
        fq->val[p] = qt->val[p] * w[qt->col[p]];
    return 0;
}

/* At least two corrections (the second measures the first's result),
 * then more while each still contracts, at most MAX_CORRECTIONS.  On a
 * stiff chain (rates 1e-6 beside 10) the LU is an approximate inverse
 * only, and the corrections contract linearly: an independent
 * automata model at 1e-6 / 10 moved 1.96e-11 then 1.83e-11, and its
 * answer stayed 6.9e-11 from the exact one (against GTH in long double
 * on the same matrix, 1.8e-16 from the closed form). */
#define MAX_CORRECTIONS 12
#define CONTRACTED 0.99
/* Changes this small are the roundoff of the correction itself. */
#define NOISE_FLOOR 1e-15
/* No estimate below SAN_EST_FLOOR: the nearest double to a probability
 * and the roundoff of the corrections leave a few epsilon (6.6e-16 and
 * 2.3e-15 measured where the last change was 2.8e-16 and 1e-15). */

/* The error left after a correction that moved ch (the one before it,
 * prev): a linear contraction r = ch / prev leaves ch r / (1 - r) (the
 * 1.83e-11 above: 2.4e-10, for the 6.9e-11 measured); no contraction
 * (r >= CONTRACTED, where the corrections stopped: two changes of
 * 3.465e-16 gave r / (1 - r) = 1.8e16) means ch is their noise.  Twice that: the last
 * change is measured with the roundoff it measures. */
static double estimate(double ch, double prev)
{
    double r = ch / prev;
    return 2 * (r < CONTRACTED ? ch * fmax(1.0, r / (1 - r)) : fmax(ch, prev));
}

/* The corrections on the compact chain qt for the vector y (summed to
 * 1): 0 with *est, -1, or 2/-1 from the factorization. */
/* What the residual cannot see.  The residual is summed in long double,
 * so known to about half its epsilon times (in_j + out_j) per state: an
 * error whose residual is below that is invisible to every correction (a
 * slow queue beside a fast automaton hid a tilt of 7e-11 under residuals
 * of 1e-19 relative: the fast flows swamp the slow ones).  Its size is
 * that noise through the inverse, solved for NOISE_PROBES noise vectors
 * of random signs (statistical condition estimation, Kenney and Laub
 * 1994): the largest relative error, NOISE_SAFETY times.  Two probes
 * times 3 fell short by up to 2.2x on that model.  A probe of a single
 * sign (the smooth tilt of worst case) covered it, but made a symmetric
 * walk of 100,000 states refuse tol 1e-10 with an estimate of 4e-9
 * where its answer was exact: the roundoff of real residuals has no
 * single sign. */
#define NOISE_PROBES 3
#define NOISE_SAFETY 10

static double noise_floor(const num_lu *f, const san_csr *qt, const long double *out,
                          const double *y, double *b, double *u)
{
    const int64_t n = qt->n;
    double *mag = malloc((size_t)n * sizeof *mag);   /* the noise of each state */
    if (!mag)
        return HUGE_VAL;
    for (int64_t j = 0; j < n; j++) {
        double in = 0;
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++)
            if (qt->col[p] != j)
                in += qt->val[p] * y[qt->col[p]];
        mag[j] = 0.5 * LDBL_EPSILON * (in + (double)out[j] * y[j]);
    }
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    double worst = 0;
    for (int k = 0; k < NOISE_PROBES && worst < HUGE_VAL; k++) {
        for (int64_t j = 0; j < n; j++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            b[j] = (seed >> 63) ? mag[j] : -mag[j];
        }
        if (num_lu_solve(f, b, u) != 0) {
            worst = HUGE_VAL;
            break;
        }
        for (int64_t j = 0; j < n; j++)
            if (y[j] > SAN_PROB_FLOOR && fabs(u[j]) > worst)
                worst = fabs(u[j]);
    }
    free(mag);
    return worst < HUGE_VAL ? NOISE_SAFETY * worst : HUGE_VAL;
}

static int correct_chain(num_ls *c, const san_csr *qt, double *y, double *est, double *first)
{
    const int64_t n = qt->n;
    double *w = malloc((size_t)n * sizeof *w);
    san_csr fq = { 0 };
    if (!w || scaled_rows(qt, y, &fq, w) < 0) {
        free(w);
        return -1;
    }
    /* the factorization's refusals are not the solve's: its message stays */
    char msg[sizeof c->info->msg];
    memcpy(msg, c->info->msg, sizeof msg);
    int rc;
    num_lu *f = num_lu_factor(c, &fq, num_ls_pick_fixed(&fq, NULL), num_ls_budget(c->o) / 4,
                              CORRECT_MAX_FLOPS, &rc);
    memcpy(c->info->msg, msg, sizeof msg);
    free(fq.val);
    if (!f) {
        free(w);
        return rc == 2 ? 1 : -1;
    }
    double *b = malloc((size_t)n * sizeof *b), *u = malloc((size_t)n * sizeof *u);
    double *y0 = malloc((size_t)n * sizeof *y0);
    long double *out = exit_rates(qt);
    rc = -1;
    if (b && u && y0 && out) {
        memcpy(y0, y, (size_t)n * sizeof *y);
        double ch = correct_once(f, qt, out, w, y, b, u), prev = HUGE_VAL;
        *first = ch;
        for (int k = 1; k < MAX_CORRECTIONS && ch < HUGE_VAL &&
             (k < 2 || (ch > NOISE_FLOOR && ch < CONTRACTED * prev)); k++) {
            prev = ch;
            ch = correct_once(f, qt, out, w, y, b, u);
        }
        double noise = ch < HUGE_VAL ? noise_floor(f, qt, out, y, b, u) : HUGE_VAL;

        if (ch < HUGE_VAL && prev < HUGE_VAL && noise < HUGE_VAL) {
            *est = fmax(fmax(estimate(ch, prev), noise), SAN_EST_FLOOR);
            rc = 0;
        } else {
            memcpy(y, y0, (size_t)n * sizeof *y);
        }
    }
    free(b);
    free(u);
    free(y0);
    free(out);
    free(w);
    num_lu_free(f);
    return rc;
}

/* The flops of a banded LU of qt in its own order, n bw^2, an upper
 * bound of the factorization's (its fill-reducing order does no worse on
 * a band): a long thin chain is cheap to factor however many states it
 * has, and exactly where the checks see least (a queue of 12,000 levels
 * beside a two-state automaton, 24,002 states, bandwidth 2: its error
 * was 22 times their estimate).  One pass over the nonzeros. */
static double banded_flops(const san_csr *qt)
{
    int64_t bw = 0;
    for (int64_t j = 0; j < qt->n; j++)
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++) {
            int64_t d = qt->col[p] > j ? qt->col[p] - j : j - qt->col[p];
            bw = d > bw ? d : bw;
        }
    return (double)qt->n * (double)bw * (double)bw;
}

int num_ls_lu_correct(num_ls *c, double *x, double *est, double *first)
{
    const int64_t n = c->op->n;
    /* a chain this small is checked against GTH on all of it (partition
     * into single states): that check measures every state's error, and
     * better than the LU's noise estimate on a stiff chain (10 states,
     * rates 1e-6 to 1e6: an estimate of 1.4e-6 for an answer right to
     * 1e-8) */
    if (n <= SAN_PART_WHOLE_MAX)
        return 1;
    if (c->qt && (n <= CORRECT_MAX_N || banded_flops(c->qt) <= CORRECT_MAX_FLOPS)) {
        double s = num_ls_sum(x, n);
        if (!(s > 0))
            return -1;
        num_ls_scale(x, n, 1 / s);
        return correct_chain(c, c->qt, x, est, first);
    }
    if (c->qt || n > PROBE_MAX_N)
        return 1;
    /* the descriptor: the chain's positions only (d > 0) */
    double *d = malloc((size_t)n * sizeof *d);
    int64_t *pos = malloc((size_t)n * sizeof *pos);
    double *y = malloc((size_t)n * sizeof *y);
    san_csr qt = { 0 };
    int rc = -1;
    if (!d || !pos || !y)
        goto out;
    int64_t m = 0;
    for (int64_t j = 0; j < n; j++) {
        d[j] = -num_op_qjj(c->op, j);
        m += d[j] > 0;
    }
    if (m < 2 || probe_rows(c->op, d, &qt, pos, m) < 0)
        goto out;
    double s = 0;
    for (int64_t i = 0; i < m; i++)
        s += x[pos[i]];
    if (!(s > 0))
        goto out;
    for (int64_t i = 0; i < m; i++)
        y[i] = x[pos[i]] / s;
    rc = correct_chain(c, &qt, y, est, first);
    if (rc == 0) {
        for (int64_t j = 0; j < n; j++)
            x[j] = 0;
        for (int64_t i = 0; i < m; i++)
            x[pos[i]] = y[i];
    }
out:
    free(d);
    free(pos);
    free(y);
    free(qt.rowptr);
    free(qt.col);
    free(qt.val);
    return rc;
}
