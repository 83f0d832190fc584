/*
 * dagg.c - the aggregation test of the serial contract
 * (solver/numeric/verify.c) on a distributed answer.
 *
 * A vector can balance every state to --tol while the blocks of a
 * nearly decomposable chain carry the wrong mass.  Aggregating over a
 * partition whose blocks hold the slow modes measures that error: the
 * coarse chain of the blocks (flows between them under the vector) has
 * the block masses as its answer exactly when the vector is right
 * (aggregate.c).  The partitions here are those the ranks can form
 * without gathering the chain, the serial ones but for the event groups:
 *
 *   - per automaton (2 to SAN_PART_MAX_BLOCKS local states, at most
 *     MAX_AUT_PARTS of them): a state's block is its local state, read
 *     from its index on any rank;
 *   - the components joined by the fast transitions (at least theta of
 *     their source's exit rate, theta 1e-2, 1e-5, 1e-8), weakly
 *     connected: union-find within each rank, then labels (the smallest
 *     global number of a component) carried across ranks by the ghosts
 *     until none changes (one round per crossing of a rank, as the
 *     class check); kept when 2 to SAN_PART_MAX_BLOCKS components.
 *
 * The flows of a partition are summed over each rank's arcs (at their
 * target's rank for the assembled Q^T, the pinned row's from its saved
 * entries; at their source's for the matrix-free generator), then over
 * the ranks (MPI_Allreduce of B^2 + B numbers); every rank solves the
 * coarse chain by GTH (num_coarse_solve).  The partitions are made once,
 * before the solve pins rows (the components need every arc).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/petsc/dist.h"
#include "solver/numeric/linsolve.h"
#include "solver/numeric/partition.h"

#define FAST_THETAS 3
static const double fast_theta[FAST_THETAS] = { 1e-2, 1e-5, 1e-8 };

typedef struct {
    int nblk;
    uint16_t *blk;          /* per local state */
    char what[96];
} dpart;

struct dagg {
    const dspace *s;
    int np, cap;
    dpart *p;
    double fast_theta_missed;   /* a threshold whose components could not be
                                   a partition (too many): 0 when none */
    double *F, *b, *z, *C;      /* the coarse chain's workspace */
    int *map;
};

/* ---- the ghosts: values of other ranks' states the rank's arcs reach ---- */

typedef struct {
    int shell;
    PetscInt ng;
    VecScatter sc;          /* A's layout -> the ghosts (NULL: none) */
    int own_sc;
    Vec G;
    Mat Ad, Ao;             /* assembled: the diagonal and off-diagonal blocks */
} ghosts;

static PetscErrorCode ghosts_make(Mat A, ghosts *g)
{
    memset(g, 0, sizeof *g);
    g->shell = dshell_is(A);
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (g->shell) {
        dshell_ghosts(A, &g->sc, &g->ng);
    } else {
        g->Ad = A;
        if (size > 1) {
            const PetscInt *garray;
            PetscInt rows;
            PetscCall(MatMPIAIJGetSeqAIJ(A, &g->Ad, &g->Ao, &garray));
            PetscCall(MatGetSize(g->Ao, &rows, &g->ng));
            Vec X;
            IS is;
            PetscCall(MatCreateVecs(A, &X, NULL));
            PetscCall(ISCreateGeneral(PETSC_COMM_SELF, g->ng, garray, PETSC_COPY_VALUES, &is));
            PetscCall(VecCreateSeq(PETSC_COMM_SELF, g->ng, &g->G));
            PetscCall(VecScatterCreate(X, is, g->G, NULL, &g->sc));
            g->own_sc = 1;
            PetscCall(ISDestroy(&is));
            PetscCall(VecDestroy(&X));
        }
    }
    if (g->sc && !g->G)
        PetscCall(VecCreateSeq(PETSC_COMM_SELF, g->ng, &g->G));
    return 0;
}

static PetscErrorCode ghosts_free(ghosts *g)
{
    if (g->own_sc && g->sc)
        PetscCall(VecScatterDestroy(&g->sc));
    if (g->G)
        PetscCall(VecDestroy(&g->G));
    return 0;
}

