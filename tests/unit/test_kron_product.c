/*
 * test_kron_product.c - the Kronecker descriptor's product y = x Q
 * (kron_mult, solver/kron/mult.c) against the sparse generator, under
 * every tuning of the build (kron_tuning).
 *
 * The reference is the generator the sparse path builds (san_space_build:
 * Q by rows over the reachable states, duplicates merged, self-loops
 * dropped, the diagonal included), multiplied here by a plain loop.  For
 * each model the descriptor is built on the product space (KRON_PRODUCT)
 * and on the reachable set (KRON_REACHABLE); a random x on the reachable
 * states (fixed seed, signs mixed) is placed at the positions kron_rank
 * gives, and every entry of y = x Q must match the reference within
 * 1e-13 of sum_j |x_j q_jk|.  Also checked: the descriptor's diagonal
 * and maxd, the positions (a bijection onto the vector in mixed-radix
 * order, -1 for the states outside the set), and on the product space
 * that y stays exactly 0 at the unreachable positions, where x is 0
 * (kron.h: "the unreachable entries staying exactly zero").
 *
 * Models: generated ones (always; resource sharing at low fill, a ring
 * of groups sharing resources, synchronizing events with functional
 * rates and probabilities, the ms and pipeline templates), the
 * repository's models folder (top_srcdir), and the PEPS models in
 * $SHARED_MODELS/peps when that folder exists; product spaces above
 * MAX_PRODUCT are skipped.  Exit status 0 when every check passes.
 *
 * Every check of a descriptor runs under each tuning of tunings[] (the
 * defaults, and others that force the paths the defaults seldom take),
 * the model, its spaces and the reference built once; the lines and the
 * failures name the tuning.  A tuning may skip the models with more
 * reachable states than its max_states, and $KRON_TEST_MAX_STATES (0 or
 * unset: no limit) caps them all.
 */
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "san.h"
#include "solver/kron/kron.h"
#include "tests/unit/check.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

#define MAX_PRODUCT 2000000
#define REL_TOL 1e-13
#define TINY 1e-300

/* A tuning the checks run under (kron.h: kron_tuning). */
typedef struct {
    const char *name;
    const char *what;       /* what it forces */
    kron_tuning t;
    int64_t max_states;     /* more reachable states: skipped (0: none) */
    int pass, fail;         /* checks of descriptors built with it */
} tuning;

static tuning tunings[4];
static int ntunings;

/* $KRON_TEST_MAX_STATES: a limit on every tuning (0: none). */
static int64_t env_max_states;

static void tunings_init(void)
{
    const kron_tuning d = kron_tuning_default;
    tuning *t = tunings;
    *t++ = (tuning){ "default", "the defaults", d, 0, 0, 0 };
    /* no region level: every term walks down to the leaves, merging
     * explicit child lists */
    *t = (tuning){ "walk", "no region level: every term walks down to the leaves",
                   d, 0, 0, 0 };
    t->t.region_bytes_per_state = 0;
    t->t.region_min_bytes = 0;
    t->t.region_max = 0;
    t++;
    /* functions evaluated at each use (tables over 16 entries), runs of
     * 2 to 7 updates, windows of about 64 states, regions of at most 64
     * leaves; models above 40000 reachable states skipped (windows that
     * small make the walk over the explicit tree quadratic: minutes on
     * rs n=20 r=10) */
    *t = (tuning){ "small", "functions over 16 entries evaluated, runs from 2 updates, "
                   "windows of 64 states, regions of 64 leaves", d, 40000, 0, 0 };
    t->t.table_max = 16;
    t->t.run_min = 2;
    t->t.window_len = 64;
    t->t.region_max = 64;
    t++;
    /* a 4 KiB region budget: some terms get runs, others walk */
    *t = (tuning){ "partial", "a 4 KiB region budget: some terms get runs, others walk",
                   d, 0, 0, 0 };
    t->t.region_min_bytes = 4096;
    t->t.region_bytes_per_state = 1;
    t++;
    ntunings = (int)(t - tunings);
}

/* The limit on reachable states under tuning T (0: none). */
static int64_t max_states_of(const tuning *T)
{
    int64_t a = T->max_states, b = env_max_states;
    return a > 0 && (b <= 0 || a < b) ? a : b;
}

static int skipped(const tuning *T, const san_space *sp)
{
    const int64_t lim = max_states_of(T);
    return lim > 0 && sp->n > lim;
}

/* The checks made under tuning T: start with tuning_begin, end with
 * tuning_end (the counts of check.h as they were, and T's share). */
typedef struct {
    int pass, fail;
} counts;

static counts tuning_begin(void)
{
    return (counts){ n_pass, n_fail };
}

