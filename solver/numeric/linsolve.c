/*
 * linsolve.c - the stationary distribution of a CTMC: pi Q = 0, sum pi = 1.
 *
 * This file is the dispatcher and the common ground of the kernels: it
 * validates the transposed generator, chooses a method, and checks and
 * normalizes whatever vector the kernel returns, so that every method
 * obeys the same contract (non-negative, sums to one, residual recomputed
 * from the returned vector).  The services the kernels share are leaves
 * below it: the options and method names (solve_opts.c), vectors and the
 * residual (vec.c), the clock, progress line and best vector (stop.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "base/services.h"
#include "solver/numeric/linsolve.h"

/* Rows of Q must sum to zero up to this relative roundoff. */
#define ROWSUM_TOL 1e-8

/* Negative entries smaller than this (relative to the largest entry) are
 * roundoff, set to zero whatever happens. */
#define NEG_ROUNDOFF 1e-13

/* ------------------------------------------------------------------ */
/* Validation of the generator                                          */
/* ------------------------------------------------------------------ */

/* What is wrong with row j of qt (column j of Q), or NULL; *where gets
 * the column of the offending entry (its row in Q). */
static const char *row_problem(const san_csr *qt, int64_t j, int64_t *where)
{
    const int64_t n = qt->n;
    int64_t b = qt->rowptr[j], e = qt->rowptr[j + 1];
    int has_diag = 0;
    if (e < b)
        return "decreasing row pointers";
    for (int64_t p = b; p < e; p++) {
        int32_t i = qt->col[p];
        double v = qt->val[p];
        *where = i;
        if (i < 0 || i >= n)
            return "column index out of range";
        if (p > b && i <= qt->col[p - 1])
            return "columns not strictly ascending";
        if (!isfinite(v))
            return "non-finite rate";
        if (i == j) {
            has_diag = 1;
            if (n > 1 && !(v < 0))
                return "state without outgoing transitions (absorbing): "
                       "the chain is not irreducible";
        } else if (v < 0) {
            return "negative off-diagonal rate";
        }
    }
    *where = j;
    if (!has_diag && n > 1)
        return "missing diagonal entry (the diagonal must be stored)";
    return NULL;
}

/* Checks every row in parallel, then explains the first bad one. */
static int validate(const san_csr *qt, double *maxd, char *msg, size_t sz)
{
    const int64_t n = qt->n;
    int64_t bad = n;
    double md = 0;
    if (qt->rowptr[0] != 0) {
        snprintf(msg, sz, "invalid generator: rowptr[0] != 0");
        return -1;
    }
    SAN_OMP(omp parallel for if(n >= SAN_LS_PAR_MIN) schedule(static) reduction(min:bad) reduction(max:md))
    for (int64_t j = 0; j < n; j++) {
        int64_t w;
        if (row_problem(qt, j, &w)) {
            bad = j < bad ? j : bad;
        } else {
            int64_t p = num_ls_diag_pos(qt, j);
            double d = p >= 0 ? fabs(qt->val[p]) : 0;
            md = d > md ? d : md;
        }
    }
    if (bad < n) {
        int64_t w = bad;
        const char *why = row_problem(qt, bad, &w);
        snprintf(msg, sz, "invalid generator: %s (at Q[%ld][%ld])", why,
                 (long)w, (long)bad);
        return -1;
    }
    *maxd = md;
    return 0;
}

/* Rows of Q (columns of qt) must sum to zero: this catches a generator
 * passed untransposed or with a wrong diagonal.  Row i of Q sums its
 * off-diagonals, |q_ii| in all, and q_ii, so roundoff is relative to
 * |q_ii|.  Needs n doubles of scratch; skipped when they are missing. */
static int check_row_sums(const san_csr *qt, char *msg, size_t sz)
{
    const int64_t n = qt->n;
    double *s = calloc((size_t)n, sizeof *s);
    if (!s)
        return 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t p = qt->rowptr[j]; p < qt->rowptr[j + 1]; p++)
            s[qt->col[p]] += qt->val[p];
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        double d = fabs(qt->val[num_ls_diag_pos(qt, i)]);
        if (fabs(s[i]) > ROWSUM_TOL * d) {
            snprintf(msg, sz, "invalid generator: row %ld of Q sums to %g, "
                     "not 0 (was Q passed instead of its transpose?)",
                     (long)i, s[i]);
            rc = -1;
        }
    }
    free(s);
    return rc;
}

