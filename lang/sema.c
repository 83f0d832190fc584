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
 * This file builds the model (phases 2 to 6); names and expressions, and
 * phase 1, are in sema_expr.c.
 */
#include "lang/sema_int.h"
#include "lang/model_int.h"

/* ---------------------------------------------------------------- */
/* Phase 2: automata and states                                       */
/* ---------------------------------------------------------------- */

static void layout_group(sema *S, s_group *G)
{
    const ast_aut *A = G->ast;
    G->blocks = xcalloc(S, A->nstates, sizeof *G->blocks);
    for (int i = 0; i < A->nstates; i++) {
        const ast_state *st = &A->states[i];
        if (st->is_from)
            continue;
        if (find_block(S, G, st->name)) {
            ERR(S, st->pos, "duplicate state '%s' in automaton '%s'", st->name, A->name);
            continue;
        }
        s_block *B = &G->blocks[G->nblocks];
        B->ast = st;
        B->first = G->nstates;
        B->n = 1;
        check_index_var(S, st->dom, "state block");
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
        add_block_name(S, G, G->nblocks++);
    }
    if (G->nstates == 0)
        ERR(S, A->pos, "automaton '%s' has no states", A->name);
}

static void build_automata(sema *S)
{
    ast_file *f = S->f;
    san_model *m = S->m;
    S->groups = xcalloc(S, f->nauts, sizeof *S->groups);
    int naut = 0;
    for (int i = 0; i < f->nauts; i++) {
        const ast_aut *A = &f->auts[i];
        if (!A->name)
            continue;
        tick(S, "automata", i, f->nauts);
        if (find_group(S, A->name)) {
            ERR(S, A->pos, "duplicate automaton '%s'", A->name);
            continue;
        }
        s_group *G = &S->groups[S->ngroups];
        G->ast = A;
        G->n = 1;
        check_index_var(S, A->dom, "automaton");
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
        symtab_add(&S->group_names, A->name, 0, S->ngroups++);
    }
    m->naut = naut;
    m->aut = xcalloc(S, naut, sizeof *m->aut);
    for (int g = 0; g < S->ngroups; g++) {
        s_group *G = &S->groups[g];
        for (int r = 0; r < G->n; r++) {
            tick(S, "automata", G->first + r, naut);
            lang_automaton *a = &m->aut[G->first + r];
            a->name = G->vals ? indexed_name(S, G->ast->name, G->vals[r]) : xstrdup(S, G->ast->name);
            a->nstates = G->nstates;
            a->states = xcalloc(S, G->nstates, sizeof *a->states);
            a->reward = xcalloc(S, G->nstates, sizeof *a->reward);
            for (int bl = 0; bl < G->nblocks; bl++) {
                s_block *B = &G->blocks[bl];
                for (int p = 0; p < B->n; p++)
                    a->states[B->first + p] = B->is_block ? indexed_name(S, B->ast->name, B->vals[p])
                                                          : xstrdup(S, B->ast->name);
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
            lang_expr_free(x);
        }
    }
}

/* ---------------------------------------------------------------- */
/* Phase 3: events                                                    */
/* ---------------------------------------------------------------- */

static void declare_events(sema *S)
{
    ast_file *f = S->f;
    int cap = 0;
    for (int i = 0; i < f->nevents; i++) {
        const ast_event *E = &f->events[i];
        tick(S, "events", i, f->nevents);
        int first = symtab_add(&S->event_names, E->name, 0, i);
        if (first >= 0) {
            ERR(S, E->pos, "duplicate event '%s' (first declared at line %d)",
                E->name, f->events[first].pos.line);
            continue;
        }
        int *vals = NULL, n = 1;
        check_index_var(S, E->dom, "event");
        if (E->dom && eval_domain(S, E->dom, &vals, &n) < 0)
            continue;
        int h = hold(S, vals, 0);   /* the loop allocates */
        for (int k = 0; k < n; k++) {
            if (S->nevs == cap) {
                cap = cap ? 2 * cap : 16;
                S->evs = xrealloc(S, S->evs, cap * sizeof *S->evs);
            }
            s_event *ev = &S->evs[S->nevs++];
            memset(ev, 0, sizeof *ev);
            ev->ast = E;
            ev->base = i;
            ev->has_index = vals != NULL;
            ev->index = vals ? vals[k] : 0;
            ev->name = vals ? indexed_name(S, E->name, vals[k]) : xstrdup(S, E->name);
            symtab_add(&S->event_keys, E->name, vals ? vals[k] : NO_INDEX, S->nevs - 1);
        }
        release(S, h);
        free(vals);
    }
}

/* Automaton a uses ev.  A repeat of the last one is dropped here, the
 * others by finish_events (a scan for them made 10^5 replicas of one
 * automaton quadratic: 45% of the time of checking them). */
static void add_user(sema *S, s_event *ev, int a)
{
    if (ev->nusers > 0 && ev->users[ev->nusers - 1] == a)
        return;
    if (ev->nusers == ev->capusers) {
        ev->capusers = ev->capusers ? 2 * ev->capusers : 4;
        ev->users = xrealloc(S, ev->users, ev->capusers * sizeof *ev->users);
    }
    ev->users[ev->nusers++] = a;
}

/* Sorted, each automaton once. */
static void unique_users(s_event *ev)
{
    if (ev->nusers < 2)
        return;
    qsort(ev->users, ev->nusers, sizeof *ev->users, cmp_int);
    int n = 1;
    for (int k = 1; k < ev->nusers; k++)
        if (ev->users[k] != ev->users[n - 1])
            ev->users[n++] = ev->users[k];
    ev->nusers = n;
}

/* Position of automaton a among ev's (sorted) users, or -1. */
static int user_pos(const s_event *ev, int a)
{
    int lo = 0, hi = ev->nusers - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (ev->users[mid] == a)
            return mid;
        if (ev->users[mid] < a)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* ---------------------------------------------------------------- */
/* Phase 4: transitions                                               */
/* ---------------------------------------------------------------- */

static void add_trans(sema *S, int aut, int from, int ev, int to, san_expr *prob, ast_pos pos)
{
    if (S->ntr == S->captr) {
        S->captr = S->captr ? 2 * S->captr : 256;
        S->tr = xrealloc(S, S->tr, S->captr * sizeof *S->tr);
    }
    s_trans *t = &S->tr[S->ntr++];
    t->aut = aut;
    t->from = from;
    t->ev = ev;
    t->to = to;
    t->prob = prob;
    t->pos = pos;
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
            ERR(S, t->dst.pos, "automaton '%s' has no state '%s'%s", G->ast->name, t->dst.name,
                suggest_group_state(S, t->dst.name, G));
            return -1;
        }
        if (k < 0)
            return -1;
        if (lo != hi) {
            ERR(S, t->dst.pos, "'%s' is a block of states; name one, e.g. %s[%d]",
                t->dst.name, t->dst.name, find_block(S, G, t->dst.name)->vals[0]);
            return -1;
        }
        return lo;
    }
    case DST_BY:            /* expand_by's */
    case DST_AT:
        break;
    }
    return -1;
}

