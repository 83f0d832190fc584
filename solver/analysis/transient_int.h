/*
 * transient_int.h - the time-dependent kinds of the pipeline, as
 * analyze.c calls them (internal to solver/analysis/).
 */
#ifndef SAN_TRANSIENT_INT_H
#define SAN_TRANSIENT_INT_H

#include "san.h"
#include "solver/analysis/analysis_int.h"

struct psc_dchain;

/* TRANSIENT or PASSAGE on a built space (a->sp, a->kron), or over the
 * MPI ranks on the chain ch spread over them (solver/petsc/petsc_solve.h;
 * NULL: serial): fills a->tr.  deadline: san_now() past which to stop
 * (0: none). */
san_status an_transient(const san_analysis_opts *o, san_analysis *a,
                                  struct psc_dchain *ch, double deadline, san_diag *d);
void an_transient_free(const san_model *m, an_time_answer *T);

#endif
