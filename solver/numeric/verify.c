/*
 * verify.c - the evidence behind "converged", and the aggregation
 * method (iad) that produces it, on both storages.
 *
 * A method's own stopping test is the residual of linsolve.h, relative
 * to the largest rate and the largest probability.  Two kinds of error
 * hide below it, and both were seen as wrong answers marked converged:
 *
 *  1. Small probabilities and slow transitions.  The residual of state
 *     j is measured against the largest flow of the chain, so a state
 *     of probability 1e-12, or one left only by rates of 1e-6, can be
 *     off by orders of magnitude (2.8e-12 reported as 2.3e-4).  The
 *     test here is the BALANCE residual, state by state:
 *
 *         rho = max_j |in_j - out_j| / (in_j + out_j + d_j floor)
 *
 *     in_j = sum_i x_i q_ij, out_j = x_j d_j, d_j = -q_jj, x summed to
 *     1, floor = SAN_PROB_FLOOR (below it a probability is held to an
 *     absolute accuracy).  It costs one product (in_j = (xQ)_j + out_j)
 *     and its roundoff floor is a few epsilon whatever the rates.  A
 *     vector that every normwise method leaves good to 1e-16 of the
 *     largest probability is made good state by state by POLISHING:
 *     sweeps that set x_j from its neighbours (Gauss-Seidel on the
 *     sparse path, Jacobi on the descriptor), which give each state the
 *     relative accuracy of the states that feed it.
 *
 *  2. Slow modes.  On a nearly decomposable chain a vector can be in
 *     balance state by state to 1e-12 while its blocks carry the wrong
 *     mass (0.2483 for 0.25): the imbalance is the error times the weak
 *     coupling.  The test is aggregation (aggregate.c) over partitions
 *     that hold the slow modes (partition.h): the coarse chain's answer
 *     against x's block masses is that error, measured, not bounded.
 *
 * A vector is VERIFIED when rho <= tol and every partition's error is
 * <= tol.  Every answer goes through cycles of smoothing sweeps and
 * aggregation corrections until both tests pass: iterative
 * aggregation-disaggregation (Koury, McAllister and Stewart) over the
 * partitions in turn, a multiplicative two-level method.  A right
 * answer passes at the first cycle.  The methods a user names get a few
 * cycles (what they left is polished, not replaced); auto, direct and
 * iad get as many as it takes.
 *
 * The error estimate reported with an answer is the largest of rho,
 * the partitions' errors and the largest relative change that the last
 * sweep or correction made to a probability above the floor: what one
 * more round of the refinement would still move.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/numeric/linsolve.h"

/* Jacobi sweeps on the descriptor are weighted: the plain sweep is the
 * embedded jump chain, which never damps a period-2 mode. */
#define JACOBI_SMOOTH_WEIGHT 0.9
/* Smoothing sweeps per aggregation cycle on the descriptor (a
 * Gauss-Seidel sweep on the sparse path is one forward and one
 * backward pass). */
#define JACOBI_SMOOTH_SWEEPS 2

/* -q_jj >= 0 per position, built once (the descriptor has it). */
static const double *neg_diag(num_ls *c)
{
    if (c->dneg)
        return c->dneg;
    const int64_t n = c->op->n;
    double *d = malloc((size_t)n * sizeof *d);
    if (!d)
        return NULL;
    SAN_OMP(omp parallel for if(n >= c->op->par_min) schedule(static))
    for (int64_t j = 0; j < n; j++)
        d[j] = -num_op_qjj(c->op, j);
    c->dneg = d;
    return d;
}

double num_ls_balance(num_ls *c, const double *x, double *t)
{
    const double *d = neg_diag(c);
    if (!d)
        return HUGE_VAL;
    const int64_t n = c->op->n;
    const double s = num_op_sum(c->op, x), fl = SAN_PROB_FLOOR * s;
    num_op_apply(c->op, x, t);
    double rho = 0;
    SAN_OMP(omp parallel for if(n >= c->op->par_min) schedule(static) reduction(max:rho))
    for (int64_t j = 0; j < n; j++) {
        if (d[j] == 0)
            continue;               /* outside the chain (product space) */
        double r = num_state_balance(t[j], x[j], d[j], fl);
        rho = r > rho ? r : rho;
    }
    return rho != rho ? HUGE_VAL : rho;
}

/* ---- smoothing ---- */

/* One Gauss-Seidel pass over the rows of qt, x_j = in_j / d_j in place;
 * the largest relative change of a probability above the floor. */
