/*
 * transient_get.c - the answer of a time-dependent analysis (san
 * transient, san passage) read through accessors (issue 30 item 4),
 * for callers that do not see an_time_answer's layout.  Valid when
 * san_analysis_has_transient.
 */
#include "san.h"
#include "solver/analysis/analysis_int.h"

int san_analysis_times(const san_analysis *a, const double **times)
{
    if (times)
        *times = a->tr.times;
    return a->tr.ntimes;
}

const double *san_analysis_pi_last(const san_analysis *a)
{
    return a->tr.pi_last;
}

const san_solution *san_analysis_at(const san_analysis *a, int k)
{
    return &a->tr.at[k];
}

const san_solution *san_analysis_accumulated(const san_analysis *a, int k)
{
    return a->tr.acc ? &a->tr.acc[k] : NULL;
}

int64_t san_analysis_initial_states(const san_analysis *a)
{
    return a->tr.ninit;
}

double san_analysis_uniformization(const san_analysis *a, long *products, double *planned,
                                   double *truncated, double *steady_at)
{
    *products = a->tr.steps;
    *planned = a->tr.steps_planned;
    *truncated = a->tr.trunc;
    *steady_at = a->tr.ss_at;
    return a->tr.rate;
}

int san_analysis_incomplete(const san_analysis *a)
{
    return a->tr.incomplete;
}

int64_t san_analysis_target_states(const san_analysis *a)
{
    return a->tr.ntarget;
}

double san_analysis_reach(const san_analysis *a, int *how, double *p_initial)
{
    *how = a->tr.reach_how;
    *p_initial = a->tr.p_init;
    return a->tr.reach;
}

double san_analysis_mean(const san_analysis *a, int *solved, double *error_est)
{
    *solved = a->tr.mean_solved;
    *error_est = a->tr.mean_error_est;
    return a->tr.mean;
}

const double *san_analysis_cdf(const san_analysis *a)
{
    return a->tr.cdf;
}

const double *san_analysis_percentiles(const san_analysis *a)
{
    return a->tr.pct;
}
