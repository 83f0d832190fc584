/* space.h - internals shared by the state-space files of libsan. */
#ifndef SAN_SPACE_H
#define SAN_SPACE_H

#include "san.h"

/* The internal codes of the state-space layer: 0, -1 (out of memory or
 * interrupted), -2 (the model is wrong), SPACE_LIMIT (over --max-memory
 * or --max-states); san_space_build turns them into a san_status. */
#define SPACE_LIMIT (-3)
#define SPACE_TIME  (-4)    /* the time limit */
san_status space_status(int rc, const san_space_opts *o);

/* The reachable graph as the class check sees it: succ() makes the
 * successors of state v available as edges[*pos .. *end) (positions, not
 * pointers: the array may move from one call to the next); release(pos),
 * when not NULL, says the list starting at pos is no longer needed (lists
 * are released in the reverse order of their creation, so a source may
 * keep them on a stack).  succ returns 0, -1 (out of memory) or -2 (an
 * invalid model, the message in err). */
typedef struct space_graph space_graph;
struct space_graph {
    int32_t *edges;
    int (*succ)(space_graph *g, int32_t v, int64_t *pos, int64_t *end);
    void (*release)(space_graph *g, int64_t pos);
    char err[1024];
};

/* Strongly connected components of g (over sp's states); drops isolated
 * pockets of a full reachability function (sp's states renumbered, and
 * its Q when it has one); requires one closed class and marks it in
 * sp->in_closed.  0, -2 (with a diagnostic) or -1. */
int space_classes(san_space *sp, space_graph *g, san_diag *d);

/* The same on the generator sp->q. */
int space_check_classes(san_space *sp, san_diag *d);

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

#endif