static void tuning_end(tuning *T, counts c)
{
    T->pass += n_pass - c.pass;
    T->fail += n_fail - c.fail;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* xorshift64: the same x on every run and platform. */
static uint64_t rng_state;
static double srand_pm1(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return 2.0 * ((double)(rng_state >> 11) / 9007199254740992.0) - 1.0;
}

/* ------------------------------------------------------------------ */
/* One model, one mode                                                  */
/* ------------------------------------------------------------------ */

/* The reference x Q over the reachable states, from sp->q by rows:
 * yref[k] = sum_j x_j q_jk, sabs[k] = sum_j |x_j q_jk|. */
static void reference(const san_space *sp, const double *xs, double *yref, double *sabs)
{
    const san_csr *q = &sp->q;
    memset(yref, 0, sp->n * sizeof *yref);
    memset(sabs, 0, sp->n * sizeof *sabs);
    for (int64_t j = 0; j < sp->n; j++)
        for (int64_t p = q->rowptr[j]; p < q->rowptr[j + 1]; p++) {
            double t = xs[j] * q->val[p];
            yref[q->col[p]] += t;
            sabs[q->col[p]] += fabs(t);
        }
}

/* Q[i][i] from the sparse rows (0 when absent: a row without exits). */
static double sparse_diag(const san_csr *q, int64_t i)
{
    for (int64_t p = q->rowptr[i]; p < q->rowptr[i + 1]; p++)
        if (q->col[p] == i)
            return q->val[p];
    return 0;
}

/* ------------------------------------------------------------------ */
/* Flows between blocks (kron_flows)                                   */
/* ------------------------------------------------------------------ */

/* kron_flows over partition blk (B blocks; lev: the automata it reads,
 * or NULL) against two references: the sparse generator's transitions
 * (F[S][T] = sum x_i q_ij over i in S, j in T, S != T) and the per-block
 * products it replaces (x restricted to S, times Q, summed by block):
 * each entry within 1e-12 of sum |x_i q_ij|.  x (on the positions) and
 * y are scratch of d->n.  0 checked, 1 the descriptor cannot walk from
 * the sources (nothing to check), -1 a difference. */
#define FLOW_TOL 1e-12
/* The references cost a product per block: checked on vectors of at
 * most this many positions (this many with windows of a few states,
 * whose walks from the sources over the explicit tree are slow), which
 * keeps the test at about a minute. */
#define FLOW_MAX 20000
#define FLOW_MAX_SMALL 2000
static int check_flows_part(const char *name, const char *mname, const char *pname,
                            const san_space *sp, const kron_desc *d, const int64_t *pos,
                            const double *xs, const uint16_t *blk, int B, const char *lev,
                            double *x, double *y)
{
    const size_t BB = (size_t)B * B;
    double *F = calloc(BB, sizeof *F), *Fr = calloc(BB, sizeof *Fr),
           *Fa = calloc(BB, sizeof *Fa), *Fp = calloc(BB, sizeof *Fp);
    int ret = 0;
    if (!F || !Fr || !Fa || !Fp) {
        CHECK(0, "%s (%s): out of memory", name, mname);
        ret = -1;
        goto out;
    }
    const int64_t n = d->n;
    memset(x, 0, n * sizeof *x);
    for (int64_t i = 0; i < sp->n; i++)
        x[pos[i]] = xs[i];
    int rc = kron_flows(d, blk, B, lev, x, F);
    CHECK(rc >= 0, "%s (%s, %s): kron_flows fails", name, mname, pname);
    if (rc != 0) {
        ret = rc > 0 ? 1 : -1;
        goto out;
    }
    const san_csr *q = &sp->q;
    for (int64_t i = 0; i < sp->n; i++)
        for (int64_t k = q->rowptr[i]; k < q->rowptr[i + 1]; k++) {
            const int bs = blk[pos[i]], bd = blk[pos[q->col[k]]];
            if (bs != bd) {
                Fr[(size_t)bs * B + bd] += xs[i] * q->val[k];
                Fa[(size_t)bs * B + bd] += fabs(xs[i] * q->val[k]);
            }
        }
    for (int S = 0; S < B; S++) {
        for (int64_t j = 0; j < n; j++)
            x[j] = 0;
        for (int64_t i = 0; i < sp->n; i++)
            if (blk[pos[i]] == S)
                x[pos[i]] = xs[i];
        kron_mult(d, x, y);
        for (int64_t j = 0; j < n; j++)
            if (blk[j] != S)
                Fp[(size_t)S * B + blk[j]] += y[j];
    }
    int64_t bad = 0;
    size_t first = 0;
    for (size_t k = 0; k < BB; k++) {
        const double tol = FLOW_TOL * Fa[k] + TINY;
        if (k / B == k % B)
            continue;
        if (!(fabs(F[k] - Fr[k]) <= tol && fabs(F[k] - Fp[k]) <= tol) && !bad++)
            first = k;
    }
    CHECK(bad == 0, "%s (%s, %s): %lld flows differ (first: %zu -> %zu: %.17g, sparse "
          "%.17g, per-block products %.17g)", name, mname, pname, (long long)bad, first / B,
          first % B, F[first], Fr[first], Fp[first]);
    ret = bad ? -1 : 0;
out:
    free(F);
    free(Fr);
    free(Fa);
    free(Fp);
    return ret;
}

/* The flows of every automaton's partition (its local state; lev that
 * automaton) and of a random partition into 7 blocks (lev NULL); what
 * the line prints. */
static const char *check_flows(const char *name, const char *mname, const san_space *sp,
                               const kron_desc *d, const int64_t *pos, const double *xs,
                               double *x, double *y)
{
    const san_model *m = sp->m;
    const int64_t n = d->n;
    uint16_t *blk = calloc(n ? n : 1, sizeof *blk);
    char *lev = calloc(m->naut, 1);
    if (!blk || !lev) {
        free(blk);
        free(lev);
        CHECK(0, "%s (%s): out of memory", name, mname);
        return "FAIL";
    }
    int ok = 1, none = 0;
    for (int a = 0; a < m->naut && ok; a++) {
        const int na = m->aut[a].nstates;
        if (na > 64)
            continue;
        for (int64_t i = 0; i < sp->n; i++)
            blk[pos[i]] = (uint16_t)((sp->index[i] / m->stride[a]) % na);
        memset(lev, 0, m->naut);
        lev[a] = 1;
        char pname[64];
        snprintf(pname, sizeof pname, "automaton %s", m->aut[a].name);
        int rc = check_flows_part(name, mname, pname, sp, d, pos, xs, blk, na, lev, x, y);
        ok = rc >= 0;
        none |= rc > 0;
    }
    if (ok && !none) {
        for (int64_t p = 0; p < n; p++)
            blk[p] = (uint16_t)((uint64_t)(srand_pm1() * 1e6 + 1e6) % 7);
        ok = check_flows_part(name, mname, "7 random blocks", sp, d, pos, xs, blk, 7, NULL,
                              x, y) >= 0;
    }
    free(blk);
    free(lev);
    return !ok ? "FAIL" : none ? "n/a" : "ok";
}

static void check_mode_(const char *name, const san_space *sp, kron_mode mode,
                        const tuning *T, const double *xs, const double *yref,
                        const double *sabs)
{
    const san_model *m = sp->m;
    const char *mode_s = mode == KRON_PRODUCT ? "product" : "reachable";
    char mname[64];     /* in the messages: mode and tuning */
    snprintf(mname, sizeof mname, "%s, %s tuning", mode_s, T->name);
    kron_desc d;
    char msg[256] = "";
    double t0 = now();
    int rc = kron_build(&d, sp, mode, &T->t, msg, sizeof msg);
    CHECK(rc == 0, "%s (%s): kron_build: %s", name, mname, msg);
    if (rc)
        return;
    CHECK(d.mode == mode, "%s (%s): built in mode %d", name, mname, (int)d.mode);
    int64_t want_n = mode == KRON_PRODUCT ? m->product : sp->n;
    CHECK(d.n == want_n, "%s (%s): vector length %lld, expected %lld", name, mname,
          (long long)d.n, (long long)want_n);
    if (d.n != want_n) {
        kron_free(&d);
        return;
    }
    const int64_t n = d.n;
    int64_t *pos = malloc((sp->n ? sp->n : 1) * sizeof *pos);
    int64_t *inv = malloc((n ? n : 1) * sizeof *inv);
    double *x = calloc(n ? n : 1, sizeof *x);
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!pos || !inv || !x || !y) {
        CHECK(0, "%s (%s): out of memory", name, mname);
        goto out;
    }

    /* positions: distinct, in range, in increasing mixed-radix order */
    for (int64_t p = 0; p < n; p++)
        inv[p] = -1;
    int64_t bad_rank = 0, first_bad = -1;
    for (int64_t i = 0; i < sp->n; i++) {
        pos[i] = kron_rank(&d, sp->index[i]);
        if (pos[i] < 0 || pos[i] >= n || inv[pos[i]] >= 0 ||
            (mode == KRON_PRODUCT && pos[i] != sp->index[i])) {
            if (!bad_rank++)
                first_bad = i;
            continue;
        }
        inv[pos[i]] = i;
    }
    CHECK(bad_rank == 0, "%s (%s): %lld reachable states with a bad position "
          "(first: state %lld, index %lld -> %lld)", name, mname, (long long)bad_rank,
          (long long)first_bad, first_bad >= 0 ? (long long)sp->index[first_bad] : -1LL,
          first_bad >= 0 ? (long long)pos[first_bad] : -1LL);
    if (bad_rank)
        goto out;
    int64_t last = -1, unordered = 0, outside_bad = 0;
    for (int64_t p = 0; p < n; p++) {
        if (inv[p] < 0)
            continue;
        if (sp->index[inv[p]] <= last)
            unordered++;
        last = sp->index[inv[p]];
    }
    CHECK(unordered == 0, "%s (%s): %lld positions out of mixed-radix order", name, mname,
          (long long)unordered);
    if (mode == KRON_REACHABLE && sp->n < m->product) {
        /* every other state of the product space is outside the set */
        int64_t k = 0;
        for (int64_t idx = 0; idx < m->product; idx++) {
            if (k < n && sp->index[inv[k]] == idx) {
                k++;
                continue;
            }
            if (kron_rank(&d, idx) != -1)
                outside_bad++;
        }
    }
    CHECK(outside_bad == 0, "%s (%s): %lld unreachable states have a position", name,
          mname, (long long)outside_bad);

    /* the diagonal and its scale */
    double dmax = 0, maxd = 0;
    int64_t dbad = 0, dfirst = -1;
    for (int64_t i = 0; i < sp->n; i++) {
        double ref = sparse_diag(&sp->q, i), got = d.diag[pos[i]];
        double err = fabs(got - ref);
        double rel = err / (fabs(ref) > 0 ? fabs(ref) : 1);
        dmax = rel > dmax || rel != rel ? rel : dmax;
        if (!(err <= REL_TOL * fabs(ref) + TINY) && !dbad++)
            dfirst = i;
        if (!sp->in_closed || sp->in_closed[i])
            maxd = fabs(ref) > maxd ? fabs(ref) : maxd;
    }
    CHECK(dbad == 0, "%s (%s): %lld diagonal entries differ (first: state %lld: "
          "%.17g vs sparse %.17g)", name, mname, (long long)dbad, (long long)dfirst,
          dfirst >= 0 ? d.diag[pos[dfirst]] : 0.0,
          dfirst >= 0 ? sparse_diag(&sp->q, dfirst) : 0.0);
    CHECK(fabs(d.maxd - maxd) <= REL_TOL * maxd + TINY, "%s (%s): maxd %.17g, sparse %.17g",
          name, mname, d.maxd, maxd);

    /* y = x Q: unwritten entries would stay NaN */
    for (int64_t i = 0; i < sp->n; i++)
        x[pos[i]] = xs[i];
    for (int64_t p = 0; p < n; p++)
        y[p] = NAN;
    kron_mult(&d, x, y);
    double ymax = 0;
    int64_t ybad = 0, yfirst = -1;
    for (int64_t i = 0; i < sp->n; i++) {
        double err = fabs(y[pos[i]] - yref[i]);
        double rel = err / (sabs[i] > 0 ? sabs[i] : 1);
        ymax = rel > ymax || rel != rel ? rel : ymax;
        if (!(err <= REL_TOL * sabs[i] + TINY) && !ybad++)
            yfirst = i;
    }
    CHECK(ybad == 0, "%s (%s): %lld entries of x Q differ (first: state %lld: %.17g vs "
          "sparse %.17g, scale %.3g)", name, mname, (long long)ybad, (long long)yfirst,
          yfirst >= 0 ? y[pos[yfirst]] : 0.0, yfirst >= 0 ? yref[yfirst] : 0.0,
          yfirst >= 0 ? sabs[yfirst] : 0.0);
    int64_t nonzero = 0, zfirst = -1;
    if (mode == KRON_PRODUCT)
        for (int64_t p = 0; p < n; p++)
            if (inv[p] < 0 && !(y[p] == 0) && !nonzero++)
                zfirst = p;
    CHECK(nonzero == 0, "%s (%s): y is not 0 at %lld unreachable positions (first: "
          "index %lld: %.17g)", name, mname, (long long)nonzero, (long long)zfirst,
          zfirst >= 0 ? y[zfirst] : 0.0);

    const char *fl = n <= (T->t.window_len < 1000 ? FLOW_MAX_SMALL : FLOW_MAX)
                   ? check_flows(name, mname, sp, &d, pos, xs, x, y) : "not checked";

    printf("  %-26s %-9s %-7s %9lld states, vector %9lld: max rel err y %.2e, diag %.2e, "
           "flows %s%s (%.2f s)\n", name, mode_s, T->name, (long long)sp->n, (long long)n,
           ymax, dmax, fl, ybad || dbad || nonzero ? "  FAIL" : "", now() - t0);
out:
    free(pos);
    free(inv);
    free(x);
    free(y);
    kron_free(&d);
}

