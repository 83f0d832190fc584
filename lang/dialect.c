/*
 * dialect.c - the model as text another SAN tool reads unchanged and
 * solves to the same numbers (san print --dialect, san gen --dialect).
 *
 * The san dialect is print.c's normalized text.  The PEPS dialects
 * rewrite, on the syntax tree and the compiled model together, what PEPS
 * 2003 and GTAexpress (which shares PEPS's reader) read differently or
 * reject; every rewrite was measured against the peers (doc/compat.md):
 *
 *   - an event rate or a routing probability that is not a bare
 *     identifier becomes a new identifier (their grammar takes a name);
 *   - a state name used as a value becomes its index (they look a name
 *     up in the first automaton that declares it, not in the one it is
 *     compared with);
 *   - nb/sum_rw/prod_rw over a state whose index differs between the
 *     automata of the range are expanded into explicit sums/products of
 *     comparisons, for the same reason;
 *   - a whole expression that is min(...)/max(...) is wrapped as
 *     0 + min(...) (PEPS 2003 mistranslates it);
 *   - a model of one automaton gets a second, constant automaton, and a
 *     one-state automaton a second, unreachable state (both peers fail
 *     on them); the reachability function keeps them out;
 *   - event automaton lists are left out (informational in san, a
 *     different separator in each peer); no comments are written;
 *   - replicated events (aut C[i:N] naming e[i]; e[N] on a transition)
 *     are written out: one automaton C_v per replica with e[v] (PEPS
 *     gives every replica the same transitions; san reads C[v] twice
 *     as a duplicate, so the replica's name loses its brackets, in the
 *     expressions too), and one transition per index for e[N].  A
 *     per-index rate (syn e[k:N] (mu * k)) is refused;
 *   - a synchronized event whose rate, with its functions expanded in
 *     place as the peers store it, would not fit the 128 bytes PEPS 2003
 *     copies it into (it crashes) becomes one event per combination of
 *     the states its rate reads, each with a short rate (dialect_tab.c);
 *   - results whose stored text would run past GTAexpress's array of
 *     128-byte rows are followed by constant results that give them room.
 *
 * What cannot be expressed is refused with the construct named.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/peers.h"
#include "lang/model_int.h"

typedef struct {
    char *name;             /* identifier introduced by a rewrite */
    const ast_expr *expr;   /* its value */
} hoist;

/* The identifiers of one to(...) clause's probabilities, per label. */
typedef const char **label_names;

typedef struct {
    const san_model *m;
    const ast_file *f;
    FILE *out;
    int peps;               /* rewrite for PEPS 2003/2007 and GTAexpress */
    hoist *h;               /* new identifiers, in printing order */
    int nh;
    const char **rate_name; /* per ast event: the identifier of its rate */
    label_names **prob_name;/* per state (all automata), to: its labels' */
    int pad_aut;            /* add a constant automaton */
    int *pad_state;         /* per ast aut: add an unreachable state */
    char *err;
    size_t errn;
    int failed;
    const char *var;        /* the replica being written: its index variable */
    double var_val;         /* and value (aut C[i:N], written as C_v) */
    peers_tab *tab;         /* per ast event: its rate as a table (n = 0: not) */
    char ***tab_name;       /* per ast event: the names of its table's events */
} dctx;

/* Combinations of states beyond which a long synchronized rate is
 * refused rather than tabulated: each is an event on every transition
 * of the original. */
#define TAB_MAX 4096

/* The name of the state added to a one-state automaton, or of the
 * padding automaton: fixed names,
 * in a prefix (san_pad) a model's own names are unlikely to use. */
static const char *const pad_state_name = "san_pad_unused";
static const char *const pad_aut_name = "san_pad";
static const char *const pad_event_name = "san_pad_ev";
static const char *const pad_rate_name = "san_pad_rate";

