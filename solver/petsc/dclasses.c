/*
 * dclasses.c - the closed class of a distributed chain, and its
 * transient states and isolated pockets, with the serial rules
 * (solver/space/classes.c): exactly one closed class; isolated pockets
 * a full reachability function admits (closed classes nothing enters,
 * smaller than the largest) are dropped with a warning.
 *
 * Tarjan's algorithm is a depth-first search: it does not distribute.
 * This check uses reachability only: breadth-first within each rank's
 * own arcs, and across ranks one product with the assembled Q^T
 * (forward: y = Q^T x) or its transpose (backward), x the indicator of
 * the states reached so far: for a state j not yet reached, y_j > 0
 * exactly when an arc joins it to one reached (the rates are positive;
 * the diagonal meets x_j = 0).  A search costs as many products as its
 * paths cross ranks.
 *
 *   closed class containing F(w): start with w = state 0; F = the
 *   states w reaches, B = the states that reach w.  F within B: F is
 *   strongly connected and closed, a closed class.  Else take w' in F
 *   outside B: F(w') is strictly smaller (w is not in it); again.
 *
 *   uniqueness: B(C), the states that reach C, is everything: C is the
 *   one closed class, B(C) \ C transient.  Else the states left reach
 *   other closed classes, found the same way (at most MAX_CLASSES).
 *
 * Its cost: 2 searches per round, rounds = 1 + the transient levels
 * crossed (one on every model tried), one search for B(C); each search
 * a pass over the rank's arcs per crossing.  It
 * names one state per class in its messages where the serial check
 * names three.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/petsc/dist.h"
#include "solver/space/class_rules.h"

/* Closed classes looked for before giving up (the serial check has no
 * such bound). */
#define MAX_CLASSES 16
/* Rounds of the search for one closed class. */
#define MAX_ROUNDS 256

/* The rank's own part of the graph: the arcs between its states (the
 * diagonal block of Q^T), by target (the block's rows: in-neighbours)
 * and by source (its transpose: out-neighbours), local numbers, the
 * diagonal and zero entries left out.  A search runs breadth-first
 * within it, and a product with the whole matrix only carries what it
 * reached across ranks: the rounds of products are the times a path
 * crosses a rank, not its length (a ring of 20,001 states on 2 ranks:
 * 3 x 10^4 products before, a few now). */
typedef struct {
    PetscInt n;
    PetscInt *in_ptr, *in_col;      /* by target */
    PetscInt *out_ptr, *out_col;    /* by source */
    PetscInt *queue;
} local_graph;

static void local_graph_free(local_graph *g)
{
    PetscFree(g->in_ptr);
    PetscFree(g->in_col);
    PetscFree(g->out_ptr);
    PetscFree(g->out_col);
    PetscFree(g->queue);
}

/* The lists of the other direction, by a counting sort. */
static PetscErrorCode transpose_lists(PetscInt n, const PetscInt *ptr, const PetscInt *col,
                                      PetscInt **tptr, PetscInt **tcol)
{
    const PetscInt nz = ptr[n];
    PetscCall(PetscCalloc1(n + 2, tptr));
    PetscCall(PetscMalloc1(nz ? nz : 1, tcol));
    PetscInt *tp = *tptr;
    for (PetscInt t = 0; t < nz; t++)
        tp[col[t] + 2]++;
    for (PetscInt i = 0; i < n; i++)
        tp[i + 2] += tp[i + 1];
    for (PetscInt j = 0; j < n; j++)
        for (PetscInt t = ptr[j]; t < ptr[j + 1]; t++)
            (*tcol)[tp[col[t] + 1]++] = j;
    return 0;
}

/* From the assembled matrix: its diagonal block's rows (in-neighbours);
 * from the matrix-free one: its arcs listed by source (out). */
