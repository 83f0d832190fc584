/*
 * index_order.c - a space's states by mixed-radix index, to find a
 * state of another numbering in it: the passage's rows built beside the
 * descriptor, the long-run answer's reach probabilities solved on such
 * rows, the transient's initial vector read from a file.  (Three files
 * sorted and searched their own (index, position) pairs before.)
 */
#include <stdlib.h>
#include "solver/space/state_space.h"
#include "solver/space/space_int.h"

static int cmp_index(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

int64_t *space_index_order(const san_space *sp)
{
    int64_t *ord = malloc((size_t)(sp->n ? sp->n : 1) * 2 * sizeof *ord);
    if (!ord)
        return NULL;
    for (int64_t i = 0; i < sp->n; i++) {
        ord[2 * i] = sp->index[i];
        ord[2 * i + 1] = i;
    }
    qsort(ord, (size_t)sp->n, 2 * sizeof *ord, cmp_index);
    return ord;
}

int64_t space_index_find(const int64_t *ord, int64_t n, int64_t index)
{
    const int64_t key[2] = { index, 0 };
    const int64_t *hit = bsearch(key, ord, (size_t)n, 2 * sizeof *ord, cmp_index);
    return hit ? hit[1] : -1;
}
