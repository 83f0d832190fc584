/*
 * san/space.h - the reachable state space of a model, the steady-state
 * solution and its indices, warm starts, the tensor descriptor
 * (solver/space/, solver/kron/).
 */
#ifndef SAN_PUBLIC_SPACE_H
#define SAN_PUBLIC_SPACE_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "san/model.h"
#include "san/solve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* State space and generator (solver/space/space.c)                     */
/* ------------------------------------------------------------------ */

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_space_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    double max_memory;      /* bytes; 0: san_default_max_memory() */
    int64_t max_states;     /* 0: no limit */
    double time_limit;      /* seconds from the start of the build; 0:
                               none (then SAN_E_INTERRUPTED) */
    int progress;           /* show exploration progress on stderr */
    volatile int *interrupt;
    int states_only;        /* number the reachable states but store no Q
                               (the tensor path has its own operator): the
                               exit rates, and the arcs while they take at
                               most a quarter of max_memory; the class
                               check is then left to the caller
                               (san_kron_check_classes) */
    int no_arcs;            /* states_only: keep no arcs, the check
                               enumerates the successors again (tests) */
    int several_closed;     /* accept several closed classes (time-
                               dependent analyses: pi(t) and passage times
                               are defined whatever the classes; a steady
                               state is not): in_closed marks them all */
    int several_steady;     /* accept several closed classes for a
                               long-run answer from the initial
                               distribution (san_analyze's steady state:
                               each class weighted by its reach
                               probability); cls is set when there are
                               several, and one closed class is checked
                               and warned of as without the flag */
} san_space_opts;

/* No limits, nothing kept off, and struct_size: what every caller starts
 * from (the options nested in san_analysis_opts, san_props_opts and
 * san_sweep_opts are set by their own _default). */
SAN_API void san_space_opts_default(san_space_opts *o);

/* The reachable states, numbered 0..n-1 in exploration order, and the
 * generator over them; vectors on the reachable set use these numbers.
 * Opaque (its layout is libsan's: solver/space/space_int.h): a caller
 * makes one with san_space_new (zeroed; NULL when out of memory) for
 * san_space_build, and reads it with san_space_model (the model it
 * points into), san_space_states (n) and san_space_index (each
 * state's mixed-radix index, n entries).  san_analysis_space gives an
 * analysis's, to read and to export. */
typedef struct san_space san_space;
SAN_API san_space *san_space_new(void);
SAN_API const san_model *san_space_model(const san_space *sp);
SAN_API int64_t san_space_states(const san_space *sp);
SAN_API const int64_t *san_space_index(const san_space *sp);

SAN_API double san_default_max_memory(void);

/* Explore the reachable set from the reachability function, build Q,
 * check its structure (exactly one closed class).  SAN_OK; SAN_E_MODEL
 * (no closed class or several, an invalid rate), SAN_E_LIMIT (over
 * max_memory or max_states: the tensor path may still fit),
 * SAN_E_NOMEM, SAN_E_INTERRUPTED; SAN_E_USAGE for o not filled by
 * san_space_opts_default (its struct_size); the reason in d
 * (positionless diagnostics). */
SAN_API san_status san_space_build(const san_model *m, const san_space_opts *o, san_space *sp,
                           san_diag *d);
/* What sp holds, then sp (one of san_space_new; NULL: nothing). */
SAN_API void san_space_free(san_space *sp);

/* ------------------------------------------------------------------ */
/* Steady-state solution and its indices (solver/space/solution.h,     */
/* solver/analysis/solution_get.c)                                      */
/* ------------------------------------------------------------------ */

/* A steady-state solution: pi and its indices, read through accessors
 * (its layout is libsan's: solver/space/solution.h); san_analyze makes
 * the one san_analysis_steady returns.  san_solution_new (zeroed; NULL
 * when out of memory) makes one for libsan's solvers to fill;
 * san_solution_free releases what it holds, then the solution itself
 * (m: the model of the space it was solved on; a NULL sol is nothing
 * to free). */
typedef struct san_solution san_solution;
SAN_API san_solution *san_solution_new(void);

SAN_API void san_solution_free(const san_model *m, san_solution *sol);
/* Its vector and indices read through accessors (solver/analysis/
 * solution_get.c): pi (one value per state of the space; NULL when
 * the solve made none), the solver's report (for
 * san_solve_info_converged ...), one value per model result, per local
 * state of automaton a, per event (the analysis that made it filled
 * them). */
SAN_API const double *san_solution_pi(const san_solution *s);
SAN_API const san_solve_info *san_solution_info(const san_solution *s);
SAN_API const double *san_solution_results(const san_solution *s);
SAN_API const double *san_solution_marginal(const san_solution *s, int a);
SAN_API const double *san_solution_throughputs(const san_solution *s);

/* ---- warm starts (solver/space/warm.c) ---- */

/* A solved distribution kept to start another solve from: the states
 * are matched by automaton and local state names, so that a variant
 * with another rate, a longer buffer or one more slave starts from its
 * neighbour's answer.  A guess only saves time: the answer is verified
 * as always. */
typedef struct san_warm san_warm;
/* Copies what it needs from sp and pi (per state of sp); NULL when out
 * of memory. */
SAN_API san_warm *san_warm_new(const san_space *sp, const double *pi);
SAN_API void san_warm_free(san_warm *w);
SAN_API double san_warm_bytes(const san_warm *w);
/* x (sp->n entries) gets w mapped onto sp's states, the unmatched ones
 * the mean of the matched; returns the fraction of states matched (0:
 * none, x all zero). */
SAN_API double san_warm_map(const san_warm *w, const san_space *sp, double *x);

/* ------------------------------------------------------------------ */
/* Tensor (Kronecker) descriptor: Q never stored (solver/kron/)          */
/* ------------------------------------------------------------------ */

/* Class check of a space built with states_only (exactly one closed
 * class, as san_space_build does for the sparse path), within o's time
 * limit (counted from the call) and interrupt flag; o may be NULL.
 * SAN_OK, SAN_E_MODEL, SAN_E_INTERRUPTED (time limit or interrupt),
 * SAN_E_NOMEM, or SAN_E_USAGE for o of another layout (struct_size, as
 * san_space_build), the reason in d. */
SAN_API san_status san_kron_check_classes(san_space *sp, const san_space_opts *o,
                                          san_diag *d);
/* Memory the descriptor and its vectors would need. */
SAN_API double san_kron_estimate_bytes(const san_model *m, int64_t reachable);

#ifdef __cplusplus
}
#endif
#endif
