/*
 * sema_expr.c - the semantic pass, its expression side: the lookups of
 * values in domains and results, constant evaluation and domains, the
 * identifiers (phase 1), the compilation of expressions (st, nb, rw,
 * sum_rw, functions, state names), and the warnings on PEPS's
 * left-to-right reading.  The phases that build the model are in sema.c,
 * the lookups of names in sema_lookup.c.
 */
#include "lang/sema_int.h"
#include "lang/model_int.h"

/* ---------------------------------------------------------------- */
/* Lookups                                                            */
/* ---------------------------------------------------------------- */

static int result_index(sema *S, const char *name)
{
    int r = symtab_find(&S->result_names, name, 0);
    return r < S->cur_result ? r : -1;
}

/* Position p of value v in a domain (vals[p] == v), or -1.  Nearly
 * every domain is one ascending run of consecutive values, where v's
 * position is its offset from the first; any other gets, at its first
 * lookup, its (value, position) pairs sorted (*by_value), then
 * bisection.  (A scan per reference made 10^6 replicas quadratic.) */
static int dom_pos(sema *S, const int *vals, int n, int **by_value, int v)
{
    if (n > 0 && v >= vals[0] && (int64_t)v - vals[0] < n && vals[v - vals[0]] == v)
        return v - vals[0];
    if (!*by_value) {
        int *p = xcalloc(S, 2 * (size_t)n, sizeof *p);
        for (int i = 0; i < n; i++) {
            p[2 * i] = vals[i];
            p[2 * i + 1] = i;
        }
        qsort(p, n, 2 * sizeof *p, cmp_int);    /* by value: the first int */
        *by_value = p;
    }
    const int *p = *by_value;
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (p[2 * mid] == v)
            return p[2 * mid + 1];
        if (p[2 * mid] < v)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
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
    san_expr *x = xb_finish(&b);
    release(S, h);
    if (div0) {
        /* Division by a constant zero survives folding as an infinity or
         * NaN; detect it on the folded constant. */
        *div0 = x->is_const && !isfinite(x->value);
    }
    if (S->d->nerrors > before && !S->quiet) {
        lang_expr_free(x);
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
    lang_expr_free(x);
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
            ERR(S, e->pos, "unknown domain '%s'%s", e->ref.name, suggest_ident(S, e->ref.name, 1));
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
        int prev = symtab_add(&S->id_names, a->name, 0, S->nids);
        if (prev >= 0) {
            ERR(S, a->pos, "duplicate identifier '%s' (first declared at line %d)",
                a->name, S->ids[prev].ast->pos.line);
            continue;
        }
        s_ident *id = &S->ids[S->nids++];
        id->ast = a;
        id->is_dom = a->dom != NULL;
    }
    link_identifiers(S);
    for (int i = 0; i < S->nids; i++) {
        tick(S, "identifiers", i, S->nids);
        if (S->ids[i].is_dom)
            resolve_ident(S, &S->ids[i]);
    }
}

/* Resolving an identifier compiles its expression, which resolves the
 * identifiers it names first: recursion as deep as the longest chain of
 * definitions (2 10^4 constants each defined from the next overflowed
 * the stack).  So resolve_ident first orders what id needs, by an
 * iterative depth-first search over the references (S->ref_to), and
 * resolves them from the bottom up: each compile then finds what it
 * names done.  A cycle of definitions (a strongly connected component
 * of the references, found as Tarjan does) is left to the recursion,
 * entered at the same identifier as before, so that it is reported at
 * the same reference; one longer than this is reported, not followed. */
#define MAX_CYCLE 1000

/* The identifiers the expression names (not the indexed names, which
 * are never identifiers), appended to S->ref as edges from `from`. */
static void add_refs(sema *S, int from, const ast_expr *e);