/* The caller's guess when it is a usable distribution, else uniform. */
static void initial_guess(double *pi, int64_t n)
{
    double s = 0;
    int ok = 1;
    for (int64_t i = 0; i < n && ok; i++) {
        if (!(pi[i] >= 0) || !isfinite(pi[i]))
            ok = 0;
        s += pi[i];
    }
    if (ok && s > 0 && isfinite(s)) {
        num_ls_scale(pi, n, 1.0 / s);
        return;
    }
    for (int64_t i = 0; i < n; i++)
        pi[i] = 1.0 / (double)n;
}

/* ------------------------------------------------------------------ */
/* Final checks                                                         */
/* ------------------------------------------------------------------ */

/* Every method ends here.  NaN is a failure.  The vector is normalized
 * and negatives are set to zero: those within roundoff of the largest
 * entry silently; larger ones are accepted only when the clamped vector
 * still meets tol (they are then within the accuracy that was asked for,
 * e.g. on states of probability 1e-15 solved to tol 1e-10), and are a
 * failure otherwise, because then the answer itself is wrong.  The
 * residual is recomputed from what is returned. */
int num_ls_normalize(double *pi, int64_t n, san_solve_info *info, num_ls_neg *neg)
{
    neg->mx = neg->mn = 0;
    neg->imn = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(pi[i])) {
            snprintf(info->msg, sizeof info->msg, "the solution contains "
                     "NaN or infinity at state %ld (overflow or breakdown "
                     "in %s)", (long)i, san_method_name(info->method));
            return -1;
        }
    }
    double s = num_ls_sum(pi, n);       /* compensated: vec.c */
    if (!(s > 0) || !isfinite(s)) {
        snprintf(info->msg, sizeof info->msg, "the solution sums to %g "
                 "(%s broke down)", s, san_method_name(info->method));
        return -1;
    }
    num_ls_scale(pi, n, 1.0 / s);
    for (int64_t i = 0; i < n; i++) {
        neg->mx = pi[i] > neg->mx ? pi[i] : neg->mx;
        if (pi[i] < neg->mn) {
            neg->mn = pi[i];
            neg->imn = i;
        }
    }
    for (int64_t i = 0; i < n; i++)
        pi[i] = pi[i] < 0 ? 0 : pi[i];
    num_ls_scale(pi, n, 1.0 / num_ls_sum(pi, n));
    return 0;
}

int num_ls_verdict(int st, san_solve_info *info, double tol, const num_ls_neg *neg)
{
    if (info->residual != info->residual) {
        snprintf(info->msg, sizeof info->msg, "the residual is NaN");
        return -1;
    }
    /* st == 0 comes from num_ls_verify, which measured the balance of
     * the vector that normalize has just left unchanged (unless it
     * clamped a negative entry) */
    const double lim = fmax(tol, info->error_est);     /* at the roundoff floor */
    if (st == 0 && !(info->balance <= lim) && neg->mn < -NEG_ROUNDOFF * neg->mx) {
        snprintf(info->msg, sizeof info->msg, "negative probability %.3g "
                 "at state %ld (largest %.3g): the chain may not be "
                 "irreducible, or is too ill-conditioned for %s",
                 neg->mn, (long)neg->imn, neg->mx, san_method_name(info->method));
        return -1;
    }
    if (st == 0 && !(info->balance <= lim)) {
        snprintf(info->msg, sizeof info->msg, "%s finished but the balance residual "
                 "of the normalized vector is %.2e > tol %.2e",
                 san_method_name(info->method), info->balance, tol);
        st = 1;
    }
    return st;
}

static int finish(num_ls *c, double *pi, int st)
{
    num_ls_neg neg;
    if (num_ls_normalize(pi, c->qt->n, c->info, &neg) < 0)
        return -1;
    if (st == 1)
        num_ls_estimate_returned(c, pi);
    c->info->residual = num_op_residual(c->op, pi, NULL);
    return num_ls_verdict(st, c->info, c->o->tol, &neg);
}

/* ------------------------------------------------------------------ */
/* The common driver: a kernel's answer made a promise (verify.c)       */
/* ------------------------------------------------------------------ */