/* The routing probability of a label, compiled once for every position
 * (and for every replica when it reads the index variable of aut C[i:N]:
 * replica C[v] reads i = v; see label_probs); NULL without one.  *bad
 * when it does not compile. */
static san_expr *label_prob(sema *S, const ast_label *lab, int *bad)
{
    *bad = 0;
    if (!lab->prob)
        return NULL;
    san_expr *prob = compile_one(S, lab->prob, -1, NULL);
    if (!prob) {
        *bad = 1;
        return NULL;
    }
    pool_add(S, prob);
    if (prob->is_const && (!(prob->value >= 0) || !isfinite(prob->value) || prob->value > 1))
    {
        if (S->bind_name)
            ERR(S, lab->prob->pos, "routing probability %g is not in [0, 1] (where %s = %d)",
                prob->value, S->bind_name, S->bind_val);
        else
            ERR(S, lab->prob->pos, "routing probability %g is not in [0, 1]", prob->value);
    }
    return prob;
}

/* The probabilities of a label for the replicas of G: probs[r] for
 * replica r (all the same one unless the label reads G's index
 * variable, when each is compiled with it bound to the replica's value,
 * its errors reported for the first replica that has one).  0, or -1
 * (reported).  probs has G->n entries, on the held stack. */
static int label_probs(sema *S, s_group *G, const ast_label *lab, san_expr **probs)
{
    const char *var = G->ast->dom ? G->ast->dom->var : NULL;
    const int bind = var && lab->prob && ast_uses_name(lab->prob, var);
    int bad = 0;
    if (lab->prob) {            /* the values it shows: the first replica's */
        S->bind_name = bind ? var : NULL;
        S->bind_val = bind ? G->vals[0] : 0;
        check_peps(S, lab->prob, "routing probability");
        S->bind_name = NULL;
    }
    if (!bind) {
        probs[0] = label_prob(S, lab, &bad);
        for (int r = 1; r < G->n; r++)
            probs[r] = probs[0];
        return bad ? -1 : 0;
    }
    const int nerr = S->d->nerrors;
    for (int r = 0; r < G->n && !bad && S->d->nerrors == nerr; r++) {
        S->bind_name = var;
        S->bind_val = G->vals[r];
        probs[r] = label_prob(S, lab, &bad);
        S->bind_name = NULL;
    }
    return bad || S->d->nerrors != nerr ? -1 : 0;
}

static void expand_by(sema *S, s_group *G, const s_block *B, const ast_to *to,
                      const ast_label *lab, int p0, int p1);

