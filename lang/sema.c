/*
 * sema.c - the semantic pass: from the syntax tree to the compiled model.
 *
 * Phases, in order (each reads what the previous ones built):
 *   1. identifiers: names, constants folded, domains evaluated;
 *   2. automata: replicas expanded, state blocks laid out, rewards;
 *   3. events: replicated events expanded;
 *   4. transitions: destinations resolved, probabilities compiled;
 *   5. events finished: participants, local copies per replica;
 *   6. reachability and results compiled; warnings that need it all.
 * Errors are collected, never fatal, so one run reports as many as it can.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ast.h"
#include "expr.h"
#include "sema.h"

/* ---------------------------------------------------------------- */
/* Tables of the pass                                                 */
/* ---------------------------------------------------------------- */

typedef struct {
    const ast_ident *ast;
    int visiting, done, bad;
    int is_dom, is_func;
    double value;
    int *dom, ndom;         /* domain values */
    int overridden;
    san_expr *fn;           /* a function's compiled code (model-owned) */
} s_ident;

typedef struct {            /* one stt block (or single state) of a group */
    const ast_state *ast;
    int first;              /* local index of its first state */
    int *vals, n;           /* domain values; n == 1 and vals NULL: single */
    int is_block;
} s_block;

typedef struct {            /* one `aut` declaration and its replicas */
    const ast_aut *ast;
    int first, n;           /* model automata first .. first+n-1 */
    int *vals;              /* replica domain values (NULL: not replicated) */
    s_block *blocks;
    int nblocks, nstates;
} s_group;

typedef struct {            /* one declared event, after e[dom] expansion */
    const ast_event *ast;
    char *name;
    int base;               /* index of the ast_event */
    int has_index, index;
    int *users, nusers, capusers;   /* automata that use it */
    int first_final, nfinal;        /* final events it became */
} s_event;

typedef struct {            /* a transition before event ids are final */
    int aut, from, ev, to;
    san_expr *prob;
    ast_pos pos;
} s_trans;

typedef struct {
    ast_file *f;
    san_diag *d;
    san_model *m;
    const san_load_opts *opt;
    s_ident *ids;
    int nids;
    s_group *groups;
    int ngroups;
    s_event *evs;
    int nevs;
    s_trans *tr;
    int ntr, captr;
    int quiet;              /* suppress diagnostics (re-compiling) */
    int cur_result;         /* results before it may be named (derived) */
} sema;

#define ERR(S, pos, ...) do { if (!(S)->quiet) \
    san_diag_add((S)->d, SAN_ERROR, (pos).line, (pos).col, __VA_ARGS__); } while (0)
#define WARN(S, pos, ...) do { if (!(S)->quiet) \
    san_diag_add((S)->d, SAN_WARNING, (pos).line, (pos).col, __VA_ARGS__); } while (0)

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        abort();
    return p;
}

static char *indexed_name(const char *base, int v)
{
    char *s;
    if (asprintf(&s, "%s[%d]", base, v) < 0)
        abort();
    return s;
}

static san_expr *pool_add(san_model *m, san_expr *e)
{
    if (m->npool == m->cappool) {
        m->cappool = m->cappool ? 2 * m->cappool : 64;
        m->pool = realloc(m->pool, m->cappool * sizeof *m->pool);
        if (!m->pool)
            abort();
    }
    m->pool[m->npool++] = e;
    return e;
}

/* ---------------------------------------------------------------- */
/* Lookups                                                            */
/* ---------------------------------------------------------------- */

static s_ident *find_ident(sema *S, const char *name)
{
    for (int i = 0; i < S->nids; i++)
        if (!strcmp(S->ids[i].ast->name, name))
            return &S->ids[i];
    return NULL;
}

static s_group *find_group(sema *S, const char *name)
{
    for (int g = 0; g < S->ngroups; g++)
        if (S->groups[g].ast->name && !strcmp(S->groups[g].ast->name, name))
            return &S->groups[g];
    return NULL;
}

static int event_declared(sema *S, const char *name)
{
    for (int i = 0; i < S->f->nevents; i++)
        if (!strcmp(S->f->events[i].name, name))
            return 1;
    return 0;
}

static int result_index(sema *S, const char *name)
{
    for (int r = 0; r < S->cur_result; r++)
        if (!strcmp(S->f->results[r].name, name))
            return r;
    return -1;
}

static int dom_pos(const int *vals, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (vals[i] == v)
            return i;
    return -1;
}

/* Which group does model automaton a belong to? */
static s_group *group_of(sema *S, int a)
{
    for (int g = 0; g < S->ngroups; g++)
        if (a >= S->groups[g].first && a < S->groups[g].first + S->groups[g].n)
            return &S->groups[g];
    return NULL;
}

static s_block *find_block(s_group *G, const char *name)
{
    for (int b = 0; b < G->nblocks; b++)
        if (!strcmp(G->blocks[b].ast->name, name))
            return &G->blocks[b];
    return NULL;
}

/* ---------------------------------------------------------------- */
/* Constant evaluation                                                */
/* ---------------------------------------------------------------- */

static void compile(sema *S, xbuild *b, const ast_expr *e, int ctx_aut);

/* Compile e alone; returns it (caller owns) or NULL on errors. */
static san_expr *compile_one(sema *S, const ast_expr *e, int ctx_aut, int *div0)
{
    int before = S->d->nerrors;
    xbuild b;
    xb_init(&b);
    b.capcode = 0;
    compile(S, &b, e, ctx_aut);
    san_expr *x = xb_finish(&b, S->m ? S->m->naut : 0);
    if (div0) {
        /* Division by a constant zero survives folding as an infinity or
         * NaN; detect it on the folded constant. */
        *div0 = x->is_const && !isfinite(x->value);
    }
    if (S->d->nerrors > before && !S->quiet) {
        san_expr_free(x);
        return NULL;
    }
    return x;
}