/* An answer is a distribution, or a start for the refinement, when it
 * is finite and its negative entries (roundoff of the Krylov methods)
 * carry at most this fraction of its mass; they are then set to 0. */
#define NEG_MASS_MAX 1e-3
static int usable_vector(double *x, int64_t n)
{
    double pos = 0, neg = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return 0;
        if (x[i] >= 0)
            pos += x[i];
        else
            neg -= x[i];
    }
    if (!(pos > 0) || !isfinite(pos) || neg > NEG_MASS_MAX * pos)
        return 0;
    for (int64_t i = 0; i < n; i++)
        x[i] = x[i] < 0 ? 0 : x[i];
    return 1;
}

/* Uniform over the positions of the chain (q_jj != 0; a one-state
 * chain has none and never gets here). */
static void initial_guess_op(num_ls *c, double *x)
{
    const int64_t n = c->op->n;
    int64_t k = 0;
    for (int64_t j = 0; j < n; j++)
        k += num_op_qjj(c->op, j) != 0;
    for (int64_t j = 0; j < n; j++)
        x[j] = num_op_qjj(c->op, j) != 0 ? 1.0 / (double)k : 0;
}

void num_ls_free(num_ls *c)
{
    num_agg_free(c->agg);
    c->agg = NULL;
    free(c->dneg);
    c->dneg = NULL;
}

/* A named method's answer gets this many refinement cycles: enough to
 * polish a good answer's small probabilities and tails (1 to 3 on the
 * models of the bench), not enough to hide a wrong one. */
#define NAMED_CYCLES 5
/* Times a named method is then asked for more (its own residual target
 * a hundred times smaller each time) when its answer still fails. */
#define CHECK_RETRIES 2
#define RETRY_TIGHTEN 1e-2
#define RETRY_FLOOR 1e-17

/* A kernel that "converged" to something that is not a distribution
 * broke down (GMRES(30) does, on some async master/slave models). */
static int not_a_distribution(num_ls *c, double *pi)
{
    san_solve_info *info = c->info;
    if (usable_vector(pi, c->op->n))
        return 0;
    double s = 0;
    for (int64_t i = 0; i < c->op->n; i++)
        s += pi[i];
    snprintf(info->msg, sizeof info->msg, "%s broke down: its answer is not a "
             "distribution (it sums to %.3g, with large negative entries); try --method "
             "auto or iad", san_method_name(info->method), s);
    return 1;
}

/* A best vector to show with "not converged": finite, some mass. */
static int has_mass(const double *x, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return 0;
        s += x[i];
    }
    return s > 0 && isfinite(s);
}

/* A named kernel that stopped at its roundoff floor (num_ls_stalled)
 * hands its best vector to the checks, which give the verdict; its
 * message becomes a note should they pass. */
static int stalled_to_checks(num_ls *c, int st)
{
    if (st != 1 || !c->stalled)
        return st;
    c->stalled = 0;
    if (!c->info->note[0]) {
        snprintf(c->info->note, sizeof c->info->note, "%s", c->info->msg);
        c->stall_note = 1;
    }
    c->info->msg[0] = '\0';
    return 0;
}

