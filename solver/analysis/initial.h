/*
 * initial.h - the default initial distribution: uniform over the states
 * the reachability function (or an expression) accepts (initial.c;
 * internal to solver/analysis: pi(t), passage times, the long-run
 * answer of several closed classes).
 */
#ifndef SAN_INITIAL_H
#define SAN_INITIAL_H

#include <stdint.h>
#include "san.h"

/* x[i] (sp->n entries), unnormalized: 1 when state i is accepted by e
 * (NULL: the reachability function) and not gone (gone may be NULL),
 * else 0; lumped (L), the log of the count of original states state i
 * stands for (-HUGE_VAL when not accepted), their largest in *lmax, so
 * that exp(x[i] - lmax) weighs it.  The count of accepted states, or -1
 * (memory). */
int64_t initial_marks(const san_space *sp, const san_lumping *L, const san_expr *e,
                      const char *gone, double *x, double *lmax);

/* The uniform distribution of initial_marks over sp's states (one
 * process's whole chain).  The count of initial states: 0 none (x
 * zero), -1 memory. */
int64_t initial_uniform(const san_space *sp, const san_lumping *L, double *x);

#endif
