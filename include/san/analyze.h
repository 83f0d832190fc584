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
/* The analysis pipeline (solver/analyze.c): model -> space -> solution  */
/* ------------------------------------------------------------------ */

typedef enum {
    SAN_STORAGE_AUTO,       /* sparse, or the descriptor when the sparse
                               generator is over the memory limit */
    SAN_STORAGE_SPARSE,
    SAN_STORAGE_KRON
} san_storage;

typedef struct {
    san_space_opts space;   /* memory and state limits, progress, interrupt */
    san_solve_opts solve;   /* method, tol, ... */
    san_storage storage;
    int ntop;               /* most probable states to keep */
    double time_limit;      /* seconds for the whole analysis; 0: none */
    int space_only;         /* stop after step 1: the state space (and,
                               on the sparse path, its generator), no
                               solve: what the exports need */
} san_analysis_opts;

/* One analysis: what it built, found and measured. */
typedef struct {
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
    double t_space, t_solve;    /* seconds */
} san_analysis;

SAN_API void san_analysis_opts_default(san_analysis_opts *o);
/* Build m's state space, choose the storage, solve, compute the indices.
 * SAN_OK; SAN_E_NOTCONV (the best answer and its indices kept) or any
 * failure of the steps, the reasons in d.  Free a with
 * san_analysis_free whatever the status. */
SAN_API san_status san_analyze(const san_model *m, const san_analysis_opts *o, san_analysis *a,
                       san_diag *d);
SAN_API void san_analysis_free(san_analysis *a);

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


#ifdef __cplusplus
}
#endif
#endif
