/*
 * where.h - positions in the model's text of what the compiled model
 * holds (internal to libsan).
 *
 * The compiled model keeps no positions: 10^6 replicas would pay for
 * them in every transition.  Messages found after the load (a rate that
 * is negative in some reachable state, a routing that does not sum to 1
 * there, an absorbing local state) look them up here, in the parsed
 * text the model keeps (m->syntax), by the names the compiled objects
 * carry ("P[3]", "d[2]", "e@P[3]").  A lookup scans the declarations:
 * for messages, not for inner loops.  Each returns 1 with *line, *col
 * set, or 0 (not found; they are left alone).
 */
#ifndef SAN_WHERE_H
#define SAN_WHERE_H

#include "san.h"

/* The reachability function. */
int where_reach(const san_model *m, int *line, int *col);
int where_automaton(const san_model *m, int a, int *line, int *col);
/* The `stt` that declares local state s of automaton a. */
int where_state(const san_model *m, int a, int s, int *line, int *col);
/* The rate expression of event e's declaration. */
int where_rate(const san_model *m, int e, int *line, int *col);
/* The first label of event e on a transition out of local state s of a
 * (its `stt` block, then its `from` clauses). */
int where_trans(const san_model *m, int a, int s, int e, int *line, int *col);
/* A positional `to` (++, --, +k, -k) labelled e that falls outside its
 * state block at local state s of a, so that the transition was dropped
 * there: 1 with the `to`'s position and its step (+1 for ++). */
int where_dropped(const san_model *m, int a, int s, int e, int *line, int *col, int *rel);
/* A destination by an expression (to(+e), to(-e), to(=e)) labelled e
 * among the transitions out of local state s of a: 1 with the `to`'s
 * position and its sign ('+', '-' or '='). */
int where_by(const san_model *m, int a, int s, int e, int *line, int *col, char *sign);

#endif
