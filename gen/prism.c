/*
 * prism.c - a PRISM CTMC as .san text (`san import prism`).
 *
 * The translation, after the parser (prism_parser.y) has built the tree:
 *  1. constants get their values, in order, -D overriding (an undefined
 *     constant must be given one);
 *  2. formulas are expanded where they are used, then every renamed
 *     module (module B = A [x=y, a=b]) becomes a copy of A's expanded
 *     text with the names replaced;
 *  3. every variable (global or of a module) becomes an automaton whose
 *     states are its values, x_LO .. x_HI (a bool: x_0, x_1);
 *  4. every alternative (rate : update) of an unlabelled command is an
 *     event of rate guard * rate: local when it changes one variable,
 *     synchronizing the automata of the variables it changes otherwise;
 *     an action [a] is, for each combination of one command labelled a
 *     in every module that has a in its alphabet and of one alternative
 *     of each, an event of rate the product of their guards and rates
 *     (PRISM's semantics for CTMCs);
 *  5. the target of an update is computed per source state of its
 *     variable when it reads no other variable (x' = x + 1: the state
 *     x_(k+1)), otherwise it is a destination by an expression,
 *     to(=e - lo) (x' = y, x' = x + k*y), which the model routes by e's
 *     value in each state;
 *  6. the initial state (or the init ... endinit predicate) is the
 *     partial reachability; labels and reward structures are results
 *     (a label's probability; a structure's long-run reward rate, its
 *     transition rewards weighted by the rates of the events of their
 *     action).
 * Constants are folded into the text: the structure depends on them.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen/gen_int.h"
#include "gen/prism.h"
#include "san/gen.h"
#include "san/model.h"

/* ---- the translation's context ---- */

typedef struct {
    const char *name;
    double v;
    int type;
    int state;              /* 0 not yet, 1 evaluating, 2 done */
    px_const *c;
} cval;

typedef struct {
    px_var *v;
    const char *san;        /* the automaton's name */
    long lo, hi, init;
    int module;             /* -1: global */
    gbuf *st;               /* per value: the state's transitions */
    int nused;              /* transitions written */
} vinfo;

/* One event: for transition rewards, even when it changes nothing. */
typedef struct {
    const char *action;     /* NULL: unlabelled */
    char *rate;             /* its rate in .san */
} evinfo;

typedef struct {
    px_model *m;
    san_diag *d;
    const san_define *defs;
    int ndefs;
    int *defused;
    cval *c;
    int nc;
    vinfo *v;
    int nv;
    long *env;              /* per variable: a value bound, or LONG_MIN */
    char **names;           /* every name written, for uniqueness */
    int nnames, capnames;
    gbuf events;
    evinfo *ev;
    int nev, capev;
    int nsan_events;
    int failed;
    unsigned flags;         /* SAN_IMPORT_PROPS: the hidden results */
} ctx;

#define ENV_FREE LONG_MIN
/* the most combinations of values a function of the state is tabulated
 * over (put_table) */
#define TABLE_MAX 4096

