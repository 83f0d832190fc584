/*
 * san/analyze.h - the one analysis pipeline that every subcommand uses:
 * model -> state space -> storage -> solution -> indices
 * (solver/analysis/).
 */
#ifndef SAN_PUBLIC_ANALYZE_H
#define SAN_PUBLIC_ANALYZE_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "san/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The analysis pipeline (solver/analysis/analyze.c): model -> space ->  */
/* solution                                                             */
/* ------------------------------------------------------------------ */

typedef enum {
    SAN_STORAGE_AUTO,       /* the storage of the smaller predicted time
                               and memory (san_storage_choice), or the
                               descriptor when the sparse generator is
                               over the memory limit */
    SAN_STORAGE_SPARSE,
    SAN_STORAGE_KRON
} san_storage;

/* How --storage auto chose (issue 27 item 4; solver/analysis/
 * storage_choice.c gives the cost model and the rule). */
typedef enum {
    SAN_PICK_NONE,          /* not auto, or no prediction made */
    SAN_PICK_SMALL,         /* a small product space: sparse, unpredicted */
    SAN_PICK_FASTER,        /* both fit: the faster */
    SAN_PICK_SMALLER,       /* both fit, the smaller nearly as fast */
    SAN_PICK_FITS,          /* only this one fits the memory budget */
    SAN_PICK_NEITHER,       /* neither fits: the smaller (it may refuse) */
    SAN_PICK_FELL_BACK,     /* sparse predicted to fit, its build did not:
                               the descriptor */
    SAN_PICK_RETRIED        /* kron picked (faster or smaller), its methods
                               did not converge: sparse */
} san_storage_rule;

typedef struct {
    san_storage_rule rule;
    san_storage pick;       /* SPARSE or KRON (rule NONE: AUTO) */
    double states, nonzeros;        /* the inputs: reachable states, and
                                       Q's nonzeros (estimated) */
    double kron_bytes;      /* the descriptor with the solve's vectors
                               (san_kron_estimate_bytes) */
    double map_bytes;       /* the sparse exploration's state map */
    double budget;          /* bytes: --max-memory, or its default */
    double t_sparse, t_kron;        /* predicted seconds, build + solve, on an
                                       idle machine */
    double m_sparse, m_kron;        /* predicted peak bytes */
} san_storage_choice;

/* "small", "faster", "smaller", "fits", "neither", "fell-back",
 * "retried"; NULL for NONE. */
SAN_API const char *san_storage_rule_name(san_storage_rule r);
/* Why, in words, for the reports: "the faster: predicted 12.1 s and 1.02
 * GB, kron 16.3 s and 262 MB"; out is returned ("" for NONE). */
SAN_API char *san_storage_choice_text(const san_storage_choice *c, char *out, size_t size);

/* What the pipeline computes from the chain. */
typedef enum {
    SAN_ANALYSIS_STEADY,    /* pi Q = 0 (san solve) */
    SAN_ANALYSIS_TRANSIENT, /* pi(t) at given times (san transient) */
    SAN_ANALYSIS_PASSAGE    /* the time until a set of states is first
                               entered (san passage) */
} san_analysis_kind;

/* Time-dependent analyses (solver/analysis/transient.c): uniformization
 * with Fox-Glynn truncation over the storage's product y = x Q. */
typedef struct {
    const double *times;    /* ascending, >= 0 */
    int ntimes;
    /* The initial distribution, the first given of: a vector by
     * mixed-radix index (init_n entries; states outside the space are
     * an error, the rest normalized); uniform over the states where
     * `initial` is non-zero; uniform over the states the reachability
     * function accepts (the initial states of partial reachability). */
    const int64_t *init_index;
    const double *init_p;
    int64_t init_n;
    const san_expr *initial;
    const san_expr *until;  /* PASSAGE: the target set (non-zero) */
    double eps;             /* truncated Poisson mass per interval
                               (default 1e-13) */
    double ss_tol;          /* steady state when max_j |v_{k+1} - v_k| is
                               at most this (default 1e-15; 0: off) */
    double max_steps;       /* refuse when the products needed exceed
                               this (default 1e8) */
    int rewards;            /* also the integrals over [0, t] */
    const double *levels;   /* PASSAGE: percentiles wanted, in (0, 1) */
    int nlevels;
    double mean_tol;        /* PASSAGE: relative accuracy of the mean
                               by the series (default 1e-12); the sparse
                               storage solves for it instead, with the
                               options of `solve` (san_analysis_opts) */
} san_transient_opts;

