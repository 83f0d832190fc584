/*
 * space.c - the reachable state space and the sparse generator.
 *
 * One breadth-first pass does both jobs: states are numbered in the order
 * they are discovered, so the row of state i can be written as soon as i
 * is expanded (its successors get their numbers on the spot).  The map
 * from mixed-radix index to number is a flat array when the product space
 * is small enough, a hash table otherwise.
 *
 * Then the structure is checked: strongly connected components, exactly
 * one closed class (isolated pockets admitted by a full reachability
 * function are dropped, with a warning).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "succ.h"
#include "space.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

double san_default_max_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    double phys = pages > 0 && size > 0 ? (double)pages * size : 8.0 * (1 << 30);
    return 0.8 * phys;
}

/* ---------------------------------------------------------------- */
/* index -> state number                                              */
/* ---------------------------------------------------------------- */

typedef struct {
    int32_t *dir;           /* direct: one slot per product state */
    uint64_t *keys;         /* hash: index + 1, 0 = empty */
    int32_t *vals;
    uint64_t mask;
    int64_t count;
} idmap;

static int idmap_init(idmap *h, const san_model *m, double budget)
{
    memset(h, 0, sizeof *h);
    if (m->product_fits && m->product < INT32_MAX && 4.0 * m->product <= budget / 4) {
        h->dir = malloc((size_t)m->product * sizeof *h->dir);
        if (!h->dir)
            return -1;
        memset(h->dir, 0xff, (size_t)m->product * sizeof *h->dir);
        return 0;
    }
    h->mask = (1u << 16) - 1;
    h->keys = calloc(h->mask + 1, sizeof *h->keys);
    h->vals = malloc((h->mask + 1) * sizeof *h->vals);
    return h->keys && h->vals ? 0 : -1;
}

static void idmap_free(idmap *h)
{
    free(h->dir);
    free(h->keys);
    free(h->vals);
}

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static int idmap_grow(idmap *h)
{
    uint64_t cap = 2 * (h->mask + 1), mask = cap - 1;
    uint64_t *keys = calloc(cap, sizeof *keys);
    int32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (uint64_t i = 0; i <= h->mask; i++)
        if (h->keys[i]) {
            uint64_t j = mix(h->keys[i]) & mask;
            while (keys[j])
                j = (j + 1) & mask;
            keys[j] = h->keys[i];
            vals[j] = h->vals[i];
        }
    free(h->keys);
    free(h->vals);
    h->keys = keys;
    h->vals = vals;
    h->mask = mask;
    return 0;
}

/* Number of idx, inserting `next` if absent (*fresh set).  -2: no memory. */
static inline int64_t idmap_get(idmap *h, int64_t idx, int32_t next, int *fresh)
{
    *fresh = 0;
    if (h->dir) {
        if (h->dir[idx] < 0) {
            h->dir[idx] = next;
            *fresh = 1;
        }
        return h->dir[idx];
    }
    if (2 * (h->count + 1) > (int64_t)(h->mask + 1) && idmap_grow(h) < 0)
        return -2;
    uint64_t key = (uint64_t)idx + 1, j = mix(key) & h->mask;
    while (h->keys[j]) {
        if (h->keys[j] == key)
            return h->vals[j];
        j = (j + 1) & h->mask;
    }
    h->keys[j] = key;
    h->vals[j] = next;
    h->count++;
    *fresh = 1;
    return next;
}

static double idmap_bytes(const idmap *h, const san_model *m)
{
    return h->dir ? 4.0 * m->product : 12.0 * (h->mask + 1);
}

/* ---------------------------------------------------------------- */
/* Growing arrays of the exploration                                  */
/* ---------------------------------------------------------------- */

typedef struct {
    int64_t *index;
    int64_t n, cap;         /* states */
    int64_t *rowptr;        /* cap + 1 */
    int32_t *col;
    double *val;
    int64_t nnz, capnz;
} rows;