static double gs_pass(const san_csr *qt, const double *d, double *x, double s, int backward)
{
    const int64_t n = qt->n;
    double ch = 0;
    for (int64_t k = 0; k < n; k++) {
        const int64_t j = backward ? n - 1 - k : k;
        if (d[j] == 0)
            continue;
        double in = 0;
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++)
            if (qt->col[p] != j)
                in += qt->val[p] * x[qt->col[p]];
        double xn = in / d[j], c = num_rel_change(x[j], xn, s);
        ch = c > ch ? c : ch;
        x[j] = xn;
        if (xn > SAN_LS_HUGE)
            s *= num_ls_tame(x, n);
    }
    return ch;
}

/* One weighted Jacobi sweep x_j += w (xQ)_j / d_j over the operator;
 * t is scratch. */
static double jacobi_pass(num_ls *c, const double *d, double *x, double *t, double s)
{
    const int64_t n = c->op->n;
    double ch = 0;
    num_op_apply(c->op, x, t);
    SAN_OMP(omp parallel for if(n >= c->op->par_min) schedule(static) reduction(max:ch))
    for (int64_t j = 0; j < n; j++) {
        if (d[j] == 0)
            continue;
        double xn = x[j] + JACOBI_SMOOTH_WEIGHT * t[j] / d[j];
        xn = xn > 0 ? xn : 0;
        double r = num_rel_change(x[j], xn, s);
        ch = r > ch ? r : ch;
        x[j] = xn;
    }
    return ch;
}

/* Symmetric Gauss-Seidel sweeps per cycle on the sparse path: as many
 * passes over the rows as the aggregation makes (one per partition),
 * halved, between 1 and 8.  Sweeps are what brings the states inside
 * the blocks to balance, aggregation what moves mass between blocks;
 * spending about the same on both was best on the 524,288-state nearly
 * decomposable bench model (18 partitions: 1, 2, 4 and 8 sweeps took
 * 5.3, 4.1, 2.8 and 3.2 s). */
static int smoothing_sweeps(const num_ls *c)
{
    int np = c->parts ? c->parts->n : 0;
    int nu = np / 4;
    return nu < 1 ? 1 : nu > 8 ? 8 : nu;
}

/* Over the descriptor an aggregation costs a product per block, or one
 * product when the storage computes the flows in one pass
 * (num_agg_cost): the Jacobi sweeps (a product each) get about half of
 * that (the 524,288-state bench model, 92 blocks at a product each: 2,
 * 16 and 48 sweeps a cycle took 60, 8.2 and 5.2 s). */
static int jacobi_sweeps(const num_ls *c)
{
    int nb = 0;
    for (int k = 0; c->parts && k < c->parts->n; k++)
        nb += num_agg_cost(c->op, &c->parts->p[k]);
    int nu = nb / 2;
    if (nu < c->jacobi_min)
        nu = c->jacobi_min;
    return nu < JACOBI_SMOOTH_SWEEPS ? JACOBI_SMOOTH_SWEEPS : nu > 64 ? 64 : nu;
}

/* When the aggregation costs a product or so (num_agg_cost), half of
 * it is a sweep or two, too few where the error left is inside the
 * blocks: a refinement cycle that does not divide the error by
 * SLOW_CONTRACTION raises the sweeps to JACOBI_SLOW_SWEEPS a cycle.
 * Measured with -m iad over the descriptor, products to tol 1e-10: the
 * 73,629-state TSS variant (six groups of 303 blocks), 4, 6, 8, 10 and
 * 16 sweeps a cycle: 1102, 873, 767, 699 and 876; the nearly
 * decomposable ncd15 converges in 2 cycles whatever the sweeps (14
 * products at 2 sweeps, 30 at 10), so it keeps the few. */
#define SLOW_CONTRACTION 10
#define JACOBI_SLOW_SWEEPS 10

/* One smoothing step (symmetric Gauss-Seidel, or Jacobi sweeps), then x
 * summed to 1 again; the largest relative change. */
