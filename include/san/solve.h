/*
 * san/solve.h - the linear solvers of pi Q = 0 on a sparse generator,
 * and the accuracy contract every solve keeps (solver/numeric/).
 */
#ifndef SAN_PUBLIC_SOLVE_H
#define SAN_PUBLIC_SOLVE_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "san/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Sparse matrices and the linear solvers of pi Q = 0                   */
/* ------------------------------------------------------------------ */

/* Compressed rows.  State indices are 32-bit on the sparse path (a sparse
 * generator with 2^31 states would not fit in memory anyway); row pointers
 * are 64-bit because nonzeros exceed 2^31 on large models. */
typedef struct {
    int64_t n;              /* rows = columns */
    int64_t *rowptr;        /* n + 1 */
    int32_t *col;           /* rowptr[n], ascending within a row */
    double *val;
} san_csr;

typedef enum {
    SAN_M_AUTO, SAN_M_DIRECT, SAN_M_POWER, SAN_M_JACOBI, SAN_M_GS,
    SAN_M_GMRES, SAN_M_BICGSTAB,
    SAN_M_IAD,              /* iterative aggregation-disaggregation */
    SAN_M_ML                /* multilevel aggregation (sparse storage) */
} san_method;

typedef enum { SAN_PC_ILU0, SAN_PC_JACOBI, SAN_PC_NONE } san_precond;

/* The accuracy contract (san(1), "ACCURACY").  A solve reports
 * converged only when the answer passed two tests at tol:
 *   - the balance of every state: |in_j - out_j| <= tol (in_j + out_j
 *     + |q_jj| 1e-14), in_j and out_j the probability flows into and out
 *     of state j, the probabilities summing to 1;
 *   - aggregation over partitions that hold the slow modes of the
 *     chain (per automaton, per coupled group of automata, per set of
 *     strongly connected states): every block's mass within tol,
 *     relative, of the mass the coarse chain gives it.
 * error_est then estimates the largest relative error of a state
 * probability above 1e-14 (and of every index that sums non-negative
 * terms). */
typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_solve_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    san_method method;
    double tol;             /* of the tests above; the methods' own
                               stopping residual (san_ctmc_residual)
                               starts at this value */
    long max_iter;
    double omega;           /* relaxation of gs (1 = Gauss-Seidel) */
    int restart;            /* m of GMRES(m); 0: 30, which a named GMRES
                               widens when a cycle stalls */
    san_precond precond;
    double time_limit;      /* seconds; 0: none */
    int progress;           /* print iterations and residual on stderr */
    volatile int *interrupt;/* when set non-zero, stop with the best vector */
    const struct san_warm *warm; /* start from a neighbour's answer
                               (san_warm_new); NULL: uniform */
    double max_memory;      /* bytes the solve may allocate besides the
                               generator it is given (factors, vectors,
                               partitions); 0: san_default_max_memory().
                               san_analyze sets it to what --max-memory
                               leaves beside the state space */
    int fork_lu;            /* 1: with a time limit or an interrupt flag,
                               the sparse LU (UMFPACK, which cannot be
                               stopped from inside) runs in a child
                               process, ended when the time is up or the
                               flag is set; for programs that may fork
                               (the san command sets it).  0 (default):
                               no process is forked; the LU runs in the
                               calling process, refused up front when
                               UMFPACK's flop estimate predicts it would
                               outlast the time left (its symbolic
                               analysis, seconds on chains of millions of
                               nonzeros, runs to its end), the flag looked
                               at before and after the analysis */
} san_solve_opts;