static void check_mode(const char *name, const san_space *sp, kron_mode mode, tuning *T,
                       const double *xs, const double *yref, const double *sabs)
{
    counts c = tuning_begin();
    check_mode_(name, sp, mode, T, xs, yref, sabs);
    tuning_end(T, c);
}

/* The tensor path builds its space states_only, and the descriptor's
 * diagonal then comes from the exit rates the exploration kept, not
 * from walking the terms: it must match the sparse diagonal too, and
 * the product space's positions outside the reachable set get 0.  The
 * class check reads the arcs the exploration kept, or (no_arcs)
 * enumerates the successors again: either way the same states, in the
 * same order, as the sparse path's check. */
static int arcs_kept;   /* spaces whose check read the kept arcs */

/* The descriptor built on the states_only space sp (sname: which one)
 * under tuning T: its diagonal against the sparse one (full's). */
static void check_exit_diag(const char *name, const san_space *full, const san_space *sp,
                            const char *sname, kron_mode mode, const tuning *T)
{
    char mname[96];
    snprintf(mname, sizeof mname, "%s, %s, %s tuning",
             mode == KRON_PRODUCT ? "product" : "reachable", sname, T->name);
    kron_desc d;
    char msg[256] = "";
    if (kron_build(&d, sp, mode, &T->t, msg, sizeof msg) == 0) {
        int64_t dbad = 0, dfirst = -1, inside = 0;
        for (int64_t i = 0; i < sp->n; i++) {
            double ref = sparse_diag(&full->q, i), got = d.diag[kron_rank(&d, sp->index[i])];
            if (!(fabs(got - ref) <= REL_TOL * fabs(ref) + TINY) && !dbad++)
                dfirst = i;
        }
        for (int64_t p = 0; p < d.n; p++)
            inside += d.diag[p] != 0;
        int64_t nonzero_ref = 0;
        for (int64_t i = 0; i < sp->n; i++)
            nonzero_ref += sparse_diag(&full->q, i) != 0;
        CHECK(dbad == 0, "%s (%s): %lld diagonal entries differ (first: state %lld)", name,
              mname, (long long)dbad, (long long)dfirst);
        CHECK(inside == nonzero_ref, "%s (%s): %lld nonzero diagonal entries, the sparse "
              "diagonal has %lld", name, mname, (long long)inside, (long long)nonzero_ref);
        kron_free(&d);
    } else {
        CHECK(0, "%s (%s): kron_build: %s", name, mname, msg);
    }
}