static double smooth(num_ls *c, const double *d, double *x, double *t)
{
    double s = num_op_sum(c->op, x), ch;
    if (c->op->rows) {
        int nu = smoothing_sweeps(c);
        ch = 0;
        for (int k = 0; k < nu; k++) {
            double c1 = gs_pass(c->op->rows, d, x, s, 0);
            double c2 = gs_pass(c->op->rows, d, x, s, 1);
            ch = fmax(ch, fmax(c1, c2));
        }
    } else {
        ch = 0;
        int nu = jacobi_sweeps(c);
        for (int k = 0; k < nu; k++) {
            double c2 = jacobi_pass(c, d, x, t, s);
            ch = c2 > ch ? c2 : ch;
        }
    }
    s = num_op_sum(c->op, x);
    if (s > 0 && isfinite(s))
        num_op_scale(c->op, x, 1.0 / s);
    return ch;
}

/* ---- the check and the refinement ---- */

/* Every partition once: corrections applied when apply; the largest
 * error into *dmax, its partition into *worst.  0, or -1. */
static int aggregate_all(num_ls *c, double *x, int apply, double *dmax, int *worst)
{
    *dmax = 0;
    *worst = -1;
    if (!c->parts)
        return 0;
    for (int k = 0; k < c->parts->n; k++) {
        /* a pass over every partition takes seconds on 10^6 states:
         * Ctrl-C and the clock are heard between partitions (1 s of
         * grace after Ctrl-C was not enough: exit 130, no answer) */
        if (k > 0 && num_ls_clock(c))
            return 1;
        double dl;
        int st = num_agg_step(c, &c->parts->p[k], x, apply, &dl);
        if (st < 0)
            return -1;
        if (st == 0 && dl > *dmax) {
            *dmax = dl;
            *worst = k;
        }
    }
    if (apply) {
        double s = num_op_sum(c->op, x);
        if (s > 0 && isfinite(s))
            num_op_scale(c->op, x, 1.0 / s);
    }
    return 0;
}

static const char *part_name(const num_ls *c, int k)
{
    return k >= 0 ? c->parts->p[k].what : "?";
}

/* Changes below this are the roundoff of the sweeps themselves (a few
 * epsilon per term): they say nothing of the contraction. */
#define CHANGE_FLOOR 1e-13

/* What one more cycle would still move, from the last two changes: the
 * a-posteriori estimate of a linearly convergent iteration, error <=
 * change * r / (1 - r) with r the contraction (Stewart 1994, 3.2).  The
 * first cycle, which has no ratio, is assumed to contract by 0.9 at best;
 * a cycle that did not contract gives no estimate (HUGE_VAL). */
static double change_estimate(double ch, double prev)
{
    if (ch <= CHANGE_FLOOR)
        return 0;               /* noise: reported, not tested */
    double r = prev > 0 ? ch / prev : 0.9;
    if (!(r < 1))
        return HUGE_VAL;
    return ch * fmax(1.0, r / (1 - r));
}

/* Errors this small that do not go down are the roundoff floor of the
 * chain: the message names a --tol that can be met. */
#define FLOOR_HINT 1e-10
/* A refinement that stagnates below this (and below tol's reach) has
 * an answer: its error estimate is reported, a note says tol was below
 * the floor. */
#define FLOOR_ACCEPT 1e-11

/* "; try ..." (num_ls_advice) after what info->msg says. */
static void append_advice(num_ls *c)
{
    char adv[96];
    size_t len = strlen(c->info->msg);
    snprintf(c->info->msg + len, sizeof c->info->msg - len, "; %s",
             num_ls_advice(c, adv, sizeof adv));
}

static void fail_msg(num_ls *c, long it, double rho, double ch, double dmax, int worst)
{
    san_solve_info *info = c->info;
    const double tol = c->o->tol;
    double err = fmax(fmax(rho, ch), dmax);
    if (err < FLOOR_HINT)
        snprintf(info->msg, sizeof info->msg, "the answer of %s stays at an error of "
                 "%.2e after %ld refinement cycles (tol %.2e): about the roundoff floor of "
                 "this chain; try --tol %.0e", san_method_name(info->method), err, it, tol,
                 pow(10, ceil(log10(err * 10))));
    else if (dmax > tol)
        num_verdict_aggregation(info, san_method_name(info->method), it,
                                part_name(c, worst), dmax, tol, NULL);
    else
        snprintf(info->msg, sizeof info->msg, "the answer of %s fails the balance test "
                 "after %ld refinement cycles (a probability still moving by %.2e "
                 "relative, tol %.2e)",
                 san_method_name(info->method), it, fmax(rho, ch), tol);
    if (err >= FLOOR_HINT)
        append_advice(c);
}

/* A refinement whose error estimate has not halved in this many cycles
 * has reached the roundoff floor of the chain (seen at --tol 1e-14,
 * where the changes of the smallest probabilities stay near 1e-13). */
