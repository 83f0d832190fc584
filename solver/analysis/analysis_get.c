/*
 * analysis_get.c - an analysis made, freed and read through accessors
 * (issue 30 item 4): the Python binding reads the state space, the
 * steady state, its indices and the solver's report without mirroring
 * san_analysis, san_space, san_solution or san_solve_info, whose layouts
 * may then change without a binding reading the wrong bytes.  Arrays are
 * returned as const pointers into the analysis (no copy: numpy wraps
 * them), valid until it is freed.
 */
#include <stdlib.h>
#include "san.h"
#include "solver/analysis/analysis_int.h"

san_analysis *san_analysis_new(void)
{
    return calloc(1, sizeof(san_analysis));
}

void san_analysis_free(san_analysis *a)
{
    if (!a)
        return;
    an_analysis_clear(a);
    free(a);
}

void san_analysis_delete(san_analysis *a)
{
    san_analysis_free(a);
}

int san_analysis_has_space(const san_analysis *a)
{
    return a->have_space;
}

int san_analysis_has_solution(const san_analysis *a)
{
    return a->have_sol;
}

int san_analysis_has_indices(const san_analysis *a)
{
    return a->have_indices;
}

int san_analysis_has_transient(const san_analysis *a)
{
    return a->have_tr;
}

const san_model *san_analysis_model(const san_analysis *a)
{
    return a->m;
}

int san_analysis_has_engine_vector(const san_analysis *a)
{
    return a->engine != NULL;
}

const san_space *san_analysis_space(const san_analysis *a)
{
    return &a->sp;
}

const san_model *san_analysis_space_model(const san_analysis *a)
{
    return a->sp.m;
}

const san_lumping *san_analysis_lumping(const san_analysis *a)
{
    return a->lumping;
}

int san_analysis_kron(const san_analysis *a)
{
    return a->kron;
}

int64_t san_analysis_states(const san_analysis *a)
{
    return a->sp.n;
}

const int64_t *san_analysis_index(const san_analysis *a)
{
    return a->sp.index;
}

int64_t san_analysis_generator(const san_analysis *a, const int64_t **rowptr,
                               const int32_t **col, const double **val)
{
    *rowptr = a->sp.q.rowptr;
    *col = a->sp.q.col;
    *val = a->sp.q.val;
    return a->sp.q.rowptr ? a->sp.q.rowptr[a->sp.n] : 0;
}

const double *san_analysis_pi(const san_analysis *a)
{
    return a->sol.pi;
}

const san_solution *san_analysis_steady(const san_analysis *a)
{
    return &a->sol;
}

const san_solve_info *san_analysis_info(const san_analysis *a)
{
    return &a->sol.info;
}

int64_t san_analysis_classes(const san_analysis *a)
{
    return a->classes.n;
}

int64_t san_analysis_class(const san_analysis *a, int64_t k, double *reach, double *reach_error,
                           double *error)
{
    *reach = a->classes.reach[k];
    *reach_error = a->classes.reach_error[k];
    *error = a->classes.error[k];
    return a->classes.states[k];
}
