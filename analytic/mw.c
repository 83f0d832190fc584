/*
 * mw.c - the master/worker model of seed 000 (ch. III, eqs. 3-17): the
 * time of one iteration as the master sends n chunks of tasks, the
 * workers compute, and the results come back,
 *
 *   Tt(n) = S(n) + C(n) + R(n) + mu_m                               (3)
 *
 * with, for a balanced program (v_m = alpha V / n bytes to each worker,
 * v_w = (1 - alpha) V / n back, each computing Tc / n):
 *
 *   S  sync:              n (mo + lambda v_m)
 *      async, mo paced:   n mo + lambda v_m     when mo >= lambda v_m
 *      async, transfers:  mo + n lambda v_m     otherwise
 *   C  Tc / n             (the last worker to start ends last)
 *   R  mo + lambda v_w    (only the last result is not overlapped)
 *
 * which gives the seed's expressions (7), (8) and (9).  The optimum,
 * the master's chunk managing capability and the performance index
 * follow; doc/analytic.md derives each one, eqs. 12 and 16 (garbled in
 * the seed's text) from these same assumptions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/services.h"
#include "analytic/analytic_int.h"

void san_mw_default(san_mw_params *p)
{
    memset(p, 0, sizeof *p);
    p->struct_size = sizeof *p;
    p->protocol = SAN_MW_ASYNC;
    p->mo = 1;
    p->lambda = 0.001;
    p->volume = 4096;
    p->alpha = 0.9;
    p->tc = 1600;
}

/* ------------------------------------------------------------------ */
/* Inputs                                                               */
/* ------------------------------------------------------------------ */

/* p filled against another layout (base_opts_foreign): 1, with err. */
static int foreign(const san_mw_params *p, char *err, size_t n)
{
    return BASE_OPTS_FOREIGN(p, "mw", "san_mw_default", err, n);
}

static san_status bad(char *err, size_t n, const char *flag, const char *what, const char *val)
{
    analytic_err(err, n, "%s: expected %s, not '%s'", flag, what, val);
    return SAN_E_USAGE;
}

/* A time or a rate: a number >= 0. */
static int nonneg(const char *val, double *out)
{
    return san_parse_double(val, 0, HUGE_VAL, out);
}

/* A volume: bytes, "4096" or "4k" (base/parse.c); 0 is allowed. */
static int bytes(const char *val, double *out)
{
    return san_parse_double(val, 0, 0, out) == 0 ? 0 : san_parse_bytes(val, out);
}

san_status san_mw_set(san_mw_params *p, const char *flag, const char *val, char *err, size_t n)
{
    if (foreign(p, err, n))
        return SAN_E_USAGE;
    if (!strcmp(flag, "--protocol")) {
        if (!strcmp(val, "sync"))
            p->protocol = SAN_MW_SYNC;
        else if (!strcmp(val, "async"))
            p->protocol = SAN_MW_ASYNC;
        else
            return bad(err, n, flag, "sync or async", val);
    } else if (!strcmp(flag, "--mo")) {
        if (nonneg(val, &p->mo) < 0)
            return bad(err, n, flag, "a time >= 0", val);
    } else if (!strcmp(flag, "--lambda")) {
        if (nonneg(val, &p->lambda) < 0)
            return bad(err, n, flag, "a time per byte >= 0", val);
    } else if (!strcmp(flag, "--volume") || !strcmp(flag, "--volume-per-worker")) {
        if (bytes(val, &p->volume) < 0)
            return bad(err, n, flag, "bytes >= 0 (4096, 4k, 1M)", val);
        p->per_worker = !strcmp(flag, "--volume-per-worker");
    } else if (!strcmp(flag, "--alpha")) {
        if (san_parse_double(val, 0, 1, &p->alpha) < 0)
            return bad(err, n, flag, "a fraction in [0, 1]", val);
    } else if (!strcmp(flag, "--tc")) {
        if (san_parse_double(val, 0, HUGE_VAL, &p->tc) < 0 || !(p->tc > 0))
            return bad(err, n, flag, "a time > 0", val);
    } else if (!strcmp(flag, "--mu-m")) {
        if (nonneg(val, &p->mu_m) < 0)
            return bad(err, n, flag, "a time >= 0", val);
    } else {
        analytic_err(err, n, "%s: unknown flag of mw (--protocol, --mo, --lambda, --volume, "
                     "--volume-per-worker, --alpha, --tc, --mu-m, --workers)", flag);
        return SAN_E_USAGE;
    }
    return SAN_OK;
}

