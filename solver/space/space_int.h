/*
 * space_int.h - a state space's layout, for the library only (issue 30
 * item 4): include/san/space.h declares san_space opaque; callers
 * outside libsan (tool/, tests of the public API) make one with
 * san_space_new and read it through the accessors of space_get.c.
 * Inside, a space may live on the stack or inside another struct (an
 * analysis, a property checker): space_clear releases what it holds.
 */
#ifndef SOLVER_SPACE_SPACE_INT_H
#define SOLVER_SPACE_SPACE_INT_H

#include <stdint.h>
#include "san.h"

/* The reachable states, numbered 0..n-1 in exploration order, and the
 * generator over them.  Vectors on the reachable set use these numbers. */
struct san_space {
    const san_model *m;
    int64_t n;              /* reachable states */
    int64_t *index;         /* mixed-radix index of each state */
    san_csr q;              /* Q by rows (out-transitions, diagonal included);
                               states_only: the columns alone (val NULL)
                               for san_kron_check_classes, which frees
                               them, or none when they did not fit */
    double *exit;           /* states_only: each state's total rate to the
                               others, -q_ii (NULL otherwise) */
    int64_t declared;       /* states the reachability function accepts */
    int64_t reached_undeclared; /* reached, but rejected by the function */
    int64_t dropped;        /* isolated pockets dropped */
    /* The one closed class the chain must have (several when the build
     * was asked for several_closed); other states are transient. */
    int64_t nclosed;        /* states in the closed class(es) */
    char *in_closed;        /* per state: 1 in a closed class */
    double max_rate;        /* largest |q_ii| */
    double t_explore, t_build, t_check;  /* seconds */
    double bytes;           /* memory held by this structure */
    int64_t nclasses;       /* closed classes (1 unless several_closed
                               or several_steady) */
    int32_t *cls;           /* several_closed (several_steady: when
                               nclasses > 1): per state its closed class
                               (0..nclasses-1), -1 transient; else NULL */
};

/* What sp holds, sp kept and zeroed: the release of a space on the
 * stack or inside another struct (san_space_free releases one of
 * san_space_new). */
void space_clear(san_space *sp);

#endif
