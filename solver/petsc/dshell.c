/*
 * dshell.c - the generator of a distributed chain as a product that
 * stores no entry (a MATSHELL): each product lists the transitions of
 * the rank's states from the model again, with the successor
 * generation the exploration uses (succ.h), and adds each rate times
 * the source's probability where the target lives.
 *
 * Why.  The assembled Q^T costs a rank 12 bytes an entry at rest and
 * about 49 at the peak of its build (the arcs, 20 bytes, beside their
 * rows, then the rows beside PETSc's copy): on ms async with 12 slaves,
 * 726 bytes a state in all (doc/distributed.md).  Without entries a
 * rank holds its states (their index, exit rate, map) and the vectors
 * of the solve: about a third.  The price is time: a product is a pass
 * of the successor generation (about 1.5 us a state, against 15 ns for
 * the assembled one), and no ILU: BiCGSTAB with Jacobi (100 iterations
 * where block-Jacobi/ILU took 25 on ms async with 7 slaves).  So the
 * shell is for the chains whose assembled generator does not fit.
 *
 * The product y = Q^T x pushes: y_j = -exit_j x_j on the rank's states,
 * then every arc i -> j of a state i the rank holds adds x_i q_ij to
 * y_j when j is the rank's own, else to its ghost slot; the ghosts go
 * to their owners in one reverse scatter with ADD_VALUES.  The ghosts
 * (the distinct targets on other ranks) are found once, when the
 * shell is made, and their global numbers asked of their owners.  The
 * transposed product y = Q x pulls (the ghosts' x brought by the same
 * scatter forward); it is the class check's, on the unpinned matrix.
 *
 * The solve's pins (dsolve.c: MatZeroRows with 1 on the diagonal) are
 * kept as a mask: a pinned row's product is x_j itself.  The balance
 * test wants the true Q^T x: dshell_unpin turns the mask off for it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/petsc/dist.h"
#include "solver/space/succ.h"

/* States scanned between two agreements while the shell is made. */
#define SCAN_CHUNK 65536

typedef struct {
    const dctx *c;
    dspace *s;                  /* index, exit, map: the rank's states */
    succ_ctx sc;
    space_arcs arcs;
    int *state;
    idmap ghost;                /* a target's product index -> its slot */
    int64_t nghost, capghost;
    int64_t *gidx;              /* slot -> product index */
    PetscInt *gnum;             /* slot -> global number */
    Vec G;                      /* the ghosts' values (sequential) */
    VecScatter scatter;         /* the global vector -> G */
    char *pinned;               /* per state: an identity row */
    int npinned, unpinned;
    double local_arcs, remote_arcs;
    double bytes;
} shell_ctx;

/* The arcs of the rank's state i (self-loops included: skipped by the
 * callers), into h->arcs; -1 when the listing fails (it did not in the
 * exploration: out of memory). */
static int list_arcs(shell_ctx *h, int64_t i)
{
    const int64_t idx = h->s->index[i];
    char msg[256];
    san_state_decode(h->s->m, idx, h->state);
    h->arcs.n = 0;
    return succ_enumerate(&h->sc, h->state, idx, &h->arcs, msg, sizeof msg) == 0 ? 0 : -1;
}

static PetscErrorCode shell_mult(Mat A, Vec x, Vec y)
{
    shell_ctx *h;
    PetscCall(MatShellGetContext(A, &h));
    const dspace *s = h->s;
    const PetscScalar *xa;
    PetscScalar *ya, *ga;
    PetscCall(VecSet(h->G, 0));
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArray(y, &ya));
    PetscCall(VecGetArray(h->G, &ga));
    for (int64_t j = 0; j < s->nloc; j++)
        ya[j] = -s->exit[j] * xa[j];
    for (int64_t i = 0; i < s->nloc; i++) {
        if (xa[i] == 0)
            continue;
        PetscCheck(list_arcs(h, i) == 0, PETSC_COMM_SELF, PETSC_ERR_MEM, "listing the arcs");
        for (int k = 0; k < h->arcs.n; k++) {
            const space_arc *a = &h->arcs.v[k];
            if (a->to == s->index[i])
                continue;
            const double v = xa[i] * a->rate;
            const int32_t j = idmap_find(&s->map, a->to);
            if (j >= 0)
                ya[j] += v;
            else
                ga[idmap_find(&h->ghost, a->to)] += v;
        }
    }
    PetscCall(VecRestoreArray(h->G, &ga));
    PetscCall(VecRestoreArray(y, &ya));
    PetscCall(VecScatterBegin(h->scatter, h->G, y, ADD_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(h->scatter, h->G, y, ADD_VALUES, SCATTER_REVERSE));
    if (h->npinned && !h->unpinned) {
        PetscCall(VecGetArray(y, &ya));
        for (int64_t j = 0; j < s->nloc; j++)
            if (h->pinned[j])
                ya[j] = xa[j];
        PetscCall(VecRestoreArray(y, &ya));
    }
    PetscCall(VecRestoreArrayRead(x, &xa));
    return 0;
}