/* The states_only space of full's model (no_arcs: its class check
 * enumerates the successors again), then the descriptors on it in the
 * modes given, under every tuning that keeps the model. */
static void check_exit(const char *name, const san_space *full, int no_arcs,
                       const kron_mode *modes, int nmodes)
{
    const char *sname = no_arcs ? "exit, no arcs" : "exit";
    san_space sp;
    san_space_opts so;
    san_space_opts_default(&so);
    so.states_only = 1;
    so.no_arcs = no_arcs;
    san_diag dg;
    san_diag_init(&dg, name, NULL, 0);
    int rc = san_space_build(full->m, &so, &sp, &dg);
    if (rc == 0) {
        arcs_kept += sp.q.col != NULL;
        CHECK(!no_arcs || !sp.q.col, "%s (%s): arcs kept", name, sname);
        rc = san_kron_check_classes(&sp, NULL, &dg);
    }
    san_diag_clear(&dg);
    CHECK(rc == 0 && sp.exit && sp.n == full->n, "%s (%s): states_only space: rc %d, "
          "%lld states", name, sname, rc, rc ? 0LL : (long long)sp.n);
    if (rc)
        return;
    int same = sp.exit && sp.n == full->n && sp.nclosed == full->nclosed &&
               !memcmp(sp.index, full->index, sp.n * sizeof *sp.index) &&
               (!full->in_closed || (sp.in_closed &&
                                     !memcmp(sp.in_closed, full->in_closed, sp.n)));
    CHECK(!sp.q.col, "%s (%s): the class check left the arcs behind", name, sname);
    CHECK(same, "%s (%s): not the sparse space's numbering", name, sname);
    for (int i = 0; same && i < nmodes; i++)
        for (int k = 0; k < ntunings; k++) {
            tuning *T = &tunings[k];
            if (skipped(T, full))
                continue;
            counts c = tuning_begin();
            check_exit_diag(name, full, &sp, sname, modes[i], T);
            tuning_end(T, c);
        }
    space_clear(&sp);
}

