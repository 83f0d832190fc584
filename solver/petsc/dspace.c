/*
 * dspace.c - a rank's part of the reachable states (dspace, dist.h):
 * the bytes it holds, its arcs dropped, its release.  A leaf of
 * solver/petsc/: the exploration (dexplore.c), the partition, the matrix
 * and the matrix-free product read it.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/petsc/dist.h"

double dspace_bytes(const dspace *s)
{
    return 20.0 * s->cap + 20.0 * s->caparc + idmap_bytes(&s->map, s->m) + s->buf_bytes;
}

void dspace_free(dspace *s)
{
    free(s->index);
    free(s->exit);
    free(s->rel);
    idmap_free(&s->map);
    free(s->arow);
    free(s->asrank);
    free(s->aslocal);
    free(s->aval);
    free(s->offset);
    free(s->split);
    free(s->kstride);
    free(s->moves);
    memset(s, 0, sizeof *s);
}

void dspace_drop_arcs(dspace *s)
{
    free(s->arow);
    free(s->asrank);
    free(s->aslocal);
    free(s->aval);
    s->arow = s->asrank = s->aslocal = NULL;
    s->aval = NULL;
    s->narc = s->caparc = 0;
    s->buf_bytes = 0;
}
