/*
 * solve_opts.c - the options of a solve (their defaults, the memory
 * budget they give) and the methods' names.  A leaf of solver/numeric/.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include "base/services.h"
#include "solver/numeric/linsolve.h"

void san_solve_opts_default(san_solve_opts *o)
{
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->method = SAN_M_AUTO;
    o->tol = 1e-10;
    o->max_iter = 10000;
    o->omega = 1.0;
    o->restart = 0;             /* 30, widened by a named GMRES (krylov.c) */
    o->precond = SAN_PC_ILU0;
    o->time_limit = 0;
    o->progress = 0;
    o->interrupt = NULL;
    o->max_memory = 0;
}

double num_ls_budget(const san_solve_opts *o)
{
    return base_budget(o ? o->max_memory : 0);
}

static const char *const method_names[] = {
    "auto", "direct", "power", "jacobi", "gs", "gmres", "bicgstab", "iad", "ml"
};
#define N_METHODS ((int)(sizeof method_names / sizeof method_names[0]))

const char *san_method_name(san_method m)
{
    if ((int)m < 0 || (int)m >= N_METHODS)
        return "?";
    return method_names[m];
}

double san_solve_reached_estimate(const san_solve_info *info)
{
    const double e = info->error_est;
    if (info->converged || (e > 0 && isfinite(e)))
        return e;
    return NAN;
}

int san_solve_estimate_measured(const san_solve_info *info, int64_t n)
{
    return info->converged && (info->lu_correction >= 0 || n <= SAN_PART_WHOLE_MAX);
}

static int same_word(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int san_method_parse(const char *s, san_method *m)
{
    if (!s)
        return -1;
    for (int i = 0; i < N_METHODS; i++)
        if (same_word(s, method_names[i])) {
            *m = (san_method)i;
            return 0;
        }
    return -1;
}
