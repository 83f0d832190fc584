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
 * path's out-degrees (at most PIECE each), never the whole graph.  A successor's number comes
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
#include "base/services.h"
#include "solver/space/idmap.h"
#include "solver/space/state_space.h"
#include "solver/space/succ.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

/* A state's successors come in pieces of at most this many: a state
 * of the depth-first path holds at most one piece in the arena (4 bytes
 * a successor) and its place in the enumeration (succ_cursor), so that
 * 2^N successors a state (N replicas routing 0.5/0.5 on one
 * synchronizing event) cost 1 KiB a state of the path, not 2^(N+2)
 * bytes.  A piece costs one evaluation of the event's rate and
 * probabilities, next to hundreds of successors. */
#define PIECE 256

/* A state whose list is in pieces: where its enumeration stands. */
typedef struct {
    int32_t v;
    int64_t first;          /* where its piece lies in the arena */
    succ_cursor cur;
} pending;

typedef struct {
    space_graph g;          /* g.edges is the arena */
    const san_space *sp;
    succ_ctx sc;
    space_arcs arcs;
    idmap map;              /* index -> state number */
    int *s;                 /* decoded state */
    int64_t top, cap;       /* the arena's use and size */
    pending *lazy;          /* the states of the path listed in pieces */
    int64_t nlazy, caplazy;
    double limit;           /* --max-memory */
    double fixed;           /* what the check holds besides the arena */
} kgraph;

static void kgraph_free(kgraph *g)
{
    succ_free(&g->sc);
    free(g->arcs.v);
    idmap_free(&g->map);
    free(g->s);
    free(g->g.edges);
    free(g->lazy);
}

/* The next piece of v's successors (cursor cur) pushed on the arena at
 * its top; 0 when v has no more, 1 when it has, or -1 / -2. */
static int kgraph_piece(kgraph *g, int32_t v, succ_cursor *cur)
{
    space_graph *gg = &g->g;
    const san_model *m = g->sp->m;
    const int64_t idx = g->sp->index[v];
    san_state_decode(m, idx, g->s);
    g->arcs.n = 0;
    int rc = succ_enumerate_part(&g->sc, g->s, idx, cur, PIECE, &g->arcs, gg->err,
                                 sizeof gg->err);
    if (rc < 0)
        return rc;
    if (g->top + g->arcs.n > g->cap) {
        int64_t cap = g->cap ? 2 * g->cap : 4096;
        while (cap < g->top + g->arcs.n)
            cap *= 2;
        const double need = g->fixed + 4.0 * (double)cap + 24.0 * g->arcs.cap;
        if (need > g->limit) {
            char nb[32], lb[32];
            snprintf(gg->err, sizeof gg->err, "the class check of %lld states needs more "
                     "than %s (its depth-first path holds %lld successors), over the "
                     "memory limit of %s; raise --max-memory", (long long)g->sp->n,
                     san_format_bytes(need, nb, sizeof nb), (long long)g->top,
                     san_format_bytes(g->limit, lb, sizeof lb));
            return SPACE_LIMIT;
        }
        int32_t *a = realloc(gg->edges, cap * sizeof *a);
        if (!a)
            return -1;
        gg->edges = a;
        g->cap = cap;
    }
    /* the lookups miss the cache (a hash of 192 MiB for rs N=28 R=8):
     * issued together, they overlap */
    for (int k = 0; k < g->arcs.n; k++)
        idmap_prefetch(&g->map, g->arcs.v[k].to);
    for (int k = 0; k < g->arcs.n; k++) {
        const int32_t w = idmap_find(&g->map, g->arcs.v[k].to);
        gg->edges[g->top++] = w >= 0 ? w : v;   /* not in the space: no edge */
    }
    return rc;
}

/* The first piece of v's successors; a state with more is remembered
 * (lazy) until it is released. */
