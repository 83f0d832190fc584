/*
 * mtx.c - the generator in Matrix Market form, written by SuiteSparse's
 * own writer (CHOLMOD's cholmod_l_write_sparse) rather than by hand: it
 * chooses the header (real or integer, general or symmetric) and prints
 * each value with the fewest digits that read back to the same double.
 */
#include <stdlib.h>
#include <string.h>
#include <cholmod.h>
#include "export_int.h"

/* Q by columns for CHOLMOD: the transpose of the permuted rows, with
 * CHOLMOD's 64-bit indices (its int and long kinds do not mix 32-bit
 * rows with 64-bit pointers). */
static cholmod_sparse *by_columns(const san_csr *pq, cholmod_common *c)
{
    san_csr t;
    if (san_csr_transpose(pq, &t) != 0)
        return NULL;
    const int64_t n = pq->n, nnz = t.rowptr[n];
    cholmod_sparse *A = cholmod_l_allocate_sparse(n, n, nnz, 1, 1, 0, CHOLMOD_REAL, c);
    if (A) {
        SuiteSparse_long *p = A->p, *i = A->i;
        double *x = A->x;
        for (int64_t j = 0; j <= n; j++)
            p[j] = t.rowptr[j];
        for (int64_t k = 0; k < nnz; k++) {
            i[k] = t.col[k];
            x[k] = t.val[k];
        }
    }
    san_csr_free(&t);
    return A;
}

san_status san_export_mtx(const san_space *sp, FILE *out, char *err, size_t n)
{
    if (!sp->q.val) {
        exp_err(err, n, "the space has no generator (built without it)");
        return SAN_E_USAGE;
    }
    san_csr pq;
    if (exp_permuted(sp, &pq) != 0) {
        exp_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    cholmod_common c;
    cholmod_l_start(&c);
    c.print = 0;                    /* errors are reported here, not by CHOLMOD */
    cholmod_sparse *A = by_columns(&pq, &c);
    san_csr_free(&pq);
    san_status st = SAN_OK;
    if (!A) {
        exp_err(err, n, "out of memory");
        st = SAN_E_NOMEM;
    } else if (cholmod_l_write_sparse(out, A, NULL, NULL, &c) < 0 || ferror(out)) {
        exp_err(err, n, "CHOLMOD could not write the matrix (status %d)", c.status);
        st = SAN_E_IO;
    }
    cholmod_l_free_sparse(&A, &c);
    cholmod_l_finish(&c);
    return st;
}