static PetscErrorCode shell_mult_transpose(Mat A, Vec x, Vec y)
{
    shell_ctx *h;
    PetscCall(MatShellGetContext(A, &h));
    PetscCheck(!h->npinned || h->unpinned, PETSC_COMM_SELF, PETSC_ERR_SUP,
               "the matrix-free generator has no transposed product once pinned "
               "(choose a KSP that does not need it)");
    const dspace *s = h->s;
    PetscCall(VecScatterBegin(h->scatter, x, h->G, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(h->scatter, x, h->G, INSERT_VALUES, SCATTER_FORWARD));
    const PetscScalar *xa, *ga;
    PetscScalar *ya;
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGetArrayRead(h->G, &ga));
    PetscCall(VecGetArray(y, &ya));
    for (int64_t i = 0; i < s->nloc; i++) {
        PetscCheck(list_arcs(h, i) == 0, PETSC_COMM_SELF, PETSC_ERR_MEM, "listing the arcs");
        double sum = -s->exit[i] * xa[i];
        for (int k = 0; k < h->arcs.n; k++) {
            const space_arc *a = &h->arcs.v[k];
            if (a->to == s->index[i])
                continue;
            const int32_t j = idmap_find(&s->map, a->to);
            sum += a->rate * (j >= 0 ? xa[j] : ga[idmap_find(&h->ghost, a->to)]);
        }
        ya[i] = sum;
    }
    PetscCall(VecRestoreArray(y, &ya));
    PetscCall(VecRestoreArrayRead(h->G, &ga));
    PetscCall(VecRestoreArrayRead(x, &xa));
    return 0;
}

static PetscErrorCode shell_diagonal(Mat A, Vec d)
{
    shell_ctx *h;
    PetscCall(MatShellGetContext(A, &h));
    PetscScalar *da;
    PetscCall(VecGetArray(d, &da));
    for (int64_t j = 0; j < h->s->nloc; j++)
        da[j] = h->npinned && h->pinned[j] ? 1 : -h->s->exit[j];
    PetscCall(VecRestoreArray(d, &da));
    return 0;
}

/* Rows become identity rows (diag 1 only: dsolve's pins); b[rows] =
 * x[rows] as MatZeroRows does.  Rows of other ranks: none are given. */
static PetscErrorCode shell_zero_rows(Mat A, PetscInt n, const PetscInt rows[], PetscScalar diag,
                                      Vec x, Vec b)
{
    shell_ctx *h;
    PetscCall(MatShellGetContext(A, &h));
    PetscCheck(diag == 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "identity rows only");
    const PetscInt first = (PetscInt)h->s->first;
    for (PetscInt k = 0; k < n; k++) {
        const PetscInt j = rows[k] - first;
        PetscCheck(j >= 0 && j < h->s->nloc, PETSC_COMM_SELF, PETSC_ERR_SUP, "a row of another rank");
        h->npinned += !h->pinned[j];
        h->pinned[j] = 1;
    }
    if (x && b && x != b) {
        const PetscScalar *xa;
        PetscScalar *ba;
        PetscCall(VecGetArrayRead(x, &xa));
        PetscCall(VecGetArray(b, &ba));
        for (PetscInt k = 0; k < n; k++)
            ba[rows[k] - first] = xa[rows[k] - first];
        PetscCall(VecRestoreArray(b, &ba));
        PetscCall(VecRestoreArrayRead(x, &xa));
    }
    return 0;
}

static PetscErrorCode shell_destroy(void *ctx)
{
    shell_ctx *h = ctx;
    succ_free(&h->sc);
    free(h->arcs.v);
    free(h->state);
    idmap_free(&h->ghost);
    free(h->gidx);
    free(h->gnum);
    free(h->pinned);
    if (h->G)
        PetscCall(VecDestroy(&h->G));
    if (h->scatter)
        PetscCall(VecScatterDestroy(&h->scatter));
    free(h);
    return 0;
}

/* ---- making the shell: the scan, the ghosts' numbers ---- */

