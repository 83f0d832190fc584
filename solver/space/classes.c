/*
 * classes.c - the structure of the chain: strongly connected components
 * (Tarjan's algorithm, iterative so that long chains cannot overflow the
 * stack), closed classes, and the isolated pockets a full reachability
 * function may admit by mistake.
 *
 * The graph comes through space_graph (state_space.h): the rows of Q on the
 * sparse path, the transitions enumerated again from the model on the
 * tensor path (solver/kron/check.c), which stores no Q.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/space/class_rules.h"
#include "solver/space/state_space.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

/* The check looks at the clock and the interrupt flag every this many
 * edges (a millisecond or less). */
#define CLOCK_EVERY 262144

/* 0 to go on, SPACE_TIME or -1 (interrupted) to stop. */
static int graph_stopped(const space_graph *g)
{
    if (g->interrupt && *g->interrupt)
        return -1;
    return san_now() >= g->deadline ? SPACE_TIME : 0;
}

typedef struct {
    int32_t v;
    int64_t pos, end;       /* its untried successors in g->edges */
    int64_t first;          /* where its list began (for release) */
} frame;

/* comp[i] = component of state i; returns the number of components,
 * -1 (out of memory) or -2 (the graph's error). */
static int64_t tarjan(space_graph *g, int64_t n, int32_t *comp)
{
    int32_t *low = malloc(n * sizeof *low), *num = malloc(n * sizeof *num);
    int32_t *stack = malloc(n * sizeof *stack);
    frame *call = malloc(n * sizeof *call);
    int64_t ncomp = 0, rc = 0, work = 0;
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
                int64_t pos, end;
                int e = g->succ(g, v, &pos, &end);
                if (e) {
                    rc = e;
                    break;
                }
                call[cp++] = (frame){ v, pos, end, pos };
                v = -1;
            }
            if (cp == 0)
                break;
            if (++work % CLOCK_EVERY == 0 && (rc = graph_stopped(g)))
                break;
            frame *f = &call[cp - 1];
            if (f->pos < f->end) {
                int32_t w = g->edges[f->pos++];
                if (w != f->v && num[w] < 0)
                    v = w;
                else if (w != f->v && comp[w] < 0 && num[w] < low[f->v])
                    low[f->v] = num[w];     /* w is on the stack */
                continue;
            }
            if (g->more) {          /* the next piece of a long list */
                int e = g->more(g, f->v, &f->pos, &f->end);
                if (e) {
                    rc = e;
                    break;
                }
                if (f->pos < f->end)
                    continue;
            }
            int32_t u = f->v;       /* leave u */
            if (g->release)
                g->release(g, f->first);
            cp--;
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

/* open[c]: some edge leaves component c; entered[c]: some edge comes in. */
static int mark_edges(space_graph *g, int64_t n, const int32_t *comp, char *open,
                      char *entered)
{
    int64_t work = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t pos, end;
        int e = g->succ(g, (int32_t)i, &pos, &end);
        const int64_t first = pos;
        while (e == 0 && pos < end) {
            for (int64_t t = pos; t < end; t++)
                if (comp[g->edges[t]] != comp[i]) {
                    open[comp[i]] = 1;
                    entered[comp[g->edges[t]]] = 1;
                }
            work += end - pos + 1;
            pos = end;
            if (g->more)
                e = g->more(g, (int32_t)i, &pos, &end);
        }
        if (e == 0 && work >= CLOCK_EVERY) {
            work = 0;
            e = graph_stopped(g);
        }
        if (e)
            return e;
        if (g->release)
            g->release(g, first);
    }
    return 0;
}

/* Name up to a few states of component c, for messages. */
static void name_states(const san_space *sp, const int32_t *comp, int32_t c, char *buf, size_t n)
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

/* Remove the states marked in drop (nothing enters them) and renumber
 * the others in place: the states, comp, and Q when there is one. */