static void fail(dctx *c, const char *fmt, ...)
{
    if (c->failed++)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errn, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------- */
/* Names                                                              */
/* ---------------------------------------------------------------- */

static int is_result(const san_model *m, const char *name)
{
    for (int k = 0; k < m->nres; k++)
        if (!strcmp(m->res[k].name, name))
            return 1;
    return 0;
}

static int name_taken(const dctx *c, const char *name)
{
    if (peers_find_id(c->m, name) || is_result(c->m, name))
        return 1;
    for (int k = 0; k < c->nh; k++)
        if (!strcmp(c->h[k].name, name))
            return 1;
    for (int e = 0; e < c->f->nevents; e++)
        if (!strcmp(c->f->events[e].name, name))
            return 1;
    for (int a = 0; a < c->f->nauts; a++)
        if (!strcmp(c->f->auts[a].name, name))
            return 1;
    return 0;
}

/* A new identifier for expr, named after base (made unique). */
static const char *add_hoist(dctx *c, const char *base, const ast_expr *expr)
{
    size_t n = strlen(base) + 16;
    char *name = malloc(n);
    hoist *h = realloc(c->h, (size_t)(c->nh + 1) * sizeof *h);
    if (!name || !h) {
        free(name);
        if (h)
            c->h = h;
        fail(c, "out of memory");
        return "x";
    }
    c->h = h;
    snprintf(name, n, "%s", base);
    for (int k = 2; name_taken(c, name); k++)
        snprintf(name, n, "%s_%d", base, k);
    c->h[c->nh].name = name;
    c->h[c->nh].expr = expr;
    return c->h[c->nh++].name;
}

/* ---------------------------------------------------------------- */
/* Replicated events (repl.c): written out for the peers              */
/* ---------------------------------------------------------------- */

/* The automaton declaration with an index variable named name, else
 * NULL: its replicas are written one by one, as C_v. */
static const ast_aut *split_group(const dctx *c, const char *name, size_t len)
{
    for (int a = 0; a < c->f->nauts; a++) {
        const ast_aut *A = &c->f->auts[a];
        if (A->name && A->dom && A->dom->var && strlen(A->name) == len &&
            !strncmp(A->name, name, len))
            return A;
    }
    return NULL;
}

static const ast_ident *domain_ident(const dctx *c, const char *name)
{
    for (int i = 0; i < c->f->nids; i++)
        if (c->f->ids[i].dom && !strcmp(c->f->ids[i].name, name))
            return &c->f->ids[i];
    return NULL;
}

/* The values of a domain (a domain identifier or constant ranges), in
 * order; *n = 0 when they cannot be evaluated.  The caller frees. */
static int *domain_values(const dctx *c, const ast_domain *d, int *n)
{
    *n = 0;
    if (d->n == 1 && !d->hi[0] && d->lo[0]->kind == AE_NAME && !d->lo[0]->ref.index) {
        const ast_ident *id = domain_ident(c, d->lo[0]->ref.name);
        if (id)
            return domain_values(c, id->dom, n);
    }
    int cap = 0, *v = NULL;
    for (int i = 0; i < d->n; i++) {
        double lo, hi;
        if (!peers_const(c->m, d->lo[i], &lo))
            goto fail;
        hi = lo;
        if (d->hi[i] && !peers_const(c->m, d->hi[i], &hi))
            goto fail;
        for (double x = lo; x <= hi; x++) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                int *w = realloc(v, (size_t)cap * sizeof *v);
                if (!w)
                    goto fail;
                v = w;
            }
            v[(*n)++] = (int)x;
        }
    }
    return v;
fail:
    free(v);
    *n = 0;
    return NULL;
}

/* A constant index with the replica's variable bound (i + 1 at i = 3). */
static int index_value(const dctx *c, const ast_expr *e, double *v)
{
    double x, y;
    if (c->var && e->kind == AE_NAME && !e->ref.index && !strcmp(e->ref.name, c->var)) {
        *v = c->var_val;
        return 1;
    }
    if (e->kind == AE_NEG && index_value(c, e->a, &x)) {
        *v = -x;
        return 1;
    }
    if (e->kind == AE_BIN && (e->op == OP_ADD || e->op == OP_SUB || e->op == OP_MUL) &&
        index_value(c, e->a, &x) && index_value(c, e->b, &y)) {
        *v = e->op == OP_ADD ? x + y : e->op == OP_SUB ? x - y : x * y;
        return 1;
    }
    return peers_const(c->m, e, v);
}

/* Automaton a's name as the peers read it: C[3] of a split group is C_3. */
static void aut_name_out(const dctx *c, int a)
{
    const char *name = c->m->aut[a].name;
    size_t len = strcspn(name, "[");
    if (!name[len] || !split_group(c, name, len)) {
        fputs(name, c->out);
        return;
    }
    fprintf(c->out, "%.*s_%.*s", (int)len, name, (int)(strlen(name) - len - 2), name + len + 1);
}

/* An automaton reference in an expression (st C[3], nb [C[1]..C[3]] s). */
static void ref_out(dctx *c, const ast_ref *r);
static void aut_ref_out(dctx *c, const ast_ref *r)
{
    int a = r->index && split_group(c, r->name, strlen(r->name)) ? peers_find_aut(c->m, r) : -1;
    if (a >= 0)
        aut_name_out(c, a);
    else
        ref_out(c, r);
}

/* ---------------------------------------------------------------- */
/* Expressions                                                        */
/* ---------------------------------------------------------------- */

static void expr_out(dctx *c, const ast_expr *e, int ctx_aut);

static void ref_out(dctx *c, const ast_ref *r)
{
    fputs(r->name, c->out);
    if (r->index) {
        fputc('[', c->out);
        expr_out(c, r->index, -1);
        fputc(']', c->out);
    }
}

/* A bare state name as a value: its index, as san resolves it (in the
 * automaton it is compared with, else the one index all automata give
 * it).  Returns 0 if the name is not a state. */