#define STAGNATION_CYCLES 12

/* The roundoff floor, seen sooner than STAGNATION_CYCLES: a cycle is
 * FLAT when its measured error (the largest of the balance, the
 * aggregation error and the sweeps' change) is at least FLAT_RATIO of
 * the smallest seen before it; FLOOR_FLAT_CYCLES flat cycles in a row,
 * below FLOOR_ACCEPT, end the refinement as the stagnation window does,
 * with the same estimate (that measured error, the corrections all
 * applied).  A refinement contracting by 0.98 a cycle or better is
 * never flat: the rule only cuts the cycles where the window would
 * have waited 12 cycles for an error that moved by under 2% a cycle.
 * Measured at tol 1e-12 on ms async 8/40 (498,820 states, sparse):
 * from cycle 3 the change stays at 1.50-1.52e-12 (each cycle's 0.991-
 * 1.007 of the one before), the aggregation error at 7.0-7.2e-13, the
 * balance at 2.1e-14 -- the corrections and the sweeps undo each other
 * at the roundoff of the block sums -- and the window took 15 cycles
 * for the 1.5e-12 of cycle 3 (now 6, the vectors 1.7e-14 apart
 * relative); at tol 1e-13 on ms async 4/40 (5,836 states) the
 * aggregation error stays at 2.03-2.15e-13 from cycle 6: 18 cycles,
 * now 10. */
#define FLAT_RATIO 0.98
#define FLOOR_FLAT_CYCLES 3

/* A named method's answer that max_cycles of refinement leave above tol
 * gets up to twice max_cycles more when the cycles are closing in: the last
 * divided the estimate by at least CLOSING, and at that rate the
 * cycles left reach tol.  On the repairable cluster of
 * bench/models/cluster64.san (sparse storage) BiCGSTAB's vector, at a
 * normwise residual of 1e-16, still had states out of balance by 1.6e-8
 * relative (states of several failures, whose flows the normwise
 * residual cannot see); the cycles divided the estimate by 3 each and
 * the fifth stopped at 9.3e-10 for a tol of 1e-10: refused, where two
 * more cycles answer.  The checks still judge the final vector.  Named
 * methods only (c->stall_watch): auto's resorts keep their 5 cycles. */
#define CLOSING 2.0

static int closing_in(double err, double last, double tol, long left)
{
    if (!(err > tol) || !(last > 0) || left <= 0 || !(err * CLOSING <= last))
        return 0;
    return log(err / tol) / log(last / err) <= (double)left;
}

/* What one refinement cycle measured. */
typedef struct {
    double ch;                  /* the sweeps' largest relative change */
    double chx;                 /* its change estimate (change_estimate) */
    double rho, dmax;           /* balance, largest aggregation error */
    double err;                 /* the largest of rho, dmax and chx */
    int worst;                  /* the partition of dmax */
} num_cycle;

/* One cycle on x (summed to 1): smoothing, the balance, the aggregation
 * corrections over every partition; prev is the change of the cycle
 * before (negative: none).  0; 1 stopped between partitions (clock,
 * interrupt); -1 out of memory. */
static int one_cycle(num_ls *c, double *x, const double *d, double *t, double prev,
                     num_cycle *m)
{
    m->ch = smooth(c, d, x, t);
    m->rho = num_ls_balance(c, x, t);
    int ag = aggregate_all(c, x, 1, &m->dmax, &m->worst);
    if (ag != 0)
        return ag;
    m->chx = change_estimate(m->ch, prev);
    m->err = fmax(fmax(m->rho, m->dmax), m->chx);
    return 0;
}

/* The verdict of a cycle that measured err: the contract holds when err
 * is within tol and so is the balance of x as it is now (the
 * corrections just applied were within tol: the balance of what is
 * returned is measured again).  Sets info->balance when it measures. */
static int contract_holds(num_ls *c, double *x, double *t, double err)
{
    san_solve_info *info = c->info;
    const double tol = c->o->tol;
    if (!(err <= tol))
        return 0;
    double rho = num_ls_balance(c, x, t);
    info->balance = rho;
    if (!(rho <= tol))
        return 0;
    info->error_est = fmax(info->error_est, rho);
    return 1;
}

/* Aggregation cycles from x until verified, at most max_cycles of them
 * (0: up to --max-iter).  The cycles are added to info->iterations. */