static void add_ref_name(sema *S, int from, const ast_ref *r)
{
    if (r->index) {
        add_refs(S, from, r->index);
        return;
    }
    int to = symtab_find(&S->id_names, r->name, 0);
    if (to < 0)
        return;
    if (S->nref == S->capref) {
        S->capref = S->capref ? 2 * S->capref : 256;
        S->ref = xrealloc(S, S->ref, S->capref * sizeof *S->ref);
    }
    S->ref[S->nref][0] = from;
    S->ref[S->nref++][1] = to;
}

static void add_refs(sema *S, int from, const ast_expr *e)
{
    if (!e)
        return;
    switch (e->kind) {
    case AE_NUM:
        return;
    case AE_NAME:
        add_ref_name(S, from, &e->ref);
        return;
    case AE_ST: case AE_RW: case AE_NB: case AE_SUMRW: case AE_PRODRW:
        /* automata and states: only their index expressions can name
         * identifiers */
        if (e->ref.index)
            add_refs(S, from, e->ref.index);
        if (e->lo.index)
            add_refs(S, from, e->lo.index);
        if (e->hi.index)
            add_refs(S, from, e->hi.index);
        return;
    case AE_NEG: case AE_NOT:
        add_refs(S, from, e->a);
        return;
    case AE_BIN:
        add_refs(S, from, e->a);
        add_refs(S, from, e->b);
        return;
    case AE_MIN: case AE_MAX: case AE_FN:
        for (int k = 0; k < e->nargs; k++)
            add_refs(S, from, e->args[k]);
        return;
    case AE_THR:
        if (e->ref.index)
            add_refs(S, from, e->ref.index);
        if (e->thr_at.index)
            add_refs(S, from, e->thr_at.index);
        return;
    }
}

/* S->ref_to: the identifiers each names, i's from S->ref_start[i], in
 * the order its expression names them (a stable counting sort). */
void link_identifiers(sema *S)
{
    for (int i = 0; i < S->nids; i++) {
        const ast_ident *a = S->ids[i].ast;
        add_refs(S, i, a->expr);
        for (int k = 0; a->dom && k < a->dom->n; k++) {
            add_refs(S, i, a->dom->lo[k]);
            add_refs(S, i, a->dom->hi[k]);
        }
    }
    S->ref_start = xcalloc(S, S->nids + 2, sizeof *S->ref_start);
    for (int k = 0; k < S->nref; k++)
        S->ref_start[S->ref[k][0] + 2]++;
    for (int i = 0; i < S->nids; i++)
        S->ref_start[i + 2] += S->ref_start[i + 1];
    int *to = xcalloc(S, S->nref, sizeof *to);
    for (int k = 0; k < S->nref; k++)
        to[S->ref_start[S->ref[k][0] + 1]++] = S->ref[k][1];
    free(S->ref);
    S->ref = NULL;
    S->ref_to = to;
}

/* Append v to one of the int stacks of the search. */
static void push_int(sema *S, int **a, int *n, int *cap, int v)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *a = xrealloc(S, *a, *cap * sizeof **a);
    }
    (*a)[(*n)++] = v;
}

static void search_enter(sema *S, int *top, int i)
{
    if (*top == S->capdfs) {
        S->capdfs = S->capdfs ? 2 * S->capdfs : 64;
        S->dfs = xrealloc(S, S->dfs, S->capdfs * sizeof *S->dfs);
    }
    s_ident *id = &S->ids[i];
    id->seen = S->search;
    id->index = id->low = S->next_index++;
    id->on_stack = 1;
    push_int(S, &S->scc, &S->nscc, &S->capscc, i);
    S->dfs[*top][0] = i;
    S->dfs[(*top)++][1] = S->ref_start[i];
}

/* i has no more references to follow: the root of its component goes
 * on S->order, the component comes off the component stack. */
static void search_leave(sema *S, int i)
{
    s_ident *id = &S->ids[i];
    if (id->low != id->index)
        return;             /* in a cycle through an identifier below */
    int j;
    do {
        j = S->scc[--S->nscc];
        S->ids[j].on_stack = 0;
    } while (j != i);
    push_int(S, &S->order, &S->norder, &S->caporder, i);
}

