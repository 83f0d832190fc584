/*
 * test_expr.c - the front end seen through the public API: small models
 * compiled from strings with san_model_load, expressions evaluated with
 * san_expr_eval on chosen global states, and the compiled structure
 * (automata, states, transitions, events, identifiers, results) read
 * directly.  Every expected value below was derived by hand from the
 * language definition (doc: shared/spec/san-language.md), not by running
 * the code.
 *
 * Exit status 0 when every check passes, 1 otherwise; the last line is
 * "N passed, M failed".
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "san.h"
#include "lang/model_int.h"

static int npass, nfail;

static void result(int ok, const char *fmt, ...)
{
    if (ok) {
        npass++;
        return;
    }
    nfail++;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static int same(double got, double want)
{
    if (isnan(want))
        return isnan(got);
    return got == want || fabs(got - want) <= 1e-12 * fabs(want);
}

#define CHECK(cond) result((cond), "%s:%d: %s", __FILE__, __LINE__, #cond)
#define CHECK_NUM(what, got, want) do { double g_ = (got), w_ = (want); \
    result(same(g_, w_), "%s:%d: %s: got %.17g, expected %.17g", __FILE__, __LINE__, \
           (what), g_, w_); } while (0)
#define CHECK_INT(what, got, want) do { long g_ = (got), w_ = (want); \
    result(g_ == w_, "%s:%d: %s: got %ld, expected %ld", __FILE__, __LINE__, (what), g_, w_); \
    } while (0)
#define CHECK_STR(what, got, want) do { const char *g_ = (got), *w_ = (want); \
    result(g_ && !strcmp(g_, w_), "%s:%d: %s: got \"%s\", expected \"%s\"", __FILE__, __LINE__, \
           (what), g_ ? g_ : "(null)", w_); } while (0)

/* ------------------------------------------------------------------ */
/* Loading                                                              */
/* ------------------------------------------------------------------ */

static char *format_model(const char *fmt, const char *arg)
{
    size_t n = strlen(fmt) + (arg ? strlen(arg) : 0) + 1;
    char *s = malloc(n);
    if (!s)
        abort();
    snprintf(s, n, fmt, arg ? arg : "");
    return s;
}

/* Load text; the caller frees d (and the model).  diag text is kept. */
static san_model *load(const char *text, const san_load_opts *opt, san_diag *d)
{
    san_diag_init(d, "<test>", text, strlen(text));
    return san_model_load(text, strlen(text), d, opt);
}

/* Load and expect success; on failure, show the diagnostics. */
static san_model *must_load(const char *what, const char *text, const san_load_opts *opt)
{
    san_diag d;
    san_model *m = load(text, opt, &d);
    if (!m || d.nerrors) {
        printf("FAIL: %s: the model does not load (%d errors)\n", what, d.nerrors);
        san_diag_print(&d, stdout, 0);
        nfail++;
        san_model_free(m);
        m = NULL;
    }
    san_diag_clear(&d);
    return m;
}

static int diag_has(const san_diag *d, san_severity sev, const char *needle)
{
    for (int i = 0; i < d->n; i++)
        if (d->items[i].sev == sev && strstr(d->items[i].msg, needle))
            return 1;
    return 0;
}

static int find_aut(const san_model *m, const char *name)
{
    for (int a = 0; a < m->naut; a++)
        if (!strcmp(m->aut[a].name, name))
            return a;
    return -1;
}

static int find_ev(const san_model *m, const char *name)
{
    for (int e = 0; e < m->nev; e++)
        if (!strcmp(m->ev[e].name, name))
            return e;
    return -1;
}

static const lang_ident *find_id(const san_model *m, const char *name)
{
    for (int i = 0; i < m->nid; i++)
        if (!strcmp(m->id[i].name, name))
            return &m->id[i];
    return NULL;
}