static void err_at(ctx *c, int line, int col, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void err_at(ctx *c, int line, int col, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (!c->failed)
        san_diag_add(c->d, SAN_ERROR, line, col, "%s", buf);
    c->failed = 1;
}

static void *xalloc(ctx *c, size_t n)
{
    return px_alloc(c->m, n);
}

static const char *const san_keywords[] = {
    "identifiers", "events", "network", "aut", "stt", "to", "from", "loc", "syn", "results",
    "continuous", "discrete", "reachability", "partial", "min", "max", "st", "nb", "rw",
    "sum_rw", "prod_rw", NULL
};

static int name_taken(ctx *c, const char *s)
{
    for (int i = 0; san_keywords[i]; i++)
        if (!strcmp(san_keywords[i], s))
            return 1;
    for (int i = 0; i < c->nnames; i++)
        if (!strcmp(c->names[i], s))
            return 1;
    return 0;
}

/* A fresh .san name from a PRISM one: the same unless taken (a keyword
 * of .san, or written already), then with '_' appended until it is not. */
static const char *san_name(ctx *c, const char *want)
{
    size_t n = strlen(want);
    char *s = xalloc(c, n + 64);
    memcpy(s, want, n + 1);
    for (int k = 0; name_taken(c, s) && k < 50; k++)
        s[n + k] = '_', s[n + k + 1] = 0;
    if (c->nnames == c->capnames) {
        int cap = c->capnames ? 2 * c->capnames : 64;
        char **p = xalloc(c, (size_t)cap * sizeof *p);
        if (c->nnames)
            memcpy(p, c->names, (size_t)c->nnames * sizeof *p);
        c->names = p;
        c->capnames = cap;
    }
    c->names[c->nnames++] = s;
    return s;
}

static cval *find_const(ctx *c, const char *name)
{
    for (int i = 0; i < c->nc; i++)
        if (!strcmp(c->c[i].name, name))
            return &c->c[i];
    return NULL;
}

static int find_var(ctx *c, const char *name)
{
    for (int i = 0; i < c->nv; i++)
        if (!strcmp(c->v[i].v->name, name))
            return i;
    return -1;
}

static px_named *find_named(px_list *l, const char *name)
{
    for (int i = 0; i < l->n; i++) {
        px_named *f = l->p[i];
        if (!strcmp(f->name, name))
            return f;
    }
    return NULL;
}

/* ---- evaluation and folding ---- */

static int const_value(ctx *c, cval *k, double *out);

/* The value of e when every identifier in it is a constant or a bound
 * variable: 1 with *out, else 0 (errors are reported on the way). */
static int fold(ctx *c, const px_expr *e, double *out)
{
    double a, b, x;
    switch (e->kind) {
    case PX_NUM:
    case PX_BOOL:
        *out = e->v;
        return 1;
    case PX_ID: {
        cval *k = find_const(c, e->name);
        if (k)
            return const_value(c, k, out);
        int v = find_var(c, e->name);
        if (v >= 0) {
            if (c->env && c->env[v] != ENV_FREE) {
                *out = (double)c->env[v];
                return 1;
            }
            return 0;
        }
        err_at(c, e->line, e->col, "unknown identifier '%s'", e->name);
        return 0;
    }
    case PX_NEG:
        if (!fold(c, e->a, &a))
            return 0;
        *out = -a;
        return 1;
    case PX_NOT:
        if (!fold(c, e->a, &a))
            return 0;
        *out = a == 0;
        return 1;
    case PX_ITE:
        if (!fold(c, e->a, &a)) {
            (void)fold(c, e->b, &b);
            (void)fold(c, e->c, &b);
            return 0;
        }
        return fold(c, a != 0 ? e->b : e->c, out);
    case PX_BIN: {
        int fa = fold(c, e->a, &a), fb = fold(c, e->b, &b);
        if (e->op == PX_AND && ((fa && a == 0) || (fb && b == 0))) {
            *out = 0;
            return 1;
        }
        if (e->op == PX_OR && ((fa && a != 0) || (fb && b != 0))) {
            *out = 1;
            return 1;
        }
        if (e->op == PX_IMP && ((fa && a == 0) || (fb && b != 0))) {
            *out = 1;
            return 1;
        }
        if (!fa || !fb)
            return 0;
        switch (e->op) {
        case PX_ADD: x = a + b; break;
        case PX_SUB: x = a - b; break;
        case PX_MUL: x = a * b; break;
        case PX_DIV: x = a / b; break;
        case PX_LT: x = a < b; break;
        case PX_LE: x = a <= b; break;
        case PX_GT: x = a > b; break;
        case PX_GE: x = a >= b; break;
        case PX_EQ: x = a == b; break;
        case PX_NE: x = a != b; break;
        case PX_AND: x = a != 0 && b != 0; break;
        case PX_OR: x = a != 0 || b != 0; break;
        case PX_IMP: x = a == 0 || b != 0; break;
        default: x = (a != 0) == (b != 0); break;
        }
        *out = x;
        return 1;
    }
    case PX_CALL: {
        double v[64];
        int all = 1;
        if (e->nargs > 64) {
            err_at(c, e->line, e->col, "too many arguments to '%s'", e->name);
            return 0;
        }
        for (int i = 0; i < e->nargs; i++)
            all &= fold(c, e->args[i], &v[i]);
        if (!all)
            return 0;
        const char *f = e->name;
        int n = e->nargs;
        if ((!strcmp(f, "min") || !strcmp(f, "max")) && n >= 1) {
            x = v[0];
            for (int i = 1; i < n; i++)
                x = !strcmp(f, "min") ? fmin(x, v[i]) : fmax(x, v[i]);
        } else if (!strcmp(f, "floor") && n == 1) {
            x = floor(v[0]);
        } else if (!strcmp(f, "ceil") && n == 1) {
            x = ceil(v[0]);
        } else if (!strcmp(f, "round") && n == 1) {
            x = floor(v[0] + 0.5);
        } else if (!strcmp(f, "pow") && n == 2) {
            x = pow(v[0], v[1]);
        } else if (!strcmp(f, "mod") && n == 2) {
            if (v[1] == 0 || v[0] != floor(v[0]) || v[1] != floor(v[1])) {
                err_at(c, e->line, e->col, "mod(%g, %g): the arguments must be integers, the "
                       "second non-zero", v[0], v[1]);
                return 0;
            }
            x = fmod(v[0], v[1]);
            if (x < 0)
                x += fabs(v[1]);
        } else if (!strcmp(f, "log") && n == 2) {
            x = log(v[0]) / log(v[1]);
        } else {
            err_at(c, e->line, e->col, "unknown function '%s' with %d argument%s", f, n,
                   n == 1 ? "" : "s");
            return 0;
        }
        *out = x;
        return 1;
    }
    }
    return 0;
}

static int const_value(ctx *c, cval *k, double *out)
{
    if (k->state == 2) {
        *out = k->v;
        return 1;
    }
    if (k->state == 1) {
        err_at(c, k->c->line, k->c->col, "constant '%s' is defined in terms of itself", k->name);
        return 0;
    }
    k->state = 1;
    long *env = c->env;
    c->env = NULL;
    double v;
    int ok = fold(c, k->c->val, &v);
    c->env = env;
    if (!ok) {
        err_at(c, k->c->val->line, k->c->val->col,
               "the value of constant '%s' must be constant", k->name);
        return 0;
    }
    if (k->type == PX_T_INT && v != floor(v)) {
        err_at(c, k->c->val->line, k->c->val->col,
               "constant '%s' is an int but its value is %.17g", k->name, v);
        return 0;
    }
    k->v = v;
    k->state = 2;
    *out = v;
    return 1;
}

/* ---- .san text of an expression ---- */

static void put_num(gbuf *b, double v)
{
    char buf[64];
    if (v < 0)
        gbuf_printf(b, "(%s)", gen_fmt_exact(buf, sizeof buf, v));
    else
        gbuf_printf(b, "%s", gen_fmt_exact(buf, sizeof buf, v));
}

static void put_var(ctx *c, gbuf *b, int v)
{
    if (c->v[v].lo == 0)
        gbuf_printf(b, "(st %s)", c->v[v].san);
    else
        gbuf_printf(b, "((st %s) %c %ld)", c->v[v].san, c->v[v].lo < 0 ? '-' : '+',
                    labs(c->v[v].lo));
}

/* The free variables of e (not bound in c->env), at most max: their
 * count, or max + 1 when there are more. */
static int free_vars(ctx *c, const px_expr *e, int *v, int n, int max)
{
    if (!e || n > max)
        return n;
    if (e->kind == PX_ID) {
        int k = find_var(c, e->name);
        if (k < 0 || (c->env && c->env[k] != ENV_FREE))
            return n;
        for (int i = 0; i < n; i++)
            if (v[i] == k)
                return n;
        if (n == max)
            return max + 1;
        v[n] = k;
        return n + 1;
    }
    n = free_vars(c, e->a, v, n, max);
    n = free_vars(c, e->b, v, n, max);
    n = free_vars(c, e->c, v, n, max);
    for (int i = 0; i < e->nargs; i++)
        n = free_vars(c, e->args[i], v, n, max);
    return n;
}

/* A function .san does not have (log) of the state, as a
 * table over the values of the variables it reads when they have at
 * most TABLE_MAX combinations: the sum of (x == i && y == j) * f(i, j)
 * over the non-zero values.  0 when it does not fit. */
static int put_table(ctx *c, gbuf *b, const px_expr *e)
{
    enum { MAXV = 4 };
    int v[MAXV], n = free_vars(c, e, v, 0, MAXV);
    if (!c->env || n == 0 || n > MAXV)
        return 0;
    long total = 1;
    for (int i = 0; i < n; i++) {
        total *= c->v[v[i]].hi - c->v[v[i]].lo + 1;
        if (total > TABLE_MAX)
            return 0;
    }
    long *env = c->env;
    long val[MAXV];
    for (int i = 0; i < n; i++)
        val[i] = c->v[v[i]].lo;
    int terms = 0;
    gbuf_printf(b, "(");
    for (long t = 0; t < total; t++) {
        for (int i = 0; i < n; i++)
            env[v[i]] = val[i];
        double x;
        int ok = fold(c, e, &x);
        for (int i = 0; i < n; i++)
            env[v[i]] = ENV_FREE;
        if (!ok)
            return 0;       /* c->failed says why */
        if (x != 0) {
            gbuf_printf(b, "%s(", terms++ ? " + " : "");
            for (int i = 0; i < n; i++)
                gbuf_printf(b, "%s((st %s) == %ld)", i ? " && " : "", c->v[v[i]].san,
                            val[i] - c->v[v[i]].lo);
            gbuf_printf(b, ") * ");
            put_num(b, x);
        }
        for (int i = 0; i < n && ++val[i] > c->v[v[i]].hi; i++)
            val[i] = c->v[v[i]].lo;
    }
    if (!terms)
        gbuf_printf(b, "0");
    gbuf_printf(b, ")");
    return 1;
}

static void put_expr(ctx *c, gbuf *b, const px_expr *e)
{
    double x;
    if (fold(c, e, &x)) {
        put_num(b, x);
        return;
    }
    if (c->failed)
        return;
    static const char *const ops[] = { "+", "-", "*", "/", "<", "<=", ">", ">=", "==", "!=",
                                       "&&", "||", "->", "<->" };
    switch (e->kind) {
    case PX_ID:
        put_var(c, b, find_var(c, e->name));
        return;
    case PX_NEG:
        gbuf_printf(b, "(-");
        put_expr(c, b, e->a);
        gbuf_printf(b, ")");
        return;
    case PX_NOT:
        gbuf_printf(b, "(!");
        put_expr(c, b, e->a);
        gbuf_printf(b, ")");
        return;
    case PX_BIN: {
        double a;
        /* what fold could not decide: a constant side of && || -> that is
         * neutral goes */
        if ((e->op == PX_AND && fold(c, e->a, &a) && a != 0) ||
            (e->op == PX_OR && fold(c, e->a, &a) && a == 0)) {
            gbuf_printf(b, "(");
            put_expr(c, b, e->b);
            gbuf_printf(b, " != 0)");
            return;
        }
        if ((e->op == PX_AND && fold(c, e->b, &a) && a != 0) ||
            (e->op == PX_OR && fold(c, e->b, &a) && a == 0)) {
            gbuf_printf(b, "(");
            put_expr(c, b, e->a);
            gbuf_printf(b, " != 0)");
            return;
        }
        gbuf_printf(b, "(");
        put_expr(c, b, e->a);
        gbuf_printf(b, " %s ", ops[e->op]);
        put_expr(c, b, e->b);
        gbuf_printf(b, ")");
        return;
    }
    case PX_ITE:
        /* c ? a : b, with no conditional in .san: c * a + !c * b */
        gbuf_printf(b, "((");
        put_expr(c, b, e->a);
        gbuf_printf(b, " != 0) * ");
        put_expr(c, b, e->b);
        gbuf_printf(b, " + (");
        put_expr(c, b, e->a);
        gbuf_printf(b, " == 0) * ");
        put_expr(c, b, e->c);
        gbuf_printf(b, ")");
        return;
    case PX_CALL:
        if ((!strcmp(e->name, "min") || !strcmp(e->name, "max")) && e->nargs >= 1) {
            if (e->nargs == 1) {
                put_expr(c, b, e->args[0]);
                return;
            }
            gbuf_printf(b, "%s(", e->name);
            for (int i = 0; i < e->nargs; i++) {
                if (i)
                    gbuf_printf(b, ", ");
                put_expr(c, b, e->args[i]);
            }
            gbuf_printf(b, ")");
            return;
        }
        /* .san's floor, ceil, mod, pow (san(5)); its mod agrees with
         * PRISM's for the positive divisors PRISM accepts */
        int arity = !strcmp(e->name, "floor") || !strcmp(e->name, "ceil") ? 1
                    : !strcmp(e->name, "mod") || !strcmp(e->name, "pow") ? 2 : -1;
        if (e->nargs == arity) {
            gbuf_printf(b, "%s(", e->name);
            for (int i = 0; i < e->nargs; i++) {
                if (i)
                    gbuf_printf(b, ", ");
                put_expr(c, b, e->args[i]);
            }
            gbuf_printf(b, ")");
            return;
        }
        if (!strcmp(e->name, "round") && e->nargs == 1) {  /* PRISM: floor(x + 0.5) */
            gbuf_printf(b, "floor(");
            put_expr(c, b, e->args[0]);
            gbuf_printf(b, " + 0.5)");
            return;
        }
        if (put_table(c, b, e))
            return;
        err_at(c, e->line, e->col, "%s() of an expression that reads the state is not "
               "supported (the .san language has no %s): only of constants, or of "
               "variables with at most %d values together", e->name, e->name, TABLE_MAX);
        return;
    default:
        return;
    }
}

/* ---- formulas and renamed modules ---- */

static px_expr *expand(ctx *c, px_expr *e, int depth);

static px_expr *copy_expr(ctx *c, const px_expr *e, const px_list *ren)
{
    if (!e)
        return NULL;
    px_expr *x = xalloc(c, sizeof *x);
    *x = *e;
    if (e->kind == PX_ID && ren) {
        for (int i = 0; i + 1 < ren->n; i += 2)
            if (!strcmp(ren->p[i], e->name)) {
                x->name = ren->p[i + 1];
                break;
            }
    }
    x->a = copy_expr(c, e->a, ren);
    x->b = copy_expr(c, e->b, ren);
    x->c = copy_expr(c, e->c, ren);
    if (e->nargs) {
        x->args = xalloc(c, (size_t)e->nargs * sizeof *x->args);
        for (int i = 0; i < e->nargs; i++)
            x->args[i] = copy_expr(c, e->args[i], ren);
    }
    return x;
}

/* e with every formula replaced by its (expanded) body. */
static px_expr *expand(ctx *c, px_expr *e, int depth)
{
    if (!e)
        return NULL;
    if (depth > 100) {
        err_at(c, e->line, e->col, "formulas nested more than 100 deep (one defined in "
               "terms of itself?)");
        return e;
    }
    if (e->kind == PX_ID) {
        px_named *f = find_named(&c->m->formulas, e->name);
        if (f)
            return expand(c, copy_expr(c, f->e, NULL), depth + 1);
        return e;
    }
    e->a = expand(c, e->a, depth);
    e->b = expand(c, e->b, depth);
    e->c = expand(c, e->c, depth);
    for (int i = 0; i < e->nargs; i++)
        e->args[i] = expand(c, e->args[i], depth);
    return e;
}

static const char *renamed(const px_list *ren, const char *s)
{
    if (!s)
        return NULL;
    for (int i = 0; i + 1 < ren->n; i += 2)
        if (!strcmp(ren->p[i], s))
            return ren->p[i + 1];
    return s;
}

static px_module *find_module(px_model *m, const char *name)
{
    for (int i = 0; i < m->modules.n; i++) {
        px_module *d = m->modules.p[i];
        if (!strcmp(d->name, name))
            return d;
    }
    return NULL;
}

/* Fill the body of renamed module d from its base. */
static void instantiate(ctx *c, px_module *d)
{
    px_module *src = find_module(c->m, d->base);
    if (!src) {
        err_at(c, d->line, d->col, "module '%s' renames '%s', which is not a module", d->name,
               d->base);
        return;
    }
    if (src->base) {
        err_at(c, d->line, d->col, "module '%s' renames '%s', itself a renamed module "
               "(rename the original)", d->name, d->base);
        return;
    }
    const px_list *ren = &d->ren;
    for (int i = 0; i < src->vars.n; i++) {
        px_var *v = src->vars.p[i], *w = xalloc(c, sizeof *w);
        *w = *v;
        w->name = renamed(ren, v->name);
        if (w->name == v->name)
            err_at(c, d->line, d->col, "module '%s' does not rename variable '%s' of '%s'",
                   d->name, v->name, src->name);
        w->lo = copy_expr(c, v->lo, ren);
        w->hi = copy_expr(c, v->hi, ren);
        w->init = copy_expr(c, v->init, ren);
        px_push(c->m, &d->vars, w);
    }
    for (int i = 0; i < src->cmds.n; i++) {
        px_cmd *k = src->cmds.p[i], *w = xalloc(c, sizeof *w);
        *w = *k;
        w->action = renamed(ren, k->action);
        w->guard = copy_expr(c, k->guard, ren);
        w->updates = (px_list){ 0 };
        for (int u = 0; u < k->updates.n; u++) {
            px_update *up = k->updates.p[u], *nu = xalloc(c, sizeof *nu);
            nu->rate = copy_expr(c, up->rate, ren);
            for (int a = 0; a < up->assigns.n; a++) {
                px_assign *as = up->assigns.p[a], *na = xalloc(c, sizeof *na);
                *na = *as;
                na->var = renamed(ren, as->var);
                na->e = copy_expr(c, as->e, ren);
                px_push(c->m, &nu->assigns, na);
            }
            px_push(c->m, &w->updates, nu);
        }
        px_push(c->m, &d->cmds, w);
    }
}

static void expand_module(ctx *c, px_module *d)
{
    for (int i = 0; i < d->vars.n; i++) {
        px_var *v = d->vars.p[i];
        v->lo = expand(c, v->lo, 0);
        v->hi = expand(c, v->hi, 0);
        v->init = expand(c, v->init, 0);
    }
    for (int i = 0; i < d->cmds.n; i++) {
        px_cmd *k = d->cmds.p[i];
        k->guard = expand(c, k->guard, 0);
        for (int u = 0; u < k->updates.n; u++) {
            px_update *up = k->updates.p[u];
            up->rate = expand(c, up->rate, 0);
            for (int a = 0; a < up->assigns.n; a++) {
                px_assign *as = up->assigns.p[a];
                as->e = expand(c, as->e, 0);
            }
        }
    }
}

/* ---- variables ---- */

static int const_long(ctx *c, const px_expr *e, const char *what, const char *var, long *out)
{
    double x;
    long *env = c->env;
    c->env = NULL;
    int ok = fold(c, e, &x);
    c->env = env;
    if (!ok) {
        err_at(c, e->line, e->col, "the %s of variable '%s' must be a constant", what, var);
        return 0;
    }
    if (x != floor(x) || fabs(x) > 1e9) {
        err_at(c, e->line, e->col, "the %s of variable '%s' must be an integer (got %.17g)",
               what, var, x);
        return 0;
    }
    *out = (long)x;
    return 1;
}

static void add_var(ctx *c, px_var *v, int module)
{
    if (find_var(c, v->name) >= 0 || find_const(c, v->name)) {
        err_at(c, v->line, v->col, "'%s' is declared twice", v->name);
        return;
    }
    vinfo *w = &c->v[c->nv];
    w->v = v;
    w->module = module;
    if (v->isbool) {
        w->lo = 0;
        w->hi = 1;
    } else if (!const_long(c, v->lo, "lower bound", v->name, &w->lo) ||
               !const_long(c, v->hi, "upper bound", v->name, &w->hi)) {
        return;
    }
    if (w->hi < w->lo) {
        err_at(c, v->line, v->col, "the range of '%s' is empty: [%ld..%ld]", v->name, w->lo,
               w->hi);
        return;
    }
    if (w->hi - w->lo > 10000000) {
        err_at(c, v->line, v->col, "the range of '%s' has more than 10^7 values", v->name);
        return;
    }
    w->init = w->lo;
    if (v->init && !const_long(c, v->init, "initial value", v->name, &w->init))
        return;
    if (w->init < w->lo || w->init > w->hi) {
        err_at(c, v->init->line, v->init->col, "the initial value %ld of '%s' is outside its "
               "range [%ld..%ld]", w->init, v->name, w->lo, w->hi);
        return;
    }
    if (c->m->init && v->init) {
        err_at(c, v->init->line, v->init->col, "'%s' has an initial value, and the model an "
               "'init ... endinit' block: give one or the other", v->name);
        return;
    }
    w->san = san_name(c, v->name);
    w->st = xalloc(c, (size_t)(w->hi - w->lo + 1) * sizeof *w->st);
    c->nv++;
}

/* ---- events ---- */

/* One alternative of one command: what a combination is made of. */
typedef struct {
    px_cmd *cmd;
    px_update *up;
    int module;
} part;

static void val_name(gbuf *b, const vinfo *w, long k)
{
    if (k < 0)
        gbuf_printf(b, "%s_m%ld", w->san, -k);
    else
        gbuf_printf(b, "%s_%ld", w->san, k);
}

static void note_event(ctx *c, const char *action, char *rate)
{
    if (c->nev == c->capev) {
        int cap = c->capev ? 2 * c->capev : 64;
        evinfo *p = xalloc(c, (size_t)cap * sizeof *p);
        if (c->nev)
            memcpy(p, c->ev, (size_t)c->nev * sizeof *p);
        c->ev = p;
        c->capev = cap;
    }
    c->ev[c->nev].action = action;
    c->ev[c->nev].rate = rate;
    c->nev++;
}

/* Is the rate of the combination 0 whatever the variables that are not
 * bound (c->env)? */
static int never(ctx *c, const part *p, int np)
{
    for (int i = 0; i < np; i++) {
        const px_expr *f[2] = { p[i].cmd->guard, p[i].up->rate };
        for (int k = 0; k < 2; k++) {
            double x;
            if (f[k] && fold(c, f[k], &x) && x == 0)
                return 1;
        }
    }
    return 0;
}

/* The destination of variable w's update e from its value k (bound in
 * c->env) on transition name, into b: a state when e folds to one in
 * the range (none for the same state of a local event, or a value that
 * is not an integer), else to(=e - lo) (san(5)), which the model routes
 * by e's value in each state: a value off the range, folded or not, is
 * an error where the event fires, as in PRISM (it was a transition
 * silently dropped for a folded one: [] true -> (x'=x+1) past x's
 * top).  1 when something was written. */
static int put_target(ctx *c, gbuf *b, const vinfo *w, const px_expr *e, const char *name,
                      long k, int local)
{
    double t;
    if (fold(c, e, &t) && (t >= w->lo && t <= w->hi)) {
        if (t != floor(t) || (local && t == k))
            return 0;
        gbuf_printf(b, " to(");
        val_name(b, w, (long)t);
        gbuf_printf(b, ") %s", name);
        return 1;
    }
    if (c->failed)
        return 0;
    /* w's own value unbound: e reads it in each state ("(st x) + 1"),
     * not folded to a constant target the compiler refuses even where
     * the event never fires */
    const int wi = (int)(w - c->v);
    const long bound = c->env[wi];
    c->env[wi] = ENV_FREE;
    gbuf_printf(b, " to(=");
    put_expr(c, b, e);
    c->env[wi] = bound;
    if (w->lo > 0)
        gbuf_printf(b, " - %ld", w->lo);
    else if (w->lo < 0)
        gbuf_printf(b, " + %ld", -w->lo);
    gbuf_printf(b, ") %s", name);
    return 1;
}

/* The event of one combination of alternatives (np parts): its rate is
 * the product of their guards and rates; the variables they assign move. */
static void emit_event(ctx *c, const char *base, part *p, int np)
{
    enum { MAXP = 256 };
    int vars[MAXP];
    px_assign *as[MAXP];
    int nvars = 0;
    for (int i = 0; i < np; i++) {
        for (int a = 0; a < p[i].up->assigns.n; a++) {
            px_assign *x = p[i].up->assigns.p[a];
            int v = find_var(c, x->var);
            if (v < 0) {
                err_at(c, x->line, x->col, "'%s' is not a variable", x->var);
                return;
            }
            if (c->v[v].module >= 0 && c->v[v].module != p[i].module) {
                px_module *o = c->m->modules.p[c->v[v].module];
                err_at(c, x->line, x->col, "variable '%s' belongs to module '%s': another "
                       "module cannot change it", x->var, o->name);
                return;
            }
            for (int j = 0; j < nvars; j++)
                if (vars[j] == v) {
                    err_at(c, x->line, x->col, "'%s' is assigned twice by one transition",
                           x->var);
                    return;
                }
            if (nvars == MAXP) {
                err_at(c, x->line, x->col, "more than %d variables change at once", MAXP);
                return;
            }
            vars[nvars] = v;
            as[nvars++] = x;
        }
    }
    /* the rate: guards and rates, constants folded */
    gbuf r = { 0 };
    int zero = 0, nfac = 0;
    for (int i = 0; i < np && !zero; i++) {
        const px_expr *f[2] = { p[i].cmd->guard, p[i].up->rate };
        for (int k = 0; k < 2; k++) {
            double x;
            if (!f[k])
                continue;
            if (fold(c, f[k], &x)) {
                if (x == 0)
                    zero = 1;
                if (x == 1)
                    continue;
            }
            if (nfac++)
                gbuf_printf(&r, " * ");
            put_expr(c, &r, f[k]);
        }
    }
    if (!nfac)
        gbuf_printf(&r, "1");
    char *rt = gbuf_take(&r);
    if (!rt)
        longjmp(c->m->oom, 1);
    char *rate = px_strdup(c->m, rt, strlen(rt));
    free(rt);
    if (zero || c->failed)
        return;
    note_event(c, p[0].cmd->action, rate);
    if (nvars == 0)
        return;             /* no change: only its rewards count */
    int local = nvars == 1, written = 0;
    const char *name = san_name(c, base);
    for (int j = 0; j < nvars && !c->failed; j++) {
        vinfo *w = &c->v[vars[j]];
        for (long k = w->lo; k <= w->hi && !c->failed; k++) {
            c->env[vars[j]] = k;
            /* skipped where a guard is false in this local state */
            if (!never(c, p, np))
                written += put_target(c, &w->st[k - w->lo], w, as[j]->e, name, k, local);
        }
        c->env[vars[j]] = ENV_FREE;
    }
    if (!written)
        return;
    gbuf_printf(&c->events, "  %s %s (%s)\n", local ? "loc" : "syn", name, rate);
    c->nsan_events++;
}

/* Every combination of one alternative per command of cmds (one list
 * per module): nmod lists, combination in cur. */
static void combos(ctx *c, const char *action, px_list *lists, int *mods, int nmod, int i,
                   part *cur, int *count, double total)
{
    if (c->failed)
        return;
    if (i == nmod) {
        char name[512];
        if (total == 1)
            snprintf(name, sizeof name, "%s", action);
        else
            snprintf(name, sizeof name, "%s_%d", action, *count + 1);
        ++*count;
        emit_event(c, name, cur, nmod);
        return;
    }
    for (int k = 0; k < lists[i].n; k++) {
        px_cmd *cmd = lists[i].p[k];
        double g;
        if (fold(c, cmd->guard, &g) && g == 0)
            continue;
        for (int u = 0; u < cmd->updates.n; u++) {
            cur[i].cmd = cmd;
            cur[i].up = cmd->updates.p[u];
            cur[i].module = mods[i];
            combos(c, action, lists, mods, nmod, i + 1, cur, count, total);
            if (*count > 200000) {
                err_at(c, cmd->line, cmd->col, "action '%s' makes more than 200000 "
                       "combinations of commands", action);
                return;
            }
        }
    }
}

static void emit_commands(ctx *c)
{
    px_model *m = c->m;
    /* local commands */
    for (int i = 0; i < m->modules.n && !c->failed; i++) {
        px_module *d = m->modules.p[i];
        for (int k = 0; k < d->cmds.n && !c->failed; k++) {
            px_cmd *cmd = d->cmds.p[k];
            if (cmd->action)
                continue;
            for (int u = 0; u < cmd->updates.n; u++) {
                char name[512];
                if (cmd->updates.n == 1)
                    snprintf(name, sizeof name, "%s_%d", d->name, k + 1);
                else
                    snprintf(name, sizeof name, "%s_%d_%d", d->name, k + 1, u + 1);
                part p = { cmd, cmd->updates.p[u], i };
                emit_event(c, name, &p, 1);
            }
        }
    }
    /* actions, in order of first appearance */
    const char **seen = xalloc(c, sizeof *seen);
    int nseen = 0, capseen = 1;
    for (int i = 0; i < m->modules.n && !c->failed; i++) {
        px_module *d = m->modules.p[i];
        for (int k = 0; k < d->cmds.n && !c->failed; k++) {
            px_cmd *cmd = d->cmds.p[k];
            if (!cmd->action)
                continue;
            int done = 0;
            for (int s = 0; s < nseen; s++)
                done |= !strcmp(seen[s], cmd->action);
            if (done)
                continue;
            if (nseen == capseen) {
                const char **p = xalloc(c, (size_t)(2 * capseen) * sizeof *p);
                memcpy(p, seen, (size_t)nseen * sizeof *p);
                seen = p;
                capseen *= 2;
            }
            seen[nseen++] = cmd->action;
            /* the modules with this action, their commands labelled with it */
            px_list *lists = xalloc(c, (size_t)m->modules.n * sizeof *lists);
            int *mods = xalloc(c, (size_t)m->modules.n * sizeof *mods);
            int nmod = 0;
            for (int j = i; j < m->modules.n; j++) {
                px_module *e = m->modules.p[j];
                px_list l = { 0 };
                for (int q = 0; q < e->cmds.n; q++) {
                    px_cmd *x = e->cmds.p[q];
                    if (x->action && !strcmp(x->action, cmd->action))
                        px_push(m, &l, x);
                }
                if (l.n) {
                    lists[nmod] = l;
                    mods[nmod++] = j;
                }
            }
            part *cur = xalloc(c, (size_t)nmod * sizeof *cur);
            int count = 0;
            double total = 1;
            for (int j = 0; j < nmod; j++) {
                double alts = 0;
                for (int q = 0; q < lists[j].n; q++) {
                    px_cmd *x = lists[j].p[q];
                    double g;
                    if (!(fold(c, x->guard, &g) && g == 0))
                        alts += x->updates.n;
                }
                total *= alts;
            }
            combos(c, cmd->action, lists, mods, nmod, 0, cur, &count, total);
        }
    }
}

/* ---- the text ---- */

static void put_reach(ctx *c, gbuf *b)
{
    if (c->m->init) {
        gbuf_printf(b, "partial reachability = ");
        put_expr(c, b, c->m->init);
        gbuf_printf(b, ";\n");
        return;
    }
    gbuf_printf(b, "partial reachability =");
    for (int i = 0; i < c->nv; i++)
        gbuf_printf(b, "%s ((st %s) == %ld)", i ? " &&" : "", c->v[i].san,
                    c->v[i].init - c->v[i].lo);
    if (!c->nv)
        gbuf_printf(b, " 1");
    gbuf_printf(b, ";\n");
}

/* A result name from a PRISM label or reward name (any characters). */
static const char *result_name(ctx *c, const char *want, const char *fallback)
{
    char buf[256];
    size_t k = 0;
    for (const char *s = want ? want : fallback; *s && k < sizeof buf - 2; s++)
        buf[k++] = isalnum((unsigned char)*s) || *s == '_' ? *s : '_';
    buf[k] = 0;
    if (!k || isdigit((unsigned char)buf[0])) {
        memmove(buf + 1, buf, k + 1);
        buf[0] = 'r';
    }
    return san_name(c, buf);
}

/* rate * guard * value, the factors that are 1 left out. */
static void put_factors(ctx *c, gbuf *b, const char *rate, const px_expr *guard,
                        const px_expr *val)
{
    int n = 0;
    double x;
    if (rate && strcmp(rate, "1")) {
        gbuf_printf(b, "(%s)", rate);
        n++;
    }
    const px_expr *f[2] = { guard, val };
    for (int k = 0; k < 2; k++) {
        if (fold(c, f[k], &x) && x == 1)
            continue;
        gbuf_printf(b, "%s(", n++ ? " * " : "");
        put_expr(c, b, f[k]);
        gbuf_printf(b, ")");
    }
    if (!n)
        gbuf_printf(b, "1");
}

/* A reward structure's value: its state rewards, and (unless
 * state_only) its transition rewards as rate x guard x value of each
 * event of the action. */
static void put_reward_expr(ctx *c, gbuf *b, const px_rewards *r, int state_only)
{
    int terms = 0;
    for (int k = 0; k < r->items.n; k++) {
        px_ritem *it = r->items.p[k];
        double g, v;
        int g1 = fold(c, it->guard, &g), v1 = fold(c, it->val, &v);
        if ((g1 && g == 0) || (v1 && v == 0))
            continue;
        if (!it->has_action) {
            gbuf_printf(b, "%s ", terms++ ? " +" : "");
            put_factors(c, b, NULL, it->guard, it->val);
            continue;
        }
        if (state_only)
            continue;
        for (int e = 0; e < c->nev; e++) {
            const char *a = c->ev[e].action;
            if (!(a ? it->action && !strcmp(a, it->action) : !it->action))
                continue;
            gbuf_printf(b, "%s ", terms++ ? " +" : "");
            put_factors(c, b, c->ev[e].rate, it->guard, it->val);
        }
    }
    if (!terms)
        gbuf_printf(b, " 0");
    gbuf_printf(b, ";\n");
}

/* A PRISM name as a result's, every character outside [A-Za-z0-9_] as
 * '_' (what the properties' lookup undoes, solver/props/check.c). */
static void put_plain_name(gbuf *b, const char *s)
{
    for (; *s; s++)
        gbuf_printf(b, "%c", isalnum((unsigned char)*s) || *s == '_' ? *s : '_');
}

/* What the properties read beside the results (SAN_IMPORT_PROPS):
 * each constant's value; each reward structure's state rewards alone
 * (R=? [I=t] counts no transition reward); and, where the structure's
 * result took another name (a label of the same name came first: PRISM
 * keeps labels and rewards apart, embedded.prism's "up", "danger" and
 * "down" are both), the structure under its own, so that R{"danger"}
 * reads the reward and not the label.  rname: the results' names. */
static void put_hidden(ctx *c, gbuf *b, const char *const *rname)
{
    px_model *m = c->m;
    for (int i = 0; i < c->nc; i++)
        gbuf_printf(b, "  %s%s = %.17g;\n", SAN_IMPORT_CONST_PREFIX, c->c[i].name,
                    c->c[i].v);
    for (int i = 0; i < m->rewards.n; i++) {
        px_rewards *r = m->rewards.p[i];
        char fb[32];
        snprintf(fb, sizeof fb, "rewards_%d", i + 1);
        const char *name = r->name ? r->name : fb;
        gbuf_printf(b, "  %s", SAN_IMPORT_STATE_PREFIX);
        put_plain_name(b, name);
        gbuf_printf(b, " =");
        put_reward_expr(c, b, r, 1);
        gbuf mark = { 0 };
        put_plain_name(&mark, name);
        if (mark.s && strcmp(rname[i], mark.s)) {
            gbuf_printf(b, "  %s%s =", SAN_IMPORT_REWARD_PREFIX, mark.s);
            put_reward_expr(c, b, r, 0);
        }
        gbuf_free(&mark);
    }
}

static void put_results(ctx *c, gbuf *b)
{
    px_model *m = c->m;
    /* always a block, empty without labels and rewards: the model has
     * none, there is nothing to warn about */
    gbuf_printf(b, "\nresults\n");
    const char **rname = xalloc(c, ((size_t)m->rewards.n + 1) * sizeof *rname);
    for (int i = 0; i < m->labels.n; i++) {
        px_named *l = m->labels.p[i];
        if (!strcmp(l->name, "init") || !strcmp(l->name, "deadlock"))
            continue;
        gbuf_printf(b, "  %s = ", result_name(c, l->name, "label"));
        put_expr(c, b, l->e);
        gbuf_printf(b, ";\n");
    }
    for (int i = 0; i < m->rewards.n; i++) {
        px_rewards *r = m->rewards.p[i];
        char fb[32];
        snprintf(fb, sizeof fb, "rewards_%d", i + 1);
        rname[i] = result_name(c, r->name, fb);
        gbuf_printf(b, "  %s =", rname[i]);
        put_reward_expr(c, b, r, 0);
    }
    if (c->flags & SAN_IMPORT_PROPS)
        put_hidden(c, b, rname);
}

static void translate(ctx *c, const char *name, const char *header, gbuf *out)
{
    px_model *m = c->m;
    if (!m->has_type) {
        err_at(c, 1, 1, "no model type: the importer reads CTMCs, declared by 'ctmc' (or "
               "'stochastic')");
        return;
    }
    /* constants, -D first */
    c->c = xalloc(c, (size_t)(m->consts.n + 1) * sizeof *c->c);
    for (int i = 0; i < m->consts.n; i++) {
        px_const *k = m->consts.p[i];
        if (find_const(c, k->name)) {
            err_at(c, k->line, k->col, "constant '%s' is declared twice", k->name);
            return;
        }
        cval *v = &c->c[c->nc++];
        v->name = k->name;
        v->type = k->type;
        v->c = k;
        for (int d = 0; d < c->ndefs; d++)
            if (!strcmp(c->defs[d].name, k->name)) {
                v->v = c->defs[d].value;
                if (k->type == PX_T_BOOL)
                    v->v = v->v != 0;
                v->state = 2;
                c->defused[d] = 1;
                if (k->type == PX_T_INT && v->v != floor(v->v)) {
                    err_at(c, k->line, k->col, "-D %s=%.17g: '%s' is an int", k->name,
                           c->defs[d].value, k->name);
                    return;
                }
            }
        if (v->state != 2 && !k->val) {
            err_at(c, k->line, k->col, "constant '%s' has no value: give it one with -D %s=VALUE",
                   k->name, k->name);
            return;
        }
    }
    for (int d = 0; d < c->ndefs; d++)
        if (!c->defused[d]) {
            err_at(c, 1, 1, "-D %s: the model has no constant '%s'", c->defs[d].name,
                   c->defs[d].name);
            return;
        }
    for (int i = 0; i < c->nc; i++) {
        double x;
        if (!const_value(c, &c->c[i], &x))
            return;
    }
    /* formulas and renamed modules */
    for (int i = 0; i < m->formulas.n; i++) {
        px_named *f = m->formulas.p[i];
        if (find_named(&m->formulas, f->name) != f) {
            err_at(c, f->line, f->col, "formula '%s' is defined twice", f->name);
            return;
        }
        (void)expand(c, copy_expr(c, f->e, NULL), 0);
        if (c->failed)
            return;
    }
    for (int i = 0; i < m->modules.n; i++) {
        px_module *d = m->modules.p[i];
        if (find_module(m, d->name) != d) {
            err_at(c, d->line, d->col, "module '%s' is declared twice", d->name);
            return;
        }
        if (!d->base)
            expand_module(c, d);
    }
    for (int i = 0; i < m->modules.n && !c->failed; i++) {
        px_module *d = m->modules.p[i];
        if (d->base)
            instantiate(c, d);
    }
    /* system M1 || M2 || ... endsystem: the default composition when it
     * names every module once */
    for (int i = 0; m->has_system && i < m->system.n && !c->failed; i++) {
        px_named *x = m->system.p[i];
        if (!find_module(m, x->name))
            err_at(c, x->line, x->col, "'%s' in 'system ... endsystem' is not a module",
                   x->name);
        for (int j = 0; j < i && !c->failed; j++)
            if (!strcmp(((px_named *)m->system.p[j])->name, x->name))
                err_at(c, x->line, x->col, "module '%s' appears twice in 'system ... "
                       "endsystem'", x->name);
    }
    for (int i = 0; m->has_system && i < m->modules.n && !c->failed; i++) {
        px_module *d = m->modules.p[i];
        if (!find_named(&m->system, d->name))
            err_at(c, d->line, d->col, "module '%s' is left out of 'system ... endsystem': "
                   "not supported (only the composition of all modules by ||)", d->name);
    }
    for (int i = 0; i < m->labels.n; i++) {
        px_named *l = m->labels.p[i];
        l->e = expand(c, l->e, 0);
    }
    for (int i = 0; i < m->rewards.n; i++) {
        px_rewards *r = m->rewards.p[i];
        for (int k = 0; k < r->items.n; k++) {
            px_ritem *it = r->items.p[k];
            it->guard = expand(c, it->guard, 0);
            it->val = expand(c, it->val, 0);
        }
    }
    m->init = expand(c, m->init, 0);
    if (c->failed)
        return;
    /* variables */
    int nv = m->globals.n;
    for (int i = 0; i < m->modules.n; i++)
        nv += ((px_module *)m->modules.p[i])->vars.n;
    c->v = xalloc(c, (size_t)(nv + 1) * sizeof *c->v);
    c->env = xalloc(c, (size_t)(nv + 1) * sizeof *c->env);
    for (int i = 0; i <= nv; i++)
        c->env[i] = ENV_FREE;
    for (int i = 0; i < m->globals.n && !c->failed; i++)
        add_var(c, m->globals.p[i], -1);
    for (int i = 0; i < m->modules.n && !c->failed; i++) {
        px_module *d = m->modules.p[i];
        for (int k = 0; k < d->vars.n && !c->failed; k++)
            add_var(c, d->vars.p[k], i);
    }
    if (c->failed)
        return;
    if (!c->nv) {
        err_at(c, 1, 1, "the model has no variables");
        return;
    }
    /* commands */
    emit_commands(c);
    if (c->failed)
        return;
    if (!c->nsan_events) {
        err_at(c, 1, 1, "no command of the model changes a variable");
        return;
    }
    /* the text */
    gbuf_printf(out, "%s", header);
    gbuf_printf(out, "identifiers\n\nevents\n%s\n", c->events.s ? c->events.s : "");
    put_reach(c, out);
    char net[128];
    size_t k = 0;
    for (const char *s = name; *s && k < sizeof net - 1; s++)
        net[k++] = isalnum((unsigned char)*s) || *s == '_' ? *s : '_';
    net[k] = 0;
    if (!k || isdigit((unsigned char)net[0]))
        snprintf(net, sizeof net, "prism");
    gbuf_printf(out, "\nnetwork %s (continuous)\n", san_name(c, net));
    for (int i = 0; i < c->nv; i++) {
        vinfo *w = &c->v[i];
        gbuf_printf(out, "  aut %s\n", w->san);
        for (long v = w->lo; v <= w->hi; v++) {
            gbuf_printf(out, "    stt ");
            val_name(out, w, v);
            gbuf *b = &w->st[v - w->lo];
            gbuf_printf(out, "%s\n", b->s ? b->s : "");
        }
    }
    put_results(c, out);
}

static void ctx_free(ctx *c)
{
    gbuf_free(&c->events);
    for (int i = 0; i < c->nv; i++)
        for (long v = c->v[i].lo; v <= c->v[i].hi; v++)
            gbuf_free(&c->v[i].st[v - c->v[i].lo]);
    free(c->defused);
}

san_status san_import_prism(const char *name, const char *text, size_t len,
                            const san_define *defs, int ndefs, const char *header,
                            char **out, san_diag *d)
{
    return san_import_prism_flags(name, text, len, defs, ndefs, header, 0, out, d);
}

san_status san_import_prism_flags(const char *name, const char *text, size_t len,
                                  const san_define *defs, int ndefs, const char *header,
                                  unsigned flags, char **out, san_diag *d)
{
    *out = NULL;
    px_model *m = calloc(1, sizeof *m);
    ctx *c = calloc(1, sizeof *c);
    gbuf b = { 0 };
    if (!m || !c) {
        free(m);
        free(c);
        return SAN_E_NOMEM;
    }
    m->d = d;
    c->m = m;
    c->d = d;
    c->defs = defs;
    c->ndefs = ndefs;
    c->flags = flags;
    volatile san_status st = SAN_OK;
    if (setjmp(m->oom)) {
        st = SAN_E_NOMEM;
        goto done;
    }
    c->defused = calloc((size_t)ndefs + 1, sizeof *c->defused);
    if (!c->defused)
        longjmp(m->oom, 1);
    if (px_parse(m, text, len) < 0) {
        st = SAN_E_MODEL;
        goto done;
    }
    /* the network's name: the file's, without folder and extension */
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    char net[128];
    snprintf(net, sizeof net, "%s", base);
    char *dot = strchr(net, '.');
    if (dot)
        *dot = 0;
    translate(c, net, header ? header : "", &b);
    if (c->failed || d->nerrors) {
        st = SAN_E_MODEL;
        goto done;
    }
    *out = gbuf_take(&b);
    if (!*out)
        st = SAN_E_NOMEM;
done:
    gbuf_free(&b);
    ctx_free(c);
    px_model_free(m);
    free(m);
    free(c);
    return st;
}

int san_is_prism_path(const char *path)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (!dot || strchr(dot, '/'))
        return 0;
    return !strcmp(dot, ".prism") || !strcmp(dot, ".sm") || !strcmp(dot, ".pm");
}