/* v's values at the ghosts into out (ng doubles). */
static PetscErrorCode ghost_values(ghosts *g, Vec v, double *out)
{
    if (!g->sc)
        return 0;
    PetscCall(VecScatterBegin(g->sc, v, g->G, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(g->sc, v, g->G, INSERT_VALUES, SCATTER_FORWARD));
    if (!out)
        return 0;
    const PetscScalar *a;
    PetscCall(VecGetArrayRead(g->G, &a));
    PetscCall(PetscArraycpy(out, a, g->ng));
    PetscCall(VecRestoreArrayRead(g->G, &a));
    return 0;
}

/* The least of the ghosts' candidates into v (MIN over what each rank
 * sends its states). */
static PetscErrorCode ghost_min(ghosts *g, const double *cand, Vec v)
{
    if (!g->sc)
        return 0;
    PetscScalar *a;
    PetscCall(VecGetArray(g->G, &a));
    PetscCall(PetscArraycpy(a, cand, g->ng));
    PetscCall(VecRestoreArray(g->G, &a));
    PetscCall(VecScatterBegin(g->sc, g->G, v, MIN_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(g->sc, g->G, v, MIN_VALUES, SCATTER_REVERSE));
    return 0;
}

/* Every arc of the rank's: the assembled matrix's rows (targets local,
 * sources local or ghost), or the shell's listing. */
static PetscErrorCode each_arc(Mat A, ghosts *g, darc_fn fn, void *ctx)
{
    if (g->shell) {
        PetscCheck(dshell_each_arc(A, fn, ctx) == 0, PETSC_COMM_SELF, PETSC_ERR_MEM, "arcs");
        return 0;
    }
    for (int blk = 0; blk < 2; blk++) {
        Mat M = blk ? g->Ao : g->Ad;
        if (!M)
            continue;
        PetscInt n;
        const PetscInt *ia, *ja;
        const PetscScalar *va;
        PetscBool done;
        PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
        PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "no row structure");
        PetscCall(MatSeqAIJGetArrayRead(M, &va));
        for (PetscInt j = 0; j < n; j++)
            for (PetscInt t = ia[j]; t < ia[j + 1]; t++)
                if (va[t] > 0 && (blk || ja[t] != j))
                    fn(ctx, ja[t], blk, j, 0, va[t]);
        PetscCall(MatSeqAIJRestoreArrayRead(M, &va));
        PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
    }
    return 0;
}

/* ---- the partitions ---- */

static dpart *add_part(dagg *g, const dspace *s, int nblk)
{
    if (g->np == g->cap) {
        int cap = g->cap ? 2 * g->cap : 16;
        dpart *p = realloc(g->p, cap * sizeof *p);
        if (!p)
            return NULL;
        g->p = p;
        g->cap = cap;
    }
    dpart *p = &g->p[g->np];
    memset(p, 0, sizeof *p);
    p->nblk = nblk;
    if (!(p->blk = calloc(s->nloc ? s->nloc : 1, sizeof *p->blk)))
        return NULL;
    g->np++;
    return p;
}

/* At most this many automata get a partition (2 bytes a state each, and
 * a pass over the arcs a check): a model of 1,000 replicas would hold
 * 2 KB a state.  The automata the key puts first (dpartition.c: those
 * that move least per gap, where slow modes live) are taken first. */
#define MAX_AUT_PARTS 32

static int automata_parts(dagg *g, const dspace *s)
{
    const san_model *m = s->m;
    int *ord = malloc((m->naut + 1) * sizeof *ord), n = 0;
    if (!ord)
        return -1;
    for (int a = 0; a < m->naut; a++)
        if (m->aut[a].nstates >= 2 && m->aut[a].nstates <= SAN_PART_MAX_BLOCKS)
            ord[n++] = a;
    for (int k = 1; k < n && s->kstride; k++) {     /* most significant in the key first */
        const int a = ord[k];
        int q = k;
        for (; q > 0 && s->kstride[ord[q - 1]] < s->kstride[a]; q--)
            ord[q] = ord[q - 1];
        ord[q] = a;
    }
    for (int k = 0; k < n && k < MAX_AUT_PARTS; k++) {
        const int a = ord[k], ns = m->aut[a].nstates;
        dpart *p = add_part(g, s, ns);
        if (!p) {
            free(ord);
            return -1;
        }
        snprintf(p->what, sizeof p->what, "automaton %.80s", m->aut[a].name);
        for (int64_t i = 0; i < s->nloc; i++)
            p->blk[i] = (uint16_t)((s->index[i] / m->stride[a]) % ns);
    }
    free(ord);
    return 0;
}

/* Union-find over the rank's states. */
static int32_t root_of(int32_t *up, int32_t i)
{
    while (up[i] != i) {
        up[i] = up[up[i]];
        i = up[i];
    }
    return i;
}

typedef struct {
    const dspace *s;
    const PetscScalar *inc;     /* the closed class: 1 */
    const double *gin;          /* the ghosts' */
    const double *exit, *gexit; /* local, ghosts */
    double theta;
    int32_t *up;
    /* the fast arcs that cross ranks: local state, ghost */
    int64_t ncross, capcross;
    int32_t (*cross)[2];
    int fail;
} fast_ctx;

static void fast_arc(void *ctx, int64_t i, int ighost, int64_t j, int jghost, double rate)
{
    fast_ctx *f = ctx;
    const double ex = ighost ? f->gexit[i] : f->exit[i];
    if (!(rate >= f->theta * ex))
        return;
    if ((ighost ? f->gin[i] : f->inc[i]) != 1 || (jghost ? f->gin[j] : f->inc[j]) != 1)
        return;     /* only the closed class is partitioned: a transient state
                       feeding two blocks must not join them */
    if (!ighost && !jghost) {
        const int32_t a = root_of(f->up, (int32_t)i), b = root_of(f->up, (int32_t)j);
        if (a != b)
            f->up[a > b ? a : b] = a < b ? a : b;
        return;
    }
    if (f->ncross == f->capcross) {
        int64_t cap = f->capcross ? 2 * f->capcross : 1024;
        void *p = realloc(f->cross, cap * sizeof *f->cross);
        if (!p) {
            f->fail = 1;
            return;
        }
        f->cross = p;
        f->capcross = cap;
    }
    f->cross[f->ncross][0] = (int32_t)(ighost ? j : i);
    f->cross[f->ncross][1] = (int32_t)(ighost ? i : j);
    f->ncross++;
}

/* The components of the fast arcs at theta: their labels (the least
 * global number in each) into lab, by local state.  Collective. */
static PetscErrorCode fast_labels(Mat A, ghosts *g, const dspace *s, Vec in, Vec diag,
                                  double theta, double *lab, int *fail)
{
    const PetscInt n = (PetscInt)s->nloc;
    fast_ctx f;
    memset(&f, 0, sizeof f);
    f.s = s;
    f.theta = theta;
    double *exit = malloc((n ? n : 1) * sizeof *exit);
    double *gexit = malloc((g->ng ? g->ng : 1) * sizeof *gexit);
    double *gl = malloc((g->ng ? g->ng : 1) * sizeof *gl);
    double *cand = malloc((g->ng ? g->ng : 1) * sizeof *cand);
    double *gin = malloc((g->ng ? g->ng : 1) * sizeof *gin);
    f.up = malloc((n ? n : 1) * sizeof *f.up);
    Vec L;
    PetscCall(VecDuplicate(in, &L));
    int ok = exit && gexit && gl && cand && gin && f.up;
    const PetscScalar *da;
    PetscCall(VecGetArrayRead(diag, &da));
    for (PetscInt i = 0; ok && i < n; i++) {
        exit[i] = -da[i];
        f.up[i] = (int32_t)i;
    }
    PetscCall(VecRestoreArrayRead(diag, &da));
    /* collective: called whatever this rank's allocations did */
    PetscCall(ghost_values(g, diag, ok ? gexit : NULL));
    PetscCall(ghost_values(g, in, ok ? gin : NULL));
    f.gin = gin;
    for (PetscInt k = 0; ok && k < g->ng; k++)
        gexit[k] = -gexit[k];
    PetscCall(VecGetArrayRead(in, &f.inc));
    f.exit = exit;
    f.gexit = gexit;
    if (ok)
        PetscCall(each_arc(A, g, fast_arc, &f));
    PetscCall(VecRestoreArrayRead(in, &f.inc));
    ok = ok && !f.fail;
    int all = 0;
    PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    *fail = !all;
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(in, &lo, &hi));
    /* labels: the least global number of each local component */
    for (PetscInt i = 0; all && i < n; i++)
        lab[i] = (double)(lo + root_of(f.up, (int32_t)i));     /* roots are the least */
    for (int changed = all; changed;) {
        PetscScalar *la;
        PetscCall(VecGetArray(L, &la));
        for (PetscInt i = 0; i < n; i++)
            la[i] = lab[root_of(f.up, (int32_t)i)];
        PetscCall(VecRestoreArray(L, &la));
        PetscCall(ghost_values(g, L, gl));
        for (PetscInt k = 0; k < g->ng; k++)
            cand[k] = INFINITY;
        int mine = 0;
        for (int64_t e = 0; e < f.ncross; e++) {
            const int32_t l = root_of(f.up, f.cross[e][0]), k = f.cross[e][1];
            if (gl[k] < lab[l]) {
                lab[l] = gl[k];
                mine = 1;
            }
            if (lab[l] < cand[k])
                cand[k] = lab[l];
        }
        /* what the other ranks offer this rank's states */
        PetscCall(VecGetArray(L, &la));
        for (PetscInt i = 0; i < n; i++)
            la[i] = lab[root_of(f.up, (int32_t)i)];
        PetscCall(VecRestoreArray(L, &la));
        PetscCall(ghost_min(g, cand, L));
        PetscCall(VecGetArray(L, &la));
        for (PetscInt i = 0; i < n; i++) {
            const int32_t r = root_of(f.up, (int32_t)i);
            if (la[i] < lab[r]) {
                lab[r] = la[i];
                mine = 1;
            }
        }
        PetscCall(VecRestoreArray(L, &la));
        PetscCallMPI(MPI_Allreduce(&mine, &changed, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
    }
    for (PetscInt i = 0; all && i < n; i++)
        lab[i] = lab[root_of(f.up, (int32_t)i)];
    PetscCall(VecDestroy(&L));
    free(exit);
    free(gexit);
    free(gl);
    free(cand);
    free(gin);
    free(f.up);
    free(f.cross);
    return 0;
}

static int by_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The components at theta as a partition, when 2 to SAN_PART_MAX_BLOCKS:
 * the labels of the components' roots gathered on every rank (sorted: a
 * block's number is its label's place), each state's block looked up. */
static PetscErrorCode fast_part(dagg *g, Mat A, ghosts *gh, const dspace *s, Vec in, Vec diag,
                                double theta, double *lab, int *fail)
{
    PetscCall(fast_labels(A, gh, s, in, diag, theta, lab, fail));
    if (*fail)
        return 0;
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(in, &lo, &hi));
    const PetscScalar *ia;
    PetscCall(VecGetArrayRead(in, &ia));
    int mine = 0, size;
    double roots[SAN_PART_MAX_BLOCKS + 1];
    for (PetscInt i = 0; i < hi - lo; i++)
        if (ia[i] == 1 && lab[i] == (double)(lo + i) && mine <= SAN_PART_MAX_BLOCKS)
            roots[mine++] = lab[i];
    PetscCall(VecRestoreArrayRead(in, &ia));
    int total = 0;
    PetscCallMPI(MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
    if (total < 2)
        return 0;               /* connected: no slow mode at this theta */
    if (total > SAN_PART_MAX_BLOCKS) {
        g->fast_theta_missed = theta;
        return 0;
    }
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    int *cnt = malloc(2 * size * sizeof *cnt);
    double *all = malloc((total + 1) * sizeof *all);
    int ok = cnt && all, okall = 0;
    PetscCallMPI(MPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    if (!okall) {
        free(cnt);
        free(all);
        *fail = 1;
        return 0;
    }
    int *dis = cnt + size;
    PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, PETSC_COMM_WORLD));
    for (int q = 0, at = 0; q < size; q++) {
        dis[q] = at;
        at += cnt[q];
    }
    PetscCallMPI(MPI_Allgatherv(roots, mine, MPI_DOUBLE, all, cnt, dis, MPI_DOUBLE,
                                PETSC_COMM_WORLD));
    qsort(all, total, sizeof *all, by_double);
    dpart *p = add_part(g, s, total);
    if (p) {
        snprintf(p->what, sizeof p->what, "%d components of the transitions above %.0e of "
                 "their exit rate", total, theta);
        for (int64_t i = 0; i < s->nloc; i++) {
            const double *hit = bsearch(&lab[i], all, total, sizeof *all, by_double);
            p->blk[i] = (uint16_t)(hit ? hit - all : 0);
        }
    } else
        *fail = 1;
    free(cnt);
    free(all);
    return 0;
}