static const lang_result *find_res(const san_model *m, const char *name)
{
    for (int r = 0; r < m->nres; r++)
        if (!strcmp(m->res[r].name, name))
            return &m->res[r];
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Model 1: three plain automata, an expression as result `r`           */
/* ------------------------------------------------------------------ */

/*
 * A: s0 s1 s2            (indices 0 1 2, rewards = indices)
 * B: idle s[0] .. s[4]   (indices 0, 1..5, rewards = indices)
 * C: x (2.5) y (4) z     (indices 0 1 2, rewards 2.5 4 2)
 */
static const char *M1 =
    "identifiers\n"
    "  c7 = 2*3+1;\n"
    "  fA = st A * 10;\n"
    "events\n"
    "  loc ea (fA)\n"
    "  loc eb (1)\n"
    "  loc ec (1)\n"
    "reachability = 1;\n"
    "network m1 (continuous)\n"
    "  aut A\n"
    "    stt s0 to (s1) ea\n"
    "    stt s1 to (s2) ea\n"
    "    stt s2 to (s0) ea\n"
    "  aut B\n"
    "    stt idle to (s[0]) eb\n"
    "    stt s[0..4] to (++) eb\n"
    "  aut C\n"
    "    stt x (2.5) to (y) ec\n"
    "    stt y (4) to (z) ec\n"
    "    stt z to (x) ec\n"
    "results\n"
    "  r = %s;\n";

/* Evaluate expr as the result of a model built from fmt, in state s. */
static double eval_in(const char *fmt, const char *expr, const int *s, int *is_const)
{
    char *text = format_model(fmt, expr);
    san_model *m = must_load(expr, text, NULL);
    free(text);
    if (!m)
        return NAN;
    double v = NAN;
    const lang_result *r = find_res(m, "r");
    if (!r) {
        printf("FAIL: %s: no result 'r'\n", expr);
        nfail++;
    } else {
        v = san_expr_eval(r->expr, s);
        if (is_const)
            *is_const = san_expr_is_const(r->expr);
    }
    san_model_free(m);
    return v;
}

static void ev1(const char *expr, int a, int b, int c, double want)
{
    int s[3] = { a, b, c };
    char what[300];
    snprintf(what, sizeof what, "m1 {%d,%d,%d}: %s", a, b, c, expr);
    double v = eval_in(M1, expr, s, NULL);
    CHECK_NUM(what, v, want);
}

/* Constant expressions: folded, and the right value. */
static void evc(const char *expr, double want)
{
    int s[3] = { 0, 0, 0 }, k = 0;
    double v = eval_in(M1, expr, s, &k);
    CHECK_NUM(expr, v, want);
    result(k, "%s: a constant expression should be folded (san_expr_is_const)", expr);
}

static void test_precedence(void)
{
    /* arithmetic */
    evc("5 + 6 * 7", 47);
    evc("2 - 3 - 4", -5);
    evc("8 / 4 / 2", 1);
    evc("2 - 3 + 4", 3);
    evc("2 * 3 + 4 * 5", 26);
    evc("10 - 2 * 3 + 4", 8);
    evc("2 * (3 + 4)", 14);
    evc("7 / 2", 3.5);
    evc("100 / 10 / 5", 2);
    evc("1.5e1 + 2.5E+0 * 2", 20);
    evc("1e-3 * 1000", 1);
    evc("12.5 * 2", 25);
    /* comparisons below arithmetic, relational above equality */
    evc("1 + 2 < 4", 1);
    evc("3 < 2 + 2", 1);
    evc("2 * 3 == 6", 1);
    evc("1 < 2 == 1", 1);
    evc("2 == 2 == 2", 0);
    evc("3 > 2 > 1", 0);
    evc("3 <= 3", 1);
    evc("3 =< 2", 0);
    evc("3 >= 4", 0);
    evc("4 => 4", 1);
    evc("3 != 3", 0);
    evc("3 != 4", 1);
    evc("3 > 2", 1);
    evc("2 < 2", 0);
    evc("2 == 2.0", 1);
    /* && over || */
    evc("1 || 0 && 0", 1);
    evc("0 && 0 || 1", 1);
    evc("1 && 1 || 0 && 0", 1);
    evc("2 && 3", 1);
    evc("2 && 0", 0);
    evc("0 || 0", 0);
    evc("0 || 5", 1);
    /* xor: logical, below comparisons, above || */
    evc("1 ^ 1", 0);
    evc("1 ^ 0", 1);
    evc("0 ^ 1", 1);
    evc("0 ^ 0", 0);
    evc("2 ^ 3", 0);
    evc("1 || 1 ^ 1", 1);
    evc("1 ^ 2 == 3", 1);
    /* implication (right associative, below ||) and equivalence (lowest) */
    evc("0 -> 0", 1);
    evc("0 -> 1", 1);
    evc("1 -> 0", 0);
    evc("1 -> 1", 1);
    evc("5 -> 0", 0);
    evc("0 -> 0 -> 0", 1);
    evc("1 || 0 -> 0", 0);
    evc("1 <-> 1", 1);
    evc("0 <-> 0", 1);
    evc("2 <-> 1", 1);
    evc("0 <-> 3", 0);
    evc("1 <-> 0", 0);
    evc("0 -> 0 <-> 0", 0);
    /* unary operators bind tightest */
    evc("!0", 1);
    evc("!5", 0);
    evc("!!3", 1);
    evc("!0 + 1", 2);
    evc("!1 == 0", 1);
    evc("! 0 && 0", 0);
    evc("-3 * 2", -6);
    evc("- 2 - 3", -5);
    evc("-1 + 3", 2);
    evc("-(2 - 3)", 1);
    evc("- 2 * - 3", 6);
    evc("- -4", 4);
    evc("2 - -3", 5);
    evc("-2 < -1", 1);
    /* min and max with 1 to 5 arguments */
    evc("min(5)", 5);
    evc("max(5)", 5);
    evc("min(3, 1)", 1);
    evc("max(3, 1)", 3);
    evc("min(4, 2, 8)", 2);
    evc("max(4, 9, 8, 1)", 9);
    evc("min(7, 6, 5, 4, 3)", 3);
    evc("max(1, 2, 3, 4, 5)", 5);
    evc("min(2 + 3, 4)", 4);
    evc("max(-1, -2)", -1);
    evc("max(1, 2) * 3", 6);
    /* floor, ceil, mod (the sign of the divisor), pow, folded */
    evc("floor(2.5)", 2);
    evc("floor(-2.5)", -3);
    evc("ceil(2.1)", 3);
    evc("ceil(-2.9)", -2);
    evc("mod(7, 3)", 1);
    evc("mod(-1, 3)", 2);
    evc("mod(1, -3)", -2);
    evc("mod(-7, -3)", -1);
    evc("mod(7.5, 2)", 1.5);
    evc("mod(6, 3)", 0);
    evc("pow(2, 10)", 1024);
    evc("pow(4, 0.5) + 1", 3);
    evc("2 * floor (7 / 2)", 6);
    /* identifiers folded into constants */
    evc("c7", 7);
    evc("c7 * 2", 14);
}

static void test_state_exprs(void)
{
    /* S0 = A in s2, B in s[3], C in y */
    const int A = 2, B = 4, C = 1;
    /* the same precedence rules on values read from the state */
    ev1("st A + st B * st C", A, B, C, 6);
    ev1("st B - st A - st C", A, B, C, 1);
    ev1("st B / st A / 2", A, B, C, 1);
    ev1("st A * 10 + st C", A, B, C, 21);
    ev1("st A < st B && st C", A, B, C, 1);
    ev1("st A == 2 || st B == 0 && st C == 0", A, B, C, 1);
    ev1("st A ^ st C", A, B, C, 0);
    ev1("st A -> st C - 1", A, B, C, 0);
    ev1("!st A", A, B, C, 0);
    ev1("-st B", A, B, C, -4);
    ev1("-st B + 10", A, B, C, 6);
    ev1("st A <-> st C", A, B, C, 1);
    ev1("floor(st B / 3) + ceil(st B / 3)", A, B, C, 3);
    ev1("mod(st B, st A + 1) - mod(st C - st B - 1, 3)", A, B, C, -1);
    ev1("pow(st A, st B) - pow(st C, -1)", A, B, C, 15);
    /* st and @ */
    ev1("st A", A, B, C, 2);
    ev1("@A", A, B, C, 2);
    ev1("st B", A, B, C, 4);
    ev1("@C", A, B, C, 1);
    ev1("st A", 0, 0, 0, 0);
    /* state names as values, in a comparison and alone */
    ev1("st A == s2", A, B, C, 1);
    ev1("st A == s1", A, B, C, 0);
    ev1("s2 == st A", A, B, C, 1);
    ev1("st B == s[3]", A, B, C, 1);
    ev1("st B == s[2]", A, B, C, 0);
    ev1("st B == idle", A, B, C, 0);
    ev1("st B == idle", A, 0, C, 1);
    ev1("st B > s[1]", A, B, C, 1);
    ev1("st C == y", A, B, C, 1);
    ev1("st C != y", A, B, C, 0);
    ev1("s[3]", A, B, C, 4);
    ev1("s[0]", A, B, C, 1);
    ev1("s[4]", A, B, C, 5);
    ev1("s2", A, B, C, 2);
    ev1("idle", A, B, C, 0);
    ev1("z", A, B, C, 2);
    /* functions inlined; constants folded */
    ev1("fA", A, B, C, 20);
    ev1("fA + c7", A, B, C, 27);
    ev1("fA", 1, B, C, 10);
    /* rewards: default = index, explicit stt x (2.5) */
    ev1("rw A", A, B, C, 2);
    ev1("%A", A, B, C, 2);
    ev1("rw B", A, B, C, 4);
    ev1("rw C", A, B, C, 4);
    ev1("rw C", A, B, 0, 2.5);
    ev1("rw C", A, B, 2, 2);
    ev1("%C * 2", A, B, 0, 5);
    ev1("sum_rw [A..C]", A, B, C, 10);
    ev1("sum_rw [A..C]", 0, 0, 0, 2.5);
    ev1("sum_rw [A..B]", A, B, C, 6);
    ev1("sum_rw [B..C]", A, B, C, 8);
    ev1("sum_rw [A..C] y", A, B, C, 4);
    ev1("sum_rw [A..C] y", A, B, 0, 0);
    ev1("sum_rw [A..C] s2", A, B, C, 2);
    ev1("sum_rw [A..C] s", A, B, C, 4);
    ev1("sum_rw [A..C] s", A, 0, C, 0);
    ev1("prod_rw [A..C]", A, B, C, 32);
    ev1("prod_rw [A..C]", 1, 1, 0, 2.5);
    ev1("prod_rw [B..C]", A, B, C, 16);
    ev1("prod_rw [A..C] y", A, B, C, 4);
    ev1("prod_rw [A..C] y", A, B, 0, 1);
    /* nb over plain automata */
    ev1("nb s", A, B, C, 1);
    ev1("nb s", A, 0, C, 0);
    ev1("nb s2", A, B, C, 1);
    ev1("nb y", A, B, C, 1);
    ev1("nb [A..B] s", A, B, C, 1);
    /* min/max on the state */
    ev1("min(st A, st B, st C)", A, B, C, 1);
    ev1("max(st A, st B, st C, 0, 3)", A, B, C, 4);
    ev1("min(st B, 3)", A, B, C, 3);
    ev1("max(st C)", A, B, C, 1);
    ev1("min(st A, st B) + max(st B, st C) * 2", A, B, C, 10);
}

static void test_model1_structure(void)
{
    char *text = format_model(M1, "st A + c7");
    san_model *m = must_load("m1 structure", text, NULL);
    free(text);
    if (!m)
        return;
    CHECK_STR("network name", m->name, "m1");
    CHECK_INT("m1 automata", m->naut, 3);
    CHECK_INT("A states", m->aut[0].nstates, 3);
    CHECK_INT("B states", m->aut[1].nstates, 6);
    CHECK_INT("C states", m->aut[2].nstates, 3);
    CHECK_STR("B state 0", m->aut[1].states[0], "idle");
    CHECK_STR("B state 1", m->aut[1].states[1], "s[0]");
    CHECK_STR("B state 5", m->aut[1].states[5], "s[4]");
    CHECK_NUM("C reward x", m->aut[2].reward[0], 2.5);
    CHECK_NUM("C reward y", m->aut[2].reward[1], 4);
    CHECK_NUM("C reward z (default)", m->aut[2].reward[2], 2);
    CHECK_NUM("B reward s[2] (default)", m->aut[1].reward[3], 3);
    CHECK(m->product_fits);
    CHECK_INT("product", m->product, 54);
    CHECK_STR("product_str", m->product_str, "54");
    CHECK_INT("stride A", m->stride[0], 18);
    CHECK_INT("stride B", m->stride[1], 3);
    CHECK_INT("stride C", m->stride[2], 1);
    /* constant folding */
    const lang_ident *c7 = find_id(m, "c7"), *fA = find_id(m, "fA");
    CHECK(c7 && !c7->is_function && !c7->is_domain);
    if (c7)
        CHECK_NUM("c7", c7->value, 7);
    CHECK(fA && fA->is_function && fA->expr);
    if (fA && fA->expr) {
        CHECK(!san_expr_is_const(fA->expr));
        int s[3] = { 2, 0, 0 }, n = -1;
        CHECK_NUM("fA at A=s2", san_expr_eval(fA->expr, s), 20);
        const int *deps = san_expr_deps(fA->expr, &n);
        CHECK_INT("fA deps", n, 1);
        if (n == 1)
            CHECK_INT("fA reads A", deps[0], 0);
    }
    int ea = find_ev(m, "ea"), eb = find_ev(m, "eb");
    CHECK(ea >= 0 && eb >= 0);
    if (ea >= 0)
        CHECK(!san_expr_is_const(m->ev[ea].rate));
    if (eb >= 0) {
        CHECK(san_expr_is_const(m->ev[eb].rate));
        CHECK_NUM("eb rate", san_expr_const(m->ev[eb].rate), 1);
        CHECK(!m->ev[eb].sync);
        CHECK_INT("eb parts", m->ev[eb].nparts, 1);
        if (m->ev[eb].nparts == 1)
            CHECK_INT("eb is B's", m->ev[eb].parts[0], 1);
        CHECK_INT("eb declared on line", m->ev[eb].line, 6);
    }
    const lang_result *r = find_res(m, "r");
    CHECK(r && !r->derived && !san_expr_is_const(r->expr));
    CHECK(m->reach && san_expr_is_const(m->reach) && san_expr_const(m->reach) == 1);
    CHECK(!m->partial);
    /* B: idle -> s[0]; s[k] -> s[k+1] by ++; s[4] has none (dropped) */
    const lang_automaton *Bt = &m->aut[1];
    CHECK_INT("B transitions", Bt->ntr, 5);
    int wantfirst[7] = { 0, 1, 2, 3, 4, 5, 5 };
    for (int s = 0; s <= 6; s++)
        CHECK_INT("B first[]", Bt->first[s], wantfirst[s]);
    for (int k = 0; k < Bt->ntr && k < 5; k++) {
        CHECK_INT("B tr to", Bt->tr[k].to, k + 1);
        CHECK_INT("B tr event", Bt->tr[k].event, eb);
        CHECK(Bt->tr[k].prob == NULL);
    }
    san_model_free(m);

    /* an expression reading A through a function and C directly */
    text = format_model(M1, "fA + st C");
    m = must_load("m1 deps", text, NULL);
    free(text);
    if (m) {
        const lang_result *rd = find_res(m, "r");
        if (rd) {
            int n = -1;
            const int *deps = san_expr_deps(rd->expr, &n);
            CHECK_INT("deps of fA + st C", n, 2);
            if (n == 2) {
                CHECK_INT("first dep", deps[0], 0);
                CHECK_INT("second dep", deps[1], 2);
            }
            int s[3] = { 2, 5, 1 };
            CHECK_NUM("fA + st C", san_expr_eval(rd->expr, s), 21);
        }
        san_model_free(m);
    }

    /* constant results fold */

    text = format_model(M1, "2*3+1");
    m = must_load("m1 constant result", text, NULL);
    free(text);
    if (m) {
        const lang_result *rc = find_res(m, "r");
        CHECK(rc && san_expr_is_const(rc->expr));
        if (rc)
            CHECK_NUM("2*3+1", san_expr_const(rc->expr), 7);
        if (rc) {
            int n = -1;
            san_expr_deps(rc->expr, &n);
            CHECK_INT("constant deps", n, 0);
        }
        san_model_free(m);
    }
}

/* ------------------------------------------------------------------ */
/* Model 2: replicas P[0..3] and a Q sharing state names                */
/* ------------------------------------------------------------------ */

static const char *M2 =
    "identifiers\n"
    "  D = [0..3];\n"
    "events\n"
    "  loc acq (1)\n"
    "  loc rel (2)\n"
    "  loc qe (1)\n"
    "reachability = 1;\n"
    "network m2 (continuous)\n"
    "  aut P[D]\n"
    "    stt idle to (busy) acq\n"
    "    stt busy (7) to (idle) rel\n"
    "  aut Q\n"
    "    stt idle to (busy) qe\n"
    "    stt busy to (idle) qe\n"
    "results\n"
    "  r = %s;\n";

static void ev2(const char *expr, const int *s, double want)
{
    char what[300];
    snprintf(what, sizeof what, "m2 {%d,%d,%d,%d,%d}: %s", s[0], s[1], s[2], s[3], s[4], expr);
    double v = eval_in(M2, expr, s, NULL);
    CHECK_NUM(what, v, want);
}

static void test_replicas(void)
{
    const int T[5] = { 1, 0, 1, 1, 1 };     /* P0 busy, P1 idle, P2 P3 Q busy */
    const int Z[5] = { 0, 0, 0, 0, 0 };
    ev2("nb busy", T, 4);
    ev2("nb idle", T, 1);
    ev2("nb [P[0]..P[3]] busy", T, 3);
    ev2("nb [P[1]..P[2]] busy", T, 1);
    ev2("nb [P[0]..Q] idle", T, 1);
    ev2("nb [P[3]..Q] busy", T, 2);
    ev2("nb [P[0]..P[0]] busy", T, 1);
    ev2("nb busy == 4", T, 1);
    ev2("nb busy", Z, 0);
    ev2("nb idle", Z, 5);
    ev2("sum_rw [P[0]..P[3]]", T, 21);
    ev2("sum_rw [P[0]..Q]", T, 22);
    ev2("sum_rw [P[0]..Q] busy", T, 22);
    ev2("sum_rw [P[0]..P[3]] idle", T, 0);
    ev2("sum_rw [P[0]..P[3]]", Z, 0);
    ev2("prod_rw [P[0]..P[3]]", T, 0);
    ev2("prod_rw [P[0]..P[3]] busy", T, 343);
    ev2("prod_rw [P[2]..P[3]]", T, 49);
    ev2("prod_rw [P[2]..Q]", T, 49);
    ev2("rw P[1]", T, 0);
    ev2("rw P[2]", T, 7);
    ev2("%P[3]", T, 7);
    ev2("st P[3]", T, 1);
    ev2("@P[1]", T, 0);
    ev2("st P[0] == busy", T, 1);
    ev2("st P[1] == busy", T, 0);
    ev2("st Q == idle", T, 0);
    ev2("st P[1+1]", T, 1);

    char *text = format_model(M2, "nb busy");
    san_model *m = must_load("m2 structure", text, NULL);
    free(text);
    if (!m)
        return;
    CHECK_INT("m2 automata", m->naut, 5);
    if (m->naut == 5) {
        CHECK_STR("replica 0", m->aut[0].name, "P[0]");
        CHECK_STR("replica 3", m->aut[3].name, "P[3]");
        CHECK_STR("Q", m->aut[4].name, "Q");
        CHECK_INT("find Q", find_aut(m, "Q"), 4);
        CHECK_NUM("P[2] busy reward", m->aut[2].reward[1], 7);
        CHECK_NUM("Q busy reward (default)", m->aut[4].reward[1], 1);
    }
    CHECK_INT("product", m->product, 32);
    /* a local event in a replicated automaton: one copy per replica */
    CHECK_INT("m2 events", m->nev, 9);
    int e = find_ev(m, "acq@P[2]");
    CHECK(e >= 0);
    if (e >= 0) {
        CHECK(!m->ev[e].sync);
        CHECK_INT("acq@P[2] parts", m->ev[e].nparts, 1);
        if (m->ev[e].nparts == 1)
            CHECK_INT("acq@P[2] is P[2]'s", m->ev[e].parts[0], 2);
        CHECK_NUM("acq rate", san_expr_const(m->ev[e].rate), 1);
        /* P[2]: idle --acq@P[2]--> busy */
        const lang_automaton *P2 = &m->aut[2];
        CHECK_INT("P[2] transitions", P2->ntr, 2);
        if (P2->ntr == 2) {
            CHECK_INT("P[2] first[1]", P2->first[1], 1);
            CHECK_INT("P[2] tr0 event", P2->tr[0].event, e);
            CHECK_INT("P[2] tr0 to", P2->tr[0].to, 1);
            CHECK_INT("P[2] tr1 event", P2->tr[1].event, find_ev(m, "rel@P[2]"));
            CHECK_INT("P[2] tr1 to", P2->tr[1].to, 0);
        }
    }
    CHECK(find_ev(m, "rel@P[0]") >= 0);
    CHECK(find_ev(m, "qe") >= 0);
    san_model_free(m);
}

/* ------------------------------------------------------------------ */
/* Domains, replicated events                                           */
/* ------------------------------------------------------------------ */

static void test_domains(void)
{
    const char *text =
        "identifiers\n"
        "  D = [1..3,5,7..9];\n"
        "  E = [0..1];\n"
        "events\n"
        "  loc go[E] (1)\n"
        "  loc t (1)\n"
        "  syn k[2..3] (5) G\n"
        "reachability = 1;\n"
        "network m3 (continuous)\n"
        "  aut R[D]\n"
        "    stt q[D] to (++) t\n"
        "  aut G\n"
        "    stt g0 to (g1) go[0]\n"
        "    stt g1 to (g0) go[1]\n"
        "           to (g2) k[2]\n"
        "    stt g2 to (g0) k[3]\n"
        "results\n"
        "  a = st R[5] == q[7];\n"
        "  b = nb [R[3]..R[7]] q[5];\n";
    san_model *m = must_load("domains", text, NULL);
    if (!m)
        return;
    CHECK_INT("R replicas + G", m->naut, 8);
    static const char *names[] = { "R[1]", "R[2]", "R[3]", "R[5]", "R[7]", "R[8]", "R[9]", "G" };
    for (int a = 0; a < m->naut && a < 8; a++)
        CHECK_STR("replica name", m->aut[a].name, names[a]);
    if (m->naut >= 1) {
        CHECK_INT("q[D] states", m->aut[0].nstates, 7);
        if (m->aut[0].nstates == 7) {
            CHECK_STR("q block 0", m->aut[0].states[0], "q[1]");
            CHECK_STR("q block 3", m->aut[0].states[3], "q[5]");
            CHECK_STR("q block 4", m->aut[0].states[4], "q[7]");
            CHECK_STR("q block 6", m->aut[0].states[6], "q[9]");
            /* ++ is positional: q[3] -> q[5]; q[9] has no successor */
            const lang_automaton *R1 = &m->aut[0];
            CHECK_INT("R[1] transitions", R1->ntr, 6);
            if (R1->ntr == 6) {
                CHECK_INT("q[3] ++", R1->tr[R1->first[2]].to, 3);
                CHECK_INT("q[9] none", R1->first[7] - R1->first[6], 0);
            }
        }
    }
    /* 7^7 * 3 */
    CHECK_INT("product", m->product, 2470629);
    CHECK_STR("product_str", m->product_str, "2470629");
    /* replicated events */
    CHECK(find_ev(m, "go[0]") >= 0);
    CHECK(find_ev(m, "go[1]") >= 0);
    CHECK(find_ev(m, "go") < 0);
    int k2 = find_ev(m, "k[2]"), k3 = find_ev(m, "k[3]");
    CHECK(k2 >= 0 && k3 >= 0);
    if (k2 >= 0) {
        CHECK(m->ev[k2].sync);
        CHECK_NUM("k[2] rate", san_expr_const(m->ev[k2].rate), 5);
    }
    int t7 = find_ev(m, "t@R[7]");
    CHECK(t7 >= 0);
    if (t7 >= 0 && m->ev[t7].nparts == 1)
        CHECK_INT("t@R[7] belongs to R[7]", m->ev[t7].parts[0], 4);
    int s[8] = { 0, 0, 0, 4, 0, 0, 0, 0 };    /* R[5] in q[7] */
    const lang_result *a = find_res(m, "a"), *b = find_res(m, "b");
    CHECK(a && b);
    if (a) {
        CHECK_NUM("st R[5] == q[7]", san_expr_eval(a->expr, s), 1);
        s[3] = 3;
        CHECK_NUM("st R[5] == q[7] (R[5] in q[5])", san_expr_eval(a->expr, s), 0);
    }
    if (b) {
        /* R[3], R[5], R[7] are automata 2..4 */
        int s2[8] = { 3, 3, 3, 3, 0, 3, 3, 0 };
        CHECK_NUM("nb [R[3]..R[7]] q[5]", san_expr_eval(b->expr, s2), 2);
    }
    const lang_ident *D = find_id(m, "D");
    CHECK(D && D->is_domain);
    san_model_free(m);
}

/* ------------------------------------------------------------------ */
/* Positional destinations, from blocks, routing                        */
/* ------------------------------------------------------------------ */

static void test_destinations(void)
{
    const char *text =
        "events\n"
        "  loc inc (1)\n"
        "  loc dec (1)\n"
        "  loc up2 (1)\n"
        "  loc dn2 (1)\n"
        "  syn same (1)\n"
        "reachability = 1;\n"
        "network m4 (continuous)\n"
        "  aut Q\n"
        "    stt pre to (q[0]) inc\n"
        "    stt q[0..4]\n"
        "      to (++) inc\n"
        "      to (--) dec\n"
        "      to (+2) up2\n"
        "      to (-2) dn2\n"
        "      to (=) same\n"
        "    stt post to (pre) dec\n"
        "results\n"
        "  r = st Q;\n";
    san_model *m = must_load("positional destinations", text, NULL);
    if (!m)
        return;
    int inc = find_ev(m, "inc"), dec = find_ev(m, "dec"), up2 = find_ev(m, "up2"),
        dn2 = find_ev(m, "dn2"), sm = find_ev(m, "same");
    CHECK(inc >= 0 && dec >= 0 && up2 >= 0 && dn2 >= 0 && sm >= 0);
    const lang_automaton *Q = &m->aut[0];
    CHECK_INT("Q states", Q->nstates, 7);
    /* (event, to) per source, sorted by event (declaration order) then to */
    struct { int ev, to; } want[] = {
        { inc, 1 },                                     /* pre */
        { inc, 2 }, { up2, 3 }, { sm, 1 },              /* q[0] */
        { inc, 3 }, { dec, 1 }, { up2, 4 }, { sm, 2 },  /* q[1] */
        { inc, 4 }, { dec, 2 }, { up2, 5 }, { dn2, 1 }, { sm, 3 },  /* q[2] */
        { inc, 5 }, { dec, 3 }, { dn2, 2 }, { sm, 4 },  /* q[3] */
        { dec, 4 }, { dn2, 3 }, { sm, 5 },              /* q[4] */
        { dec, 0 },                                     /* post */
    };
    int nwant = sizeof want / sizeof want[0];
    int first[8] = { 0, 1, 4, 8, 13, 17, 20, 21 };
    CHECK_INT("Q transitions", Q->ntr, nwant);
    for (int s = 0; s <= 7; s++) {
        char what[64];
        snprintf(what, sizeof what, "Q first[%d]", s);
        CHECK_INT(what, Q->first[s], first[s]);
    }
    if (Q->ntr == nwant) {
        /* events are sorted by id; ids follow declaration order here */
        for (int k = 0; k < nwant; k++) {
            char what[64];
            snprintf(what, sizeof what, "Q tr[%d].event", k);
            CHECK_INT(what, Q->tr[k].event, want[k].ev);
            snprintf(what, sizeof what, "Q tr[%d].to", k);
            CHECK_INT(what, Q->tr[k].to, want[k].to);
        }
    }
    san_model_free(m);

    /* from blocks and routing probabilities */
    text =
        "identifiers\n"
        "  pf = (st Q == s[0]) * 0.5 + 0.25;\n"
        "events\n"
        "  loc arr (1)\n"
        "  loc rst (2)\n"
        "  loc r (1)\n"
        "partial reachability = st Q == s[0];\n"
        "network m5 (continuous)\n"
        "  aut Q\n"
        "    stt s[0..3] to (++) arr\n"
        "    from s[3] to (s[0]) rst\n"
        "  aut X\n"
        "    stt a to (b) r(0.25) to (c) r(0.75)\n"
        "    stt b to (a) r\n"
        "    stt c to (a) r(pf) to (b) r(1 - pf)\n"
        "results\n"
        "  n = st Q;\n"
        "  twice = n * 2;\n"
        "  both = n + twice;\n";
    m = must_load("from and routing", text, NULL);
    if (!m)
        return;
    int arr = find_ev(m, "arr"), rst = find_ev(m, "rst"), r = find_ev(m, "r");
    const lang_automaton *Qa = &m->aut[0], *X = &m->aut[1];
    CHECK_INT("Q ntr", Qa->ntr, 4);
    if (Qa->ntr == 4) {
        int f[5] = { 0, 1, 2, 3, 4 };
        for (int s = 0; s < 5; s++)
            CHECK_INT("Q first", Qa->first[s], f[s]);
        for (int k = 0; k < 3; k++) {
            CHECK_INT("Q arr event", Qa->tr[k].event, arr);
            CHECK_INT("Q arr to", Qa->tr[k].to, k + 1);
        }
        CHECK_INT("from s[3] event", Qa->tr[3].event, rst);
        CHECK_INT("from s[3] to s[0]", Qa->tr[3].to, 0);
    }
    CHECK_INT("X ntr", X->ntr, 5);
    if (X->ntr == 5) {
        int f[4] = { 0, 2, 3, 5 };
        for (int s = 0; s < 4; s++)
            CHECK_INT("X first", X->first[s], f[s]);
        int st0[2] = { 0, 2 }, st1[2] = { 1, 2 };
        for (int k = 0; k < 5; k++)
            CHECK_INT("X events", X->tr[k].event, r);
        CHECK_INT("a -> b", X->tr[0].to, 1);
        CHECK_INT("a -> c", X->tr[1].to, 2);
        CHECK(X->tr[0].prob && san_expr_is_const(X->tr[0].prob));
        CHECK(X->tr[1].prob && san_expr_is_const(X->tr[1].prob));
        if (X->tr[0].prob && X->tr[1].prob) {
            CHECK_NUM("p(a->b)", san_expr_const(X->tr[0].prob), 0.25);
            CHECK_NUM("p(a->c)", san_expr_const(X->tr[1].prob), 0.75);
        }
        CHECK_INT("b -> a", X->tr[2].to, 0);
        CHECK(X->tr[2].prob == NULL);
        CHECK_INT("c -> a", X->tr[3].to, 0);
        CHECK_INT("c -> b", X->tr[4].to, 1);
        CHECK(X->tr[3].prob && !san_expr_is_const(X->tr[3].prob));
        CHECK(X->tr[4].prob && !san_expr_is_const(X->tr[4].prob));
        if (X->tr[3].prob && X->tr[4].prob) {
            CHECK_NUM("pf, Q in s[0]", san_expr_eval(X->tr[3].prob, st0), 0.75);
            CHECK_NUM("1 - pf, Q in s[0]", san_expr_eval(X->tr[4].prob, st0), 0.25);
            CHECK_NUM("pf, Q in s[1]", san_expr_eval(X->tr[3].prob, st1), 0.25);
            CHECK_NUM("1 - pf, Q in s[1]", san_expr_eval(X->tr[4].prob, st1), 0.75);
        }
    }
    /* partial reachability */
    CHECK(m->partial);
    if (m->reach) {
        int s0[2] = { 0, 1 }, s1[2] = { 1, 1 };
        CHECK_NUM("reach at s[0]", san_expr_eval(m->reach, s0), 1);
        CHECK_NUM("reach at s[1]", san_expr_eval(m->reach, s1), 0);
    } else {
        CHECK(m->reach != NULL);
    }
    /* derived results */
    const lang_result *n = find_res(m, "n"), *tw = find_res(m, "twice"), *bo = find_res(m, "both");
    CHECK(n && tw && bo);
    if (n && tw && bo) {
        CHECK(!n->derived);
        CHECK(tw->derived);
        CHECK(bo->derived);
        double res[3] = { 3, 6, 0 };
        int s[2] = { 3, 0 };
        CHECK_NUM("twice = n * 2", san_expr_eval_ctx(tw->expr, s, res), 6);
        CHECK_NUM("both = n + twice", san_expr_eval_ctx(bo->expr, s, res), 9);
        CHECK_NUM("n", san_expr_eval(n->expr, s), 3);
    }
    CHECK_INT("product", m->product, 12);
    san_model_free(m);
}

/* thr(): a derived result, whatever else it names; without the
 * throughputs (san_expr_eval_ctx) it is not a number; refused where a
 * function of the state is expected, with the event's position. */
static void test_thr(void)
{
    const char *text =
        "identifiers N = [0..1]; r = 2;\n"
        "events loc e (r) loc f (r)\n"
        "reachability = 1;\n"
        "network n (continuous)\n"
        "  aut P[N] stt a to(b) e stt b to(a) f\n"
        "results x = st P[0]; t = thr(e); u = x / thr(e@P[1]); k = 2 * r;\n";
    san_model *m = must_load("thr", text, NULL);
    if (!m)
        return;
    const lang_result *x = find_res(m, "x"), *t = find_res(m, "t"), *u = find_res(m, "u"),
                     *k = find_res(m, "k");
    CHECK(x && t && u && k);
    if (x && t && u && k) {
        CHECK(!x->derived && !k->derived);
        CHECK(t->derived && u->derived);
        double res[4] = { 0.5, 1, 1, 4 };
        CHECK_NUM("thr without throughputs", san_expr_eval_ctx(t->expr, NULL, res), NAN);
        CHECK_NUM("x / thr without throughputs", san_expr_eval_ctx(u->expr, NULL, res), NAN);
    }
    CHECK_INT("copies", m->nev, 4);
    san_model_free(m);
    const char *bad =
        "identifiers r = 2;\n"
        "events loc e (r * thr(f)) loc f (r)\n"
        "reachability = 1;\n"
        "network n (continuous)\n"
        "  aut A stt a to(b) e stt b to(a) f\n"
        "results t = thr(g);\n";
    san_diag d;
    m = load(bad, NULL, &d);
    CHECK(m == NULL);
    CHECK(diag_has(&d, SAN_ERROR, "thr(f): a throughput is a value of the solution; it may "
                   "appear in results only"));
    CHECK(diag_has(&d, SAN_ERROR, "thr(g): unknown event 'g'"));
    int at = 0;
    for (int i = 0; i < d.n; i++)
        if (strstr(d.items[i].msg, "unknown event 'g'"))
            at = d.items[i].line * 100 + d.items[i].col;
    CHECK_INT("position of thr(g)'s event", at, 6 * 100 + 17);
    san_diag_clear(&d);
    san_model_free(m);
}

/* A chain of functions, each using the previous one twice: compiled
 * once each, and the value is 2^k times the first. */
static void test_function_chain(void)
{
    char text[4096];
    int n = snprintf(text, sizeof text, "identifiers\n  f0 = st A;\n");
    for (int k = 1; k <= 12; k++)
        n += snprintf(text + n, sizeof text - n, "  f%d = f%d + f%d;\n", k, k - 1, k - 1);
    snprintf(text + n, sizeof text - n,
             "events\n  loc e (f12)\nreachability = 1;\nnetwork c (continuous)\n"
             "  aut A\n    stt a to (b) e\n    stt b to (c) e\n    stt c to (a) e\n"
             "results\n  r = f12 - f11;\n");
    san_model *m = must_load("function chain", text, NULL);
    if (!m)
        return;
    int s[1] = { 2 };
    CHECK_NUM("rate f12 at A = c", san_expr_eval(m->ev[0].rate, s), 8192);
    const lang_result *r = find_res(m, "r");
    if (r)
        CHECK_NUM("f12 - f11 at A = c", san_expr_eval(r->expr, s), 4096);
    const lang_ident *f5 = find_id(m, "f5");
    CHECK(f5 && f5->is_function && f5->expr);
    if (f5 && f5->expr) {
        s[0] = 1;
        CHECK_NUM("f5 at A = b", san_expr_eval(f5->expr, s), 32);
        int nd = -1;
        const int *deps = san_expr_deps(f5->expr, &nd);
        CHECK_INT("f5 deps", nd, 1);
        if (nd == 1)
            CHECK_INT("f5 reads A", deps[0], 0);
    }
    san_model_free(m);
}

/* ------------------------------------------------------------------ */
/* -D overrides                                                         */
/* ------------------------------------------------------------------ */

static const char *M6 =
    "identifiers\n"
    "  K = 3;\n"
    "  L = K * 2;\n"
    "  f = st A + K;\n"
    "events\n"
    "  loc e (L)\n"
    "reachability = 1;\n"
    "network m6 (continuous)\n"
    "  aut A\n"
    "    stt a0 to (a1) e\n"
    "    stt a1 to (a0) e\n"
    "results\n"
    "  r = f;\n";

static void test_defines(void)
{
    san_define defs[2] = { { "K", 5, 0 }, { "nosuch", 1, 0 } };
    san_load_opts opt;
    san_load_opts_default(&opt);
    opt.defs = defs;
    opt.ndefs = 2;
    san_model *m = must_load("-D K=5", M6, &opt);
    if (!m)
        return;
    CHECK(defs[0].used);
    CHECK(!defs[1].used);
    const lang_ident *K = find_id(m, "K"), *L = find_id(m, "L");
    CHECK(K && L);
    if (K) {
        CHECK(K->overridden);
        CHECK_NUM("K overridden", K->value, 5);
    }
    if (L) {
        CHECK(!L->overridden);
        CHECK_NUM("L = K * 2 with K = 5", L->value, 10);
    }
    CHECK_NUM("rate of e = L", san_expr_const(m->ev[0].rate), 10);
    int s[1] = { 1 };
    const lang_result *r = find_res(m, "r");
    if (r)
        CHECK_NUM("f = st A + K", san_expr_eval(r->expr, s), 6);
    san_model_free(m);

    /* without the override */
    m = must_load("no -D", M6, NULL);
    if (m) {
        const lang_ident *K0 = find_id(m, "K");
        CHECK(K0 && !K0->overridden && K0->value == 3);
        CHECK_NUM("rate of e = L", san_expr_const(m->ev[0].rate), 6);
        san_model_free(m);
    }

    /* an override reaches domains: P[0..K-1] has K replicas */
    const char *rep =
        "identifiers\n"
        "  K = 2;\n"
        "events\n"
        "  loc e (1)\n"
        "reachability = 1;\n"
        "network k (continuous)\n"
        "  aut P[0..K-1]\n"
        "    stt a to (b) e\n"
        "    stt b to (a) e\n"
        "results\n"
        "  r = nb b;\n";
    san_define kdef[1] = { { "K", 4, 0 } };
    san_load_opts kopt;
    san_load_opts_default(&kopt);
    kopt.defs = kdef;
    kopt.ndefs = 1;
    m = must_load("-D K=4 in a domain", rep, &kopt);
    if (m) {
        CHECK(kdef[0].used);
        CHECK_INT("replicas with K = 4", m->naut, 4);
        if (m->naut == 4)
            CHECK_STR("last replica", m->aut[3].name, "P[3]");
        CHECK_INT("product with K = 4", m->product, 16);
        san_model_free(m);
    }

    /* -D of a function is an error */
    san_define fdef[1] = { { "f", 2, 0 } };
    san_load_opts fopt;
    san_load_opts_default(&fopt);
    fopt.defs = fdef;
    fopt.ndefs = 1;
    san_diag d;
    m = load(M6, &fopt, &d);
    CHECK(m == NULL);
    CHECK(d.nerrors > 0);
    CHECK(diag_has(&d, SAN_ERROR, "function of the state"));
    san_model_free(m);
    san_diag_clear(&d);
}

/* ------------------------------------------------------------------ */
/* The PEPS left-to-right warning                                       */
/* ------------------------------------------------------------------ */

static const char *M7 =
    "identifiers\n"
    "  x = %s;\n"
    "events\n"
    "  loc e (1)\n"
    "reachability = 1;\n"
    "network w (continuous)\n"
    "  aut A\n"
    "    stt a to (b) e\n"
    "    stt b to (a) e\n"
    "results\n"
    "  r = st A;\n";

static void peps_case(const char *expr, int want_warning)
{
    char *text = format_model(M7, expr);
    san_load_opts opt;
    san_load_opts_default(&opt);
    opt.peps_warnings = 1;
    san_diag d;
    san_model *m = load(text, &opt, &d);
    free(text);
    result(m != NULL, "PEPS case '%s': the model does not load", expr);
    int has = diag_has(&d, SAN_WARNING, "left to right");
    if (want_warning) {
        result(d.nwarnings > 0 && has, "x = %s; should warn about PEPS left-to-right reading", expr);
    } else {
        result(!has, "x = %s; should not warn about PEPS left-to-right reading", expr);
        CHECK_INT(expr, d.nwarnings, 0);
    }
    san_model_free(m);
    san_diag_clear(&d);
}

static void test_peps_warning(void)
{
    peps_case("5 + 6 * 7", 1);
    peps_case("(5 + 6) * 7", 0);
    peps_case("5 * 6 + 7", 0);
    peps_case("5 + (6 * 7)", 0);
    peps_case("2 - 3 - 4", 0);
    peps_case("1 || 0 && 0", 1);
    peps_case("st A + 1 * 2", 1);
    /* the warning is off unless asked for */
    char *text = format_model(M7, "5 + 6 * 7");
    san_diag d;
    san_model *m = load(text, NULL, &d);
    free(text);
    CHECK(m != NULL);
    CHECK(!diag_has(&d, SAN_WARNING, "left to right"));
    san_model_free(m);
    san_diag_clear(&d);
}

/* ------------------------------------------------------------------ */
/* Errors through the API                                               */
/* ------------------------------------------------------------------ */

static void test_errors(void)
{
    /* an unknown state: no model, an error with its position */
    const char *text =
        "events\n"
        "  loc e (1)\n"
        "reachability = 1;\n"
        "network n (continuous)\n"
        "  aut A\n"
        "    stt a to (b) e\n"
        "    stt b to (usng) e\n"
        "results\n"
        "  r = st A;\n";
    san_diag d;
    san_model *m = load(text, NULL, &d);
    CHECK(m == NULL);
    CHECK_INT("errors", d.nerrors, 1);
    if (d.n >= 1) {
        CHECK_INT("error line", d.items[0].line, 7);
        CHECK_INT("error col", d.items[0].col, 15);
        CHECK(d.items[0].sev == SAN_ERROR);
        CHECK(strstr(d.items[0].msg, "usng") != NULL);
    }
    san_model_free(m);
    san_diag_clear(&d);

    /* two syntax errors, both reported */
    text =
        "identifiers\n"
        "  a = 1 +;\n"
        "  b = * 2;\n"
        "events\n"
        "  loc e (1)\n"
        "reachability = 1;\n"
        "network n (continuous)\n"
        "  aut A\n"
        "    stt a to (b) e\n"
        "    stt b to (a) e\n"
        "results\n"
        "  r = st A;\n";
    m = load(text, NULL, &d);
    CHECK(m == NULL);
    CHECK_INT("syntax errors", d.nerrors, 2);
    if (d.n == 2) {
        CHECK_INT("first error line", d.items[0].line, 2);
        CHECK_INT("first error col", d.items[0].col, 10);
        CHECK_INT("second error line", d.items[1].line, 3);
        CHECK_INT("second error col", d.items[1].col, 7);
    }
    san_model_free(m);
    san_diag_clear(&d);

    /* empty input */
    m = load("", NULL, &d);
    CHECK(m == NULL);
    CHECK(d.nerrors > 0);
    san_model_free(m);
    san_diag_clear(&d);
}

int main(void)
{
    test_precedence();
    test_state_exprs();
    test_model1_structure();
    test_replicas();
    test_domains();
    test_destinations();
    test_function_chain();
    test_defines();
    test_peps_warning();
    test_errors();
    test_thr();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
