/*
 * sema_expr.c - the semantic pass, its expression side: lookups of
 * names, constant evaluation and domains, the identifiers (phase 1),
 * the compilation of expressions (st, nb, rw, sum_rw, functions, state
 * names), and the warnings on PEPS's left-to-right reading.  The phases
 * that build the model are in sema.c.
 */
#include "sema_int.h"

/* ---------------------------------------------------------------- */
/* Lookups                                                            */
/* ---------------------------------------------------------------- */

s_ident *find_ident(sema *S, const char *name)
{
    for (int i = 0; i < S->nids; i++)
        if (!strcmp(S->ids[i].ast->name, name))
            return &S->ids[i];
    return NULL;
}

s_group *find_group(sema *S, const char *name)
{
    for (int g = 0; g < S->ngroups; g++)
        if (S->groups[g].ast->name && !strcmp(S->groups[g].ast->name, name))
            return &S->groups[g];
    return NULL;
}

int event_declared(sema *S, const char *name)
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
s_group *group_of(sema *S, int a)
{
    for (int g = 0; g < S->ngroups; g++)
        if (a >= S->groups[g].first && a < S->groups[g].first + S->groups[g].n)
            return &S->groups[g];
    return NULL;
}

s_block *find_block(s_group *G, const char *name)
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
san_expr *compile_one(sema *S, const ast_expr *e, int ctx_aut, int *div0)
{
    int before = S->d->nerrors;
    xbuild b;
    xb_init(&b, S->oom);
    int h = hold(S, b.e, 1);
    b.capcode = 0;
    compile(S, &b, e, ctx_aut);
    san_expr *x = xb_finish(&b, S->m ? S->m->naut : 0);
    release(S, h);
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
int const_int(sema *S, const ast_expr *e, int *out, const char *what)
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


int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* A value present twice (INT_MIN if none), in O(n log n): domains can
 * have millions of values. */
static int first_duplicate(sema *S, const int *v, int n)
{
    int *w = xcalloc(S, n, sizeof *w);
    int h = hold(S, w, 0);
    memcpy(w, v, n * sizeof *w);
    qsort(w, n, sizeof *w, cmp_int);
    int dup = INT_MIN;
    for (int i = 1; i < n && dup == INT_MIN; i++)
        if (w[i] == w[i - 1])
            dup = w[i];
    release(S, h);
    free(w);
    return dup;
}

/* Evaluate a domain: a single domain identifier, or a list of ranges. */
int eval_domain(sema *S, const ast_domain *dom, int **vals, int *n)
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
        *vals = xcalloc(S, id->ndom, sizeof **vals);
        memcpy(*vals, id->dom, id->ndom * sizeof **vals);
        *n = id->ndom;
        return 0;
    }
    int cap = 0, cnt = 0, *v = NULL;
    int h = hold(S, NULL, 0);
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
                v = xrealloc(S, v, cap * sizeof *v);
                held_update(S, h, v);
            }
            v[cnt++] = x;
        }
    }
    if (cnt == 0) {
        ERR(S, dom->pos, "empty domain");
        goto fail;
    }
    int dup = first_duplicate(S, v, cnt);
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
    release(S, h);
    *vals = v;
    *n = cnt;
    return 0;
fail:
    release(S, h);
    free(v);
    return -1;
}

/* ---------------------------------------------------------------- */
/* Phase 1: identifiers                                               */
/* ---------------------------------------------------------------- */


void collect_identifiers(sema *S)
{
    ast_file *f = S->f;
    S->ids = xcalloc(S, f->nids, sizeof *S->ids);
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
void resolve_ident(sema *S, s_ident *id)
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
                id->fn = pool_add(S, x);     /* kept: callers share it */
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
int resolve_aut(sema *S, const ast_ref *r)
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
int state_range(sema *S, int a, const ast_ref *r, int *lo, int *hi)
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

void check_peps(sema *S, const ast_expr *e, const char *what)
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
        int *s = xcalloc(S, S->m->naut + 1, sizeof *s);
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