PetscErrorCode dagg_create(const dspace *s, Mat A, Vec in, Vec diag, dagg **out)
{
    dagg *g = calloc(1, sizeof *g);
    *out = NULL;
    const size_t B = SAN_PART_MAX_BLOCKS;
    double *lab = malloc((s->nloc ? s->nloc : 1) * sizeof *lab);
    int ok = g && lab && (g->F = malloc(B * B * sizeof *g->F)) &&
             (g->C = malloc(B * B * sizeof *g->C)) && (g->b = malloc(B * sizeof *g->b)) &&
             (g->z = malloc(B * sizeof *g->z)) && (g->map = malloc(B * sizeof *g->map));
    if (ok) {
        g->s = s;
        ok = automata_parts(g, s) == 0;
    }
    int all = 0;
    PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    if (all) {
        ghosts gh;
        PetscCall(ghosts_make(A, &gh));
        for (int k = 0; k < FAST_THETAS && all; k++) {
            int fail = 0;
            PetscCall(fast_part(g, A, &gh, s, in, diag, fast_theta[k], lab, &fail));
            all = !fail;
        }
        PetscCall(ghosts_free(&gh));
    }
    free(lab);
    if (!all) {
        dagg_free(g);
        SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_MEM, "out of memory for the aggregation check");
    }
    *out = g;
    return 0;
}

