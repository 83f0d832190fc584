/*
 * dmatrix.c - a rank's arcs (dexplore.c) become its rows of Q^T in a
 * MATMPIAIJ: row j (global number) holds q_ij for every arc i -> j and
 * the diagonal q_jj = -exit_j.  The columns are global numbers, known
 * once every rank's count is (the prefix sums of dspace.offset).
 */
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/petsc/dist.h"

static int by_col(const void *a, const void *b)
{
    const PetscInt x = *(const PetscInt *)a, y = *(const PetscInt *)b;
    return (x > y) - (x < y);
}

/* Row j's entries sorted by column and duplicates (two events from i
 * to j) summed; returns the new length.  Rows are short (the fan-in of
 * a state): an insertion sort, qsort of (col, val) pairs past 32. */
static int64_t sort_row(PetscInt *col, PetscScalar *val, int64_t len)
{
    if (len > 32) {
        struct cv { PetscInt c; PetscScalar v; } *t = malloc(len * sizeof *t);
        if (t) {
            for (int64_t k = 0; k < len; k++)
                t[k] = (struct cv){ col[k], val[k] };
            qsort(t, len, sizeof *t, by_col);   /* c first: compares the column */
            for (int64_t k = 0; k < len; k++) {
                col[k] = t[k].c;
                val[k] = t[k].v;
            }
            free(t);
            len = -len;             /* sorted */
        }
    }
    if (len > 0)
        for (int64_t k = 1; k < len; k++) {
            PetscInt c = col[k];
            PetscScalar v = val[k];
            int64_t p = k;
            for (; p > 0 && col[p - 1] > c; p--) {
                col[p] = col[p - 1];
                val[p] = val[p - 1];
            }
            col[p] = c;
            val[p] = v;
        }
    else
        len = -len;
    int64_t w = 0;
    for (int64_t k = 0; k < len; k++) {
        if (w > 0 && col[w - 1] == col[k])
            val[w - 1] += val[k];
        else {
            col[w] = col[k];
            val[w++] = val[k];
        }
    }
    return w;
}

/* The arcs, bucketed by row (a counting sort), with the diagonal; the
 * arcs' arrays are freed as soon as they are read. */
static int to_rows(dspace *s, int64_t **rowptr, PetscInt **col, PetscScalar **val)
{
    const int64_t n = s->nloc, nz = s->narc + n;
    int64_t *rp = calloc(n + 1, sizeof *rp);
    PetscInt *c = malloc((nz ? nz : 1) * sizeof *c);
    PetscScalar *v = malloc((nz ? nz : 1) * sizeof *v);
    if (!rp || !c || !v) {
        free(rp);
        free(c);
        free(v);
        return -1;
    }
    for (int64_t k = 0; k < s->narc; k++)
        rp[s->arow[k] + 1]++;
    for (int64_t j = 0; j < n; j++)
        rp[j + 1] += rp[j] + 1;     /* + the diagonal */
    for (int64_t j = 0; j < n; j++) {   /* the diagonal first in each row */
        c[rp[j]] = (PetscInt)(s->first + j);
        v[rp[j]] = -s->exit[j];
        rp[j]++;
    }
    for (int64_t k = 0; k < s->narc; k++) {
        const int64_t p = rp[s->arow[k]]++;
        c[p] = (PetscInt)(s->offset[s->asrank[k]] + s->aslocal[k]);
        v[p] = s->aval[k];
    }
    for (int64_t j = n; j > 0; j--)     /* rp[j] was advanced to the end of row j */
        rp[j] = rp[j - 1];
    rp[0] = 0;
    free(s->exit);          /* in the rows now */
    s->exit = NULL;
    dspace_drop_arcs(s);
    /* each row sorted and merged, compacted in place */
    int64_t w = 0;
    for (int64_t j = 0; j < n; j++) {
        const int64_t a = rp[j], len = sort_row(c + a, v + a, rp[j + 1] - a);
        memmove(c + w, c + a, len * sizeof *c);
        memmove(v + w, v + a, len * sizeof *v);
        rp[j] = w;
        w += len;
    }
    rp[n] = w;
    *rowptr = rp;
    *col = c;
    *val = v;
    return 0;
}

static PetscErrorCode assemble(const dspace *s, const int64_t *rp, const PetscInt *col,
                               const PetscScalar *val, Mat *A)
{
    const PetscInt nloc = (PetscInt)s->nloc, lo = (PetscInt)s->first, hi = lo + nloc;
    PetscInt *dn, *on;
    PetscCall(PetscMalloc2(nloc ? nloc : 1, &dn, nloc ? nloc : 1, &on));
    for (PetscInt j = 0; j < nloc; j++) {
        dn[j] = on[j] = 0;
        for (int64_t t = rp[j]; t < rp[j + 1]; t++) {
            if (col[t] >= lo && col[t] < hi)
                dn[j]++;
            else
                on[j]++;
        }
    }
    PetscCall(MatCreate(PETSC_COMM_WORLD, A));
    PetscCall(MatSetSizes(*A, nloc, nloc, (PetscInt)s->n, (PetscInt)s->n));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(*A, 0, dn));
    PetscCall(MatMPIAIJSetPreallocation(*A, 0, dn, 0, on));
    PetscCall(PetscFree2(dn, on));
    for (PetscInt j = 0; j < nloc; j++) {
        PetscInt row = lo + j;
        PetscCall(MatSetValues(*A, 1, &row, (PetscInt)(rp[j + 1] - rp[j]), col + rp[j],
                               val + rp[j], INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    return 0;
}

san_status dmatrix(const dctx *c, dspace *s, Mat *A, int64_t *nnz, san_diag *d)
{
    char msg[512] = "", b1[32], b2[32];
    /* the rows (12 bytes an entry) beside the arcs (20), then the
     * matrix (PETSc's AIJ: 12 bytes an entry, ~24 a row) beside the rows */
    const double nz = (double)(s->narc + s->nloc);
    const double need = dspace_bytes(s) + fmax(12.0 * nz + 8.0 * s->nloc,
                                                24.0 * nz + 32.0 * s->nloc - 20.0 * s->narc);
    san_status st = SAN_OK;
    if (need > c->limit) {
        snprintf(msg, sizeof msg, "rank %d: the generator's rows need ~%s (%lld states, %.0f "
                 "entries on this rank), beyond --max-memory of %s for one rank; raise it "
                 "or run more ranks", c->rank, san_format_bytes(need, b1, sizeof b1),
                 (long long)s->nloc, nz, san_format_bytes(c->limit, b2, sizeof b2));
        st = SAN_E_LIMIT;
    }
    int64_t *rp = NULL;
    PetscInt *col = NULL;
    PetscScalar *val = NULL;
    if (st == SAN_OK && to_rows(s, &rp, &col, &val) < 0) {
        snprintf(msg, sizeof msg, "rank %d: out of memory for the generator's rows", c->rank);
        st = SAN_E_NOMEM;
    }
    if ((st = dagree(c, st, msg, d)) != SAN_OK)
        return st;
    PetscErrorCode e = assemble(s, rp, col, val, A);
    long long mine = rp[s->nloc], all = 0;
    free(rp);
    free(col);
    free(val);
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
    *nnz = all;
    if (e) {    /* PETSc's errors are collective here: every rank sees one */
        san_diag_add(d, SAN_ERROR, 0, 0, "--engine petsc: the matrix assembly failed (PETSc "
                     "error %d)", (int)e);
        return SAN_E_NOMEM;
    }
    return SAN_OK;
}