/* Appends to S->order, bottom up, what root needs that is neither done
 * nor being resolved (the first of each cycle only), root last.
 * S->order is a stack shared with the nested searches of a cycle; the
 * search keeps (identifier, its next reference) pairs in S->dfs. */
static void order_needs(sema *S, int root)
{
    int top = 0;
    S->search++;
    S->next_index = 0;
    search_enter(S, &top, root);
    while (top > 0) {
        int i = S->dfs[top - 1][0], k = S->dfs[top - 1][1];
        s_ident *id = &S->ids[i];
        if (k == S->ref_start[i + 1]) {
            search_leave(S, i);
            if (--top > 0) {
                s_ident *up = &S->ids[S->dfs[top - 1][0]];
                up->low = id->low < up->low ? id->low : up->low;
            }
            continue;
        }
        S->dfs[top - 1][1]++;
        s_ident *to = &S->ids[S->ref_to[k]];
        if (to->done || to->visiting)
            continue;
        if (to->seen != S->search)
            search_enter(S, &top, S->ref_to[k]);
        else if (to->on_stack && to->index < id->low)
            id->low = to->index;
    }
}

static void resolve_one(sema *S, s_ident *id);

/* Domains are evaluated now; constants and functions when first needed
 * (they may read automata, which do not exist yet). */
void resolve_ident(sema *S, s_ident *id)
{
    if (id->done || id->visiting)
        return;
    if (S->resolving >= MAX_CYCLE) {
        ERR(S, id->ast->pos, "identifier '%s' is defined in terms of itself through more "
            "than %d other identifiers", id->ast->name, MAX_CYCLE);
        id->bad = id->done = 1;
        return;
    }
    S->resolving++;
    int base = S->norder;
    order_needs(S, (int)(id - S->ids));
    int end = S->norder;
    for (int k = base; k < end; k++)
        resolve_one(S, &S->ids[S->order[k]]);
    S->norder = base;
    S->resolving--;
}

/* One identifier, whose needs are resolved (but along a cycle). */
static void resolve_one(sema *S, s_ident *id)
{
    if (id->done || id->visiting)
        return;
    /* Its own diagnostics are reported once, here, whatever the context
     * of the first use. */
    int quiet = S->quiet, cur = S->cur_result, in_results = S->in_results;
    S->quiet = 0;
    S->cur_result = 0;
    S->in_results = 0;      /* an identifier is a function of the state */
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
            lang_expr_free(x);
        }
    }
    id->visiting = 0;
    id->done = 1;
    S->quiet = quiet;
    S->cur_result = cur;
    S->in_results = in_results;
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
            ERR(S, r->pos, "unknown automaton '%s'%s", r->name, suggest_automaton(S, r->name));
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
    int p = dom_pos(S, G->vals, G->n, &G->by_value, v);
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
    s_block *B = find_block(S, G, r->name);
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
    int p = dom_pos(S, B->vals, B->n, &B->by_value, v);
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
            ERR(S, e->ref.pos, "unknown state '%s'%s%s", e->ref.name,
                e->has_range ? " in the automata of the range" : "",
                suggest_state(S, e->ref.name, a0, a1));
    } else if (mixed) {
        WARN(S, e->ref.pos, "state '%s' has different indices in the automata that nb counts; "
             "PEPS may count it by index", e->ref.name);
    }
    xb_emit(b, X_NB, off, cnt, 0);
}

/* Reward table of automaton a inside this expression (one copy each). */
static int reward_table(sema *S, xbuild *b, int a)
{
    const lang_automaton *A = &S->m->aut[a];
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
        ERR(S, e->ref.pos, "unknown state '%s' in the automata of the range%s", e->ref.name,
            suggest_state(S, e->ref.name, a0, a1));
    xb_emit(b, e->kind == AE_SUMRW ? X_SUMRW : X_PRODRW, off, cnt, 0);
}

