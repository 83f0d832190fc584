/*
 * explore.c - breadth-first exploration writing the rows of Q, on every
 * core.
 *
 * States are numbered in the order they are discovered, so the row of
 * state i can be written as soon as i is expanded.  The states already
 * numbered but not yet expanded are taken in batches, and a batch goes
 * through four phases:
 *
 *   expand   (parallel)    each worker enumerates the arcs of its slice
 *                          of the batch; a successor that has a number
 *                          gets it, one that has none goes on the
 *                          worker's pending list;
 *   number   (sequential)  the pending successors get numbers, worker by
 *                          worker, state by state, arc by arc: exactly
 *                          the order of a one-thread breadth-first
 *                          search, so the numbering never depends on
 *                          the number of threads;
 *   assemble (parallel)    each worker sorts and merges its rows and
 *                          adds the diagonals, into its own buffer;
 *   place    (parallel)    once the row lengths are summed, each worker
 *                          copies its rows to their place in Q.
 *
 * On models whose reachability function accepts every reachable state
 * (most PEPS models) every state is numbered before the search starts,
 * nothing is pending, and the sequential phase is empty.  The page
 * faults of the growing Q (the kernel zeroes every fresh page, a large
 * part of the cost) happen in the parallel placement.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "explore.h"
#include "grow.h"
#include "base.h"
#include "space.h"
#include "succ.h"

/* States a worker expands per batch: the batch's buffers (about 24
 * bytes an arc) stay in the tens of megabytes. */
#define SLICE_STATES 32768
/* Batches smaller than this run on one thread. */
#define PAR_MIN_STATES 2048

/* ---------------------------------------------------------------- */
/* The growing rows                                                   */
/* ---------------------------------------------------------------- */

/* Rows are written (row pointers and columns) unless the space is states
 * only and its arcs were given up or never kept. */
static int keeps_rows(const space_rows *r)
{
    return !r->states_only || r->arcs;
}

int space_rows_reserve_states(space_rows *r, int64_t need)
{
    if (need <= r->cap)
        return 0;
    int64_t cap = r->cap ? r->cap : 1024;
    while (cap < need)
        cap *= 2;
    int64_t *ix = realloc(r->index, cap * sizeof *ix);
    if (!ix)
        return -1;
    r->index = ix;
    if (r->states_only) {
        double *ex = realloc(r->exit, cap * sizeof *ex);
        if (!ex)
            return -1;
        r->exit = ex;
    }
    if (keeps_rows(r)) {
        int64_t *rp = realloc(r->rowptr, (cap + 1) * sizeof *rp);
        if (!rp)
            return -1;
        r->rowptr = rp;
    }
    r->cap = cap;
    return 0;
}

static int rows_reserve_nz(space_rows *r, int64_t need)
{
    if (need <= r->capnz)
        return 0;
    int64_t cap = r->capnz ? r->capnz : 4096;
    while (cap < need)
        cap *= 2;
    int32_t *c = realloc(r->col, cap * sizeof *c);
    if (!c)
        return -1;
    r->col = c;
    if (!r->states_only) {
        double *v = realloc(r->val, cap * sizeof *v);
        if (!v)
            return -1;
        r->val = v;
    }
    r->capnz = cap;
    return 0;
}

void space_rows_free(space_rows *r)
{
    free(r->index);
    free(r->rowptr);
    free(r->exit);
    free(r->col);
    free(r->val);
    memset(r, 0, sizeof *r);
}

static double rows_bytes(const space_rows *r)
{
    return 16.0 * r->cap + 8.0 * r->arcs * r->cap + (r->val ? 12.0 : 4.0) * r->capnz;
}

static void arcs_drop(space_rows *r)
{
    free(r->rowptr);
    free(r->col);
    r->rowptr = NULL;
    r->col = NULL;
    r->capnz = r->nnz = 0;
    r->arcs = 0;
}

/* ---------------------------------------------------------------- */
/* One row: sort by column, merge duplicates, drop self-loops, add the
 * diagonal.                                                          */
/* ---------------------------------------------------------------- */