static int grow_ghosts(shell_ctx *h)
{
    if (h->nghost < h->capghost)
        return 0;
    int64_t cap = h->capghost ? 2 * h->capghost : 4096;
    int64_t *g = realloc(h->gidx, cap * sizeof *g);
    if (!g)
        return -1;
    h->gidx = g;
    h->capghost = cap;
    return 0;
}

/* The states [from, to) of the rank: exit rates, the smallest relative
 * rate, the arcs counted, the remote targets given ghost slots.
 * 0; -1 memory; -2 over the limit. */
static int scan(shell_ctx *h, int64_t from, int64_t to)
{
    dspace *s = h->s;
    for (int64_t i = from; i < to; i++) {
        if (list_arcs(h, i) < 0)
            return -1;
        double out = 0, least = HUGE_VAL;
        for (int k = 0; k < h->arcs.n; k++) {
            const space_arc *a = &h->arcs.v[k];
            if (a->to == s->index[i])
                continue;
            out += a->rate;
            if (a->rate > 0 && a->rate < least)
                least = a->rate;
            if (idmap_find(&s->map, a->to) >= 0) {
                h->local_arcs++;
                continue;
            }
            h->remote_arcs++;
            if (idmap_full(&h->ghost) &&
                dspace_bytes(s) + h->bytes + 24.0 * (h->ghost.mask + 1) > h->c->limit)
                return -2;
            int fresh;
            const int64_t slot = idmap_get(&h->ghost, a->to, (int32_t)h->nghost, &fresh);
            if (slot < 0 || (fresh && grow_ghosts(h) < 0))
                return -1;
            if (fresh)
                h->gidx[h->nghost++] = a->to;
        }
        s->exit[i] = out;
        s->rel[i] = out > 0 ? (float)(least / out) : 1;
    }
    h->bytes = idmap_bytes(&h->ghost, s->m) + 12.0 * h->capghost;
    return 0;
}

/* The global number of every ghost, asked of its owner: the product
 * indices grouped by owner travel in one MPI_Alltoallv, the owners'
 * numbers come back in another.  Collective; 0 or -1 (memory, agreed). */
static int number_ghosts(shell_ctx *h)
{
    const dctx *c = h->c;
    const dspace *s = h->s;
    const int P = c->size;
    int *cnt = calloc(4 * (size_t)P, sizeof *cnt);
    int64_t *order = malloc((h->nghost ? h->nghost : 1) * sizeof *order);
    int64_t *sendv = malloc((h->nghost ? h->nghost : 1) * sizeof *sendv);
    h->gnum = malloc((h->nghost ? h->nghost : 1) * sizeof *h->gnum);
    int ok = cnt && order && sendv && h->gnum, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
    if (!all) {
        free(cnt);
        free(order);
        free(sendv);
        return -1;
    }
    int *sd = cnt + P, *rc = sd + P, *rd = rc + P;
    for (int64_t g = 0; g < h->nghost; g++)
        cnt[dspace_owner(s, h->gidx[g], P)]++;
    int at = 0;
    for (int q = 0; q < P; q++) {
        sd[q] = at;
        at += cnt[q];
    }
    int *fill = malloc((size_t)P * sizeof *fill);
    if (fill)
        memcpy(fill, sd, (size_t)P * sizeof *fill);
    for (int64_t g = 0; fill && g < h->nghost; g++) {
        const int q = dspace_owner(s, h->gidx[g], P);
        order[fill[q]] = g;
        sendv[fill[q]++] = h->gidx[g];
    }
    ok = fill != NULL;
    free(fill);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
    MPI_Alltoall(cnt, 1, MPI_INT, rc, 1, MPI_INT, PETSC_COMM_WORLD);
    int64_t nin = 0;
    for (int q = 0; q < P; q++) {
        rd[q] = (int)nin;
        nin += rc[q];
    }
    int64_t *asked = malloc((nin ? nin : 1) * sizeof *asked);
    ok = all && asked;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
    if (!all) {
        free(asked);
        free(cnt);
        free(order);
        free(sendv);
        return -1;
    }
    MPI_Alltoallv(sendv, cnt, sd, MPI_INT64_T, asked, rc, rd, MPI_INT64_T, PETSC_COMM_WORLD);
    int missing = 0;
    for (int64_t k = 0; k < nin; k++) {
        const int32_t j = idmap_find(&s->map, asked[k]);
        missing += j < 0;
        asked[k] = s->first + (j < 0 ? 0 : j);
    }
    MPI_Alltoallv(asked, rc, rd, MPI_INT64_T, sendv, cnt, sd, MPI_INT64_T, PETSC_COMM_WORLD);
    for (int64_t k = 0; k < h->nghost; k++)
        h->gnum[order[k]] = (PetscInt)sendv[k];
    free(asked);
    free(cnt);
    free(order);
    free(sendv);
    int bad = 0;
    MPI_Allreduce(&missing, &bad, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
    return bad ? -3 : 0;
}

static PetscErrorCode make_mat(shell_ctx *h, Mat *A)
{
    const dspace *s = h->s;
    IS is;
    Vec X;
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, (PetscInt)h->nghost, &h->G));
    PetscCall(VecCreateMPIWithArray(PETSC_COMM_WORLD, 1, (PetscInt)s->nloc, (PetscInt)s->n, NULL,
                                    &X));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, (PetscInt)h->nghost, h->gnum, PETSC_USE_POINTER,
                              &is));
    PetscCall(VecScatterCreate(X, is, h->G, NULL, &h->scatter));
    PetscCall(ISDestroy(&is));
    PetscCall(VecDestroy(&X));
    PetscCall(MatCreateShell(PETSC_COMM_WORLD, (PetscInt)s->nloc, (PetscInt)s->nloc,
                             (PetscInt)s->n, (PetscInt)s->n, h, A));
    /* the shell does its own rows (the pins): PETSc is told so, and then
     * calls the operations below directly */
    PetscCall(MatShellSetManageScalingShifts(*A));
    PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))shell_mult));
    PetscCall(MatShellSetOperation(*A, MATOP_MULT_TRANSPOSE, (void (*)(void))shell_mult_transpose));
    PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (void (*)(void))shell_diagonal));
    PetscCall(MatShellSetOperation(*A, MATOP_ZERO_ROWS, (void (*)(void))shell_zero_rows));
    PetscCall(MatShellSetContextDestroy(*A, shell_destroy));
    return 0;
}