static int checked_named(num_ls *c, double *pi, san_ls_kernel k, int st)
{
    san_solve_info *info = c->info;
    if (st == 1 && !has_mass(pi, c->op->n))
        return -1;                      /* no best vector to show: the kernel's
                                           message says what to try */
    st = stalled_to_checks(c, st);
    for (int retry = 0; st == 0; retry++) {
        if (not_a_distribution(c, pi))
            return -1;
        long it = info->iterations;
        st = num_ls_verify(c, pi, NAMED_CYCLES);
        if (st == 0 && info->refine_cycles > 1 && !info->note[0])
            snprintf(info->note, sizeof info->note, "the answer of %s was polished by %ld "
                     "refinement cycles (smoothing and aggregation)",
                     san_method_name(info->method), info->refine_cycles);
        else if (st == 0 && info->refine_cycles > 1 && c->stall_note) {
            /* the stall's message is the note: say what answered */
            size_t len = strlen(info->note);
            snprintf(info->note + len, sizeof info->note - len, "; its best vector was "
                     "polished by %ld refinement cycles", info->refine_cycles);
        }
        c->stall_note = 0;
        /* a target already at the roundoff floor cannot be tightened,
         * nor a floor the LU correction measured (floor_measured:
         * auto's GMRES resort on boundtest's slow3 at --tol 1e-12 ran
         * its two retries at its own floor, 1e-16, to the stagnation
         * window, 370 iterations, for the same refusal) */
        if (st != 1 || retry == CHECK_RETRIES || c->tol * RETRY_TIGHTEN < RETRY_FLOOR ||
            c->floor_measured)
            break;
        char why[sizeof info->msg];
        memcpy(why, info->msg, sizeof why);
        info->msg[0] = '\0';
        c->tol *= RETRY_TIGHTEN;
        c->plateau_handoff = 0;         /* the checks refused a plateau's vector */
        st = k(c, pi);
        info->iterations += it;         /* the kernel counts its own */
        if (st == 1 && !has_mass(pi, c->op->n))
            return -1;
        st = stalled_to_checks(c, st);
        if (st == 1)                    /* the check says more than "not converged" */
            memcpy(info->msg, why, sizeof why);
    }
    return st;
}

/* s in at most max characters, cut at a word with "..." when longer:
 * a first method's message quoted in a note (a note cut mid-word read
 * "raise --ma)").  Returns out. */
static const char *quote_words(char *out, size_t max, const char *s)
{
    size_t len = strlen(s);
    if (len < max) {
        memcpy(out, s, len + 1);
        return out;
    }
    size_t k = max - 4;
    while (k > 0 && s[k] != ' ')
        k--;
    while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == ',' || s[k - 1] == ';' || s[k - 1] == ':'))
        k--;
    if (k == 0)
        k = max - 4;
    memcpy(out, s, k);
    memcpy(out + k, "...", 4);
    return out;
}

/* Where auto's kernel stops at the latest: far below tol on its own
 * residual.  A normwise residual of tol leaves every probability an
 * absolute error of about tol times the largest one, so those of 1e-10
 * were off by 1e-2 on an async master/slave model and took the
 * refinement 11 cycles; four more decades cost the Krylov method a few
 * iterations (35 instead of 30 there) and leave the refinement one or
 * two cycles.  This is only a cap: auto's BiCGSTAB asks the checks
 * themselves on the way (krylov.c, num_ls_probe) and stops as soon as
 * the contract holds (rs 20/9, 431,910 states, tol 1e-12: 31 iterations
 * and one probe, where the cap took 39 and a cycle; ms async 6/40 at
 * tol 1e-10: the probe's screen refuses, the cap and 3 cycles answer as
 * before).  A kernel that cannot get there (its roundoff floor) hands
 * over its best vector without a word: the refinement decides. */
#define AUTO_KERNEL_TIGHTEN 1e-4
/* ... but not below what a Krylov method reaches on a well-conditioned
 * chain (its normwise roundoff floor, a few epsilon). */
#define AUTO_KERNEL_FLOOR 1e-15

