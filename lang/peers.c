/*
 * peers.c - how PEPS 2003 and GTAexpress read names (peers.h): the
 * identifiers, constants, automata and states of the compiled model as
 * the peers find them.  A leaf of lang/: the dialect printer (dialect.c),
 * the compatibility lint (compat.c) and the length estimate
 * (peers_size.c) ask it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/peers.h"
#include "lang/model_int.h"

const lang_ident *peers_find_id(const san_model *m, const char *name)
{
    for (int k = 0; k < m->nid; k++)
        if (!strcmp(m->id[k].name, name))
            return &m->id[k];
    return NULL;
}

/* ---------------------------------------------------------------- */
/* Constants, automata and states of the compiled model               */
/* ---------------------------------------------------------------- */

/* The value of a constant index expression (numbers, constants, + - *). */
int peers_const(const san_model *m, const ast_expr *e, double *v)
{
    double x, y;
    switch (e->kind) {
    case AE_NUM:
        *v = e->num;
        return 1;
    case AE_NAME: {
        const lang_ident *id = e->ref.index ? NULL : peers_find_id(m, e->ref.name);
        if (!id || id->is_function || id->is_domain)
            return 0;
        *v = id->value;
        return 1;
    }
    case AE_NEG:
        if (!peers_const(m, e->a, &x))
            return 0;
        *v = -x;
        return 1;
    case AE_BIN:
        if (!peers_const(m, e->a, &x) || !peers_const(m, e->b, &y))
            return 0;
        switch (e->op) {
        case OP_ADD: *v = x + y; return 1;
        case OP_SUB: *v = x - y; return 1;
        case OP_MUL: *v = x * y; return 1;
        case OP_DIV: *v = x / y; return 1;
        default: return 0;
        }
    default:
        return 0;
    }
}

/* "name" or "name[k]" for a reference whose index is constant. */
static int ref_text(const san_model *m, const ast_ref *r, char *buf, size_t n)
{
    if (!r->index) {
        snprintf(buf, n, "%s", r->name);
        return 1;
    }
    double v;
    if (!peers_const(m, r->index, &v) || v != floor(v))
        return 0;
    snprintf(buf, n, "%s[%.0f]", r->name, v);
    return 1;
}

int peers_find_aut(const san_model *m, const ast_ref *r)
{
    char buf[1100];
    if (!ref_text(m, r, buf, sizeof buf))
        return -1;
    for (int a = 0; a < m->naut; a++)
        if (!strcmp(m->aut[a].name, buf))
            return a;
    return -1;
}

/* States [*lo, *hi] of automaton a that r names (a block without an
 * index names all its states); 0 if a has none. */
int peers_find_states(const san_model *m, int a, const ast_ref *r, int *lo, int *hi)
{
    const lang_automaton *A = &m->aut[a];
    char buf[1100];
    if (!ref_text(m, r, buf, sizeof buf))
        return 0;
    size_t n = strlen(buf);
    *lo = -1;
    for (int s = 0; s < A->nstates; s++) {
        const char *t = A->states[s];
        int same = !strcmp(t, buf) || (!r->index && !strncmp(t, buf, n) && t[n] == '[');
        if (same && *lo < 0)
            *lo = s;
        if (same)
            *hi = s;
    }
    return *lo >= 0;
}

/* The automata an nb/sum_rw/prod_rw ranges over. */
int peers_range(const san_model *m, const ast_expr *e, int *a0, int *a1)
{
    *a0 = 0;
    *a1 = m->naut - 1;
    if (!e->has_range)
        return 1;
    *a0 = peers_find_aut(m, &e->lo);
    *a1 = peers_find_aut(m, &e->hi);
    return *a0 >= 0 && *a1 >= *a0;
}

/* The peers look a state name up in the first automaton of the whole
 * model that declares it: does that agree, in every automaton of the
 * range, with the automaton's own states? */
int peers_agree(const san_model *m, const ast_expr *e)
{
    int a0, a1, flo = -1, fhi = -1, lo, hi;
    if (!peers_range(m, e, &a0, &a1))
        return 0;
    for (int a = 0; a < m->naut && flo < 0; a++)
        if (peers_find_states(m, a, &e->ref, &lo, &hi))
            flo = lo, fhi = hi;
    for (int a = a0; a <= a1; a++)
        if (peers_find_states(m, a, &e->ref, &lo, &hi) && (lo != flo || hi != fhi))
            return 0;
    return 1;
}
