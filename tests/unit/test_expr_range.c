/*
 * test_expr_range.c - lang_expr_range (lang/expr_range.c), the bounds of a
 * compiled expression over a box of global states, and the pruned scan
 * of the reachability function built on it (solver/space/reach_walk.c,
 * used by san_space_build in solver/space/space.c).
 *
 * Nothing here trusts lang_expr_range for an expected value:
 *
 *   1. soundness by brute force: a model of four automata (rewards,
 *      replicated states, a function calling a function) and ~50
 *      expressions covering every opcode of lang/expr.h.  For every box
 *      (every sub-interval of every automaton's states: 10*15*6*10 =
 *      9000 boxes) the states of the box are evaluated with
 *      san_expr_eval; whenever lang_expr_range answers 1, each of them
 *      must be a number (not NaN) inside the finite bounds.  So that a
 *      trivial "always unknown" cannot pass, the expressions marked PTS
 *      must be decided on every point box with bounds equal to the
 *      value, and those marked TIGHT (each automaton read once, no
 *      division by zero: interval arithmetic is then exact) on every box
 *      with bounds equal to the smallest and largest value of the box.
 *   2. hand-derived boxes: nb using <= 2 over five processes, st A +
 *      st B < 3, a division by a range that holds 0.
 *   3. the scan: each expression of 1 used as the reachability function
 *      of the same model; san_space_build must accept exactly the states
 *      where san_expr_eval is nonzero (NaN included), in index order.
 *
 * 4. expressions that overflow to +-inf (inf - inf, 0 * inf hidden
 *    inside a bound; see their comment): an interval with an infinite
 *    end must be reported unknown.
 *
 * Exit status 0 when every check passes; the last line is
 * "N passed, M failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"
#include "lang/expr.h"
#include "tests/unit/check.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

/* ------------------------------------------------------------------ */
/* Loading                                                              */
/* ------------------------------------------------------------------ */

static san_model *must_load(const char *what, const char *text)
{
    san_diag d;
    san_diag_init(&d, "<test>", text, strlen(text));
    san_model *m = san_model_load(text, strlen(text), &d, NULL);
    int ok = m && !d.nerrors;
    CHECK(ok, "%s: the model loads (%d errors)", what, d.nerrors);
    if (!ok) {
        san_diag_print(&d, stderr, 0);
        san_model_free(m);
        m = NULL;
    }
    san_diag_clear(&d);
    return m;
}