san_status dshell(const dctx *c, dspace *s, Mat *A, int64_t *nnz, san_diag *d)
{
    char msg[512] = "";
    shell_ctx *h = calloc(1, sizeof *h);
    san_status st = SAN_OK;
    if (!h || succ_init(&h->sc, s->m) < 0 || !(h->state = calloc(s->m->naut + 1, sizeof *h->state)) ||
        !(h->pinned = calloc(s->nloc ? s->nloc : 1, 1)) || idmap_init(&h->ghost, s->m, 0, 0) < 0) {
        snprintf(msg, sizeof msg, "rank %d: out of memory for the matrix-free generator", c->rank);
        st = SAN_E_NOMEM;
    }
    if (h) {
        h->c = c;
        h->s = s;
    }
    long long mine = s->nloc, most = 0;
    MPI_Allreduce(&mine, &most, 1, MPI_LONG_LONG, MPI_MAX, PETSC_COMM_WORLD);
    base_progress pg;
    base_progress_init(&pg, c->progress, 0.5);
    for (int64_t from = 0; (st = dagree(c, st, msg, d)) == SAN_OK && from < most;
         from += SCAN_CHUNK) {
        const int64_t a = from < s->nloc ? from : s->nloc;
        const int64_t b = from + SCAN_CHUNK < s->nloc ? from + SCAN_CHUNK : s->nloc;
        const int rc = scan(h, a, b);
        if (rc == -2) {
            char b1[32];
            snprintf(msg, sizeof msg, "rank %d: the matrix-free generator's ghosts need more "
                     "than --max-memory of %s for one rank; raise it or run more ranks",
                     c->rank, san_format_bytes(c->limit, b1, sizeof b1));
            st = SAN_E_LIMIT;
        } else if (rc < 0) {
            snprintf(msg, sizeof msg, "rank %d: out of memory while listing the arcs", c->rank);
            st = SAN_E_NOMEM;
        }
        base_progress_draw(&pg, 0, "  listing the arcs on %d ranks: %lld of %lld states a rank",
                          c->size, (long long)b, most);
    }
    base_progress_end(&pg, 1);
    if (st == SAN_OK) {
        const int rc = number_ghosts(h);
        if (rc == -3)
            snprintf(msg, sizeof msg, "internal error: a target of the matrix-free generator "
                     "is not a state of its owner");
        else if (rc < 0)
            snprintf(msg, sizeof msg, "rank %d: out of memory for the ghosts' numbers", c->rank);
        st = dagree(c, rc == -3 ? SAN_E_NUMERIC : rc < 0 ? SAN_E_NOMEM : SAN_OK, msg, d);
    }
    if (st != SAN_OK) {
        if (h)
            shell_destroy(h);
        return st;
    }
    double cnt[2] = { h->local_arcs + h->remote_arcs + s->nloc, 0 };
    MPI_Allreduce(cnt, cnt + 1, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
    *nnz = (int64_t)cnt[1];
    if (make_mat(h, A)) {   /* PETSc's errors are collective here */
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: the matrix-free generator could not "
                     "be made (PETSc error)");
        return SAN_E_NOMEM;
    }
    return SAN_OK;
}

