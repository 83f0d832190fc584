/*
 * solution.h - a steady-state solution's layout, for the library only
 * (issue 30 item 4): include/san/space.h declares san_solution opaque;
 * callers outside libsan make one with san_solution_new and read it
 * through the accessors of solver/analysis/solution_get.c.  It lives
 * here, in the lowest layer that fills it (space_solution_alloc): the
 * engines above (kron, petsc, analysis) and the reports write and read
 * it.  Inside, a solution may live on the stack or inside an analysis
 * (space_solution_clear releases what it holds).
 */
#ifndef SOLVER_SPACE_SOLUTION_H
#define SOLVER_SPACE_SOLUTION_H

#include <stdint.h>
#include "san.h"

/* One of the most probable states. */
typedef struct {
    int64_t state;          /* state number in the space */
    double p;
} space_top_state;

struct san_solution {
    double *pi;             /* per reachable state */
    san_solve_info info;
    double *results;        /* per model result */
    double **marginal;      /* [automaton][local state] */
    double *throughput;     /* per event */
    space_top_state *top;   /* most probable states, descending */
    int ntop;
};

/* What sol holds (m: the model its marginals are over), sol kept and
 * zeroed, with no LU correction made: the release of a solution on the
 * stack or inside another struct (san_solution_free releases one of
 * san_solution_new). */
void space_solution_clear(const san_model *m, san_solution *sol);

#endif