int num_ls_checked(num_ls *c, double *pi, san_ls_kernel k, int refining)
{
    san_solve_info *info = c->info;
    const san_method asked = info->method;
    const int is_auto = c->o->method == SAN_M_AUTO;
    c->tried |= 1u << asked | (refining ? 1u << SAN_M_IAD : 0);
    /* named methods stop at their roundoff floor (tol 0 asks to run
     * until a limit stops the kernel) */
    c->stall_watch = !is_auto && c->o->tol > 0;
    c->plateau_handoff = c->stall_watch;
    c->stalled = 0;
    c->probe = is_auto && k;
    c->oracle = getenv("SAN_TEST_ORACLE") ? num_ls_oracle_judge : NULL;
    c->verified = 0;
    c->probe_change = 0;
    if (is_auto) {
        c->settle = c->tol;
        c->tol = fmax(c->tol * AUTO_KERNEL_TIGHTEN, fmin(c->tol, AUTO_KERNEL_FLOOR));
    }
    int st = k ? k(c, pi) : 0;
    if (!refining)
        return checked_named(c, pi, k, st);
    if (st == 0 && k && !usable_vector(pi, c->op->n))
        st = -1, not_a_distribution(c, pi);
    if (st == 1 && is_auto && usable_vector(pi, c->op->n))
        st = 0;
    if (st < 0 && c->final)
        return st;
    if (st < 0 || st == 1) {
        /* auto, direct: the aggregation takes over, and says so */
        char q[151];
        snprintf(info->note, sizeof info->note, "%s %s (%s); the answer comes from "
                 "the aggregation method (iad)", san_method_name(asked),
                 st < 0 ? "failed" : "did not converge", quote_words(q, sizeof q, info->msg));
        if (st < 0 || !usable_vector(pi, c->op->n))
            initial_guess_op(c, pi);
        info->method = SAN_M_IAD;
    }
    info->msg[0] = '\0';
    const long probes = c->probes;      /* auto's kernel's cycles (num_ls_probe) */
    st = num_ls_verify(c, pi, 0);
    if (st == 0 && k && info->method == asked && info->refine_cycles - probes > NAMED_CYCLES) {
        /* the refinement's own note (tol below the roundoff floor: why
         * the estimate is above tol) is kept after this one */
        char was[sizeof info->note];
        snprintf(was, sizeof was, "%s", info->note);
        snprintf(info->note, sizeof info->note, "the answer of %s failed the checks "
                 "(balance or aggregation) and was refined by %ld aggregation cycles%s%.600s",
                 san_method_name(asked), info->refine_cycles, was[0] ? "; " : "", was);
        info->method = SAN_M_IAD;
    }
    return st;
}

/* ------------------------------------------------------------------ */
/* The sparse path's methods                                            */
/* ------------------------------------------------------------------ */

/* Largest over smallest positive off-diagonal rate. */
static double rate_span(const san_csr *qt)
{
    double lo = HUGE_VAL, hi = 0;
    for (int64_t j = 0; j < qt->n; j++)
        for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++)
            if (qt->col[t] != j && qt->val[t] > 0) {
                if (qt->val[t] < lo)
                    lo = qt->val[t];
                if (qt->val[t] > hi)
                    hi = qt->val[t];
            }
    return hi > 0 ? hi / lo : 1;
}

/* Asked for by name: any cost is accepted but running the machine out
 * of memory; the refusal says what to use instead. */
static int direct_named(num_ls *c, double *pi)
{
    int st = num_ls_direct(c, pi, num_ls_budget(c->o), HUGE_VAL);
    if (st == 2)
        c->final = 1;       /* too big: the user chooses what to run instead */
    return st == 2 ? -1 : st;
}

static san_ls_kernel named_kernel(san_method m)
{
    switch (m) {
    case SAN_M_POWER:    return num_ls_power;
    case SAN_M_JACOBI:   return num_ls_jacobi;
    case SAN_M_GS:       return num_ls_gs;
    case SAN_M_GMRES:    return num_ls_gmres;
    case SAN_M_BICGSTAB: return num_ls_bicgstab;
    case SAN_M_ML:       return num_ls_ml;
    default:             return NULL;
    }
}

/* auto's last resort when the refinement stagnates (stiff chains whose
 * slow modes span several automata: independent birth-death chains with
 * rates from 1e-4 to 1e4 left the balance at 2e-9 after 30 cycles): a
 * dense GTH solve up to SAN_GTH_MAX_N states, else an LU when UMFPACK's
 * estimate is within these bounds, refined like any answer. */
#define LAST_LU_MAX_N 200000
#define LAST_LU_MAX_MEM (4.0 * 1024 * 1024 * 1024)
#define LAST_LU_MAX_FLOPS 5e11

static int direct_cheap(num_ls *c, double *pi)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    double mem = fmin(LAST_LU_MAX_MEM, num_ls_budget(c->o));
    if (pages > 0 && psz > 0 && 0.5 * (double)pages * (double)psz < mem)
        mem = 0.5 * (double)pages * (double)psz;
    int st = num_ls_direct(c, pi, mem, LAST_LU_MAX_FLOPS);
    return st == 2 ? -1 : st;
}

