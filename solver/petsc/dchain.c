/*
 * dchain.c - the distributed chain as the time-dependent analyses see
 * it (petsc_solve.h, psc_dchain): the states explored, Q^T assembled and
 * the closed class found as for a steady state (dbuild), then handed to
 * solver/analysis/transient.c, which runs uniformization, passage times
 * and their indices over it as over a serial space, each rank on its
 * part of the vectors:
 *
 *   op        y = x Q: MatMult of Q^T on the rank's part (the array
 *             placed in a Vec without copying);
 *   red       sums and maxima over the ranks (MPI_Allreduce);
 *   indices   results, marginals, throughputs of a vector, reduced
 *             (dindices.c).
 *
 * Transient states stay (they carry the early mass); the states of a
 * dropped pocket are marked, and get no initial mass, as in serial where
 * they are gone.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/petsc/dist.h"
#include "solver/petsc/petsc_solve.h"

typedef struct {
    dbuilt b;
    Vec X, Y;                   /* no storage of their own: arrays placed */
    char *dropped;
} chain_impl;

static void apply(const num_op *op, const double *x, double *y)
{
    const chain_impl *ci = op->ctx;
    /* a failure here is PETSc's (out of memory in a scatter): its
     * handler has printed it; the error stops every rank */
    if (VecPlaceArray(ci->X, x) || VecPlaceArray(ci->Y, y) || MatMult(ci->b.A, ci->X, ci->Y) ||
        VecResetArray(ci->X) || VecResetArray(ci->Y))
        PETSCABORT(PETSC_COMM_WORLD, PETSC_ERR_LIB);
}

static double all_sum(double v)
{
    double s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
    return s;
}

static double all_max(double v)
{
    double s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
    return s;
}

static san_status indices(psc_dchain *ch, const double *x, san_solution *sol, san_diag *d)
{
    chain_impl *ci = ch->impl;
    int64_t none = 0;
    memset(sol, 0, sizeof *sol);
    sol->info.lu_correction = -1;   /* none made */
    if (VecPlaceArray(ci->X, x))
        return SAN_E_NOMEM;
    san_status st = dindices(&ci->b.c, &ci->b.s, ci->X, 0, sol, &none, d);
    VecResetArray(ci->X);
    return st;
}

static san_status keep(psc_dchain *ch, const double *x, void **out, san_diag *d)
{
    chain_impl *ci = ch->impl;
    return dvector_keep_array(&ci->b.c, &ci->b.s, x, ci->dropped, out, d);
}

/* The wrappers, the dropped marks and the largest exit rate. */
static san_status equip(psc_dchain *ch, chain_impl *ci)
{
    dbuilt *b = &ci->b;
    const PetscInt nloc = (PetscInt)b->s.nloc;
    int ok = VecCreateMPIWithArray(PETSC_COMM_WORLD, 1, nloc, PETSC_DECIDE, NULL, &ci->X) == 0 &&
             VecCreateMPIWithArray(PETSC_COMM_WORLD, 1, nloc, PETSC_DECIDE, NULL, &ci->Y) == 0;
    ci->dropped = calloc(nloc ? nloc : 1, 1);
    const PetscScalar *ia = NULL;
    ok = ok && ci->dropped && VecGetArrayRead(b->in, &ia) == 0;
    for (PetscInt k = 0; ok && k < nloc; k++)
        ci->dropped[k] = ia[k] == 2;
    if (ia)
        VecRestoreArrayRead(b->in, &ia);
    PetscReal maxd = 0;
    ok = ok && MatGetDiagonal(b->A, b->x) == 0 && VecNorm(b->x, NORM_INFINITY, &maxd) == 0;
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
    if (!all)
        return SAN_E_NOMEM;
    double mat = 0;
    if (b->shell) {
        double ghosts, cross;
        dshell_figures(b->A, &ghosts, &cross, &mat);
    } else {
        MatInfo info;
        MatGetInfo(b->A, MAT_LOCAL, &info);
        mat = 12.0 * info.nz_used + 24.0 * nloc;
    }
    ch->local.m = b->s.m;
    ch->local.n = b->s.nloc;
    ch->local.index = b->s.index;
    ch->dropped = ci->dropped;
    ch->op = (num_op){ .n = b->s.nloc, .apply = apply, .maxd = maxd, .par_min = INT64_MAX,
                       .ctx = ci };
    ch->red = (tr_reduce){ all_sum, all_max };
    ch->rank = b->c.rank;
    ch->held = dspace_bytes(&b->s) + mat + 16.0 * nloc;
    ch->limit = b->c.limit;
    ch->indices = indices;
    ch->keep = keep;
    ch->impl = ci;
    return SAN_OK;
}

static void impl_free(chain_impl *ci)
{
    if (ci->X)
        VecDestroy(&ci->X);
    if (ci->Y)
        VecDestroy(&ci->Y);
    free(ci->dropped);
    dbuilt_free(&ci->b);
    free(ci);
}

san_status psc_chain(const san_model *m, const san_analysis_opts *o, psc_answer *ans,
                     psc_dchain **out, san_diag *d)
{
    const double t0 = san_now();
    memset(ans, 0, sizeof *ans);
    *out = NULL;
    if (o->storage == SAN_STORAGE_KRON || o->space_only) {
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc works over the sparse generator only "
                     "(not --storage kron)");
        return SAN_E_USAGE;
    }
    chain_impl *ci = calloc(1, sizeof *ci);
    psc_dchain *ch = calloc(1, sizeof *ch);
    if (!ci || !ch) {
        free(ci);
        free(ch);
        return SAN_E_NOMEM;
    }
    san_status st = dbuild(m, o, t0, &ci->b, ans, d);
    if (st == SAN_OK && (st = equip(ch, ci)) != SAN_OK)
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: out of memory for the vectors");
    if (st != SAN_OK) {
        impl_free(ci);
        free(ch);
        return st;
    }
    dfill_space(&ci->b.c, &ci->b.s, ci->b.nnz, ci->b.nclosed, ci->b.dropped, ans);
    ans->have_space = 1;
    *out = ch;
    return SAN_OK;
}

double psc_chain_free(psc_dchain *ch)
{
    if (!ch)
        return 0;
    const double peak = dpeak_rss();
    impl_free(ch->impl);
    free(ch);
    return peak;
}