/* how san_analysis_reach found the probability */
enum {
    SAN_REACH_SERIES,       /* the mass the uniformization series absorbed */
    SAN_REACH_GRAPH,        /* 1 for sure: every state the passage can visit
                               can reach the target (the graph) */
    SAN_REACH_SOLVE         /* a steady-state solve of the regenerative
                               chain whose cycles end in the target or
                               where it cannot be reached */
};
/* Who solves the stationary system: libsan's own kernels, or PETSc
 * over the ranks of mpirun (./configure --with-petsc; issue 20). */
typedef enum {
    SAN_ENGINE_SERIAL,
    SAN_ENGINE_PETSC
} san_engine;

/* How SAN_ENGINE_PETSC holds the generator: assembled (PETSc's AIJ, the
 * fast product), or a product that lists each state's transitions from
 * the model again (MATSHELL: no entry stored, a third or less of the
 * memory, a product ~100 times slower); AUTO: assembled when its
 * estimate fits --max-memory on every rank, else the shell. */
typedef enum {
    SAN_EMATRIX_AUTO,
    SAN_EMATRIX_AIJ,
    SAN_EMATRIX_SHELL
} san_engine_matrix;

/* Exact lumping of interchangeable replicas (san_model_lump). */
typedef enum {
    SAN_LUMP_AUTO = 0,      /* lump what is provably symmetric */
    SAN_LUMP_OFF            /* the model as written */
} san_lump;

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_analysis_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    san_space_opts space;   /* memory and state limits, progress, interrupt */
    san_solve_opts solve;   /* method, tol, ... */
    san_storage storage;
    int ntop;               /* most probable states to keep */
    double time_limit;      /* seconds for the whole analysis; 0: none */
    int space_only;         /* stop after step 1: the state space (and,
                               on the sparse path, its generator), no
                               solve: what the exports need */
    san_analysis_kind kind; /* STEADY unless set */
    san_transient_opts tr;  /* TRANSIENT, PASSAGE */
    san_engine engine;      /* SAN_ENGINE_PETSC: every MPI rank explores,
                               stores and solves its part of the chain
                               (PETSc's KSP), the indices reduced over
                               the ranks (doc/distributed.md) */
    const char *engine_options; /* PETSc options ("-ksp_type bcgs") */
    san_engine_matrix engine_matrix;
    int engine_keep_vector;     /* SAN_ENGINE_PETSC: keep each rank's part
                                   of the answer (the steady state, or pi
                                   at the last time) for san_engine_vector
                                   (16 bytes a state) */
    san_lump lump;          /* AUTO (the zero default): a model with
                               interchangeable replicas is solved on its
                               lumped chain (issue 28): the steady state
                               always, TRANSIENT and PASSAGE when exact
                               (a note in d says why not); space_only
                               builds that chain */
} san_analysis_opts;

/* The steady state of a chain with several closed classes (issue 31):
 * the long-run distribution from the initial one (uniform over the
 * states the reachability function accepts), sum over the classes c of
 * reach[c] times c's own stationary distribution; sol.info is the
 * combined answer's, its error_est the largest over the classes reached
 * of (the class's estimate + reach_error[c] / reach[c] + their
 * product). */
typedef struct {
    int64_t n;              /* closed classes (0: one, the usual steady state) */
    int64_t ninit;          /* initial states */
    double residual;        /* the reach system's relative residual */
    double *reach;          /* [n] the probability of ending in each class */
    double *reach_error;    /* [n] its estimated absolute error */
    int64_t *states;        /* [n] its states */
    int64_t *first;         /* [n] its first state (a number in sp) */
    double *error;          /* [n] its own solve's error estimate (0: one
                               state; NaN: not solved, never reached) */
} san_classes;

/* One analysis: what it built, found and measured.  Opaque: its layout
 * is the library's (solver/analysis/analysis_int.h); a caller makes one
 * with san_analysis_new and reads it through the accessors below. */
typedef struct san_analysis san_analysis;

