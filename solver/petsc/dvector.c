/*
 * dvector.c - a distributed steady-state answer listed state by state,
 * as serial `solve --vector` writes it: in increasing index.
 *
 * Each rank keeps its states' (index, probability), sorted by index (16
 * bytes a state; asked for by engine_keep_vector).  Rank 0 merges the
 * ranks' sorted runs: it holds one chunk of each rank at a time, asks a
 * rank for its next chunk when the last is used up (a request, then the
 * chunk: point-to-point), and takes the smallest head from a heap of the
 * ranks.  So rank 0 holds P chunks, never the whole vector.  When the
 * listing fails (the file cannot be written), rank 0 tells every rank
 * that still has rows to stop; the status is then broadcast.
 */
#include <stdlib.h>
#include <string.h>
#include "solver/petsc/dist.h"
#include "solver/petsc/petsc_solve.h"

/* Rows a chunk carries (1 MB). */
#define CHUNK 65536
#define TAG_ASK 71
#define TAG_ROWS 72

typedef struct {
    int64_t index;
    double p;
} drow;

typedef struct {
    int64_t n;
    drow *v;        /* sorted by index */
} dkept;

static int by_index(const void *a, const void *b)
{
    const int64_t x = ((const drow *)a)->index, y = ((const drow *)b)->index;
    return (x > y) - (x < y);
}

san_status dvector_keep_array(const dctx *c, const dspace *s, const double *x,
                              const char *dropped, void **out, san_diag *d)
{
    *out = NULL;
    dkept *k = calloc(1, sizeof *k);
    int ok = k && (k->v = malloc((s->nloc ? s->nloc : 1) * sizeof *k->v));
    for (int64_t j = 0; ok && j < s->nloc; j++)
        if (!dropped || !dropped[j])    /* a dropped pocket's states are not in the answer */
            k->v[k->n++] = (drow){ s->index[j], x[j] };
    if (ok)
        qsort(k->v, k->n, sizeof *k->v, by_index);
    san_status st = dagree(c, ok ? SAN_OK : SAN_E_NOMEM, "out of memory keeping the vector", d);
    if (st != SAN_OK) {
        psc_vector_free(k);
        return st;
    }
    *out = k;
    return SAN_OK;
}

san_status dvector_keep(const dctx *c, const dspace *s, Vec x, Vec in, void **out, san_diag *d)
{
    const PetscScalar *xa = NULL, *ia = NULL;
    char *dropped = malloc(s->nloc ? s->nloc : 1);
    int ok = dropped && VecGetArrayRead(x, &xa) == 0 && VecGetArrayRead(in, &ia) == 0;
    for (int64_t j = 0; ok && j < s->nloc; j++)
        dropped[j] = ia[j] == 2;
    san_status st = dagree(c, ok ? SAN_OK : SAN_E_NOMEM, "out of memory keeping the vector", d);
    if (st == SAN_OK)
        st = dvector_keep_array(c, s, xa, dropped, out, d);
    if (xa)
        VecRestoreArrayRead(x, &xa);
    if (ia)
        VecRestoreArrayRead(in, &ia);
    free(dropped);
    return st;
}

void psc_vector_free(void *kept)
{
    dkept *k = kept;
    if (k)
        free(k->v);
    free(k);
}

/* ---- rank 0's merge ---- */

typedef struct {
    drow *buf;
    int have, pos;
    int64_t left;           /* rows of the rank not yet received */
} run_of;

/* The heap of ranks with a row at hand, by the index of that row. */
static int head_less(const run_of *r, int a, int b)
{
    return r[a].buf[r[a].pos].index < r[b].buf[r[b].pos].index;
}