static PetscErrorCode local_graph_build(Mat A, local_graph *g)
{
    if (dshell_is(A)) {
        PetscInt *p = NULL, *c = NULL, n;
        PetscCall(MatGetLocalSize(A, &n, NULL));
        PetscCheck(dshell_local_out(A, &p, &c) == 0, PETSC_COMM_SELF, PETSC_ERR_MEM,
                   "the rank's arcs");
        g->n = n;
        PetscCall(PetscMalloc1(n + 1, &g->out_ptr));
        PetscCall(PetscMalloc1(p[n] ? p[n] : 1, &g->out_col));
        PetscCall(PetscArraycpy(g->out_ptr, p, n + 1));
        PetscCall(PetscArraycpy(g->out_col, c, p[n]));
        free(p);
        free(c);
        PetscCall(transpose_lists(n, g->out_ptr, g->out_col, &g->in_ptr, &g->in_col));
        PetscCall(PetscMalloc1(n ? n : 1, &g->queue));
        return 0;
    }
    Mat Ad = A;
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (size > 1)
        PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, NULL, NULL));
    PetscInt n;
    const PetscInt *ia, *ja;
    PetscBool done;
    const PetscScalar *va;
    PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "no row structure");
    PetscCall(MatSeqAIJGetArrayRead(Ad, &va));
    g->n = n;
    PetscInt nz = 0;
    for (PetscInt j = 0; j < n; j++)
        for (PetscInt t = ia[j]; t < ia[j + 1]; t++)
            nz += ja[t] != j && va[t] > 0;
    PetscCall(PetscCalloc1(n + 1, &g->in_ptr));
    PetscCall(PetscMalloc1(nz ? nz : 1, &g->in_col));
    PetscCall(PetscMalloc1(n ? n : 1, &g->queue));
    nz = 0;
    for (PetscInt j = 0; j < n; j++) {
        for (PetscInt t = ia[j]; t < ia[j + 1]; t++)
            if (ja[t] != j && va[t] > 0)
                g->in_col[nz++] = ja[t];
        g->in_ptr[j + 1] = nz;
    }
    PetscCall(MatSeqAIJRestoreArrayRead(Ad, &va));
    PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    /* (MatRestoreRowIJ may zero n) */
    PetscCall(transpose_lists(g->n, g->in_ptr, g->in_col, &g->out_ptr, &g->out_col));
    return 0;
}

/* Breadth-first within the rank from the states of x queued in
 * g->queue[0..nq): every state they reach (forward) or that reaches them
 * (backward) through the rank's own arcs, where allowed, gets 1. */
static void local_closure(const local_graph *g, PetscScalar *xa, const PetscScalar *al,
                          int backward, PetscInt nq)
{
    const PetscInt *ptr = backward ? g->in_ptr : g->out_ptr;
    const PetscInt *col = backward ? g->in_col : g->out_col;
    for (PetscInt h = 0; h < nq; h++) {
        const PetscInt u = g->queue[h];
        for (PetscInt t = ptr[u]; t < ptr[u + 1]; t++) {
            const PetscInt v = col[t];
            if (xa[v] == 0 && (!al || al[v] == 1)) {
                xa[v] = 1;
                g->queue[nq++] = v;
            }
        }
    }
}

/* Grows the set x (0/1 entries) to every state it reaches (forward) or
 * that reaches it (backward), only into states where allowed is 1 (NULL:
 * every state): within each rank breadth-first, across ranks by a
 * product with Q^T (forward: y = Q^T x) or its transpose (backward),
 * until a product adds nothing.  *count: its size after. */
