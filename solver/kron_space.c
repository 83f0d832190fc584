/*
 * kron_space.c - the graph of a space built with states_only (the tensor
 * path stores no Q), for the class check of classes.c.
 *
 * The edges are enumerated again from the model (succ.c) instead of
 * read from Q, and kept on a stack-shaped arena: the check releases a
 * state's list when its depth-first frame is left, so memory is the
 * path's out-degrees, never the whole graph.  A successor's number comes
 * from the level tree of kron.c (its sorted position) and one
 * permutation back to the space's numbering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "idmap.h"
#include "kron.h"
#include "space.h"
#include "succ.h"

typedef struct {
    space_graph g;          /* g.edges is the arena */
    const san_space *sp;
    succ_ctx sc;
    san_arcs arcs;
    kron_tree tree;
    int32_t *perm;          /* sorted position -> state number */
    idmap map;              /* or, when the product space is small enough,
                               index -> state number (idmap.h) */
    int use_map;
    int *s;                 /* decoded state */
    int64_t top, cap;       /* the arena's use and size */
} kgraph;

static void kgraph_free(kgraph *g)
{
    succ_free(&g->sc);
    free(g->arcs.v);
    kron_tree_free(&g->tree);
    free(g->perm);
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
    for (int k = 0; k < g->arcs.n; k++) {
        if (g->use_map) {
            int32_t w = idmap_find(&g->map, g->arcs.v[k].to);
            gg->edges[g->top++] = w >= 0 ? w : v;
            continue;
        }
        int64_t r = kron_tree_rank(&g->tree, m, g->arcs.v[k].to);
        gg->edges[g->top++] = r >= 0 ? g->perm[r] : v;
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
    /* A flat map when it costs at most 16 bytes a state: one load per
     * edge instead of a walk down the tree. */
    const san_model *m = sp->m;
    if (m->product_fits && m->product < INT32_MAX && m->product <= 4 * sp->n + 1024
        && idmap_init(&g->map, m, san_default_max_memory()) == 0) {
        g->use_map = 1;
        for (int64_t i = 0; i < sp->n; i++) {
            int fresh;
            if (idmap_get(&g->map, sp->index[i], (int32_t)i, &fresh) == -2)
                return -1;
        }
        return 0;
    }
    if (kron_tree_build(&g->tree, sp, 0) < 0)
        return -1;
    g->perm = malloc((sp->n ? sp->n : 1) * sizeof *g->perm);
    if (!g->perm)
        return -1;
    for (int64_t i = 0; i < sp->n; i++)
        g->perm[kron_tree_rank(&g->tree, sp->m, sp->index[i])] = (int32_t)i;
    return 0;
}

int san_kron_check_classes(san_space *sp, san_diag *d)
{
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
