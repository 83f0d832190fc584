/*
 * dialect_tab.c - a synchronized event's rate as a table, for the PEPS
 * dialects.
 *
 * PEPS 2003 crashes on a synchronized event whose rate, once every
 * function in it is expanded in place, is 128 bytes or longer
 * (peers_size.c).  Intermediate identifiers cannot shorten it: the
 * peers expand them again.  What does is a table: the rate r(x) reads a
 * few automata D; for every combination k of their local states where
 * r is not zero, an event e_k with the same transitions as e and the
 * rate r_k * [the automata of D are in combination k].  At any global
 * state exactly one e_k (or none, where r = 0) can fire, at rate r(x),
 * with e's effect: the generator is unchanged.  Each e_k's rate is a
 * constant times a conjunction of one comparison per automaton of D,
 * a few dozen bytes whatever r was.
 *
 * Combinations where an automaton of D that takes part in e has no
 * transition of e are left out (e cannot fire there).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lang/peers.h"
#include "lang/model_int.h"

/* Can event ev leave local state s of automaton a? */
static int enabled(const lang_automaton *A, int s, int ev)
{
    for (int k = A->first[s]; k < A->first[s + 1]; k++)
        if (A->tr[k].event == ev)
            return 1;
    return 0;
}

static int takes_part(const lang_event *E, int a)
{
    for (int k = 0; k < E->nparts; k++)
        if (E->parts[k] == a)
            return 1;
    return 0;
}

/* The number of combinations of D's local states, or -1 beyond max. */
static long combinations(const san_model *m, const int *deps, int nd, long max)
{
    long n = 1;
    for (int k = 0; k < nd; k++) {
        n *= m->aut[deps[k]].nstates;
        if (n > max)
            return -1;
    }
    return n;
}

static int append(peers_tab *t, const int *state, double r)
{
    int nd = t->ndeps ? t->ndeps : 1;
    int *s = realloc(t->states, (size_t)(t->n + 1) * (size_t)nd * sizeof *s);
    if (s)
        t->states = s;
    double *v = realloc(t->rate, (size_t)(t->n + 1) * sizeof *v);
    if (v)
        t->rate = v;
    if (!s || !v)
        return 0;
    for (int k = 0; k < t->ndeps; k++)
        t->states[t->n * nd + k] = state[t->deps[k]];
    t->rate[t->n++] = r;
    return 1;
}

int peers_tabulate(const san_model *m, int ev, long max, peers_tab *t)
{
    const lang_event *E = &m->ev[ev];
    int nd;
    const int *deps = san_expr_deps(E->rate, &nd);
    memset(t, 0, sizeof *t);
    if (combinations(m, deps, nd, max) < 0)
        return 0;
    int *state = calloc((size_t)m->naut, sizeof *state);
    t->deps = malloc((size_t)(nd ? nd : 1) * sizeof *t->deps);
    if (!state || !t->deps) {
        free(state);
        return -1;
    }
    memcpy(t->deps, deps, (size_t)nd * sizeof *deps);
    t->ndeps = nd;
    for (;;) {
        int fires = 1;
        for (int k = 0; k < nd && fires; k++)
            fires = !takes_part(E, deps[k]) || enabled(&m->aut[deps[k]], state[deps[k]], ev);
        double r = fires ? san_expr_eval(E->rate, state) : 0;
        if (r != 0 && !append(t, state, r)) {
            free(state);
            return -1;
        }
        int k = nd - 1;         /* the next combination, last automaton fastest */
        for (; k >= 0 && ++state[deps[k]] == m->aut[deps[k]].nstates; k--)
            state[deps[k]] = 0;
        if (k < 0)
            break;
    }
    free(state);
    return 1;
}

void peers_tab_free(peers_tab *t)
{
    free(t->deps);
    free(t->states);
    free(t->rate);
    memset(t, 0, sizeof *t);
}
