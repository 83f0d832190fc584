/*
 * class_space.c - one closed class of a space as a space of its own: its
 * states (in the space's order), its chain (nothing leaves a closed
 * class, so its rows are whole) and exit rates, one closed class of
 * every state.  Either storage solves it as any chain (san_solve, the
 * tensor descriptor: a closed set of states is what a reachable set
 * is), which is how a chain of several closed classes gets each class's
 * own stationary distribution (solver/analysis/long_run.c).
 */
#include <stdlib.h>
#include <string.h>
#include "linsolve.h"
#include "space.h"

int space_class(const san_space *sp, int32_t k, san_space *out)
{
    memset(out, 0, sizeof *out);
    out->m = sp->m;
    int64_t n = 0;
    for (int64_t i = 0; i < sp->n; i++)
        n += sp->cls[i] == k;
    int64_t *map = malloc((size_t)(sp->n ? sp->n : 1) * sizeof *map);
    out->index = malloc((size_t)(n ? n : 1) * sizeof *out->index);
    out->in_closed = malloc((size_t)(n ? n : 1));
    out->exit = sp->exit ? malloc((size_t)(n ? n : 1) * sizeof *out->exit) : NULL;
    if (!map || !out->index || !out->in_closed || (sp->exit && !out->exit)) {
        free(map);
        san_space_free(out);
        return -1;
    }
    int64_t j = 0;
    for (int64_t i = 0; i < sp->n; i++) {
        map[i] = sp->cls[i] == k ? j : -1;
        if (map[i] < 0)
            continue;
        out->index[j] = sp->index[i];
        if (out->exit) {
            out->exit[j] = sp->exit[i];
            if (sp->exit[i] > out->max_rate)
                out->max_rate = sp->exit[i];
        }
        j++;
    }
    out->n = out->nclosed = out->declared = n;
    out->nclasses = 1;
    memset(out->in_closed, 1, (size_t)n);
    if (sp->q.val && san_csr_restrict(&sp->q, map, n, &out->q) < 0) {
        free(map);
        san_space_free(out);
        return -1;
    }
    free(map);
    for (int64_t i = 0; sp->q.val && i < n; i++)
        for (int64_t e = out->q.rowptr[i]; e < out->q.rowptr[i + 1]; e++)
            if (out->q.col[e] == i && -out->q.val[e] > out->max_rate)
                out->max_rate = -out->q.val[e];
    out->bytes = 16.0 * n + (sp->q.val ? 12.0 * out->q.rowptr[n] : 0) + n;
    return 0;
}
