/*
 * san/export.h - the chain and the automata in other tools' formats
 * (solver/export/): Matrix Market for the generator, CSV for the
 * states, PRISM's explicit files, Graphviz DOT.
 *
 * Every writer numbers the reachable states the same way: by their
 * mixed-radix index, ascending (automaton 0 most significant), so that
 * state k of the Matrix Market file, of the states CSV and of the PRISM
 * files is the same state, whatever order the exploration found them
 * in.  That order is also PRISM's: its states are sorted by the tuple
 * of their variables' values.
 */
#ifndef SAN_PUBLIC_EXPORT_H
#define SAN_PUBLIC_EXPORT_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "san/space.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The export number of every state of sp: rank[i] for state i of the
 * space (malloc'd, sp->n entries; NULL when out of memory). */
SAN_API int64_t *san_export_ranks(const san_space *sp);

/* The generator Q (rows sum to zero) in Matrix Market coordinate form,
 * written by CHOLMOD's cholmod_write_sparse; rows and columns are the
 * export numbers plus one.  Needs a space built with its generator
 * (not states_only).  SAN_OK, SAN_E_USAGE (no generator), SAN_E_NOMEM
 * or SAN_E_IO; the reason in err. */
SAN_API san_status san_export_mtx(const san_space *sp, FILE *out, char *err, size_t n);
/* The same with note (one or more lines; NULL or "": none) written as
 * Matrix Market comment lines ('%' first) between the header and the
 * sizes: san export says there that the chain is lumped.  SAN_E_IO also
 * when the note's temporary file ($TMPDIR, else /tmp) cannot be made. */
SAN_API san_status san_export_mtx_note(const san_space *sp, const char *note, FILE *out,
                                       char *err, size_t n);

/* The reachable states as CSV: a header "state,index,A1,A2,..." then one
 * line per state: its export number, its mixed-radix index, the name of
 * each automaton's local state.  SAN_OK or SAN_E_NOMEM. */
SAN_API san_status san_export_states(const san_space *sp, FILE *out);

/* PRISM's explicit model files (its manual, "Explicit model files"):
 *   .tra  "n m", then "i j rate" for every off-diagonal rate of Q;
 *   .sta  "(A1,A2,...)", then "i:(s1,s2,...)", the local state numbers;
 *   .lab  "init", "deadlock", then one label per local state, true where
 *         the automaton is in that state.  "init" marks the model's
 *         initial states: those its reachability function accepts (under
 *         partial reachability, the states the chain is explored from;
 *         under full reachability, every declared state).
 * The variables, labels and reward structures get PRISM identifiers that
 * are unique and none of PRISM's keywords: the identifier of the name
 * ("P[3]" -> "P_3", a label "Aut_state"), a '_' after a keyword
 * ("const_"), "_2", "_3", ... after a name already given, in automaton,
 * label, reward order.  san_export_prism_map lists them.  Same statuses
 * as san_export_mtx. */
SAN_API san_status san_export_prism_tra(const san_space *sp, FILE *out, char *err, size_t n);
SAN_API san_status san_export_prism_sta(const san_space *sp, FILE *out);
SAN_API san_status san_export_prism_lab(const san_space *sp, FILE *out);

/* The reward structures of the export: every result that is an
 * expectation over the states (not a derived one), then every event's
 * throughput, numbered from 0. */
SAN_API int san_export_prism_nrewards(const san_model *m);
/* Reward structure k as a PRISM state rewards file (BASE<k+1>.srew for
 * PRISM's -importmodel BASE.all): '# Reward structure "name"', '# State
 * rewards', "n m", then "i r" for every state where the reward is not 0:
 * a result's value in state i, or an event's rate in state i (its
 * throughput is then PRISM's R=? [ S ], the expected firings by t its
 * R=? [ C<=t ]).  SAN_OK, SAN_E_USAGE (no structure k), SAN_E_MODEL (a
 * reward that is not finite), SAN_E_NOMEM or SAN_E_IO; the reason in
 * err. */
SAN_API san_status san_export_prism_srew(const san_space *sp, int k, FILE *out, char *err,
                                         size_t n);
/* The names above as CSV, "kind,index,san,state,prism": kind variable
 * (index: its place in .sta), label (its number in .lab; state: the
 * local state), reward (a result) or throughput (an event), index the
 * number of its .srew file.  SAN_OK, SAN_E_NOMEM or SAN_E_IO. */
SAN_API san_status san_export_prism_map(const san_model *m, FILE *out);

/* Graphviz DOT of the automata: one cluster per automaton, its local
 * states as nodes, one edge per transition labelled with its event, the
 * event's rate (a number, or the rate's expression when it reads the
 * state) and the routing probability when there is one; synchronizing
 * events drawn bold.  SAN_OK or SAN_E_NOMEM. */
SAN_API san_status san_export_dot_automata(const san_model *m, FILE *out);

/* What an export of a lumped chain says in the files that take comments
 * (san_export_mtx_note, DOT's // lines): the classes lumped, the states
 * when counted (states < 0: not, as for the automata) and the product of
 * the model as written; two lines, malloc'd.  NULL when L is NULL (not
 * lumped) or out of memory. */
SAN_API char *san_export_lump_note(const san_lumping *L, const san_model *m, int64_t states);

/* Graphviz DOT of the reachable chain: one node per state (its local
 * states as label), one edge per pair of states with the events that
 * lead there and the total rate.  Over max_states states (0: 1000) it
 * writes nothing and returns SAN_E_LIMIT.  SAN_OK, SAN_E_LIMIT,
 * SAN_E_MODEL (an invalid functional rate) or SAN_E_NOMEM; the reason
 * in err. */
SAN_API san_status san_export_dot_space(const san_space *sp, int64_t max_states, FILE *out,
                                        char *err, size_t n);

#ifdef __cplusplus
}
#endif
#endif