static int refine(num_ls *c, double *x, const double *d, double *t, long max_cycles)
{
    san_solve_info *info = c->info;
    const double tol = c->o->tol;
    const int debug = getenv("SAN_DEBUG_VERIFY") != NULL;
    long it = 0, it0 = info->iterations, since_best = 0, flat = 0;
    /* after a probe's cycle (num_ls_probe) the first has a ratio */
    double prev = c->probe_change > 0 ? c->probe_change : -1;
    double best = HUGE_VAL, prev_err = HUGE_VAL, last = HUGE_VAL, least = HUGE_VAL;
    c->probe_change = 0;
    for (;;) {
        /* a cycle costs several passes over the chain (seconds on
         * 10^8 nonzeros): none starts past the time limit */
        num_ls_stop late = num_ls_clock(c);
        if (late) {
            num_ls_stop_say(c, late, info->iterations, "error estimate",
                            info->error_est > 0 ? info->error_est : HUGE_VAL,
                            "try raising --time-limit");
            return 1;
        }
        num_cycle m;
        int ag = one_cycle(c, x, d, t, prev, &m);
        if (ag < 0)
            return -1;
        if (ag > 0) {       /* stopped between partitions: the last estimate */
            num_ls_stop_say(c, num_ls_clock(c), info->iterations, "error estimate",
                            info->error_est > 0 ? info->error_est : HUGE_VAL,
                            "try raising --max-iter or --time-limit");
            return 1;
        }
        it++;
        double ch = m.ch, rho = m.rho, dmax = m.dmax, chx = m.chx, err = m.err;
        const int worst = m.worst;
        prev = ch;
        if (!c->op->rows && fmax(rho, dmax) > prev_err / SLOW_CONTRACTION)
            c->jacobi_min = JACOBI_SLOW_SWEEPS;
        prev_err = fmax(rho, dmax);
        info->iterations = it0 + it;
        info->balance = rho;
        info->agg_error = dmax;
        info->refine_cycles = it;
        info->error_est = fmax(err, ch);
        /* an infinite estimate is no progress, even after another one
         * (inf <= 0.5 inf would reset the stagnation count forever) */
        if (isfinite(err) && err <= 0.5 * best) {
            best = err;
            since_best = 0;
        } else {
            since_best++;
        }
        if (debug && it == 1)
            for (int k = 0; c->parts && k < c->parts->n; k++)
                fprintf(stderr, "part %d: %s (%d blocks)\n", k, c->parts->p[k].what, c->parts->p[k].nblk);
        if (debug)
            fprintf(stderr, "cycle %ld: rho %.3e agg %.3e (%s) change %.3e est %.3e\n", it,
                    rho, dmax, worst >= 0 ? part_name(c, worst) : "-", ch, chx);
        if (contract_holds(c, x, t, err))
            return 0;
        rho = info->balance;
        const double raw = fmax(fmax(rho, dmax), ch);
        flat = raw >= FLAT_RATIO * least ? flat + 1 : 0;
        least = fmin(least, raw);
        /* past max_cycles: a named method's cycles that are closing in
         * go on (neither "the roundoff floor" nor a refusal yet) */
        const int spent = max_cycles > 0 && it >= max_cycles &&
                          !(c->stall_watch && closing_in(err, last, tol, 3 * max_cycles - it));
        const int floor_seen = flat >= FLOOR_FLAT_CYCLES && raw <= FLOOR_ACCEPT;
        if ((since_best >= STAGNATION_CYCLES || spent || floor_seen) &&
            raw <= fmax(tol, FLOOR_ACCEPT)) {
            /* tol is below what double precision gives on this chain:
             * the answer is as good as it gets, and says how good */
            snprintf(info->note, sizeof info->note, "--tol %.1e is below the roundoff floor "
                     "of this chain: the refinement stopped improving at an error estimate "
                     "of %.1e", tol, raw);
            info->error_est = raw;
            return 0;
        }
        if (since_best >= STAGNATION_CYCLES) {
            if (err < FLOOR_HINT)
                snprintf(info->msg, sizeof info->msg, "the refinement of %s stagnated at an "
                         "error estimate of %.2e (tol %.2e): the roundoff floor of this "
                         "chain; try --tol %.0e", san_method_name(info->method), err, tol,
                         pow(10, ceil(log10(err * 10))));
            else if (!isfinite(err))
            {
                /* "an error estimate of inf" said nothing of the vector:
                 * the estimate is infinite when the cycles stop
                 * contracting, so say that and what the checks measured */
                snprintf(info->msg, sizeof info->msg, "the refinement of %s stagnated: its "
                         "cycles stopped contracting, which gives no error estimate (after "
                         "%ld cycles the balance is %.2e and the aggregation error %.2e; tol "
                         "%.2e)", san_method_name(info->method), it, rho, dmax, tol);
                append_advice(c);
            }
            else
            {
                snprintf(info->msg, sizeof info->msg, "the refinement of %s stagnated at an "
                         "error estimate of %.2e (tol %.2e)", san_method_name(info->method),
                         err, tol);
                append_advice(c);
            }
            return 1;
        }
        if (spent) {
            fail_msg(c, it, rho, ch, dmax, worst);
            return 1;
        }
        last = err;
        num_ls_stop why = num_ls_poll(c, info->iterations, err);
        if (why) {
            num_ls_stop_say(c, why, info->iterations, "error estimate", err,
                            "try raising --max-iter or --time-limit");
            return 1;
        }
    }
}

