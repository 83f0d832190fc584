/*
 * sema_suggest.c - the "did you mean" of the model's diagnostics: a name
 * that resolves to nothing is compared with the names of the kind the
 * place expects, in scope there (the states of the automaton a
 * transition leaves, the domains where a domain is read, ...), never
 * with every name of the model: 'a' is not a misspelling of the event
 * 'e' where a state is expected.
 */
#include "lang/sema_int.h"
#include "lang/model_int.h"

/* What the message appends: "; did you mean 'think'?", or "". */
static const char *tail(sema *S, const san_suggest *s)
{
    const char *best = san_suggest_best(s);
    if (!best)
        return "";
    snprintf(S->suggestion, sizeof S->suggestion, "; did you mean '%.200s'?", best);
    return S->suggestion;
}

const char *suggest_ident(sema *S, const char *name, int domain)
{
    san_suggest s;
    san_suggest_init(&s, name);
    for (int i = 0; !S->quiet && i < S->nids; i++)
        if (S->ids[i].is_dom == domain)
            san_suggest_add(&s, S->ids[i].ast->name);
    return tail(S, &s);
}

/* A value: a constant or function, a state of the automaton it is
 * compared with (any automaton's when ctx_aut < 0), an earlier result. */
const char *suggest_value(sema *S, const char *name, int ctx_aut)
{
    san_suggest s;
    san_suggest_init(&s, name);
    if (S->quiet)
        return "";
    for (int i = 0; i < S->nids; i++)
        if (!S->ids[i].is_dom)
            san_suggest_add(&s, S->ids[i].ast->name);
    if (ctx_aut >= 0)
        suggest_add_states(&s, group_of(S, ctx_aut));
    else
        for (int g = 0; S->m && S->m->naut > 0 && g < S->ngroups; g++)
            suggest_add_states(&s, &S->groups[g]);
    for (int r = 0; r < S->cur_result && r < S->f->nresults; r++)
        san_suggest_add(&s, S->f->results[r].name);
    return tail(S, &s);
}

void suggest_add_states(san_suggest *s, const s_group *G)
{
    for (int b = 0; G && b < G->nblocks; b++)
        san_suggest_add(s, G->blocks[b].ast->name);
}

/* A state of automata a0..a1 of the model (their groups, once each). */
const char *suggest_state(sema *S, const char *name, int a0, int a1)
{
    san_suggest s;
    san_suggest_init(&s, name);
    const s_group *last = NULL;
    for (int a = a0; !S->quiet && a <= a1; a++) {
        const s_group *G = group_of(S, a);
        if (G != last)
            suggest_add_states(&s, G);
        last = G;
        a = G->first + G->n - 1;        /* the replicas have the same states */
    }
    return tail(S, &s);
}

const char *suggest_group_state(sema *S, const char *name, const s_group *G)
{
    san_suggest s;
    san_suggest_init(&s, name);
    if (!S->quiet)
        suggest_add_states(&s, G);
    return tail(S, &s);
}

const char *suggest_automaton(sema *S, const char *name)
{
    san_suggest s;
    san_suggest_init(&s, name);
    for (int g = 0; !S->quiet && g < S->ngroups; g++)
        san_suggest_add(&s, S->groups[g].ast->name);
    return tail(S, &s);
}

const char *suggest_event(sema *S, const char *name)
{
    san_suggest s;
    san_suggest_init(&s, name);
    for (int e = 0; !S->quiet && e < S->f->nevents; e++)
        san_suggest_add(&s, S->f->events[e].name);
    return tail(S, &s);
}