static int rows_reserve_states(rows *r, int64_t need)
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
    int64_t *rp = realloc(r->rowptr, (cap + 1) * sizeof *rp);
    if (!rp)
        return -1;
    r->rowptr = rp;
    r->cap = cap;
    return 0;
}

static int rows_reserve_nz(rows *r, int64_t need)
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
    double *v = realloc(r->val, cap * sizeof *v);
    if (!v)
        return -1;
    r->val = v;
    r->capnz = cap;
    return 0;
}

static double rows_bytes(const rows *r)
{
    return 16.0 * r->cap + 12.0 * r->capnz;
}

/* ---------------------------------------------------------------- */
/* One row: sort by column, merge duplicates, drop self-loops, add the
 * diagonal.                                                          */
/* ---------------------------------------------------------------- */

typedef struct {
    int32_t col;
    double val;
} entry;

static int cmp_entry(const void *x, const void *y)
{
    int32_t a = ((const entry *)x)->col, b = ((const entry *)y)->col;
    return (a > b) - (a < b);
}

static void sort_entries(entry *e, int n)
{
    if (n > 32) {
        qsort(e, n, sizeof *e, cmp_entry);
        return;
    }
    for (int i = 1; i < n; i++) {
        entry x = e[i];
        int j = i - 1;
        while (j >= 0 && e[j].col > x.col) {
            e[j + 1] = e[j];
            j--;
        }
        e[j + 1] = x;
    }
}

/* Write row i from entries (destroyed); returns the exit rate. */
static double emit_row(rows *r, int64_t i, entry *e, int n)
{
    sort_entries(e, n);
    double out = 0;
    int64_t p = r->nnz;
    int diag_done = 0;
    for (int k = 0; k < n;) {
        int32_t c = e[k].col;
        double v = 0;
        while (k < n && e[k].col == c)
            v += e[k++].val;
        if (c == i)
            continue;           /* a self-loop changes nothing */
        if (!diag_done && c > i) {
            r->col[p] = (int32_t)i;
            r->val[p++] = 0;    /* filled below */
            diag_done = 1;
        }
        r->col[p] = c;
        r->val[p++] = v;
        out += v;
    }
    if (!diag_done) {
        r->col[p] = (int32_t)i;
        r->val[p++] = 0;
    }
    for (int64_t q = r->nnz; q < p; q++)
        if (r->col[q] == i)
            r->val[q] = -out;
    r->nnz = p;
    r->rowptr[i + 1] = p;
    return out;
}

/* ---------------------------------------------------------------- */
/* Seeds: the states the reachability function accepts                */
/* ---------------------------------------------------------------- */

/* Products up to this are scanned for the reachability function. */
#define SCAN_LIMIT 4000000000LL

static void progress(const char *what, int64_t n, double t0, double *last)
{
    double t = now();
    if (t - *last < 0.5)
        return;
    *last = t;
    fprintf(stderr, "\r  %s: %lld states (%.1f s)   ", what, (long long)n, t - t0);
    fflush(stderr);
}

/* Odometer over the product space, evaluating the function in each. */
static int scan_seeds(const san_model *m, rows *r, idmap *h, const san_space_opts *o,
                      san_diag *d)
{
    if (!m->product_fits || m->product > SCAN_LIMIT) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the product space has %s states: too many to scan "
                     "with the reachability function (the limit is %lld)", m->product_str,
                     (long long)SCAN_LIMIT);
        return -2;
    }
    int *s = calloc(m->naut + 1, sizeof *s);
    if (!s)
        return -1;
    int all = san_expr_is_const(m->reach) && san_expr_const(m->reach) != 0;
    double t0 = now(), last = t0;
    for (int64_t idx = 0; idx < m->product; idx++) {
        if (all || san_expr_eval(m->reach, s) != 0) {
            if (r->n >= INT32_MAX - 1 || (o->max_states && r->n >= o->max_states))
                break;
            if (rows_reserve_states(r, r->n + 1) < 0) {
                free(s);
                return -1;
            }
            int fresh;
            idmap_get(h, idx, (int32_t)r->n, &fresh);
            r->index[r->n++] = idx;
        }
        for (int a = m->naut - 1; a >= 0; a--) {
            if (++s[a] < m->aut[a].nstates)
                break;
            s[a] = 0;
        }
        if (o->progress && (idx & 0xfffff) == 0)
            progress("scanning the reachability function", r->n, t0, &last);
    }
    free(s);
    if (o->progress)
        fprintf(stderr, "\r%60s\r", "");
    return 0;
}

