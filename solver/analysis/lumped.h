/* lumped.h - a lumped model's answer in the original model's terms. */
#ifndef SAN_LUMPED_H
#define SAN_LUMPED_H

#include "san.h"

/* sol (over L's lumped model) rewritten over L's original model: its
 * marginals per original automaton, throughputs per original event, the
 * derived results again.  SAN_OK or SAN_E_NOMEM (sol unchanged). */
san_status lump_expand_solution(const san_lumping *L, san_solution *sol);

#endif