SAN_API void san_analysis_opts_default(san_analysis_opts *o);
/* The options on the heap, set by name, for callers that do not see
 * the layout (solver/analysis/analysis_opts.c): san_analysis_opts_new
 * (the defaults; NULL when out of memory), san_analysis_opts_free (only
 * for what _new made).  san_analysis_opts_set(o, key, value, msg, n)
 * sets one field from text, checked as the command checks its flag:
 * "method" (auto, gmres, ...), "tol", "storage" (auto, sparse, kron),
 * "lump" (auto, off), "kind" (steady, transient, passage),
 * "max_memory" (bytes; 0: the default), "max_states" (0: no limit),
 * "time_limit" (0: none), "ntop", "space_only" (0, 1), and of the
 * time-dependent analyses "eps", "max_steps", "rewards" (0, 1),
 * "mean_tol".  SAN_OK, or SAN_E_USAGE with msg (an unknown key, with
 * the closest one; a value out of range or not a word of the key).
 * The rest: _set_interrupt (space and solve), _set_times and
 * _set_levels (copied: SAN_E_NOMEM), _set_states (the initial and until
 * selections, expressions of the model analyzed, e.g. the results
 * san_text_with_results added: san_model_result_expr). */
SAN_API san_analysis_opts *san_analysis_opts_new(void);
SAN_API void san_analysis_opts_free(san_analysis_opts *o);
SAN_API san_status san_analysis_opts_set(san_analysis_opts *o, const char *key,
                                         const char *value, char *msg, size_t n);
SAN_API void san_analysis_opts_set_interrupt(san_analysis_opts *o, volatile int *flag);
SAN_API san_status san_analysis_opts_set_times(san_analysis_opts *o, const double *times,
                                               int n);
SAN_API san_status san_analysis_opts_set_levels(san_analysis_opts *o, const double *levels,
                                                int n);
SAN_API void san_analysis_opts_set_states(san_analysis_opts *o, const san_expr *initial,
                                          const san_expr *until);
/* Build m's state space, choose the storage, solve, compute the indices.
 * SAN_OK; SAN_E_NOTCONV (the best answer and its indices kept) or any
 * failure of the steps, the reasons in d.  a comes from
 * san_analysis_new; free it with san_analysis_free whatever the
 * status. */
SAN_API san_status san_analyze(const san_model *m, const san_analysis_opts *o, san_analysis *a,
                       san_diag *d);
/* An analysis read through accessors (solver/analysis/analysis_get.c,
 * transient_get.c): san_analysis_new (zeroed, for san_analyze; NULL
 * when out of memory) and san_analysis_free (what it holds, then a;
 * san_analysis_delete is its old name).  What it holds:
 * san_analysis_has_space, _has_solution, _has_indices, _has_transient
 * (have_space, have_sol, have_indices, have_tr).  Arrays are pointers
 * into a, valid until it is freed.  The space: san_analysis_space (for
 * the exports), san_analysis_space_model (sp.m: the lumped model when
 * lumped), san_analysis_lumping (NULL: not lumped), san_analysis_kron,
 * san_analysis_states (sp.n), san_analysis_index (sp.index, n entries),
 * san_analysis_generator (sp.q's arrays; returns the nonzeros, 0 and
 * NULL arrays without a sparse generator).  The steady state:
 * san_analysis_pi (n entries), san_analysis_steady (the solution, for
 * san_solution_results ...), san_analysis_info (the solver's report,
 * for san_solve_info_converged ...), san_analysis_classes (classes.n)
 * and san_analysis_class (class k's states, its reach, reach_error and
 * error). */
SAN_API san_analysis *san_analysis_new(void);
SAN_API void san_analysis_free(san_analysis *a);
SAN_API SAN_DEPRECATED void san_analysis_delete(san_analysis *a);
SAN_API int san_analysis_has_space(const san_analysis *a);
SAN_API int san_analysis_has_solution(const san_analysis *a);
SAN_API int san_analysis_has_indices(const san_analysis *a);
SAN_API int san_analysis_has_transient(const san_analysis *a);
/* The model analyzed (as given to san_analyze), and whether the answer
 * was kept on the engine's ranks for san_engine_vector
 * (engine_keep_vector under SAN_ENGINE_PETSC). */
