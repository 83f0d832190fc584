/*
 * check.c - the graph of a space built with states_only (the tensor
 * path stores no Q), for the class check of classes.c.
 *
 * At low fill the exploration keeps the arcs (the rows' columns, 4 bytes
 * each) while they fit (space.c, explore.c), and the check reads them
 * like the sparse path's.  Otherwise:
 *
 * The edges are enumerated again from the model (succ.c) instead of
 * read from Q, and kept on a stack-shaped arena: the check releases a
 * state's list when its depth-first frame is left, so memory is the
 * path's out-degrees, never the whole graph.  A successor's number comes
 * from the same index -> number map the exploration used (idmap.h),
 * rebuilt: the exploration had it, so it fits, and one lookup is one or
 * two loads.  (The level tree (tree.c), which this used before, decodes
 * every level of the index with divisions: on resource sharing with 26
 * automata and 10^6 states the check took 13.7 s instead of 0.6.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "idmap.h"
#include "space.h"
#include "succ.h"

typedef struct {
    space_graph g;          /* g.edges is the arena */
    const san_space *sp;
    succ_ctx sc;
    san_arcs arcs;
    idmap map;              /* index -> state number */
    int *s;                 /* decoded state */
    int64_t top, cap;       /* the arena's use and size */
} kgraph;

static void kgraph_free(kgraph *g)
{
    succ_free(&g->sc);
    free(g->arcs.v);
    idmap_free(&g->map);
    free(g->s);
    free(g->g.edges);
}

/* Successors of state v pushed on the arena. */
static int kgraph_succ(space_graph *gg, int32_t v, int64_t *pos, int64_t *end)
{
    kgraph *g = (kgraph *)gg;
    const san_model *m = g->sp->m;
    san_state_decode(m, g->sp->index[v], g->s);
    g->arcs.n = 0;
    int rc = succ_enumerate(&g->sc, g->s, g->sp->index[v], &g->arcs, gg->err, sizeof gg->err);
    if (rc)
        return rc;
    if (g->top + g->arcs.n > g->cap) {
        int64_t cap = g->cap ? 2 * g->cap : 4096;
        while (cap < g->top + g->arcs.n)
            cap *= 2;
        int32_t *a = realloc(gg->edges, cap * sizeof *a);
        if (!a)
            return -1;
        gg->edges = a;
        g->cap = cap;
    }
    *pos = g->top;
    /* the lookups miss the cache (a hash of 192 MiB for rs N=28 R=8):
     * issued together, they overlap */
    for (int k = 0; k < g->arcs.n; k++)
        idmap_prefetch(&g->map, g->arcs.v[k].to);
    for (int k = 0; k < g->arcs.n; k++) {
        const int32_t w = idmap_find(&g->map, g->arcs.v[k].to);
        gg->edges[g->top++] = w >= 0 ? w : v;   /* not in the space: no edge */
    }
    *end = g->top;
    return 0;
}

static void kgraph_release(space_graph *gg, int64_t pos)
{
    ((kgraph *)gg)->top = pos;
}

static int kgraph_init(kgraph *g, const san_space *sp)
{
    memset(g, 0, sizeof *g);
    g->g.succ = kgraph_succ;
    g->g.release = kgraph_release;
    g->sp = sp;
    g->s = calloc(sp->m->naut + 1, sizeof *g->s);
    if (!g->s || succ_init(&g->sc, sp->m) < 0)
        return -1;
    const san_model *m = sp->m;
    if (idmap_init(&g->map, m, (double)sp->n, san_default_max_memory()) < 0)
        return -1;
    for (int64_t i = 0; i < sp->n; i++) {
        int fresh;
        if (idmap_get(&g->map, sp->index[i], (int32_t)i, &fresh) == -2)
            return -1;
    }
    return 0;
}

int san_kron_check_classes(san_space *sp, san_diag *d)
{
    if (sp->q.col) {            /* the exploration kept the arcs */
        int rc = space_check_classes(sp, d);
        san_csr_free(&sp->q);
        return rc;
    }
    kgraph g;
    int rc = kgraph_init(&g, sp);
    if (rc == 0)
        rc = space_classes(sp, &g.g, d);
    else
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory checking the classes of %lld states",
                     (long long)sp->n);
    kgraph_free(&g);
    return rc;
}
