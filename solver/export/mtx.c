/*
 * mtx.c - the generator in Matrix Market form, written by SuiteSparse's
 * own writer (CHOLMOD's cholmod_l_write_sparse) rather than by hand: it
 * chooses the header (real or integer, general or symmetric) and prints
 * each value with the fewest digits that read back to the same double.
 * A note (what was lumped) goes in as comment lines after the header.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cholmod.h>
#include "solver/export/export_int.h"
#include "solver/space/space_int.h"

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

/* The note as CHOLMOD's comments file: it takes a file name, not text
 * (it copies each line after the header, '%' prefixed), so the note goes
 * through a temporary file of its own, unlinked once written: a few
 * hundred bytes, where copying the matrix's text would double its I/O.
 * Each line gets a space first: CHOLMOD prepends "%" to every line.
 * "" when there is no note; NULL when no temporary file could be made. */
static char *note_file(const char *note, char *path, size_t n)
{
    if (!note || !*note)
        return "";
    const char *dir = getenv("TMPDIR");
    snprintf(path, n, "%s/san-mtx-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        return NULL;
    }
    int bad = 0;
    for (const char *p = note; *p && !bad;) {      /* CHOLMOD adds the % */
        size_t len = strcspn(p, "\n");
        bad = fprintf(f, " %.*s\n", (int)len, p) < 0;
        p += len + (p[len] == '\n');
    }
    if (fclose(f) != 0 || bad) {
        unlink(path);
        return NULL;
    }
    return path;
}

san_status san_export_mtx(const san_space *sp, FILE *out, char *err, size_t n)
{
    return san_export_mtx_note(sp, NULL, out, err, n);
}

san_status san_export_mtx_note(const san_space *sp, const char *note, FILE *out, char *err,
                               size_t n)
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
    char tmp[4096];
    const char *comments = note_file(note, tmp, sizeof tmp);
    if (!comments) {
        exp_err(err, n, "cannot write the comment's temporary file in %s (set TMPDIR)",
                getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        san_csr_free(&pq);
        return SAN_E_IO;
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
    } else if (cholmod_l_write_sparse(out, A, NULL, *comments ? comments : NULL, &c) < 0 ||
               ferror(out)) {
        exp_err(err, n, "CHOLMOD could not write the matrix (status %d)", c.status);
        st = SAN_E_IO;
    }
    cholmod_l_free_sparse(&A, &c);
    cholmod_l_finish(&c);
    if (*comments)
        unlink(comments);
    return st;
}