static int kgraph_succ(space_graph *gg, int32_t v, int64_t *pos, int64_t *end)
{
    kgraph *g = (kgraph *)gg;
    succ_cursor cur = { 0, 0 };
    *pos = g->top;
    int rc = kgraph_piece(g, v, &cur);
    if (rc < 0)
        return rc;
    *end = g->top;
    if (rc == 0)
        return 0;
    if (g->nlazy == g->caplazy) {
        int64_t cap = g->caplazy ? 2 * g->caplazy : 64;
        pending *p = realloc(g->lazy, cap * sizeof *p);
        if (!p)
            return -1;
        g->lazy = p;
        g->caplazy = cap;
    }
    g->lazy[g->nlazy++] = (pending){ v, *pos, cur };
    return 0;
}

/* The next piece of the last state listed, in the place of the one used. */
static int kgraph_more(space_graph *gg, int32_t v, int64_t *pos, int64_t *end)
{
    kgraph *g = (kgraph *)gg;
    pending *p = g->nlazy ? &g->lazy[g->nlazy - 1] : NULL;
    if (!p || p->v != v || p->cur.item < 0) {
        *pos = *end;            /* its list was whole */
        return 0;
    }
    g->top = p->first;
    *pos = p->first;
    int rc = kgraph_piece(g, v, &p->cur);
    if (rc < 0)
        return rc;
    *end = g->top;
    if (rc == 0)
        p->cur.item = -1;       /* done; popped when released */
    return 0;
}

static void kgraph_release(space_graph *gg, int64_t pos)
{
    kgraph *g = (kgraph *)gg;
    g->top = pos;
    while (g->nlazy && g->lazy[g->nlazy - 1].first >= pos)
        g->nlazy--;
}

/* What the check holds besides the arena: the space (index and exit
 * rate, 16 bytes a state, and the class flag it gains), Tarjan's arrays
 * (low, number, stack, component: 16 bytes; a frame: 24) and the map. */
static double fixed_bytes(const san_space *sp, double limit)
{
    return 57.0 * (double)sp->n + idmap_estimate(sp->m, (double)sp->n, limit);
}

/* 0, -1, or SPACE_LIMIT (the message in g->g.err). */
static int kgraph_init(kgraph *g, const san_space *sp, const san_space_opts *o)
{
    memset(g, 0, sizeof *g);
    g->g.succ = kgraph_succ;
    g->g.more = kgraph_more;
    g->g.release = kgraph_release;
    g->g.deadline = space_deadline(o);
    g->g.interrupt = o ? o->interrupt : NULL;
    g->g.several_closed = o && o->several_closed;
    g->g.several_steady = o && o->several_steady;
    g->sp = sp;
    g->limit = base_budget(o ? o->max_memory : 0);
    g->fixed = fixed_bytes(sp, g->limit);
    if (g->fixed > g->limit) {
        char nb[32], lb[32];
        snprintf(g->g.err, sizeof g->g.err, "the class check of %lld states needs more than "
                 "%s, over the memory limit of %s; raise --max-memory", (long long)sp->n,
                 san_format_bytes(g->fixed, nb, sizeof nb),
                 san_format_bytes(g->limit, lb, sizeof lb));
        return SPACE_LIMIT;
    }
    g->s = calloc(sp->m->naut + 1, sizeof *g->s);
    if (!g->s || succ_init(&g->sc, sp->m) < 0)
        return -1;
    const san_model *m = sp->m;
    if (idmap_init(&g->map, m, (double)sp->n, g->limit) < 0)
        return -1;
    for (int64_t i = 0; i < sp->n; i++) {
        int fresh;
        if (idmap_get(&g->map, sp->index[i], (int32_t)i, &fresh) == -2)
            return -1;
    }
    return 0;
}

san_status san_kron_check_classes(san_space *sp, const san_space_opts *o, san_diag *d)
{
    if (o && space_opts_foreign(o, d))
        return SAN_E_USAGE;
    if (sp->q.col) {            /* the exploration kept the arcs */
        int rc = space_check_classes(sp, o, d);
        san_csr_free(&sp->q);
        return space_status(rc, o);
    }
    kgraph g;
    int rc = kgraph_init(&g, sp, o);
    if (rc == 0)
        rc = space_classes(sp, &g.g, d);
    else if (rc == SPACE_LIMIT)
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", g.g.err);
    else
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory checking the classes of %lld states",
                     (long long)sp->n);
    kgraph_free(&g);
    return space_status(rc, o);
}