/* The transitions of one label from position from to dst in every replica
 * of G, over the events it names (one per replica, or the same n for
 * all), each replica with its own probability. */
static void add_label_trans(sema *S, const s_group *G, const s_targets *t, int from, int dst,
                            san_expr **prob, ast_pos pos)
{
    for (int r = 0; r < G->n; r++) {
        if (t->per_replica)
            add_trans(S, G->first + r, from, (int)(t->ev[r] - S->evs), dst, prob[r], pos);
        else
            for (int k = 0; k < t->n; k++)
                add_trans(S, G->first + r, from, (int)(t->ev[k] - S->evs), dst, prob[r], pos);
    }
}

/* Every replica of G uses the events the label names. */
static void add_label_users(sema *S, const s_group *G, const s_targets *t)
{
    for (int r = 0; r < G->n; r++) {
        if (t->per_replica)
            add_user(S, t->ev[r], G->first + r);
        else
            for (int k = 0; k < t->n; k++)
                add_user(S, t->ev[k], G->first + r);
    }
}

/* One label of a `to` clause, from positions [p0, p1] of block B, in
 * every replica of G: the events it names (repl.c) may be one for all,
 * several (e[N]) or one per replica (e[i]). */
static void expand_label(sema *S, s_group *G, const s_block *B, const ast_to *to,
                         const ast_label *lab, int p0, int p1)
{
    if (to->kind == DST_BY || to->kind == DST_AT) {
        expand_by(S, G, B, to, lab, p0, p1);
        return;
    }
    /* the event first, then the probability: both report their errors */
    s_targets t;
    int found = label_targets(S, G, &lab->ev, &t) == 0;
    san_expr **prob = xcalloc(S, G->n, sizeof *prob);
    int held = hold(S, prob, 0);
    int bad = label_probs(S, G, lab, prob) < 0;
    if (!found || bad) {
        release(S, held);
        free(prob);
        release(S, t.held);
        free(t.ev);
        return;
    }
    int warned = 0, added = 0;
    for (int p = p0; p <= p1; p++) {
        int dropped, dst = destination(S, G, B, p, to, &dropped);
        if (dropped)
            continue;
        if (dst < 0)
            break;
        if (dst == B->first + p && !t.ev[0]->ast->sync && !warned) {
            WARN(S, to->pos, "local self-loop on event '%s' has no effect on the chain",
                 t.ev[0]->name);
            warned = 1;
        }
        add_label_trans(S, G, &t, B->first + p, dst, prob, lab->ev.pos);
        added = 1;
    }
    if (added)
        add_label_users(S, G, &t);
    release(S, held);
    free(prob);
    release(S, t.held);
    free(t.ev);
}

/* ---- destinations by an expression: to(+e), to(-e), to(=e) ---- */

/* (e == v) * prob, built as syntax so that it compiles like any routing
 * probability (replica binding, checks, PEPS warnings included). */
static ast_expr *amount_is(sema *S, const ast_expr *e, double v, ast_expr *prob)
{
    ast_expr *num = ast_alloc(S->f, sizeof *num);
    num->kind = AE_NUM;
    num->num = v;
    num->pos = e->pos;
    ast_expr *eq = ast_alloc(S->f, sizeof *eq);
    eq->kind = AE_BIN;
    eq->op = OP_EQ;
    eq->a = (ast_expr *)e;
    eq->b = num;
    eq->pos = e->pos;
    eq->depth = e->depth + 1;
    if (!prob)
        return eq;
    ast_expr *mul = ast_alloc(S->f, sizeof *mul);
    mul->kind = AE_BIN;
    mul->op = OP_MUL;
    mul->a = eq;
    mul->b = prob;
    mul->pos = e->pos;
    mul->depth = 1 + (eq->depth > prob->depth ? eq->depth : prob->depth);
    return mul;
}

/* The values of a destination's expression worth an outcome: [*lo, *hi]
 * within [min, max] (the moves that can land in the block, or the
 * automaton's indices), narrowed by the expression's bounds over every
 * state (expr_range.c).  *constant: it reads no state (value in *lo).
 * -1 when it does not compile (reported). */