/* A measured error (not an indicator's) this small is an answer when
 * --tol asks for less: it is returned with its estimate and a note, as
 * the refinement does below FLOOR_ACCEPT.  The estimate of the
 * corrections includes what the residual's roundoff can hide (1.5e-11
 * on a 20,001-state birth-death chain asked for 1e-14, whose answer is
 * right to 1e-13). */
#define MEASURED_ACCEPT 1e-10

/* The largest error a correction by the LU can measure and still be
 * the chain's roundoff floor (floor_measured: auto's resorts and the
 * checks' retries stop there).  The floors measured are 1e-13 to 1e-9
 * (boundtest's slow3 at 1e-12: 2.8e-10 to 9.6e-10); more is a
 * correction that failed from that vector, not a floor: boundtest seed
 * 93, M/M/1/1000 at rho 0.915, --storage kron -m bicgstab --tol 1e-8,
 * BiCGSTAB stagnated at 2.8e-7, the correction measured 9.7e+176, and
 * the solve refused ("try --tol 1e+177"), where the retries answer
 * within an estimate of 5.0e-15 (as c5d39a3 did). */
#define FLOOR_MAX 1e-6

/* Where the LU of the chain is cheap (correct.c), the refined answer is
 * corrected by it and its error measured: that estimate replaces the
 * indicators', which do not bound the error of long chains; an answer
 * the refinement could not bring within tol gets the same chance.
 * st: refine's verdict; the new one. */
static int measured(num_ls *c, double *x, double *t, int st)
{
    san_solve_info *info = c->info;
    const double tol = c->o->tol;
    double est, first;
    /* an answer stopped by the user's limits (--max-iter, --time-limit,
     * Ctrl-C) is returned as it stands: the limits are the user's */
    if (st != 0 && ((c->o->max_iter > 0 && info->iterations >= c->o->max_iter) ||
                    num_ls_clock(c)))
        return st;
    if (num_ls_lu_correct(c, x, &est, &first) != 0)
        return st;
    info->lu_correction = first;

    double rho = num_ls_balance(c, x, t);
    info->balance = rho;
    est = fmax(est, rho);
    if (est <= tol || (st == 0 && est <= fmax(tol, MEASURED_ACCEPT))) {
        if (st != 0) {
            snprintf(info->note, sizeof info->note, "the refinement stopped at an error "
                     "estimate of %.1e; a correction by the LU of the generator brought it to "
                     "%.1e", info->error_est, est);
            info->msg[0] = '\0';
        } else if (est > tol) {
            snprintf(info->note, sizeof info->note, "--tol %.1e is below the roundoff floor "
                     "of this chain: a correction by the LU of the generator measured an "
                     "error of %.1e", tol, est);
        }
        info->error_est = est;
        return 0;
    }
    info->error_est = est;
    c->floor_measured = est < FLOOR_MAX;
    snprintf(info->msg, sizeof info->msg, "the answer of %s, corrected by the LU of the "
             "generator, has an error estimate of %.2e (tol %.2e): about the roundoff floor "
             "of this chain; try --tol %.0e", san_method_name(info->method), est, tol,
             pow(10, ceil(log10(est))));
    return 1;
}