int num_ls_auto_end(num_ls *c, int st)
{
    san_solve_info *info = c->info;
    if (st != 1 || info->status == SAN_E_INTERRUPTED)
        return st;
    char *t = strstr(info->msg, "; try ");
    /* a verdict at the roundoff floor (verify.c: "try --tol 1e-09") is
     * kept: the LU's correction measured it, and another method does
     * not go below it (boundtest's slow3, rates 1e-6 to 20: direct, iad
     * and ml all stop at 5.5e-10; gs, which auto advised, at 1.0) */
    if (!t || !strncmp(t, "; try --tol ", 12))
        return st;
    char adv[96];
    num_ls_advice(c, adv, sizeof adv);
    *t = '\0';
    size_t len = strlen(info->msg);
    snprintf(info->msg + len, sizeof info->msg - len, "; %s", adv);
    return st;
}

/* How a note names the method that answered. */
static const char *method_words(san_method m)
{
    switch (m) {
    case SAN_M_ML:    return "the multilevel method (ml)";
    case SAN_M_GMRES: return "GMRES (gmres)";
    default:          return san_method_name(m);
    }
}

/* auto's method stopped short: method m takes its best vector, with the
 * tol the user asked for (not auto's tighter kernel target) and a named
 * method's checks. */
int num_ls_resort(num_ls *c, double *pi, int st, san_method m, san_ls_kernel k)
{
    san_solve_info *info = c->info;
    const int64_t n = c->op->n;
    if (st != 1 || info->status == SAN_E_INTERRUPTED || c->floor_measured ||
        !usable_vector(pi, n))
        return st;
    /* the first method's answer and verdict, kept should ml do worse */
    double *first = malloc((size_t)n * sizeof *first);
    if (!first)
        return st;
    memcpy(first, pi, (size_t)n * sizeof *first);
    const san_solve_info was = *info;
    info->method = m;
    info->msg[0] = info->note[0] = '\0';
    info->status = SAN_OK;
    info->error_est = 0;            /* the first method's: not m's vector */
    c->tol = c->o->tol * 0.9;
    c->settle = 0;
    c->probe = 0;
    c->tried |= 1u << m;
    int st2 = checked_named(c, pi, k, k(c, pi));
    info->iterations += was.iterations;
    if (st2 == 0) {
        char q[121];
        snprintf(info->note, sizeof info->note, "%s stopped short (%s); the answer "
                 "comes from %s", san_method_name(was.method),
                 quote_words(q, sizeof q, was.msg), method_words(m));
    } else if (st2 < 0 || !usable_vector(pi, n) || !(info->residual < was.residual)) {
        /* the better of the two vectors, with its own verdict: the
         * first method's (its refusal also says more) unless m got
         * closer */
        const long it = info->iterations, prod = info->products;
        *info = was;
        info->iterations = it;
        info->products = prod;
        info->status = SAN_OK;
        memcpy(pi, first, (size_t)n * sizeof *first);
        st2 = 1;
    }
    free(first);
    return st2;
}

/* auto's method stopped short: the multilevel method (ml.c) takes its
 * best vector.  Measured on the repairable clusters of
 * bench/models/cluster64.san: 64 workstations a side, iad 269 cycles
 * (4.6 s) where ml takes 24; 128 a side (597,012 states), auto refused
 * (iad stagnated) where ml answers in 34 cycles.  QVBS's cluster.prism
 * at N = 128 (597,012 states): BiCGSTAB stagnates, iad's refinement
 * stops contracting after 13 cycles, and ml answers in 58 cycles (112
 * iterations and 159 products in all; 44 s wall, 15 s CPU, two cores at
 * a load of 11), premium 0.99793789109 for Storm's sound 0.9979378911.
 * Before ml's strength threshold went from 0.25 to 0.5 (ml.c) ml took
 * 845 cycles from the uniform vector there, and auto did not finish. */
static int ml_resort(num_ls *c, double *pi, int st)
{
    return num_ls_resort(c, pi, st, SAN_M_ML, num_ls_ml);
}