/* ---------------------------------------------------------------- */
/* Breadth-first exploration writing the rows of Q                    */
/* ---------------------------------------------------------------- */

static int over_budget(const rows *r, const idmap *h, const san_model *m, double limit,
                       san_diag *d)
{
    /* The transposed copy the solvers need doubles the nonzeros. */
    double need = rows_bytes(r) + 12.0 * r->capnz + idmap_bytes(h, m) + 8.0 * r->cap;
    if (need <= limit)
        return 0;
    san_diag_add(d, SAN_ERROR, 0, 0, "the sparse generator needs more than %.2f GiB after "
                 "%lld states and %lld nonzeros, over the memory limit of %.2f GiB; raise "
                 "--max-memory, or reduce the model", need / (1 << 30), (long long)r->n,
                 (long long)r->nnz, limit / (1 << 30));
    return 1;
}

static int explore(const san_model *m, rows *r, idmap *h, const san_space_opts *o,
                   double limit, int64_t *undeclared, san_diag *d)
{
    succ_ctx c;
    san_arcs arcs = { 0 };
    entry *buf = NULL;
    int cap = 0, rc = 0;
    int *s = calloc(m->naut + 1, sizeof *s), *t = calloc(m->naut + 1, sizeof *t);
    if (!s || !t || succ_init(&c, m) < 0) {
        free(s);
        free(t);
        return -1;
    }
    char err[1024];
    double t0 = now(), last = t0;
    r->rowptr[0] = 0;
    for (int64_t i = 0; i < r->n; i++) {
        san_state_decode(m, r->index[i], s);
        arcs.n = 0;
        int e = succ_enumerate(&c, s, r->index[i], &arcs, err, sizeof err);
        if (e) {
            san_diag_add(d, SAN_ERROR, 0, 0, "%s", err);
            rc = e;
            break;
        }
        if (arcs.n + 1 > cap) {
            cap = 2 * (arcs.n + 1);
            free(buf);
            buf = malloc(cap * sizeof *buf);
            if (!buf) {
                rc = -1;
                break;
            }
        }
        /* The map is random access: ask for every successor's slot
         * before using any, so the cache misses overlap. */
        if (h->dir)
            for (int k = 0; k < arcs.n; k++)
                __builtin_prefetch(&h->dir[arcs.v[k].to]);
        for (int k = 0; k < arcs.n; k++) {
            int fresh;
            int64_t id = idmap_get(h, arcs.v[k].to, (int32_t)r->n, &fresh);
            if (id == -2) {
                rc = -1;
                break;
            }
            if (fresh) {
                if (r->n >= INT32_MAX - 1 || (o->max_states && r->n >= o->max_states)) {
                    san_diag_add(d, SAN_ERROR, 0, 0, "more than %lld reachable states (--max-states)",
                                 (long long)(o->max_states ? o->max_states : INT32_MAX - 1));
                    rc = -2;
                    break;
                }
                if (rows_reserve_states(r, r->n + 1) < 0) {
                    rc = -1;
                    break;
                }
                r->index[r->n++] = arcs.v[k].to;
                if (!m->partial) {
                    san_state_decode(m, arcs.v[k].to, t);
                    *undeclared += san_expr_eval(m->reach, t) == 0;
                }
            }
            buf[k].col = (int32_t)id;
            buf[k].val = arcs.v[k].rate;
        }
        if (rc)
            break;
        if (o->states_only) {
            r->rowptr[i + 1] = 0;
        } else if (rows_reserve_nz(r, r->nnz + arcs.n + 1) < 0) {
            rc = -1;
            break;
        } else {
            emit_row(r, i, buf, arcs.n);
        }
        if ((i & 0xffff) == 0) {
            if (over_budget(r, h, m, limit, d)) {
                rc = -2;
                break;
            }
            if (o->interrupt && *o->interrupt) {
                san_diag_add(d, SAN_ERROR, 0, 0, "interrupted during exploration");
                rc = -1;
                break;
            }
            if (o->progress)
                progress("exploring", r->n, t0, &last);
        }
    }
    if (rc == -1 && d->nerrors == 0)
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory while exploring (%lld states, %lld nonzeros)",
                     (long long)r->n, (long long)r->nnz);
    if (o->progress)
        fprintf(stderr, "\r%60s\r", "");
    free(arcs.v);
    free(buf);
    free(s);
    free(t);
    succ_free(&c);
    return rc;
}