int num_ls_verify(num_ls *c, double *x, long max_cycles)
{
    const double *d = neg_diag(c);
    double *t = malloc((size_t)c->op->n * sizeof *t);
    if (!d || !t) {
        free(t);
        snprintf(c->info->msg, sizeof c->info->msg, "out of memory for the verification "
                 "of the answer (%lld states)", (long long)c->op->n);
        c->info->status = SAN_E_NOMEM;
        return -1;
    }
    double s = num_op_sum(c->op, x);
    if (s > 0 && isfinite(s))
        num_op_scale(c->op, x, 1.0 / s);
    /* a vector that passed a probe (num_ls_probe) has had its cycle */
    const long probes = c->probes;
    int st = c->verified ? 0 : refine(c, x, d, t, max_cycles);
    if (!c->verified)
        c->info->refine_cycles += probes;       /* the probes were cycles too */
    c->verified = 0;
    c->probes = 0;
    if (st >= 0)
        st = measured(c, x, t, st);
    /* the checks of a small chain can say 0: its doubles cannot */
    if (st == 0 && !(c->info->error_est >= SAN_EST_FLOOR))
        c->info->error_est = SAN_EST_FLOOR;
    free(t);
    return st;
}

/* y = x clamped and summed to 1 when x is a distribution up to the
 * roundoff negatives of a Krylov iterate (at most this fraction of its
 * mass, of either overall sign); else 0. */
#define PROBE_NEG_MASS 1e-3
static int probe_copy(const num_ls *c, const double *x, double *y)
{
    const int64_t n = c->op->n;
    double pos = 0, neg = 0;
    for (int64_t j = 0; j < n; j++) {
        if (x[j] > 0)
            pos += x[j];
        else
            neg -= x[j];
    }
    const double sg = pos >= neg ? 1 : -1, big = fmax(pos, neg);
    if (!(big > 0) || !isfinite(pos + neg) || fmin(pos, neg) > PROBE_NEG_MASS * big)
        return 0;
    for (int64_t j = 0; j < n; j++) {
        const double v = sg * x[j];
        y[j] = v > 0 ? v / big : 0;
    }
    return 1;
}

/* The probe's screen: the first sweep of a cycle changes each
 * probability by about twice its balance residual (a Gauss-Seidel step
 * sets x_j to in_j / d_j; the balance is |in_j - out_j| over about
 * 2 out_j), so the balance of the kernel's iterate predicts the cycle's
 * change estimate; the cycle runs only when that prediction is within
 * PROBE_SCREEN_SLACK tol (it is a schedule, not a verdict: the cycle
 * judges).  Measured, balance before the cycle against the change of
 * its sweeps: rs 20/9 8.1e-9, 1.6e-8 and 8.4e-15, 1.7e-14; ms async
 * 6/40 3.4e-7, 7.2e-7; ms async 4/40 7.4e-3, 1.4e-2; pipe7 2.0e-10,
 * 4.4e-10. */
#define PROBE_CHANGE_PER_BALANCE 2.0
#define PROBE_SCREEN_SLACK 4.0

int num_ls_probe(num_ls *c, const double *x, double *y, double *t, double *err)
{
    san_solve_info *info = c->info;
    *err = HUGE_VAL;
    if (num_ls_clock(c) || !probe_copy(c, x, y))
        return 1;
    const double *d = neg_diag(c);
    if (!d)
        return -1;
    /* a refused probe leaves no trace but its cost: the verdicts, notes
     * and estimates are those of the vector the kernel returns */
    /* the screen: a product, where a cycle is tens of passes */
    const double rho0 = num_ls_balance(c, y, t);
    const double pred = change_estimate(PROBE_CHANGE_PER_BALANCE * rho0, -1);
    if (getenv("SAN_DEBUG_VERIFY"))
        fprintf(stderr, "probe screen: balance %.3e, predicted estimate %.3e\n", rho0, pred);
    if (!(pred <= PROBE_SCREEN_SLACK * c->o->tol)) {
        *err = pred;
        return 1;
    }
    const san_solve_info was = *info;
    num_cycle m;
    int ag = one_cycle(c, y, d, t, -1, &m);
    c->probes++;
    if (getenv("SAN_DEBUG_VERIFY"))
        fprintf(stderr, "probe %ld: rho %.3e agg %.3e change %.3e est %.3e\n", c->probes,
                m.rho, m.dmax, m.ch, ag == 0 ? m.err : HUGE_VAL);
    if (ag == 0) {
        info->agg_error = m.dmax;
        info->error_est = fmax(m.err, m.ch);
        info->balance = m.rho;
        if (contract_holds(c, y, t, m.err)) {
            info->refine_cycles = c->probes;
            c->verified = 1;
            return 0;
        }
        /* refused, but near: the refinement goes on from this cycle */
        c->probe_change = m.ch > 0 ? m.ch : -1;
        return 2;
    }
    *info = was;                /* the products stay counted (c->op) */
    return ag < 0 ? -1 : 1;
}

