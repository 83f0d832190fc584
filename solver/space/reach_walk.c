/*
 * reach_walk.c - the states a reachability function accepts; see
 * reach_walk.h.
 */
#include <stdlib.h>
#include "lang/expr.h"
#include "solver/space/reach_walk.h"
#include "lang/model_int.h"

typedef struct {
    reach_walk *w;
    const int *aut;         /* the automata walked */
    int naut;
    int *lo, *hi;           /* the box: per automaton, its range */
    int64_t shown;          /* evals at the last tick */
} walk;

/* The box below level k (aut[0..k-1] fixed, first index idx); all: the
 * function is surely nonzero in it.  0 go on, 1 stop, -1 / -3 fail. */
static int node(walk *W, int k, int64_t idx, int all)
{
    reach_walk *w = W->w;
    const san_model *m = w->m;
    if (w->max_evals && w->evals >= w->max_evals)
        return -3;
    w->evals++;
    if (w->tick && w->evals - W->shown >= (1 << 20)) {
        W->shown = w->evals;
        if (w->tick(w))
            return -1;
    }
    if (k == W->naut)
        return all || san_expr_eval(m->reach, W->lo) != 0 ? w->take(w, idx, W->lo) : 0;
    if (!all) {
        double b[2];
        if (lang_expr_range(m->reach, W->lo, W->hi, b)) {
            if (b[0] == 0 && b[1] == 0)
                return 0;
            all = b[0] > 0 || b[1] < 0;
        }
    }
    const int a = W->aut[k], n = m->aut[a].nstates;
    int rc = 0;
    for (int v = 0; rc == 0 && v < n; v++) {
        W->lo[a] = W->hi[a] = v;
        rc = node(W, k + 1, idx + v * m->stride[a], all);
    }
    W->lo[a] = 0;
    W->hi[a] = n - 1;
    return rc;
}

/* The automata to walk: those of w (all when NULL) with more than one
 * state, the others staying at their state 0.  The walk recurses once
 * per automaton walked: 10^6 automata of one state overflowed the stack,
 * while a product space that fits in 64 bits has at most 63 automata of
 * two states or more. */
static int *walked(const reach_walk *w, int *n)
{
    const san_model *m = w->m;
    int total = w->aut ? w->naut : m->naut;
    int *aut = malloc((total + 1) * sizeof *aut);
    *n = 0;
    for (int k = 0; aut && k < total; k++) {
        int a = w->aut ? w->aut[k] : k;
        if (m->aut[a].nstates > 1)
            aut[(*n)++] = a;
    }
    return aut;
}

int reach_walk_run(reach_walk *w)
{
    const san_model *m = w->m;
    walk W = { w, NULL, 0, calloc(m->naut + 1, sizeof *W.lo), calloc(m->naut + 1, sizeof *W.hi),
               0 };
    int *aut = walked(w, &W.naut);
    W.aut = aut;
    int rc = W.lo && W.hi && aut ? 0 : -1;
    for (int k = 0; rc == 0 && k < W.naut; k++)
        W.hi[aut[k]] = m->aut[aut[k]].nstates - 1;
    w->evals = 0;
    if (rc == 0) {
        const int all = san_expr_is_const(m->reach) && san_expr_const(m->reach) != 0;
        rc = node(&W, 0, 0, all);
    }
    free(W.lo);
    free(W.hi);
    free(aut);
    return rc == 1 ? 0 : rc;
}
