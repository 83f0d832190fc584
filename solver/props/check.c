/*
 * check.c - checking the CSL properties of san/props.h on a model's
 * reachable chain, with PRISM's semantics for CTMCs:
 *   - P=? [a U<=t b]: b and (!a & !b) absorbing, the mass in b at t
 *     (uniformization, solver/transient/); F<=t b is true U<=t b;
 *   - P=? [a U[t1,t2] b]: the chain with !a absorbing to t1, the mass
 *     there dropped, then the bounded until for t2 - t1;
 *   - P=? [a U b]: the states that reach b through a-states, a linear
 *     solve (solver/numeric/restricted.c); a lower bound t1 alone: the transient to t1
 *     first;
 *   - G is 1 - F of the negation;
 *   - R=? [C<=t], [I=t]: the integral of pi(s) r over [0, t], pi(t) r;
 *   - R=? [F b]: infinite when b is missed with positive probability,
 *     else the linear solve of the expected reward until b;
 *   - S=? and R=? [S]: each closed class's stationary answer, weighted by
 *     the probability of reaching that class from the initial
 *     distribution (the expected time in the transient states, one
 *     linear solve): several closed classes are answered, as PRISM does.
 * The initial distribution is uniform over the initial states (those
 * the reachability function accepts under partial reachability).
 * A reward structure is a result of the model (the PRISM importer
 * writes each structure as its reward rate, transition rewards weighted
 * by their events' rates, which is what the expectations read).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/props/props_int.h"
#include "solver/numeric/class_reach.h"
#include "solver/numeric/restricted.h"
#include "solver/space/state_space.h"
#include "solver/transient/transient.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

struct san_checker {
    const san_model *m;
    san_space sp;
    san_props_opts o;
    san_csr qt;             /* the transposed generator (uniformization) */
    num_op op;
    double *init;           /* the initial distribution */
    int64_t ninit;
    int *st;                /* scratch: one global state */
};

void san_props_opts_default(san_props_opts *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    san_solve_opts_default(&o->solve);
    san_space_opts_default(&o->space);
    o->eps = 1e-13;
    o->max_steps = 1e8;
}

const san_space *san_checker_space(const san_checker *c)
{
    return &c->sp;
}

int64_t san_checker_initial(const san_checker *c)
{
    return c->ninit;
}

void san_checker_free(san_checker *c)
{
    if (!c)
        return;
    space_clear(&c->sp);
    san_csr_free(&c->qt);
    free(c->init);
    free(c->st);
    free(c);
}

san_status san_checker_new(const san_model *m, const san_props_opts *o, san_checker **out,
                           san_diag *d)
{
    *out = NULL;
    char msg[192];
    if (BASE_OPTS_FOREIGN(o, "property", "san_props_opts_default", msg, sizeof msg)) {
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", msg);
        return SAN_E_USAGE;
    }
    san_checker *c = calloc(1, sizeof *c);
    if (!c)
        return SAN_E_NOMEM;
    c->m = m;
    c->o = *o;
    san_space_opts so = o->space;
    so.several_closed = 1;
    so.states_only = 0;
    san_status st = san_space_build(m, &so, &c->sp, d);
    if (st != SAN_OK) {
        free(c);
        return st;
    }
    int64_t n = c->sp.n;
    c->init = calloc((size_t)n, sizeof *c->init);
    c->st = calloc((size_t)(m->naut ? m->naut : 1), sizeof *c->st);
    if (!c->init || !c->st || san_csr_transpose(&c->sp.q, &c->qt) < 0) {
        san_checker_free(c);
        return SAN_E_NOMEM;
    }
    num_op_csr(&c->op, &c->qt, c->sp.max_rate);
    for (int64_t s = 0; s < n; s++) {
        san_state_decode(m, c->sp.index[s], c->st);
        if (!m->reach || san_expr_eval(m->reach, c->st) != 0) {
            c->init[s] = 1;
            c->ninit++;
        }
    }
    if (!c->ninit) {
        san_diag_add(d, SAN_ERROR, 0, 0, "no initial state among the reachable ones");
        san_checker_free(c);
        return SAN_E_MODEL;
    }
    for (int64_t s = 0; s < n; s++)
        c->init[s] /= (double)c->ninit;
    *out = c;
    return SAN_OK;
}