/* A bare name as a value: constant, function, state name, or result. */
static void compile_name(sema *S, xbuild *b, const ast_expr *e, int ctx_aut)
{
    const ast_ref *r = &e->ref;
    if (S->bind_name && !r->index && !strcmp(r->name, S->bind_name)) {
        xb_emit(b, X_CONST, 0, 0, S->bind_val);     /* the index variable (repl.c) */
        return;
    }
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
     * shared by every automaton that has it.  The replicas of a group
     * have the same states: one of each group answers for all. */
    if (S->m && S->m->naut > 0) {
        int found = 0, idx = -1, other = -1, other_aut = -1, first_aut = -1;
        int g0 = 0, g1 = S->ngroups - 1;
        if (ctx_aut >= 0)
            g0 = g1 = (int)(group_of(S, ctx_aut) - S->groups);
        for (int g = g0; g <= g1; g++) {
            int a = ctx_aut >= 0 ? ctx_aut : S->groups[g].first;
            int lo, hi, k = state_range(S, a, r, &lo, &hi);
            if (k < 0) {
                xb_emit(b, X_CONST, 0, 0, 0);
                return;
            }
            if (k == 0)
                continue;
            if (lo != hi) {
                ERR(S, r->pos, "'%s' is a block of states; name one, e.g. %s[%d]", r->name,
                    r->name, find_block(S, group_of(S, a), r->name)->vals[0]);
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
            ERR(S, r->pos, "automaton '%s' has no state '%s'%s", S->m->aut[ctx_aut].name, r->name,
                suggest_state(S, r->name, ctx_aut, ctx_aut));
            xb_emit(b, X_CONST, 0, 0, 0);
            return;
        }
    }
    if (find_group(S, r->name))
        ERR(S, r->pos, "'%s' is an automaton, not a value; write 'st %s'", r->name, r->name);
    else if (event_declared(S, r->name))
        ERR(S, r->pos, "'%s' is an event, not a value", r->name);
    else if (!r->index && index_var_owner(S, r->name, &(ast_pos){ 0, 0 }))
        ERR(S, r->pos, "'%s' is the index variable of '%s'; it has a value only inside that "
            "declaration (in an event index e[%s] or a routing probability of a replicated "
            "automaton, or in the rate of a replicated event)", r->name, index_var_owner(S, r->name, &(ast_pos){ 0, 0 }),
            r->name);
    else
        ERR(S, r->pos, "unknown identifier '%s'%s", r->name, suggest_value(S, r->name, ctx_aut));
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

/* Does the final event name n belong to thr()'s key (k bytes: "e",
 * "e[3]", or "e[" for e[*])?  Its event part is what precedes '@'
 * (copies of a local event in replicas are named "e@P[1]").  *at:
 * where that '@' is, or NULL. */
static int thr_match(const char *n, const char *key, size_t k, int all, const char **at)
{
    *at = strchr(n, '@');
    size_t len = *at ? (size_t)(*at - n) : strlen(n);
    return (all ? len > k : len == k) && !strncmp(n, key, k);
}

/* Why thr() named no event (nothing compiled): the most specific
 * reason the model's names give. */
static void thr_unmatched(sema *S, const ast_expr *e, int idx, int at, int family, int named)
{
    const ast_ref *r = &e->ref;
    if (named)
        ERR(S, e->thr_at.pos, "event '%s' has no copy of its own in automaton '%s' "
            "(a local event of a replicated automaton has one per replica)",
            r->name, S->m->aut[at].name);
    else if (!event_declared(S, r->name) && find_ident(S, r->name))
        ERR(S, r->pos, "thr(%s): '%s' is an identifier, not an event", r->name, r->name);
    else if (!event_declared(S, r->name) && find_group(S, r->name))
        ERR(S, r->pos, "thr(%s): '%s' is an automaton, not an event", r->name, r->name);
    else if (!event_declared(S, r->name))
        ERR(S, r->pos, "thr(%s): unknown event '%s'%s", r->name, r->name,
            suggest_event(S, r->name));
    else if (e->thr_all || (r->index && !family))
        ERR(S, r->pos, "thr(): event '%s' is not replicated; write thr(%s)", r->name, r->name);
    else if (r->index)
        ERR(S, r->pos, "thr(): event '%s' has no index %d", r->name, idx);
    else
        ERR(S, r->pos, "thr(): event '%s' is replicated; name one, thr(%s[i]), or sum them "
            "all with thr(%s[*])", r->name, r->name, r->name);
}

/* thr(e): the sum of the throughputs of the final events it names,
 * matched on their names as the report prints them, so that e[*]
 * covers whatever expanded e into e[0], e[1], ... and e their copies
 * e@P[0], e@P[1], ...  Results only: the value comes from the
 * solution, after every expectation (solver/analysis/indices.c). */
static void compile_thr(sema *S, xbuild *b, const ast_expr *e)
{
    const ast_ref *r = &e->ref;
    int idx = 0, at = -1;
    if (!S->in_results)
        ERR(S, e->pos, "thr(%s): a throughput is a value of the solution; it may appear in "
            "results only", r->name);
    else if (!S->m || !S->m->ev)
        ERR(S, e->pos, "thr(%s): no events here", r->name);
    else if ((r->index && const_int(S, r->index, &idx, "an event index") < 0) ||
             (e->thr_at.name && (at = resolve_aut(S, &e->thr_at)) < 0))
        ;                       /* reported */
    else {
        char key[1100];         /* identifiers have at most 1000 bytes */
        char *p = key + strlen(strcpy(key, r->name));
        if (r->index || e->thr_all)
            *p++ = '[';
        if (r->index) {
            p = put_int(p, idx);
            *p++ = ']';
        }
        *p = 0;
        const size_t k = (size_t)(p - key), nlen = strlen(r->name);
        const san_model *m = S->m;
        int off = b->e->nitab, cnt = 0, named = 0, family = 0;
        for (int v = 0; v < m->nev; v++) {
            const char *c;
            family |= !strncmp(m->ev[v].name, r->name, nlen) && m->ev[v].name[nlen] == '[';
            if (!thr_match(m->ev[v].name, key, k, e->thr_all, &c))
                continue;
            named++;
            /* e@A: A's own copy, or the event itself when A alone fires it */
            if (at >= 0 && !(m->ev[v].nparts == 1 && m->ev[v].parts[0] == at))
                continue;
            xb_itab(b, v);
            cnt++;
        }
        if (cnt > 0) {
            xb_emit(b, X_THR, off, cnt, 0);
            return;
        }
        thr_unmatched(S, e, idx, at, family, named);
    }
    xb_emit(b, X_CONST, 0, 0, 0);
}

static void compile(sema *S, xbuild *b, const ast_expr *e, int ctx_aut);

/* floor, ceil, mod, pow (their arity was checked by the parser; a
 * wrong count compiles to 0).  A divisor of mod that folds to 0 is an
 * error here, whatever the dividend: mod(a, 0) is NaN in every state. */
static void compile_fn(sema *S, xbuild *b, const ast_expr *e)
{
    static const xop code[FN_COUNT] = {
        [FN_FLOOR] = X_FLOOR, [FN_CEIL] = X_CEIL, [FN_MOD] = X_MOD, [FN_POW] = X_POW,
    };
    if (e->nargs != ast_fn_arity(e->fn)) {
        xb_emit(b, X_CONST, 0, 0, 0);
        return;
    }
    for (int k = 0; k < e->nargs; k++)
        compile(S, b, e->args[k], -1);
    const xins *last = &b->e->code[b->e->ncode - 1];
    if (e->fn == FN_MOD && last->op == X_CONST && last->v == 0)
        ERR(S, e->pos, "mod(...): the divisor is 0 (mod(a, 0) is not a number)");
    xb_emit(b, code[e->fn], 0, 0, 0);
    xb_fold(b, NULL);
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
    case AE_FN:
        compile_fn(S, b, e);
        return;
    case AE_THR:
        compile_thr(S, b, e);
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
    case AE_MIN: case AE_MAX: case AE_FN:
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
    case AE_FN:
        if (x->fn != y->fn)
            return 0;
        /* fall through */
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
 * set (deterministic, so warnings do not come and go between runs) over
 * the automata the expressions read (deps, n), the others left at 0: a
 * sample of the whole network cost 4096 times its size per warning. */
static int sample_state(const san_model *m, int k, const int *deps, int n, int *s)
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
    for (int i = 0; i < n; i++) {
        int a = deps[i];
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        s[a] = (int)(x % (uint64_t)m->aut[a].nstates);
    }
    return 1;
}

/* The automata x or y reads, ascending, each once (malloc'd into *out). */
static int union_deps(sema *S, const san_expr *x, const san_expr *y, int **out)
{
    int *u = xcalloc(S, (size_t)x->ndeps + y->ndeps + 1, sizeof *u);
    int i = 0, j = 0, n = 0;
    while (i < x->ndeps || j < y->ndeps) {
        int v = j >= y->ndeps || (i < x->ndeps && x->deps[i] <= y->deps[j]) ? x->deps[i] : y->deps[j];
        i += i < x->ndeps && x->deps[i] == v;
        j += j < y->ndeps && y->deps[j] == v;
        u[n++] = v;
    }
    *out = u;
    return n;
}

static int same_value(double x, double y)
{
    return x == y || (isnan(x) && isnan(y)) || fabs(x - y) <= 1e-12 * fmax(fabs(x), fabs(y));
}

/* Can PEPS read e otherwise?  Only where two operators meet without
 * parentheses between them (a binary operation with another as an
 * unparenthesized operand); elsewhere its reading is e's, and the copy
 * peps_reading makes, kept in the syntax tree's arena, was a tenth of
 * the memory of checking 3 10^4 automata, a third of 10^5 constants
 * each defined from the one before. */
static int has_chain(const ast_expr *e)
{
    switch (e->kind) {
    case AE_BIN:
        if ((e->a->kind == AE_BIN && !e->a->paren) || (e->b->kind == AE_BIN && !e->b->paren))
            return 1;
        return has_chain(e->a) || has_chain(e->b);
    case AE_NEG: case AE_NOT:
        return has_chain(e->a);
    case AE_MIN: case AE_MAX: case AE_FN:
        for (int k = 0; k < e->nargs; k++)
            if (has_chain(e->args[k]))
                return 1;
        return 0;
    default:
        return 0;
    }
}

void check_peps(sema *S, const ast_expr *e, const char *what)
{
    if (!S->opt || !S->opt->peps_warnings || !e || !has_chain(e))
        return;
    ast_expr *alt = peps_reading(S->f, e);
    if (same_tree(e, alt))
        return;
    int q = S->quiet;
    S->quiet = 1;
    int nerr = S->d->nerrors;
    san_expr *x = compile_one(S, e, -1, NULL);
    int hx = hold(S, x, 1);     /* the allocations below may fail */
    san_expr *y = compile_one(S, alt, -1, NULL);
    hold(S, y, 1);
    S->quiet = q;
    if (x && y && S->d->nerrors == nerr) {
        int *deps, ndeps = union_deps(S, x, y, &deps);
        hold(S, deps, 0);
        int *s = xcalloc(S, S->m->naut + 1, sizeof *s);
        release(S, hx);
        for (int k = 0; sample_state(S->m, k, deps, ndeps, s); k++) {
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
        free(deps);
    }
    release(S, hx);
    lang_expr_free(x);
    lang_expr_free(y);
}
