/*
 * solution_get.c - a solution's indices and its solver's report read
 * through accessors (issue 30 item 4), for callers that do not see
 * san_solution's or san_solve_info's layout (the Python binding).
 */
#include "san.h"

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