/* ------------------------------------------------------------------ */
/* One model                                                            */
/* ------------------------------------------------------------------ */

static void run_model(const char *name, const char *text, size_t len, uint64_t seed)
{
    san_diag dg;
    san_diag_init(&dg, name, text, len);
    san_load_opts opt;
    san_load_opts_default(&opt);
    san_model *m = san_model_load(text, len, &dg, &opt);
    if (!m)
        san_diag_print(&dg, stderr, 0);
    san_diag_clear(&dg);
    CHECK(m != NULL, "%s: does not compile", name);
    if (!m)
        return;
    if (!m->product_fits || m->product > MAX_PRODUCT) {
        printf("  %-26s skipped: product space %s > %d\n", name, m->product_str,
               MAX_PRODUCT);
        san_model_free(m);
        return;
    }
    san_space sp;
    san_space_opts so;
    san_space_opts_default(&so);
    san_diag_init(&dg, name, NULL, 0);
    int rc = san_space_build(m, &so, &sp, &dg);
    if (rc)
        san_diag_print(&dg, stderr, 0);
    san_diag_clear(&dg);
    CHECK(rc == 0, "%s: san_space_build returns %d", name, rc);
    if (rc) {
        san_model_free(m);
        return;
    }
    int kept = 0;
    for (int k = 0; k < ntunings; k++) {
        const tuning *T = &tunings[k];
        if (!skipped(T, &sp)) {
            kept++;
            continue;
        }
        printf("  %-26s %-9s %-7s skipped: %lld reachable states > %lld\n", name, "",
               T->name, (long long)sp.n, (long long)max_states_of(T));
    }
    if (!kept) {
        space_clear(&sp);
        san_model_free(m);
        return;
    }
    int64_t n = sp.n ? sp.n : 1;
    double *xs = malloc(n * sizeof *xs), *yref = malloc(n * sizeof *yref),
           *sabs = malloc(n * sizeof *sabs);
    if (xs && yref && sabs) {
        rng_state = seed;
        for (int64_t i = 0; i < sp.n; i++)
            xs[i] = srand_pm1();
        reference(&sp, xs, yref, sabs);
        static const kron_mode modes[] = { KRON_PRODUCT, KRON_REACHABLE };
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < ntunings; k++)
                if (!skipped(&tunings[k], &sp))
                    check_mode(name, &sp, modes[i], &tunings[k], xs, yref, sabs);
        check_exit(name, &sp, 0, modes, 2);
        check_exit(name, &sp, 1, modes, 1);
    } else
        CHECK(0, "%s: out of memory", name);
    free(xs);
    free(yref);
    free(sabs);
    space_clear(&sp);
    san_model_free(m);
}

