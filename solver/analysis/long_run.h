/*
 * long_run.h - the steady state of a chain with several closed classes,
 * from the initial distribution (long_run.c; internal to
 * solver/analysis, called by analyze.c's solve step).
 */
#ifndef SAN_LONG_RUN_H
#define SAN_LONG_RUN_H

#include "san.h"

/* a->sp has several closed classes (sp.cls): a->sol gets the long-run
 * distribution and its combined solve figures, a->classes how the
 * classes were weighed.  so: the solve options left for the classes'
 * solves; o: the analysis's (memory, for the descriptor's reach rows).
 * SAN_OK, SAN_E_NOTCONV (a class's best vector kept), or a failure with
 * its reason in d. */
san_status long_run_solve(const san_analysis_opts *o, const san_solve_opts *so,
                          san_analysis *a, san_diag *d);

void long_run_free(san_classes *c);

#endif
