/*
 * explore.h - breadth-first exploration writing the rows of Q (internal
 * to libsan; space.c drives it).
 */
#ifndef SAN_EXPLORE_H
#define SAN_EXPLORE_H

#include <stdint.h>
#include "san.h"
#include "solver/space/idmap.h"
#include "solver/space/state_space.h"

/* The states found so far (their mixed-radix indices, by number) and the
 * rows of Q written so far, in compressed rows that grow by doubling.
 * States only, the rows may keep their columns alone (arcs): the class
 * check then reads them instead of enumerating every state's successors
 * again on one thread (rs N=28 R=8: 6 s); they are dropped when they
 * would take more than a quarter of the memory limit. */
typedef struct {
    int64_t *index;
    int64_t n, cap;         /* states */
    int states_only;        /* no values: exit instead */
    int arcs;               /* states only, but the rows' columns are kept
                               (for the class check) while they fit */
    int64_t *rowptr;        /* cap + 1 (not states only, or arcs) */
    double *exit;           /* states only: cap, each state's total rate to
                               the others (-q_ii) */
    int32_t *col;
    double *val;
    int64_t nnz, capnz;
} space_rows;

int space_rows_reserve_states(space_rows *r, int64_t need);
void space_rows_free(space_rows *r);

/* Expands states r->n0.. in order of their numbers until no state is left
 * unexpanded, numbering new states as they are found (so numbers are the
 * breadth-first order, whatever the number of threads).  Writes row i of
 * Q (sorted, self-loops dropped, diagonal added) unless o->states_only,
 * and then its exit rate (r->exit).
 * States reached that the reachability function rejects are counted in
 * *undeclared (full reachability only).  0, -1 (out of memory,
 * interrupted) or -2 (an invalid rate, a limit), with a diagnostic. */
int space_explore(const san_model *m, space_rows *r, idmap *h, const san_space_opts *o,
                  double limit, const space_tuning *t, int64_t *undeclared, san_diag *d);

#endif