typedef struct {
    san_method method;      /* the method actually used */
    long iterations;
    double residual;        /* recomputed from the returned vector */
    int converged;
    double time_s;
    long products;          /* products y = x Q done (iterations and
                               residual checks; a Gauss-Seidel sweep or a
                               factorization is not one) */
    double product_s;       /* seconds spent in them */
    double balance;         /* the balance residual of the answer */
    double agg_error;       /* the largest aggregation error measured */
    double error_est;       /* estimated relative error (see above) */
    int polish;             /* polishing sweeps the check made */
    long refine_cycles;     /* aggregation cycles (auto, direct, iad) */
    san_status status;      /* what the call returned (SAN_OK, ...) */
    char msg[1024];         /* why it failed or stopped, "" otherwise
                               (room for a partition's name, a quoted
                               message and the advice: never cut) */
    char note[1024];        /* what was done besides the method, when it
                               matters: a fallback, a refinement */
    int64_t underflow;      /* states of the chain whose probability is
                               below DBL_MIN (2.2e-308), reported as 0
                               (san_solution_flush_underflow) */
    double lu_correction;   /* the largest relative error of a state
                               probability that a correction from the LU
                               of the generator found in the refined
                               answer and removed (then error_est is
                               measured by those corrections, not by the
                               checks); -1: none was made (a chain too
                               large for its LU to be cheap) */
} san_solve_info;

/* The error estimate a report shows: error_est when the answer
 * converged; when it did not, the estimate the checks had reached
 * (error_est > 0 and finite: the balance and aggregation tests ran at
 * least once on a vector), else NaN: the solve stopped before its first
 * check (an iterative method out of --max-iter, a time limit), and the
 * report says "no error estimate yet" (JSON null). */
SAN_API double san_solve_reached_estimate(const san_solve_info *info);
/* The report read through accessors, for callers that do not see its
 * layout (solver/analysis/solution_get.c): converged, residual, the
 * method used, iterations, msg. */
SAN_API int san_solve_info_converged(const san_solve_info *i);
SAN_API double san_solve_info_residual(const san_solve_info *i);
SAN_API san_method san_solve_info_method(const san_solve_info *i);
SAN_API long san_solve_info_iterations(const san_solve_info *i);
SAN_API const char *san_solve_info_message(const san_solve_info *i);

/* 1 when a converged answer's error estimate was measured, and so bounds
 * the error of every state probability above 1e-14 (san(1) ACCURACY): a
 * correction by the LU of the generator was made (lu_correction >= 0),
 * or the solve ran over at most 256 positions (n: the reachable states,
 * or the product states on the descriptor), checked against GTH over
 * every state.  0 when it comes from the checks' indicators, which a
 * long chain's error exceeds (5.8 times on a queue of 3,000 levels
 * beside a two-state automaton over the descriptor), or the answer did
 * not converge. */
SAN_API int san_solve_estimate_measured(const san_solve_info *info, int64_t n);

SAN_API void san_solve_opts_default(san_solve_opts *o);
SAN_API const char *san_method_name(san_method m);
SAN_API int san_method_parse(const char *s, san_method *m);   /* 0 ok, -1 unknown */

/* Stationary distribution of an irreducible CTMC.  qt is the TRANSPOSED
 * generator in compressed rows: row j holds Q[i][j] for every i with a
 * transition i -> j, and the diagonal Q[j][j] (rows of Q sum to zero).
 * pi (length n) holds an initial guess on entry (or all zeros: uniform is
 * used) and the solution on return, non-negative and summing to 1.
 * Returns SAN_OK when converged (verified: see the accuracy contract
 * above); SAN_E_NOTCONV or SAN_E_INTERRUPTED when not (pi is then the
 * best vector reached, info->residual its residual); SAN_E_NUMERIC
 * (breakdown, a singular factorization), SAN_E_NOMEM or SAN_E_USAGE (an
 * invalid generator), with info->msg saying why. */
SAN_API san_status san_ctmc_solve(const san_csr *qt, double *pi, const san_solve_opts *o,
                          san_solve_info *info);

/* The residual of pi, from the transposed generator:
 *     max_j |(pi Q)_j| / (max_j |Q[j][j]| * max_j pi_j),
 * relative to the largest rate and the largest probability, so that it
 * is the same for pi and any multiple of it and does not shrink with the
 * number of states.  Every method's tol and info->residual mean this. */
SAN_API double san_ctmc_residual(const san_csr *qt, const double *pi);

/* Transpose (allocates); 0, or -1 when out of memory. */
SAN_API int san_csr_transpose(const san_csr *a, san_csr *at);
SAN_API void san_csr_free(san_csr *a);

#ifdef __cplusplus
}
#endif
#endif
