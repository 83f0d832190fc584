/*
 * reach_walk.h - the states a reachability function accepts, in index
 * order, without trying them one by one (internal to libsan).
 *
 * A depth-first walk fixes the automata one by one, most significant
 * first, and bounds the function over the box of states below each
 * node (lang_expr_range, lang/expr_range.c): a box where it is surely 0
 * is skipped whole, one where it is surely nonzero taken whole without
 * evaluating it again.  `nb using <= R` is false below any prefix with
 * more than R users, so resource sharing with 30 processes and at most
 * 4 users (31,931 states of 2^30) is walked in 0.03 s instead of
 * tried state by state in 50 s.
 */
#ifndef SAN_REACH_WALK_H
#define SAN_REACH_WALK_H

#include <stdint.h>
#include "san.h"

typedef struct reach_walk reach_walk;
struct reach_walk {
    const san_model *m;
    const int *aut;         /* the automata walked, ascending; NULL: all */
    int naut;               /*   (the others stay at state 0) */
    int64_t max_evals;      /* give up past this many evaluations; 0: none */
    /* an accepted state: idx = sum of state[a] * stride[a] over the
     * automata walked; 0 to go on, 1 to stop the walk, -1 on failure */
    int (*take)(reach_walk *w, int64_t idx, const int *state);
    /* every 2^20 evaluations, or NULL; nonzero stops the walk (-1) */
    int (*tick)(reach_walk *w);
    void *ctx;
    int64_t evals;          /* evaluations done, point or box */
};

/* 0: walked (or stopped by take); -1: take failed or out of memory;
 * -3: more than max_evals evaluations. */
int reach_walk_run(reach_walk *w);

#endif