void dagg_free(dagg *g)
{
    if (!g)
        return;
    for (int k = 0; k < g->np; k++)
        free(g->p[k].blk);
    free(g->p);
    free(g->F);
    free(g->C);
    free(g->b);
    free(g->z);
    free(g->map);
    free(g);
}

int dagg_parts(const dagg *g)
{
    return g ? g->np : 0;
}

double dagg_missed(const dagg *g)
{
    return g ? g->fast_theta_missed : 0;
}

/* ---- the check ---- */

typedef struct {
    const uint16_t *blk;
    const double *gblk;         /* the ghosts' blocks */
    const PetscScalar *p;
    const double *gp;           /* the ghosts' probabilities */
    double *F;
    int B;
} flow_ctx;

static void flow_arc(void *ctx, int64_t i, int ighost, int64_t j, int jghost, double rate)
{
    flow_ctx *f = ctx;
    const double pi = ighost ? f->gp[i] : f->p[i];
    if (pi == 0)
        return;
    const int u = ighost ? (int)f->gblk[i] : f->blk[i];
    const int v = jghost ? (int)f->gblk[j] : f->blk[j];
    if (u != v)
        f->F[(size_t)u * f->B + v] += pi * rate;
}

PetscErrorCode dagg_check(dagg *g, Mat A, Vec p, PetscInt fix, fixrow *fr, int correct,
                          double *err, char *what, size_t n)
{
    const dspace *s = g->s;
    const PetscInt nloc = (PetscInt)s->nloc;
    ghosts gh;
    PetscCall(ghosts_make(A, &gh));
    double *gblk = malloc((gh.ng ? gh.ng : 1) * sizeof *gblk);
    double *gp = malloc((gh.ng ? gh.ng : 1) * sizeof *gp);
    double *fblk = malloc((fr->len ? fr->len : 1) * sizeof *fblk);
    int ok = gblk && gp && fblk, all = 0;
    PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
    PetscCheck(all, PETSC_COMM_WORLD, PETSC_ERR_MEM, "out of memory for the aggregation check");
    Vec V;
    PetscCall(VecDuplicate(p, &V));
    PetscCall(ghost_values(&gh, p, gp));
    *err = 0;
    what[0] = '\0';
    PetscInt lo, hi;
    PetscCall(VecGetOwnershipRange(p, &lo, &hi));
    for (int k = 0; k < g->np; k++) {
        const dpart *pt = &g->p[k];
        const int B = pt->nblk;
        PetscScalar *va;
        PetscCall(VecGetArray(V, &va));
        for (PetscInt i = 0; i < nloc; i++)
            va[i] = pt->blk[i];
        PetscCall(VecRestoreArray(V, &va));
        PetscCall(ghost_values(&gh, V, gblk));
        memset(g->F, 0, (size_t)B * B * sizeof *g->F);
        memset(g->b, 0, (size_t)B * sizeof *g->b);
        const PetscScalar *pa;
        PetscCall(VecGetArrayRead(p, &pa));
        for (PetscInt i = 0; i < nloc; i++)
            g->b[pt->blk[i]] += pa[i];
        flow_ctx fc = { pt->blk, gblk, pa, gp, g->F, B };
        PetscCall(each_arc(A, &gh, flow_arc, &fc));
        PetscCall(VecRestoreArrayRead(p, &pa));
        /* the pinned row's arcs (assembled: its row is an identity row
         * now), from its saved entries: sources anywhere */
        if (!gh.shell) {
            double *fp = malloc((fr->len ? fr->len : 1) * sizeof *fp);
            PetscCheck(fp || !fr->len, PETSC_COMM_SELF, PETSC_ERR_MEM, "the pinned row");
            PetscCall(fixrow_values(fr, V, fblk));
            PetscCall(fixrow_values(fr, p, fp));
            if (fix >= lo && fix < hi) {
                const int v = pt->blk[fix - lo];
                for (PetscInt t = 0; t < fr->len; t++)
                    if (fr->col[t] != fix && (int)fblk[t] != v)
                        g->F[(size_t)fblk[t] * B + v] += fp[t] * fr->val[t];
            }
            free(fp);
        }
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, g->F, B * B, MPI_DOUBLE, MPI_SUM,
                                   PETSC_COMM_WORLD));
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, g->b, B, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
        if (num_coarse_solve(B, g->F, g->b, g->z, g->C, g->map) != 0)
            continue;           /* fewer than two blocks with mass: nothing to see */
        const double e = num_coarse_error(B, g->b, g->z, g->map);
        if (e > *err) {
            *err = e;
            snprintf(what, n, "%s", pt->what);
        }
        if (correct && e > 0) {     /* each block scaled to the coarse chain's mass */
            PetscScalar *xa;
            PetscCall(VecGetArray(p, &xa));
            for (PetscInt i = 0; i < nloc; i++) {
                const int u = pt->blk[i];
                if (g->map[u] >= 0 && g->b[u] > 0)
                    xa[i] *= g->z[u] / g->b[u];
            }
            PetscCall(VecRestoreArray(p, &xa));
            PetscCall(ghost_values(&gh, p, gp));
        }
    }
    PetscCall(VecDestroy(&V));
    free(gblk);
    free(gp);
    free(fblk);
    PetscCall(ghosts_free(&gh));
    return 0;
}