static int state_value_out(dctx *c, const ast_ref *r, int ctx_aut)
{
    int a0 = ctx_aut >= 0 ? ctx_aut : 0, a1 = ctx_aut >= 0 ? ctx_aut : c->m->naut - 1;
    for (int a = a0; a <= a1; a++) {
        int lo, hi;
        if (peers_find_states(c->m, a, r, &lo, &hi) && lo == hi) {
            fprintf(c->out, "%d", lo);
            return 1;
        }
    }
    return 0;
}

static void name_out(dctx *c, const ast_expr *e, int ctx_aut)
{
    const ast_ref *r = &e->ref;
    int plain = !r->index && (peers_find_id(c->m, r->name) || is_result(c->m, r->name));
    if (c->peps && !plain && state_value_out(c, r, ctx_aut))
        return;
    ref_out(c, r);
}

/* One automaton's term of an expanded nb/sum_rw/prod_rw. */
static void term_out(dctx *c, const ast_expr *e, int a, int lo, int hi)
{
    FILE *o = c->out;
    if (e->kind != AE_NB) {
        fputs("rw ", o);                /* the sum or product of rewards */
        aut_name_out(c, a);
    } else if (lo == hi) {
        fputs("(st ", o);
        aut_name_out(c, a);
        fprintf(o, " == %d)", lo);
    } else {
        fputs("((st ", o);
        aut_name_out(c, a);
        fprintf(o, " >= %d) && (st ", lo);
        aut_name_out(c, a);
        fprintf(o, " <= %d))", hi);
    }
    if (e->kind != AE_NB && e->has_state && lo == hi) {
        fputs(" * (st ", o);
        aut_name_out(c, a);
        fprintf(o, " == %d)", lo);
    }
}

/* nb [A..B] s written out as ((st A == k) + (st A' == k') ...). */
static void expand_out(dctx *c, const ast_expr *e)
{
    int a0, a1, n = 0;
    if (!peers_range(c->m, e, &a0, &a1)) {
        fail(c, "%d:%d: the automaton range of this expression cannot be written for PEPS",
             e->pos.line, e->pos.col);
        return;
    }
    if (e->kind != AE_NB) {
        fail(c, "%d:%d: %s over state '%s' names different states in the automata of its "
             "range; PEPS would read another state", e->pos.line, e->pos.col,
             e->kind == AE_SUMRW ? "sum_rw" : "prod_rw", e->ref.name);
        return;
    }
    fputc('(', c->out);
    for (int a = a0; a <= a1; a++) {
        int lo, hi;
        if (!peers_find_states(c->m, a, &e->ref, &lo, &hi))
            continue;
        if (n++)
            fputs(" + ", c->out);
        term_out(c, e, a, lo, hi);
    }
    if (!n)
        fputc('0', c->out);
    fputc(')', c->out);
}

static void range_out(dctx *c, const ast_expr *e)
{
    fputs(" [", c->out);
    aut_ref_out(c, &e->lo);
    fputs("..", c->out);
    aut_ref_out(c, &e->hi);
    fputc(']', c->out);
}

