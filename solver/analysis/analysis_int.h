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
    san_transient tr;       /* TRANSIENT, PASSAGE: valid when have_tr */
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
