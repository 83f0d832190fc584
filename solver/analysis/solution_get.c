/*
 * solution_get.c - a solution made, freed and read through accessors
 * (issue 30 item 4), for callers that do not see san_solution's layout
 * (solver/space/solution.h) or san_solve_info's (the Python binding).
 */
#include <stdlib.h>
#include "san.h"
#include "solver/space/solution.h"

san_solution *san_solution_new(void)
{
    san_solution *s = calloc(1, sizeof *s);
    if (s)
        s->info.lu_correction = -1;     /* none made, as a cleared one */
    return s;
}

void san_solution_free(const san_model *m, san_solution *sol)
{
    if (!sol)
        return;
    space_solution_clear(m, sol);
    free(sol);
}

const double *san_solution_pi(const san_solution *s)
{
    return s->pi;
}

const san_solve_info *san_solution_info(const san_solution *s)
{
    return &s->info;
}

const double *san_solution_results(const san_solution *s)
{
    return s->results;
}

const double *san_solution_marginal(const san_solution *s, int a)
{
    return s->marginal[a];
}

const double *san_solution_throughputs(const san_solution *s)
{
    return s->throughput;
}

int san_solve_info_converged(const san_solve_info *i)
{
    return i->converged;
}

double san_solve_info_residual(const san_solve_info *i)
{
    return i->residual;
}

san_method san_solve_info_method(const san_solve_info *i)
{
    return i->method;
}

long san_solve_info_iterations(const san_solve_info *i)
{
    return i->iterations;
}

const char *san_solve_info_message(const san_solve_info *i)
{
    return i->msg;
}