static int amount_values(sema *S, s_group *G, const ast_expr *e, int min, int max, int *lo,
                         int *hi, int *constant, double bounds[2])
{
    const char *var = G->ast->dom ? G->ast->dom->var : NULL;
    const int bind = var && ast_uses_name(e, var);
    S->bind_name = bind ? var : NULL;
    S->bind_val = bind ? G->vals[0] : 0;
    san_expr *x = compile_one(S, e, -1, NULL);
    S->bind_name = NULL;
    if (!x)
        return -1;
    int hx = hold(S, x, 1);
    *constant = x->is_const && !bind;
    bounds[0] = -INFINITY;
    bounds[1] = INFINITY;
    *lo = min;
    *hi = max;
    int naut = S->m->naut;
    int *alo = xcalloc(S, naut + 1, sizeof *alo), *ahi = xcalloc(S, naut + 1, sizeof *ahi);
    for (int a = 0; a < naut; a++)
        ahi[a] = S->m->aut[a].nstates - 1;
    /* a replicated group's copies differ by its index: no bounds then */
    if (!bind && lang_expr_range(x, alo, ahi, bounds)) {
        if (bounds[0] > *lo)
            *lo = bounds[0] > max ? max + 1 : (int)ceil(bounds[0]);
        if (bounds[1] < *hi)
            *hi = bounds[1] < min ? min - 1 : (int)floor(bounds[1]);
    }
    free(alo);
    free(ahi);
    release(S, hx);
    lang_expr_free(x);
    return 0;
}

/* A destination given by an expression is expanded here into ordinary
 * functional routing: from each position, one outcome per state the
 * expression can lead to, of probability (e == v) times the label's own.
 * So the sparse generator, the Kronecker descriptor and every check of
 * routing sums work unchanged (no storage evaluates a destination), and
 * a value that leads nowhere, off the block or not a whole number, leaves
 * the outcomes of that state summing to 0: an error with this clause's
 * position wherever the event fires (solver/space/succ.c), never a
 * silent loss of the event.  The outcomes are kept few by the
 * expression's bounds: x + y over y in 0..3 gives 4 per position. */
static void expand_by(sema *S, s_group *G, const s_block *B, const ast_to *to,
                      const ast_label *lab, int p0, int p1)
{
    const int at = to->kind == DST_AT;
    int lo, hi, constant;
    double bounds[2];
    /* a move from any position of the block lands in it for these values */
    int min = at ? 0 : -(B->n - 1), max = at ? G->nstates - 1 : B->n - 1;
    if (amount_values(S, G, to->amount, min, max, &lo, &hi, &constant, bounds) < 0)
        return;
    if (constant && !at) {
        /* to(+N), N a constant: the positional move of to(+4) */
        double v = bounds[0] * to->rel;
        if (!(fabs(v) <= 1e6) || v != floor(v)) {
            ERR(S, to->pos, "a relative destination needs a whole number of states "
                "(at most 10^6), not %g", v);
            return;
        }
        ast_to rel = *to;
        rel.kind = DST_REL;
        rel.rel = (int)v;
        expand_label(S, G, B, &rel, lab, p0, p1);
        return;
    }
    if (constant && (bounds[0] != floor(bounds[0]) || bounds[0] < 0 ||
                     bounds[0] > G->nstates - 1)) {
        ERR(S, to->pos, "to(=%g): automaton '%s' has the states 0 to %d", bounds[0],
            G->ast->name, G->nstates - 1);
        return;
    }
    /* the label's own probability, checked once (its errors, once) */
    s_targets t;
    int found = label_targets(S, G, &lab->ev, &t) == 0;
    san_expr **prob = xcalloc(S, G->n, sizeof *prob);
    int held = hold(S, prob, 0);
    if (!found || label_probs(S, G, lab, prob) < 0) {
        release(S, held);
        free(prob);
        release(S, t.held);
        free(t.ev);
        return;
    }
    int added = 0, q = S->quiet;
    char *landed = xcalloc(S, p1 - p0 + 1, 1);
    int hl = hold(S, landed, 0);
    for (int v = lo; v <= hi; v++) {
        ast_label one = { lab->ev, amount_is(S, to->amount, v, lab->prob) };
        S->quiet = 1;       /* reported above, once */
        int bad = label_probs(S, G, &one, prob) < 0;
        S->quiet = q;
        if (bad)
            break;
        for (int p = p0; p <= p1; p++) {
            int dst = at ? v : p + to->rel * v;
            if (at ? dst < 0 || dst >= G->nstates : dst < 0 || dst >= B->n)
                continue;
            if (!at)
                dst += B->first;
            landed[p - p0] = 1;
            add_label_trans(S, G, &t, B->first + p, dst, prob, lab->ev.pos);
            added = 1;
        }
    }
    /* From a position where no value lands (x - y - 1 from x = 0), a
     * self-loop of probability 0: without an outcome there the event
     * would be silently disabled; with it, the outcomes sum to 0, an
     * error where the event fires, none where it cannot (its guard). */
    ast_expr zero;
    memset(&zero, 0, sizeof zero);
    zero.kind = AE_NUM;
    zero.pos = to->amount->pos;
    ast_label none = { lab->ev, &zero };
    int compiled = 0;
    for (int p = p0; p <= p1; p++) {
        if (landed[p - p0])
            continue;
        if (!compiled++ && label_probs(S, G, &none, prob) < 0)
            break;
        add_label_trans(S, G, &t, B->first + p, B->first + p, prob, lab->ev.pos);
        added = 1;
    }
    if (added)
        add_label_users(S, G, &t);
    release(S, hl);
    free(landed);
    release(S, held);
    free(prob);
    release(S, t.held);
    free(t.ev);
}