static const char *const binop_text[] = {
    [OP_MUL] = "*", [OP_DIV] = "/", [OP_ADD] = "+", [OP_SUB] = "-",
    [OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
    [OP_EQ] = "==", [OP_NE] = "!=", [OP_AND] = "&&", [OP_XOR] = "^",
    [OP_OR] = "||", [OP_IMP] = "->", [OP_EQV] = "<->",
};

/* The automaton of `st A` (in parentheses or not), else -1: a state name
 * compared with it is A's state. */
static int st_aut(const dctx *c, const ast_expr *e)
{
    return e->kind == AE_ST ? peers_find_aut(c->m, &e->ref) : -1;
}

static void bin_out(dctx *c, const ast_expr *e)
{
    int cmp = e->op >= OP_LT && e->op <= OP_NE;
    fputc('(', c->out);
    expr_out(c, e->a, cmp ? st_aut(c, e->b) : -1);
    fprintf(c->out, " %s ", binop_text[e->op]);
    expr_out(c, e->b, cmp ? st_aut(c, e->a) : -1);
    fputc(')', c->out);
}

static void expr_out(dctx *c, const ast_expr *e, int ctx_aut)
{
    FILE *o = c->out;
    switch (e->kind) {
    case AE_NUM:
        ast_print_num(o, e->num);
        break;
    case AE_NAME:
        name_out(c, e, ctx_aut);
        break;
    case AE_ST: case AE_RW:
        fputs(e->kind == AE_ST ? "st " : "rw ", o);
        aut_ref_out(c, &e->ref);
        break;
    case AE_NB: case AE_SUMRW: case AE_PRODRW:
        if (c->peps && (e->kind == AE_NB || e->has_state) && !peers_agree(c->m, e)) {
            expand_out(c, e);
            break;
        }
        fputs(e->kind == AE_NB ? "nb" : e->kind == AE_SUMRW ? "sum_rw" : "prod_rw", o);
        if (e->has_range)
            range_out(c, e);
        else if (c->peps) {     /* PEPS 2003 misreads nb without a range */
            fputs(" [", o);
            aut_name_out(c, 0);
            fputs("..", o);
            aut_name_out(c, c->m->naut - 1);
            fputc(']', o);
        }
        if (e->kind == AE_NB || e->has_state) {
            fputc(' ', o);
            ref_out(c, &e->ref);
        }
        break;
    case AE_NEG: case AE_NOT:
        fputs(e->kind == AE_NEG ? "(-" : "(!", o);
        expr_out(c, e->a, -1);
        fputc(')', o);
        break;
    case AE_MIN: case AE_MAX:
        fputs(e->kind == AE_MIN ? "min(" : "max(", o);
        for (int k = 0; k < e->nargs; k++) {
            if (k)
                fputs(", ", o);
            expr_out(c, e->args[k], -1);
        }
        fputc(')', o);
        break;
    case AE_FN:
        /* their grammar has min and max only; an expansion (floor by
         * comparisons over a state's range) would hide a model's intent */
        if (c->peps) {
            fail(c, "%d:%d: %s(...): PEPS has no %s; write its values by state (a constant "
                 "per state, or comparisons st A == k)", e->pos.line, e->pos.col,
                 ast_fn_name(e->fn), ast_fn_name(e->fn));
            break;
        }
        fprintf(o, "%s(", ast_fn_name(e->fn));
        for (int k = 0; k < e->nargs; k++) {
            if (k)
                fputs(", ", o);
            expr_out(c, e->args[k], -1);
        }
        fputc(')', o);
        break;
    case AE_THR:
        /* PEPS's results are expectations of functions of the state */
        fail(c, "%d:%d: thr(%s): PEPS has no throughputs in expressions; write the result as "
             "the expectation of rate x enabling", e->pos.line, e->pos.col, e->ref.name);
        break;
    case AE_BIN:
        bin_out(c, e);
        break;
    }
}

/* A whole expression (the right side of a declaration). */
static void top_out(dctx *c, const ast_expr *e)
{
    int wrap = c->peps && (e->kind == AE_MIN || e->kind == AE_MAX);
    if (wrap)
        fputs("(0 + ", c->out);
    expr_out(c, e, -1);
    if (wrap)
        fputc(')', c->out);
}

/* ---------------------------------------------------------------- */
/* Declarations                                                       */
/* ---------------------------------------------------------------- */

static void domain_out(dctx *c, const ast_domain *d)
{
    fputc('[', c->out);
    for (int i = 0; i < d->n; i++) {
        if (i)
            fputs(", ", c->out);
        expr_out(c, d->lo[i], -1);
        if (d->hi[i]) {
            fputs("..", c->out);
            expr_out(c, d->hi[i], -1);
        }
    }
    fputc(']', c->out);
}

/* rate_NAME = r_k * ((st A == i) && (st B == j)): table entry k. */
static void tab_rate_out(dctx *c, const peers_tab *t, int k, const char *name)
{
    fprintf(c->out, "  rate_%s = ", name);
    ast_print_num(c->out, t->rate[k]);
    if (t->ndeps)
        fputs(" * (", c->out);
    for (int d = 0; d < t->ndeps; d++) {
        fputs(d ? " && (st " : "(st ", c->out);
        aut_name_out(c, t->deps[d]);
        fprintf(c->out, " == %d)", t->states[k * t->ndeps + d]);
    }
    fputs(t->ndeps ? ");\n" : ";\n", c->out);
}

static void identifiers_out(dctx *c)
{
    fputs("identifiers\n", c->out);
    for (int i = 0; i < c->f->nids; i++) {
        const ast_ident *id = &c->f->ids[i];
        const lang_ident *v = peers_find_id(c->m, id->name);
        fprintf(c->out, "  %s = ", id->name);
        if (id->dom)
            domain_out(c, id->dom);
        else if (v && v->overridden)
            ast_print_num(c->out, v->value);
        else
            top_out(c, id->expr);
        fputs(";\n", c->out);
    }
    for (int k = 0; k < c->nh; k++) {
        fprintf(c->out, "  %s = ", c->h[k].name);
        top_out(c, c->h[k].expr);
        fputs(";\n", c->out);
    }
    for (int i = 0; c->tab_name && i < c->f->nevents; i++)
        for (int k = 0; c->tab_name[i] && k < c->tab[i].n; k++)
            tab_rate_out(c, &c->tab[i], k, c->tab_name[i][k]);
    int pad = c->pad_aut;
    for (int a = 0; c->pad_state && a < c->f->nauts; a++)
        pad |= c->pad_state[a];
    if (pad)
        fprintf(c->out, "  %s = 1;\n", pad_rate_name);
}

static void events_out(dctx *c)
{
    fputs("\nevents\n", c->out);
    for (int i = 0; i < c->f->nevents; i++) {
        const ast_event *e = &c->f->events[i];
        if (e->dom && e->dom->var)
            fail(c, "%d:%d: event '%s' has an index variable (%s[%s:...]), for a rate per "
                 "index; PEPS gives the events of e[N] one rate: write them as separate "
                 "events", e->pos.line,
                 e->pos.col, e->name, e->name, e->dom->var);
        if (c->tab_name && c->tab_name[i]) {
            for (int k = 0; k < c->tab[i].n; k++)
                fprintf(c->out, "  syn %s (rate_%s);\n", c->tab_name[i][k], c->tab_name[i][k]);
            continue;
        }
        fprintf(c->out, "  %s %s", e->sync ? "syn" : "loc", e->name);
        if (e->dom)
            domain_out(c, e->dom);
        if (c->rate_name[i]) {
            fprintf(c->out, " (%s);\n", c->rate_name[i]);
            continue;
        }
        fputs(" (", c->out);
        expr_out(c, e->rate, -1);
        fputc(')', c->out);
        if (!c->peps && e->nauts) {
            fputs(" {", c->out);
            for (int k = 0; k < e->nauts; k++) {
                fputs(k ? ", " : "", c->out);
                ref_out(c, &e->auts[k]);
            }
            fputc('}', c->out);
        }
        fputs(";\n", c->out);
    }
    if (c->pad_aut)
        fprintf(c->out, "  loc %s (%s);\n", pad_event_name, pad_rate_name);
    for (int a = 0; c->pad_state && a < c->f->nauts; a++)
        if (c->pad_state[a])
            fprintf(c->out, "  loc %s_%d (%s);\n", pad_event_name, a, pad_rate_name);
}

static void dst_out(dctx *c, const ast_to *t)
{
    switch (t->kind) {
    case DST_NAME: ref_out(c, &t->dst); break;
    case DST_SAME: fputc('=', c->out); break;
    case DST_REL:
        if (t->rel == 1 || t->rel == -1)
            fputs(t->rel > 0 ? "++" : "--", c->out);
        else
            fprintf(c->out, "%+d", t->rel);
        break;
    case DST_BY:
    case DST_AT:
        /* an outcome per value with its probability would be the
         * expansion sema makes; written out it would hide the intent */
        if (c->peps) {
            fail(c, "%d:%d: to(%c...): PEPS has no destination by an expression; name the "
                 "states with a probability (e == v) each", t->amount->pos.line,
                 t->amount->pos.col, t->kind == DST_AT ? '=' : t->rel > 0 ? '+' : '-');
            break;
        }
        fputc(t->kind == DST_AT ? '=' : t->rel > 0 ? '+' : '-', c->out);
        expr_out(c, t->amount, -1);
        break;
    }
}

/* The ast event named name if its rate is written as a table, else -1. */
static int tabulated(const dctx *c, const char *name)
{
    for (int i = 0; c->tab && i < c->f->nevents; i++)
        if (c->tab_name[i] && !strcmp(c->f->events[i].name, name))
            return i;
    return -1;
}

/* One transition line of label l, its event e[idx] (has_idx), or the
 * event named as (a table's). */
static void label_line(dctx *c, const ast_to *t, const char **probs, int l, int has_idx, int idx,
                       const char *as)
{
    fputs("      to(", c->out);
    dst_out(c, t);
    fputs(") ", c->out);
    if (as)
        fputs(as, c->out);
    else if (has_idx)
        fprintf(c->out, "%s[%d]", t->labels[l].ev.name, idx);
    else
        ref_out(c, &t->labels[l].ev);
    if (probs && probs[l])
        fprintf(c->out, "(%s)", probs[l]);
    else if (t->labels[l].prob) {
        fputc('(', c->out);
        expr_out(c, t->labels[l].prob, -1);
        fputc(')', c->out);
    }
    fputc('\n', c->out);
}

/* e[N] (a domain) is one line per index; e[i] in a replica its own
 * index; the peers take an integer there. */
static void label_out(dctx *c, const ast_to *t, const char **probs, int l)
{
    const ast_expr *ix = t->labels[l].ev.index;
    const ast_ident *dom = ix && ix->kind == AE_NAME && !ix->ref.index &&
        !(c->var && !strcmp(ix->ref.name, c->var)) ? domain_ident(c, ix->ref.name) : NULL;
    double v;
    int ti;
    if (dom) {
        int n, *vals = domain_values(c, dom->dom, &n);
        if (!n)
            fail(c, "%d:%d: the domain '%s' cannot be written for PEPS", ix->pos.line,
                 ix->pos.col, dom->name);
        for (int k = 0; k < n; k++)
            label_line(c, t, probs, l, 1, vals[k], NULL);
        free(vals);
    } else if (ix && index_value(c, ix, &v) && v == floor(v)) {
        label_line(c, t, probs, l, 1, (int)v, NULL);
    } else if ((ti = tabulated(c, t->labels[l].ev.name)) >= 0) {
        for (int k = 0; k < c->tab[ti].n; k++)
            label_line(c, t, probs, l, 0, 0, c->tab_name[ti][k]);
    } else {
        label_line(c, t, probs, l, 0, 0, NULL);
    }
}

static void to_out(dctx *c, const ast_to *t, const char **probs)
{
    for (int l = 0; l < t->nlabels; l++)
        label_out(c, t, probs, l);
}

static void state_out(dctx *c, const ast_state *st, label_names *probs)
{
    fprintf(c->out, "    %s %s", st->is_from ? "from" : "stt", st->name);
    if (st->dom)
        domain_out(c, st->dom);
    if (st->from_index) {
        fputc('[', c->out);
        expr_out(c, st->from_index, -1);
        fputc(']', c->out);
    }
    if (st->reward) {
        fputs(" (", c->out);
        expr_out(c, st->reward, -1);
        fputc(')', c->out);
    }
    fputc('\n', c->out);
    for (int t = 0; t < st->ntos; t++)
        to_out(c, &st->tos[t], probs ? probs[t] : NULL);
}

/* aut C[i:N]: one automaton C_v per replica, its labels at i = v. */
static void split_out(dctx *c, const ast_aut *A, label_names **probs)
{
    int n, *vals = domain_values(c, A->dom, &n);
    if (!n)
        fail(c, "%d:%d: the domain of '%s' cannot be written for PEPS", A->pos.line,
             A->pos.col, A->name);
    c->var = A->dom->var;
    for (int r = 0; r < n; r++) {
        c->var_val = vals[r];
        fprintf(c->out, "  aut %s_%d\n", A->name, vals[r]);
        for (int s = 0; s < A->nstates; s++)
            state_out(c, &A->states[s], probs ? probs[s] : NULL);
    }
    c->var = NULL;
    free(vals);
}

static void network_out(dctx *c)
{
    const ast_file *f = c->f;
    fprintf(c->out, "\nnetwork %s (continuous)\n", f->net_name ? f->net_name : "unnamed");
    int k = 0;
    for (int a = 0; a < f->nauts; a++) {
        const ast_aut *A = &f->auts[a];
        if (A->dom && A->dom->var) {
            split_out(c, A, c->prob_name ? c->prob_name + k : NULL);
            k += A->nstates;
            continue;
        }
        fprintf(c->out, "  aut %s", A->name);
        if (A->dom)
            domain_out(c, A->dom);
        fputc('\n', c->out);
        for (int s = 0; s < A->nstates; s++)
            state_out(c, &A->states[s], c->prob_name ? c->prob_name[k++] : NULL);
        if (c->pad_state && c->pad_state[a])
            fprintf(c->out, "    stt %s\n      to(%s) %s_%d\n", pad_state_name,
                    A->states[0].name, pad_event_name, a);
    }
    /* the peers want a transition in every state: p1 (unreachable)
     * leads to p0, p0 loops (a self-loop changes no rate) */
    if (c->pad_aut)
        fprintf(c->out, "  aut %s\n    stt p0\n      to(p0) %s\n    stt p1\n      to(p0) %s\n",
                pad_aut_name, pad_event_name, pad_event_name);
}

/* The reachability function, keeping the added states out. */
static void reach_out(dctx *c)
{
    const ast_file *f = c->f;
    fprintf(c->out, "\n%sreachability = ", f->partial ? "partial " : "");
    int extra = c->pad_aut;
    for (int a = 0; c->pad_state && a < f->nauts; a++)
        extra += c->pad_state[a];
    if (!extra) {
        top_out(c, f->reach);
        fputs(";\n", c->out);
        return;
    }
    fputc('(', c->out);
    top_out(c, f->reach);
    for (int a = 0; c->pad_state && a < f->nauts; a++)
        if (c->pad_state[a])
            fprintf(c->out, " && (st %s == 0)", f->auts[a].name);
    if (c->pad_aut)
        fprintf(c->out, " && (st %s == 0)", pad_aut_name);
    fputs(");\n", c->out);
}

/* GTAexpress copies each result's stored text (its functions expanded
 * in place) into a row of 128 bytes of one array (Compile_Dictionary,
 * src/pf/compiler.C; PEPS 2003 has 4,096 there).  A longer text runs on
 * into the rows after it, which are written afterwards, but past the
 * last row it overwrites the heap and GTAexpress aborts.  Splitting the
 * expression into identifiers cannot help (they are expanded again):
 * short results written last give the long ones room.  How many. */
static int result_pad_rows(const dctx *c)
{
    int n = c->f->nresults, pad = 0;
    for (int r = 0; r < n; r++) {
        long len = peers_text_len(c->m, c->f->results[r].expr) + 4;
        long rows = (len + 1 + 127) / 128;
        if (rows - (n - r) > pad)
            pad = (int)(rows - (n - r));
    }
    return pad;
}

static void results_out(dctx *c)
{
    fputs("\nresults\n", c->out);
    for (int r = 0; r < c->f->nresults; r++) {
        fprintf(c->out, "  %s = ", c->f->results[r].name);
        top_out(c, c->f->results[r].expr);
        fputs(";\n", c->out);
    }
    for (int k = 0, n = c->peps ? result_pad_rows(c) : 0; k < n; k++)
        fprintf(c->out, "  %s_result%d = 0;\n", pad_aut_name, k + 1);
}

/* ---------------------------------------------------------------- */
/* The rewrites decided before printing                               */
/* ---------------------------------------------------------------- */

static int is_ident_name(const dctx *c, const ast_expr *e)
{
    return e->kind == AE_NAME && !e->ref.index && peers_find_id(c->m, e->ref.name);
}

/* Rates: a bare identifier stays, anything else gets one. */
static void plan_rates(dctx *c)
{
    c->rate_name = calloc((size_t)c->f->nevents + 1, sizeof *c->rate_name);
    if (!c->rate_name)
        return fail(c, "out of memory");
    for (int i = 0; i < c->f->nevents; i++) {
        const ast_event *e = &c->f->events[i];
        if (is_ident_name(c, e->rate) || (c->tab_name && c->tab_name[i]))
            continue;
        char base[1100];
        snprintf(base, sizeof base, "rate_%s", e->name);
        c->rate_name[i] = add_hoist(c, base, e->rate);
    }
}

/* Routing probabilities: the same, one table per state and clause. */
static void plan_probs(dctx *c)
{
    int total = 0, k = 0, np = 0;
    for (int a = 0; a < c->f->nauts; a++)
        total += c->f->auts[a].nstates;
    c->prob_name = calloc((size_t)total + 1, sizeof *c->prob_name);
    if (!c->prob_name)
        return fail(c, "out of memory");
    for (int a = 0; a < c->f->nauts; a++)
        for (int s = 0; s < c->f->auts[a].nstates; s++, k++) {
            const ast_state *st = &c->f->auts[a].states[s];
            c->prob_name[k] = calloc((size_t)st->ntos + 1, sizeof **c->prob_name);
            if (!c->prob_name[k])
                return fail(c, "out of memory");
            for (int t = 0; t < st->ntos; t++) {
                const ast_to *to = &st->tos[t];
                c->prob_name[k][t] = calloc((size_t)to->nlabels + 1, sizeof ***c->prob_name);
                if (!c->prob_name[k][t])
                    return fail(c, "out of memory");
                for (int l = 0; l < to->nlabels; l++) {
                    const ast_expr *p = to->labels[l].prob;
                    const ast_domain *dom = c->f->auts[a].dom;
                    if (p && dom && dom->var && ast_uses_name(p, dom->var))
                        return fail(c, "%d:%d: this routing probability reads the index "
                                    "variable '%s' of '%s' (one per replica): not written "
                                    "for PEPS yet; write the replicas out",
                                    p->pos.line, p->pos.col, dom->var, c->f->auts[a].name);
                    if (!p || is_ident_name(c, p))
                        continue;
                    char base[64];
                    snprintf(base, sizeof base, "prob_%d", ++np);
                    c->prob_name[k][t][l] = add_hoist(c, base, p);
                }
            }
        }
}

static int compiled_event(const dctx *c, const char *name)
{
    for (int k = 0; k < c->m->nev; k++)
        if (!strcmp(c->m->ev[k].name, name))
            return k;
    return -1;
}

/* The names of event i's table entries, NAME_t1, NAME_t2, ... */
static void name_table(dctx *c, int i)
{
    const char *ev = c->f->events[i].name;
    int n = c->tab[i].n;
    c->tab_name[i] = calloc((size_t)n + 1, sizeof *c->tab_name[i]);
    if (!c->tab_name[i])
        return fail(c, "out of memory");
    size_t len = strlen(ev) + 24;
    for (int k = 0; k < n; k++) {
        char *name = malloc(len);
        if (!(c->tab_name[i][k] = name))
            return fail(c, "out of memory");
        char rate[1200];
        snprintf(name, len, "%s_t%d", ev, k + 1);
        snprintf(rate, sizeof rate, "rate_%s", name);
        if (name_taken(c, name) || name_taken(c, rate))
            return fail(c, "%d:%d: the name '%s' for a part of event '%s' is taken",
                        c->f->events[i].pos.line, c->f->events[i].pos.col, name, ev);
    }
}

/* Synchronized events whose stored rate PEPS 2003 cannot copy. */
static void plan_tables(dctx *c)
{
    int ne = c->f->nevents;
    c->tab = calloc((size_t)ne + 1, sizeof *c->tab);
    c->tab_name = calloc((size_t)ne + 1, sizeof *c->tab_name);
    if (!c->tab || !c->tab_name)
        return fail(c, "out of memory");
    for (int i = 0; i < ne && !c->failed; i++) {
        const ast_event *e = &c->f->events[i];
        long len = e->sync && !e->dom ? peers_text_len(c->m, e->rate) : 0;
        if (len < PEERS_SYNC_RATE_MAX)
            continue;
        int ev = compiled_event(c, e->name);
        int r = ev < 0 ? 0 : peers_tabulate(c->m, ev, TAB_MAX, &c->tab[i]);
        if (r < 0)
            return fail(c, "out of memory");
        if (!r)
            return fail(c, "%d:%d: the rate of synchronized event '%s' is about %ld bytes once "
                        "PEPS 2003 expands its functions (it copies it into 128 bytes and "
                        "crashes), and the automata it reads have more than %d combinations "
                        "of states to write it as a table", e->rate->pos.line,
                        e->rate->pos.col, e->name, len, TAB_MAX);
        for (int k = 0; k < c->tab[i].n; k++)
            if (!isfinite(c->tab[i].rate[k]))
                return fail(c, "%d:%d: the rate of event '%s' is not finite in some state",
                            e->rate->pos.line, e->rate->pos.col, e->name);
        name_table(c, i);
    }
}

/* One automaton: add a constant one; one-state automata: a second state. */
static void plan_padding(dctx *c)
{
    c->pad_aut = c->m->naut == 1;
    c->pad_state = calloc((size_t)c->f->nauts + 1, sizeof *c->pad_state);
    if (!c->pad_state)
        return fail(c, "out of memory");
    int a = 0;
    for (int g = 0; g < c->f->nauts; g++) {
        const ast_aut *A = &c->f->auts[g];
        if (c->m->aut[a].nstates == 1) {
            if (A->dom)
                return fail(c, "replicated automaton '%s' has one state: PEPS rejects it and "
                            "the padding cannot be written for its replicas", A->name);
            c->pad_state[g] = 1;
        }
        double lo, hi;
        int n = 1;
        if (A->dom) {
            n = 0;
            for (int i = 0; i < A->dom->n; i++)
                n += A->dom->hi[i] && peers_const(c->m, A->dom->lo[i], &lo) &&
                     peers_const(c->m, A->dom->hi[i], &hi) ? (int)(hi - lo) + 1 : 1;
        }
        a += n;
    }
}

static void free_plan(dctx *c)
{
    for (int k = 0; k < c->nh; k++)
        free(c->h[k].name);
    free(c->h);
    free(c->rate_name);
    int k = 0;
    for (int a = 0; c->prob_name && a < c->f->nauts; a++)
        for (int s = 0; s < c->f->auts[a].nstates; s++, k++) {
            for (int t = 0; c->prob_name[k] && t < c->f->auts[a].states[s].ntos; t++)
                free((void *)c->prob_name[k][t]);
            free(c->prob_name[k]);
        }
    free(c->prob_name);
    free(c->pad_state);
    for (int i = 0; c->tab && i < c->f->nevents; i++) {
        for (int k = 0; c->tab_name && c->tab_name[i] && k < c->tab[i].n; k++)
            free(c->tab_name[i][k]);
        free(c->tab_name ? c->tab_name[i] : NULL);
        peers_tab_free(&c->tab[i]);
    }
    free(c->tab);
    free(c->tab_name);
}

int san_dialect_from_name(const char *name, san_dialect *d)
{
    static const struct { const char *name; san_dialect d; } tab[] = {
        { "san", SAN_DIALECT_SAN },
        { "peps2003", SAN_DIALECT_PEPS2003 },
        { "peps2007", SAN_DIALECT_PEPS2007 },
    };
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (!strcmp(name, tab[i].name)) {
            *d = tab[i].d;
            return 1;
        }
    return 0;
}

san_status san_model_print_dialect(const san_model *m, san_dialect dialect, FILE *out,
                                   char *err, size_t errn)
{
    if (dialect == SAN_DIALECT_SAN) {
        san_model_print(m, out);
        return SAN_OK;
    }
    /* into memory first: a refusal found half-way writes nothing */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return SAN_E_NOMEM;
    dctx c = { .m = m, .f = m->syntax, .out = mem, .peps = 1, .err = err, .errn = errn };
    if (errn)
        err[0] = 0;
    if (c.f->discrete)
        fail(&c, "a discrete-time network: PEPS 2003 solves continuous-time models only");
    plan_tables(&c);
    plan_rates(&c);
    plan_probs(&c);
    plan_padding(&c);
    if (!c.failed) {
        identifiers_out(&c);
        events_out(&c);
        reach_out(&c);
        network_out(&c);
        results_out(&c);
    }
    free_plan(&c);
    int ok = fclose(mem) == 0;
    if (ok && !c.failed)
        ok = fwrite(text, 1, len, out) == len;
    free(text);
    if (!ok && !c.failed)
        return SAN_E_IO;
    return c.failed ? SAN_E_MODEL : SAN_OK;
}
