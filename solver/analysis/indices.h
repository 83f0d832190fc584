/*
 * indices.h - the indices of a solution, within a time limit or not
 * (internal to libsan since issue 30 item 4: callers outside read the
 * indices of san_analyze's solution).
 */
#ifndef SAN_INDICES_H
#define SAN_INDICES_H

#include "san.h"

/* Fill results, marginals, throughputs and the ntop most probable
 * states of sol (its pi over sp): SAN_OK or SAN_E_NOMEM. */
san_status an_solution_indices(const san_space *sp, san_solution *sol, int ntop,
                               san_diag *d);
/* an_solution_indices, given up at deadline (a point on san_now()'s
 * clock; 0: none): on a large model with many events they take
 * seconds (every event's rate in every state), and a run under
 * --time-limit must end at its limit.  SAN_E_INTERRUPTED then, with a
 * diagnostic, the indices left out. */
san_status solution_indices_until(const san_space *sp, san_solution *sol, int ntop,
                                  double deadline, san_diag *d);

#endif
