/*
 * class_space.c - one closed class of a space as a space of its own: its
 * states (in the space's order), its chain (nothing leaves a closed
 * class, so its rows are whole) and exit rates, one closed class of
 * every state.  Either storage solves it as any chain (an_solve, the
 * tensor descriptor: a closed set of states is what a reachable set
 * is), which is how a chain of several closed classes gets each class's
 * own stationary distribution (solver/analysis/long_run.c; san props
 * does the same, solver/props/check.c).  The work
 * is the class's states and arcs, not the space's: a chain of 10^4
 * absorbing states is 10^4 small classes.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/space/state_space.h"
#include "solver/space/space_int.h"

/* Rows of the members, columns renumbered by map (all inside: closed). */
static int class_rows(const san_csr *q, const int64_t *members, int64_t n, const int64_t *map,
                      san_csr *out)
{
    int64_t nnz = 0;
    for (int64_t j = 0; j < n; j++)
        nnz += q->rowptr[members[j] + 1] - q->rowptr[members[j]];
    out->n = n;
    out->rowptr = malloc((size_t)(n + 1) * sizeof *out->rowptr);
    out->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *out->col);
    out->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *out->val);
    if (!out->rowptr || !out->col || !out->val)
        return -1;
    int64_t w = 0;
    out->rowptr[0] = 0;
    for (int64_t j = 0; j < n; j++) {
        const int64_t i = members[j];
        for (int64_t k = q->rowptr[i]; k < q->rowptr[i + 1]; k++) {
            out->col[w] = (int32_t)map[q->col[k]];
            out->val[w++] = q->val[k];
        }
        out->rowptr[j + 1] = w;
    }
    return 0;
}

int space_class(const san_space *sp, const int64_t *members, int64_t n, int64_t *map,
                san_space *out)
{
    memset(out, 0, sizeof *out);
    out->m = sp->m;
    out->index = malloc((size_t)(n ? n : 1) * sizeof *out->index);
    out->in_closed = malloc((size_t)(n ? n : 1));
    out->exit = sp->exit ? malloc((size_t)(n ? n : 1) * sizeof *out->exit) : NULL;
    if (!out->index || !out->in_closed || (sp->exit && !out->exit)) {
        space_clear(out);
        return -1;
    }
    for (int64_t j = 0; j < n; j++) {
        const int64_t i = members[j];
        map[i] = j;
        out->index[j] = sp->index[i];
        if (out->exit) {
            out->exit[j] = sp->exit[i];
            if (sp->exit[i] > out->max_rate)
                out->max_rate = sp->exit[i];
        }
    }
    out->n = out->nclosed = out->declared = n;
    out->nclasses = 1;
    if (n > 0)
        memset(out->in_closed, 1, (size_t)n);
    int rc = sp->q.val ? class_rows(&sp->q, members, n, map, &out->q) : 0;
    for (int64_t j = 0; j < n; j++)
        map[members[j]] = -1;
    if (rc < 0) {
        space_clear(out);
        return -1;
    }
    for (int64_t j = 0; sp->q.val && j < n; j++)
        for (int64_t e = out->q.rowptr[j]; e < out->q.rowptr[j + 1]; e++)
            if (out->q.col[e] == j && -out->q.val[e] > out->max_rate)
                out->max_rate = -out->q.val[e];
    out->bytes = 16.0 * n + (sp->q.val ? 12.0 * out->q.rowptr[n] : 0) + n;
    return 0;
}