/* ---------------------------------------------------------------- */
/* The whole build                                                    */
/* ---------------------------------------------------------------- */

int san_space_build(const san_model *m, const san_space_opts *o, san_space *sp, san_diag *d)
{
    memset(sp, 0, sizeof *sp);
    sp->m = m;
    double limit = o->max_memory > 0 ? o->max_memory : san_default_max_memory();
    rows r = { 0 };
    idmap h;
    double t0 = now();
    if (idmap_init(&h, m, limit) < 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "out of memory for the state map of %s product states",
                     m->product_str);
        return -1;
    }
    int rc = rows_reserve_states(&r, 1024);
    if (rc == 0)
        rc = scan_seeds(m, &r, &h, o, d);
    sp->declared = r.n;
    if (rc == 0 && r.n == 0) {
        san_diag_add(d, SAN_ERROR, 0, 0, "the reachability function accepts no state");
        rc = -2;
    }
    if (rc == 0 && !m->product_fits)
        rc = -2;
    if (rc == 0) {
        /* estimate before the big allocations: sample the first rows */
        rc = explore(m, &r, &h, o, limit, &sp->reached_undeclared, d);
    }
    idmap_free(&h);
    if (rc) {
        free(r.index);
        free(r.rowptr);
        free(r.col);
        free(r.val);
        return rc;
    }
    double t1 = now();
    sp->n = r.n;
    sp->index = r.index;
    sp->q.n = r.n;
    sp->q.rowptr = r.rowptr;
    sp->q.col = r.col;
    sp->q.val = r.val;
    sp->t_explore = t1 - t0;
    sp->t_build = 0;    /* the rows are written during the exploration */
    if (sp->reached_undeclared)
        san_diag_add(d, SAN_WARNING, 0, 0, "%lld reached states are rejected by the reachability "
                     "function; they are kept (the function should accept them)",
                     (long long)sp->reached_undeclared);
    if (o->states_only) {
        sp->nclosed = sp->n;
        sp->in_closed = malloc(sp->n ? sp->n : 1);
        if (!sp->in_closed) {
            san_space_free(sp);
            return -1;
        }
        memset(sp->in_closed, 1, sp->n);
        sp->bytes = 16.0 * sp->n;
        return 0;
    }
    rc = space_check_classes(sp, d);
    sp->t_check = now() - t1;
    if (rc) {
        san_space_free(sp);     /* a failed build leaves nothing to free */
        return rc;
    }
    for (int64_t i = 0; i < sp->n; i++) {
        double q = -sp->q.val[space_diag_pos(&sp->q, i)];
        if (q > sp->max_rate)
            sp->max_rate = q;
    }
    sp->bytes = 16.0 * sp->n + 12.0 * sp->q.rowptr[sp->n] + sp->n;
    return rc;
}

void san_space_free(san_space *sp)
{
    free(sp->index);
    san_csr_free(&sp->q);
    free(sp->in_closed);
    memset(sp, 0, sizeof *sp);
}
