/* lumped.h - a lumped model's answer in the original model's terms. */
#ifndef SAN_LUMPED_H
#define SAN_LUMPED_H

#include "san.h"
#include "solver/analysis/analysis_int.h"

/* sol (over L's lumped model) rewritten over L's original model: its
 * marginals per original automaton, throughputs per original event, the
 * derived results again.  SAN_OK or SAN_E_NOMEM (sol unchanged). */
san_status lump_expand_solution(const san_lumping *L, san_solution *sol);

/* Transient and passage (lumped_time.c).  lump_time_opts: o over L's
 * lumped model into lo (its --initial and --until expressions the
 * lumped model's); 1 when the lumped chain answers o exactly, 0 when
 * not (a note in d says why), -1 out of memory. */
int lump_time_opts(const san_lumping *L, const san_analysis_opts *o, san_analysis_opts *lo,
                   san_diag *d);
/* T's indices (over L's lumped model) told back over the original
 * model.  SAN_OK or SAN_E_NOMEM (T then holds nothing to tell back). */
san_status lump_expand_transient(const san_lumping *L, an_time_answer *T);

#endif