SAN_API const san_model *san_analysis_model(const san_analysis *a);
SAN_API int san_analysis_has_engine_vector(const san_analysis *a);
SAN_API const san_space *san_analysis_space(const san_analysis *a);
SAN_API const san_model *san_analysis_space_model(const san_analysis *a);
SAN_API const san_lumping *san_analysis_lumping(const san_analysis *a);
SAN_API int san_analysis_kron(const san_analysis *a);
SAN_API int64_t san_analysis_states(const san_analysis *a);
SAN_API const int64_t *san_analysis_index(const san_analysis *a);
SAN_API int64_t san_analysis_generator(const san_analysis *a, const int64_t **rowptr,
                                       const int32_t **col, const double **val);
SAN_API const double *san_analysis_pi(const san_analysis *a);
SAN_API const san_solution *san_analysis_steady(const san_analysis *a);
SAN_API const san_solve_info *san_analysis_info(const san_analysis *a);
SAN_API int64_t san_analysis_classes(const san_analysis *a);
SAN_API int64_t san_analysis_class(const san_analysis *a, int64_t k, double *reach,
                                   double *reach_error, double *error);
/* A time-dependent analysis (have_tr): san_analysis_times (the times,
 * when times is not NULL; their count returned), san_analysis_at (the solution at time k),
 * san_analysis_accumulated (its integral over [0, t]; NULL without
 * rewards), san_analysis_initial_states (tr.ninit),
 * san_analysis_uniformization (the rate; the products done and
 * planned, the truncated mass, the time the steady state was detected
 * or -1), san_analysis_incomplete; PASSAGE: san_analysis_target_states,
 * san_analysis_reach (P(reach); how: SAN_REACH_*, and P(T = 0)),
 * san_analysis_mean (E[T]; solved by a solve, its error estimate),
 * san_analysis_cdf (per time), san_analysis_percentiles (per level). */
SAN_API int san_analysis_times(const san_analysis *a, const double **times);
/* pi at the last time, per state of the space (NULL: not kept). */
SAN_API const double *san_analysis_pi_last(const san_analysis *a);
SAN_API const san_solution *san_analysis_at(const san_analysis *a, int k);
SAN_API const san_solution *san_analysis_accumulated(const san_analysis *a, int k);
SAN_API int64_t san_analysis_initial_states(const san_analysis *a);
SAN_API double san_analysis_uniformization(const san_analysis *a, long *products,
                                           double *planned, double *truncated,
                                           double *steady_at);
SAN_API int san_analysis_incomplete(const san_analysis *a);
SAN_API int64_t san_analysis_target_states(const san_analysis *a);
SAN_API double san_analysis_reach(const san_analysis *a, int *how, double *p_initial);
SAN_API double san_analysis_mean(const san_analysis *a, int *solved, double *error_est);
SAN_API const double *san_analysis_cdf(const san_analysis *a);
SAN_API const double *san_analysis_percentiles(const san_analysis *a);
/* This process's rank in the engine's ranks, and their count (0 and 1
 * when serial): only rank 0 reports. */
SAN_API int san_engine_rank(int *size);
/* The distributed answer (SAN_ENGINE_PETSC, engine_keep_vector) to rank
 * 0, state by state in increasing index: row(ctx, index, p) on rank 0
 * (a non-zero return stops the listing, the status is then SAN_E_IO);
 * the other ranks pass row NULL and send their parts.  Collective: every
 * rank calls it at the same point.  SAN_E_USAGE when a holds none. */
SAN_API san_status san_engine_vector(const san_analysis *a,
                                     int (*row)(void *ctx, int64_t index, double p), void *ctx);

/* ---- memory estimates before the build (solver/analysis/estimate.c) ---- */

/* What the state count is. */
typedef enum {
    SAN_EST_DECLARED,           /* the states the reachability function accepts
                               (counted exactly) */
    SAN_EST_REACHABLE,          /* partial reachability: explored from the
                               accepted states, exact (small spaces only) */
    SAN_EST_PRODUCT             /* the product space: an upper bound */
} san_estimate_basis;