static const lang_result *find_res(const san_model *m, const char *name)
{
    for (int r = 0; r < m->nres; r++)
        if (!strcmp(m->res[r].name, name))
            return &m->res[r];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* 1. Soundness over every box                                          */
/* ------------------------------------------------------------------ */

/*
 * index:   0        1      2       3
 * A:       a0(2.5)  a1     a2(-1)  a3            rewards 2.5  1  -1  3
 * B:       idle(-2) s[0]   s[1]    s[2]   s[3]   rewards -2   1   2  3  4
 * C:       s[0]     s[1]   z(0.25)               rewards  0   1  0.25
 * D:       z        u[0]   u[1]    u[2]          rewards  0   1   2  3
 * g = st A + rw B; f = g * 2 - st C (calls g); q = f / (st D - 1).
 */
static const char *MODEL_HEAD =
    "identifiers\n"
    "  g = st A + rw B;\n"
    "  f = g * 2 - st C;\n"
    "  q = f / (st D - 1);\n"
    "events\n"
    "  loc ea (1) loc eb (1) loc ec (1) loc ed (1)\n"
    "reachability = %s;\n"
    "network box (continuous)\n"
    "  aut A\n"
    "    stt a0 (2.5) to (a1) ea\n"
    "    stt a1 to (a2) ea\n"
    "    stt a2 (-1) to (a3) ea\n"
    "    stt a3 to (a0) ea\n"
    "  aut B\n"
    "    stt idle (-2) to (s[0]) eb\n"
    "    stt s[0..3] to (++) eb\n"
    "    from s[3] to (idle) eb\n"
    "  aut C\n"
    "    stt s[0..1] to (++) ec\n"
    "    from s[1] to (z) ec\n"
    "    stt z (0.25) to (s[0]) ec\n"
    "  aut D\n"
    "    stt z to (u[0]) ed\n"
    "    stt u[0..2] to (++) ed\n"
    "    from u[2] to (z) ed\n"
    "results\n";

#define NAUT 4
static const int NST[NAUT] = { 4, 5, 3, 4 };

enum { PTS = 1, TIGHT = 2, NOREACH = 4 };

typedef struct {
    const char *text;
    int flags;      /* PTS: exact on point boxes; TIGHT: exact on every box
                       (implies PTS); NOREACH: not a reachability function */
} case_t;

static const case_t CASES[] = {
    /* st, rw, nb (plain, ranged, a name with other indices elsewhere) */
    { "st A", PTS | TIGHT },
    { "rw A", PTS | TIGHT },
    { "rw B", PTS | TIGHT },
    { "nb s", PTS | TIGHT },
    { "nb [A..B] s", PTS | TIGHT },
    { "nb z", PTS | TIGHT },
    /* sum_rw / prod_rw, with and without a state filter */
    { "sum_rw [A..D]", PTS | TIGHT },
    { "sum_rw [A..D] s", PTS | TIGHT },
    { "prod_rw [A..D]", PTS | TIGHT },
    { "prod_rw [A..C] s", PTS | TIGHT },
    { "prod_rw [B..D] z", PTS | TIGHT },
    /* calls: g, and f calling g */
    { "g", PTS | TIGHT },
    { "f", PTS | TIGHT },
    /* unary minus, not */
    { "-st B", PTS | TIGHT },
    { "-f + 1", PTS | TIGHT },
    { "!st C", PTS | TIGHT },
    { "!(st A - st D)", PTS },
    /* + - * / */
    { "st A * rw A - st C * st D", PTS },
    { "st A / (st B + 1)", PTS | TIGHT },
    { "-(st A - 2) * (st D - 1)", PTS | TIGHT },
    { "g * f", PTS },
    { "prod_rw [A..D] * sum_rw [A..B] s - rw A * rw A", PTS },
    /* division by an expression that can be 0: inf, -inf and NaN */
    { "st A / st B", 0 },                   /* 0/0 = NaN, 3/0 = inf */
    { "q", 0 },                             /* f / 0 at D = u[0] */
    { "1 / (st D - 1)", 0 },                /* inf at D = u[0] */
    { "(st A - 1) / (st C - 1)", 0 },       /* NaN at A = a1, C = s[1] */
    { "st A / (rw A + 1)", 0 },             /* 2/0 at A = a2 */
    { "(st A / st B > 1) || st C", 0 },
    { "min(st A / st B, 2)", 0 },           /* fmin drops the NaN */
    { "(st A / (st B - 2)) && 0", PTS | TIGHT },    /* surely 0 all the same */
    { "(1 / (st D - 1)) || 1", PTS | TIGHT },
    /* comparisons */
    { "st A < st B", PTS | TIGHT },
    { "st A <= rw D", PTS | TIGHT },
    { "rw A > st C", PTS | TIGHT },
    { "st B >= 2", PTS | TIGHT },
    { "st A == st D", PTS | TIGHT },
    { "rw A != 1", PTS },
    { "f == 4", PTS },
    { "nb s <= 1", PTS | TIGHT },
    /* logic */
    { "st A && st B", PTS | TIGHT },
    { "st A || st C - 1", PTS },
    { "st B ^ st D", PTS | TIGHT },
    { "st A -> st B", PTS | TIGHT },
    { "st A <-> rw D", PTS | TIGHT },
    { "(st A > 1 && st B < 3) -> (st C == z <-> !st D)", PTS },
    /* min, max */
    { "min(st A, st B)", PTS | TIGHT },
    { "max(st A, rw D, 1)", PTS | TIGHT },
    { "min(f, g, 3)", PTS },
    { "max(-st A, st C)", PTS | TIGHT },
    /* floor, ceil, mod, pow */
    { "floor(st B / 2)", PTS | TIGHT },
    { "ceil(st B / 3 - rw A)", PTS },
    { "mod(st A, 4)", PTS | TIGHT },        /* the dividend itself */
    { "mod(st B, 3)", PTS },
    { "mod(st A - st B, st D + 1)", PTS },
    { "mod(st B, -2)", PTS },
    { "mod(st B, st D - 1)", 0 },           /* NaN at D = u[0] */
    { "mod(st A, st B) > 5", 0 },           /* NaN at B = z */
    { "pow(st A, 2)", PTS },
    { "pow(2, st B) - pow(st A, 0.5)", PTS },
    { "pow(st A - 1, -1)", 0 },             /* inf at A = a1 */
    /* constants, folded and not */
    { "3.5", PTS | TIGHT },
    { "st A * 0 + 2", PTS | TIGHT },
    { "0", PTS | TIGHT },
    /* a derived result: not a function of the state, never decided */
    { "e0 * 2", NOREACH },
};
#define NCASES ((int)(sizeof CASES / sizeof CASES[0]))

/* Overflow to infinity.  With A in [0,1] and B in
 * [0,1], (st A * 1e308) * 10 is 0 or inf: the difference is bounded by
 * [-inf, inf] and reported known, yet A = B = a1 gives inf - inf = NaN;
 * compared with an infinity the NaN is decided wrongly (NaN <= inf is 0,
 * [-inf, inf] <= [inf, inf] is "surely 1").  The same for 0 * inf when
 * an interval holds 0 inside it. */
static const case_t INF_CASES[] = {
    { "(st A * 1e308) * 10 - (st B * 1e308) * 10", 0 },
    { "((st A * 1e308) * 10 - (st B * 1e308) * 10) <= (st C * 1e308) * 10", 0 },
    { "!(((st A * 1e308) * 10 - (st B * 1e308) * 10) <= (st C * 1e308) * 10)", 0 },
    /* the same with the infinity read from A, the automaton the scan fixes
     * first: below A = a1 the box is pruned, yet B, C >= 1 give NaN <= inf,
     * false, so the function is 1 there */
    { "!(((st B * 1e308) * 10 - (st C * 1e308) * 10) <= (st A * 1e308) * 10)", 0 },
    { "(st A - 1) * ((st D * 1e308) * 10) >= -((st C * 1e308) * 10)", 0 },
    { "(st A * 1e308) * 10", 0 },
    /* 1e-320, a subnormal, from a product: no literal may be one */
    { "1 / (st A * (1e-300 * 1e-20) + 1e-300 * 1e-20)", 0 },
};
#define NINF ((int)(sizeof INF_CASES / sizeof INF_CASES[0]))

/* A model of the head above with reachability `reach` and the results
 * e0.. = exprs[0..n). */
static char *model_text(const char *reach, const case_t *cases, int n)
{
    size_t len = strlen(MODEL_HEAD) + strlen(reach) + 64;
    for (int k = 0; k < n; k++)
        len += strlen(cases[k].text) + 32;
    char *s = malloc(len);
    if (!s)
        abort();
    size_t at = (size_t)snprintf(s, len, MODEL_HEAD, reach);
    for (int k = 0; k < n; k++)
        at += (size_t)snprintf(s + at, len - at, "  e%d = %s;\n", k, cases[k].text);
    return s;
}

/* Mixed radix, automaton 0 most significant (san.h). */
static int state_index(const int *s)
{
    int i = 0;
    for (int a = 0; a < NAUT; a++)
        i = i * NST[a] + s[a];
    return i;
}

static int product(void)
{
    int p = 1;
    for (int a = 0; a < NAUT; a++)
        p *= NST[a];
    return p;
}

static void fmt_box(char *buf, size_t n, const int *lo, const int *hi)
{
    snprintf(buf, n, "A[%d,%d] B[%d,%d] C[%d,%d] D[%d,%d]", lo[0], hi[0], lo[1], hi[1],
             lo[2], hi[2], lo[3], hi[3]);
}

typedef struct {
    int boxes, decided, bad_sound, bad_finite, bad_points, bad_tight, points, points_decided;
    char first_sound[256], first_finite[256], first_points[256], first_tight[256];
} tally;

/* One box: brute force over its states against lang_expr_range. */
static void check_box(const san_expr *e, int flags, const double *val, const int *lo,
                      const int *hi, tally *t)
{
    double vmin = INFINITY, vmax = -INFINITY;
    int nan = 0, s[NAUT], point = 1;
    for (int a = 0; a < NAUT; a++) {
        s[a] = lo[a];
        point &= lo[a] == hi[a];
    }
    for (;;) {
        double v = val[state_index(s)];
        if (isnan(v))
            nan = 1;
        else {
            vmin = fmin(vmin, v);
            vmax = fmax(vmax, v);
        }
        int a = NAUT - 1;
        for (; a >= 0; a--) {
            if (++s[a] <= hi[a])
                break;
            s[a] = lo[a];
        }
        if (a < 0)
            break;
    }
    double b[2] = { NAN, NAN };
    int known = lang_expr_range(e, lo, hi, b);
    char box[96];
    t->boxes++;
    t->decided += known == 1;
    t->points += point;
    t->points_decided += point && known == 1;
    if (known != 0 && known != 1) {
        t->bad_sound++;
        if (!t->first_sound[0]) {
            fmt_box(box, sizeof box, lo, hi);
            snprintf(t->first_sound, sizeof t->first_sound, "%s: returned %d", box, known);
        }
        return;
    }
    if (known) {
        /* every value a number inside finite bounds (expr.h: 0 when some
         * value may be NaN or is not bounded) */
        int ok = !nan && !isnan(b[0]) && !isnan(b[1]) && b[0] <= vmin && vmax <= b[1];
        if (ok && !(isfinite(b[0]) && isfinite(b[1]))) {
            t->bad_finite++;
            if (!t->first_finite[0]) {
                fmt_box(box, sizeof box, lo, hi);
                snprintf(t->first_finite, sizeof t->first_finite,
                         "%s: bounds [%.17g, %.17g], values [%.17g, %.17g]", box, b[0], b[1],
                         vmin, vmax);
            }
        }
        if (!ok) {
            t->bad_sound++;
            if (!t->first_sound[0]) {
                fmt_box(box, sizeof box, lo, hi);
                snprintf(t->first_sound, sizeof t->first_sound,
                         "%s: bounds [%.17g, %.17g], values [%.17g, %.17g]%s", box, b[0], b[1],
                         vmin, vmax, nan ? " and NaN" : "");
            }
        }
    }
    if ((flags & PTS) && point && !(known && b[0] == vmin && b[1] == vmin && !nan)) {
        t->bad_points++;
        if (!t->first_points[0]) {
            fmt_box(box, sizeof box, lo, hi);
            snprintf(t->first_points, sizeof t->first_points,
                     "%s: returned %d [%.17g, %.17g], value %.17g", box, known, b[0], b[1], vmin);
        }
    }
    if ((flags & TIGHT) && !(known && b[0] == vmin && b[1] == vmax && !nan)) {
        t->bad_tight++;
        if (!t->first_tight[0]) {
            fmt_box(box, sizeof box, lo, hi);
            snprintf(t->first_tight, sizeof t->first_tight,
                     "%s: returned %d [%.17g, %.17g], values [%.17g, %.17g]", box, known,
                     b[0], b[1], vmin, vmax);
        }
    }
}

/* Every box of every case: one CHECK per case and property. */
static void test_boxes(const case_t *cases, int n, const char *label)
{
    char *text = model_text("1", cases, n);
    san_model *m = must_load(label, text);
    free(text);
    if (!m)
        return;
    const int P = product();
    double *val = malloc(P * sizeof *val);
    if (!val)
        abort();
    int total_decided = 0, agree = m->naut == NAUT && m->product == P;
    for (int a = 0; agree && a < NAUT; a++)
        agree &= m->aut[a].nstates == NST[a];
    for (int i = 0; agree && i < P; i++) {
        int s[NAUT];
        san_state_decode(m, i, s);
        agree &= state_index(s) == i;
    }
    CHECK(m->naut == NAUT && m->product == P && agree, "%s: the model has the layout the "
          "test assumes (%d automata, product %lld)", label, m->naut, (long long)m->product);
    if (m->naut != NAUT || m->product != P || !agree) {
        san_model_free(m);
        return;
    }
    for (int k = 0; k < n; k++) {
        char name[16];
        snprintf(name, sizeof name, "e%d", k);
        const lang_result *r = find_res(m, name);
        CHECK(r != NULL, "%s: result %s (%s) compiled", label, name, cases[k].text);
        if (!r)
            continue;
        for (int i = 0; i < P; i++) {
            int s[NAUT];
            san_state_decode(m, i, s);
            val[i] = san_expr_eval(r->expr, s);
        }
        if ((cases[k].flags & PTS)) {
            int finite = 1;
            for (int i = 0; i < P; i++)
                finite &= isfinite(val[i]);
            CHECK(finite, "%s: '%s' is marked exact on points but takes a value that is "
                  "not a finite number", label, cases[k].text);
        }
        tally t;
        memset(&t, 0, sizeof t);
        /* odometer over the boxes: per automaton, (lo, hi) with lo <= hi */
        int lo[NAUT] = { 0 }, hi[NAUT] = { 0 };
        for (;;) {
            check_box(r->expr, cases[k].flags, val, lo, hi, &t);
            int a = NAUT - 1;
            for (; a >= 0; a--) {
                if (++hi[a] < NST[a])
                    break;
                if (++lo[a] < NST[a]) {
                    hi[a] = lo[a];
                    break;
                }
                lo[a] = hi[a] = 0;
            }
            if (a < 0)
                break;
        }
        total_decided += t.decided;
        CHECK(t.boxes == 10 * 15 * 6 * 10, "%s: '%s': %d boxes", label, cases[k].text, t.boxes);
        CHECK(t.bad_sound == 0, "%s: '%s': unsound in %d of %d boxes; first: %s", label,
              cases[k].text, t.bad_sound, t.boxes, t.first_sound);
        CHECK(t.bad_finite == 0, "%s: '%s': known but unbounded (expr.h: 0 when a value "
              "is not bounded) in %d of %d boxes; first: %s", label, cases[k].text,
              t.bad_finite, t.boxes, t.first_finite);
        if (cases[k].flags & PTS)
            CHECK(t.bad_points == 0, "%s: '%s': not exact on %d of %d point boxes; first: %s",
                  label, cases[k].text, t.bad_points, t.points, t.first_points);
        if (cases[k].flags & TIGHT)
            CHECK(t.bad_tight == 0, "%s: '%s': not the exact hull on %d of %d boxes; first: %s",
                  label, cases[k].text, t.bad_tight, t.boxes, t.first_tight);
        if (cases[k].flags & NOREACH)
            CHECK(t.decided == 0, "%s: '%s' reads a result: decided on %d boxes", label,
                  cases[k].text, t.decided);
        if (getenv("VERBOSE"))
            printf("%-60s decided %5d of %d boxes, %3d of %d points\n", cases[k].text,
                   t.decided, t.boxes, t.points_decided, t.points);
    }
    CHECK(total_decided > 0, "%s: some box decided", label);
    free(val);
    san_model_free(m);
}

/* ------------------------------------------------------------------ */
/* 2. Hand-derived boxes                                                */
/* ------------------------------------------------------------------ */

static void expect_range(const san_expr *e, const int *lo, const int *hi, int want_known,
                         double want_lo, double want_hi, const char *what)
{
    double b[2] = { NAN, NAN };
    int k = lang_expr_range(e, lo, hi, b);
    if (want_known)
        CHECK(k == 1 && b[0] == want_lo && b[1] == want_hi,
              "%s: got %d [%g, %g], want 1 [%g, %g]", what, k, b[0], b[1], want_lo, want_hi);
    else
        CHECK(k == 0, "%s: got %d [%g, %g], want 0 (unknown)", what, k, b[0], b[1]);
}

static const char *RS5 =
    "identifiers\n"
    "  N = [0..4];\n"
    "events\n"
    "  loc acq (1) loc rel (1)\n"
    "reachability = nb using <= 2;\n"
    "network rs (continuous)\n"
    "  aut P[N]\n"
    "    stt sleeping to (using) acq\n"
    "    stt using to (sleeping) rel\n"
    "results\n"
    "  users = nb using;\n"
    "  some = nb [P[1]..P[3]] using >= 1;\n";

static void test_hand_rs(void)
{
    san_model *m = must_load("rs5", RS5);
    if (!m)
        return;
    CHECK(m->naut == 5, "rs5: 5 automata (got %d)", m->naut);
    const lang_result *users = find_res(m, "users"), *some = find_res(m, "some");
    CHECK(users && some, "rs5: results compiled");
    if (m->naut != 5 || !users || !some) {
        san_model_free(m);
        return;
    }
    const san_expr *R = m->reach;
    /* sleeping = 0, using = 1 */
    int lo[5], hi[5];
#define BOX(l0, h0, l1, h1, l2, h2, l3, h3, l4, h4) \
    (lo[0] = l0, hi[0] = h0, lo[1] = l1, hi[1] = h1, lo[2] = l2, hi[2] = h2, \
     lo[3] = l3, hi[3] = h3, lo[4] = l4, hi[4] = h4)
    /* three users fixed: at least 3 > 2 whatever the others do */
    BOX(1, 1, 1, 1, 1, 1, 0, 1, 0, 1);
    expect_range(R, lo, hi, 1, 0, 0, "nb using <= 2, first three using");
    expect_range(users->expr, lo, hi, 1, 3, 5, "nb using, first three using");
    /* three sleeping fixed, two free: at most 2 users */
    BOX(0, 0, 0, 0, 0, 0, 0, 1, 0, 1);
    expect_range(R, lo, hi, 1, 1, 1, "nb using <= 2, first three sleeping");
    expect_range(users->expr, lo, hi, 1, 0, 2, "nb using, first three sleeping");
    /* one using, the rest free: 1..5 users, either way */
    BOX(1, 1, 0, 1, 0, 1, 0, 1, 0, 1);
    expect_range(R, lo, hi, 1, 0, 1, "nb using <= 2, one using");
    expect_range(users->expr, lo, hi, 1, 1, 5, "nb using, one using");
    /* two using, the rest free: still either way */
    BOX(1, 1, 1, 1, 0, 1, 0, 1, 0, 1);
    expect_range(R, lo, hi, 1, 0, 1, "nb using <= 2, two using");
    /* two using, two sleeping, one free: 2 or 3 */
    BOX(1, 1, 1, 1, 0, 0, 0, 0, 0, 1);
    expect_range(R, lo, hi, 1, 0, 1, "nb using <= 2, two using two sleeping");
    BOX(1, 1, 0, 0, 1, 1, 0, 0, 0, 0);
    expect_range(R, lo, hi, 1, 1, 1, "nb using <= 2, the point (1,0,1,0,0)");
    BOX(0, 1, 0, 1, 0, 1, 0, 1, 0, 1);
    expect_range(R, lo, hi, 1, 0, 1, "nb using <= 2, everything free");
    expect_range(users->expr, lo, hi, 1, 0, 5, "nb using, everything free");
    /* nb over P[1]..P[3] only: P[0] and P[4] do not count */
    BOX(1, 1, 0, 0, 0, 0, 0, 0, 1, 1);
    expect_range(some->expr, lo, hi, 1, 0, 0, "nb [P[1]..P[3]] using >= 1, outside ones using");
    BOX(0, 1, 0, 0, 1, 1, 0, 1, 0, 1);
    expect_range(some->expr, lo, hi, 1, 1, 1, "nb [P[1]..P[3]] using >= 1, P[2] using");
    BOX(0, 1, 0, 0, 0, 1, 0, 0, 0, 1);
    expect_range(some->expr, lo, hi, 1, 0, 1, "nb [P[1]..P[3]] using >= 1, P[2] free");
#undef BOX
    san_model_free(m);
}

static const char *AB =
    "identifiers\n"
    "  K = [0..3];\n"
    "events\n"
    "  loc ea (1) loc eb (1)\n"
    "reachability = st A + st B < 3;\n"
    "network ab (continuous)\n"
    "  aut A\n"
    "    stt q[K] to (++) ea\n"
    "    from q[3] to (q[0]) ea\n"
    "  aut B\n"
    "    stt q[K] to (++) eb\n"
    "    from q[3] to (q[0]) eb\n"
    "results\n"
    "  ratio = st A / (st B - 1);\n"
    "  sum = st A + st B;\n"
    "  guarded = (st B - 1) && st A / (st B - 1) > 1;\n";

static void test_hand_sum(void)
{
    san_model *m = must_load("ab", AB);
    if (!m)
        return;
    const lang_result *ratio = find_res(m, "ratio"), *sum = find_res(m, "sum"),
                     *guarded = find_res(m, "guarded");
    CHECK(ratio && sum && guarded && m->naut == 2, "ab: results compiled");
    if (!ratio || !sum || !guarded || m->naut != 2) {
        san_model_free(m);
        return;
    }
    const san_expr *R = m->reach;
    int lo[2], hi[2];
#define BOX2(l0, h0, l1, h1) (lo[0] = l0, hi[0] = h0, lo[1] = l1, hi[1] = h1)
    BOX2(3, 3, 0, 3);
    expect_range(R, lo, hi, 1, 0, 0, "st A + st B < 3, A = 3");
    expect_range(sum->expr, lo, hi, 1, 3, 6, "st A + st B, A = 3");
    BOX2(2, 3, 1, 3);
    expect_range(R, lo, hi, 1, 0, 0, "st A + st B < 3, A in 2..3, B in 1..3");
    BOX2(0, 0, 0, 2);
    expect_range(R, lo, hi, 1, 1, 1, "st A + st B < 3, A = 0, B in 0..2");
    BOX2(0, 1, 0, 1);
    expect_range(R, lo, hi, 1, 1, 1, "st A + st B < 3, A, B in 0..1");
    BOX2(0, 1, 1, 2);
    expect_range(R, lo, hi, 1, 0, 1, "st A + st B < 3, A in 0..1, B in 1..2");
    BOX2(0, 3, 0, 3);
    expect_range(R, lo, hi, 1, 0, 1, "st A + st B < 3, all free");
    /* division by a range holding 0: unknown (inf at A > 0, NaN at A = 0) */
    BOX2(0, 3, 0, 2);
    expect_range(ratio->expr, lo, hi, 0, 0, 0, "st A / (st B - 1), B in 0..2");
    BOX2(1, 2, 1, 1);
    expect_range(ratio->expr, lo, hi, 0, 0, 0, "st A / (st B - 1), B = 1 (x / 0)");
    BOX2(0, 0, 1, 1);
    expect_range(ratio->expr, lo, hi, 0, 0, 0, "st A / (st B - 1), A = 0, B = 1 (0 / 0)");
    /* and by one without it: A/(B-1) over A in 1..2, B in 2..3 is [1/2, 2] */
    BOX2(1, 2, 2, 3);
    expect_range(ratio->expr, lo, hi, 1, 0.5, 2, "st A / (st B - 1), B in 2..3");
    BOX2(0, 3, 0, 0);
    expect_range(ratio->expr, lo, hi, 1, -3, 0, "st A / (st B - 1), B = 0");
    /* a comparison is 0 or 1 even when its operand is unknown; && with a
     * surely-false side is 0 */
    BOX2(0, 3, 1, 1);
    expect_range(guarded->expr, lo, hi, 1, 0, 0, "(st B - 1) && ..., B = 1");
    BOX2(0, 3, 0, 2);
    expect_range(guarded->expr, lo, hi, 1, 0, 1, "(st B - 1) && st A / (st B - 1) > 1");
#undef BOX2
    san_model_free(m);
}

/* ------------------------------------------------------------------ */
/* 3. The pruned scan: the seeds are the states the function accepts    */
/* ------------------------------------------------------------------ */

static void test_scan(const case_t *cases, int n, const char *label)
{
    const int P = product();
    int64_t *want = malloc(P * sizeof *want);
    if (!want)
        abort();
    for (int k = 0; k < n; k++) {
        if (cases[k].flags & NOREACH)
            continue;
        char *text = model_text(cases[k].text, NULL, 0);
        san_model *m = must_load(cases[k].text, text);
        free(text);
        if (!m)
            continue;
        /* brute force: every product state through the interpreter */
        int nwant = 0;
        for (int i = 0; i < P; i++) {
            int s[NAUT];
            san_state_decode(m, i, s);
            if (san_expr_eval(m->reach, s) != 0)      /* NaN is accepted */
                want[nwant++] = i;
        }
        san_space_opts o;
        san_space_opts_default(&o);
        o.states_only = 1;
        san_space sp;
        memset(&sp, 0, sizeof sp);
        san_diag d;
        san_diag_init(&d, "<test>", NULL, 0);
        san_status rc = san_space_build(m, &o, &sp, &d);
        if (nwant == 0) {
            CHECK(rc == SAN_E_MODEL && d.nerrors > 0, "%s: reachability '%s' accepts no "
                  "state: want a model error, got %d", label, cases[k].text, rc);
        } else {
            CHECK(rc == 0, "%s: reachability '%s': san_space_build returned %d", label,
                  cases[k].text, rc);
            if (rc == 0) {
                int same = sp.declared == nwant && sp.n >= nwant;
                int first_diff = -1;
                for (int i = 0; same && i < nwant; i++)
                    if (sp.index[i] != want[i]) {
                        same = 0;
                        first_diff = i;
                    }
                CHECK(same, "%s: reachability '%s': %lld states declared, want %d "
                      "(first difference at seed %d)", label, cases[k].text,
                      (long long)sp.declared, nwant, first_diff);
            }
        }
        if (rc != 0 && nwant != 0)
            san_diag_print(&d, stderr, 0);
        san_diag_clear(&d);
        if (rc == 0)
            space_clear(&sp);
        san_model_free(m);
    }
    free(want);
}

int main(void)
{
    test_boxes(CASES, NCASES, "boxes");
    test_hand_rs();
    test_hand_sum();
    test_scan(CASES, NCASES, "scan");
    test_boxes(INF_CASES, NINF, "inf");
    test_scan(INF_CASES, NINF, "inf scan");
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