static int last_resort(num_ls *c, double *pi, int st)
{
    san_solve_info *info = c->info;
    const int64_t n = c->qt->n;
    if (st != 1 || info->status == SAN_E_INTERRUPTED || n > LAST_LU_MAX_N || c->floor_measured)
        return st;
    char why[sizeof info->msg];
    memcpy(why, info->msg, sizeof why);
    san_method was = info->method;
    const double was_est = info->error_est;
    info->method = SAN_M_DIRECT;
    info->msg[0] = info->note[0] = '\0';
    info->status = SAN_OK;
    info->error_est = 0;            /* the first method's: not the LU's vector */
    int st2 = num_ls_checked(c, pi, n <= SAN_GTH_MAX_N ? num_ls_gth : direct_cheap, 1);
    if (st2 == 0) {
        char q[121];
        snprintf(info->note, sizeof info->note, "%s stopped short (%s); the answer "
                 "comes from a direct solve (%s), refined", san_method_name(was),
                 quote_words(q, sizeof q, why),
                 n <= SAN_GTH_MAX_N ? "GTH" : "LU");
        return 0;
    }
    if (st2 < 0) {      /* the LU did not fit: the first refusal says more */
        memcpy(info->msg, why, sizeof why);
        info->error_est = was_est;
    }
    return st2 < 0 ? st : st2;
}

/* auto's last try, when everything else stopped short: GMRES from the
 * best vector (it converges on some chains where BiCGSTAB, the
 * aggregation and the multilevel method stagnate; issue 34). */
static int krylov_resort(num_ls *c, double *pi, int st)
{
    if (st != 1 || c->info->status == SAN_E_INTERRUPTED || c->final)
        return st;
    c->stagnation = 0;              /* the kernel's own window */
    return num_ls_resort(c, pi, st, SAN_M_GMRES, num_ls_gmres);
}

static int run_method(num_ls *c, double *pi)
{
    san_solve_info *info = c->info;
    switch (info->method) {
    case SAN_M_DIRECT:
        return num_ls_checked(c, pi, direct_named, 1);
    case SAN_M_IAD:
        return num_ls_checked(c, pi, NULL, 1);
    case SAN_M_AUTO:
        break;
    default:
        return num_ls_checked(c, pi, named_kernel(info->method), 0);
    }
    /* auto: a dense GTH solve where it is cheap, or where the rates
     * span so much that an LU or a residual could not be trusted and
     * the chain is small; else BiCGSTAB with ILU(0), refined. */
    if (c->qt->n <= SAN_PART_WHOLE_MAX ||
        (c->qt->n <= SAN_GTH_MAX_N && rate_span(c->qt) > SAN_STIFF_SPAN)) {
        info->method = SAN_M_DIRECT;
        return num_ls_checked(c, pi, num_ls_gth, 1);
    }
    /* what auto runs, which its refusal does not advise */
    c->tried = 1u << SAN_M_BICGSTAB | 1u << SAN_M_IAD | 1u << SAN_M_ML | 1u << SAN_M_GMRES |
               (c->qt->n <= LAST_LU_MAX_N ? 1u << SAN_M_DIRECT : 0);
    int st;
    if (num_parts_coupling(c->parts) < SAN_NCD_COUPLING) {
        info->method = SAN_M_IAD;
        st = last_resort(c, pi, ml_resort(c, pi, num_ls_checked(c, pi, NULL, 1)));
    } else {
        info->method = SAN_M_BICGSTAB;
        c->stagnation = SAN_AUTO_STAGNATION;
        st = last_resort(c, pi, ml_resort(c, pi, num_ls_checked(c, pi, num_ls_bicgstab, 1)));
    }
    return num_ls_auto_end(c, krylov_resort(c, pi, st));
}

int num_parts_add_csr(num_parts *P, const san_csr *qt, double budget)
{
    if (num_parts_add_fast(P, qt, budget) < 0 || num_parts_add_whole(P, qt->n) < 0)
        return -1;
    num_parts_prune(P, qt->n);
    return 0;
}

/* Past the time limit before the first iteration (the checks and the
 * partitions are passes over every nonzero: seconds on 10^8 of them):
 * the uniform vector is the best one, returned as a stop (1). */
static int late_start(num_ls *c, double *pi)
{
    const san_solve_opts *o = c->o;
    if (!(o->time_limit > 0) || san_ls_now() - c->t0 < o->time_limit)
        return 0;
    initial_guess(pi, c->qt->n);
    c->info->status = SAN_E_INTERRUPTED;
    snprintf(c->info->msg, sizeof c->info->msg, "time limit of %g s reached before the "
             "first iteration; raise --time-limit", o->time_limit);
    return 1;
}