/* ---- state formulas ---- */

/* What a name of a property is in the model. */
enum { R_CONST, R_AUT, R_IDENT, R_RESULT, R_INIT, R_DEADLOCK };

typedef struct {
    san_checker *c;
    const san_props *p;
    san_diag *d;
    int failed;
} env;

static void fail_at(env *e, const pnode *n, const char *fmt, const char *name)
{
    if (!e->failed)
        san_diag_add(e->d, SAN_ERROR, n->line, n->col, fmt, name);
    e->failed = 1;
}

/* The value of automaton a's local state s: a PRISM variable's value
 * from the state's name (x_3, x_m2 for -2), else the state's index. */
static double aut_value(const lang_automaton *A, int s)
{
    const char *nm = A->states[s];
    size_t la = strlen(A->name);
    if (!strncmp(nm, A->name, la) && nm[la] == '_') {
        const char *p = nm + la + 1;
        int neg = *p == 'm';
        if (neg)
            p++;
        char *end;
        long v = strtol(p, &end, 10);
        if (end != p && !*end)
            return neg ? -(double)v : (double)v;
    }
    return s;
}

/* A result's name as the PRISM importer writes a label's: every
 * character outside [A-Za-z0-9_] as '_'. */
static int same_label(const char *result, const char *label)
{
    for (; *result && *label; result++, label++) {
        char c = *label;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_';
        if (*result != (ok ? c : '_'))
            return 0;
    }
    return !*result && !*label;
}

/* The result named prefix + name, name as a label's (an importer's
 * hidden result; prefix "": the result itself). */
static int find_prefixed(const san_model *m, const char *prefix, const char *name)
{
    const size_t k = strlen(prefix);
    for (int i = 0; i < m->nres; i++)
        if (!strncmp(m->res[i].name, prefix, k) && same_label(m->res[i].name + k, name))
            return i;
    return -1;
}

static int find_result(const san_model *m, const char *name)
{
    return find_prefixed(m, "", name);
}

static void suggest_names(env *e, const pnode *n, int label)
{
    const san_model *m = e->c->m;
    san_suggest sg;
    san_suggest_init(&sg, n->name);
    if (label) {
        for (int i = 0; i < m->nres; i++)
            if (strncmp(m->res[i].name, "__", 2))   /* not the hidden ones */
                san_suggest_add(&sg, m->res[i].name);
    } else {
        for (int i = 0; i < m->naut; i++)
            san_suggest_add(&sg, m->aut[i].name);
    }
    for (int i = 0; i < m->nid; i++)
        san_suggest_add(&sg, m->id[i].name);
    const char *b = san_suggest_best(&sg);
    if (e->failed)
        return;
    if (b)
        san_diag_add(e->d, SAN_ERROR, n->line, n->col, "%s '%s' is not in the model; did you "
                     "mean '%s'?", label ? "label" : "name", n->name, b);
    else
        san_diag_add(e->d, SAN_ERROR, n->line, n->col, "%s '%s' is not in the model (%s)",
                     label ? "label" : "name", n->name,
                     label ? "a label is a result or a function of the model, or \"init\"" :
                     "a name is a variable (automaton), a constant of the property file or "
                     "a constant or function of the model");
    e->failed = 1;
}

/* Resolve the names of the tree once: n->op holds what a name is,
 * n->v its index (or a constant's value). */
