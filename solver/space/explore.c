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
 * A batch is bounded by the transitions its workers list, not by its
 * states: a worker whose quota is spent stops, the batch is cut there,
 * and the next one is sized from the transitions per state measured.  A
 * state whose transitions alone pass a quota (2^20 of them for 20
 * replicas routing 0.5/0.5 on one synchronizing event) is expanded
 * alone, in pieces (expand_large).  Every large allocation (Q, the map,
 * the lists, a long row) is checked against the memory limit before it
 * is made, so the limit is never passed: the exploration stops with
 * SPACE_LIMIT first, naming the fan-out when it is the cause.
 *
 * On models whose reachability function accepts every reachable state
 * (most PEPS models) every state is numbered before the search starts,
 * nothing is pending, and the sequential phase is empty.  The page
 * faults of the growing Q (the kernel zeroes every fresh page, a large
 * part of the cost) happen in the parallel placement.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "solver/space/explore.h"
#include "solver/space/messages.h"
#include "base/grow.h"
#include "base/services.h"
#include "solver/space/state_space.h"
#include "solver/space/succ.h"
#include "lang/model_int.h"

/* States a worker expands per batch, at most. */
#define SLICE_STATES 32768
/* Batches of fewer states and transitions than these run on one thread. */
#define PAR_MIN_STATES 2048
#define PAR_MIN_ARCS 65536
/* Transitions a worker lists per batch: the batch's buffers take about
 * BATCH_BYTES_PER_ARC bytes a transition (the piece of successors 24,
 * the entry 16, the pending successor 12, the sort key 8, the assembled
 * entry 12), and all workers' at most a quarter of what the limit
 * leaves (batch_quota); at least QUOTA_MIN_ARCS (a tight limit still
 * makes progress), at most QUOTA_MAX_ARCS (40 MB a worker: the batches
 * of 32768 states and 30 transitions each that rs and tss make). */
#define BATCH_BYTES_PER_ARC 72.0
#define QUOTA_MIN_ARCS 4096
#define QUOTA_MAX_ARCS (1 << 20)
/* A worker looks at the clock every this many transitions listed
 * (about a millisecond of work). */
#define CLOCK_EVERY 65536
/* Messages about memory name the fan-out when one state can have at
 * least this many transitions. */
#define FANOUT_NOTE 4096.0

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
    space_arcs arcs;          /* one piece of one state's transitions */
    int *s;                 /* decoded state ... */
    int64_t s_idx;          /* ... of this index (-1: none) */
    int64_t lo, hi;         /* the states it expands in this batch */
    int64_t stop;           /* first state it did not expand (hi: all) */
    int64_t quota;          /* transitions it may list in this batch */
    int64_t listed;         /* ... and has listed (+1 a state) */
    int64_t clock;          /* looks at the clock when listed reaches it */
    double deadline;        /* san_now() past which it stops */
    volatile int *interrupt;
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
    int rc;                 /* 0, -1 out of memory or interrupted, -2
                               invalid model, SPACE_TIME */
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

