/*
 * kron_space.c - the class check of a space built with states_only (the
 * tensor path stores no Q), with the rules and messages of classes.c:
 * strongly connected components, exactly one closed class, isolated
 * pockets of a full reachability function dropped with a warning.
 *
 * The edges are enumerated again from the model (succ.c) instead of
 * read from Q.  Tarjan's algorithm keeps, for each state on the depth-
 * first path, the successors it has not tried yet, in one stack-shaped
 * arena: memory is the path's out-degrees, never the whole graph.  A
 * successor's number comes from the level tree of kron.c (its sorted
 * position) and one permutation back to the space's numbering.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kron.h"
#include "succ.h"

typedef struct {
    const san_space *sp;
    succ_ctx sc;
    san_arcs arcs;
    kron_tree tree;
    int32_t *perm;          /* sorted position -> state number */
    int *s;                 /* decoded state */
    int32_t *arena;         /* successors not yet tried, by path frame */
    int64_t top, cap;
    char err[1024];
} kgraph;

static void kgraph_free(kgraph *g)
{
    succ_free(&g->sc);
    free(g->arcs.v);
    kron_tree_free(&g->tree);
    free(g->perm);
    free(g->s);
    free(g->arena);
}

static int kgraph_init(kgraph *g, const san_space *sp)
{
    memset(g, 0, sizeof *g);
    g->sp = sp;
    if (succ_init(&g->sc, sp->m) < 0 || kron_tree_build(&g->tree, sp, 0) < 0)
        return -1;
    g->perm = malloc((sp->n ? sp->n : 1) * sizeof *g->perm);
    g->s = calloc(sp->m->naut + 1, sizeof *g->s);
    if (!g->perm || !g->s)
        return -1;
    for (int64_t i = 0; i < sp->n; i++)
        g->perm[kron_tree_rank(&g->tree, sp->m, sp->index[i])] = (int32_t)i;
    return 0;
}

/* Successors of state i pushed on the arena; returns how many, or -1
 * (out of memory), -2 (model error, in g->err). */
static int64_t push_succ(kgraph *g, int64_t i)
{
    const san_model *m = g->sp->m;
    san_state_decode(m, g->sp->index[i], g->s);
    g->arcs.n = 0;
    int rc = succ_enumerate(&g->sc, g->s, g->sp->index[i], &g->arcs, g->err, sizeof g->err);
    if (rc)
        return rc;
    if (g->top + g->arcs.n > g->cap) {
        int64_t cap = g->cap ? 2 * g->cap : 4096;
        while (cap < g->top + g->arcs.n)
            cap *= 2;
        int32_t *a = realloc(g->arena, cap * sizeof *a);
        if (!a)
            return -1;
        g->arena = a;
        g->cap = cap;
    }
    for (int k = 0; k < g->arcs.n; k++) {
        int64_t r = kron_tree_rank(&g->tree, m, g->arcs.v[k].to);
        g->arena[g->top++] = r >= 0 ? g->perm[r] : (int32_t)i;
    }
    return g->arcs.n;
}

typedef struct {
    int32_t v;
    int64_t pos, end;       /* its untried successors in the arena */
} frame;

/* comp[i] = component of i; returns the count, -1 or -2. */
static int64_t tarjan(kgraph *g, int32_t *comp)
{
    const int64_t n = g->sp->n;
    int32_t *low = malloc(n * sizeof *low), *num = malloc(n * sizeof *num);
    int32_t *stack = malloc(n * sizeof *stack);
    frame *call = malloc(n * sizeof *call);
    int64_t ncomp = 0, rc = 0;
    int32_t counter = 0, sp = 0;
    if (!low || !num || !stack || !call)
        rc = -1;
    for (int64_t i = 0; !rc && i < n; i++)
        num[i] = -1;
    for (int64_t root = 0; !rc && root < n; root++) {
        if (num[root] >= 0)
            continue;
        int64_t cp = 0;
        int32_t v = (int32_t)root;
        for (;;) {
            if (v >= 0) {           /* enter v */
                num[v] = low[v] = counter++;
                stack[sp++] = v;
                comp[v] = -1;
                int64_t b = g->top, k = push_succ(g, v);
                if (k < 0) {
                    rc = k;
                    break;
                }
                call[cp++] = (frame){ v, b, b + k };
                v = -1;
            }
            if (cp == 0)
                break;
            frame *f = &call[cp - 1];
            if (f->pos < f->end) {
                int32_t w = g->arena[f->pos++];
                if (w != f->v && num[w] < 0)
                    v = w;
                else if (w != f->v && comp[w] < 0 && num[w] < low[f->v])
                    low[f->v] = num[w];
                continue;
            }
            /* leave u: its successors were the arena's top */
            int32_t u = f->v;
            cp--;
            g->top = cp > 0 ? call[cp - 1].end : 0;
            if (cp > 0 && low[u] < low[call[cp - 1].v])
                low[call[cp - 1].v] = low[u];
            if (low[u] == num[u]) {
                int32_t w;
                do {
                    w = stack[--sp];
                    comp[w] = (int32_t)ncomp;
                } while (w != u);
                ncomp++;
            }
        }
    }
    free(low);
    free(num);
    free(stack);
    free(call);
    return rc ? rc : ncomp;
}

