/*
 * export_int.h - what the writers of solver/export/ share (internal).
 */
#ifndef SAN_EXPORT_INT_H
#define SAN_EXPORT_INT_H

#include <stdint.h>
#include <stdio.h>
#include "san.h"

/* The states in export order: order[r] is the space's number of the
 * state of export number r (malloc'd; NULL when out of memory). */
int64_t *exp_order(const san_space *sp);

/* Q with its rows and columns in export numbering, each row's columns
 * ascending (malloc'd; 0, or -1 when out of memory). */
int exp_permuted(const san_space *sp, san_csr *pq);

/* name made a PRISM identifier into buf: letters, digits and '_', not
 * starting with a digit; "P[3]" -> "P_3". */
char *exp_ident(const char *name, char *buf, size_t n);

/* Whether s is one of PRISM's keywords (or its built-in label
 * "deadlock"): such a name cannot be a variable, label or reward. */
int exp_prism_keyword(const char *s);

/* The PRISM names of a model (names.c): injective, keyword-safe.
 *   var[a]                       automaton a's variable in .sta;
 *   label[first[a] + s]          the label of its local state s;
 *   reward[k]                    reward structure k, k = 0..nreward-1,
 *                                written to BASE<k+1>.srew: rew_what[k]
 *                                is a result r (< m->nres) or the
 *                                throughput of event rew_what[k] - nres. */
typedef struct {
    char **var, **label, **reward;
    int *first, *rew_what;
    int nvar, nlabel, nreward;
} exp_names;

/* 0, or -1 when out of memory (nm then empty). */
int exp_names_make(const san_model *m, exp_names *nm);
void exp_names_free(exp_names *nm);

/* snprintf into err when err is not NULL. */
void exp_err(char *err, size_t n, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