typedef struct {
    int32_t col;            /* a number; while pending, -1 - (its slot) */
    double val;
} entry;

static int cmp_key(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Sorts the positions of e by column: keys (column << 32 | position),
 * 8 bytes each, moved instead of the 16-byte entries. */
static void sort_keys(uint64_t *key, const entry *e, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        key[k] = (uint64_t)(uint32_t)e[k].col << 32 | (uint64_t)k;
    if (n > 32) {
        qsort(key, n, sizeof *key, cmp_key);
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        uint64_t x = key[i];
        int64_t j = i - 1;
        while (j >= 0 && key[j] > x) {
            key[j + 1] = key[j];
            j--;
        }
        key[j + 1] = x;
    }
}

/* Writes row i from the n entries e to col/val (at most n + 1 slots),
 * sorted, duplicates merged, self-loops dropped, the diagonal added.
 * key is scratch for n keys.  Returns the number written. */
static int64_t assemble_row(int64_t i, const entry *e, int64_t n, uint64_t *key,
                            int32_t *col, double *val)
{
    sort_keys(key, e, n);
    double out = 0;
    int64_t p = 0, diag = -1;
    for (int64_t k = 0; k < n;) {
        int32_t c = (int32_t)(key[k] >> 32);
        double v = 0;
        while (k < n && (int32_t)(key[k] >> 32) == c)
            v += e[(uint32_t)key[k++]].val;
        if (c == i)
            continue;           /* a self-loop changes nothing */
        if (diag < 0 && c > i) {
            diag = p;
            col[p++] = (int32_t)i;
        }
        col[p] = c;
        val[p++] = v;
        out += v;
    }
    if (diag < 0) {
        diag = p;
        col[p++] = (int32_t)i;
    }
    val[diag] = -out;
    return p;
}

/* ---------------------------------------------------------------- */
/* Workers                                                            */
/* ---------------------------------------------------------------- */

typedef struct {
    succ_ctx sc;
    san_arcs arcs;
    int *s;                 /* decoded state ... */
    int64_t s_idx;          /* ... of this index (-1: none) */
    int64_t lo, hi;         /* the states it expands in this batch */
    entry *ent;             /* their arcs, state after state */
    int64_t nent, capent;
    int64_t *start;         /* first entry of state lo + k; hi - lo + 1 */
    int32_t *len;           /* assembled row lengths */
    int64_t capstates;
    int64_t *pend;          /* successors without a number, in order */
    int32_t *pend_id;       /* ... and the numbers they got */
    int64_t npend, cappend;
    uint64_t *key;          /* sort keys of one row */
    int64_t capkey;
    int32_t *ocol;          /* assembled rows */
    double *oval;
    int64_t nout, capout;
    int rc;                 /* 0, -1 out of memory, -2 invalid model */
    char err[1024];
} worker;

static void worker_free(worker *w)
{
    succ_free(&w->sc);
    free(w->arcs.v);
    free(w->s);
    free(w->ent);
    free(w->start);
    free(w->len);
    free(w->pend);
    free(w->pend_id);
    free(w->key);
    free(w->ocol);
    free(w->oval);
}



static int grow_states(worker *w, int64_t need)
{
    return grow2((void **)&w->start, sizeof *w->start, (void **)&w->len, sizeof *w->len,
                 &w->capstates, need);
}

static int grow_pend(worker *w, int64_t need)
{
    return grow2((void **)&w->pend, sizeof *w->pend, (void **)&w->pend_id, sizeof *w->pend_id,
                 &w->cappend, need);
}

static int grow_out(worker *w, int64_t need)
{
    return grow2((void **)&w->ocol, sizeof *w->ocol, (void **)&w->oval, sizeof *w->oval,
                 &w->capout, need);
}

/* Every buffer exists from the start, so that a slice without states
 * or arcs never does arithmetic on a null pointer. */
static int worker_init(worker *w, const san_model *m)
{
    memset(w, 0, sizeof *w);
    w->s_idx = -1;
    w->s = calloc(m->naut + 1, sizeof *w->s);
    if (!w->s || succ_init(&w->sc, m) < 0 || grow_states(w, 1) < 0 || grow_pend(w, 1) < 0
        || grow_out(w, 1) < 0 || grow((void **)&w->ent, &w->capent, 1, sizeof *w->ent) < 0
        || grow((void **)&w->key, &w->capkey, 1, sizeof *w->key) < 0)
        return -1;
    return 0;
}

/* Consecutive indices (the common case when every state was numbered
 * up front) advance the decoded state like an odometer: no division. */
static void decode(const san_model *m, worker *w, int64_t idx)
{
    if (w->s_idx >= 0 && idx == w->s_idx + 1) {
        for (int a = m->naut - 1; a >= 0; a--) {
            if (++w->s[a] < m->aut[a].nstates)
                break;
            w->s[a] = 0;
        }
    } else {
        san_state_decode(m, idx, w->s);
    }
    w->s_idx = idx;
}

/* Phase 1: the arcs of states lo..hi-1. */
static void expand(worker *w, const san_model *m, const space_rows *r, const idmap *h)
{
    const int rows = keeps_rows(r);
    w->nent = w->npend = 0;
    if (grow_states(w, w->hi - w->lo + 1) < 0) {
        w->rc = -1;
        return;
    }
    for (int64_t i = w->lo; i < w->hi; i++) {
        int64_t idx = r->index[i];
        decode(m, w, idx);
        w->arcs.n = 0;
        int rc = succ_enumerate(&w->sc, w->s, idx, &w->arcs, w->err, sizeof w->err);
        if (rc) {
            w->rc = rc;
            return;
        }
        const san_arc *a = w->arcs.v;
        int n = w->arcs.n;
        if (grow_pend(w, w->npend + n) < 0
            || (rows && grow((void **)&w->ent, &w->capent, w->nent + n, sizeof *w->ent) < 0)) {
            w->rc = -1;
            return;
        }
        /* The map is random access: ask for every successor's slot
         * before using any, so that the cache misses overlap. */
        for (int k = 0; k < n; k++)
            idmap_prefetch(h, a[k].to);
        w->start[i - w->lo] = w->nent;
        double out = 0;         /* states only: the diagonal the descriptor needs */
        for (int k = 0; k < n; k++) {
            out += a[k].to != idx ? a[k].rate : 0;
            int32_t id = idmap_find(h, a[k].to);
            if (id < 0) {
                w->pend[w->npend] = a[k].to;
                id = (int32_t)(-1 - w->npend++);
            }
            if (rows) {
                w->ent[w->nent].col = id;
                w->ent[w->nent++].val = a[k].rate;
            }
        }
        if (r->states_only)
            r->exit[i] = out;
    }
    w->start[w->hi - w->lo] = w->nent;
}

/* Phase 3: the rows of lo..hi-1, pending columns resolved. */
static void assemble(worker *w)
{
    w->nout = 0;
    if (grow_out(w, w->nent + (w->hi - w->lo)) < 0) {
        w->rc = -1;
        return;
    }
    for (int64_t i = w->lo; i < w->hi; i++) {
        entry *e = w->ent + w->start[i - w->lo];
        int64_t n = w->start[i - w->lo + 1] - w->start[i - w->lo];
        for (int64_t k = 0; k < n; k++)
            if (e[k].col < 0)
                e[k].col = w->pend_id[-1 - (int64_t)e[k].col];
        if (grow((void **)&w->key, &w->capkey, n, sizeof *w->key) < 0) {
            w->rc = -1;
            return;
        }
        int64_t len = assemble_row(i, e, n, w->key, w->ocol + w->nout, w->oval + w->nout);
        w->len[i - w->lo] = (int32_t)len;
        w->nout += len;
    }
}

/* ---------------------------------------------------------------- */
/* The search                                                         */
/* ---------------------------------------------------------------- */

typedef struct {
    const san_model *m;
    space_rows *r;
    idmap *h;
    const san_space_opts *o;
    double limit;
    int64_t *undeclared;
    san_diag *d;
    worker *w;
    int nw;
    int *t;                 /* a decoded state, for the reachability test */
    double t0, last;
} search;

static void progress(search *S)
{
    double t = san_now();
    if (t - S->last < 0.5)
        return;
    S->last = t;
    fprintf(stderr, "\r  exploring: %lld states (%.1f s)   ", (long long)S->r->n, t - S->t0);
    fflush(stderr);
}

static double need_bytes(const search *S)
{
    const space_rows *r = S->r;
    /* The transposed copy the solvers need doubles the nonzeros (not
     * the arcs kept for the class check). */
    double work = 0;
    for (int t = 0; t < S->nw; t++)
        work += 24.0 * S->w[t].capent + 12.0 * S->w[t].capout;
    return rows_bytes(r) + idmap_bytes(S->h, S->m) + work +
           (r->states_only ? 0 : 12.0 * r->capnz + 8.0 * r->cap);
}

/* After each batch.  The arcs kept for the class check are given up
 * when they take more than a quarter of the limit, or when the
 * exploration would not fit with them. */
static int over_budget(const search *S)
{
    const space_rows *r = S->r;
    double need = need_bytes(S);
    if (r->arcs && (need > S->limit || 8.0 * r->cap + 4.0 * r->capnz > S->limit / 4)) {
        arcs_drop(S->r);
        need = need_bytes(S);
    }
    if (need <= S->limit)
        return 0;
    char nb[32], lb[32];
    san_format_bytes(need, nb, sizeof nb);
    san_format_bytes(S->limit, lb, sizeof lb);
    if (r->states_only)
        san_diag_add(S->d, SAN_ERROR, 0, 0, "the exploration needs more than %s after "
                     "%lld states, over the memory limit of %s; raise --max-memory, or "
                     "reduce the model", nb, (long long)r->n, lb);
    else
        san_diag_add(S->d, SAN_ERROR, 0, 0, "the sparse generator needs more than %s "
                     "after %lld states and %lld nonzeros, over the memory limit of %s; "
                     "raise --max-memory, or reduce the model", nb,
                     (long long)r->n, (long long)r->nnz, lb);
    return 1;
}

/* Phase 2: numbers for the pending successors, in breadth-first order. */
static int number_pending(search *S)
{
    space_rows *r = S->r;
    const san_model *m = S->m;
    int64_t max = S->o->max_states ? S->o->max_states : INT32_MAX - 1;
    if (max > INT32_MAX - 1)
        max = INT32_MAX - 1;
    for (int t = 0; t < S->nw; t++) {
        worker *w = &S->w[t];
        for (int64_t p = 0; p < w->npend; p++) {
            int fresh;
            int64_t id = idmap_get(S->h, w->pend[p], (int32_t)r->n, &fresh);
            if (id == -2)
                return -1;
            if (fresh) {
                if (r->n >= max) {
                    san_diag_add(S->d, SAN_ERROR, 0, 0, "more than %lld reachable states "
                                 "(--max-states)", (long long)max);
                    return SPACE_LIMIT;
                }
                if (space_rows_reserve_states(r, r->n + 1) < 0)
                    return -1;
                r->index[r->n++] = w->pend[p];
                if (!m->partial) {
                    san_state_decode(m, w->pend[p], S->t);
                    *S->undeclared += san_expr_eval(m->reach, S->t) == 0;
                }
            }
            w->pend_id[p] = (int32_t)id;
        }
    }
    return 0;
}

/* Row pointers of the batch from the assembled lengths. */
static int set_rowptr(search *S)
{
    space_rows *r = S->r;
    for (int t = 0; t < S->nw; t++) {
        const worker *w = &S->w[t];
        for (int64_t i = w->lo; i < w->hi; i++)
            r->rowptr[i + 1] = r->rowptr[i] + w->len[i - w->lo];
    }
    return 0;
}

/* The first failing worker (in state order) speaks for the batch. */
static int batch_error(search *S)
{
    for (int t = 0; t < S->nw; t++)
        if (S->w[t].rc) {
            if (S->w[t].rc == -2)
                san_diag_add(S->d, SAN_ERROR, 0, 0, "%s", S->w[t].err);
            return S->w[t].rc;
        }
    return 0;
}

/* One batch: states b0..b1-1. */
static int run_batch(search *S, int64_t b0, int64_t b1)
{
    int nw = S->nw, rows = keeps_rows(S->r);
    int64_t nb = b1 - b0;
    for (int t = 0; t < nw; t++) {
        S->w[t].lo = b0 + nb * t / nw;
        S->w[t].hi = b0 + nb * (t + 1) / nw;
        S->w[t].rc = 0;
    }
    int par = nb >= PAR_MIN_STATES;
    SAN_OMP(omp parallel for schedule(static, 1) num_threads(nw) if(par))
    for (int t = 0; t < nw; t++)
        expand(&S->w[t], S->m, S->r, S->h);
    int rc = batch_error(S);
    if (rc == 0)
        rc = number_pending(S);
    if (rc || !rows)
        return rc;
    SAN_OMP(omp parallel for schedule(static, 1) num_threads(nw) if(par))
    for (int t = 0; t < nw; t++)
        assemble(&S->w[t]);
    rc = batch_error(S);
    if (rc)
        return rc;
    set_rowptr(S);
    space_rows *r = S->r;
    if (rows_reserve_nz(r, r->rowptr[b1]) < 0)
        return -1;
    SAN_OMP(omp parallel for schedule(static, 1) num_threads(nw) if(par))
    for (int t = 0; t < nw; t++) {
        const worker *w = &S->w[t];
        int64_t at = r->rowptr[w->lo];
        if (w->nout == 0)
            continue;           /* an empty slice may have no buffer at all */
        memcpy(r->col + at, w->ocol, w->nout * sizeof *r->col);
        if (r->val)
            memcpy(r->val + at, w->oval, w->nout * sizeof *r->val);
    }
    r->nnz = r->rowptr[b1];
    return 0;
}

static int workers(void)
{
#ifdef _OPENMP
    int n = omp_get_max_threads();
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

int space_explore(const san_model *m, space_rows *r, idmap *h, const san_space_opts *o,
                  double limit, int64_t *undeclared, san_diag *d)
{
    search S = { m, r, h, o, limit, undeclared, d, NULL, workers(), NULL, san_now(), 0 };
    S.last = S.t0;
    int rc = 0;
    S.w = calloc(S.nw, sizeof *S.w);
    S.t = calloc(m->naut + 1, sizeof *S.t);
    if (!S.w || !S.t)
        rc = -1;
    for (int t = 0; rc == 0 && t < S.nw; t++)
        if (worker_init(&S.w[t], m) < 0)
            rc = -1;
    if (r->rowptr)
        r->rowptr[0] = 0;
    r->nnz = 0;
    for (int64_t i = 0; rc == 0 && i < r->n;) {
        int64_t b1 = r->n - i > (int64_t)S.nw * SLICE_STATES ? i + (int64_t)S.nw * SLICE_STATES
                                                             : r->n;
        rc = run_batch(&S, i, b1);
        if (rc)
            break;
        i = b1;
        if (over_budget(&S)) {
            rc = SPACE_LIMIT;
            break;
        }
        if (o->interrupt && *o->interrupt) {
            san_diag_add(d, SAN_ERROR, 0, 0, "interrupted during exploration");
            rc = -1;
            break;
        }
        if (o->time_limit > 0 && san_now() - S.t0 >= o->time_limit) {
            san_diag_add(d, SAN_ERROR, 0, 0, "the time limit was reached during the "
                         "exploration (%lld states); raise --time-limit", (long long)r->n);
            rc = SPACE_TIME;
            break;
        }
        if (o->progress)
            progress(&S);
    }
    if (rc == -1 && d->nerrors == 0)
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while exploring (%lld states, %lld "
                     "nonzeros)", (long long)r->n, (long long)r->nnz);
    if (o->progress)
        fprintf(stderr, "\r%60s\r", "");
    for (int t = 0; S.w && t < S.nw; t++)
        worker_free(&S.w[t]);
    free(S.w);
    free(S.t);
    return rc;
}