static void resolve(env *e, pnode *n)
{
    if (!n || e->failed)
        return;
    const san_model *m = e->c->m;
    if (n->kind == PN_ID) {
        const pconst *k = props_const(e->p, n->name);
        if (k) {
            if (!k->defined) {
                fail_at(e, n, "constant '%s' has no value: give it one with -D", n->name);
                return;
            }
            n->op = R_CONST;
            n->v = k->v;
            return;
        }
        for (int i = 0; i < m->naut; i++)
            if (!strcmp(m->aut[i].name, n->name)) {
                n->op = R_AUT;
                n->v = i;
                return;
            }
        for (int i = 0; i < m->nid; i++)
            if (!strcmp(m->id[i].name, n->name) && !m->id[i].is_domain) {
                n->op = R_IDENT;
                n->v = i;
                return;
            }
        char hidden[256];
        snprintf(hidden, sizeof hidden, "%s%s", SAN_IMPORT_CONST_PREFIX, n->name);
        for (int i = 0; i < m->nres; i++)
            if (!strcmp(m->res[i].name, hidden) && san_expr_is_const(m->res[i].expr)) {
                n->op = R_CONST;
                n->v = san_expr_const(m->res[i].expr);
                return;
            }
        suggest_names(e, n, 0);
        return;
    }
    if (n->kind == PN_LABEL) {
        if (!strcmp(n->name, "init")) {
            n->op = R_INIT;
            return;
        }
        if (!strcmp(n->name, "deadlock")) {
            n->op = R_DEADLOCK;
            return;
        }
        int r = find_result(m, n->name);
        if (r >= 0) {
            if (m->res[r].derived) {
                fail_at(e, n, "label '%s' is a derived result (computed from other results), "
                        "not a function of the state", n->name);
                return;
            }
            n->op = R_RESULT;
            n->v = r;
            return;
        }
        for (int i = 0; i < m->nid; i++)
            if (!strcmp(m->id[i].name, n->name) && !m->id[i].is_domain) {
                n->op = R_IDENT;
                n->v = i;
                return;
            }
        suggest_names(e, n, 1);
        return;
    }
    resolve(e, n->a);
    resolve(e, n->b);
    resolve(e, n->c);
}

static double eval(const san_checker *c, const pnode *n, int64_t s)
{
    const san_model *m = c->m;
    switch (n->kind) {
    case PN_NUM:
        return n->v;
    case PN_ID:
    case PN_LABEL:
        switch (n->op) {
        case R_CONST:
            return n->v;
        case R_AUT:
            return aut_value(&m->aut[(int)n->v], c->st[(int)n->v]);
        case R_IDENT: {
            const lang_ident *id = &m->id[(int)n->v];
            return id->expr ? san_expr_eval(id->expr, c->st) : id->value;
        }
        case R_RESULT:
            return san_expr_eval(m->res[(int)n->v].expr, c->st);
        case R_INIT:
            return c->init[s] > 0;
        default: {  /* deadlock: no transition out */
            const san_csr *q = &c->sp.q;
            for (int64_t k = q->rowptr[s]; k < q->rowptr[s + 1]; k++)
                if (q->col[k] != s && q->val[k] != 0)
                    return 0;
            return 1;
        }
        }
    case PN_NOT:
        return eval(c, n->a, s) == 0;
    case PN_NEG:
        return -eval(c, n->a, s);
    case PN_ITE:
        return eval(c, n->a, s) != 0 ? eval(c, n->b, s) : eval(c, n->c, s);
    case PN_BIN: {
        double a = eval(c, n->a, s);
        if (n->op == PN_AND && a == 0)
            return 0;
        if (n->op == PN_OR && a != 0)
            return 1;
        if (n->op == PN_IMP && a == 0)
            return 1;
        double b = eval(c, n->b, s);
        switch (n->op) {
        case PN_ADD: return a + b;
        case PN_SUB: return a - b;
        case PN_MUL: return a * b;
        case PN_DIV: return a / b;
        case PN_LT: return a < b;
        case PN_LE: return a <= b;
        case PN_GT: return a > b;
        case PN_GE: return a >= b;
        case PN_EQ: return a == b;
        case PN_NE: return a != b;
        case PN_AND:
        case PN_OR:
        case PN_IMP: return b != 0;
        default: return (a != 0) == (b != 0);
        }
    }
    }
    return NAN;
}

/* Per state: the formula's truth (sat, negated when neg) or value. */
static int states_of(env *e, pnode *n, char *sat, double *val, int neg)
{
    san_checker *c = e->c;
    resolve(e, n);
    if (e->failed)
        return -1;
    for (int64_t s = 0; s < c->sp.n; s++) {
        san_state_decode(c->m, c->sp.index[s], c->st);
        double v = eval(c, n, s);
        if (sat)
            sat[s] = (char)((v != 0) != neg);
        if (val) {
            if (!isfinite(v)) {
                char buf[512];
                san_state_name(c->m, c->st, buf, sizeof buf);
                san_diag_add(e->d, SAN_ERROR, n->line, n->col, "the reward is %g in state %s",
                             v, buf);
                e->failed = 1;
                return -1;
            }
            val[s] = v;
        }
    }
    return 0;
}

