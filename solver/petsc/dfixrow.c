/*
 * dfixrow.c - the pinned row of the distributed solve (fixrow, dist.h):
 * its entries kept aside when the solve makes it an identity row, and
 * the values of a vector at its columns.  A leaf of solver/petsc/: the
 * solve (dsolve.c) and the aggregation check (dagg.c) use it.
 */
#include <string.h>
#include "solver/petsc/dist.h"

/* The pinned row's entries, kept to compute its balance: a scatter of
 * the x values it reads onto its owner (nothing on the other ranks). */

PetscErrorCode fixrow_save(Mat A, Vec x, PetscInt fix, fixrow *f)
{
    PetscInt lo, hi, ncols = 0;
    const PetscInt *cols = NULL;
    const PetscScalar *vals = NULL;
    PetscInt *cc = NULL;
    memset(f, 0, sizeof *f);
    if (dshell_is(A))       /* no rows: its balance comes from the unpinned product */
        return 0;
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    if (fix >= lo && fix < hi) {
        PetscCall(MatGetRow(A, fix, &ncols, &cols, &vals));
        PetscCall(PetscMalloc1(ncols ? ncols : 1, &cc));
        PetscCall(PetscMalloc1(ncols ? ncols : 1, &f->val));
        PetscCall(PetscMalloc1(ncols ? ncols : 1, &f->col));
        PetscCall(PetscArraycpy(cc, cols, ncols));
        PetscCall(PetscArraycpy(f->col, cols, ncols));
        PetscCall(PetscArraycpy(f->val, vals, ncols));
        f->len = ncols;     /* before MatRestoreRow, which zeroes ncols: the
                               pinned row's balance was never checked */
        PetscCall(MatRestoreRow(A, fix, &ncols, &cols, &vals));
    }
    IS is;
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, f->len, cc, PETSC_OWN_POINTER, &is));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, f->len, &f->xs));
    PetscCall(VecScatterCreate(x, is, f->xs, NULL, &f->sc));
    PetscCall(ISDestroy(&is));
    return 0;
}

PetscErrorCode fixrow_apply(fixrow *f, Vec x, double *y)
{
    PetscCall(VecScatterBegin(f->sc, x, f->xs, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(f->sc, x, f->xs, INSERT_VALUES, SCATTER_FORWARD));
    const PetscScalar *a;
    PetscCall(VecGetArrayRead(f->xs, &a));
    double s = 0;
    for (PetscInt k = 0; k < f->len; k++)
        s += f->val[k] * a[k];
    PetscCall(VecRestoreArrayRead(f->xs, &a));
    *y = s;
    return 0;
}

PetscErrorCode fixrow_values(fixrow *f, Vec v, double *out)
{
    if (!f->sc)
        return 0;
    PetscCall(VecScatterBegin(f->sc, v, f->xs, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(f->sc, v, f->xs, INSERT_VALUES, SCATTER_FORWARD));
    const PetscScalar *a;
    PetscCall(VecGetArrayRead(f->xs, &a));
    PetscCall(PetscArraycpy(out, a, f->len));
    PetscCall(VecRestoreArrayRead(f->xs, &a));
    return 0;
}

PetscErrorCode fixrow_free(fixrow *f)
{
    PetscCall(PetscFree(f->val));
    PetscCall(PetscFree(f->col));
    PetscCall(VecDestroy(&f->xs));
    PetscCall(VecScatterDestroy(&f->sc));
    return 0;
}