static int compact(san_space *sp, int32_t *comp, const char *drop)
{
    int64_t n = sp->n, k = 0;
    int32_t *newid = malloc((n ? n : 1) * sizeof *newid);
    if (!newid)
        return -1;
    for (int64_t i = 0; i < n; i++)
        newid[i] = drop[i] ? -1 : (int32_t)k++;
    san_csr *q = &sp->q;
    int64_t p = 0;
    for (int64_t i = 0; i < n; i++) {
        if (drop[i])
            continue;
        int64_t row = newid[i];
        sp->index[row] = sp->index[i];
        comp[row] = comp[i];
        if (sp->exit)
            sp->exit[row] = sp->exit[i];
        if (!q->rowptr)
            continue;
        int64_t a = q->rowptr[i], b = q->rowptr[i + 1];
        q->rowptr[row] = p;
        for (int64_t t = a; t < b; t++) {
            q->col[p] = newid[q->col[t]];
            if (q->val)             /* the tensor path's arcs have none */
                q->val[p] = q->val[t];
            p++;
        }
    }
    if (q->rowptr) {
        q->rowptr[k] = p;
        q->n = k;
    }
    sp->n = k;
    free(newid);
    return 0;
}

/* Isolated pockets: closed classes nothing enters, other than the
 * largest closed class.  They are declared by the function but cannot be
 * reached from the rest of the chain: dropped, with a warning. */
static int drop_pockets(san_space *sp, int32_t *comp, const char *open, int64_t largest,
                        const int64_t *size, int64_t nc, san_diag *d)
{
    char *drop = calloc(sp->n ? sp->n : 1, 1);
    if (!drop)
        return -1;
    for (int64_t c = 0; c < nc; c++) {
        if (open[c] || c == largest)
            continue;
        char names[2048];
        name_states(sp, comp, (int32_t)c, names, sizeof names);
        space_say_pocket(d, size[c], names, 3);
        sp->dropped += size[c];
    }
    for (int64_t i = 0; i < sp->n; i++)
        drop[i] = !open[comp[i]] && comp[i] != largest;
    int rc = compact(sp, comp, drop);
    free(drop);
    return rc;
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
        space_class_line(msg, sizeof msg, &used, ++shown, size[c], names);
    }
    space_say_classes(d, nclosed, 0, NULL, msg);
    return -2;
}

/* One closed state and some transient ones: every run ends there, and
 * the steady state says only that.  san check warns of the local state
 * no reachable state leaves (audit.c); the solve says it of the chain,
 * so that the two agree (issue 33: only check warned). */
static void warn_absorbed(const san_space *sp, const int32_t *comp, const char *open, int64_t nc,
                          san_diag *d)
{
    for (int64_t c = 0; c < nc; c++) {
        if (open[c])
            continue;
        char names[1024];
        name_states(sp, comp, (int32_t)c, names, sizeof names);
        san_diag_add(d, SAN_WARNING, 0, 0, "the chain is absorbed: every run ends in state %s, "
                     "which no transition leaves, so the steady state is that state with "
                     "probability 1 and every other state (%lld transient) 0; san transient "
                     "and san passage say how it gets there", names,
                     (long long)(sp->n - 1));
        return;
    }
}

/* The closed classes, the pockets, the one closed class required
 * (several accepted when several_closed: the time-dependent analyses;
 * or several_steady: a long-run answer weighing each class by its reach
 * probability, one class treated as without it). */