/* ---- graphs ---- */

/* yes[s] = 1 for the states that reach a yes-state through `via`
 * states (backward search over Q's columns, the transposed rows). */
static void backward(const san_checker *c, char *yes, const char *via, int64_t *queue)
{
    int64_t h = 0, t = 0, n = c->sp.n;
    for (int64_t s = 0; s < n; s++)
        if (yes[s])
            queue[t++] = s;
    while (h < t) {
        int64_t j = queue[h++];
        for (int64_t k = c->qt.rowptr[j]; k < c->qt.rowptr[j + 1]; k++) {
            int64_t i = c->qt.col[k];
            if (i != j && !yes[i] && (!via || via[i]) && c->qt.val[k] > 0) {
                yes[i] = 1;
                queue[t++] = i;
            }
        }
    }
}

/* ---- the numerical engines ---- */

static san_status series_error(const tr_unif *u, int rc, san_diag *d)
{
    if (rc == 1) {
        san_diag_add(d, SAN_ERROR, 0, 0, "interrupted");
        return SAN_E_INTERRUPTED;
    }
    if (rc == SAN_UNIF_DIVERGED) {
        char msg[512];
        tr_unif_diverged_text(u, msg, sizeof msg);
        san_diag_add(d, SAN_ERROR, 0, 0, "uniformization: %s", msg);
        return SAN_E_NUMERIC;
    }
    san_diag_add(d, SAN_ERROR, 0, 0, "uniformization: the Poisson weights could not be "
                 "computed (out of memory, or rate x time too large)");
    return SAN_E_NOMEM;
}

/* x <- x e^{Q' dt}, Q' with the absorb states made absorbing; integ
 * (may be NULL) += the integral of x over [0, dt]. */
static san_status advance(san_checker *c, double *x, double dt, const char *absorb,
                          double *integ, san_prop_answer *a, san_diag *d)
{
    int64_t n = c->sp.n;
    double rate = c->sp.max_rate * SAN_UNIF_MARGIN;
    if (rate <= 0 || dt <= 0) {
        if (integ)
            for (int64_t s = 0; s < n; s++)
                integ[s] += x[s] * fmax(dt, 0);
        return SAN_OK;
    }
    double trunc;
    int64_t right = tr_fg_right(rate * dt, c->o.eps, &trunc);
    if (right < 0 || (double)right > c->o.max_steps) {
        san_diag_add(d, SAN_ERROR, 0, 0, "uniformization would need about %.3g products "
                     "(rate %.6g x time %g), over the limit of %.3g", (double)right, rate, dt,
                     c->o.max_steps);
        return SAN_E_LIMIT;
    }
    double *buf = malloc((size_t)(4 * n) * sizeof *buf);
    if (!buf)
        return SAN_E_NOMEM;
    tr_unif u = { .op = &c->op, .rate = rate, .eps = c->o.eps, .ss_tol = 0,
                   .absorb = absorb, .interrupt = c->o.space.interrupt,
                   .v = buf, .y = buf + n, .acc = buf + 2 * n, .xm = buf + 3 * n,
                   .integ = integ, .ss_at = -1 };
    int rc = tr_unif_advance(&u, x, dt);
    free(buf);
    a->steps += u.steps;
    a->error_bound += u.trunc_sum;
    if (rc != 0)
        return series_error(&u, rc, d);
    return SAN_OK;
}

