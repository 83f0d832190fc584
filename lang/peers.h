/*
 * peers.h - how PEPS 2003 and GTAexpress read names, shared by the
 * dialect printer (dialect.c) and the compatibility lint (compat.c).
 * Internal to lang/.
 */
#ifndef SAN_PEERS_H
#define SAN_PEERS_H

#include "ast.h"

const san_ident *peers_find_id(const san_model *m, const char *name);
/* A constant index expression's value (numbers, constants, + - * /). */
int peers_const(const san_model *m, const ast_expr *e, double *v);
/* The model automaton a reference names, or -1. */
int peers_find_aut(const san_model *m, const ast_ref *r);
/* States [*lo, *hi] of automaton a that r names; 0 if none. */
int peers_find_states(const san_model *m, int a, const ast_ref *r, int *lo, int *hi);
/* Do the peers, which look a state name up in the first automaton of the
 * model that declares it, count the same states as san in every
 * automaton of this nb/sum_rw/prod_rw's range? */
int peers_agree(const san_model *m, const ast_expr *e);

#endif