san_status san_mw_check(const san_mw_params *p, char *err, size_t n)
{
    if (foreign(p, err, n))
        return SAN_E_USAGE;
    if (!(p->tc > 0) || !isfinite(p->tc)) {
        analytic_err(err, n, "--tc: the computing time must be > 0");
        return SAN_E_USAGE;
    }
    if (!(p->mo > 0) && !(p->lambda * p->volume > 0)) {
        /* With free communication Tt falls forever: no optimum to find. */
        analytic_err(err, n, "--mo, --lambda, --volume: communication costs nothing "
                     "(give --mo > 0, or --lambda and --volume > 0)");
        return SAN_E_USAGE;
    }
    if (!(p->alpha >= 0 && p->alpha <= 1)) {
        analytic_err(err, n, "--alpha: a fraction in [0, 1]");
        return SAN_E_USAGE;
    }
    return SAN_OK;
}

/* ------------------------------------------------------------------ */
/* One n                                                                */
/* ------------------------------------------------------------------ */

/* V(n): the bytes of one iteration with n workers. */
static double volume_at(const san_mw_params *p, double n)
{
    return p->per_worker ? n * p->volume : p->volume;
}

/* lambda v_m: the transfer of one worker's tasks. */
static double task_transfer(const san_mw_params *p, double n)
{
    return p->lambda * p->alpha * volume_at(p, n) / n;
}

/* lambda v_w: the transfer of one worker's results. */
static double result_transfer(const san_mw_params *p, double n)
{
    return p->lambda * (1 - p->alpha) * volume_at(p, n) / n;
}

/* The expression that applies: async sends are paced by the overhead
 * while it is at least the transfer (the master is free again before
 * the data is out), by the transfers otherwise. */
static int regime(const san_mw_params *p, double n)
{
    if (p->protocol == SAN_MW_SYNC)
        return 9;
    return p->mo >= task_transfer(p, n) ? 7 : 8;
}

/* S(n): from the first send until the last worker has its tasks. */
static double distribution(const san_mw_params *p, double n)
{
    double t = task_transfer(p, n);
    switch (regime(p, n)) {
    case 7:  return n * p->mo + t;
    case 8:  return p->mo + n * t;
    default: return n * (p->mo + t);
    }
}

/* R(n): the last worker's results. */
static double gathering(const san_mw_params *p, double n)
{
    return p->mo + result_transfer(p, n);
}

static double iteration_time(const san_mw_params *p, double n)
{
    return distribution(p, n) + p->tc / n + gathering(p, n) + p->mu_m;
}

/* When the first worker's results are ready: its tasks, its share of
 * the computation, its answer. */
static double first_round_trip(const san_mw_params *p, double n)
{
    return p->mo + task_transfer(p, n) + p->tc / n + gathering(p, n);
}

static double mw_pi(const san_mw_params *p, double n)
{
    double tt = iteration_time(p, n);
    return n * tt * tt / p->tc;
}

san_status san_mw_eval(const san_mw_params *p, double n, san_mw_point *o)
{
    memset(o, 0, sizeof *o);
    if (foreign(p, NULL, 0))
        return SAN_E_USAGE;
    o->n = n;
    o->eq = regime(p, n);
    o->tt = iteration_time(p, n);
    o->speedup = p->tc / o->tt;
    o->efficiency = o->speedup / n;
    o->pi = n * o->tt * o->tt / p->tc;
    o->over_mcmc = distribution(p, n) > first_round_trip(p, n);
    return SAN_OK;
}

/* ------------------------------------------------------------------ */
/* Bounds                                                               */
/* ------------------------------------------------------------------ */

