/*
 * csr.c - the compressed rows of a generator: freeing, transposing,
 * finding the diagonal.
 */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
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

/* Transposes at least this many nonzeros on every core; fewer stay on
 * one (the team and its counts cost more than they save). */
#define TRANSPOSE_PAR_MIN (1 << 20)

/* Each thread looks at the interrupt flag after this many nonzeros of
 * its share (well under a millisecond): the transposition of 10^8
 * nonzeros takes seconds, and Ctrl-C waited for its end. */
#define TRANSPOSE_POLL (1 << 16)

/* Rows [lo[t], lo[t + 1]) of a, thread t's share: about as many
 * nonzeros each. */
static void share_rows(const san_csr *a, int nt, int64_t *lo)
{
    const int64_t n = a->n, nnz = a->rowptr[n];
    int64_t i = 0;
    lo[0] = 0;
    for (int t = 1; t < nt; t++) {
        const int64_t want = nnz / nt * t;
        while (i < n && a->rowptr[i] < want)
            i++;
        lo[t] = i;
    }
    lo[nt] = n;
}

/* Counting sort by column: scanning rows in order leaves every row of
 * the transpose with ascending columns, with no sort.  On several
 * threads each counts and then places the entries of its own share of
 * the rows (shares in row order), its entries of a column going after
 * those of the shares before it: the same transpose as one thread's,
 * entry for entry.  Measured on rs 20 as written (616,666 states, 11.1
 * M nonzeros): the serial scatter and the page faults of the fresh
 * arrays were 9% of a sparse solve's CPU time.  -1 when out of memory
 * or a column index is out of range, -2 when *interrupt was set (at
 * freed in both cases; interrupt may be NULL). */
int num_csr_transpose(const san_csr *a, san_csr *at, const volatile int *interrupt)
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
    int nt = 1;
#ifdef _OPENMP
    if (nnz >= TRANSPOSE_PAR_MIN)
        nt = omp_get_max_threads();
#endif
    /* next[t * (n + 1) + c]: where thread t's next entry of row c goes */
    int64_t *next = calloc((size_t)nt * ((size_t)n + 1), sizeof *next);
    if (!next && nt > 1) {
        nt = 1;
        next = calloc((size_t)n + 1, sizeof *next);
    }
    if (!next) {
        san_csr_free(at);
        return -1;
    }
    int64_t lo[nt + 1];
    share_rows(a, nt, lo);
    int bad = 0, halt = 0;
    SAN_OMP(omp parallel num_threads(nt) reduction(|:bad, halt))
    {
        int t = 0;
#ifdef _OPENMP
        t = nt > 1 ? omp_get_thread_num() : 0;
#endif
        int64_t *cnt = next + (size_t)t * ((size_t)n + 1);
        const int64_t e = a->rowptr[lo[t + 1]];
        for (int64_t p0 = a->rowptr[lo[t]]; p0 < e && !bad && !halt; p0 += TRANSPOSE_POLL) {
            if (interrupt && *interrupt) {
                halt = 1;
                break;
            }
            for (int64_t p = p0; p < e && p < p0 + TRANSPOSE_POLL; p++) {
                if (a->col[p] < 0 || a->col[p] >= n) {
                    bad = 1;
                    break;
                }
                cnt[a->col[p]]++;
            }
        }
    }
    if (bad || halt) {
        free(next);
        san_csr_free(at);
        return bad ? -1 : -2;
    }
    /* row c of the transpose starts at at->rowptr[c]; thread t's part
     * of it after the counts of threads 0..t-1 */
    int64_t pos = 0;
    for (int64_t c = 0; c < n; c++) {
        at->rowptr[c] = pos;
        for (int t = 0; t < nt; t++) {
            int64_t k = next[(size_t)t * ((size_t)n + 1) + c];
            next[(size_t)t * ((size_t)n + 1) + c] = pos;
            pos += k;
        }
    }
    at->rowptr[n] = pos;
    SAN_OMP(omp parallel num_threads(nt) reduction(|:halt))
    {
        int t = 0;
#ifdef _OPENMP
        t = nt > 1 ? omp_get_thread_num() : 0;
#endif
        int64_t *restrict nx = next + (size_t)t * ((size_t)n + 1);
        int64_t poll = a->rowptr[lo[t]];
        for (int64_t i = lo[t]; i < lo[t + 1]; i++) {
            if (a->rowptr[i] >= poll) {
                if (interrupt && *interrupt) {
                    halt = 1;
                    break;
                }
                poll = a->rowptr[i] + TRANSPOSE_POLL;
            }
            for (int64_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
                int64_t q = nx[a->col[p]]++;
                at->col[q] = (int32_t)i;
                at->val[q] = a->val[p];
            }
        }
    }
    free(next);
    if (halt) {
        san_csr_free(at);
        return -2;
    }
    return 0;
}

int san_csr_transpose(const san_csr *a, san_csr *at)
{
    return num_csr_transpose(a, at, NULL);
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