/* Probability, per state, of a U b (unbounded), into x (1 on b). */
static san_status until_all(san_checker *c, const char *sa, const char *sb, double *x,
                            san_prop_answer *a, san_diag *d)
{
    int64_t n = c->sp.n;
    char *yes = malloc((size_t)n);
    int64_t *map = malloc((size_t)n * sizeof *map);
    double *b = malloc((size_t)n * sizeof *b), *y = malloc((size_t)n * sizeof *y);
    san_status st = SAN_OK;
    if (!yes || !map || !b || !y) {
        st = SAN_E_NOMEM;
        goto out;
    }
    memcpy(yes, sb, (size_t)n);
    backward(c, yes, sa, map);      /* map: the queue's scratch */
    int64_t nu = 0;
    for (int64_t s = 0; s < n; s++)
        map[s] = yes[s] && !sb[s] ? nu++ : -1;
    for (int64_t s = 0; s < n; s++) {
        x[s] = sb[s] ? 1 : 0;
        if (map[s] < 0)
            continue;
        double r = 0;
        for (int64_t k = c->sp.q.rowptr[s]; k < c->sp.q.rowptr[s + 1]; k++)
            if (sb[c->sp.q.col[k]] && c->sp.q.col[k] != s)
                r += c->sp.q.val[k];
        b[map[s]] = r;
    }
    if (nu > 0) {
        char msg[256];
        double resid;
        if (num_restricted_solve(&c->sp.q, map, nu, b, y, 0, &resid, msg, sizeof msg) < 0) {
            san_diag_add(d, SAN_ERROR, 0, 0, "%s", msg);
            st = SAN_E_NUMERIC;
            goto out;
        }
        for (int64_t s = 0; s < n; s++)
            if (map[s] >= 0)
                x[s] = fmin(1, fmax(0, y[map[s]]));
        a->error_bound = fmax(a->error_bound, resid);
        a->method = "linear solve";
    } else {
        a->method = "graph";
    }
out:
    free(yes);
    free(map);
    free(b);
    free(y);
    return st;
}

