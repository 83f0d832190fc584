/*
 * order.c - the one numbering of the exports: states sorted by their
 * mixed-radix index.  The exploration numbers states in the order it
 * finds them, which depends on the threads; sorting makes the files
 * reproducible and puts them in PRISM's order (lexicographic in the
 * local states, automaton 0 first).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "solver/export/export_int.h"
#include "solver/space/space_int.h"

void exp_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* qsort has no context argument: the sort of (index, number) pairs
 * carries the index itself. */
typedef struct {
    int64_t key;
    int64_t val;
} pair;

static int by_key(const void *x, const void *y)
{
    int64_t a = ((const pair *)x)->key, b = ((const pair *)y)->key;
    return (a > b) - (a < b);
}

int64_t *exp_order(const san_space *sp)
{
    const int64_t n = sp->n;
    pair *p = malloc((n ? n : 1) * sizeof *p);
    int64_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!p || !order) {
        free(p);
        free(order);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++)
        p[i] = (pair){ sp->index[i], i };
    qsort(p, n, sizeof *p, by_key);
    for (int64_t r = 0; r < n; r++)
        order[r] = p[r].val;
    free(p);
    return order;
}

int64_t *san_export_ranks(const san_space *sp)
{
    int64_t *order = exp_order(sp);
    int64_t *rank = order ? malloc((sp->n ? sp->n : 1) * sizeof *rank) : NULL;
    if (rank)
        for (int64_t r = 0; r < sp->n; r++)
            rank[order[r]] = r;
    free(order);
    return rank;
}

/* One row's entries sorted by their new column. */
static void sort_row(int32_t *col, double *val, int64_t len, pair *tmp)
{
    for (int64_t k = 0; k < len; k++)
        tmp[k] = (pair){ col[k], k };
    qsort(tmp, len, sizeof *tmp, by_key);
    double *v = (double *)(tmp + len);      /* room left after the pairs */
    for (int64_t k = 0; k < len; k++)
        v[k] = val[tmp[k].val];
    for (int64_t k = 0; k < len; k++) {
        col[k] = (int32_t)tmp[k].key;
        val[k] = v[k];
    }
}

int exp_permuted(const san_space *sp, san_csr *pq)
{
    const san_csr *q = &sp->q;
    const int64_t n = sp->n, nnz = q->rowptr[n];
    memset(pq, 0, sizeof *pq);
    int64_t *order = exp_order(sp);
    int64_t *rank = san_export_ranks(sp);
    int64_t widest = 1;
    for (int64_t i = 0; i < n; i++)
        if (q->rowptr[i + 1] - q->rowptr[i] > widest)
            widest = q->rowptr[i + 1] - q->rowptr[i];
    pair *tmp = malloc(widest * (sizeof(pair) + sizeof(double)));
    pq->n = n;
    pq->rowptr = malloc((n + 1) * sizeof *pq->rowptr);
    pq->col = malloc((nnz ? nnz : 1) * sizeof *pq->col);
    pq->val = malloc((nnz ? nnz : 1) * sizeof *pq->val);
    if (!order || !rank || !tmp || !pq->rowptr || !pq->col || !pq->val) {
        free(order);
        free(rank);
        free(tmp);
        san_csr_free(pq);
        return -1;
    }
    int64_t k = 0;
    for (int64_t r = 0; r < n; r++) {
        const int64_t i = order[r];
        pq->rowptr[r] = k;
        for (int64_t j = q->rowptr[i]; j < q->rowptr[i + 1]; j++, k++) {
            pq->col[k] = (int32_t)rank[q->col[j]];
            pq->val[k] = q->val[j];
        }
        sort_row(pq->col + pq->rowptr[r], pq->val + pq->rowptr[r], k - pq->rowptr[r], tmp);
    }
    pq->rowptr[n] = k;
    free(order);
    free(rank);
    free(tmp);
    return 0;
}

char *exp_ident(const char *name, char *buf, size_t n)
{
    size_t k = 0;
    if (n == 0)
        return buf;
    if (*name >= '0' && *name <= '9' && k + 1 < n)
        buf[k++] = '_';
    for (const char *p = name; *p && k + 1 < n; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (ok)
            buf[k++] = c;
        else if (c != ']' && (k == 0 || buf[k - 1] != '_'))
            buf[k++] = '_';     /* "[" and the others: one '_'; "]" dropped */
    }
    buf[k] = '\0';
    return buf;
}