/* A constant integer (domain bounds, indices, relative offsets). */
static int const_int(sema *S, const ast_expr *e, int *out, const char *what)
{
    san_expr *x = compile_one(S, e, -1, NULL);
    if (!x)
        return -1;
    int ok = x->is_const;
    double v = x->value;
    san_expr_free(x);
    if (!ok) {
        ERR(S, e->pos, "%s must be a constant, not a function of the state", what);
        return -1;
    }
    if (!isfinite(v) || v != floor(v)) {
        ERR(S, e->pos, "%s must be a whole number (got %g)", what, v);
        return -1;
    }
    if (fabs(v) > 1e8) {
        ERR(S, e->pos, "%s is too large (%g; the limit is 10^8)", what, v);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int cmp_int(const void *x, const void *y);

/* A value present twice (INT_MIN if none), in O(n log n): domains can
 * have millions of values. */
static int first_duplicate(const int *v, int n)
{
    int *w = xcalloc(n, sizeof *w);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, cmp_int);
    int dup = INT_MIN;
    for (int i = 1; i < n && dup == INT_MIN; i++)
        if (w[i] == w[i - 1])
            dup = w[i];
    free(w);
    return dup;
}

/* Evaluate a domain: a single domain identifier, or a list of ranges. */
static int eval_domain(sema *S, const ast_domain *dom, int **vals, int *n)
{
    *vals = NULL;
    *n = 0;
    if (dom->n == 1 && !dom->hi[0] && dom->lo[0]->kind == AE_NAME && !dom->lo[0]->ref.index) {
        const ast_expr *e = dom->lo[0];
        s_ident *id = find_ident(S, e->ref.name);
        if (!id) {
            ERR(S, e->pos, "unknown domain '%s'", e->ref.name);
            return -1;
        }
        if (!id->is_dom) {
            ERR(S, e->pos, "'%s' is a constant, not a domain; write [0..%s-1] or declare %s = [i..j]",
                e->ref.name, e->ref.name, e->ref.name);
            return -1;
        }
        if (!id->dom)
            return -1;
        *vals = xcalloc(id->ndom, sizeof **vals);
        memcpy(*vals, id->dom, id->ndom * sizeof **vals);
        *n = id->ndom;
        return 0;
    }
    int cap = 0, cnt = 0, *v = NULL;
    for (int i = 0; i < dom->n; i++) {
        int lo, hi;
        if (const_int(S, dom->lo[i], &lo, "a domain bound") < 0)
            goto fail;
        hi = lo;
        if (dom->hi[i] && const_int(S, dom->hi[i], &hi, "a domain bound") < 0)
            goto fail;
        if (hi < lo) {
            ERR(S, dom->lo[i]->pos, "reversed domain [%d..%d]: the first bound must not exceed the second", lo, hi);
            goto fail;
        }
        if ((long)cnt + (hi - lo + 1) > 10000000) {
            ERR(S, dom->lo[i]->pos, "domain too large (more than 10^7 values)");
            goto fail;
        }
        for (int x = lo; x <= hi; x++) {
            if (cnt == cap) {
                cap = cap ? 2 * cap : 16;
                v = realloc(v, cap * sizeof *v);
                if (!v)
                    abort();
            }
            v[cnt++] = x;
        }
    }
    if (cnt == 0) {
        ERR(S, dom->pos, "empty domain");
        goto fail;
    }
    int dup = first_duplicate(v, cnt);
    if (dup != INT_MIN) {
        /* point at the last item holding it: the repetition */
        ast_pos at = dom->pos;
        for (int i = 0, lo, hi; i < dom->n; i++) {
            int q = S->quiet;
            S->quiet = 1;
            if (const_int(S, dom->lo[i], &lo, "") == 0) {
                hi = lo;
                if (!dom->hi[i] || const_int(S, dom->hi[i], &hi, "") == 0)
                    if (dup >= lo && dup <= hi)
                        at = dom->lo[i]->pos;
            }
            S->quiet = q;
        }
        ERR(S, at, "value %d appears twice in the domain", dup);
        goto fail;
    }
    *vals = v;
    *n = cnt;
    return 0;
fail:
    free(v);
    return -1;
}

/* ---------------------------------------------------------------- */
/* Phase 1: identifiers                                               */
/* ---------------------------------------------------------------- */

static void resolve_ident(sema *S, s_ident *id);

static void collect_identifiers(sema *S)
{
    ast_file *f = S->f;
    S->ids = xcalloc(f->nids, sizeof *S->ids);
    for (int i = 0; i < f->nids; i++) {
        const ast_ident *a = &f->ids[i];
        s_ident *prev = find_ident(S, a->name);
        if (prev) {
            ERR(S, a->pos, "duplicate identifier '%s' (first declared at line %d)",
                a->name, prev->ast->pos.line);
            continue;
        }
        s_ident *id = &S->ids[S->nids++];
        id->ast = a;
        id->is_dom = a->dom != NULL;
    }
    for (int i = 0; i < S->nids; i++)
        if (S->ids[i].is_dom)
            resolve_ident(S, &S->ids[i]);
}

/* Domains are evaluated now; constants and functions when first needed
 * (they may read automata, which do not exist yet). */
static void resolve_ident(sema *S, s_ident *id)
{
    if (id->done || id->visiting)
        return;
    /* Its own diagnostics are reported once, here, whatever the context
     * of the first use. */
    int quiet = S->quiet, cur = S->cur_result;
    S->quiet = 0;
    S->cur_result = 0;
    id->visiting = 1;
    if (id->is_dom) {
        if (eval_domain(S, id->ast->dom, &id->dom, &id->ndom) < 0)
            id->bad = 1;
    } else {
        for (int k = 0; S->opt && k < S->opt->ndefs; k++)
            if (!strcmp(S->opt->defs[k].name, id->ast->name)) {
                S->opt->defs[k].used = 1;
                id->overridden = 1;
                id->value = S->opt->defs[k].value;
            }
        san_expr *x = compile_one(S, id->ast->expr, -1, NULL);
        if (!x) {
            id->bad = 1;
        } else {
            id->is_func = !x->is_const;
            if (!id->overridden)
                id->value = x->value;
            if (id->is_func && S->m && !id->overridden) {
                id->fn = pool_add(S->m, x);     /* kept: callers share it */
                x = NULL;
            }
            if (!id->is_func && !id->overridden && !isfinite(x->value)) {
                ERR(S, id->ast->expr->pos, "'%s' is not a finite number (division by zero?)",
                    id->ast->name);
                id->bad = 1;
            }
            if (id->overridden && id->is_func) {
                ERR(S, id->ast->pos, "-D %s: '%s' is a function of the state, not a constant",
                    id->ast->name, id->ast->name);
                id->bad = 1;
            }
            san_expr_free(x);
        }
    }
    id->visiting = 0;
    id->done = 1;
    S->quiet = quiet;
    S->cur_result = cur;
}

/* ---------------------------------------------------------------- */
/* Expressions                                                        */
/* ---------------------------------------------------------------- */

/* Resolve an automaton reference (P, P[3]) to a model index, or -1. */
static int resolve_aut(sema *S, const ast_ref *r)
{
    s_group *G = find_group(S, r->name);
    if (!G) {
        if (find_ident(S, r->name))
            ERR(S, r->pos, "'%s' is an identifier, not an automaton", r->name);
        else if (event_declared(S, r->name))
            ERR(S, r->pos, "'%s' is an event, not an automaton", r->name);
        else
            ERR(S, r->pos, "unknown automaton '%s'", r->name);
        return -1;
    }
    if (!r->index) {
        if (G->vals) {
            ERR(S, r->pos, "automaton '%s' is replicated; name one replica, e.g. %s[%d]",
                r->name, r->name, G->vals[0]);
            return -1;
        }
        return G->first;
    }
    if (!G->vals) {
        ERR(S, r->pos, "automaton '%s' is not replicated; it takes no index", r->name);
        return -1;
    }
    int v;
    if (const_int(S, r->index, &v, "an automaton index") < 0)
        return -1;
    int p = dom_pos(G->vals, G->n, v);
    if (p < 0) {
        ERR(S, r->index->pos, "automaton '%s' has no replica %d", r->name, v);
        return -1;
    }
    return G->first + p;
}

/* Local state range [lo, hi] that the reference names in automaton a;
 * returns 0 if a has no such state, 1 if found, -1 on an error. */
static int state_range(sema *S, int a, const ast_ref *r, int *lo, int *hi)
{
    s_group *G = group_of(S, a);
    s_block *B = find_block(G, r->name);
    if (!B)
        return 0;
    if (!r->index) {
        *lo = B->first;
        *hi = B->first + B->n - 1;
        return 1;
    }
    if (!B->is_block) {
        ERR(S, r->pos, "state '%s' is not a block; it takes no index", r->name);
        return -1;
    }
    int v;
    if (const_int(S, r->index, &v, "a state index") < 0)
        return -1;
    int p = dom_pos(B->vals, B->n, v);
    if (p < 0) {
        ERR(S, r->index->pos, "state block '%s' has no state %d", r->name, v);
        return -1;
    }
    *lo = *hi = B->first + p;
    return 1;
}

static void range_auts(sema *S, const ast_expr *e, int *lo, int *hi)
{
    *lo = 0;
    *hi = S->m->naut - 1;
    if (!e->has_range)
        return;
    int a = resolve_aut(S, &e->lo), b = resolve_aut(S, &e->hi);
    if (a < 0 || b < 0) {
        *lo = 1;
        *hi = 0;
        return;
    }
    if (b < a) {
        ERR(S, e->lo.pos, "reversed automaton range: '%s' is declared after the end of the range",
            e->lo.name);
        *lo = 1;
        *hi = 0;
        return;
    }
    *lo = a;
    *hi = b;
}

/* nb S, nb [A..B] S: triples (aut, lo, hi) for each automaton with S. */
static void compile_nb(sema *S, xbuild *b, const ast_expr *e)
{
    int a0, a1;
    range_auts(S, e, &a0, &a1);
    if (a0 > a1) {
        xb_emit(b, X_CONST, 0, 0, 0);
        return;
    }
    int off = b->e->nitab, cnt = 0, first_idx = -1, mixed = 0;
    for (int a = a0; a <= a1; a++) {
        int lo, hi, r = state_range(S, a, &e->ref, &lo, &hi);
        if (r < 0)
            return (void)xb_emit(b, X_CONST, 0, 0, 0);
        if (r == 0)
            continue;
        xb_itab(b, a);
        xb_itab(b, lo);
        xb_itab(b, hi);
        if (first_idx < 0)
            first_idx = lo;
        else if (lo != first_idx)
            mixed = 1;
        cnt++;
    }
    if (cnt == 0) {
        if (find_ident(S, e->ref.name))
            ERR(S, e->ref.pos, "'%s' is an identifier; nb counts automata in a state", e->ref.name);
        else
            ERR(S, e->ref.pos, "unknown state '%s'%s", e->ref.name,
                e->has_range ? " in the automata of the range" : "");
    } else if (mixed) {
        WARN(S, e->ref.pos, "state '%s' has different indices in the automata that nb counts; "
             "PEPS may count it by index", e->ref.name);
    }
    xb_emit(b, X_NB, off, cnt, 0);
}

/* Reward table of automaton a inside this expression (one copy each). */
static int reward_table(sema *S, xbuild *b, int a)
{
    const san_automaton *A = &S->m->aut[a];
    return xb_rtab(b, A->reward, A->nstates);
}

static void compile_sumrw(sema *S, xbuild *b, const ast_expr *e)
{
    int a0, a1;
    range_auts(S, e, &a0, &a1);
    int off = b->e->nitab, cnt = 0;
    for (int a = a0; a <= a1; a++) {
        int lo = 0, hi = S->m->aut[a].nstates - 1;
        if (e->has_state) {
            int r = state_range(S, a, &e->ref, &lo, &hi);
            if (r < 0)
                break;
            if (r == 0)
                continue;
        }
        int roff = reward_table(S, b, a);
        xb_itab(b, a);
        xb_itab(b, lo);
        xb_itab(b, hi);
        xb_itab(b, roff);
        cnt++;
    }
    if (cnt == 0 && e->has_state)
        ERR(S, e->ref.pos, "unknown state '%s' in the automata of the range", e->ref.name);
    xb_emit(b, e->kind == AE_SUMRW ? X_SUMRW : X_PRODRW, off, cnt, 0);
}

/* A bare name as a value: constant, function, state name, or result. */
static void compile_name(sema *S, xbuild *b, const ast_expr *e, int ctx_aut)
{
    const ast_ref *r = &e->ref;
    s_ident *id = r->index ? NULL : find_ident(S, r->name);
    if (id) {
        if (id->is_dom) {
            ERR(S, r->pos, "'%s' is a domain, not a value", r->name);
            xb_emit(b, X_CONST, 0, 0, 0);
            return;
        }
        if (id->visiting) {
            ERR(S, r->pos, "identifier '%s' is defined in terms of itself", r->name);
            xb_emit(b, X_CONST, 0, 0, 0);
            return;
        }
        resolve_ident(S, id);
        if (id->bad || !id->is_func) {
            xb_emit(b, X_CONST, 0, 0, id->bad ? 0 : id->value);
            return;
        }
        /* A function: call its code, compiled once at its declaration
         * (inlining would grow exponentially along chains of functions). */
        if (!id->fn) {
            xb_emit(b, X_CONST, 0, 0, 0);
            return;
        }
        xb_emit(b, X_CALL, xb_call(b, id->fn), 0, 0);
        return;
    }
    int ri = r->index ? -1 : result_index(S, r->name);
    if (ri >= 0) {
        xb_emit(b, X_RESULT, ri, 0, 0);
        return;
    }
    /* A state name: in the automaton it is compared with, or one index
     * shared by every automaton that has it. */
    if (S->m && S->m->naut > 0) {
        int found = 0, idx = -1, other = -1, other_aut = -1, first_aut = -1;
        int a0 = ctx_aut >= 0 ? ctx_aut : 0, a1 = ctx_aut >= 0 ? ctx_aut : S->m->naut - 1;
        for (int a = a0; a <= a1; a++) {
            int lo, hi, k = state_range(S, a, r, &lo, &hi);
            if (k < 0) {
                xb_emit(b, X_CONST, 0, 0, 0);
                return;
            }
            if (k == 0)
                continue;
            if (lo != hi) {
                ERR(S, r->pos, "'%s' is a block of states; name one, e.g. %s[%d]", r->name,
                    r->name, group_of(S, a)->blocks ? find_block(group_of(S, a), r->name)->vals[0] : 0);
                xb_emit(b, X_CONST, 0, 0, 0);
                return;
            }
            if (!found) {
                idx = lo;
                first_aut = a;
            } else if (lo != idx && other < 0) {
                other = lo;
                other_aut = a;
            }
            found = 1;
        }
        if (found) {
            if (other >= 0)
                ERR(S, r->pos, "state '%s' is %d in automaton '%s' but %d in '%s'; "
                    "compare it with 'st AUTOMATON' to say which", r->name, idx,
                    S->m->aut[first_aut].name, other, S->m->aut[other_aut].name);
            xb_emit(b, X_CONST, 0, 0, idx);
            return;
        }
        if (ctx_aut >= 0) {
            ERR(S, r->pos, "automaton '%s' has no state '%s'", S->m->aut[ctx_aut].name, r->name);
            xb_emit(b, X_CONST, 0, 0, 0);
            return;
        }
    }
    if (find_group(S, r->name))
        ERR(S, r->pos, "'%s' is an automaton, not a value; write 'st %s'", r->name, r->name);
    else if (event_declared(S, r->name))
        ERR(S, r->pos, "'%s' is an event, not a value", r->name);
    else
        ERR(S, r->pos, "unknown identifier '%s'", r->name);
    xb_emit(b, X_CONST, 0, 0, 0);
}

static const ast_expr *strip(const ast_expr *e)
{
    return e;
}

static int is_compare(ast_binop op)
{
    return op >= OP_LT && op <= OP_NE;
}

static const xop binop_code[] = {
    [OP_MUL] = X_MUL, [OP_DIV] = X_DIV, [OP_ADD] = X_ADD, [OP_SUB] = X_SUB,
    [OP_LT] = X_LT, [OP_LE] = X_LE, [OP_GT] = X_GT, [OP_GE] = X_GE,
    [OP_EQ] = X_EQ, [OP_NE] = X_NE, [OP_AND] = X_AND, [OP_XOR] = X_XOR,
    [OP_OR] = X_OR, [OP_IMP] = X_IMP, [OP_EQV] = X_EQV,
};

/* The automaton that `st A` names, without reporting errors. */
static int quiet_st_aut(sema *S, const ast_expr *e)
{
    e = strip(e);
    if (e->kind != AE_ST || !S->m)
        return -1;
    int q = S->quiet;
    S->quiet = 1;
    int before = S->d->nerrors;
    int a = resolve_aut(S, &e->ref);
    S->quiet = q;
    return S->d->nerrors == before ? a : -1;
}

static void compile(sema *S, xbuild *b, const ast_expr *e, int ctx_aut)
{
    switch (e->kind) {
    case AE_NUM:
        xb_emit(b, X_CONST, 0, 0, e->num);
        return;
    case AE_NAME:
        compile_name(S, b, e, ctx_aut);
        return;
    case AE_ST: case AE_RW: {
        int a = S->m ? resolve_aut(S, &e->ref) : -1;
        if (!S->m)
            ERR(S, e->pos, "the state cannot be read here (no automata yet)");
        if (a < 0)
            xb_emit(b, X_CONST, 0, 0, 0);
        else if (e->kind == AE_ST)
            xb_emit(b, X_ST, a, 0, 0);
        else
            xb_emit(b, X_RW, a, reward_table(S, b, a), 0);
        return;
    }
    case AE_NB: case AE_SUMRW: case AE_PRODRW:
        if (!S->m) {
            ERR(S, e->pos, "the state cannot be read here (no automata yet)");
            xb_emit(b, X_CONST, 0, 0, 0);
        } else if (e->kind == AE_NB) {
            compile_nb(S, b, e);
        } else {
            compile_sumrw(S, b, e);
        }
        return;
    case AE_NEG: case AE_NOT:
        compile(S, b, e->a, -1);
        xb_emit(b, e->kind == AE_NEG ? X_NEG : X_NOT, 0, 0, 0);
        xb_fold(b, NULL);
        return;
    case AE_MIN: case AE_MAX:
        for (int k = 0; k < e->nargs; k++)
            compile(S, b, e->args[k], -1);
        xb_emit(b, e->kind == AE_MIN ? X_MIN : X_MAX, 0, e->nargs, 0);
        xb_fold(b, NULL);
        return;
    case AE_BIN: {
        int ca = -1, cb = -1;
        if (is_compare(e->op)) {
            cb = quiet_st_aut(S, e->a);
            ca = quiet_st_aut(S, e->b);
        }
        compile(S, b, e->a, ca);
        compile(S, b, e->b, cb);
        xb_emit(b, binop_code[e->op], 0, 0, 0);
        xb_fold(b, NULL);
        return;
    }
    }
}

/* ---------------------------------------------------------------- */
/* The PEPS left-to-right reading                                     */
/* ---------------------------------------------------------------- */

/* Rebuild e as PEPS reads it: operators without parentheses between
 * them apply strictly from left to right. */
static ast_expr *peps_reading(ast_file *f, const ast_expr *e);

/* Operands and operators of a chain of binary operators written without
 * parentheses between them, in reading order. */
typedef struct {
    ast_expr **val;
    ast_binop *op;
    int nval, nop;
} op_chain;

static void chain(ast_file *f, const ast_expr *e, int top, op_chain *c)
{
    if (e->kind == AE_BIN && (top || !e->paren)) {
        chain(f, e->a, 0, c);
        c->op = ast_grow(f, c->op, c->nop, sizeof *c->op);
        c->op[c->nop++] = e->op;
        chain(f, e->b, 0, c);
        return;
    }
    c->val = ast_grow(f, c->val, c->nval, sizeof *c->val);
    c->val[c->nval++] = peps_reading(f, e);
}

static ast_expr *peps_reading(ast_file *f, const ast_expr *e)
{
    ast_expr *c = ast_alloc(f, sizeof *c);
    *c = *e;
    switch (e->kind) {
    case AE_BIN: {
        op_chain ch = { NULL, NULL, 0, 0 };
        chain(f, e, 1, &ch);
        ast_expr *acc = ch.val[0];
        for (int k = 1; k < ch.nval; k++) {
            ast_expr *x = ast_alloc(f, sizeof *x);
            x->kind = AE_BIN;
            x->pos = e->pos;
            x->op = ch.op[k - 1];
            x->a = acc;
            x->b = ch.val[k];
            acc = x;
        }
        return acc;
    }
    case AE_NEG: case AE_NOT:
        c->a = peps_reading(f, e->a);
        return c;
    case AE_MIN: case AE_MAX:
        c->args = ast_alloc(f, (e->nargs ? e->nargs : 1) * sizeof *c->args);
        for (int k = 0; k < e->nargs; k++)
            c->args[k] = peps_reading(f, e->args[k]);
        return c;
    default:
        return c;
    }
}

static int same_tree(const ast_expr *x, const ast_expr *y)
{
    if (x->kind != y->kind)
        return 0;
    switch (x->kind) {
    case AE_BIN:
        return x->op == y->op && same_tree(x->a, y->a) && same_tree(x->b, y->b);
    case AE_NEG: case AE_NOT:
        return same_tree(x->a, y->a);
    case AE_MIN: case AE_MAX:
        for (int k = 0; k < x->nargs; k++)
            if (!same_tree(x->args[k], y->args[k]))
                return 0;
        return 1;
    default:
        return 1;
    }
}

/* Sample global states: all of them when few, else a fixed pseudo-random
 * set (deterministic, so warnings do not come and go between runs). */
static int sample_state(const san_model *m, int k, int *s)
{
    if (m->product_fits && m->product <= 4096) {
        if (k >= m->product)
            return 0;
        san_state_decode(m, k, s);
        return 1;
    }
    if (k >= 4096)
        return 0;
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(k + 1);
    for (int a = 0; a < m->naut; a++) {
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        s[a] = (int)(x % (uint64_t)m->aut[a].nstates);
    }
    return 1;
}

static int same_value(double x, double y)
{
    return x == y || (isnan(x) && isnan(y)) || fabs(x - y) <= 1e-12 * fmax(fabs(x), fabs(y));
}

static void check_peps(sema *S, const ast_expr *e, const char *what)
{
    if (!S->opt || !S->opt->peps_warnings || !e)
        return;
    ast_expr *alt = peps_reading(S->f, e);
    if (same_tree(e, alt))
        return;
    int q = S->quiet;
    S->quiet = 1;
    int nerr = S->d->nerrors;
    san_expr *x = compile_one(S, e, -1, NULL);
    san_expr *y = compile_one(S, alt, -1, NULL);
    S->quiet = q;
    if (x && y && S->d->nerrors == nerr) {
        int *s = xcalloc(S->m->naut + 1, sizeof *s);
        for (int k = 0; sample_state(S->m, k, s); k++) {
            double vx = san_expr_eval_ctx(x, s, NULL), vy = san_expr_eval_ctx(y, s, NULL);
            if (x->reads_results || y->reads_results)
                break;
            if (!same_value(vx, vy)) {
                WARN(S, e->pos, "%s: PEPS evaluates operators left to right and would read "
                     "this as a different value (%g instead of %g%s); add parentheses",
                     what, vy, vx, x->is_const && y->is_const ? "" : " in some states");
                break;
            }
            if (x->is_const && y->is_const)
                break;
        }
        free(s);
    }
    san_expr_free(x);
    san_expr_free(y);
}

/* ---------------------------------------------------------------- */
/* Phase 2: automata and states                                       */
/* ---------------------------------------------------------------- */

static void layout_group(sema *S, s_group *G)
{
    const ast_aut *A = G->ast;
    G->blocks = xcalloc(A->nstates, sizeof *G->blocks);
    for (int i = 0; i < A->nstates; i++) {
        const ast_state *st = &A->states[i];
        if (st->is_from)
            continue;
        if (find_block(G, st->name)) {
            ERR(S, st->pos, "duplicate state '%s' in automaton '%s'", st->name, A->name);
            continue;
        }
        s_block *B = &G->blocks[G->nblocks];
        B->ast = st;
        B->first = G->nstates;
        B->n = 1;
        if (st->dom) {
            if (eval_domain(S, st->dom, &B->vals, &B->n) < 0)
                continue;
            B->is_block = 1;
        }
        if ((long)G->nstates + B->n > 100000000) {
            ERR(S, st->pos, "automaton '%s' has too many states", A->name);
            continue;
        }
        G->nstates += B->n;
        G->nblocks++;
    }
    if (G->nstates == 0)
        ERR(S, A->pos, "automaton '%s' has no states", A->name);
}

static void build_automata(sema *S)
{
    ast_file *f = S->f;
    san_model *m = S->m;
    S->groups = xcalloc(f->nauts, sizeof *S->groups);
    int naut = 0;
    for (int i = 0; i < f->nauts; i++) {
        const ast_aut *A = &f->auts[i];
        if (!A->name)
            continue;
        if (find_group(S, A->name)) {
            ERR(S, A->pos, "duplicate automaton '%s'", A->name);
            continue;
        }
        s_group *G = &S->groups[S->ngroups];
        G->ast = A;
        G->n = 1;
        if (A->dom && eval_domain(S, A->dom, &G->vals, &G->n) < 0)
            continue;
        if ((long)naut + G->n > 1000000) {
            ERR(S, A->pos, "too many automata");
            free(G->vals);
            memset(G, 0, sizeof *G);
            continue;
        }
        layout_group(S, G);
        if (G->nstates == 0) {
            for (int b = 0; b < G->nblocks; b++)
                free(G->blocks[b].vals);
            free(G->blocks);
            free(G->vals);
            memset(G, 0, sizeof *G);
            continue;
        }
        G->first = naut;
        naut += G->n;
        S->ngroups++;
    }
    m->naut = naut;
    m->aut = xcalloc(naut, sizeof *m->aut);
    for (int g = 0; g < S->ngroups; g++) {
        s_group *G = &S->groups[g];
        for (int r = 0; r < G->n; r++) {
            san_automaton *a = &m->aut[G->first + r];
            a->name = G->vals ? indexed_name(G->ast->name, G->vals[r]) : xstrdup(G->ast->name);
            a->nstates = G->nstates;
            a->states = xcalloc(G->nstates, sizeof *a->states);
            a->reward = xcalloc(G->nstates, sizeof *a->reward);
            for (int bl = 0; bl < G->nblocks; bl++) {
                s_block *B = &G->blocks[bl];
                for (int p = 0; p < B->n; p++)
                    a->states[B->first + p] = B->is_block ? indexed_name(B->ast->name, B->vals[p])
                                                          : xstrdup(B->ast->name);
            }
            for (int s = 0; s < G->nstates; s++)
                a->reward[s] = s;
        }
    }
}

/* Rewards are constants; they need the automata to exist (for errors
 * that mention them) but nothing else. */
static void compile_rewards(sema *S)
{
    for (int g = 0; g < S->ngroups; g++) {
        s_group *G = &S->groups[g];
        for (int bl = 0; bl < G->nblocks; bl++) {
            s_block *B = &G->blocks[bl];
            if (!B->ast->reward)
                continue;
            san_expr *x = compile_one(S, B->ast->reward, -1, NULL);
            if (!x)
                continue;
            if (!x->is_const)
                ERR(S, B->ast->reward->pos, "a reward must be a constant, not a function of the state");
            else if (!isfinite(x->value))
                ERR(S, B->ast->reward->pos, "reward is not a finite number");
            else
                for (int r = 0; r < G->n; r++)
                    for (int p = 0; p < B->n; p++)
                        S->m->aut[G->first + r].reward[B->first + p] = x->value;
            san_expr_free(x);
        }
    }
}

/* ---------------------------------------------------------------- */
/* Phase 3: events                                                    */
/* ---------------------------------------------------------------- */

static s_event *find_event(sema *S, const char *name, int has_index, int index)
{
    for (int i = 0; i < S->nevs; i++)
        if (!strcmp(S->f->events[S->evs[i].base].name, name) &&
            S->evs[i].has_index == has_index && (!has_index || S->evs[i].index == index))
            return &S->evs[i];
    return NULL;
}

static void declare_events(sema *S)
{
    ast_file *f = S->f;
    int cap = 0;
    for (int i = 0; i < f->nevents; i++) {
        const ast_event *E = &f->events[i];
        int dup = 0;
        for (int j = 0; j < i; j++)
            if (!strcmp(f->events[j].name, E->name)) {
                ERR(S, E->pos, "duplicate event '%s' (first declared at line %d)",
                    E->name, f->events[j].pos.line);
                dup = 1;
                break;
            }
        if (dup)
            continue;
        int *vals = NULL, n = 1;
        if (E->dom && eval_domain(S, E->dom, &vals, &n) < 0)
            continue;
        for (int k = 0; k < n; k++) {
            if (S->nevs == cap) {
                cap = cap ? 2 * cap : 16;
                S->evs = realloc(S->evs, cap * sizeof *S->evs);
                if (!S->evs)
                    abort();
            }
            s_event *ev = &S->evs[S->nevs++];
            memset(ev, 0, sizeof *ev);
            ev->ast = E;
            ev->base = i;
            ev->has_index = vals != NULL;
            ev->index = vals ? vals[k] : 0;
            ev->name = vals ? indexed_name(E->name, vals[k]) : xstrdup(E->name);
        }
        free(vals);
    }
}

static void add_user(s_event *ev, int a)
{
    for (int i = 0; i < ev->nusers; i++)
        if (ev->users[i] == a)
            return;
    if (ev->nusers == ev->capusers) {
        ev->capusers = ev->capusers ? 2 * ev->capusers : 4;
        ev->users = realloc(ev->users, ev->capusers * sizeof *ev->users);
        if (!ev->users)
            abort();
    }
    ev->users[ev->nusers++] = a;
}

/* ---------------------------------------------------------------- */
/* Phase 4: transitions                                               */
/* ---------------------------------------------------------------- */

static void add_trans(sema *S, int aut, int from, int ev, int to, san_expr *prob, ast_pos pos)
{
    if (S->ntr == S->captr) {
        S->captr = S->captr ? 2 * S->captr : 256;
        S->tr = realloc(S->tr, S->captr * sizeof *S->tr);
        if (!S->tr)
            abort();
    }
    s_trans *t = &S->tr[S->ntr++];
    t->aut = aut;
    t->from = from;
    t->ev = ev;
    t->to = to;
    t->prob = prob;
    t->pos = pos;
}

/* The event a label names, or NULL (reported). */
static s_event *label_event(sema *S, const ast_ref *r)
{
    int idx = 0, has = r->index != NULL;
    if (has && const_int(S, r->index, &idx, "an event index") < 0)
        return NULL;
    s_event *ev = find_event(S, r->name, has, idx);
    if (ev)
        return ev;
    if (has && event_declared(S, r->name))
        ERR(S, r->pos, "event '%s' has no index %d", r->name, idx);
    else if (!has && event_declared(S, r->name))
        ERR(S, r->pos, "event '%s' is replicated; name one, e.g. %s[i]", r->name, r->name);
    else if (find_ident(S, r->name))
        ERR(S, r->pos, "'%s' is an identifier, not an event", r->name);
    else if (find_group(S, r->name))
        ERR(S, r->pos, "'%s' is an automaton, not an event", r->name);
    else
        ERR(S, r->pos, "unknown event '%s'", r->name);
    return NULL;
}

/* Destination of a `to` clause from local position p of block B. */
static int destination(sema *S, s_group *G, const s_block *B, int p, const ast_to *t, int *dropped)
{
    *dropped = 0;
    switch (t->kind) {
    case DST_SAME:
        return B->first + p;
    case DST_REL: {
        int q = p + t->rel;
        if (q < 0 || q >= B->n) {
            *dropped = 1;
            return -1;
        }
        return B->first + q;
    }
    case DST_NAME: {
        int lo, hi, k = state_range(S, G->first, &t->dst, &lo, &hi);
        if (k == 0) {
            ERR(S, t->dst.pos, "automaton '%s' has no state '%s'", G->ast->name, t->dst.name);
            return -1;
        }
        if (k < 0)
            return -1;
        if (lo != hi) {
            ERR(S, t->dst.pos, "'%s' is a block of states; name one, e.g. %s[%d]",
                t->dst.name, t->dst.name, find_block(G, t->dst.name)->vals[0]);
            return -1;
        }
        return lo;
    }
    }
    return -1;
}

/* Expand the `to` clauses of one stt/from block at positions [p0, p1]. */
static void expand_block(sema *S, s_group *G, const s_block *B, const ast_state *st, int p0, int p1)
{
    for (int t = 0; t < st->ntos; t++) {
        const ast_to *to = &st->tos[t];
        for (int l = 0; l < to->nlabels; l++) {
            const ast_label *lab = &to->labels[l];
            s_event *ev = label_event(S, &lab->ev);
            san_expr *prob = NULL;
            if (lab->prob) {
                prob = compile_one(S, lab->prob, -1, NULL);
                if (!prob)
                    continue;
                pool_add(S->m, prob);
                check_peps(S, lab->prob, "routing probability");
                if (prob->is_const && (!(prob->value >= 0) || !isfinite(prob->value) || prob->value > 1))
                    ERR(S, lab->prob->pos, "routing probability %g is not in [0, 1]", prob->value);
            }
            if (!ev)
                continue;
            int warned = 0;
            for (int p = p0; p <= p1; p++) {
                int dropped, dst = destination(S, G, B, p, to, &dropped);
                if (dropped)
                    continue;
                if (dst < 0)
                    break;
                if (dst == B->first + p && !ev->ast->sync && !warned) {
                    WARN(S, to->pos, "local self-loop on event '%s' has no effect on the chain",
                         ev->name);
                    warned = 1;
                }
                for (int r = 0; r < G->n; r++) {
                    add_trans(S, G->first + r, B->first + p, (int)(ev - S->evs), dst, prob, lab->ev.pos);
                    add_user(ev, G->first + r);
                }
            }
        }
    }
}

static void build_transitions(sema *S)
{
    for (int g = 0; g < S->ngroups; g++) {
        s_group *G = &S->groups[g];
        for (int i = 0; i < G->ast->nstates; i++) {
            const ast_state *st = &G->ast->states[i];
            if (!st->is_from) {
                s_block *B = find_block(G, st->name);
                if (B && B->ast == st)
                    expand_block(S, G, B, st, 0, B->n - 1);
                continue;
            }
            ast_ref r = { st->name, st->from_index, st->pos };
            int lo, hi, k = state_range(S, G->first, &r, &lo, &hi);
            if (k == 0) {
                ERR(S, st->pos, "automaton '%s' has no state '%s'", G->ast->name, st->name);
                continue;
            }
            if (k < 0)
                continue;
            s_block *B = find_block(G, st->name);
            expand_block(S, G, B, st, lo - B->first, hi - B->first);
        }
    }
}

/* ---------------------------------------------------------------- */
/* Phase 5: final events                                              */
/* ---------------------------------------------------------------- */

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Does the informational automaton list name exactly the users? */
static int list_matches(sema *S, const s_event *ev)
{
    const ast_event *E = ev->ast;
    int q = S->quiet;
    S->quiet = 1;
    char *named = xcalloc(S->m->naut, 1);
    int ok = 1;
    for (int k = 0; k < E->nauts && ok; k++) {
        s_group *G = find_group(S, E->auts[k].name);
        if (!G) {
            ok = 0;
            break;
        }
        int lo = G->first, hi = G->first + G->n - 1;
        if (E->auts[k].index) {
            /* P[N] with a domain name means every replica. */
            const ast_expr *ix = E->auts[k].index;
            s_ident *id = ix->kind == AE_NAME && !ix->ref.index ? find_ident(S, ix->ref.name) : NULL;
            if (!(id && id->is_dom)) {
                int a = resolve_aut(S, &E->auts[k]);
                if (a < 0) {
                    ok = 0;
                    break;
                }
                lo = hi = a;
            }
        }
        for (int a = lo; a <= hi; a++)
            named[a] = 1;
    }
    for (int i = 0; i < ev->nusers && ok; i++)
        if (!named[ev->users[i]])
            ok = 0;
    int cnt = 0;
    for (int a = 0; a < S->m->naut; a++)
        cnt += named[a];
    if (cnt != ev->nusers)
        ok = 0;
    free(named);
    S->quiet = q;
    return ok;
}

static void finish_events(sema *S)
{
    san_model *m = S->m;
    int total = 0;
    for (int i = 0; i < S->nevs; i++) {
        s_event *ev = &S->evs[i];
        if (ev->nusers > 1)
            qsort(ev->users, ev->nusers, sizeof *ev->users, cmp_int);
        if (!ev->ast->sync && ev->nusers > 1) {
            s_group *G = group_of(S, ev->users[0]);
            int same = 1;
            for (int k = 1; k < ev->nusers; k++)
                if (group_of(S, ev->users[k]) != G)
                    same = 0;
            if (!same) {
                ERR(S, ev->ast->pos, "local event '%s' is used by automata '%s' and '%s'; a local "
                    "event belongs to one automaton (declare it syn to synchronize them)",
                    ev->name, m->aut[ev->users[0]].name, m->aut[ev->users[ev->nusers - 1]].name);
            }
        }
        total += !ev->ast->sync && ev->nusers > 1 ? ev->nusers : 1;
    }
    m->ev = xcalloc(total, sizeof *m->ev);
    for (int i = 0; i < S->nevs; i++) {
        s_event *ev = &S->evs[i];
        const ast_event *E = ev->ast;
        san_expr *rate = compile_one(S, E->rate, -1, NULL);
        if (rate) {
            pool_add(m, rate);
            if (i == 0 || S->evs[i - 1].ast != E) {
                check_peps(S, E->rate, "rate");
                if (rate->is_const && isnan(rate->value) && E->rate->kind != AE_NUM)
                    ERR(S, E->rate->pos, "rate of event '%s' is not a number (division by zero?)", E->name);
                else if (rate->is_const && isinf(rate->value))
                    ERR(S, E->rate->pos, "rate of event '%s' is not finite (division by zero?)", E->name);
                else if (rate->is_const && rate->value < 0)
                    ERR(S, E->rate->pos, "rate of event '%s' is negative (%g)", E->name, rate->value);
            }
        } else {
            rate = pool_add(m, san_expr_constant(0));
        }
        if (ev->nusers == 0) {
            WARN(S, E->pos, "event '%s' is declared but never used", ev->name);
        } else if (E->sync && ev->nusers == 1 && (i == 0 || S->evs[i - 1].ast != E || S->evs[i - 1].nusers != 1)) {
            WARN(S, E->pos, "synchronizing event '%s' is used by only one automaton ('%s')",
                 ev->name, m->aut[ev->users[0]].name);
        }
        if (E->nauts > 0 && ev->nusers > 0 && !list_matches(S, ev))
            WARN(S, E->pos, "the automaton list of event '%s' does not match the automata that use it",
                 ev->name);
        int copies = !E->sync && ev->nusers > 1;
        ev->first_final = m->nev;
        ev->nfinal = copies ? ev->nusers : 1;
        for (int k = 0; k < ev->nfinal; k++) {
            san_event *out = &m->ev[m->nev++];
            out->sync = E->sync;
            out->rate = rate;
            out->line = E->pos.line;
            out->col = E->pos.col;
            if (copies) {
                if (asprintf(&out->name, "%s@%s", ev->name, m->aut[ev->users[k]].name) < 0)
                    abort();
                out->nparts = 1;
                out->parts = xcalloc(1, sizeof *out->parts);
                out->parts[0] = ev->users[k];
            } else {
                out->name = xstrdup(ev->name);
                out->nparts = ev->nusers;
                out->parts = xcalloc(ev->nusers, sizeof *out->parts);
                if (ev->nusers)
                    memcpy(out->parts, ev->users, ev->nusers * sizeof *out->parts);
            }
        }
    }
}

/* Final event id of a raw transition. */
static int final_event(sema *S, const s_trans *t)
{
    const s_event *ev = &S->evs[t->ev];
    if (ev->nfinal == 1)
        return ev->first_final;
    for (int k = 0; k < ev->nusers; k++)
        if (ev->users[k] == t->aut)
            return ev->first_final + k;
    return ev->first_final;
}

static int cmp_trans(const void *x, const void *y)
{
    const s_trans *a = x, *b = y;
    if (a->aut != b->aut)
        return (a->aut > b->aut) - (a->aut < b->aut);
    if (a->from != b->from)
        return (a->from > b->from) - (a->from < b->from);
    if (a->ev != b->ev)
        return (a->ev > b->ev) - (a->ev < b->ev);
    return (a->to > b->to) - (a->to < b->to);
}

/* Per automaton, transitions sorted by (from, event, to) with an index
 * by source state: the layout the generator and descriptor read. */
static void store_transitions(sema *S)
{
    san_model *m = S->m;
    for (int i = 0; i < S->ntr; i++)
        S->tr[i].ev = final_event(S, &S->tr[i]);
    if (S->ntr > 1)
        qsort(S->tr, S->ntr, sizeof *S->tr, cmp_trans);
    int i = 0;
    for (int a = 0; a < m->naut; a++) {
        san_automaton *A = &m->aut[a];
        int j = i;
        while (j < S->ntr && S->tr[j].aut == a)
            j++;
        A->ntr = j - i;
        A->tr = xcalloc(A->ntr, sizeof *A->tr);
        A->first = xcalloc(A->nstates + 1, sizeof *A->first);
        for (int k = i; k < j; k++) {
            A->tr[k - i].event = S->tr[k].ev;
            A->tr[k - i].to = S->tr[k].to;
            A->tr[k - i].prob = S->tr[k].prob;
            A->first[S->tr[k].from + 1]++;
        }
        for (int s = 0; s < A->nstates; s++)
            A->first[s + 1] += A->first[s];
        i = j;
    }
}

/* Routing probabilities of one event from one local state: every outcome
 * has one when there are several, and constant ones sum to 1. */
static void check_routing(sema *S)
{
    for (int i = 0; i < S->ntr;) {
        int j = i, omitted = 0, functional = 0;
        double sum = 0;
        while (j < S->ntr && S->tr[j].aut == S->tr[i].aut && S->tr[j].from == S->tr[i].from &&
               S->tr[j].ev == S->tr[i].ev) {
            const san_expr *p = S->tr[j].prob;
            if (!p)
                omitted++;
            else if (!p->is_const)
                functional = 1;
            else
                sum += p->value;
            j++;
        }
        const san_automaton *A = &S->m->aut[S->tr[i].aut];
        const char *ev = S->m->ev[S->tr[i].ev].name;
        if (j - i > 1 && omitted)
            ERR(S, S->tr[i].pos, "event '%s' has %d outcomes from state '%s' of '%s'; "
                "each needs a routing probability", ev, j - i, A->states[S->tr[i].from], A->name);
        else if (!omitted && !functional && fabs(sum - 1) > 1e-9)
            ERR(S, S->tr[i].pos, "routing probabilities of event '%s' from state '%s' of '%s' "
                "sum to %.12g, not 1", ev, A->states[S->tr[i].from], A->name, sum);
        i = j;
    }
}

/* ---------------------------------------------------------------- */
/* Phase 6: reachability, results, identifiers' own diagnostics       */
/* ---------------------------------------------------------------- */

static void check_identifiers(sema *S)
{
    for (int i = 0; i < S->nids; i++) {
        s_ident *id = &S->ids[i];
        resolve_ident(S, id);
        if (!id->is_dom && !id->bad)
            check_peps(S, id->ast->expr, "identifier");
    }
}

static void compile_reach(sema *S)
{
    ast_file *f = S->f;
    if (!f->reach)
        return;
    san_expr *x = compile_one(S, f->reach, -1, NULL);
    if (!x)
        return;
    S->m->reach = pool_add(S->m, x);
    S->m->partial = f->partial;
    check_peps(S, f->reach, "reachability");
}

static void compile_results(sema *S)
{
    ast_file *f = S->f;
    san_model *m = S->m;
    m->res = xcalloc(f->nresults, sizeof *m->res);
    for (int r = 0; r < f->nresults; r++) {
        const ast_result *R = &f->results[r];
        int dup = 0;
        for (int k = 0; k < r; k++)
            if (!strcmp(f->results[k].name, R->name)) {
                ERR(S, R->pos, "duplicate result '%s'", R->name);
                dup = 1;
            }
        if (dup)
            continue;
        S->cur_result = r;
        san_expr *x = compile_one(S, R->expr, -1, NULL);
        S->cur_result = 0;
        if (!x)
            continue;
        pool_add(m, x);
        if (x->reads_results && x->ndeps > 0) {
            ERR(S, R->expr->pos, "result '%s' mixes other results with the state; "
                "a derived result reads results only", R->name);
            continue;
        }
        check_peps(S, R->expr, "result");
        san_result *out = &m->res[m->nres++];
        out->name = xstrdup(R->name);
        out->expr = x;
        out->derived = x->reads_results;
    }
}

/* Product of the automata sizes, exactly, as a decimal string. */
static void product_size(san_model *m)
{
    /* base 10^9 limbs, least significant first */
    int cap = 4, n = 1;
    uint32_t *limb = xcalloc(cap, sizeof *limb);
    limb[0] = 1;
    m->product_fits = 1;
    m->product = 1;
    m->product_log10 = 0;
    m->stride = xcalloc(m->naut + 1, sizeof *m->stride);
    for (int a = m->naut - 1; a >= 0; a--) {
        int64_t ns = m->aut[a].nstates;
        m->stride[a] = m->product_fits ? m->product : 0;
        m->product_log10 += log10((double)ns);
        if (m->product_fits && m->product > INT64_MAX / ns)
            m->product_fits = 0;
        else if (m->product_fits)
            m->product *= ns;
        uint64_t carry = 0;
        for (int k = 0; k < n; k++) {
            uint64_t v = (uint64_t)limb[k] * ns + carry;
            limb[k] = v % 1000000000u;
            carry = v / 1000000000u;
        }
        while (carry) {
            if (n == cap) {
                cap *= 2;
                limb = realloc(limb, cap * sizeof *limb);
                if (!limb)
                    abort();
            }
            limb[n++] = carry % 1000000000u;
            carry /= 1000000000u;
        }
    }
    m->product_str = xcalloc((size_t)n * 9 + 2, 1);
    char *p = m->product_str;
    p += sprintf(p, "%u", limb[n - 1]);
    for (int k = n - 2; k >= 0; k--)
        p += sprintf(p, "%09u", limb[k]);
    free(limb);
}

/* Missing blocks are reported where the next block starts. */
static void check_blocks(sema *S)
{
    ast_file *f = S->f;
    ast_pos at = f->has_reach ? f->reach_pos : f->has_net ? f->net_pos : (ast_pos){ 1, 1 };
    if (!f->has_events_block)
        ERR(S, at, "missing 'events' block (it may be empty, but must be there)");
    at = f->has_net ? f->net_pos : (ast_pos){ 1, 1 };
    if (!f->has_reach)
        ERR(S, at, "missing reachability function: 'reachability = EXPR;' or 'partial reachability = EXPR;'");
    if (!f->has_net)
        ERR(S, ((ast_pos){ 1, 1 }), "missing 'network NAME (continuous)' block");
    else if (f->nauts == 0)
        ERR(S, f->net_pos, "the network has no automata");
    if (f->discrete)
        ERR(S, f->net_pos, "discrete-time networks are not supported yet; declare the network (continuous)");
    if (!f->has_results_block)
        WARN(S, ((ast_pos){ 1, 1 }), "no 'results' block: only marginals and throughputs will be reported");
}

static void sema_free(sema *S)
{
    for (int i = 0; i < S->nids; i++)
        free(S->ids[i].dom);
    free(S->ids);
    for (int g = 0; g < S->ngroups; g++) {
        for (int b = 0; b < S->groups[g].nblocks; b++)
            free(S->groups[g].blocks[b].vals);
        free(S->groups[g].blocks);
        free(S->groups[g].vals);
    }
    free(S->groups);
    for (int i = 0; i < S->nevs; i++) {
        free(S->evs[i].name);
        free(S->evs[i].users);
    }
    free(S->evs);
    free(S->tr);
}

static void export_identifiers(sema *S)
{
    san_model *m = S->m;
    m->id = xcalloc(S->nids, sizeof *m->id);
    for (int i = 0; i < S->nids; i++) {
        s_ident *id = &S->ids[i];
        san_ident *out = &m->id[m->nid++];
        out->name = xstrdup(id->ast->name);
        out->is_domain = id->is_dom;
        out->is_function = id->is_func;
        out->overridden = id->overridden;
        out->value = id->value;
        if (id->is_func && !id->bad)
            out->expr = id->fn;
    }
}

san_model *sema_run(ast_file *f, san_diag *d, const san_load_opts *opt)
{
    sema S;
    memset(&S, 0, sizeof S);
    S.f = f;
    S.d = d;
    S.opt = opt;
    san_model *m = xcalloc(1, sizeof *m);
    m->name = xstrdup(f->net_name ? f->net_name : "unnamed");

    check_blocks(&S);
    collect_identifiers(&S);
    declare_events(&S);
    S.m = m;
    build_automata(&S);
    product_size(m);
    compile_rewards(&S);
    check_identifiers(&S);
    build_transitions(&S);
    finish_events(&S);
    store_transitions(&S);
    check_routing(&S);
    compile_reach(&S);
    compile_results(&S);
    export_identifiers(&S);
    sema_free(&S);
    if (d->nerrors) {
        san_model_free(m);
        return NULL;
    }
    /* Functions of few automata become table lookups: the solvers
     * evaluate rates and probabilities once per state and event. */
    for (int k = 0; k < m->npool; k++)
        san_expr_tabulate(m->pool[k], m, 1 << 18);
    return m;
}