/* What a worker's buffers hold (their capacities). */
static double worker_bytes(const worker *w)
{
    return 24.0 * w->arcs.cap + 16.0 * w->capent + 12.0 * w->capstates + 12.0 * w->cappend +
           8.0 * w->capkey + 12.0 * w->capout;
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

/* The clock and the interrupt flag, every CLOCK_EVERY transitions
 * (and states) of a slice and after every piece of a large state: a
 * batch ends within milliseconds of the time limit, whatever its size.
 * 0, or the code. */
static int worker_stopped(const worker *w)
{
    if (w->interrupt && *w->interrupt)
        return -1;
    return san_now() >= w->deadline ? SPACE_TIME : 0;
}

/* Phase 1: the arcs of states lo..hi-1, as long as they fit in the
 * worker's quota of transitions: a state whose transitions do not fit
 * in what is left ends the slice there (w->stop), and is expanded
 * again in the next batch (alone, in pieces, when it does not fit in a
 * whole quota: expand_large). */
static void expand(worker *w, const san_model *m, const space_rows *r, const idmap *h)
{
    const int rows = keeps_rows(r);
    w->nent = w->npend = w->listed = 0;
    w->clock = CLOCK_EVERY;
    w->stop = w->hi;
    if (grow_states(w, w->hi - w->lo + 1) < 0) {
        w->rc = -1;
        return;
    }
    for (int64_t i = w->lo; i < w->hi; i++) {
        if (w->listed >= w->clock && (w->rc = worker_stopped(w)))
            return;
        w->clock = w->listed + CLOCK_EVERY;
        int64_t idx = r->index[i];
        decode(m, w, idx);
        w->arcs.n = 0;
        succ_cursor cur = { 0, 0 };
        int64_t room = w->quota - w->listed;
        int rc = succ_enumerate_part(&w->sc, w->s, idx, &cur, room > 1 ? room : 1, &w->arcs,
                                     w->err, sizeof w->err);
        if (rc < 0) {
            w->rc = rc;
            return;
        }
        if (rc == 1) {          /* it does not fit: the slice ends before it */
            w->stop = i;
            break;
        }
        rc = succ_check_exit_rate(&w->sc, w->s, idx, &w->arcs, 0, w->err, sizeof w->err);
        if (rc < 0) {
            w->rc = rc;
            return;
        }
        const space_arc *a = w->arcs.v;
        int n = w->arcs.n;
        w->listed += n + 1;
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
    w->start[w->stop - w->lo] = w->nent;
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
    const space_tuning *tune;
    int64_t *undeclared;
    san_diag *d;
    worker *w;
    int nw;
    int *t;                 /* a decoded state, for the reachability test */
    double t0, last, deadline;
    int64_t slice;          /* states a worker takes in the next batch */
    double arcs_per_state;  /* the most of the last batch's slices, or the
                               last state expanded alone (expand_large) */
    double fanout;          /* succ_fanout: the most transitions of a state */
    int fan_event;          /*   the event with the most outcomes ... */
    double fan_event_out;   /*   ... and how many */
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

/* What the exploration holds now, and what the solve will add: the
 * transposed copy the solvers need doubles the nonzeros (not the arcs
 * kept for the class check). */
static double need_bytes(const search *S)
{
    const space_rows *r = S->r;
    double work = 0;
    for (int t = 0; t < S->nw; t++)
        work += worker_bytes(&S->w[t]);
    return rows_bytes(r) + idmap_bytes(S->h, S->m) + work +
           (r->states_only ? 0 : 12.0 * r->capnz + 8.0 * r->cap);
}

/* Does growing something by extra bytes stay within the limit?  Asked
 * before every large allocation (Q, the map, a long row), so that the
 * limit is never passed, and not only found passed after a batch. */
static int fits(const search *S, double extra)
{
    return need_bytes(S) + extra <= S->limit;
}

/* A count as a whole number while it is one to the unit (below 2^53),
 * else with 3 digits. */
static const char *count_text(double x, char *buf, size_t n)
{
    snprintf(buf, n, x < 9007199254740992.0 ? "%.0f" : "%.3g", x);
    return buf;
}

/* " (one state can have up to F transitions: event 'e' has up to K
 * outcome combinations)" when the fan-out is what fills the memory, else "". */
static const char *fanout_note(const search *S, char *buf, size_t n)
{
    char f[32], k[32];
    buf[0] = '\0';
    if (S->fan_event >= 0 && S->fanout >= FANOUT_NOTE)
        snprintf(buf, n, " (one state can have up to %s transitions: event '%s' has up to "
                 "%s outcome combinations)", count_text(S->fanout, f, sizeof f),
                 S->m->ev[S->fan_event].name, count_text(S->fan_event_out, k, sizeof k));
    return buf;
}

static void over_budget_message(const search *S, double need)
{
    const space_rows *r = S->r;
    char note[512], nb[32], lb[32];
    fanout_note(S, note, sizeof note);
    san_format_bytes(need, nb, sizeof nb);
    san_format_bytes(S->limit, lb, sizeof lb);
    if (r->states_only)
        san_diag_add(S->d, SAN_ERROR, 0, 0, "the exploration needs more than %s after "
                     "%lld states, over the memory limit of %s%s; raise --max-memory, or "
                     "reduce the model", nb, (long long)r->n, lb, note);
    else
        san_diag_add(S->d, SAN_ERROR, 0, 0, "the sparse generator needs more than %s "
                     "after %lld states and %lld nonzeros, over the memory limit of %s%s; "
                     "raise --max-memory, or reduce the model", nb,
                     (long long)r->n, (long long)r->nnz, lb, note);
}

/* After each batch, and before an allocation that would not fit (extra
 * bytes).  The arcs kept for the class check are given up when they
 * take more than a quarter of the limit, or when the exploration would
 * not fit with them. */
static int over_budget(const search *S, double extra)
{
    const space_rows *r = S->r;
    double need = need_bytes(S) + extra;
    if (r->arcs && (need > S->limit || 8.0 * r->cap + 4.0 * r->capnz > S->limit / 4)) {
        arcs_drop(S->r);
        need = need_bytes(S) + extra;
    }
    if (need <= S->limit)
        return 0;
    over_budget_message(S, need);
    return 1;
}

/* Room for `need` states in the lists (doubling, as
 * space_rows_reserve_states does), within the limit. */
static int reserve_states(search *S, int64_t need)
{
    space_rows *r = S->r;
    if (need <= r->cap)
        return 0;
    /* the index, the exit rate or the transpose's row pointer, the
     * row pointer */
    const double per = 16.0 + (keeps_rows(r) ? 8.0 : 0);
    int64_t cap = r->cap ? r->cap : 1024;
    while (cap < need)
        cap *= 2;
    if (over_budget(S, per * (double)(cap - r->cap)))
        return SPACE_LIMIT;
    return space_rows_reserve_states(r, need) < 0 ? -1 : 0;
}

/* Room for `need` nonzeros in Q: doubling while it fits, else exactly
 * what is needed, else SPACE_LIMIT before anything is allocated. */
static int reserve_nz(search *S, int64_t need)
{
    space_rows *r = S->r;
    if (need <= r->capnz)
        return 0;
    /* the column (4 bytes), the value and the transpose's copy (8 + 12) */
    const double per = r->states_only ? 4.0 : 24.0;
    int64_t cap = r->capnz ? r->capnz : 4096;
    while (cap < need)
        cap *= 2;
    if (!fits(S, per * (double)(cap - r->capnz)))
        cap = need;
    if (over_budget(S, per * (double)(cap - r->capnz)))
        return SPACE_LIMIT;
    if (!keeps_rows(r))
        return 0;               /* the arcs were given up just now */
    return rows_reserve_nz(r, cap) < 0 ? -1 : 0;
}

/* The number of index idx, a new one if it has none (breadth-first
 * order: the caller asks in that order).  SPACE_LIMIT over --max-states
 * or the memory limit (a growing hash map takes its old and new
 * tables at once), -1 out of memory. */
static int64_t number_one(search *S, int64_t idx)
{
    space_rows *r = S->r;
    if (idmap_full(S->h) && over_budget(S, 2.0 * idmap_bytes(S->h, S->m)))
        return SPACE_LIMIT;
    int fresh;
    int64_t id = idmap_get(S->h, idx, (int32_t)r->n, &fresh);
    if (id == -2)
        return -1;
    if (!fresh)
        return id;
    int64_t max = S->o->max_states ? S->o->max_states : INT32_MAX - 1;
    if (max > INT32_MAX - 1)
        max = INT32_MAX - 1;
    if (r->n >= max) {
        char msg[96];
        san_diag_add(S->d, SAN_ERROR, 0, 0, "%s", space_max_states_text(msg, sizeof msg, max));
        return SPACE_LIMIT;
    }
    int rc = reserve_states(S, r->n + 1);
    if (rc)
        return rc;
    r->index[r->n++] = idx;
    if (!S->m->partial) {
        san_state_decode(S->m, idx, S->t);
        *S->undeclared += san_expr_eval(S->m->reach, S->t) == 0;
    }
    return id;
}

/* Phase 2: numbers for the pending successors, in breadth-first order. */
static int number_pending(search *S)
{
    for (int t = 0; t < S->nw; t++) {
        worker *w = &S->w[t];
        for (int64_t p = 0; p < w->npend; p++) {
            int64_t id = number_one(S, w->pend[p]);
            if (id < 0)
                return (int)id;
            w->pend_id[p] = (int32_t)id;
        }
    }
    return 0;
}

/* Row pointers of the batch from the assembled lengths. */
static void set_rowptr(search *S)
{
    space_rows *r = S->r;
    for (int t = 0; t < S->nw; t++) {
        const worker *w = &S->w[t];
        for (int64_t i = w->lo; i < w->hi; i++)
            r->rowptr[i + 1] = r->rowptr[i] + w->len[i - w->lo];
    }
}

static void stopped_message(search *S, int rc)
{
    if (rc == SPACE_TIME)
        san_diag_add(S->d, SAN_ERROR, 0, 0, "the time limit was reached during the "
                     "exploration (%lld states); raise --time-limit", (long long)S->r->n);
    else
        san_diag_add(S->d, SAN_ERROR, 0, 0, "interrupted during exploration");
}

/* The first failing worker (in state order) speaks for the batch. */
static int batch_error(search *S)
{
    for (int t = 0; t < S->nw; t++)
        if (S->w[t].rc) {
            worker *w = &S->w[t];
            if (w->rc == -2)
                san_diag_add(S->d, SAN_ERROR, w->sc.err_line, w->sc.err_col, "%s", w->err);
            else if (w->rc == SPACE_TIME || (w->rc == -1 && w->interrupt && *w->interrupt))
                stopped_message(S, w->rc);
            return w->rc;
        }
    return 0;
}

/* The batch is cut at the first state a worker left out (in state
 * order): the workers after it are dropped (their states come again
 * in the next batch), so that the numbering stays breadth-first.  The
 * next batch's slices are sized from this one's transitions per
 * state.  Returns the batch's end. */
static int64_t cut_batch(search *S, int64_t b1)
{
    int64_t end = b1;
    double most = 0;
    for (int t = 0; t < S->nw; t++) {
        worker *w = &S->w[t];
        if (end < b1) {             /* after the cut */
            w->lo = w->hi = w->stop = end;
            w->npend = w->nent = 0;
            continue;
        }
        if (w->stop > w->lo)
            most = fmax(most, (double)w->listed / (double)(w->stop - w->lo));
        if (w->stop < w->hi) {
            end = w->hi = w->stop;
        }
    }
    S->arcs_per_state = most;
    return end;
}

/* States per slice for the next batch: as many as the quota holds at
 * the last batch's transitions per state, with a quarter to spare. */
static void next_slice(search *S, int64_t quota)
{
    double per = S->arcs_per_state > 1 ? S->arcs_per_state : 1;
    double k = 0.75 * (double)quota / per;
    S->slice = k < 1 ? 1 : k > SLICE_STATES ? SLICE_STATES : (int64_t)k;
}

/* Transitions a worker may list in one batch: the batch's buffers of
 * every worker (BATCH_BYTES_PER_ARC a transition) take at most a
 * quarter of what the limit leaves beside the rows and the map. */
static int64_t batch_quota(const search *S)
{
    double work = 0;
    for (int t = 0; t < S->nw; t++)
        work += worker_bytes(&S->w[t]);
    double room = S->limit - (need_bytes(S) - work);
    double q = room / 4 / S->nw / BATCH_BYTES_PER_ARC;
    const space_tuning *t = S->tune;
    return q < t->quota_min ? t->quota_min : q > t->quota_max ? t->quota_max : (int64_t)q;
}

/* Sorts e by column and merges the entries of one column (the value
 * summed).  Returns how many are left. */
static int cmp_entry(const void *x, const void *y)
{
    int32_t a = ((const entry *)x)->col, b = ((const entry *)y)->col;
    return (a > b) - (a < b);
}

static int64_t merge_entries(entry *e, int64_t n)
{
    if (n < 2)
        return n;
    qsort(e, n, sizeof *e, cmp_entry);
    int64_t u = 0;
    for (int64_t k = 1; k < n; k++) {
        if (e[k].col == e[u].col)
            e[u].val += e[k].val;
        else
            e[++u] = e[k];
    }
    return u + 1;
}

/* Grows worker w's entries to hold need, within the limit. */
static int grow_entries(search *S, worker *w, int64_t need)
{
    if (need <= w->capent)
        return 0;
    int64_t cap = w->capent;
    while (cap < need)
        cap *= 2;
    if (over_budget(S, 16.0 * (double)(cap - w->capent)))
        return SPACE_LIMIT;
    return grow((void **)&w->ent, &w->capent, need, sizeof *w->ent) < 0 ? -1 : 0;
}

/* State i alone, its transitions listed in pieces of at most a quota
 * (so that none of the buffers grows with the fan-out): each piece's
 * successors are numbered at once, in the order of a one-thread
 * search; the row's entries are merged by column whenever the unsorted
 * ones outnumber the merged ones, so that they take at most twice the
 * row's distinct successors, which Q must hold anyway. */
static int expand_large(search *S, int64_t i, int64_t piece)
{
    space_rows *r = S->r;
    worker *w = &S->w[0];
    const int rows = keeps_rows(r);
    const int64_t idx = r->index[i];
    succ_cursor cur = { 0, 0 };
    double out = 0;
    int64_t merged = 0;
    int more = 1;
    w->lo = i;
    w->hi = w->stop = i + 1;
    w->nent = 0;
    decode(S->m, w, idx);
    w->listed = w->arcs.n = 0;
    while (more) {
        w->listed += w->arcs.n;
        w->arcs.n = 0;
        more = succ_enumerate_part(&w->sc, w->s, idx, &cur, piece, &w->arcs, w->err,
                                   sizeof w->err);
        if (more < 0) {
            if (more == -2)
                san_diag_add(S->d, SAN_ERROR, w->sc.err_line, w->sc.err_col, "%s", w->err);
            return more;
        }
        int rc = rows ? grow_entries(S, w, w->nent + w->arcs.n) : 0;
        for (int k = 0; rc == 0 && k < w->arcs.n; k++) {
            const space_arc *a = &w->arcs.v[k];
            out += a->to != idx ? a->rate : 0;
            int64_t id = number_one(S, a->to);
            if (id < 0)
                return (int)id;
            if (rows)
                w->ent[w->nent++] = (entry){ (int32_t)id, a->rate };
        }
        if (rc)
            return rc;
        if (!(out <= DBL_MAX)) {    /* succ_check_exit_rate, across the pieces */
            char st[512];
            san_state_name(S->m, w->s, st, sizeof st);
            san_diag_add(S->d, SAN_ERROR, 0, 0, "the rates leaving state (%s) sum beyond the "
                         "largest double (%.3g) over its first %lld transitions", st, DBL_MAX,
                         (long long)(w->listed + w->arcs.n));
            return -2;
        }
        if (rows && w->nent - merged > merged + piece)
            merged = w->nent = merge_entries(w->ent, w->nent);
        if ((rc = worker_stopped(w))) {
            stopped_message(S, rc);
            return rc;
        }
        if (S->o->progress)
            progress(S);
    }
    if (r->states_only)
        r->exit[i] = out;
    S->arcs_per_state = (double)(w->listed + w->arcs.n);
    if (!rows)
        return 0;
    /* the row, as assemble() writes it, straight into Q */
    w->nent = merge_entries(w->ent, w->nent);
    int rc = reserve_nz(S, r->nnz + w->nent + 1);
    if (rc || !keeps_rows(r))
        return rc;
    if (over_budget(S, 8.0 * (double)(w->nent > w->capkey ? w->nent - w->capkey : 0)))
        return SPACE_LIMIT;
    if (grow((void **)&w->key, &w->capkey, w->nent, sizeof *w->key) < 0)
        return -1;
    if (!r->val && grow_out(w, w->nent + 1) < 0)
        return -1;
    double *val = r->val ? r->val + r->nnz : w->oval;     /* arcs: columns alone */
    int64_t len = assemble_row(i, w->ent, w->nent, w->key, r->col + r->nnz, val);
    r->nnz += len;
    r->rowptr[i + 1] = r->nnz;
    return 0;
}

/* One batch: states b0..b1-1, or fewer (cut_batch).  *end gets the
 * first state not expanded. */
static int run_batch(search *S, int64_t b0, int64_t b1, int64_t *end)
{
    int nw = S->nw, rows = keeps_rows(S->r);
    int64_t nb = b1 - b0, quota = batch_quota(S);
    if (S->arcs_per_state > quota) {
        /* the last state was over a quota: this one is likely too (the
         * replicas of a fan-out model all are), and trying it in a
         * batch first would list a quota for nothing */
        *end = b0 + 1;
        int rc = expand_large(S, b0, quota);
        next_slice(S, quota);
        return rc;
    }
    for (int t = 0; t < nw; t++) {
        worker *w = &S->w[t];
        w->lo = b0 + nb * t / nw;
        w->hi = b0 + nb * (t + 1) / nw;
        w->rc = 0;
        w->quota = quota;
    }
    int par = nb >= nw && (nb >= PAR_MIN_STATES || S->arcs_per_state * nb >= PAR_MIN_ARCS);
    SAN_OMP(omp parallel for schedule(static, 1) num_threads(nw) if(par))
    for (int t = 0; t < nw; t++)
        expand(&S->w[t], S->m, S->r, S->h);
    int rc = batch_error(S);
    if (rc)
        return rc;
    *end = cut_batch(S, b1);
    if (*end == b0) {           /* its first state is over a whole quota */
        *end = b0 + 1;
        int rc = expand_large(S, b0, quota);
        next_slice(S, quota);
        return rc;
    }
    next_slice(S, quota);
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
    rc = reserve_nz(S, r->rowptr[*end]);
    if (rc || !keeps_rows(r))
        return rc;
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
    r->nnz = r->rowptr[*end];
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

/* The search's set-up: workers, the fan-out (the first slices are sized
 * by it until a batch has measured the transitions per state). */
static int search_init(search *S)
{
    S->w = calloc(S->nw, sizeof *S->w);
    S->t = calloc(S->m->naut + 1, sizeof *S->t);
    if (!S->w || !S->t)
        return -1;
    for (int t = 0; t < S->nw; t++) {
        if (worker_init(&S->w[t], S->m) < 0)
            return -1;
        S->w[t].deadline = S->deadline;
        S->w[t].interrupt = S->o->interrupt;
    }
    S->fanout = succ_fanout(S->m, &S->fan_event, &S->fan_event_out);
    S->arcs_per_state = S->fanout;
    next_slice(S, batch_quota(S));
    return 0;
}

const space_tuning space_tuning_default = { QUOTA_MIN_ARCS, QUOTA_MAX_ARCS };

int space_explore(const san_model *m, space_rows *r, idmap *h, const san_space_opts *o,
                  double limit, const space_tuning *t, int64_t *undeclared, san_diag *d)
{
    search S = { .m = m, .r = r, .h = h, .o = o, .limit = limit, .tune = t,
                 .undeclared = undeclared, .d = d, .nw = workers(), .t0 = san_now() };
    S.last = S.t0;
    S.deadline = o->time_limit > 0 ? S.t0 + o->time_limit : INFINITY;
    int rc = search_init(&S);     /* after the deadline: the workers copy it */
    if (r->rowptr)
        r->rowptr[0] = 0;
    r->nnz = 0;
    for (int64_t i = 0; rc == 0 && i < r->n;) {
        int64_t b1 = r->n - i > (int64_t)S.nw * S.slice ? i + (int64_t)S.nw * S.slice : r->n;
        rc = run_batch(&S, i, b1, &i);
        if (rc)
            break;
        if (over_budget(&S, 0)) {
            rc = SPACE_LIMIT;
            break;
        }
        if (o->interrupt && *o->interrupt) {
            stopped_message(&S, -1);
            rc = -1;
            break;
        }
        if (san_now() >= S.deadline) {
            stopped_message(&S, SPACE_TIME);
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