/* The master's chunk managing capability (eqs. 10-12): the n where the
 * distribution ends just when the first worker's results are ready.
 * S grows with n and the round trip shrinks, so their difference has
 * one root; bisection finds it in every regime and for either volume,
 * where the seed's closed forms cover the constant volume only. */
static double mcmc(const san_mw_params *p)
{
    double lo = 1e-9, hi = 1;
    while (distribution(p, hi) <= first_round_trip(p, hi)) {
        lo = hi;
        hi *= 2;
        if (hi > 1e12)
            return INFINITY;
    }
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (distribution(p, mid) <= first_round_trip(p, mid))
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The real minimum of Tt (dTt/dn = 0).  Tt = a n + b + c / n in every
 * regime, so the minimum is sqrt(c / a):
 *   eq. 13  async, V constant:    sqrt((lambda V + Tc) / mo)
 *   eq. 14  sync, V constant:     sqrt(((1 - alpha) lambda V + Tc) / mo)
 *   eq. 15  async, V per worker:  sqrt(Tc / mo)
 *   eq. 16  sync, V per worker:   sqrt(Tc / (mo + alpha lambda v))
 *   (8)     async paced by the transfers, V per worker (not in the seed):
 *                                 sqrt(Tc / (alpha lambda v))
 * With a constant V, eq. 8 only decreases: past its switch point
 * lambda alpha V / mo eq. 7 applies, so the minimum is eq. 13's root when
 * it lies past the switch, the switch itself otherwise (eq 0). */
static void optimum(const san_mw_params *p, san_mw_bounds *b)
{
    const double lv = p->lambda * p->volume, a = p->alpha;
    if (p->protocol == SAN_MW_SYNC) {
        b->n_opt_eq = p->per_worker ? 16 : 14;
        b->n_opt = p->per_worker ? sqrt(p->tc / (p->mo + a * lv))
                                 : sqrt(((1 - a) * lv + p->tc) / p->mo);
    } else if (p->per_worker) {
        int paced = p->mo >= a * lv;
        b->n_opt_eq = paced ? 15 : 8;
        b->n_opt = sqrt(p->tc / (paced ? p->mo : a * lv));
    } else {
        double root = sqrt((lv + p->tc) / p->mo);
        double sw = a * lv / p->mo;
        b->n_opt_eq = root >= sw ? 13 : 0;
        b->n_opt = root >= sw ? root : sw;
    }
}

/* The real minimum of Pi: Pi is large at both ends (Tc / n and n^3
 * terms); a geometric scan brackets it, golden sections refine it. */
static double pi_minimum(const san_mw_params *p)
{
    double best = 1e-3, fbest = mw_pi(p, best);
    for (double x = best; x < 1e9; x *= 1.02) {
        double f = mw_pi(p, x);
        if (f < fbest)
            best = x, fbest = f;
    }
    double lo = best / 1.02, hi = best * 1.02;
    const double g = 0.5 * (sqrt(5) - 1);
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
        double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
        if (mw_pi(p, x1) <= mw_pi(p, x2))
            hi = x2;
        else
            lo = x1;
    }
    return 0.5 * (lo + hi);
}

san_status san_mw_bounds_of(const san_mw_params *p, san_mw_bounds *b)
{
    memset(b, 0, sizeof *b);
    if (foreign(p, NULL, 0))
        return SAN_E_USAGE;
    optimum(p, b);
    b->mcmc = mcmc(p);
    b->mcmc_eq = p->protocol == SAN_MW_SYNC ? 12 : regime(p, b->mcmc) == 7 ? 10 : 11;
    b->pi_opt = pi_minimum(p);
    return SAN_OK;
}

san_status san_mw_best(const san_mw_params *p, int lo, int hi, int *best_tt, int *best_pi)
{
    if (foreign(p, NULL, 0))
        return SAN_E_USAGE;
    int bt = lo, bp = lo;
    for (int n = lo + 1; n <= hi; n++) {
        if (iteration_time(p, n) < iteration_time(p, bt))
            bt = n;
        if (mw_pi(p, n) < mw_pi(p, bp))
            bp = n;
    }
    *best_tt = bt;
    *best_pi = bp;
    return SAN_OK;
}

