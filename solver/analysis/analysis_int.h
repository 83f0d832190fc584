/*
 * analysis_int.h - an analysis's layout, for the library only (issue 30
 * item 4): include/san/analyze.h declares san_analysis opaque; callers
 * outside libsan (cli/, tool/, Python) make one with san_analysis_new
 * and read it through the accessors of analysis_get.c and
 * transient_get.c.  Inside, an analysis may live on the stack
 * (an_analysis_clear releases what it holds).
 */
#ifndef SOLVER_ANALYSIS_ANALYSIS_INT_H
#define SOLVER_ANALYSIS_ANALYSIS_INT_H

#include <stdint.h>
#include "san.h"
#include "solver/space/solution.h"
#include "solver/space/space_int.h"

/* The answer of a time-dependent analysis (its accessors:
 * transient_get.c). */
typedef struct {
    int ntimes;
    double *times;
    /* per time: results, marginals, throughputs of pi(t) (pi NULL) */
    san_solution *at;
    /* per time when rewards: the same indices of the integral of pi
     * over [0, t] (results: accumulated rewards; marginals: expected
     * time in each local state; throughputs: expected firings) */
    san_solution *acc;
    double *pi_last;        /* pi at the last time, per state */
    int64_t ninit;          /* states of the initial distribution */
    double rate;            /* uniformization rate */
    double steps_planned;   /* products the series need (before steady-
                               state detection) */
    long steps;             /* products done */
    double product_s;
    double trunc;           /* sum of the intervals' truncation bounds:
                               every probability is within it, plus
                               roundoff, of the exact one */
    double ss_at;           /* model time the steady state was detected
                               (-1: not); later times equal it */
    /* PASSAGE */
    int64_t ntarget;
    double *cdf;            /* per time: P(T <= t) */
    double p_init;          /* P(T = 0): initial mass in the target */
    double reach;           /* P(T < infinity) */
    double mean;            /* E[T] (HUGE_VAL when reach < 1; NaN: not
                               computed, see incomplete) */
    double mean_resid;      /* max |(h Q)_j + alpha_j| / max(alpha) over the
                               states outside the target: the linear
                               system h (-Q_TT) = alpha_T the expected
                               sojourn times h satisfy */
    long mean_steps;        /* products of the series (0: solved) */
    double *pct;            /* per level: the smallest t with P(T <= t)
                               >= level, to 1e-9 relative (infinite:
                               level at or above reach, never attained;
                               NaN: not computed, e.g. interrupted) */
    long pct_steps;         /* products the percentiles took */
    int mean_solved;        /* the mean from a steady-state solve of the
                               regenerative chain (sparse storage), with
                               the accuracy contract of solve */
    double mean_error_est;  /* its estimated relative error (NaN: not
                               verified; series: the residual above) */
    san_solve_info mean_info;   /* that solve */
    int reach_how;          /* how reach was found: SAN_REACH_* */
    san_solve_info reach_info;  /* SAN_REACH_SOLVE: that solve (its
                               error_est relative on pi, which carries
                               to reach) */
    int incomplete;         /* some figure asked for was not computed
                               (NaN: the mean, a percentile, beyond
                               --max-steps); the diagnostics say which,
                               the rest of the answer stands */
} an_time_answer;

/* One analysis: what it built, found and measured. */
struct san_analysis {
    const san_model *m;
    san_space sp;           /* valid when have_space */
    san_solution sol;       /* valid when have_sol */
    int have_space, have_sol;
    int have_indices;       /* sol's results, marginals, throughputs and
                               top states are filled (also for a solve
                               that stopped early: its best vector's) */
    int kron;               /* solved over the tensor descriptor */
    int fell_back;          /* auto storage went to the descriptor */
    double kron_bytes;      /* the descriptor with its vectors */
    double other_bytes;     /* what the other storage would have needed
                               (estimated; 0 when not) */
    san_storage_choice choice;  /* auto: the prediction and the rule */
    double t_space, t_solve;    /* seconds */
    an_time_answer tr;       /* TRANSIENT, PASSAGE: valid when have_tr */
    int have_tr;
    int ranks;              /* the engine's MPI ranks (1: serial) */
    double rank_bytes;      /* the largest per-rank resident memory */
    /* SAN_ENGINE_PETSC: no rank holds the whole chain, so sp holds the
     * counts, and its index the top states only (sol.top[k].state is
     * k); sol.pi is NULL */
    int64_t nonzeros;       /* the generator's, over every rank (0 over
                               the descriptor): the report's figure */
    void *engine;           /* engine_keep_vector: the ranks' parts of the
                               answer (san_engine_vector reads them) */
    /* Lumped (issue 28): sp, the top states, pi and tr.pi_last are over
     * the lumped model (sp.m, occupancy states), as are tr.ninit and
     * tr.ntarget; sol's and tr's results, marginals and throughputs
     * over m, as if unlumped.  NULL when not lumped. */
    san_lumping *lumping;
    san_classes classes;    /* several closed classes: how the steady
                               state weighs them (classes.n > 1) */
    san_engine engine_used; /* the engine that made the answer (the
                               reports say SAN_ENGINE_PETSC's ranks and
                               their memory; its KSP was picked by no
                               auto) */
};

/* What a holds, a kept (zeroed for another san_analyze): the release
 * of an analysis that lives on the stack or inside another struct. */
void an_analysis_clear(san_analysis *a);

#endif