static void name_states(const san_space *sp, const int32_t *comp, int32_t c, char *buf,
                        size_t n)
{
    int *s = malloc((sp->m->naut + 1) * sizeof *s);
    size_t used = 0;
    int shown = 0;
    buf[0] = '\0';
    for (int64_t i = 0; s && i < sp->n && shown < 3; i++) {
        if (comp[i] != c)
            continue;
        char one[1024];
        san_state_decode(sp->m, sp->index[i], s);
        san_state_name(sp->m, s, one, sizeof one);
        int w = snprintf(buf + used, n - used, "%s(%s)", shown ? ", " : "", one);
        if (w < 0 || (size_t)w >= n - used)
            break;
        used += w;
        shown++;
    }
    free(s);
}

/* open: some edge leaves the component; entered: some edge comes in. */
static int mark_edges(kgraph *g, const int32_t *comp, char *open, char *entered)
{
    for (int64_t i = 0; i < g->sp->n; i++) {
        g->top = 0;
        int64_t k = push_succ(g, i);
        if (k < 0)
            return (int)k;
        for (int64_t t = 0; t < k; t++)
            if (comp[g->arena[t]] != comp[i]) {
                open[comp[i]] = 1;
                entered[comp[g->arena[t]]] = 1;
            }
    }
    return 0;
}

static void drop_pockets(san_space *sp, int32_t *comp, const char *open, int64_t largest,
                         const int64_t *size, int64_t nc, san_diag *d)
{
    for (int64_t c = 0; c < nc; c++) {
        if (open[c] || c == largest)
            continue;
        char names[2048];
        name_states(sp, comp, (int32_t)c, names, sizeof names);
        san_diag_add(d, SAN_WARNING, 0, 0, "dropped an isolated pocket of %lld state%s that "
                     "the reachability function admits but no other state reaches: %s%s",
                     (long long)size[c], size[c] == 1 ? "" : "s", names,
                     size[c] > 3 ? ", ..." : "");
        sp->dropped += size[c];
    }
    int64_t k = 0;
    for (int64_t i = 0; i < sp->n; i++)
        if (open[comp[i]] || comp[i] == largest) {
            sp->index[k] = sp->index[i];
            comp[k++] = comp[i];
        }
    sp->n = k;
}

static int report_classes(const san_space *sp, const int32_t *comp, const char *open,
                          const int64_t *size, int64_t nc, int64_t nclosed, san_diag *d)
{
    char msg[4096];
    size_t used = 0;
    int shown = 0;
    msg[0] = '\0';
    for (int64_t c = 0; c < nc && shown < 5; c++) {
        if (open[c])
            continue;
        char names[1024];
        name_states(sp, comp, (int32_t)c, names, sizeof names);
        int w = snprintf(msg + used, sizeof msg - used, "\n  class %d: %lld state%s, e.g. %.300s",
                         ++shown, (long long)size[c], size[c] == 1 ? "" : "s", names);
        if (w > 0 && (size_t)w < sizeof msg - used)
            used += w;
    }
    san_diag_add(d, SAN_ERROR, 0, 0, "the chain has %lld closed classes; a steady state needs "
                 "exactly one (check the reachability function and the transitions):%s",
                 (long long)nclosed, msg);
    return -2;
}

/* The closed classes, the pockets, the one closed class required. */
static int classify(san_space *sp, int32_t *comp, int64_t nc, const char *open,
                    const char *entered, san_diag *d)
{
    int64_t *size = calloc(nc + 1, sizeof *size), nclosed = 0, largest = -1;
    int tie = 0, rc = 0;
    if (!size)
        return -1;
    for (int64_t i = 0; i < sp->n; i++)
        size[comp[i]]++;
    for (int64_t c = 0; c < nc; c++) {
        if (open[c])
            continue;
        nclosed++;
        if (largest < 0 || size[c] > size[largest]) {
            largest = c;
            tie = 0;
        } else if (size[c] == size[largest]) {
            tie = 1;
        }
    }
    if (nclosed > 1 && !sp->m->partial && !tie) {
        int all_isolated = 1;
        for (int64_t c = 0; c < nc; c++)
            if (!open[c] && c != largest && entered[c])
                all_isolated = 0;
        if (all_isolated) {
            drop_pockets(sp, comp, open, largest, size, nc, d);
            nclosed = 1;
        }
    }
    if (nclosed != 1)
        rc = report_classes(sp, comp, open, size, nc, nclosed, d);
    for (int64_t i = 0; rc == 0 && i < sp->n; i++) {
        sp->in_closed[i] = !open[comp[i]];
        sp->nclosed += sp->in_closed[i];
    }
    free(size);
    return rc;
}

int san_kron_check_classes(san_space *sp, san_diag *d)
{
    kgraph g;
    memset(&g, 0, sizeof g);
    int32_t *comp = malloc((sp->n ? sp->n : 1) * sizeof *comp);
    char *open = NULL, *entered = NULL;
    int64_t nc = -1;
    int rc = -1;
    if (comp && kgraph_init(&g, sp) == 0)
        nc = tarjan(&g, comp);
    if (nc >= 0) {
        open = calloc(nc + 1, 1);
        entered = calloc(nc + 1, 1);
        rc = open && entered ? mark_edges(&g, comp, open, entered) : -1;
    } else if (nc == -2) {
        rc = -2;
    }
    if (rc == 0) {
        sp->nclosed = 0;
        rc = classify(sp, comp, nc, open, entered, d);
    }
    if (rc == -2 && g.err[0])
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", g.err);
    if (rc == -1)
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory checking the classes of %lld states",
                     (long long)sp->n);
    kgraph_free(&g);
    free(comp);
    free(open);
    free(entered);
    return rc;
}