static int classify(san_space *sp, int32_t *comp, int64_t nc, const char *open,
                    const char *entered, int several_closed, int several_steady, san_diag *d)
{
    int64_t *size = calloc(nc + 1, sizeof *size), nclosed = 0;
    int drop = 0, rc = 0;
    if (!size)
        return -1;
    for (int64_t i = 0; i < sp->n; i++)
        size[comp[i]]++;
    const int64_t largest = space_class_keep(sp->m, size, entered, open, nc, &nclosed, &drop);
    if (drop) {
        rc = drop_pockets(sp, comp, open, largest, size, nc, d);
        nclosed = 1;
    }
    if (rc == 0 && nclosed != 1 && !((several_closed || several_steady) && nclosed > 1))
        rc = report_classes(sp, comp, open, size, nc, nclosed, d);
    sp->nclasses = rc ? 0 : nclosed;
    free(sp->in_closed);
    sp->in_closed = rc ? NULL : malloc(sp->n ? sp->n : 1);
    if (rc == 0 && !sp->in_closed)
        rc = -1;
    sp->nclosed = 0;
    for (int64_t i = 0; rc == 0 && i < sp->n; i++) {
        sp->in_closed[i] = !open[comp[i]];
        sp->nclosed += sp->in_closed[i];
    }
    if (rc == 0 && !several_closed && sp->nclosed == 1 && sp->n > 1)
        warn_absorbed(sp, comp, open, nc, d);
    /* which class each state ends in, for the time-dependent analyses:
     * a passage can be missed only by ending in a class without target */
    free(sp->cls);
    sp->cls = NULL;
    if (rc == 0 && (several_closed || (several_steady && nclosed > 1))) {
        int32_t *num = malloc((nc + 1) * sizeof *num);
        sp->cls = malloc((sp->n ? sp->n : 1) * sizeof *sp->cls);
        if (!num || !sp->cls) {
            free(num);
            free(size);
            return -1;
        }
        int32_t k = 0;
        for (int64_t c = 0; c < nc; c++)
            num[c] = open[c] ? -1 : k++;
        for (int64_t i = 0; i < sp->n; i++)
            sp->cls[i] = num[comp[i]];
        free(num);
    }
    free(size);
    return rc;
}

int space_classes(san_space *sp, space_graph *g, san_diag *d)
{
    int32_t *comp = malloc((sp->n ? sp->n : 1) * sizeof *comp);
    char *open = NULL, *entered = NULL;
    int64_t nc = comp ? tarjan(g, sp->n, comp) : -1;
    int rc = nc < 0 ? (int)nc : 0;
    if (rc == 0) {
        open = calloc(nc + 1, 1);
        entered = calloc(nc + 1, 1);
        /* one component: irreducible, nothing to mark (the common case,
         * and a whole pass over the edges saved) */
        rc = !open || !entered ? -1 : nc > 1 ? mark_edges(g, sp->n, comp, open, entered) : 0;
    }
    if (rc == 0)
        rc = classify(sp, comp, nc, open, entered, g->several_closed, g->several_steady, d);
    else if (rc == -2 || rc == SPACE_LIMIT)
        san_diag_add(d, SAN_ERROR, 0, 0, "%s", g->err);
    else if (rc == SPACE_TIME)
        san_diag_add(d, SAN_ERROR, 0, 0, "the time limit was reached while checking the "
                     "classes of %lld states; raise --time-limit", (long long)sp->n);
    else if (g->interrupt && *g->interrupt)
        san_diag_add(d, SAN_ERROR, 0, 0, "interrupted while checking the classes of %lld "
                     "states", (long long)sp->n);
    else if (d->nerrors == 0)
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory checking the classes of %lld states",
                     (long long)sp->n);
    free(comp);
    free(open);
    free(entered);
    return rc;
}

/* ---- the graph of the generator's rows ---- */

typedef struct {
    space_graph g;
    const san_csr *q;
} csr_graph;

static int csr_succ(space_graph *g, int32_t v, int64_t *pos, int64_t *end)
{
    const san_csr *q = ((csr_graph *)g)->q;
    *pos = q->rowptr[v];
    *end = q->rowptr[v + 1];
    return 0;
}

int space_check_classes(san_space *sp, const san_space_opts *o, san_diag *d)
{
    csr_graph cg = { .g = { .edges = sp->q.col, .succ = csr_succ,
                            .deadline = space_deadline(o),
                            .interrupt = o ? o->interrupt : NULL,
                            .several_closed = o && o->several_closed,
                            .several_steady = o && o->several_steady },
                     .q = &sp->q };
    return space_classes(sp, &cg.g, d);
}

double space_deadline(const san_space_opts *o)
{
    return o && o->time_limit > 0 ? san_now() + o->time_limit : INFINITY;
}
