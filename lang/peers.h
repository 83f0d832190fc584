/*
 * peers.h - how PEPS 2003 and GTAexpress read names, shared by the
 * dialect printer (dialect.c) and the compatibility lint (compat.c);
 * peers.c unless said otherwise.
 * Internal to lang/.
 */
#ifndef SAN_PEERS_H
#define SAN_PEERS_H

#include "lang/ast.h"
#include "lang/model_int.h"

const lang_ident *peers_find_id(const san_model *m, const char *name);
/* A constant index expression's value (numbers, constants, + - * /). */
int peers_const(const san_model *m, const ast_expr *e, double *v);
/* The model automaton a reference names, or -1. */
int peers_find_aut(const san_model *m, const ast_ref *r);
/* States [*lo, *hi] of automaton a that r names; 0 if none. */
int peers_find_states(const san_model *m, int a, const ast_ref *r, int *lo, int *hi);
/* The automata [*a0, *a1] an nb/sum_rw/prod_rw ranges over (all without
 * a range); 0 if its bounds name none. */
int peers_range(const san_model *m, const ast_expr *e, int *a0, int *a1);
/* Do the peers, which look a state name up in the first automaton of the
 * model that declares it, count the same states as san in every
 * automaton of this nb/sum_rw/prod_rw's range? */
int peers_agree(const san_model *m, const ast_expr *e);

/* The length of e's text as the peers store it, every identifier
 * replaced in place by its own text (an estimate that bounds it;
 * peers_size.c). */
long peers_text_len(const san_model *m, const ast_expr *e);
/* PEPS 2003 copies the stored rate of a synchronized event into a
 * buffer of 128 bytes (NET::negative_event): rates estimated at this
 * length or more are tabulated by the dialect, with a margin for the
 * estimate. */
#define PEERS_SYNC_RATE_MAX 100

/* A synchronized event's rate as a table (dialect_tab.c): n entries,
 * each the local states of the automata deps the rate reads and the
 * rate there (never zero). */
typedef struct {
    int n, ndeps;
    int *deps;
    int *states;            /* n x ndeps */
    double *rate;
} peers_tab;
/* Compiled event ev's table; 0 if its automata have more than max
 * combinations of states, -1 out of memory, 1 done. */
int peers_tabulate(const san_model *m, int ev, long max, peers_tab *t);
void peers_tab_free(peers_tab *t);

#endif