static void sift_down(const run_of *r, int *h, int n, int i)
{
    for (;;) {
        int m = i, l = 2 * i + 1, rr = l + 1;
        if (l < n && head_less(r, h[l], h[m]))
            m = l;
        if (rr < n && head_less(r, h[rr], h[m]))
            m = rr;
        if (m == i)
            return;
        int t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* The next chunk of rank q into its buffer (rank 0's own rows are read in
 * place). */
static void refill(const dkept *own, run_of *r, int q)
{
    const int m = r[q].left < CHUNK ? (int)r[q].left : CHUNK;
    if (q == 0) {
        r[0].buf = own->v + (own->n - r[0].left);
    } else {
        int ask = 1;
        MPI_Send(&ask, 1, MPI_INT, q, TAG_ASK, PETSC_COMM_WORLD);
        MPI_Recv(r[q].buf, m * (int)sizeof(drow), MPI_BYTE, q, TAG_ROWS, PETSC_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
    r[q].have = m;
    r[q].pos = 0;
    r[q].left -= m;
}

static san_status merge(const dkept *own, const long long *counts, int size,
                        int (*row)(void *ctx, int64_t index, double p), void *ctx)
{
    run_of *r = calloc(size, sizeof *r);
    int *h = malloc(size * sizeof *h);
    int ok = r && h, n = 0;
    for (int q = 1; ok && q < size; q++)
        ok = (r[q].buf = malloc(CHUNK * sizeof(drow))) != NULL;
    san_status st = ok ? SAN_OK : SAN_E_NOMEM;
    for (int q = 0; q < size; q++)
        if (r)
            r[q].left = counts[q];
    for (int q = 0; ok && q < size; q++)
        if (r[q].left > 0) {
            refill(own, r, q);
            h[n++] = q;
        }
    for (int i = n / 2 - 1; ok && i >= 0; i--)
        sift_down(r, h, n, i);
    while (ok && n > 0) {
        const int q = h[0];
        const drow *e = &r[q].buf[r[q].pos];
        if (row(ctx, e->index, e->p) != 0) {
            st = SAN_E_IO;
            break;
        }
        if (++r[q].pos == r[q].have) {
            if (r[q].left > 0)
                refill(own, r, q);
            else
                h[0] = h[--n];
        }
        sift_down(r, h, n, 0);
    }
    /* the ranks still holding rows wait for a request: release them */
    for (int q = 1; q < size; q++) {
        const int64_t left = ok ? r[q].left : counts[q];
        if (left > 0) {
            int stop = 0;
            MPI_Send(&stop, 1, MPI_INT, q, TAG_ASK, PETSC_COMM_WORLD);
        }
    }
    for (int q = 1; r && q < size; q++)
        free(r[q].buf);
    free(r);
    free(h);
    return st;
}

/* A rank's rows to rank 0, a chunk per request, until it has none or is
 * told to stop. */
static void serve(const dkept *k)
{
    int64_t at = 0;
    while (at < k->n) {
        int ask = 0;
        MPI_Recv(&ask, 1, MPI_INT, 0, TAG_ASK, PETSC_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!ask)
            return;
        const int m = k->n - at < CHUNK ? (int)(k->n - at) : CHUNK;
        MPI_Send(k->v + at, m * (int)sizeof(drow), MPI_BYTE, 0, TAG_ROWS, PETSC_COMM_WORLD);
        at += m;
    }
}

san_status psc_vector(const void *kept, int (*row)(void *ctx, int64_t index, double p),
                            void *ctx)
{
    const dkept *k = kept;
    int rank, size;
    MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
    MPI_Comm_size(PETSC_COMM_WORLD, &size);
    long long mine = k->n, *counts = rank == 0 ? malloc(size * sizeof *counts) : NULL;
    int ok = rank != 0 || counts != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
    if (!all) {
        free(counts);
        return SAN_E_NOMEM;
    }
    MPI_Gather(&mine, 1, MPI_LONG_LONG, counts, 1, MPI_LONG_LONG, 0, PETSC_COMM_WORLD);
    int st = SAN_OK;
    if (rank == 0)
        st = merge(k, counts, size, row, ctx);
    else
        serve(k);
    free(counts);
    MPI_Bcast(&st, 1, MPI_INT, 0, PETSC_COMM_WORLD);
    return (san_status)st;
}
