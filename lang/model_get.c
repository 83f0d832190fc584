/*
 * model_get.c - what a compiled model is, read through accessors (issue
 * 30 item 4): the Python binding names automata, states, events and
 * results without mirroring san_model's layout.  Indices are 0-based
 * and unchecked, as the arrays they read (a caller loops to the count).
 */
#include "san.h"
#include "lang/model_int.h"

const char *san_model_name(const san_model *m)
{
    return m->name;
}

const char *san_model_product_text(const san_model *m)
{
    return m->product_str;
}

int san_model_product(const san_model *m, int64_t *n)
{
    if (!m->product_fits)
        return 0;
    *n = m->product;
    return 1;
}

int san_model_automata(const san_model *m)
{
    return m->naut;
}

const char *san_model_automaton_name(const san_model *m, int a)
{
    return m->aut[a].name;
}

int san_model_automaton_states(const san_model *m, int a)
{
    return m->aut[a].nstates;
}

const char *san_model_local_state(const san_model *m, int a, int s)
{
    return m->aut[a].states[s];
}

int64_t san_model_stride(const san_model *m, int a)
{
    return m->stride[a];
}

int san_model_events(const san_model *m)
{
    return m->nev;
}

const char *san_model_event_name(const san_model *m, int e)
{
    return m->ev[e].name;
}

int san_model_event_sync(const san_model *m, int e)
{
    return m->ev[e].sync;
}

const int *san_model_event_parts(const san_model *m, int e, int *n)
{
    *n = m->ev[e].nparts;
    return m->ev[e].parts;
}

int san_model_results(const san_model *m)
{
    return m->nres;
}

const char *san_model_result_name(const san_model *m, int r)
{
    return m->res[r].name;
}

int san_model_result_derived(const san_model *m, int r)
{
    return m->res[r].derived;
}

const san_expr *san_model_result_expr(const san_model *m, int r)
{
    return m->res[r].expr;
}