typedef struct {
    int ok;                 /* 0: nothing estimated, see why */
    char why[256];
    int64_t states;         /* state count on `basis` */
    san_estimate_basis basis;
    int64_t states_at_least; /* partial reachability, space too large to
                               explore here: the states found (else 0) */
    /* Nonzeros of Q per state: successors other than the state itself,
     * plus the diagonal, averaged over `sampled` states (every state of
     * the basis when nonzeros_exact).  nonzeros_known 0: not estimated
     * (why_nonzeros says why), and sparse_bytes is then 0. */
    int nonzeros_known;
    char why_nonzeros[256];
    int nonzeros_exact;
    int64_t sampled;
    double nonzeros_per_state;
    double nonzeros;        /* states * nonzeros_per_state */
    double sparse_bytes;    /* peak of the sparse path: see estimate.c */
    double kron_bytes;      /* san_kron_estimate_bytes(m, states) */
    int over_sparse_limit;  /* more states than the sparse path numbers
                               (32-bit state numbers) */
} san_estimate;

/* What m would need, before building it: fills *e; SAN_OK, or
 * SAN_E_NOMEM (e->ok is then 0). */
SAN_API san_status san_estimate_memory(const san_model *m, san_estimate *e);

/* "states accepted by the reachability function" and so on. */
SAN_API const char *san_estimate_basis_name(san_estimate_basis b);    /* "declared", ... */

/* ---- the solve's checks before solving (solver/analysis/audit.c) ---- */

typedef enum {
    SAN_EXPLORE_AUTO,           /* explore when the space is small enough */
    SAN_EXPLORE_ALWAYS,         /* every reachable state, within max_memory */
    SAN_EXPLORE_NEVER           /* the model's text alone */
} san_explore_mode;

typedef struct {
    size_t struct_size;     /* sizeof the struct, set by san_audit_opts_default: the
                               library refuses options of another
                               layout (SAN_E_USAGE) */
    san_explore_mode explore;
    int64_t max_states;     /* auto: states explored at most (0: 2 10^5,
                               fewer for many automata) */
    double max_memory;      /* bytes; 0: san_default_max_memory() */
    int progress;           /* a progress line on stderr */
    volatile int *interrupt;
} san_audit_opts;

typedef struct {
    int explored;           /* states were explored (breadth-first from the
                               states the reachability function accepts) */
    int complete;           /* ... all the reachable ones */
    int64_t states;         /* states checked */
    char why[256];          /* not complete: which states were checked
                               (explored: "the first 200000, breadth-first
                               ..."), or why none were */
} san_audit;

/* What the solve would find wrong in m, found before it: on the
 * reachable states (explored as the solve explores them, up to a cap),
 * every enabled event's rate (negative, infinite, NaN), its routing
 * probabilities (in [0, 1], summing to 1) and the exit rates, each
 * problem reported once in d with its place in the text and the first
 * state where it occurs; warnings for local states no reachable state
 * leaves, events that never fire, automata that never move.  Without a
 * complete exploration, what the text alone shows is warned about
 * instead.  SAN_OK (errors, if any, in d), SAN_E_USAGE (o not filled by
 * san_audit_opts_default: its struct_size another layout's, said in d)
 * or SAN_E_NOMEM. */
SAN_API san_status san_audit_model(const san_model *m, const san_audit_opts *o, san_audit *r,
                                   san_diag *d);
/* Explore when small enough, the default caps, no progress, and
 * struct_size. */
SAN_API void san_audit_opts_default(san_audit_opts *o);
/* The same without the layouts (solver/analysis/audit_get.c):
 * san_audit_opts_new (the defaults), _free, _set with the keys
 * "explore" (auto, always, never), "max_states", "max_memory" (as
 * san_analysis_opts_set); san_audit_new (an answer to fill), _free, and
 * its fields san_audit_explored, _complete, _states, _why. */
SAN_API san_audit_opts *san_audit_opts_new(void);
SAN_API void san_audit_opts_free(san_audit_opts *o);
SAN_API san_status san_audit_opts_set(san_audit_opts *o, const char *key, const char *value,
                                      char *msg, size_t n);
SAN_API san_audit *san_audit_new(void);
SAN_API void san_audit_free(san_audit *r);
SAN_API int san_audit_explored(const san_audit *r);
SAN_API int san_audit_complete(const san_audit *r);
SAN_API int64_t san_audit_states(const san_audit *r);
SAN_API const char *san_audit_why(const san_audit *r);


#ifdef __cplusplus
}
#endif
#endif