static PetscErrorCode grow(Mat A, const local_graph *g, Vec x, Vec y, Vec allowed, int backward,
                           PetscInt *count)
{
    PetscInt nloc, added, nq = 0;
    PetscCall(VecGetLocalSize(x, &nloc));
    PetscScalar *xa;
    const PetscScalar *al = NULL;
    PetscCall(VecGetArray(x, &xa));
    for (PetscInt j = 0; j < nloc; j++)
        if (xa[j] == 1)
            g->queue[nq++] = j;
    if (allowed)
        PetscCall(VecGetArrayRead(allowed, &al));
    local_closure(g, xa, al, backward, nq);
    if (allowed)
        PetscCall(VecRestoreArrayRead(allowed, &al));
    PetscCall(VecRestoreArray(x, &xa));
    do {
        if (backward)
            PetscCall(MatMultTranspose(A, x, y));
        else
            PetscCall(MatMult(A, x, y));
        const PetscScalar *ya;
        PetscCall(VecGetArray(x, &xa));
        PetscCall(VecGetArrayRead(y, &ya));
        if (allowed)
            PetscCall(VecGetArrayRead(allowed, &al));
        nq = 0;
        for (PetscInt j = 0; j < nloc; j++)
            if (xa[j] == 0 && ya[j] > 0 && (!al || al[j] == 1)) {
                xa[j] = 1;
                g->queue[nq++] = j;
            }
        PetscInt mine = nq;
        local_closure(g, xa, al, backward, nq);
        if (allowed)
            PetscCall(VecRestoreArrayRead(allowed, &al));
        PetscCall(VecRestoreArrayRead(y, &ya));
        PetscCall(VecRestoreArray(x, &xa));
        PetscCallMPI(MPI_Allreduce(&mine, &added, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    } while (added > 0);
    PetscScalar s;
    PetscCall(VecSum(x, &s));
    *count = (PetscInt)(s + 0.5);
    return 0;
}

/* x = e_w. */
static PetscErrorCode unit(Vec x, PetscInt w)
{
    PetscCall(VecSet(x, 0));
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(x, &lo, &hi));
    if (w >= lo && w < hi)
        PetscCall(VecSetValue(x, w, 1, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(x));
    PetscCall(VecAssemblyEnd(x));
    return 0;
}

/* The largest global number j where a_j == 1 and (b NULL or b_j == 0);
 * -1 when none. */
static PetscErrorCode last_where(Vec a, Vec b, PetscInt *w)
{
    PetscInt lo, hi, mine = -1;
    PetscCall(VecGetOwnershipRange(a, &lo, &hi));
    const PetscScalar *aa, *ba = NULL;
    PetscCall(VecGetArrayRead(a, &aa));
    if (b)
        PetscCall(VecGetArrayRead(b, &ba));
    for (PetscInt j = hi - 1; j >= lo && mine < 0; j--)
        if (aa[j - lo] == 1 && (!ba || ba[j - lo] == 0))
            mine = j;
    if (b)
        PetscCall(VecRestoreArrayRead(b, &ba));
    PetscCall(VecRestoreArrayRead(a, &aa));
    PetscCallMPI(MPI_Allreduce(&mine, w, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
    return 0;
}

/* The closed class reached from w, within allowed: into cls (0/1);
 * *w becomes a state of it. */
static PetscErrorCode closed_from(Mat A, const local_graph *g, PetscInt *w, Vec allowed, Vec cls,
                                  Vec back, Vec y, PetscInt *size, int *rounds)
{
    for (*rounds = 1; *rounds <= MAX_ROUNDS; (*rounds)++) {
        PetscInt nf, nb, out;
        PetscCall(unit(cls, *w));
        PetscCall(grow(A, g, cls, y, allowed, 0, &nf));
        PetscCall(unit(back, *w));
        PetscCall(grow(A, g, back, y, cls, 1, &nb));    /* only F matters */
        if (nb == nf) {
            *size = nf;
            return 0;
        }
        PetscCall(last_where(cls, back, &out));
        *w = out;
    }
    *size = -1;
    return 0;
}

typedef struct {
    PetscInt w, size;
    int entered;
} dclass;

/* Does any state outside cls have an arc into it? */
static PetscErrorCode entered(Mat A, Vec cls, Vec z, Vec y, int *yes)
{
    PetscCall(VecSet(z, 1));
    PetscCall(VecAXPY(z, -1, cls));
    PetscCall(MatMult(A, z, y));
    PetscInt nloc;
    PetscCall(VecGetLocalSize(y, &nloc));
    const PetscScalar *ya, *ca;
    PetscCall(VecGetArrayRead(y, &ya));
    PetscCall(VecGetArrayRead(cls, &ca));
    int mine = 0;
    for (PetscInt j = 0; j < nloc && !mine; j++)
        mine = ca[j] == 1 && ya[j] > 0;
    PetscCall(VecRestoreArrayRead(cls, &ca));
    PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCallMPI(MPI_Allreduce(&mine, yes, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    return 0;
}

/* The name of state w (global number), on every rank. */
static void state_name(const dctx *c, const dspace *s, PetscInt w, char *buf, size_t n)
{
    int owner = 0;
    while (owner + 1 < c->size && s->offset[owner + 1] <= w)
        owner++;
    buf[0] = '\0';
    if (c->rank == owner) {
        int *st = malloc((s->m->naut + 1) * sizeof *st);
        if (st) {
            san_state_decode(s->m, s->index[w - s->first], st);
            san_state_name(s->m, st, buf, n);
        }
        free(st);
    }
    MPI_Bcast(buf, (int)n, MPI_CHAR, owner, PETSC_COMM_WORLD);
}

static PetscErrorCode find(const dctx *c, const dspace *s, Mat A, Vec in, dclass *cl, int *ncl,
                           int *more)
{
    Vec rest, cls, back, y, z;
    PetscCall(VecDuplicate(in, &rest));
    PetscCall(VecDuplicate(in, &cls));
    PetscCall(VecDuplicate(in, &back));
    PetscCall(VecDuplicate(in, &y));
    PetscCall(VecDuplicate(in, &z));
    local_graph g;
    memset(&g, 0, sizeof g);
    PetscCall(local_graph_build(A, &g));
    PetscCall(VecSet(rest, 1));     /* the states not yet known to reach a class */
    PetscCall(VecSet(in, 0));
    *ncl = *more = 0;
    PetscInt w = 0;
    (void)c;
    (void)s;
    for (;;) {
        int rounds;
        dclass k = { w, 0, 0 };
        PetscCall(closed_from(A, &g, &k.w, rest, cls, back, y, &k.size, &rounds));
        if (k.size < 0 || *ncl == MAX_CLASSES) {
            *more = 1;
            break;
        }
        PetscCall(entered(A, cls, z, y, &k.entered));
        cl[(*ncl)++] = k;
        /* in: the class's number + 1 on its states */
        PetscCall(VecAXPY(in, (PetscScalar)*ncl, cls));
        PetscInt nb;
        PetscCall(grow(A, &g, cls, y, rest, 1, &nb));   /* everything that reaches it */
        PetscCall(VecAXPY(rest, -1, cls));
        PetscCall(last_where(rest, NULL, &w));
        if (w < 0)
            break;
    }
    local_graph_free(&g);
    PetscCall(VecDestroy(&rest));
    PetscCall(VecDestroy(&cls));
    PetscCall(VecDestroy(&back));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
    return 0;
}

/* in: 1 on the class kept, 2 on the dropped, 0 on the transient. */
static PetscErrorCode relabel(Vec in, int keep, int ncl)
{
    PetscInt nloc;
    PetscCall(VecGetLocalSize(in, &nloc));
    PetscScalar *a;
    PetscCall(VecGetArray(in, &a));
    for (PetscInt j = 0; j < nloc; j++) {
        const int k = (int)a[j];
        a[j] = k == 0 ? 0 : k == keep + 1 ? 1 : 2;
    }
    (void)ncl;
    PetscCall(VecRestoreArray(in, &a));
    return 0;
}

san_status dclasses(const dctx *c, const dspace *s, Mat A, Vec in, int64_t *nclosed,
                    int64_t *dropped, san_diag *d)
{
    dclass cl[MAX_CLASSES];
    int ncl = 0, more = 0;
    *nclosed = *dropped = 0;
    if (find(c, s, A, in, cl, &ncl, &more)) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: the class check failed (PETSc error)");
        return SAN_E_NOMEM;
    }
    if (ncl == 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: the distributed class check gave up "
                     "after %d rounds", MAX_ROUNDS);
        return SAN_E_MODEL;
    }
    /* the serial rule (space_class_keep), over the classes found */
    int64_t size[MAX_CLASSES], nclosed_all = 0;
    char into[MAX_CLASSES];
    for (int k = 0; k < ncl; k++) {
        size[k] = cl[k].size;
        into[k] = (char)cl[k].entered;
    }
    int drop = 0;
    const int largest = (int)space_class_keep(s->m, size, into, NULL, ncl, &nclosed_all, &drop);
    drop = drop && !more;
    if (ncl > 1 && !drop) {
        char msg[4096] = "";
        size_t used = 0;
        for (int k = 0; k < ncl && k < 5; k++) {
            char name[1024];
            state_name(c, s, cl[k].w, name, sizeof name);
            char names[1100];
            snprintf(names, sizeof names, "(%s)", name);
            space_class_line(msg, sizeof msg, &used, k + 1, cl[k].size, names);
        }
        space_say_classes(d, nclosed_all, more, "--engine petsc solves a chain of one only, the "
                          "serial engine answers several from the initial distribution: "
                          "leave out --engine petsc", msg);
        return SAN_E_MODEL;
    }
    if (ncl == 1 && more) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: the distributed class check found "
                     "more than %d closed classes or gave up after %d rounds", MAX_CLASSES,
                     MAX_ROUNDS);
        return SAN_E_MODEL;
    }
    for (int k = 0; k < ncl; k++) {
        if (k == largest)
            continue;
        char name[1024], names[1100];
        state_name(c, s, cl[k].w, name, sizeof name);
        snprintf(names, sizeof names, "(%s)", name);
        space_say_pocket(d, cl[k].size, names, 1);
        *dropped += cl[k].size;
    }
    if (relabel(in, largest, ncl))
        return SAN_E_NOMEM;
    *nclosed = cl[largest].size;
    return SAN_OK;
}