int num_ctmc_solve_parts(const san_csr *qt, double *pi, const san_solve_opts *o,
                         san_solve_info *info, const num_parts *given)
{
    san_solve_opts dflt;
    num_ls c;
    num_op op;
    num_parts parts;
    double t0 = san_ls_now();
    if (!o) {
        san_solve_opts_default(&dflt);
        o = &dflt;
    }
    memset(info, 0, sizeof *info);
    info->method = o->method;
    info->residual = HUGE_VAL;
    info->lu_correction = -1;
    if (!qt || !qt->rowptr || !pi || qt->n <= 0 || qt->n > INT32_MAX) {
        snprintf(info->msg, sizeof info->msg, "invalid generator: %s",
                 !qt || !qt->rowptr || qt->n <= 0 ? "no states" :
                 !pi ? "no vector" : "too many states for 32-bit indices");
        info->status = SAN_E_USAGE;
        return -1;
    }
    if (!strcmp(san_method_name(o->method), "?")) {
        snprintf(info->msg, sizeof info->msg, "unknown method %d",
                 (int)o->method);
        info->status = SAN_E_USAGE;
        return -1;
    }
    memset(&c, 0, sizeof c);
    c.qt = qt;
    c.o = o;
    c.info = info;
    c.tol = o->tol * 0.9;
    c.t0 = t0;
    c.last_print = t0;
    c.clock_skip = qt->rowptr[qt->n] >= 4096 ? 1 : 64;
    if (late_start(&c, pi))
        return 1;
    if (validate(qt, &c.maxd, info->msg, sizeof info->msg) < 0 ||
        check_row_sums(qt, info->msg, sizeof info->msg) < 0) {
        info->status = SAN_E_USAGE;
        return -1;
    }
    if (late_start(&c, pi))
        return 1;
    if (qt->n == 1) {
        pi[0] = 1;
        info->residual = 0;
        info->converged = 1;
        info->time_s = san_ls_now() - t0;
        return 0;
    }
    memset(&parts, 0, sizeof parts);
    if (o->time_limit > 0)
        parts.deadline = t0 + o->time_limit;
    parts.interrupt = o->interrupt;
    if (!given && num_parts_add_csr(&parts, qt, 0.25 * num_ls_budget(o)) < 0) {
        snprintf(info->msg, sizeof info->msg, "out of memory for the partitions of the "
                 "aggregation check (%lld states)", (long long)qt->n);
        info->status = SAN_E_NOMEM;
        return -1;
    }
    if (late_start(&c, pi)) {
        num_parts_free(&parts);
        return 1;
    }
    initial_guess(pi, qt->n);
    num_op_csr(&op, qt, c.maxd);
    c.op = &op;
    c.parts = given ? given : &parts;
    int st = run_method(&c, pi);
    num_ls_progress_end(&c);
    if (st >= 0)
        st = finish(&c, pi, st);
    num_ls_free(&c);
    num_parts_free(&parts);
    info->products = op.products;
    info->product_s = op.product_s;
    info->converged = st == 0;
    if (st == 0) {
        info->msg[0] = '\0';
        num_ls_note_answered(info->note);
    }
    info->time_s = san_ls_now() - t0;
    return st;
}

san_status num_ls_status(int st, san_solve_info *info)
{
    if (st == 0)
        info->status = SAN_OK;
    else if (st == 1)
        info->status = info->status == SAN_E_INTERRUPTED ? SAN_E_INTERRUPTED : SAN_E_NOTCONV;
    else if (info->status == SAN_OK || info->status == SAN_E_NOTCONV ||
             info->status == SAN_E_INTERRUPTED)
        info->status = SAN_E_NUMERIC;
    return info->status;
}

int num_solve_opts_foreign(const san_solve_opts *o, san_solve_info *info)
{
    char msg[sizeof info->msg];
    if (!o || !BASE_OPTS_FOREIGN(o, "solve", "san_solve_opts_default", msg, sizeof msg))
        return 0;
    memset(info, 0, sizeof *info);
    info->lu_correction = -1;
    memcpy(info->msg, msg, sizeof msg);
    info->status = SAN_E_USAGE;
    return -1;
}

san_status san_ctmc_solve(const san_csr *qt, double *pi, const san_solve_opts *o,
                          san_solve_info *info)
{
    if (num_solve_opts_foreign(o, info) < 0)
        return info->status;
    return num_ls_status(num_ctmc_solve_parts(qt, pi, o, info, NULL), info);
}