/* Expand the `to` clauses of one stt/from block at positions [p0, p1]. */
static void expand_block(sema *S, s_group *G, const s_block *B, const ast_state *st, int p0, int p1)
{
    for (int t = 0; t < st->ntos; t++)
        for (int l = 0; l < st->tos[t].nlabels; l++)
            expand_label(S, G, B, &st->tos[t], &st->tos[t].labels[l], p0, p1);
}

static void build_transitions(sema *S)
{
    for (int g = 0; g < S->ngroups; g++) {
        s_group *G = &S->groups[g];
        tick(S, "transitions of automaton", G->first, S->m->naut);
        for (int i = 0; i < G->ast->nstates; i++) {
            const ast_state *st = &G->ast->states[i];
            if (!st->is_from) {
                s_block *B = find_block(S, G, st->name);
                if (B && B->ast == st)
                    expand_block(S, G, B, st, 0, B->n - 1);
                continue;
            }
            ast_ref r = { st->name, st->from_index, st->pos };
            int lo, hi, k = state_range(S, G->first, &r, &lo, &hi);
            if (k == 0) {
                ERR(S, st->pos, "automaton '%s' has no state '%s'%s", G->ast->name, st->name,
                    suggest_group_state(S, st->name, G));
                continue;
            }
            if (k < 0)
                continue;
            s_block *B = find_block(S, G, st->name);
            expand_block(S, G, B, st, lo - B->first, hi - B->first);
        }
    }
}

/* ---------------------------------------------------------------- */
/* Phase 5: final events                                              */
/* ---------------------------------------------------------------- */


static int cmp_range(const void *x, const void *y)
{
    const int *a = x, *b = y;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* Does the informational automaton list name exactly the users?  The
 * list names runs of automata (a replica, or all of a group); sorted
 * and merged, they must cover the users and nothing else: O(list +
 * users), where a mark per automaton cost the whole network per event. */
static int list_matches(sema *S, const s_event *ev)
{
    const ast_event *E = ev->ast;
    int q = S->quiet;
    S->quiet = 1;
    int (*run)[2] = xcalloc(S, E->nauts, sizeof *run);
    int h = hold(S, run, 0);
    int ok = 1, nrun = 0;
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
        run[nrun][0] = lo;
        run[nrun++][1] = hi;
    }
    if (ok && nrun > 1)
        qsort(run, nrun, sizeof *run, cmp_range);
    /* merge the runs, then walk them beside the sorted users */
    int m = 0;
    for (int k = 0; ok && k < nrun; k++) {
        if (m > 0 && run[k][0] <= run[m - 1][1] + 1) {
            if (run[k][1] > run[m - 1][1])
                run[m - 1][1] = run[k][1];
        } else {
            run[m][0] = run[k][0];
            run[m++][1] = run[k][1];
        }
    }
    long named = 0;
    for (int k = 0; ok && k < m; k++)
        named += run[k][1] - run[k][0] + 1;
    ok = ok && named == ev->nusers;
    for (int i = 0, k = 0; ok && i < ev->nusers; i++) {
        while (k < m && run[k][1] < ev->users[i])
            k++;
        ok = k < m && run[k][0] <= ev->users[i];
    }
    release(S, h);
    free(run);
    S->quiet = q;
    return ok;
}

