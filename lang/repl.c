/*
 * repl.c - replicated events: which declared events a transition label
 * names (extension; san(5), "Replicated events").
 *
 *   syn e[N] (rate)          one event per value of N: e[1], e[2], ...
 *   syn e[k:N] (mu * k)      the same, each with its own rate
 *   aut C[i:N]               replicas C[v], with i = v inside the block
 *     ... to(s) e[i]         replica C[v] takes part in e[v] only
 *   aut Server ... to(s) e[N]  one transition per index: e[1], e[2], ...
 *
 * Everything is expanded here, into the events and transitions the rest
 * of the pipeline already knows: the compiled model is the one the
 * expanded text gives, event for event and name for name.
 */
#include "lang/sema_int.h"
#include "lang/model_int.h"

s_event *find_event(sema *S, const char *name, int has_index, int index)
{
    int i = symtab_find(&S->event_keys, name, has_index ? index : NO_INDEX);
    return i < 0 ? NULL : &S->evs[i];
}

/* Why r, which no event declaration has, names no event. */
static void not_an_event(sema *S, const ast_ref *r)
{
    if (find_ident(S, r->name))
        ERR(S, r->pos, "'%s' is an identifier, not an event", r->name);
    else if (find_group(S, r->name))
        ERR(S, r->pos, "'%s' is an automaton, not an event", r->name);
    else
        ERR(S, r->pos, "unknown event '%s'%s", r->name, suggest_event(S, r->name));
}

/* The event a label names with a constant index (or none), or NULL
 * (reported). */
s_event *label_event(sema *S, const ast_ref *r)
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
        ERR(S, r->pos, "event '%s' is replicated; name one, e.g. %s[i] inside aut C[i:N], "
            "or all of them with its domain", r->name, r->name);
    else
        not_an_event(S, r);
    return NULL;
}

/* Room for n events, on the held stack until the caller releases it. */
static void targets_alloc(sema *S, s_targets *t, int n)
{
    t->ev = xcalloc(S, n, sizeof *t->ev);
    t->held = hold(S, t->ev, 0);
}

/* e[i] in aut C[i:N]: replica C[v] names e[value of the index at i = v].
 * A value the event lacks is the automaton's and the event's domains
 * disagreeing: reported once, at the index. */
static int replica_targets(sema *S, s_group *G, const ast_ref *r, s_targets *t)
{
    const char *var = G->ast->dom->var;
    if (!event_declared(S, r->name)) {
        not_an_event(S, r);
        return -1;
    }
    if (find_event(S, r->name, 0, 0)) {
        ERR(S, r->index->pos, "event '%s' is not replicated; declare it %s[%s] to give each "
            "replica of '%s' its own", r->name, r->name, "DOMAIN", G->ast->name);
        return -1;
    }
    targets_alloc(S, t, G->n);
    t->n = G->n;
    t->per_replica = 1;
    for (int k = 0; k < G->n; k++) {
        int idx;
        S->bind_name = var;
        S->bind_val = G->vals[k];
        int bad = const_int(S, r->index, &idx, "an event index") < 0;
        S->bind_name = NULL;
        if (bad)
            return -1;
        t->ev[k] = find_event(S, r->name, 1, idx);
        if (!t->ev[k]) {
            ERR(S, r->pos, "event '%s' has no index %d, which replica %s[%d] names "
                "(%s = %d): the domains of automaton '%s' and event '%s' do not match",
                r->name, idx, G->ast->name, G->vals[k], var, G->vals[k], G->ast->name, r->name);
            return -1;
        }
    }
    return 0;
}

/* The domain identifier a label's index names (e[N]), or NULL. */
static s_ident *domain_index(sema *S, s_group *G, const ast_ref *r)
{
    const ast_expr *ix = r->index;
    if (!ix || ix->kind != AE_NAME || ix->ref.index)
        return NULL;
    if (G->ast->dom && G->ast->dom->var && !strcmp(G->ast->dom->var, ix->ref.name))
        return NULL;
    s_ident *id = find_ident(S, ix->ref.name);
    return id && id->is_dom ? id : NULL;
}

/* e[N]: every e[v], v in N, from the same transition. */
static int domain_targets(sema *S, const ast_ref *r, const s_ident *id, s_targets *t)
{
    if (!event_declared(S, r->name) || find_event(S, r->name, 0, 0)) {
        if (event_declared(S, r->name))
            ERR(S, r->index->pos, "event '%s' is not replicated; e[%s] names the events of a "
                "replicated event", r->name, id->ast->name);
        else
            not_an_event(S, r);
        return -1;
    }
    if (!id->dom)
        return -1;              /* its own error was reported */
    targets_alloc(S, t, id->ndom);
    t->n = id->ndom;
    for (int k = 0; k < id->ndom; k++) {
        t->ev[k] = find_event(S, r->name, 1, id->dom[k]);
        if (!t->ev[k]) {
            ERR(S, r->index->pos, "event '%s' has no index %d: domain '%s' is not within "
                "the domain of the event", r->name, id->dom[k], id->ast->name);
            return -1;
        }
    }
    return 0;
}

/* The events label r names for the replicas of G: one for all (e, e[3]),
 * one per value of a domain (e[N], every replica in each), or one per
 * replica (e[i] in aut C[i:N]).  0, or -1 (reported); either way the
 * caller releases t->held and frees t->ev. */
int label_targets(sema *S, s_group *G, const ast_ref *r, s_targets *t)
{
    memset(t, 0, sizeof *t);
    t->held = -1;
    const char *var = G->ast->dom ? G->ast->dom->var : NULL;
    if (var && r->index && ast_uses_name(r->index, var))
        return replica_targets(S, G, r, t);
    s_ident *id = domain_index(S, G, r);
    if (id)
        return domain_targets(S, r, id, t);
    s_event *ev = label_event(S, r);
    if (!ev)
        return -1;
    targets_alloc(S, t, 1);
    t->ev[0] = ev;
    t->n = 1;
    return 0;
}

/* An index variable may not hide an identifier (which one would e[i]
 * mean?), and state blocks have none. */
void check_index_var(sema *S, const ast_domain *dom, const char *what)
{
    if (!dom || !dom->var)
        return;
    if (!strcmp(what, "state block"))
        ERR(S, dom->var_pos, "a state block takes no index variable ('%s:'); only replicated "
            "automata (aut C[i:N]) and events (syn e[k:N]) do", dom->var);
    else if (find_ident(S, dom->var))
        ERR(S, dom->var_pos, "index variable '%s' of this %s has the name of an identifier; "
            "choose another", dom->var, what);
}

//END
