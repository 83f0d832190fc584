/*
 * indices.h - the indices of a solution within a time limit (internal
 * to libsan; san_solution_indices is the public form, without one).
 */
#ifndef SAN_INDICES_H
#define SAN_INDICES_H

#include "san.h"

/* san_solution_indices, given up at deadline (a point on san_now()'s
 * clock; 0: none): on a large model with many events they take
 * seconds (every event's rate in every state), and a run under
 * --time-limit must end at its limit.  SAN_E_INTERRUPTED then, with a
 * diagnostic, the indices left out. */
san_status solution_indices_until(const san_space *sp, san_solution *sol, int ntop,
                                  double deadline, san_diag *d);

#endif