static void finish_events(sema *S)
{
    san_model *m = S->m;
    int total = 0;
    for (int i = 0; i < S->nevs; i++) {
        s_event *ev = &S->evs[i];
        unique_users(ev);
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
    m->ev = xcalloc(S, total, sizeof *m->ev);
    for (int i = 0; i < S->nevs; i++) {
        s_event *ev = &S->evs[i];
        const ast_event *E = ev->ast;
        tick(S, "events", i, S->nevs);
        /* syn e[k:N] (mu * k): each event's rate at its own k (repl.c) */
        int first = i == 0 || S->evs[i - 1].ast != E, per_index = E->dom && E->dom->var;
        S->bind_name = per_index ? E->dom->var : NULL;
        S->bind_val = ev->index;
        int quiet = S->quiet;
        S->quiet |= !first;     /* its errors once, not once per index */
        san_expr *rate = compile_one(S, E->rate, -1, NULL);
        S->quiet = quiet;
        const char *which = per_index ? ev->name : E->name;
        if (rate) {
            pool_add(S, rate);
            if (first)
                check_peps(S, E->rate, "rate");
            if (first || per_index) {
                if (rate->is_const && isnan(rate->value) && E->rate->kind != AE_NUM)
                    ERR(S, E->rate->pos, "rate of event '%s' is not a number (division by zero?)", which);
                else if (rate->is_const && isinf(rate->value))
                    ERR(S, E->rate->pos, "rate of event '%s' is not finite (division by zero?)", which);
                else if (rate->is_const && rate->value < 0)
                    ERR(S, E->rate->pos, "rate of event '%s' is negative (%g)", which, rate->value);
            }
            S->bind_name = NULL;
        } else {
            S->bind_name = NULL;
            rate = pool_add(S, xb_constant(S->oom, 0));
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
            lang_event *out = &m->ev[m->nev++];
            out->sync = E->sync;
            out->rate = rate;
            out->line = E->pos.line;
            out->col = E->pos.col;
            if (copies) {
                out->name = copy_name(S, ev->name, m->aut[ev->users[k]].name);
                out->nparts = 1;
                out->parts = xcalloc(S, 1, sizeof *out->parts);
                out->parts[0] = ev->users[k];
            } else {
                out->name = xstrdup(S, ev->name);
                out->nparts = ev->nusers;
                out->parts = xcalloc(S, ev->nusers, sizeof *out->parts);
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
    int k = user_pos(ev, t->aut);
    return ev->first_final + (k < 0 ? 0 : k);
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

/* S->tr sorted by (automaton, from, event, to), stably: by automaton
 * with a counting sort, then each automaton's own by qsort (one qsort
 * of the 2 10^6 transitions of 10^6 replicas took 15% of their load). */
static void sort_transitions(sema *S)
{
    int naut = S->m->naut;
    int *start = xcalloc(S, naut + 2, sizeof *start);
    int h = hold(S, start, 0);
    s_trans *out = xcalloc(S, S->ntr, sizeof *out);
    release(S, h);
    for (int i = 0; i < S->ntr; i++)
        start[S->tr[i].aut + 2]++;
    for (int a = 0; a < naut; a++)
        start[a + 2] += start[a + 1];
    for (int i = 0; i < S->ntr; i++)
        out[start[S->tr[i].aut + 1]++] = S->tr[i];
    free(S->tr);
    S->tr = out;
    S->captr = S->ntr;
    for (int a = 0; a < naut; a++)
        if (start[a + 1] - start[a] > 1)
            qsort(out + start[a], start[a + 1] - start[a], sizeof *out, cmp_trans);
    free(start);
}

/* Per automaton, transitions sorted by (from, event, to) with an index
 * by source state: the layout the generator and descriptor read. */
static void store_transitions(sema *S)
{
    san_model *m = S->m;
    for (int i = 0; i < S->ntr; i++)
        S->tr[i].ev = final_event(S, &S->tr[i]);
    sort_transitions(S);
    int i = 0;
    for (int a = 0; a < m->naut; a++) {
        lang_automaton *A = &m->aut[a];
        int j = i;
        while (j < S->ntr && S->tr[j].aut == a)
            j++;
        A->ntr = j - i;
        A->tr = xcalloc(S, A->ntr, sizeof *A->tr);
        A->first = xcalloc(S, A->nstates + 1, sizeof *A->first);
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
 * has one when there are several.  Whether they sum to 1 is checked
 * where the event fires, in the reachable states (solver/space/succ.c),
 * constant ones too: at the end of a block, where a `to(++)` is dropped,
 * the sum is short of 1 but the event may never fire there (PEPS models
 * write `stt d[L] to(++) e(p) to(=) e(1-p)` and block e at d[L]). */
static void check_routing(sema *S)
{
    for (int i = 0; i < S->ntr;) {
        int j = i, omitted = 0;
        while (j < S->ntr && S->tr[j].aut == S->tr[i].aut && S->tr[j].from == S->tr[i].from &&
               S->tr[j].ev == S->tr[i].ev) {
            omitted += !S->tr[j].prob;
            j++;
        }
        const lang_automaton *A = &S->m->aut[S->tr[i].aut];
        const char *ev = S->m->ev[S->tr[i].ev].name;
        if (j - i > 1 && omitted)
            ERR(S, S->tr[i].pos, "event '%s' has %d outcomes from state '%s' of '%s'; "
                "each needs a routing probability", ev, j - i, A->states[S->tr[i].from], A->name);
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
        tick(S, "identifiers", i, S->nids);
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
    S->m->reach = pool_add(S, x);
    S->m->partial = f->partial;
    check_peps(S, f->reach, "reachability");
}

static void compile_results(sema *S)
{
    ast_file *f = S->f;
    san_model *m = S->m;
    m->res = xcalloc(S, f->nresults, sizeof *m->res);
    S->in_results = 1;          /* thr() allowed, in check_peps's compilations too */
    for (int r = 0; r < f->nresults; r++) {
        const ast_result *R = &f->results[r];
        tick(S, "results", r, f->nresults);
        if (symtab_add(&S->result_names, R->name, 0, r) >= 0) {
            ERR(S, R->pos, "duplicate result '%s'", R->name);
            continue;
        }
        S->cur_result = r;
        san_expr *x = compile_one(S, R->expr, -1, NULL);
        S->cur_result = 0;
        if (!x)
            continue;
        pool_add(S, x);
        if (x->reads_results && x->ndeps > 0) {
            /* an expectation and a value of the solution in one
             * expression: which distribution would weigh the state? */
            if (x->reads_thr)
                ERR(S, R->expr->pos, "result '%s' mixes thr() with the state; a result with "
                    "thr() reads results and throughputs only: make the state's part a result "
                    "of its own (L = st A; R = L / thr(e);)", R->name);
            else
                ERR(S, R->expr->pos, "result '%s' mixes other results with the state; "
                    "a derived result reads results only", R->name);
            continue;
        }
        check_peps(S, R->expr, "result");
        lang_result *out = &m->res[m->nres++];
        out->name = xstrdup(S, R->name);
        out->expr = x;
        out->derived = x->reads_results;
    }
    S->in_results = 0;
}

/* The product space's size as text: exact up to this many digits, in
 * scientific notation beyond: every message that names it stays one
 * line (a 9,000-digit size was printed in full in an error), and the
 * exact product of 10^6 two-state automata, 301,030 digits, was a pass
 * over its 33,000 limbs per automaton. */
#define PRODUCT_EXACT_DIGITS 40

/* base 10^9 limbs, least significant first; the digits they hold */
typedef struct {
    uint32_t limb[PRODUCT_EXACT_DIGITS / 9 + 2];
    int n;
} exact_num;

static int exact_digits(const exact_num *x)
{
    int d = 9 * (x->n - 1);
    for (uint32_t v = x->limb[x->n - 1]; v; v /= 10)
        d++;
    return d > 0 ? d : 1;
}

/* x *= k; 0, or -1 (x unchanged in what matters: it is given up) once
 * x has more than PRODUCT_EXACT_DIGITS digits. */
static int exact_mul(exact_num *x, uint32_t k)
{
    uint64_t carry = 0;
    for (int i = 0; i < x->n; i++) {
        uint64_t v = (uint64_t)x->limb[i] * k + carry;
        x->limb[i] = v % 1000000000u;
        carry = v / 1000000000u;
    }
    while (carry) {
        if (x->n == (int)(sizeof x->limb / sizeof x->limb[0]))
            return -1;
        x->limb[x->n++] = carry % 1000000000u;
        carry /= 1000000000u;
    }
    return exact_digits(x) > PRODUCT_EXACT_DIGITS ? -1 : 0;
}

/* "1.07151e+301029": a mantissa times 2^e2 in decimal, six digits */
static char *scientific(sema *S, double mant, int64_t e2)
{
    double l = (double)e2 * log10(2.0) + log10(mant);
    double e10 = floor(l);
    char m[32];
    snprintf(m, sizeof m, "%.5f", pow(10, l - e10));
    if (m[0] == '1' && m[1] == '0') {      /* 9.999996 rounded up */
        snprintf(m, sizeof m, "%.5f", 1.0);
        e10 += 1;
    }
    char *t = xcalloc(S, 64, 1);
    snprintf(t, 64, "%se+%.0f", m, e10);
    return t;
}

/* The product of the automata sizes: the strides, whether it fits in
 * 64 bits, its logarithm, its text. */
static void product_size(sema *S)
{
    san_model *m = S->m;
    exact_num x = { { 1 }, 1 };
    int exact = 1;
    double mant = 1;            /* the product is mant * 2^e2, 1 <= mant < 2 */
    int64_t e2 = 0;
    m->product_fits = 1;
    m->product = 1;
    m->stride = xcalloc(S, m->naut + 1, sizeof *m->stride);
    for (int a = m->naut - 1; a >= 0; a--) {
        int64_t ns = m->aut[a].nstates;
        m->stride[a] = m->product_fits ? m->product : 0;
        if (m->product_fits && m->product > INT64_MAX / ns)
            m->product_fits = 0;
        else if (m->product_fits)
            m->product *= ns;
        if (exact && exact_mul(&x, (uint32_t)ns) < 0)
            exact = 0;
        int e;
        mant = 2 * frexp(mant * (double)ns, &e);
        e2 += e - 1;
    }
    m->product_log10 = (double)e2 * log10(2.0) + log10(mant);
    if (!exact) {
        m->product_str = scientific(S, mant, e2);
        return;
    }
    m->product_str = xcalloc(S, (size_t)x.n * 9 + 2, 1);
    char *p = m->product_str;
    p += sprintf(p, "%u", x.limb[x.n - 1]);
    for (int k = x.n - 2; k >= 0; k--)
        p += sprintf(p, "%09u", x.limb[k]);
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
        for (int b = 0; b < S->groups[g].nblocks; b++) {
            free(S->groups[g].blocks[b].vals);
            free(S->groups[g].blocks[b].by_value);
        }
        free(S->groups[g].blocks);
        free(S->groups[g].vals);
        free(S->groups[g].by_value);
    }
    free(S->groups);
    for (int i = 0; i < S->nevs; i++) {
        free(S->evs[i].name);
        free(S->evs[i].users);
    }
    free(S->evs);
    free(S->tr);
    symtab_free(&S->id_names);
    symtab_free(&S->group_names);
    symtab_free(&S->block_names);
    symtab_free(&S->event_names);
    symtab_free(&S->event_keys);
    symtab_free(&S->result_names);
    free(S->ref);
    free(S->ref_start);
    free(S->ref_to);
    free(S->dfs);
    free(S->scc);
    free(S->order);
}

static void export_identifiers(sema *S)
{
    san_model *m = S->m;
    m->id = xcalloc(S, S->nids, sizeof *m->id);
    for (int i = 0; i < S->nids; i++) {
        s_ident *id = &S->ids[i];
        lang_ident *out = &m->id[m->nid++];
        out->name = xstrdup(S, id->ast->name);
        out->is_domain = id->is_dom;
        out->is_function = id->is_func;
        out->overridden = id->overridden;
        out->value = id->value;
        if (id->is_func && !id->bad)
            out->expr = id->fn;
    }
}

/* Out of memory in the middle of the pass (oom.h): what it built goes. */
static void sema_abandon(void *ctx)
{
    sema *S = ctx;
    /* the group being laid out, not counted yet (build_automata) */
    if (S->groups && S->ngroups < S->f->nauts) {
        s_group *G = &S->groups[S->ngroups];
        for (int b = 0; G->blocks && G->ast && b < G->ast->nstates; b++) {
            free(G->blocks[b].vals);    /* calloc'd: unused ones are NULL */
            free(G->blocks[b].by_value);
        }
        free(G->blocks);
        free(G->vals);
        free(G->by_value);
    }
    for (int i = S->nheld - 1; i >= 0; i--)
        if (S->held[i].expr)
            lang_expr_free(S->held[i].p);
        else
            free(S->held[i].p);
    sema_free(S);
    san_model_free(S->model);
    free(S);
}

/* The tables start empty; their allocations go to the recovery point. */
static void sema_tables_init(sema *S)
{
    symtab_init(&S->id_names, S->oom);
    symtab_init(&S->group_names, S->oom);
    symtab_init(&S->block_names, S->oom);
    symtab_init(&S->event_names, S->oom);
    symtab_init(&S->event_keys, S->oom);
    symtab_init(&S->result_names, S->oom);
}

/* Functions of few automata become table lookups: the solvers evaluate
 * rates and probabilities once per state and event.  One state vector
 * serves every expression (a vector each cost the whole network per
 * expression). */
static void tabulate(sema *S)
{
    san_model *m = S->m;
    int *scratch = xcalloc(S, m->naut + 1, sizeof *scratch);
    int h = hold(S, scratch, 0);
    for (int k = 0; k < m->npool; k++) {
        tick(S, "expressions", k, m->npool);
        lang_expr_tabulate(m->pool[k], m, 1 << 18, scratch);
    }
    release(S, h);
    free(scratch);
}

san_model *sema_run(ast_file *f, san_diag *d, const san_load_opts *opt, base_progress *progress)
{
    /* on the heap: an allocation failure leaves this frame for the
     * load's, whose cleanup (sema_abandon) still needs it */
    sema *S = lang_calloc(f->oom, 1, sizeof *S);
    S->f = f;
    S->d = d;
    S->opt = opt;
    S->oom = f->oom;
    S->progress = progress;
    sema_tables_init(S);
    f->oom->cleanup = sema_abandon;
    f->oom->ctx = S;
    san_model *m = S->model = xcalloc(S, 1, sizeof *m);
    m->name = xstrdup(S, f->net_name ? f->net_name : "unnamed");

    begin_phase(S, "blocks");
    check_blocks(S);
    begin_phase(S, "identifiers");
    collect_identifiers(S);
    begin_phase(S, "events");
    declare_events(S);
    S->m = m;
    begin_phase(S, "automata");
    build_automata(S);
    product_size(S);
    begin_phase(S, "rewards");
    compile_rewards(S);
    begin_phase(S, "identifiers");
    check_identifiers(S);
    begin_phase(S, "transitions");
    build_transitions(S);
    begin_phase(S, "events");
    finish_events(S);
    store_transitions(S);
    begin_phase(S, "routing");
    check_routing(S);
    begin_phase(S, "reachability");
    compile_reach(S);
    begin_phase(S, "results");
    compile_results(S);
    export_identifiers(S);
    if (d->nerrors == 0)
        tabulate(S);
    f->oom->cleanup = NULL;
    sema_free(S);
    free(S);
    if (d->nerrors) {
        san_model_free(m);
        return NULL;
    }
    return m;
}