san_status san_mw_step(const san_mw_params *p, double y, double x, double *gain, double *index)
{
    if (foreign(p, NULL, 0))
        return SAN_E_USAGE;
    double ty = iteration_time(p, y), tx = iteration_time(p, x);
    *gain = (ty - tx) / ty;
    *index = (ty - tx) * x / ((x - y) * ty);
    return SAN_OK;
}

/* ------------------------------------------------------------------ */
/* The SAN of the same program                                          */
/* ------------------------------------------------------------------ */

/* Times become rates of the ms template (doc/analytic.md): `up` hands
 * out every task at once after S(n), each worker computes its one pack
 * in Tc / n and returns it in R(n), the master evaluates each in
 * mu_m / n (a negligible time when mu_m is 0: the template needs a
 * rate); `down` ends the run a million times faster than it lasts.  The
 * async buffer holds every result, so that nothing blocks. */
int san_mw_ms_line(const san_mw_params *p, int n, char *buf, size_t len)
{
    if (foreign(p, NULL, 0))
        return -1;
    double tt = iteration_time(p, n);
    double eval = p->mu_m > 0 ? p->mu_m / n : 1e-6 * tt;
    int sync = p->protocol == SAN_MW_SYNC;
    char buffer[32] = "";
    if (!sync)
        snprintf(buffer, sizeof buffer, " --buffer %d", n);
    return snprintf(buf, len,
                    "ms --mode %s --work slices --slaves %d --slices %d%s --pi 0 "
                    "--rate-up %.10g --rate-proc %.10g --rate-pack %.10g --rate-eval %.10g "
                    "--rate-down %.10g",
                    sync ? "sync" : "async", n, n, buffer, 1 / distribution(p, n),
                    n / p->tc, 1 / gathering(p, n), 1 / eval, 1e6 / tt);
}

/* ------------------------------------------------------------------ */
/* The template line                                                    */
/* ------------------------------------------------------------------ */

static san_status parse_line(int argc, char **argv, san_mw_params *p, double *n, char *err,
                             size_t en)
{
    san_mw_default(p);
    *n = 0;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            analytic_err(err, en, "%s: missing value", argv[i]);
            return SAN_E_USAGE;
        }
        if (!strcmp(argv[i], "--workers")) {
            if (san_parse_double(argv[i + 1], 1e-9, 1e12, n) < 0)
                return bad(err, en, argv[i], "a number of workers > 0", argv[i + 1]);
            continue;
        }
        san_status st = san_mw_set(p, argv[i], argv[i + 1], err, en);
        if (st != SAN_OK)
            return st;
    }
    if (*n <= 0) {
        analytic_err(err, en, "--workers: required (the number of workers n)");
        return SAN_E_USAGE;
    }
    return san_mw_check(p, err, en);
}

/* Named as the ms template's results where they mean the same thing:
 * execution_time (one iteration: one run of --work slices) and
 * efficiency (the workers' share of useful time). */
san_status analytic_mw_line(int argc, char **argv, san_analytic_results *out, char *err,
                            size_t en)
{
    san_mw_params p;
    double n;
    san_status st = parse_line(argc, argv, &p, &n, err, en);
    if (st != SAN_OK)
        return st;
    san_mw_point pt;
    san_mw_bounds b;
    san_mw_eval(&p, n, &pt);
    san_mw_bounds_of(&p, &b);
    const struct { const char *name; double v; } res[] = {
        { "execution_time", pt.tt }, { "efficiency", pt.efficiency },
        { "speedup", pt.speedup }, { "performance_index", pt.pi },
        { "expression", pt.eq }, { "n_opt", b.n_opt }, { "mcmc", b.mcmc },
        { "pi_opt", b.pi_opt },
    };
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
        if (analytic_results_add(out, res[i].name, res[i].v) < 0) {
            analytic_err(err, en, "out of memory");
            return SAN_E_NOMEM;
        }
    return SAN_OK;
}
