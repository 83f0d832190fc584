/* space.h - internals shared by the state-space files of libsan. */
#ifndef SAN_SPACE_H
#define SAN_SPACE_H

#include "san.h"

/* Strongly connected components; drops isolated pockets of a full
 * reachability function; requires one closed class.  0, -2 or -1. */
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