/* Every *.san of a folder; the number of files found. */
static int run_folder(const char *dir, uint64_t *seed)
{
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/*.san", dir);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0)
        return 0;
    for (size_t k = 0; k < g.gl_pathc; k++) {
        size_t len;
        char *text = san_read_file(g.gl_pathv[k], &len);
        CHECK(text != NULL, "%s: unreadable", g.gl_pathv[k]);
        if (!text)
            continue;
        const char *base = strrchr(g.gl_pathv[k], '/');
        run_model(base ? base + 1 : g.gl_pathv[k], text, len, (*seed)++);
        free(text);
    }
    int n = (int)g.gl_pathc;
    globfree(&g);
    return n;
}

/* ------------------------------------------------------------------ */
/* Generated models                                                     */
/* ------------------------------------------------------------------ */

typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0)
            abort();
        if (b->s && b->n + k < b->cap) {
            b->n += k;
            return;
        }
        b->cap = 2 * (b->cap + k + 1);
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
}

/* n processes sharing r resources: a functional rate of every automaton,
 * a reachable set of sum_{k<=r} C(n, k) states.  weighted: the acquire
 * rate is also scaled by 1 + the sum of 2^-(i+1) over the users i, so
 * every reachable state has its own rate; read at the leaves, its table
 * per state then takes more values than it has codes (KRON_CODES) and
 * is kept as values. */
static void gen_rs(int n, int r, int weighted, uint64_t seed)
{
    sbuf b = { 0 };
    sb_printf(&b, "identifiers\n"
              "  N = [0..%d]; R = %d; lambda = 3; mu = 6;\n"
              "  f = lambda * (nb using < R)", n - 1, r);
    if (weighted) {
        sb_printf(&b, " * (1");
        for (int i = 0; i < n; i++)
            sb_printf(&b, " + (st P[%d] * %.17g)", i, ldexp(1.0, -(i + 1)));
        sb_printf(&b, ")");
    }
    sb_printf(&b, ";\n"
              "events\n"
              "  loc Acq (f)\n"
              "  loc Rel (mu)\n"
              "reachability = (nb using <= R);\n"
              "network rs (continuous)\n"
              "  aut P[N]\n"
              "    stt sleeping to(using) Acq\n"
              "    stt using to(sleeping) Rel\n"
              "results\n"
              "  full = nb using == R;\n");
    char name[64];
    snprintf(name, sizeof name, "rs %sn=%d r=%d", weighted ? "weighted " : "", n, r);
    run_model(name, b.s, b.n, seed);
    free(b.s);
}

/* g groups of m processes in a ring; neighbouring groups share r
 * resources (st G_i + st G_{i+1} <= r).  Group i acquires at a rate that
 * reads three automata (itself and both neighbours). */
static void gen_ring(int g, int m, int r, uint64_t seed)
{
    sbuf b = { 0 };
    sb_printf(&b, "identifiers\n  M = %d; R = %d; lambda = 2; mu = 3.5; K = [0..%d];\n",
              m, r, m);
    for (int i = 0; i < g; i++) {
        int p = (i + g - 1) % g, nx = (i + 1) % g;
        sb_printf(&b, "  a%d = lambda * (M - st G%d) * ((st G%d + st G%d) < R)"
                  " * ((st G%d + st G%d) < R);\n", i, i, p, i, i, nx);
    }
    sb_printf(&b, "events\n");
    for (int i = 0; i < g; i++)
        sb_printf(&b, "  loc acq%d (a%d)\n  loc rel%d (mu * st G%d)\n", i, i, i, i);
    sb_printf(&b, "reachability = 1");
    for (int i = 0; i < g; i++)
        sb_printf(&b, " && ((st G%d + st G%d) <= R)", i, (i + 1) % g);
    sb_printf(&b, ";\nnetwork ring (continuous)\n");
    for (int i = 0; i < g; i++)
        sb_printf(&b, "  aut G%d\n    stt n[K] to(++) acq%d to(--) rel%d\n", i, i, i);
    sb_printf(&b, "results\n  busy = st G0;\n");
    char name[64];
    snprintf(name, sizeof name, "ring g=%d m=%d r=%d", g, m, r);
    run_model(name, b.s, b.n, seed);
    free(b.s);
}

/* Explicit levels above complete ones, the reachable tree of many real
 * models (constrained automata first, free ones last): A and B (4
 * states each) never in (1,2) or (2,1), so that the values of B under
 * a1 and a2 have gaps; C a queue of kc + 1 states holding at most
 * kc - 3 + st A; D a cycle of nd free states.  On the reachable set,
 * levels 0-2 are explicit and level 3 complete.  Functional rates block
 * the moves out of the set, and B's rises under a3 (a rate 0 between
 * two states of the set); C's arrivals read every automaton (a table
 * per state on the reachable set); D's forward moves read A only (runs
 * with a stride over C's values, one coefficient each); in the
 * synchronizing event of A and B both may stay put (a term's self-loop,
 * seen above the region level), at a rate read at the last level;
 * another synchronizes A with D, the top and bottom levels; an event
 * has rate 0.  With kc = 3 (70 states), the partial tuning puts the
 * region level at the (A, B) nodes: explicit, below both. */
