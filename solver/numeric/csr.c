/*
 * csr.c - the compressed rows of a generator: freeing, transposing,
 * finding the diagonal.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/numeric/linsolve.h"

void san_csr_free(san_csr *a)
{
    if (!a)
        return;
    free(a->rowptr);
    free(a->col);
    free(a->val);
    a->rowptr = NULL;
    a->col = NULL;
    a->val = NULL;
    a->n = 0;
}

/* Counting sort by column: scanning rows in order leaves every row of the
 * transpose with ascending columns, with no sort.  -1 when out of memory
 * or a column index is out of range. */
int san_csr_transpose(const san_csr *a, san_csr *at)
{
    int64_t n = a->n, nnz = a->rowptr[n];
    memset(at, 0, sizeof *at);
    if (n < 0 || n > INT32_MAX)
        return -1;
    at->n = n;
    at->rowptr = calloc((size_t)n + 1, sizeof *at->rowptr);
    at->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *at->col);
    at->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *at->val);
    if (!at->rowptr || !at->col || !at->val) {
        san_csr_free(at);
        return -1;
    }
    int64_t *restrict next = at->rowptr;
    for (int64_t p = 0; p < nnz; p++) {
        if (a->col[p] < 0 || a->col[p] >= n) {
            san_csr_free(at);
            return -1;
        }
        next[a->col[p] + 1]++;
    }
    for (int64_t i = 0; i < n; i++)
        next[i + 1] += next[i];
    /* next[i] is now where the next entry of row i goes; fill, shifting
     * the pointers by one row, then shift them back. */
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
            int64_t q = next[a->col[p]]++;
            at->col[q] = (int32_t)i;
            at->val[q] = a->val[p];
        }
    for (int64_t i = n; i > 0; i--)
        next[i] = next[i - 1];
    next[0] = 0;
    return 0;
}

int64_t num_ls_diag_pos(const san_csr *a, int64_t j)
{
    int64_t lo = a->rowptr[j], hi = a->rowptr[j + 1] - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->col[mid] == j)
            return mid;
        if (a->col[mid] < j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