int dshell_is(Mat A)
{
    PetscBool yes = PETSC_FALSE;
    PetscObjectTypeCompare((PetscObject)A, MATSHELL, &yes);
    return yes == PETSC_TRUE;
}

void dshell_unpin(Mat A, int unpinned)
{
    shell_ctx *h;
    if (MatShellGetContext(A, &h) == 0 && h)
        h->unpinned = unpinned;
}

void dshell_figures(Mat A, double *ghosts, double *cross, double *bytes)
{
    shell_ctx *h;
    double loc[3] = { 0, 0, 0 }, all[3];
    if (MatShellGetContext(A, &h) == 0 && h) {
        loc[0] = (double)h->nghost;
        loc[1] = h->remote_arcs;
        loc[2] = h->local_arcs + h->remote_arcs + h->s->nloc;
        *bytes = h->bytes + 8.0 * h->nghost + 1.0 * h->s->nloc;
    }
    MPI_Allreduce(loc, all, 3, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
    *ghosts = all[0];
    *cross = all[2] > 0 ? all[1] / all[2] : 0;
}

int64_t dshell_row_entries(Mat A, int64_t i)
{
    shell_ctx *h;
    if (MatShellGetContext(A, &h) || !h || list_arcs(h, i) < 0)
        return 0;
    int64_t n = 1;
    for (int k = 0; k < h->arcs.n; k++)
        n += h->arcs.v[k].to != h->s->index[i];
    return n;
}

void dshell_ghosts(Mat A, VecScatter *sc, PetscInt *nghost)
{
    shell_ctx *h;
    *sc = NULL;
    *nghost = 0;
    if (MatShellGetContext(A, &h) == 0 && h) {
        *sc = h->scatter;
        *nghost = (PetscInt)h->nghost;
    }
}

int dshell_each_arc(Mat A, darc_fn fn, void *ctx)
{
    shell_ctx *h;
    if (MatShellGetContext(A, &h) || !h)
        return -1;
    const dspace *s = h->s;
    for (int64_t i = 0; i < s->nloc; i++) {
        if (list_arcs(h, i) < 0)
            return -1;
        for (int k = 0; k < h->arcs.n; k++) {
            const space_arc *a = &h->arcs.v[k];
            if (a->to == s->index[i])
                continue;
            const int32_t j = idmap_find(&s->map, a->to);
            if (j >= 0)
                fn(ctx, i, 0, j, 0, a->rate);
            else
                fn(ctx, i, 0, idmap_find(&h->ghost, a->to), 1, a->rate);
        }
    }
    return 0;
}

int dshell_local_out(Mat A, PetscInt **ptr, PetscInt **col)
{
    shell_ctx *h;
    *ptr = NULL;
    *col = NULL;
    if (MatShellGetContext(A, &h) || !h)
        return -1;
    const dspace *s = h->s;
    PetscInt *p = calloc(s->nloc + 1, sizeof *p), *c = NULL;
    if (!p)
        return -1;
    for (int pass = 0; pass < 2; pass++) {     /* count, then fill */
        for (int64_t i = 0; i < s->nloc; i++) {
            if (list_arcs(h, i) < 0) {
                free(p);
                free(c);
                return -1;
            }
            PetscInt at = pass ? p[i] : 0;
            for (int k = 0; k < h->arcs.n; k++) {
                const space_arc *a = &h->arcs.v[k];
                const int32_t j = a->to == s->index[i] || a->rate <= 0 ? -1
                                  : idmap_find(&s->map, a->to);
                if (j < 0)
                    continue;
                if (pass)
                    c[at] = j;
                at++;
            }
            if (!pass)
                p[i + 1] = p[i] + at;
        }
        if (!pass && !(c = malloc((p[s->nloc] ? p[s->nloc] : 1) * sizeof *c))) {
            free(p);
            return -1;
        }
    }
    *ptr = p;
    *col = c;
    return 0;
}