static void gen_mixed(int kc, int nd, uint64_t seed)
{
    sbuf b = { 0 };
    sb_printf(&b, "identifiers\n"
              "  lam = 1.1; mu = 1.7; nu = 0.9;\n"
              "  KC = [0..%d]; KD = [0..%d]; CM = %d;\n"
              "  ua = lam * !(((st A == 0) && (st B == 2)) || ((st A == 1) && (st B == 1)));\n"
              "  da = mu * !(((st A == 2) && (st B == 2)) || ((st A == 3) && (st B == 1)))\n"
              "       * (st C <= ((CM + st A) - 1));\n"
              "  ub = lam * !(((st B == 1) && (st A == 1)) || ((st B == 0) && (st A == 2)))\n"
              "       * (st A != 3);\n"
              "  db = mu * !(((st B == 3) && (st A == 1)) || ((st B == 2) && (st A == 2)));\n"
              "  ac = nu * (1 + st A + st B + st D) * (st C < (CM + st A));\n"
              "  fd = nu * (1 + st A);\n"
              "  sr = 0.7 * (st C <= CM);\n"
              "  sv = 0.6 * (1 + st D);\n"
              "events\n"
              "  loc upa (ua)\n  loc dna (da)\n  loc upb (ub)\n  loc dnb (db)\n"
              "  loc arr (ac)\n  loc dep (2.3)\n  loc nop (0)\n  loc fwd (fd)\n  loc bwd (1.2)\n"
              "  syn sab (sv)\n  syn sad (sr)\n"
              "reachability = !(((st A == 1) && (st B == 2)) || ((st A == 2) && (st B == 1)))\n"
              "               && (st C <= (CM + st A));\n"
              "network mixed (continuous)\n"
              "  aut A\n"
              "    stt a0 to(a1) upa to(a0) sab\n"
              "    stt a1 to(a2) upa to(a0) dna\n"
              "    stt a2 to(a3) upa to(a1) dna\n"
              "    stt a3 to(a2) dna to(a3) sab to(a0) sad\n"
              "  aut B\n"
              "    stt b0 to(b1) upb to(b3) sab\n"
              "    stt b1 to(b2) upb to(b0) dnb\n"
              "    stt b2 to(b3) upb to(b1) dnb\n"
              "    stt b3 to(b2) dnb to(b3) sab\n"
              "  aut C\n"
              "    stt c[KC] to(++) arr to(--) dep nop\n"
              "  aut D\n"
              "    stt d[KD] to(++) fwd to(--) bwd\n"
              "    from d[%d] to(d[0]) sad\n"
              "results\n"
              "  queue = st C;\n", kc, nd - 1, kc - 3, nd - 1);
    char name[64];
    snprintf(name, sizeof name, "mixed c=%d d=%d", kc, nd);
    run_model(name, b.s, b.n, seed);
    free(b.s);
}

/* Synchronizing events over two and three automata, functional rates
 * and routing probabilities that read non-participants, functional local
 * rates, a synchronized self-loop of every participant (dropped, as on
 * the sparse path) next to a real move of the same event, a rate that
 * closes part of the space (B + D <= 4), a partial reachability
 * function: 135 of 324 states. */
static const char sync_text[] =
    "identifiers\n"
    "  lam = 1.3; mu = 2.1; nu = 0.8;\n"
    "  K = [0..5];\n"
    "  fr = lam * (1 + st D) * ((st B + st D) < 4);\n"
    "  p  = (1 + st D) / 5;\n"
    "  pc = 1 - p;\n"
    "  q  = (1 + st A) / 4;\n"
    "  qc = 1 - q;\n"
    "  h  = (1 + st B) / 6;\n"
    "  hc = 1 - h;\n"
    "  fl = nu * (1 + st A + (st C == c2));\n"
    "events\n"
    "  syn s1 (fr)\n"
    "  syn s2 (mu)\n"
    "  syn s3 (fl)\n"
    "  syn s4 (0.6)\n"
    "  loc la (nu)\n"
    "  loc lb (0.5)\n"
    "  loc lc (fl)\n"
    "  loc ld (0.9)\n"
    "partial reachability = (st A == a0) && (st B == 0) && (st C == c0) && (st D == 0);\n"
    "network sync (continuous)\n"
    "  aut A\n"
    "    stt a0 to(a1) s1(p) to(a2) s1(pc)\n"
    "    stt a1 to(a0) la\n"
    "    stt a2 to(a0) la to(a2) s3(q) to(a1) s3(qc)\n"
    "  aut B\n"
    "    stt b[K]\n"
    "      to(++) s1\n"
    "      to(--) s2 lb\n"
    "  aut C\n"
    "    stt c0 to(c1) s1 to(c0) s4(h) to(c2) s4(hc)\n"
    "    stt c1 to(c2) s2(q) to(c0) s2(qc) to(c0) lc\n"
    "    stt c2 to(c0) lc to(c1) s3\n"
    "  aut D\n"
    "    stt d[K]\n"
    "      to(++) s2\n"
    "      to(--) ld\n"
    "      to(=) s4\n"
    "results\n"
    "  busy = st B;\n";

