/* state_space.h - internals shared by the state-space files of libsan. */
#ifndef SAN_STATE_SPACE_H
#define SAN_STATE_SPACE_H

#include "san.h"

/* The internal codes of the state-space layer: 0, -1 (out of memory or
 * interrupted), -2 (the model is wrong), SPACE_LIMIT (over --max-memory
 * or --max-states); san_space_build turns them into a san_status. */
#define SPACE_LIMIT (-3)
#define SPACE_TIME  (-4)    /* the time limit */
san_status space_status(int rc, const san_space_opts *o);
/* o filled against another layout (its struct_size, base_opts_foreign):
 * 1 with the refusal in d; 0 when it is libsan's. */
int space_opts_foreign(const san_space_opts *o, san_diag *d);

/* The bounds of an exploration's batches (explore.c): the transitions a
 * worker lists per batch lie in [quota_min, quota_max] (a state with
 * more is expanded alone, in pieces of a quota).  Fixed constants but
 * for the tests, which shrink them to run every path on small models. */
typedef struct {
    int64_t quota_min, quota_max;
} space_tuning;
extern const space_tuning space_tuning_default;

/* san_space_build with a tuning (NULL: the default). */
san_status space_build_tuned(const san_model *m, const san_space_opts *o, san_space *sp,
                             san_diag *d, const space_tuning *t);

/* The reachable graph as the class check sees it: succ() makes the
 * successors of state v available as edges[*pos .. *end) (positions, not
 * pointers: the array may move from one call to the next); more(), when
 * not NULL, gives the next ones once those are used (a state with
 * millions of successors comes in pieces: the source lists them again
 * from the model), in the same place, *pos == *end when none is left,
 * and may only be asked about the state whose list was given last;
 * release(pos), when not NULL, says the list starting at pos is no
 * longer needed (lists are released in the reverse order of their
 * creation, so a source may keep them on a stack).  succ and more
 * return 0, -1 (out of memory) or -2 (an invalid model, the message in
 * err). */
typedef struct space_graph space_graph;
struct space_graph {
    int32_t *edges;
    int (*succ)(space_graph *g, int32_t v, int64_t *pos, int64_t *end);
    int (*more)(space_graph *g, int32_t v, int64_t *pos, int64_t *end);
    void (*release)(space_graph *g, int64_t pos);
    double deadline;        /* san_now() past which the check stops
                               (SPACE_TIME); INFINITY: never */
    volatile int *interrupt;    /* set: the check stops (-1) */
    int several_closed;     /* several closed classes are no error
                               (san_space_opts) */
    int several_steady;     /* the same for a long-run answer
                               (san_space_opts): cls only when several */
    char err[1024];
};

/* Strongly connected components of g (over sp's states); drops isolated
 * pockets of a full reachability function (sp's states renumbered, and
 * its Q when it has one); requires one closed class (or accepts several,
 * g->several_closed, g->several_steady) and marks them in sp->in_closed.  0, -2, SPACE_TIME (with a diagnostic) or -1. */
int space_classes(san_space *sp, space_graph *g, san_diag *d);

/* The same on the generator sp->q, within o's time limit (counted from
 * the call) and interrupt flag (o may be NULL). */
int space_check_classes(san_space *sp, const san_space_opts *o, san_diag *d);

/* The point on san_now()'s clock where o's time limit, counted from
 * now, ends (INFINITY: no limit, or o NULL). */
double space_deadline(const san_space_opts *o);

/* Position of the diagonal entry of row i (rows are sorted). */
static inline int64_t space_diag_pos(const san_csr *q, int64_t i)
{
    int64_t lo = q->rowptr[i], hi = q->rowptr[i + 1] - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (q->col[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A closed class of sp, its n states members (ascending), as a space of
 * its own (class_space.c): its rows of Q when sp has them, its exit
 * rates when sp has them.  map: sp->n entries, all -1, left so.  0, or
 * -1 (memory). */
int space_class(const san_space *sp, const int64_t *members, int64_t n, int64_t *map,
                san_space *out);

/* sp's states by mixed-radix index (index_order.c): sp->n pairs (index,
 * position) sorted by index, malloc'd (NULL: out of memory); and the
 * position in sp of the state of that index, or -1. */
int64_t *space_index_order(const san_space *sp);
int64_t space_index_find(const int64_t *ord, int64_t n, int64_t index);

#endif