static double dot(const double *x, const double *y, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* P=? [a U[lo,hi] b]; a NULL: true. */
static san_status prob_until(san_checker *c, const char *sa, const char *sb, double lo,
                             double hi, san_prop_answer *a, san_diag *d)
{
    int64_t n = c->sp.n;
    double *x = malloc((size_t)n * sizeof *x);
    char *absorb = malloc((size_t)n);
    if (!x || !absorb) {
        free(x);
        free(absorb);
        return SAN_E_NOMEM;
    }
    memcpy(x, c->init, (size_t)n * sizeof *x);
    san_status st = SAN_OK;
    a->method = "uniformization";
    if (lo > 0) {
        /* to lo, a holding throughout: the !a states absorb and drop out */
        for (int64_t s = 0; s < n; s++)
            absorb[s] = sa && !sa[s] ? SAN_ABSORB_MISSED : 0;
        st = advance(c, x, lo, sa ? absorb : NULL, NULL, a, d);
        for (int64_t s = 0; st == SAN_OK && s < n; s++)
            if (sa && !sa[s])
                x[s] = 0;
    }
    if (st == SAN_OK && isinf(hi)) {
        double *v = malloc((size_t)n * sizeof *v);
        char *all = NULL;
        if (!sa && (all = malloc((size_t)n)))
            memset(all, 1, (size_t)n);
        if (!v || (!sa && !all))
            st = SAN_E_NOMEM;
        else
            st = until_all(c, sa ? sa : all, sb, v, a, d);
        if (st == SAN_OK) {
            a->value = dot(x, v, n);
            if (lo > 0)
                a->method = "uniformization, linear solve";
        }
        free(v);
        free(all);
    } else if (st == SAN_OK) {
        for (int64_t s = 0; s < n; s++)
            absorb[s] = sb[s] ? SAN_ABSORB_TARGET :
                        sa && !sa[s] ? SAN_ABSORB_MISSED : 0;
        st = advance(c, x, hi - lo, absorb, NULL, a, d);
        double p = 0;
        for (int64_t s = 0; s < n; s++)
            if (sb[s])
                p += x[s];
        a->value = fmin(1, p);
    }
    free(x);
    free(absorb);
    return st;
}

/* Per closed class, the probability of reaching it from the initial
 * distribution (*prob, nclasses entries; class_reach.c) and the class
 * of each state (*cls, -1 transient). */
static san_status class_reach(san_checker *c, int64_t *ncls, double **prob, const int32_t **cls,
                              int32_t **own, san_prop_answer *a, san_diag *d)
{
    const san_space *sp = &c->sp;
    int64_t n = sp->n, K = sp->cls ? sp->nclasses : 1;
    int32_t *cl = NULL;
    if (!sp->cls) {
        cl = malloc((size_t)(n ? n : 1) * sizeof *cl);
        if (!cl)
            return SAN_E_NOMEM;
        for (int64_t s = 0; s < n; s++)
            cl[s] = sp->in_closed[s] ? 0 : -1;
    }
    const int32_t *C = sp->cls ? sp->cls : cl;
    double *p = calloc((size_t)K, sizeof *p);
    if (!p) {
        free(cl);
        return SAN_E_NOMEM;
    }
    char msg[256];
    double resid;
    if (num_class_reach(&sp->q, C, K, c->init, p, NULL, &resid, msg, sizeof msg) < 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", msg);
        free(p);
        free(cl);
        return SAN_E_NUMERIC;
    }
    a->error_bound = fmax(a->error_bound, resid);
    *ncls = K;
    *prob = p;
    *cls = C;
    *own = cl;
    return SAN_OK;
}

/* sum over the closed classes of P(reach the class) times its long-run
 * average of val. */
static san_status steady(san_checker *c, const double *val, san_prop_answer *a, san_diag *d)
{
    const san_space *sp = &c->sp;
    int64_t n = sp->n, K;
    double *prob;
    const int32_t *C;
    int32_t *own;
    san_status st = class_reach(c, &K, &prob, &C, &own, a, d);
    if (st != SAN_OK)
        return st;
    /* each class's states, class after class (a counting sort), and
     * each class a space of its own (space/class_space.c, as san solve
     * solves it): the work is the classes', not n per class */
    int64_t *map = malloc((size_t)(n ? n : 1) * sizeof *map);
    int64_t *start = calloc((size_t)K + 1, sizeof *start);
    int64_t *members = malloc((size_t)(n ? n : 1) * sizeof *members);
    if (!map || !start || !members) {
        free(map);
        free(start);
        free(members);
        free(prob);
        free(own);
        return SAN_E_NOMEM;
    }
    for (int64_t s = 0; s < n; s++) {
        map[s] = -1;
        if (C[s] >= 0)
            start[C[s] + 1]++;
    }
    for (int64_t k = 0; k < K; k++)
        start[k + 1] += start[k];
    for (int64_t s = 0; s < n; s++)
        if (C[s] >= 0)
            members[start[C[s]]++] = s;
    for (int64_t k = K; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;
    double total = 0, err = 0;
    a->classes = K;
    for (int64_t k = 0; k < K && st == SAN_OK; k++) {
        if (prob[k] <= 0)
            continue;
        const int64_t *mem = members + start[k], m = start[k + 1] - start[k];
        double v = 0;
        if (m == 1) {           /* an absorbing state */
            total += prob[k] * val[mem[0]];
            continue;
        }
        san_space sub;
        san_csr qt;
        double *pi = calloc((size_t)m, sizeof *pi);
        if (!pi || space_class(sp, mem, m, map, &sub) < 0) {
            free(pi);
            st = SAN_E_NOMEM;
            break;
        }
        if (san_csr_transpose(&sub.q, &qt) < 0) {
            space_clear(&sub);
            free(pi);
            st = SAN_E_NOMEM;
            break;
        }
        space_clear(&sub);
        san_solve_info info;
        st = san_ctmc_solve(&qt, pi, &c->o.solve, &info);
        if (st != SAN_OK)
            san_diag_add(d, SAN_ERROR, 0, 0, "the steady state of closed class %lld "
                         "(%lld states): %s", (long long)k + 1, (long long)m,
                         info.msg[0] ? info.msg : san_status_name(st));
        for (int64_t j = 0; j < m; j++)
            v += pi[j] * val[mem[j]];
        total += prob[k] * v;
        if (st == SAN_OK)
            err = fmax(err, info.error_est);
        san_csr_free(&qt);
        free(pi);
    }
    free(start);
    free(members);
    a->value = total;
    a->error_bound = fmax(a->error_bound, err);
    a->method = K > 1 ? "steady state per closed class, linear solve" : "steady state";
    free(map);
    free(prob);
    free(own);
    return st;
}

/* R=? [F b]. */
static san_status reach_reward(san_checker *c, const char *sb, const double *r,
                               san_prop_answer *a, san_diag *d)
{
    int64_t n = c->sp.n;
    char *can = malloc((size_t)n), *bad = malloc((size_t)n), *notb = calloc((size_t)n, 1);
    int64_t *map = malloc((size_t)n * sizeof *map);
    double *b = malloc((size_t)n * sizeof *b), *y = malloc((size_t)n * sizeof *y);
    san_status st = SAN_OK;
    if (!can || !bad || !notb || !map || !b || !y) {
        st = SAN_E_NOMEM;
        goto out;
    }
    /* bad: the states that can reach, outside b, a state that cannot
     * reach b; from them b is missed with positive probability */
    memcpy(can, sb, (size_t)n);
    backward(c, can, NULL, map);
    for (int64_t s = 0; s < n; s++) {
        bad[s] = !can[s];
        notb[s] = !sb[s];
    }
    backward(c, bad, notb, map);
    a->method = "linear solve";
    for (int64_t s = 0; s < n; s++)
        if (c->init[s] > 0 && bad[s]) {
            a->value = HUGE_VAL;
            a->method = "graph";
            goto out;
        }
    int64_t nu = 0;
    for (int64_t s = 0; s < n; s++) {
        map[s] = !sb[s] && !bad[s] ? nu++ : -1;
        if (map[s] >= 0)
            b[map[s]] = r[s];
    }
    a->value = 0;
    if (nu > 0) {
        char msg[256];
        double resid;
        if (num_restricted_solve(&c->sp.q, map, nu, b, y, 0, &resid, msg, sizeof msg) < 0) {
            san_diag_add(d, SAN_ERROR, 0, 0, "%s", msg);
            st = SAN_E_NUMERIC;
            goto out;
        }
        for (int64_t s = 0; s < n; s++)
            if (map[s] >= 0)
                a->value += c->init[s] * y[map[s]];
        a->error_bound = resid;
    }
out:
    free(can);
    free(bad);
    free(notb);
    free(map);
    free(b);
    free(y);
    return st;
}

/* R=? [I=t] counts the state rewards alone: of a PRISM structure, the
 * hidden result the importer wrote for them (SAN_IMPORT_PROPS), under
 * the structure's PRISM name. */
static int state_only(const san_model *m, const pquery *q, const char *name, int r)
{
    if (q->kind != PQ_R_I)
        return r;
    int h = find_prefixed(m, SAN_IMPORT_STATE_PREFIX, name ? name : m->res[r].name);
    return h >= 0 ? h : r;
}

/* The reward structure of an R query: a result of the model; of an
 * imported PRISM model, the structure itself where a label of the same
 * name kept the plain result name (SAN_IMPORT_REWARD_PREFIX). */
static int reward_result(env *e, const pquery *q)
{
    const san_model *m = e->c->m;
    char want[64];
    const char *name = q->reward;
    if (!name && q->reward_index) {
        snprintf(want, sizeof want, "rewards_%g", q->reward_index->v);
        name = want;
    }
    if (name) {
        int r = find_prefixed(m, SAN_IMPORT_REWARD_PREFIX, name);
        if (r < 0)
            r = find_result(m, name);
        if (r >= 0 && !m->res[r].derived)
            return state_only(m, q, name, r);
        san_diag_add(e->d, SAN_ERROR, q->line, q->col, "reward structure '%s' is not a result "
                     "of the model", name);
        return -1;
    }
    int r = find_result(m, "rewards_1");
    if (r >= 0)
        return state_only(m, q, "rewards_1", r);
    int only = -1, count = 0;
    for (int i = 0; i < m->nres; i++)
        if (strncmp(m->res[i].name, "__", 2)) {
            only = i;
            count++;
        }
    if (count == 1 && !m->res[only].derived)
        return state_only(m, q, NULL, only);
    san_diag_add(e->d, SAN_ERROR, q->line, q->col, "R=? without a name, and the model has %d "
                 "results: name the reward structure, R{\"name\"}=?", count);
    return -1;
}

san_status san_checker_validate(san_checker *c, const san_props *p, int i, san_diag *d)
{
    pquery *q = &p->q[i];
    env e = { c, p, d, 0 };
    resolve(&e, q->a);
    e.failed = 0;               /* one error per formula */
    resolve(&e, q->b);
    int bad = d->nerrors > 0;
    if (q->kind >= PQ_R_S && reward_result(&e, q) < 0)
        bad = 1;
    return bad ? SAN_E_MODEL : SAN_OK;
}

san_status san_checker_eval(san_checker *c, const san_props *p, int i, san_prop_answer *a,
                            san_diag *d)
{
    memset(a, 0, sizeof *a);
    a->target = -1;
    a->error_bound = 0;
    pquery *q = &p->q[i];
    int64_t n = c->sp.n;
    env e = { c, p, d, 0 };
    char *sa = NULL, *sb = calloc((size_t)n, 1);
    double *val = NULL;
    san_status st = SAN_OK;
    if (!sb)
        return SAN_E_NOMEM;
    double lo = q->lo ? q->lo->v : 0, hi = q->hi ? q->hi->v : HUGE_VAL;
    switch (q->kind) {
    case PQ_S:
        a->kind = "steady-state probability";
        val = malloc((size_t)n * sizeof *val);
        if (!val || states_of(&e, q->a, sb, NULL, 0) < 0) {
            st = val ? SAN_E_MODEL : SAN_E_NOMEM;
            break;
        }
        for (int64_t s = 0; s < n; s++)
            val[s] = sb[s];
        st = steady(c, val, a, d);
        break;
    case PQ_P_F:
    case PQ_P_G:
    case PQ_P_U:
        a->kind = "probability";
        if (q->kind == PQ_P_U) {
            sa = malloc((size_t)n);
            if (!sa) {
                st = SAN_E_NOMEM;
                break;
            }
            if (states_of(&e, q->a, sa, NULL, 0) < 0) {
                st = SAN_E_MODEL;
                break;
            }
        }
        if (states_of(&e, q->b, sb, NULL, q->kind == PQ_P_G) < 0) {
            st = SAN_E_MODEL;
            break;
        }
        a->target = 0;
        for (int64_t s = 0; s < n; s++)
            a->target += sb[s];
        st = prob_until(c, sa, sb, lo, hi, a, d);
        if (q->kind == PQ_P_G)
            a->value = 1 - a->value;
        /* a sum of probabilities rounds past 1 by an ulp or two */
        a->value = fmin(1, fmax(0, a->value));
        break;
    default: {
        a->kind = "expected reward";
        int r = reward_result(&e, q);
        val = malloc((size_t)n * sizeof *val);
        if (r < 0 || !val) {
            st = r < 0 ? SAN_E_MODEL : SAN_E_NOMEM;
            break;
        }
        double rmax = 0;
        for (int64_t s = 0; s < n; s++) {
            san_state_decode(c->m, c->sp.index[s], c->st);
            val[s] = san_expr_eval(c->m->res[r].expr, c->st);
            rmax = fmax(rmax, fabs(val[s]));
        }
        if (q->kind == PQ_R_S) {
            a->kind = "long-run reward rate";
            st = steady(c, val, a, d);
        } else if (q->kind == PQ_R_F) {
            if (states_of(&e, q->b, sb, NULL, 0) < 0) {
                st = SAN_E_MODEL;
                break;
            }
            a->target = 0;
            for (int64_t s = 0; s < n; s++)
                a->target += sb[s];
            st = reach_reward(c, sb, val, a, d);
        } else {
            double *x = malloc((size_t)n * sizeof *x);
            double *integ = q->kind == PQ_R_C ? calloc((size_t)n, sizeof *integ) : NULL;
            if (!x || (q->kind == PQ_R_C && !integ)) {
                free(x);
                free(integ);
                st = SAN_E_NOMEM;
                break;
            }
            memcpy(x, c->init, (size_t)n * sizeof *x);
            a->method = "uniformization";
            st = advance(c, x, hi, NULL, integ, a, d);
            a->value = dot(q->kind == PQ_R_C ? integ : x, val, n);
            a->kind = q->kind == PQ_R_C ? "expected cumulative reward" :
                                          "expected instantaneous reward";
            /* each probability within the truncated mass: the reward
             * within it times the largest rate (times t integrated) */
            a->error_bound *= rmax * (q->kind == PQ_R_C ? hi : 1);
            free(x);
            free(integ);
        }
        break;
    }
    }
    free(sa);
    free(sb);
    free(val);
    return st;
}