/* SAN_TEST_ORACLE: a test and audit knob, not for users (issue 27: how
 * many iterations the contract needs).  A kernel calls this with its
 * iterate after every iteration; when the variable is set, the iterate
 * is judged as num_ls_probe judges it (one refinement cycle on a copy,
 * contract_holds), without the probe's screen, and the first iterate
 * that passes is said on stderr: "SAN_TEST_ORACLE: contract holds at
 * iteration K" (K counts the iterations and cycles of the solve before
 * this kernel ran, info->iterations then).  Nothing of the solve
 * changes: the copy is discarded, info and the product count are put
 * back.  Each call costs a cycle: several times an iteration. */
void num_ls_oracle_judge(num_ls *c, const double *x, long it)
{
    /* not the coarse chains an outer method solves (no partitions) */
    if (c->oracle_done || !c->parts || !getenv("SAN_TEST_ORACLE"))
        return;
    /* SAN_TEST_ORACLE_FROM=K, SAN_TEST_ORACLE_EVERY=E: only iterations
     * K, K + E, ... are judged (a cycle each: an audit of a long run
     * brackets the answer first) */
    const char *from = getenv("SAN_TEST_ORACLE_FROM"), *every = getenv("SAN_TEST_ORACLE_EVERY");
    const long k0 = from ? atol(from) : 1, e = every && atol(every) > 0 ? atol(every) : 1;
    const long at = c->info->iterations + it;
    if (at < k0 || (at - k0) % e != 0)
        return;
    const int64_t n = c->op->n;
    double *y = malloc((size_t)n * sizeof *y), *t = malloc((size_t)n * sizeof *t);
    const double *d = neg_diag(c);
    if (y && t && d && probe_copy(c, x, y)) {
        const san_solve_info was = *c->info;
        const long products = c->op->products;
        const double product_s = c->op->product_s;
        num_cycle m;
        const int ok = one_cycle(c, y, d, t, -1, &m) == 0;
        if (ok && !strcmp(getenv("SAN_TEST_ORACLE"), "v"))
            fprintf(stderr, "SAN_TEST_ORACLE: iteration %ld: balance %.3e aggregation %.3e "
                    "change %.3e estimate %.3e\n", at, m.rho, m.dmax, m.ch, m.err);
        if (ok && contract_holds(c, y, t, m.err)) {
            c->oracle_done = 1;
            fprintf(stderr, "SAN_TEST_ORACLE: contract holds at iteration %ld (%s, "
                    "estimate %.3e)\n", at, san_method_name(was.method),
                    fmax(m.err, m.ch));
        }
        *c->info = was;
        c->op->products = products;
        c->op->product_s = product_s;
    }
    free(y);
    free(t);
}

void num_ls_estimate_returned(num_ls *c, const double *x)
{
    san_solve_info *info = c->info;
    if (info->error_est > 0 && isfinite(info->error_est))
        return;                 /* the refinement measured it */
    /* the user's limits are the user's: no pass over the chain after
     * the clock ran out or Ctrl-C */
    if (num_ls_clock(c))
        return;
    double *t = malloc((size_t)c->op->n * sizeof *t);
    double *y = malloc((size_t)c->op->n * sizeof *y);
    if (!t || !y) {
        free(t);
        free(y);
        return;
    }
    /* the checks measure without applying, on a copy (an aggregation
     * step with apply 0 leaves x as it is, but the copy costs nothing
     * beside the products and keeps x the kernel's) */
    memcpy(y, x, (size_t)c->op->n * sizeof *y);
    double s = num_op_sum(c->op, y);
    if (s > 0 && isfinite(s)) {
        num_op_scale(c->op, y, 1.0 / s);
        double rho = num_ls_balance(c, y, t), dmax;
        int worst;
        if (aggregate_all(c, y, 0, &dmax, &worst) == 0) {
            double est = fmax(rho, dmax);
            if (est > 0 && isfinite(est))
                info->error_est = est;
        }
    }
    free(t);
    free(y);
}

int num_ls_iad(num_ls *c, double *pi)
{
    return num_ls_verify(c, pi, 0);
}
