/*
 * dpartition.c - the reachable states dealt again over the ranks, by
 * ranges of their product index: rank r gets the states whose index
 * lies in [split[r], split[r+1]), exactly n/P of them (to one state),
 * numbered in increasing index.
 *
 * Why.  The first pass of the exploration (dexplore.c) deals the states
 * by a hash: it balances without knowing where the reachable states
 * lie, but sends (P-1)/P of the arcs across ranks, and a product with
 * the matrix then brings about one value from another rank per state
 * (ms async, 952,180 states, P = 2: 7.6 MB a product, 0.022 s against
 * the serial 0.0092 on an idle machine).  A transition of a SAN changes
 * one or a few automata, so its target's product index is near its
 * source's unless it moves the first automata; ranges of the sorted
 * indices keep such neighbours on one rank and still balance exactly,
 * the splitters being chosen from the states themselves.  The global
 * numbering becomes the order of the product index, whatever P.
 *
 * The key.  Which automaton is most significant decides which arcs
 * cross: a split falls between two local states of the key's first
 * automaton (or of the next ones, when it has fewer local states than
 * there are ranks), and every arc that moves that automaton across the
 * split crosses ranks.  In the product index the first automaton is
 * the model's first (ms async: the master, 3 states, moved by nearly
 * every other arc: P = 2 brought 7.3 MB a product, 0.77 of the states
 * from the other rank).  The key reads the automata in increasing
 * order of moves / (local states - 1), the arcs that change the
 * automaton (counted on a sample in the first pass) over the gaps
 * where a split may fall: an automaton that seldom moves, or moves
 * between many states (a buffer), goes first.
 *
 * The splitters: split[k] (0 < k < P) is the reachable state with
 * exactly floor(k n / P) reachable states below it, found by bisection
 * on the index, all splitters at once: each step one MPI_Allreduce of
 * P - 1 counts, each count a binary search in the rank's sorted
 * indices; at most 63 steps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/petsc/dist.h"

static int by_index(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The number of v[0..n) below key (v sorted). */
static int64_t count_below(const int64_t *v, int64_t n, int64_t key)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (v[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int drange_owner(const int64_t *split, int size, int64_t key)
{
    int lo = 1, hi = size;      /* the first k in 1..size-1 with split[k] > key */
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (split[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* What the collectives below work in, allocated (and agreed on) before
 * the first of them, so that no rank leaves one that others entered. */
typedef struct {
    int *ord;                   /* naut: the key's automata, most significant first */
    double *moves, *cost;       /* naut */
    int64_t *lo, *hi, *want;    /* size: the bisection */
    long long *cnt, *all;       /* size */
    int *sc, *sd, *rc, *rd;     /* size: the deal's counts and offsets */
} work;

static void work_free(work *w)
{
    free(w->ord);
    free(w->moves);
    free(w->lo);
    free(w->cnt);
    free(w->sc);
}

static int work_init(work *w, int naut, int P)
{
    memset(w, 0, sizeof *w);
    w->ord = malloc((naut + 1) * sizeof *w->ord);
    w->moves = malloc(2 * (naut + 1) * sizeof *w->moves);
    w->lo = malloc(3 * (size_t)P * sizeof *w->lo);
    w->cnt = malloc(2 * (size_t)P * sizeof *w->cnt);
    w->sc = malloc(4 * (size_t)P * sizeof *w->sc);
    if (!w->ord || !w->moves || !w->lo || !w->cnt || !w->sc)
        return -1;
    w->cost = w->moves + naut + 1;
    w->hi = w->lo + P;
    w->want = w->hi + P;
    w->all = w->cnt + P;
    w->sd = w->sc + P;
    w->rc = w->sd + P;
    w->rd = w->rc + P;
    return 0;
}

/* The key's order from the first pass's counts of moves, over every
 * rank: s->kstride[a] for every automaton, w->ord most significant
 * first.  Collective. */
static void key_order(dspace *s, work *w)
{
    const san_model *m = s->m;
    const int na = m->naut;
    int *ord = w->ord;
    MPI_Allreduce(s->moves, w->moves, na, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
    for (int a = 0; a < na; a++) {
        const int ns = m->aut[a].nstates;
        w->cost[a] = ns > 1 ? w->moves[a] / (ns - 1) : HUGE_VAL;
        ord[a] = a;
    }
    for (int k = 1; k < na; k++) {      /* insertion sort, stable: ties keep the model's order */
        const int a = ord[k];
        int p = k;
        for (; p > 0 && w->cost[ord[p - 1]] > w->cost[a]; p--)
            ord[p] = ord[p - 1];
        ord[p] = a;
    }
    int64_t stride = 1;
    for (int k = na - 1; k >= 0; k--) {
        s->kstride[ord[k]] = stride;
        stride *= m->aut[ord[k]].nstates;
    }
}

/* The product index of a key. */
static int64_t unkey(const san_model *m, const int *ord, int64_t key)
{
    int64_t idx = 0;
    for (int k = m->naut - 1; k >= 0; k--) {
        const int a = ord[k], ns = m->aut[a].nstates;
        idx += (key % ns) * m->stride[a];
        key /= ns;
    }
    return idx;
}

/* split[1..P-1] by bisection over the keys (v: this rank's, sorted);
 * split[0] = 0, split[P] = INT64_MAX.  Every rank holds the same lo and
 * hi, so every rank stops at the same step.  Collective. */
static void find_splitters(const dctx *c, const int64_t *v, int64_t nloc, work *w,
                           int64_t *split)
{
    const int P = c->size;
    long long mine[2] = { nloc, nloc ? v[nloc - 1] + 1 : 0 }, n = 0, top = 0;
    MPI_Allreduce(&mine[0], &n, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
    MPI_Allreduce(&mine[1], &top, 1, MPI_LONG_LONG, MPI_MAX, PETSC_COMM_WORLD);
    int64_t *lo = w->lo, *hi = w->hi, *want = w->want;
    /* invariant: below(lo[k]) <= want[k] < below(hi[k]); at the end
     * hi = lo + 1, so lo[k] is a state with exactly want[k] below it */
    for (int k = 1; k < P; k++) {
        want[k] = (int64_t)((__int128)k * n / P);
        lo[k] = 0;
        hi[k] = want[k] < n ? top : 1;
    }
    for (;;) {
        int open = 0;
        w->cnt[0] = 0;
        for (int k = 1; k < P; k++) {
            w->cnt[k] = 0;
            if (hi[k] - lo[k] > 1) {
                open = 1;
                w->cnt[k] = count_below(v, nloc, lo[k] + (hi[k] - lo[k]) / 2);
            }
        }
        if (!open)
            break;
        MPI_Allreduce(w->cnt, w->all, P, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
        for (int k = 1; k < P; k++)
            if (hi[k] - lo[k] > 1) {
                const int64_t mid = lo[k] + (hi[k] - lo[k]) / 2;
                if (w->all[k] <= want[k])
                    lo[k] = mid;
                else
                    hi[k] = mid;
            }
    }
    split[0] = 0;
    for (int k = 1; k < P; k++)
        split[k] = want[k] < n ? lo[k] : top;   /* fewer states than ranks: empty ranges */
    split[P] = INT64_MAX;
}

/* This rank's sorted keys sent to their range's owners; what comes
 * back, sorted, is the rank's new part (*got, *ngot).  The receive
 * buffer is held against the limit first, and every rank agrees on it
 * before anything moves.  0; -1 (memory), -3 (limit) on this rank; -4
 * on another.  Collective. */
static int deal(const dctx *c, dspace *s, work *w, int64_t **got, int64_t *ngot)
{
    const int P = c->size;
    for (int q = 0; q < P; q++) {
        const int64_t a = count_below(s->index, s->nloc, s->split[q]);
        const int64_t b = q + 1 < P ? count_below(s->index, s->nloc, s->split[q + 1]) : s->nloc;
        w->sd[q] = (int)a;
        w->sc[q] = (int)(b - a);
    }
    MPI_Alltoall(w->sc, 1, MPI_INT, w->rc, 1, MPI_INT, PETSC_COMM_WORLD);
    int64_t total = 0;
    for (int q = 0; q < P; q++) {
        w->rd[q] = (int)total;
        total += w->rc[q];
    }
    int rcode = 0;
    if ((s->need = dspace_bytes(s) + 8.0 * total) > c->limit)
        rcode = -3;
    int64_t *v = rcode ? NULL : malloc((total ? total : 1) * sizeof *v);
    if (!rcode && !v)
        rcode = -1;
    int any = 0;
    MPI_Allreduce(&rcode, &any, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
    if (any) {
        free(v);
        return rcode ? rcode : -4;
    }
    MPI_Alltoallv(s->index, w->sc, w->sd, MPI_INT64_T, v, w->rc, w->rd, MPI_INT64_T,
                  PETSC_COMM_WORLD);
    qsort(v, total, sizeof *v, by_index);   /* P sorted runs: cheap next to the rest */
    *got = v;
    *ngot = total;
    return 0;
}

/* The new part in place of the old: its keys become product indices
 * again, local number = position in the key's order; the map rebuilt;
 * the exit rates and the smallest relative rates made anew (the arcs'
 * pass fills them). */
static int adopt(const dctx *c, dspace *s, const int *ord, int64_t *v, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        v[k] = unkey(s->m, ord, v[k]);
    free(s->index);
    s->index = v;
    s->nloc = s->cap = n;
    free(s->exit);
    free(s->rel);
    s->exit = calloc(n ? n : 1, sizeof *s->exit);
    s->rel = malloc((n ? n : 1) * sizeof *s->rel);
    if (!s->exit || !s->rel)
        return -1;
    for (int64_t k = 0; k < n; k++)
        s->rel[k] = 1;
    return dspace_remap(c, s);
}

int dspace_remap(const dctx *c, dspace *s)
{
    idmap_free(&s->map);
    if (idmap_init(&s->map, s->m, (double)s->nloc, c->limit) < 0)
        return -1;
    for (int64_t k = 0; k < s->nloc; k++) {
        int fresh;
        if (idmap_get(&s->map, s->index[k], (int32_t)k, &fresh) < 0)
            return -1;
    }
    return 0;
}

san_status dpartition(const dctx *c, dspace *s, san_diag *d)
{
    char msg[512] = "";
    work w;
    san_status st = SAN_OK;
    free(s->split);
    free(s->kstride);
    s->split = malloc(((size_t)c->size + 1) * sizeof *s->split);
    s->kstride = malloc((s->m->naut + 1) * sizeof *s->kstride);
    if (work_init(&w, s->m->naut, c->size) < 0 || !s->split || !s->kstride) {
        snprintf(msg, sizeof msg, "rank %d: out of memory", c->rank);
        st = SAN_E_NOMEM;
    }
    if ((st = dagree(c, st, msg, d)) != SAN_OK) {
        work_free(&w);
        return st;
    }
    key_order(s, &w);
    for (int64_t k = 0; k < s->nloc; k++)   /* the indices become keys, sorted */
        s->index[k] = dspace_key(s, s->index[k]);
    qsort(s->index, s->nloc, sizeof *s->index, by_index);
    find_splitters(c, s->index, s->nloc, &w, s->split);
    int64_t *v = NULL, n = 0;
    const int rc = deal(c, s, &w, &v, &n);
    if (rc == -3) {
        char b1[32], b2[32];
        snprintf(msg, sizeof msg, "rank %d: dealing the states by ranges needs more than %s, "
                 "beyond --max-memory of %s for one rank; raise it or run more ranks", c->rank,
                 san_format_bytes(s->need, b1, sizeof b1), san_format_bytes(c->limit, b2, sizeof b2));
        st = SAN_E_LIMIT;
    } else if (rc == -1) {
        snprintf(msg, sizeof msg, "rank %d: out of memory while dealing the states", c->rank);
        st = SAN_E_NOMEM;
    }
    /* rc -4: another rank failed; its message is the agreement's */
    if (rc == 0 && adopt(c, s, w.ord, v, n) < 0) {
        snprintf(msg, sizeof msg, "rank %d: out of memory for its %lld states", c->rank,
                 (long long)n);
        st = SAN_E_NOMEM;
    }
    work_free(&w);
    return dagree(c, st, msg, d);
}
