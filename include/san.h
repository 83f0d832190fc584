/*
 * san.h - the public interface of libsan, a toolkit for Stochastic
 * Automata Networks: one header per part, in the order data flows.
 *
 *   san/base.h     status codes, diagnostics, SAN_API
 *   san/model.h    .san text -> san_model (lang/)
 *   san/solve.h    pi Q = 0 on a sparse generator, the accuracy contract
 *   san/space.h    san_model -> san_space (reachable states, generator or
 *                  tensor descriptor) -> san_solution and its indices
 *   san/analyze.h  the one pipeline from a model to its indices
 *   san/gen.h      parameter flags -> .san text
 *   san/sweep.h    families of variants, tables, plots
 *   san/analytic.h closed-form and flow models beside the SANs (master/worker,
 *                  multi-cluster bound, pipeline mapping, finite jobs, work rate)
 *   san/export.h   the chain and the automata for other tools (Matrix
 *                  Market, PRISM, CSV, Graphviz DOT)
 *   san/props.h    CSL properties of PRISM's property language
 *
 * Every structure is plain data that a caller can read directly; every
 * function that can fail returns a san_status (or NULL) and leaves its
 * explanation in a san_diag or a message.
 */
#ifndef SAN_H
#define SAN_H

#include "san/base.h"
#include "san/model.h"
#include "san/solve.h"
#include "san/space.h"
#include "san/analyze.h"
#include "san/gen.h"
#include "san/sweep.h"
#include "san/analytic.h"
#include "san/export.h"
#include "san/props.h"
#include "san/report.h"

#endif