/* A template of san_gen, by its command line. */
static void gen_template(const char *name, char **argv, int argc, uint64_t seed)
{
    char err[256] = "";
    char *text = NULL;
    san_gen(argc, argv, &text, NULL, err, sizeof err);
    CHECK(text != NULL, "%s: san_gen: %s", name, err);
    if (!text)
        return;
    run_model(name, text, strlen(text), seed);
    free(text);
}

/* The tunings and their limits on reachable states. */
static void print_tunings(void)
{
    const char *env = getenv("KRON_TEST_MAX_STATES");
    if (env && *env)
        env_max_states = strtoll(env, NULL, 10);
    printf("tunings (kron_tuning), each check under each:\n");
    for (int k = 0; k < ntunings; k++) {
        const tuning *T = &tunings[k];
        const kron_tuning *t = &T->t;
        printf("  %-7s %s\n          table_max %lld, window_len %lld, region_max %lld, "
               "region bytes %.0f a state, at least %.0f, run_min %d", T->name, T->what,
               (long long)t->table_max, (long long)t->window_len, (long long)t->region_max,
               t->region_bytes_per_state, t->region_min_bytes, t->run_min);
        if (max_states_of(T) > 0)
            printf("; models above %lld reachable states skipped",
                   (long long)max_states_of(T));
        printf("\n");
    }
}

int main(void)
{
    double t0 = now();
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    setvbuf(stdout, NULL, _IOLBF, 0);   /* the log shows how far a crash got */
    tunings_init();
    print_tunings();

    printf("generated models\n");
    static const int rs[][2] = { { 20, 6 }, { 12, 3 }, { 16, 2 }, { 10, 9 }, { 20, 10 } };
    for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++)
        gen_rs(rs[k][0], rs[k][1], 0, seed++);
    gen_rs(12, 6, 1, seed++);
    gen_rs(6, 3, 1, seed++);
    gen_ring(4, 6, 7, seed++);
    gen_ring(3, 8, 5, seed++);
    gen_ring(4, 14, 16, seed++);
    run_model("sync", sync_text, sizeof sync_text - 1, seed++);
    gen_mixed(3, 2, seed++);
    gen_mixed(60, 4, seed++);
    gen_mixed(300, 8, seed++);
    {
        char *a[] = { "ms", "--mode", "async", "--slaves", "3", "--buffer", "3" };
        gen_template("ms async 3 slaves", a, 7, seed++);
    }
    {
        char *a[] = { "ms", "--mode", "sync", "--slaves", "4" };
        gen_template("ms sync 4 slaves", a, 5, seed++);
    }
    {
        char *a[] = { "ms", "--mode", "async", "--slaves", "6", "--buffer", "4" };
        gen_template("ms async 6 slaves", a, 7, seed++);
    }
    {
        char *a[] = { "pipeline", "--mode", "async", "--stages", "2,2,3", "--buffer", "2" };
        gen_template("pipeline async 2,2,3", a, 7, seed++);
    }
    {
        char *a[] = { "pipeline", "--mode", "async", "--stages", "2,2,11,6,4", "--replicas",
                      "1,1,2,1,1", "--buffer", "2" };
        gen_template("pipeline async 5 stages", a, 9, seed++);
    }

    const char *top = getenv("top_srcdir");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/models", top && *top ? top : ".");
    printf("repository models (%s)\n", dir);
    int nrepo = run_folder(dir, &seed);
    CHECK(nrepo > 0, "no model found in %s (set top_srcdir to the source tree)", dir);

    const char *shared = getenv("SHARED_MODELS");
    if (shared && *shared) {
        snprintf(dir, sizeof dir, "%s/peps", shared);
        printf("shared models (%s)\n", dir);
        if (run_folder(dir, &seed) == 0)
            printf("  none found: skipped\n");
    } else
        printf("shared models: SHARED_MODELS not set, skipped\n");

    CHECK(arcs_kept > 0 || (env_max_states > 0 && env_max_states < 60460),
          "no model kept its arcs for the class check (a reachable set under 1/16 of "
          "its product space does): that check went untested");
    printf("arcs kept for the class check: %d spaces\n", arcs_kept);
    int shared_checks = n_pass + n_fail;
    for (int k = 0; k < ntunings; k++) {
        printf("%-7s tuning: %d passed, %d failed\n", tunings[k].name, tunings[k].pass,
               tunings[k].fail);
        shared_checks -= tunings[k].pass + tunings[k].fail;
    }
    printf("models, spaces and class checks (every tuning's): %d\n", shared_checks);
    printf("%d passed, %d failed (%.1f s)\n", n_pass, n_fail, now() - t0);
    return n_fail ? 1 : 0;
}
