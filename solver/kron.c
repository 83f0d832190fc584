/*
 * kron.c - the Kronecker descriptor of Q and the product y = x Q.
 *
 * The product is the shuffle algorithm turned inside out for what SAN
 * models look like (factors with one or two transitions per row,
 * functions of a few automata, reachable sets much smaller than the
 * product space).  The descriptor has one term per synchronizing event
 * and one per automaton for its local events together (the local matrix
 * of the classical tensor sum; see plan_terms for when a local event
 * keeps a term of its own).  Each term is one walk down the level tree
 * of the vector's states (see kron.h), in "pull" form: the walk follows
 * the DESTINATION state (the anchor) and, in parallel, the source state
 * (the other), which differs from it only at the participants' levels.
 * At a participant's level the walk takes each local transition into
 * the anchor's digit; elsewhere source and destination share the digit.
 * So every y entry is written by exactly one anchor path: the vector can
 * be cut into windows of leaves that threads fill independently, with
 * no atomics and no private copies of y.
 *
 * Functions (rates, routing probabilities) are tabulated once over the
 * automata they read (for a merged term, the automata any of its events
 * reads), in the table index the walk accumulates level by level: a
 * function is never evaluated during a product, only looked up (unless
 * its table would exceed TABLE_MAX entries: then it is evaluated at each
 * use, correct but slow).  Below the last level that matters to a term
 * (participants and dependencies), source and destination subtrees
 * coincide; where the tree is complete they are contiguous blocks, and
 * the term becomes y[block] += c * x[block].  Near the leaves of the
 * complete levels the walk stops at the region level and the term's
 * action inside a node is a list of runs built once (see "The bottom of
 * the tree"): long vector loops instead of one call per small node.
 *
 * Product space or reachable set: both are the same code.  The product
 * space is the tree with every level complete (implicit: no lookups,
 * the bottom levels done by runs); the reachable set is an explicit
 * tree, walked by merging sorted child lists (no runs unless its last
 * levels are complete).  Seconds per product y = x Q, min of 20 products
 * and of 3 runs, 2 threads on the shared 2-core machine (other jobs kept
 * its load at 1.5-2 during the runs); sparse = the CSR product with Q^T
 * of the sparse path, on the reachable states; in brackets, before the
 * merged local terms and the runs (same load, same build otherwise):
 *
 *   model          reachable / product    product          reachable     sparse
 *   rs N=20 R=6        60,460 / 1,048,576 0.0061  (0.125)  0.0123 (0.0133) 0.00017
 *   rs N=20 R=10      616,666 / 1,048,576 0.0069  (0.123)  0.108  (0.108)  0.0053
 *   ms async 8 sl.    498,820 /   807,003 0.0019  (0.0151) 0.0275 (0.0277) 0.0025
 *   pipeline 7 st.    499,121 /   531,441 0.00099 (0.0077) 0.0170 (0.0158) 0.0018
 *   tss.san        17,891,847 / same      0.071-0.085 (0.29-0.30) (same)   0.151
 *
 * With KRON_AUTO (fill >= KRON_PRODUCT_MIN_FILL: product space) the
 * last four are on the product space: 0.5 to 1.3 times the sparse
 * product (pipeline 0.55, tss 0.5, ms 0.8, rs R=10 1.3; single thread
 * 0.6, 0.57, 0.8, 1.2), 4 (tss) to 18 times faster than before.  On
 * tss.san that is for 43 times less memory (138 MiB with the diagonal,
 * against 6.0 GiB for Q and Q^T); single thread there: 0.146 s (was
 * 0.53; sparse 0.26).  The merge of local terms alone would have been
 * slower (tss 0.59 s against 0.54 single thread: the constant-rate
 * local events are walked down to the deepest level another local event
 * of the automaton reads); with the runs it saves 2-6% (tss, rs).
 *
 * Per state of the vector the explicit tree now costs 18 to 35 times the
 * implicit one (203 vs 5.8 ns on rs R=6, 55 vs 2.4 ns on ms): on time
 * alone the product space would win from a fill of about 1/20, as on rs
 * R=6 (0.0061 s on the product space, 0.0123 s on the tree, which auto
 * picks, and both far from the sparse product, whose Q fits in cache).
 * KRON_PRODUCT_MIN_FILL (kron.h) was set to 0.35 when the ratio was 2.7;
 * it is left there: below it the product space's vectors would be more
 * than 2.9 times the reachable ones, and memory is what the tree buys
 * (vectors of the reachable size, plus about 12 bytes a state for the
 * tree).  Lowering it is a memory-for-time trade not made here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "kron.h"
#include "linsolve.h"

/* Largest table of a function (entries); bigger ones are evaluated. */
#ifndef TABLE_MAX
#define TABLE_MAX (1L << 22)
#endif
/* Windows per thread (dynamic schedule smooths uneven subtrees), and
 * below this vector length a single window (no threads).  Windows are at
 * most about WINDOW_LEN states: every term sweeps its window of y,
 * which then stays in cache from one term to the next (546 windows
 * instead of 8 took tss.san's product from 0.286 to 0.243 s). */
#define WINDOWS_PER_THREAD 4
#define PARALLEL_MIN_N 20000
#ifndef WINDOW_LEN
#define WINDOW_LEN 32768
#endif
/* The region level: the first complete level whose nodes have at most
 * this many leaves (see "The bottom of the tree"). */
#ifndef REGION_MAX
#define REGION_MAX 4096
#endif

/* ------------------------------------------------------------------ */
/* The level tree                                                      */
/* ------------------------------------------------------------------ */

static void tree_free(kron_tree *t)
{
    if (t->first)
        for (int a = 0; a < t->naut; a++) {
            free(t->first[a]);
            free(t->val[a]);
        }
    free(t->first);
    free(t->val);
    free(t->nodes);
    free(t->bsize);
    free(t->ns);
    memset(t, 0, sizeof *t);
}

static int tree_alloc(kron_tree *t, const san_model *m)
{
    memset(t, 0, sizeof *t);
    int na = m->naut;
    t->naut = na;
    t->ns = malloc((na + 1) * sizeof *t->ns);
    t->nodes = calloc(na + 1, sizeof *t->nodes);
    t->bsize = calloc(na + 1, sizeof *t->bsize);
    t->first = calloc(na + 1, sizeof *t->first);
    t->val = calloc(na + 1, sizeof *t->val);
    if (!t->ns || !t->nodes || !t->bsize || !t->first || !t->val)
        return -1;
    for (int a = 0; a < na; a++)
        t->ns[a] = m->aut[a].nstates;
    t->bsize[na] = 1;
    for (int a = na - 1; a >= 0; a--)
        t->bsize[a] = t->bsize[a + 1] * t->ns[a];
    return 0;
}

/* The product space: every level complete. */
static int tree_product(kron_tree *t, const san_model *m)
{
    if (tree_alloc(t, m) < 0)
        return -1;
    t->F = 0;
    t->nodes[0] = 1;
    for (int a = 0; a < t->naut; a++)
        t->nodes[a + 1] = t->nodes[a] * t->ns[a];
    t->bytes = 0;
    return 0;
}

/* LSD radix sort of n keys, 16 bits a pass, as many passes as needed. */
static int sort_keys(int64_t *k, int64_t n, int64_t maxkey)
{
    int64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    int64_t *cnt = malloc((1 << 16) * sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return -1;
    }
    int64_t *a = k, *b = tmp;
    for (int sh = 0; sh < 64 && (maxkey >> sh) > 0; sh += 16) {
        memset(cnt, 0, (1 << 16) * sizeof *cnt);
        for (int64_t i = 0; i < n; i++)
            cnt[(a[i] >> sh) & 0xffff]++;
        int64_t s = 0;
        for (int i = 0; i < (1 << 16); i++) {
            int64_t c = cnt[i];
            cnt[i] = s;
            s += c;
        }
        for (int64_t i = 0; i < n; i++)
            b[cnt[(a[i] >> sh) & 0xffff]++] = a[i];
        int64_t *sw = a;
        a = b;
        b = sw;
    }
    if (a != k)
        memcpy(k, a, n * sizeof *k);
    free(tmp);
    free(cnt);
    return 0;
}

static inline int digit(const san_model *m, int64_t idx, int a)
{
    return (int)((idx / m->stride[a]) % m->aut[a].nstates);
}

/* First level where sorted state i differs from state i-1 (0 for i = 0). */
static inline int diff_level(const san_model *m, const int64_t *k, int64_t i)
{
    if (i == 0)
        return 0;
    int a = 0;
    while (a < m->naut - 1 && digit(m, k[i], a) == digit(m, k[i - 1], a))
        a++;
    return a;
}

/* Counts the nodes of every level; F = first level from which all are
 * complete. */
static void tree_count(kron_tree *t, const san_model *m, const int64_t *k,
                       int64_t n)
{
    int na = t->naut;
    t->nodes[0] = 1;
    for (int64_t i = 0; i < n; i++)
        for (int a = diff_level(m, k, i); a < na; a++)
            t->nodes[a + 1]++;
    t->F = na;
    while (t->F > 0 && t->nodes[t->F] == t->nodes[t->F - 1] * t->ns[t->F - 1])
        t->F--;
}

/* Children lists of the explicit levels (a < F) from the sorted states. */
static int tree_fill(kron_tree *t, const san_model *m, const int64_t *k,
                     int64_t n)
{
    int F = t->F;
    int64_t *cur = calloc(F + 1, sizeof *cur), *cnt = calloc(F + 1, sizeof *cnt);
    int ok = cur && cnt;
    for (int a = 0; ok && a < F; a++) {
        t->first[a] = calloc(t->nodes[a] + 1, sizeof **t->first);
        t->val[a] = malloc((t->nodes[a + 1] ? t->nodes[a + 1] : 1) * sizeof **t->val);
        ok = t->first[a] && t->val[a];
        if (ok)
            t->bytes += 8.0 * (t->nodes[a] + 1) + 4.0 * t->nodes[a + 1];
    }
    for (int64_t i = 0; ok && i < n; i++)
        for (int a = diff_level(m, k, i); a < F; a++) {
            int64_t id = cnt[a + 1]++;
            t->val[a][id] = digit(m, k[i], a);
            t->first[a][cur[a] + 1]++;
            cur[a + 1] = id;
        }
    for (int a = 0; ok && a < F; a++)
        for (int64_t j = 0; j < t->nodes[a]; j++)
            t->first[a][j + 1] += t->first[a][j];
    free(cur);
    free(cnt);
    return ok ? 0 : -1;
}

/* *keys (when not NULL) receives the sorted indices: leaf -> state. */
static int tree_reachable(kron_tree *t, const san_space *sp, int64_t **keys)
{
    const san_model *m = sp->m;
    if (tree_alloc(t, m) < 0)
        return -1;
    int64_t *k = malloc((sp->n ? sp->n : 1) * sizeof *k);
    if (!k)
        return -1;
    memcpy(k, sp->index, sp->n * sizeof *k);
    int rc = sort_keys(k, sp->n, m->product - 1);
    if (rc == 0) {
        tree_count(t, m, k, sp->n);
        rc = tree_fill(t, m, k, sp->n);
    }
    if (keys && rc == 0)
        *keys = k;
    else
        free(k);
    return rc;
}

/* Child of node k of level a with value v, or -1. */
static inline int64_t tree_child(const kron_tree *t, int a, int64_t k, int v)
{
    if (a >= t->F)
        return k * t->ns[a] + v;
    const int64_t lo = t->first[a][k], hi = t->first[a][k + 1];
    if (lo >= hi)
        return -1;
    const int32_t *val = t->val[a];
    const int v0 = val[lo];
    if (val[hi - 1] - v0 == hi - 1 - lo)
        return v >= v0 && v - v0 < hi - lo ? lo + (v - v0) : -1;
    int64_t l = lo, h = hi - 1;
    while (l <= h) {
        int64_t mid = l + (h - l) / 2;
        if (val[mid] == v)
            return mid;
        if (val[mid] < v)
            l = mid + 1;
        else
            h = mid - 1;
    }
    return -1;
}

/* First leaf below node k of level a (k may be nodes[a]: the end). */
static int64_t tree_leaf(const kron_tree *t, int a, int64_t k)
{
    for (; a < t->F; a++)
        k = t->first[a][k];
    return k * t->bsize[a];
}

int64_t kron_tree_rank(const kron_tree *t, const san_model *m, int64_t idx)
{
    int64_t k = 0;
    if (t->F == 0)
        return idx;
    for (int a = 0; a < m->naut && k >= 0; a++)
        k = tree_child(t, a, k, digit(m, idx, a));
    return k;
}

int64_t kron_rank(const kron_desc *d, int64_t idx)
{
    return kron_tree_rank(&d->tree, d->m, idx);
}

int kron_tree_build(kron_tree *t, const san_space *sp, int product)
{
    int rc = product || sp->n == sp->m->product ? tree_product(t, sp->m)
                                                : tree_reachable(t, sp, NULL);
    if (rc)
        tree_free(t);
    return rc;
}

void kron_tree_free(kron_tree *t)
{
    tree_free(t);
}

/* ------------------------------------------------------------------ */
/* Event terms                                                         */
/* ------------------------------------------------------------------ */

/* Tables are shared by terms whose function and dependencies match
 * (replicated automata share their rate expressions). */
typedef struct {
    const san_expr *e;
    const int64_t *dstride;     /* NULL: a table per state */
    int64_t size;
    double *tab;
} tab_key;

typedef struct {
    tab_key *v;
    int n, cap;
    const int64_t *keys;        /* leaf -> mixed-radix index (NULL: same) */
    int64_t nleaves;
} tab_cache;

/* A function of every automaton (rs.san's nb using < R) has a table as
 * big as the product space; but when it is read at the last level, the
 * source state is a leaf, and one value per leaf is enough. */
static double *table_per_state(const san_model *m, const san_expr *e, const tab_cache *tc)
{
    double *tab = malloc((tc->nleaves ? tc->nleaves : 1) * sizeof *tab);
    int *s = calloc(m->naut + 1, sizeof *s);
    if (tab && s)
        for (int64_t i = 0; i < tc->nleaves; i++) {
            san_state_decode(m, tc->keys ? tc->keys[i] : i, s);
            tab[i] = san_expr_eval(e, s);
        }
    free(s);
    return tab;
}

static int cache_put(tab_cache *tc, tab_key k)
{
    if (tc->n == tc->cap) {
        int cap = tc->cap ? 2 * tc->cap : 16;
        tab_key *v = realloc(tc->v, cap * sizeof *v);
        if (!v)
            return -1;
        tc->v = v;
        tc->cap = cap;
    }
    tc->v[tc->n++] = k;
    return 0;
}

static double *table_build(const san_model *m, const san_expr *e,
                           const int64_t *dstride, int64_t size)
{
    double *tab = malloc(size * sizeof *tab);
    int *s = calloc(m->naut + 1, sizeof *s);
    if (!tab || !s) {
        free(tab);
        free(s);
        return NULL;
    }
    for (int64_t i = 0; i < size; i++) {
        tab[i] = san_expr_eval(e, s);
        for (int a = m->naut - 1; a >= 0; a--) {
            if (!dstride[a])
                continue;
            if (++s[a] < m->aut[a].nstates)
                break;
            s[a] = 0;
        }
    }
    free(s);
    return tab;
}

/* A constant, a shared table, or (too big) the expression itself. */
static int fn_make(kron_fn *f, const san_expr *e, const kron_term *t,
                   int64_t size, tab_cache *tc, const san_model *m)
{
    memset(f, 0, sizeof *f);
    if (!e || san_expr_is_const(e)) {
        f->c = e ? san_expr_const(e) : 1.0;
        return 0;
    }
    int per_state = size > TABLE_MAX && t->L == m->naut - 1 && size > tc->nleaves;
    if (size > TABLE_MAX && !per_state) {
        f->e = e;
        return 0;
    }
    for (int i = 0; i < tc->n; i++)
        if (tc->v[i].e == e && (per_state ? !tc->v[i].dstride : tc->v[i].dstride &&
                                !memcmp(tc->v[i].dstride, t->dstride, m->naut * sizeof *t->dstride))) {
            *(per_state ? &f->pst : &f->tab) = tc->v[i].tab;
            return 0;
        }
    double *tab = per_state ? table_per_state(m, e, tc) : table_build(m, e, t->dstride, size);
    if (!tab || cache_put(tc, (tab_key){ e, per_state ? NULL : t->dstride,
                                         per_state ? tc->nleaves : size, tab }) < 0) {
        free(tab);
        return -1;
    }
    *(per_state ? &f->pst : &f->tab) = tab;
    return 0;
}

static void mark_deps(kron_term *t, const san_expr *e)
{
    if (!e || san_expr_is_const(e))
        return;
    int nd;
    const int *dep = san_expr_deps(e, &nd);
    for (int i = 0; i < nd; i++)
        if (t->kind[dep[i]] == KRON_FREE)
            t->kind[dep[i]] = KRON_DEP;
        else if (t->kind[dep[i]] >= 0)
            t->dstride[dep[i]] = -1;    /* participant read by a function */
}

/* Position of event e among the term's events, or -1. */
static inline int term_index(const kron_term *t, int e)
{
    for (int i = 0; i < t->nev; i++)
        if (t->evs[i] == e)
            return i;
    return -1;
}

/* Levels: participants, dependencies (of every event of the term);
 * table strides; L.  Returns the size of the term's tables (past
 * TABLE_MAX: some size beyond it). */
static int64_t term_levels(kron_term *t, const san_model *m)
{
    const san_event *E = &m->ev[t->ev];
    for (int a = 0; a < m->naut; a++) {
        t->kind[a] = KRON_FREE;
        t->dstride[a] = 0;
    }
    for (int k = 0; k < E->nparts; k++)
        t->kind[E->parts[k]] = k;
    for (int i = 0; i < t->nev; i++)
        mark_deps(t, m->ev[t->evs[i]].rate);
    for (int k = 0; k < E->nparts; k++) {
        const san_automaton *A = &m->aut[E->parts[k]];
        for (int i = 0; i < A->ntr; i++)
            if (term_index(t, A->tr[i].event) >= 0)
                mark_deps(t, A->tr[i].prob);
    }
    int64_t size = 1;
    t->L = 0;
    for (int a = m->naut - 1; a >= 0; a--) {
        int dep = t->kind[a] == KRON_DEP || t->dstride[a] == -1;
        t->dstride[a] = dep ? size : 0;
        if (dep)
            size = size > TABLE_MAX ? size : size * m->aut[a].nstates;
    }
    for (int a = 0; a < m->naut; a++)
        if (t->kind[a] != KRON_FREE)
            t->L = a;
    return size;
}

/* The moves of participant k, by destination (in) and by source (out).
 * rfn[i], rc[i]: the functional rate (index into fprob) and constant
 * factor that the moves of the term's i-th event carry (-1 and 1 but in
 * merged terms).  With one participant, a self-loop is no move at all
 * (the walk would skip it: nothing moved). */
static int term_part(kron_term *t, const san_model *m, int k, int64_t size,
                     tab_cache *tc, const int32_t *rfn, const double *rc)
{
    const san_automaton *A = &m->aut[m->ev[t->ev].parts[k]];
    int ns = A->nstates, nm = 0, put = 0;
    kron_part *in = &t->in[k], *out = &t->out[k];
    in->ptr = calloc(ns + 2, sizeof *in->ptr);
    out->ptr = calloc(ns + 2, sizeof *out->ptr);
    for (int i = 0; i < A->ntr; i++)
        nm += term_index(t, A->tr[i].event) >= 0;
    in->mv = malloc((nm + 1) * sizeof *in->mv);
    out->mv = malloc((nm + 1) * sizeof *out->mv);
    kron_fn *fp = realloc(t->fprob, (t->nfp + nm + 1) * sizeof *fp);
    if (fp)
        t->fprob = fp;
    if (!in->ptr || !out->ptr || !in->mv || !out->mv || !fp)
        return -1;
    for (int u = 0; u < ns; u++)
        for (int i = A->first[u]; i < A->first[u + 1]; i++) {
            const san_trans *tr = &A->tr[i];
            const int j = term_index(t, tr->event);
            if (j < 0 || (t->np == 1 && tr->to == u))
                continue;
            kron_move mv = { 0, -1, rfn[j], rc[j] };
            if (tr->prob && !san_expr_is_const(tr->prob)) {
                if (fn_make(&t->fprob[t->nfp], tr->prob, t, size, tc, m) < 0)
                    return -1;
                mv.fp = t->nfp++;
            } else if (tr->prob) {
                mv.p *= san_expr_const(tr->prob);
            }
            if (mv.p == 0)
                continue;       /* dropped, as on the sparse path */
            mv.other = tr->to;
            out->mv[put++] = mv;
            out->ptr[u + 1]++;
            in->ptr[tr->to + 1]++;
        }
    for (int u = 0; u < ns; u++) {
        out->ptr[u + 1] += out->ptr[u];
        in->ptr[u + 1] += in->ptr[u];
    }
    /* in: the same moves regrouped by destination, other = source */
    int32_t *pos = malloc((ns + 1) * sizeof *pos);
    if (!pos)
        return -1;
    memcpy(pos, in->ptr, (ns + 1) * sizeof *pos);
    for (int u = 0; u < ns; u++)
        for (int32_t j = out->ptr[u]; j < out->ptr[u + 1]; j++) {
            kron_move mv = out->mv[j];
            int w = mv.other;
            mv.other = u;
            in->mv[pos[w]++] = mv;
        }
    free(pos);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The bottom of the tree                                              */
/* ------------------------------------------------------------------ */

/* Near the leaves the walk would spend its time on small nodes: a level
 * of n_a values costs a call and a few loads for n_a updates.  So below
 * the region level (the first complete level whose nodes have at most
 * REGION_MAX leaves) a term is not walked: its action inside one node,
 * the same for every node up to the functions' values, is listed once
 * at build time as runs of updates
 *
 *     y[r + i rs] += p * f(di + o + i os) * x[s + i rs],   i < len
 *
 * (leaf offsets within the anchor and source nodes, table offsets o
 * from the region's levels added to the walk's di, f the product of the
 * term's functions at that index), and the walk above the region level
 * calls them for each node it reaches.  A run is usually long: a whole
 * node when no participant is below the region level, a stride of the
 * participant's level otherwise.  Runs are grouped by the functions
 * their moves carry and by whether a participant of the region moves
 * (if none does, the run counts only when a participant above moved). */

typedef struct {
    int32_t r, s, len, rs;
    int64_t o, os;
    double p;
} kron_run;

typedef struct {
    int moving;             /* some participant of the region moves */
    int nfn;
    int32_t *fn;            /* the moves' functions: indices into fprob */
    int nrun, nrun0;
    kron_run *run;          /* with the functions' table offsets */
    kron_run *run0;         /* the same updates, offsets ignored (when a
                               call has no function: longer runs) */
} kron_rgroup;

struct kron_region {
    int ng;
    kron_rgroup *g;
    char *above;            /* per participant: its level is above the
                               region level (its move comes from the walk) */
    int any_moving;
    double bytes;
};

static void region_free(struct kron_region *R)
{
    if (!R)
        return;
    for (int i = 0; i < R->ng; i++) {
        free(R->g[i].fn);
        free(R->g[i].run);
        free(R->g[i].run0);
    }
    free(R->g);
    free(R->above);
    free(R);
}

typedef struct {
    int32_t r, s;
    int64_t o;
    double p;
    int grp;
} rentry;

static int rentry_cmp(const void *a, const void *b)
{
    const rentry *x = a, *y = b;
    if (x->grp != y->grp)
        return x->grp < y->grp ? -1 : 1;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    if (x->r != y->r)
        return x->r < y->r ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

/* Runs of the sorted entries e[0 .. n-1] (one group), greedily: a run
 * extends while leaves (and table offsets, if use_o) keep their steps. */
static kron_run *make_runs(const rentry *e, int64_t n, int use_o, int *nrun)
{
    kron_run *v = malloc((n ? n : 1) * sizeof *v);
    int nr = 0;
    if (!v)
        return NULL;
    for (int64_t i = 0; i < n;) {
        kron_run R = { e[i].r, e[i].s, 1, 1, e[i].o, 0, e[i].p };
        int64_t j = i + 1;
        if (j < n && e[j].p == R.p && e[j].r > R.r && e[j].s - R.s == e[j].r - R.r) {
            R.rs = e[j].r - R.r;
            R.os = use_o ? e[j].o - R.o : 0;
            for (R.len = 2, j++; j < n && e[j].p == R.p; R.len++, j++) {
                const int64_t k = R.len;
                if (e[j].r != R.r + k * R.rs || e[j].s != R.s + k * R.rs ||
                    (use_o && e[j].o != R.o + k * R.os))
                    break;
            }
        }
        v[nr++] = R;
        i = j;
    }
    *nrun = nr;
    kron_run *w = realloc(v, (nr ? nr : 1) * sizeof *v);
    return w ? w : v;
}

/* The runs of term t inside one node of the region level (t->rg stays
 * NULL when the walk never reaches it, or when a function is evaluated
 * rather than looked up). */
static int term_region(kron_term *t, const kron_desc *d, const san_model *m)
{
    const kron_tree *tr = &d->tree;
    const int c0 = d->rlev, na = m->naut;
    if (c0 >= na || t->np == 0 || t->L < c0 || t->rate.e)
        return 0;
    for (int i = 0; i < t->nfp; i++)
        if (t->fprob[i].e)
            return 0;
    const int64_t B = tr->bsize[c0];
    int npr = 0, ncls = 0, capcls = 8, rc = -1;
    int64_t ne = 0, cape = B + 16;
    int *lev = malloc((t->np + 1) * sizeof *lev);
    int *idx = malloc((t->np + 1) * sizeof *idx);
    int *w = malloc((na + 1) * sizeof *w), *src = malloc((na + 1) * sizeof *src);
    int32_t *tup = malloc((2 * t->np + 1) * sizeof *tup);
    int32_t *cls = malloc(capcls * (2 * t->np + 1) * sizeof *cls);
    rentry *e = malloc(cape * sizeof *e);
    struct kron_region *R = calloc(1, sizeof *R);
    if (!lev || !idx || !w || !src || !tup || !cls || !e || !R)
        goto out;
    R->above = calloc(t->np + 1, 1);
    if (!R->above)
        goto out;
    for (int b = 0; b < na; b++)
        if (t->kind[b] >= 0) {
            if (b >= c0)
                lev[npr++] = b;
            else
                R->above[t->kind[b]] = 1;
        }
    const int tl = 2 * npr;
    for (int64_t r = 0; r < B; r++) {
        int ok = 1;
        for (int b = c0; b < na; b++)
            w[b] = (int)((r / tr->bsize[b + 1]) % tr->ns[b]);
        for (int j = 0; j < npr; j++) {
            const kron_part *P = &t->in[t->kind[lev[j]]];
            idx[j] = P->ptr[w[lev[j]]];
            ok &= idx[j] < P->ptr[w[lev[j]] + 1];
        }
        while (ok) {
            double pp = 1;
            int moving = 0;
            for (int b = c0; b < na; b++)
                src[b] = w[b];
            for (int j = 0; j < npr; j++) {
                const kron_move *mv = &t->in[t->kind[lev[j]]].mv[idx[j]];
                src[lev[j]] = mv->other;
                pp *= mv->p;
                tup[2 * j] = mv->fp;
                tup[2 * j + 1] = mv->fr;
                moving |= mv->other != w[lev[j]];
            }
            int64_t sr = 0, o = 0;
            for (int b = c0; b < na; b++) {
                sr += src[b] * tr->bsize[b + 1];
                o += src[b] * t->dstride[b];
            }
            int k = 0;
            while (k < ncls && memcmp(cls + (size_t)k * tl, tup, tl * sizeof *tup))
                k++;
            if (k == ncls) {
                if (ncls == capcls) {
                    int32_t *v = realloc(cls, 2 * capcls * (tl + 1) * sizeof *cls);
                    if (!v)
                        goto out;
                    cls = v;
                    capcls *= 2;
                }
                memcpy(cls + (size_t)ncls++ * tl, tup, tl * sizeof *tup);
            }
            if (ne == cape) {
                rentry *v = realloc(e, 2 * cape * sizeof *e);
                if (!v)
                    goto out;
                e = v;
                cape *= 2;
            }
            e[ne++] = (rentry){ (int32_t)r, (int32_t)sr, o, pp, 2 * k + !moving };
            int j = npr - 1;        /* the next combination of moves */
            for (; j >= 0; j--) {
                const kron_part *P = &t->in[t->kind[lev[j]]];
                if (++idx[j] < P->ptr[w[lev[j]] + 1])
                    break;
                idx[j] = P->ptr[w[lev[j]]];
            }
            if (j < 0)
                break;
        }
    }
    qsort(e, ne, sizeof *e, rentry_cmp);
    R->g = calloc(2 * ncls + 1, sizeof *R->g);
    if (!R->g)
        goto out;
    R->bytes = sizeof *R;
    for (int64_t i = 0; i < ne;) {
        int64_t j = i;
        while (j < ne && e[j].grp == e[i].grp)
            j++;
        kron_rgroup *G = &R->g[R->ng++];
        const int32_t *ct = cls + (size_t)(e[i].grp / 2) * tl;
        G->moving = !(e[i].grp & 1);
        R->any_moving |= G->moving;
        G->fn = malloc((tl + 1) * sizeof *G->fn);
        if (!G->fn)
            goto out;
        for (int q = 0; q < tl; q++)
            if (ct[q] >= 0)
                G->fn[G->nfn++] = ct[q];
        G->run = make_runs(e + i, j - i, 1, &G->nrun);
        G->run0 = make_runs(e + i, j - i, 0, &G->nrun0);
        if (!G->run || !G->run0)
            goto out;
        R->bytes += sizeof *G + 4.0 * tl + sizeof(kron_run) * (G->nrun + G->nrun0);
        i = j;
    }
    t->rg = R;
    R = NULL;
    rc = 0;
out:
    region_free(R);
    free(lev);
    free(idx);
    free(w);
    free(src);
    free(tup);
    free(cls);
    free(e);
    return rc;
}

static void term_free(kron_term *t)
{
    for (int k = 0; t->in && k < t->np; k++) {
        free(t->in[k].ptr);
        free(t->in[k].mv);
        free(t->out[k].ptr);
        free(t->out[k].mv);
    }
    free(t->in);
    free(t->out);
    free(t->kind);
    free(t->dstride);
    free(t->fprob);
    free(t->evs);
    region_free(t->rg);
}

/* The term of events evs[0 .. nev-1]: one event, or local events of one
 * automaton merged (plan_terms).  A merged term's rate is 1; each move
 * carries its event's rate, folded into p when constant. */
static int term_build(kron_term *t, const san_model *m, const int *evs, int nev,
                      tab_cache *tc)
{
    memset(t, 0, sizeof *t);
    t->ev = evs[0];
    t->nev = nev;
    t->np = m->ev[t->ev].nparts;
    t->evs = malloc(nev * sizeof *t->evs);
    t->kind = malloc(m->naut * sizeof *t->kind);
    t->dstride = calloc(m->naut, sizeof *t->dstride);
    t->in = calloc(t->np + 1, sizeof *t->in);
    t->out = calloc(t->np + 1, sizeof *t->out);
    int32_t *rfn = malloc(nev * sizeof *rfn);
    double *rc = malloc(nev * sizeof *rc);
    int rcode = -1;
    if (!t->evs || !t->kind || !t->dstride || !t->in || !t->out || !rfn || !rc)
        goto out;
    memcpy(t->evs, evs, nev * sizeof *evs);
    int64_t size = term_levels(t, m);
    for (int i = 0; i < nev; i++) {
        rfn[i] = -1;
        rc[i] = 1;
    }
    if (nev == 1) {
        if (fn_make(&t->rate, m->ev[t->ev].rate, t, size, tc, m) < 0)
            goto out;
    } else {
        fn_make(&t->rate, NULL, t, size, tc, m);        /* the constant 1 */
        t->fprob = malloc(nev * sizeof *t->fprob);
        if (!t->fprob)
            goto out;
        for (int i = 0; i < nev; i++) {
            const san_expr *r = m->ev[evs[i]].rate;
            if (!r || san_expr_is_const(r)) {
                rc[i] = r ? san_expr_const(r) : 1.0;
                continue;
            }
            if (fn_make(&t->fprob[t->nfp], r, t, size, tc, m) < 0)
                goto out;
            rfn[i] = t->nfp++;
        }
    }
    rcode = 0;
    for (int k = 0; rcode == 0 && k < t->np; k++)
        rcode = term_part(t, m, k, size, tc, rfn, rc);
out:
    free(rfn);
    free(rc);
    return rcode;
}

/* Which events make one term.  Every event is a term of its own, except
 * the local events of an automaton (events with one participant: a
 * synchronizing event with a single participant is a local one for Q):
 * those are merged into one term, in event order, as long as the merged term's tables (over the union of
 * their dependencies) stay within TABLE_MAX entries; an event that would
 * make them bigger keeps a term of its own, so that no function loses
 * its table to the merge.  tev receives the events term by term (term i:
 * tev[tstart[i] .. tstart[i+1])), terms in the order of their first
 * events.  Returns the number of terms, or -1 (out of memory). */
static int plan_terms(const san_model *m, int *tev, int *tstart)
{
    char *done = calloc(m->nev + 1, 1);
    kron_term g = { 0 };
    g.kind = malloc((m->naut + 1) * sizeof *g.kind);
    g.dstride = malloc((m->naut + 1) * sizeof *g.dstride);
    int nt = -1;
    if (!done || !g.kind || !g.dstride)
        goto out;
    int put = 0;
    nt = 0;
    for (int e = 0; e < m->nev; e++) {
        if (done[e])
            continue;
        tstart[nt++] = put;
        tev[put++] = e;
        done[e] = 1;
        if (m->ev[e].nparts != 1)
            continue;
        const int a = m->ev[e].parts[0];
        g.ev = e;
        g.evs = tev + tstart[nt - 1];
        for (int f = e + 1; f < m->nev; f++) {
            if (done[f] || m->ev[f].nparts != 1 || m->ev[f].parts[0] != a)
                continue;
            tev[put] = f;       /* tried as the group's next event */
            g.nev = put + 1 - tstart[nt - 1];
            if (term_levels(&g, m) <= TABLE_MAX) {
                done[f] = 1;
                put++;
            }
        }
    }
    tstart[nt] = put;
out:
    free(done);
    free(g.kind);
    free(g.dstride);
    return nt;
}

static double term_bytes(const kron_term *t, const san_model *m)
{
    double b = sizeof *t + (4.0 + 8.0) * m->naut + 4.0 * t->nev;
    for (int k = 0; k < t->np; k++) {
        int ns = m->aut[m->ev[t->ev].parts[k]].nstates;
        b += 2 * (4.0 * (ns + 2) + sizeof(kron_move) * t->in[k].ptr[ns]);
    }
    return b + sizeof(kron_fn) * t->nfp + (t->rg ? t->rg->bytes : 0);
}

/* ------------------------------------------------------------------ */
/* The walk                                                            */
/* ------------------------------------------------------------------ */

typedef struct {
    const kron_desc *d;
    const kron_term *t;
    const double *x;        /* NULL: exit rates (anchor = source) */
    double *y;
    int64_t lo, hi;         /* the window of anchor leaves */
    int *src;               /* digits of the source state */
    int *fsel;              /* per participant: fp of the chosen move */
    int *rsel;              /* per participant: fr of the chosen move */
    double *cv;             /* coefficients of one level's values */
} kctx;

static inline double fn_at(const kron_fn *f, int64_t di, int64_t sr, const int *src)
{
    if (f->tab)
        return f->tab[di];
    if (f->pst)
        return f->pst[sr];
    return f->e ? san_expr_eval(f->e, src) : f->c;
}

/* sr: the source's leaf, when the path has reached the leaves. */
static inline double coef_at(const kctx *c, int64_t di, int64_t sr, double cp)
{
    const kron_term *t = c->t;
    double v = cp * fn_at(&t->rate, di, sr, c->src);
    for (int k = 0; k < t->np; k++) {
        if (c->fsel[k] >= 0)
            v *= fn_at(&t->fprob[c->fsel[k]], di, sr, c->src);
        if (c->rsel[k] >= 0)
            v *= fn_at(&t->fprob[c->rsel[k]], di, sr, c->src);
    }
    return v;
}

/* Is node k of level a outside the window?  Exact on complete levels,
 * through the node's first leaves on the split level. */
static inline int outside(const kctx *c, int a, int64_t k)
{
    const kron_tree *t = &c->d->tree;
    int64_t lo, hi;
    if (a >= t->F) {
        lo = k * t->bsize[a];
        hi = lo + t->bsize[a];
    } else if (a == c->d->split) {
        lo = tree_leaf(t, a, k);
        hi = tree_leaf(t, a, k + 1);
    } else {
        return 0;
    }
    return hi <= c->lo || lo >= c->hi;
}

static void tail_explicit(kctx *c, int b, int64_t ac, int64_t oc, double v);

/* Below the event's last level: destination and source subtrees have the
 * same shape where the tree is complete (one block each). */
static inline void tail(kctx *c, int b, int64_t ac, int64_t oc, double v)
{
    const kron_tree *t = &c->d->tree;
    if (b < t->F) {
        tail_explicit(c, b, ac, oc, v);
        return;
    }
    const int64_t B = t->bsize[b], alo = ac * B;
    const int64_t lo = alo > c->lo ? alo : c->lo;
    const int64_t hi = alo + B < c->hi ? alo + B : c->hi;
    double *restrict y = c->y;
    if (c->x) {
        const double *restrict x = c->x + (oc * B - alo);
        SAN_OMP(omp simd)
        for (int64_t i = lo; i < hi; i++)
            y[i] += v * x[i];
    } else {
        for (int64_t i = lo; i < hi; i++)
            y[i] += v;
    }
}

/* The same below an explicit level: the source subtree may lack some of
 * the destination's states (unreachable sources: nothing to pull). */
static void tail_explicit(kctx *c, int b, int64_t ac, int64_t oc, double v)
{
    const kron_tree *t = &c->d->tree;
    if (b == c->d->split && outside(c, b, ac))
        return;
    const int32_t *val = t->val[b];
    int64_t o = c->x ? t->first[b][oc] : 0, o1 = c->x ? t->first[b][oc + 1] : 0;
    for (int64_t cc = t->first[b][ac]; cc < t->first[b][ac + 1]; cc++) {
        if (c->x) {     /* merge the sorted child lists */
            while (o < o1 && val[o] < val[cc])
                o++;
            if (o == o1)
                return;
            if (val[o] != val[cc])
                continue;
        }
        tail(c, b + 1, cc, o, v);
    }
}

/* Anchor children of node an of level a: ids [*c0, *c1), values from v0
 * (complete level) or from val[a]. */
static inline void children(const kron_tree *t, int a, int64_t an,
                            int64_t *c0, int64_t *c1)
{
    if (a >= t->F) {
        *c0 = an * t->ns[a];
        *c1 = *c0 + t->ns[a];
    } else {
        *c0 = t->first[a][an];
        *c1 = t->first[a][an + 1];
    }
}


/* The path so far: table index, product of constant probabilities,
 * whether some participant moved (a self-loop changes nothing). */
typedef struct {
    int64_t di;
    double cp;
    int moved;
} kpath;

static void visit(kctx *c, int a, int64_t an, int64_t on, const kpath *p);

/* cv[w] *= f at the table index di + w * ds, w < n (src[a] = w). */
static void fn_scale(double *restrict cv, int n, const kron_fn *f, int64_t di,
                     int64_t ds, int64_t s0, kctx *c, int a)
{
    if (f->pst) {
        for (int w = 0; w < n; w++)
            cv[w] *= f->pst[s0 + w];
    } else if (f->tab) {
        const double *restrict tab = f->tab + di;
        if (ds == 1) {
            SAN_OMP(omp simd)
            for (int w = 0; w < n; w++)
                cv[w] *= tab[w];
        } else {
            for (int w = 0; w < n; w++)
                cv[w] *= tab[w * ds];
        }
    } else if (f->e) {
        for (int w = 0; w < n; w++) {
            c->src[a] = w;
            cv[w] *= san_expr_eval(f->e, c->src);
        }
    } else if (f->c != 1) {
        for (int w = 0; w < n; w++)
            cv[w] *= f->c;
    }
}

/* The last level when it is complete, not a participant, and the node
 * lies inside the window: source and destination digits coincide, so
 * the coefficients of all its values come from strided table reads, and
 * the update is one pass over n_a blocks (one loop when blocks are
 * single states, as when the last automaton is read by a function). */
static void last_level_fast(kctx *c, int a, int64_t an, int64_t on, const kpath *p)
{
    const kron_tree *t = &c->d->tree;
    const kron_term *tm = c->t;
    const int n = t->ns[a];
    const int64_t ds = tm->dstride[a], B = t->bsize[a + 1];
    double *restrict cv = c->cv;
    for (int w = 0; w < n; w++)
        cv[w] = p->cp;
    const int64_t s0 = (c->x ? on : an) * n;    /* source leaves, if leaves */
    fn_scale(cv, n, &tm->rate, p->di, ds, s0, c, a);
    for (int k = 0; k < tm->np; k++) {
        if (c->fsel[k] >= 0)
            fn_scale(cv, n, &tm->fprob[c->fsel[k]], p->di, ds, s0, c, a);
        if (c->rsel[k] >= 0)
            fn_scale(cv, n, &tm->fprob[c->rsel[k]], p->di, ds, s0, c, a);
    }
    double *restrict y = c->y + an * n * B;
    if (!c->x) {
        for (int w = 0; w < n; w++)
            for (int64_t r = 0; r < B; r++)
                y[w * B + r] += cv[w];
        return;
    }
    const double *restrict x = c->x + on * n * B;
    if (B == 1) {
        SAN_OMP(omp simd)
        for (int w = 0; w < n; w++)
            y[w] += cv[w] * x[w];
        return;
    }
    for (int w = 0; w < n; w++)
        for (int64_t r = 0; r < B; r++)
            y[w * B + r] += cv[w] * x[w * B + r];
}

/* The last level when it is complete, a participant's, and the node
 * lies inside the window: each move u -> w is one block update, with no
 * tree lookups (the children of complete nodes are n * node + value). */
static void last_level_moves(kctx *c, int a, int64_t an, int64_t on, const kpath *p,
                             const kron_part *P, int k)
{
    const kron_tree *t = &c->d->tree;
    const int n = t->ns[a];
    const int64_t ds = c->t->dstride[a], B = t->bsize[a + 1];
    double *restrict y = c->y + an * n * B;
    const double *restrict x = c->x ? c->x + on * n * B : NULL;
    for (int w = 0; w < n; w++)
        for (int32_t j = P->ptr[w]; j < P->ptr[w + 1]; j++) {
            const kron_move *mv = &P->mv[j];
            const int u = mv->other, s = x ? u : w;
            if (!p->moved && u == w)
                continue;
            c->src[a] = s;
            c->fsel[k] = mv->fp;
            c->rsel[k] = mv->fr;
            const double v = coef_at(c, p->di + s * ds, (x ? on : an) * n + s, p->cp * mv->p);
            if (v == 0)
                continue;
            if (B == 1) {
                y[w] += x ? v * x[u] : v;
                continue;
            }
            double *restrict yb = y + w * B;
            if (x) {
                const double *restrict xb = x + u * B;
                SAN_OMP(omp simd)
                for (int64_t r = 0; r < B; r++)
                    yb[r] += v * xb[r];
            } else {
                for (int64_t r = 0; r < B; r++)
                    yb[r] += v;
            }
        }
}

/* Is the whole subtree of node k of complete level a in the window? */
static inline int inside(const kctx *c, int a, int64_t k)
{
    const int64_t B = c->d->tree.bsize[a];
    return k * B >= c->lo && (k + 1) * B <= c->hi;
}

/* One step of the walk: anchor child ac (value w) with source value u
 * (the other child oc); the path extended, the next level visited or,
 * at the last level, the coefficient applied below. */
static inline void descend(kctx *c, int a, int64_t ac, int64_t oc, int w, int u,
                           const kron_move *mv, const kpath *p)
{
    const int s = c->x ? u : w;
    kpath q = { p->di + s * c->t->dstride[a], p->cp, p->moved | (u != w) };
    c->src[a] = s;
    if (mv) {
        q.cp *= mv->p;
        c->fsel[c->t->kind[a]] = mv->fp;
        c->rsel[c->t->kind[a]] = mv->fr;
    }
    if (a != c->t->L) {
        visit(c, a + 1, ac, oc, &q);
    } else if (q.moved) {
        double v = coef_at(c, q.di, c->x ? oc : ac, q.cp);
        if (v != 0)
            tail(c, a + 1, ac, oc, v);
    }
}

/* A participant's level: each move into the anchor's value. */
static void walk_moves(kctx *c, int a, int64_t an, int64_t on, const kpath *p,
                       const kron_part *P)
{
    const kron_tree *t = &c->d->tree;
    int64_t c0, c1;
    children(t, a, an, &c0, &c1);
    for (int64_t ac = c0; ac < c1; ac++) {
        const int w = a >= t->F ? (int)(ac - c0) : t->val[a][ac];
        for (int32_t j = P->ptr[w]; j < P->ptr[w + 1]; j++) {
            const kron_move *mv = &P->mv[j];
            int64_t oc = c->x ? tree_child(t, a, on, mv->other) : 0;
            if (oc >= 0)
                descend(c, a, ac, oc, w, mv->other, mv, p);
        }
    }
}

/* Any other level: source and destination share the value; on explicit
 * levels the two sorted child lists are merged (no lookups). */
static void walk_same(kctx *c, int a, int64_t an, int64_t on, const kpath *p)
{
    const kron_tree *t = &c->d->tree;
    int64_t c0, c1, o0 = 0, o1 = 0;
    children(t, a, an, &c0, &c1);
    if (a >= t->F) {
        for (int64_t ac = c0; ac < c1; ac++)
            descend(c, a, ac, c->x ? on * t->ns[a] + (ac - c0) : 0, (int)(ac - c0),
                    (int)(ac - c0), NULL, p);
        return;
    }
    const int32_t *val = t->val[a];
    if (c->x)
        children(t, a, on, &o0, &o1);
    for (int64_t ac = c0; ac < c1; ac++) {
        const int w = val[ac];
        if (c->x) {
            while (o0 < o1 && val[o0] < w)
                o0++;
            if (o0 == o1)
                return;
            if (val[o0] != w)
                continue;
        }
        descend(c, a, ac, o0, w, w, NULL, p);
    }
}

/* The walk at level a <= L. */
static void walk_level(kctx *c, int a, int64_t an, int64_t on, const kpath *p)
{
    const kron_tree *t = &c->d->tree;
    const kron_term *tm = c->t;
    const int k = tm->kind[a];
    const kron_part *P = k >= 0 ? (c->x ? &tm->in[k] : &tm->out[k]) : NULL;
    if (a == tm->L && a >= t->F && inside(c, a, an)) {
        if (P)
            last_level_moves(c, a, an, on, p, P, k);
        else if (p->moved)
            last_level_fast(c, a, an, on, p);
        return;
    }
    if (P)
        walk_moves(c, a, an, on, p, P);
    else
        walk_same(c, a, an, on, p);
}

/* A function as the runs read it: a table at di + o + i os, or a table
 * per state at the source leaf sb + s + i rs. */
typedef struct {
    const double *tab;
    const double *pst;
} rfun;

static inline int rfun_add(rfun *f, int n, const kron_fn *fn, double *g)
{
    if (fn->tab)
        f[n++] = (rfun){ fn->tab, NULL };
    else if (fn->pst)
        f[n++] = (rfun){ NULL, fn->pst };
    else
        *g *= fn->c;
    return n;
}

/* One run, its functions f[0 .. nf-1] (nf > 0). */
static void run_funs(kctx *c, const kron_run *R, const rfun *f, int nf, double v0,
                     int64_t di, int64_t sb, double *restrict y,
                     const double *restrict x)
{
    const int64_t len = R->len, rs = R->rs, os = R->os;
    double *restrict yr = y + R->r;
    const double *restrict xr = x + R->s;
    int per = os != 0;
    for (int k = 0; k < nf; k++)
        per |= f[k].pst != NULL;
    if (!per) {         /* one coefficient for the whole run */
        double v = v0;
        for (int k = 0; k < nf; k++)
            v *= f[k].tab[di + R->o];
        if (v == 0)
            return;
        if (rs == 1) {
            SAN_OMP(omp simd)
            for (int64_t i = 0; i < len; i++)
                yr[i] += v * xr[i];
        } else {
            for (int64_t i = 0; i < len; i++)
                yr[i * rs] += v * xr[i * rs];
        }
        return;
    }
    if (nf == 1 && f[0].tab && rs == 1 && os == 1) {
        const double *restrict tb = f[0].tab + di + R->o;
        SAN_OMP(omp simd)
        for (int64_t i = 0; i < len; i++)
            yr[i] += v0 * tb[i] * xr[i];
        return;
    }
    double *restrict cv = c->cv;
    for (int64_t i = 0; i < len; i++)
        cv[i] = v0;
    for (int k = 0; k < nf; k++) {
        if (f[k].tab) {
            const double *restrict tb = f[k].tab + di + R->o;
            if (os == 1) {
                SAN_OMP(omp simd)
                for (int64_t i = 0; i < len; i++)
                    cv[i] *= tb[i];
            } else {
                for (int64_t i = 0; i < len; i++)
                    cv[i] *= tb[i * os];
            }
        } else {
            const double *restrict ps = f[k].pst + sb + R->s;
            for (int64_t i = 0; i < len; i++)
                cv[i] *= ps[i * rs];
        }
    }
    if (rs == 1) {
        SAN_OMP(omp simd)
        for (int64_t i = 0; i < len; i++)
            yr[i] += cv[i] * xr[i];
    } else {
        for (int64_t i = 0; i < len; i++)
            yr[i * rs] += cv[i] * xr[i * rs];
    }
}

/* The term inside anchor node an (source node on) of the region level,
 * from its runs: the walk's path p brings di, the constant factor, the
 * moves chosen above (their functions) and whether something moved. */
static void region_apply(kctx *c, int64_t an, int64_t on, const kpath *p)
{
    const kron_term *t = c->t;
    const struct kron_region *R = t->rg;
    const int64_t B = c->d->rB, sb = on * B;
    double *restrict y = c->y + an * B;
    const double *restrict x = c->x + on * B;
    rfun f[2 * t->np + 2];
    double g = p->cp;
    int ng = rfun_add(f, 0, &t->rate, &g);
    for (int k = 0; k < t->np; k++)
        if (R->above[k]) {
            if (c->fsel[k] >= 0)
                ng = rfun_add(f, ng, &t->fprob[c->fsel[k]], &g);
            if (c->rsel[k] >= 0)
                ng = rfun_add(f, ng, &t->fprob[c->rsel[k]], &g);
        }
    for (int gi = 0; gi < R->ng; gi++) {
        const kron_rgroup *G = &R->g[gi];
        if (!G->moving && !p->moved)
            continue;
        double gg = g;
        int nf = ng;
        for (int k = 0; k < G->nfn; k++)
            nf = rfun_add(f, nf, &t->fprob[G->fn[k]], &gg);
        if (gg == 0)
            continue;
        if (nf == 0) {
            for (int q = 0; q < G->nrun0; q++) {
                const kron_run *Rn = &G->run0[q];
                const double v = gg * Rn->p;
                const int64_t len = Rn->len, rs = Rn->rs;
                double *restrict yr = y + Rn->r;
                const double *restrict xr = x + Rn->s;
                if (rs == 1) {
                    SAN_OMP(omp simd)
                    for (int64_t i = 0; i < len; i++)
                        yr[i] += v * xr[i];
                } else {
                    for (int64_t i = 0; i < len; i++)
                        yr[i * rs] += v * xr[i * rs];
                }
            }
            continue;
        }
        for (int q = 0; q < G->nrun; q++)
            run_funs(c, &G->run[q], f, nf, gg * G->run[q].p, p->di, sb, y, x);
    }
}

static void visit(kctx *c, int a, int64_t an, int64_t on, const kpath *p)
{
    const kron_tree *t = &c->d->tree;
    if ((a >= t->F || a == c->d->split) && outside(c, a, an))
        return;
    if (a == c->d->rlev && c->t->rg && c->x && inside(c, a, an)) {
        if (p->moved || c->t->rg->any_moving)
            region_apply(c, an, on, p);
        return;
    }
    walk_level(c, a, an, on, p);
}

static void run_term(kctx *c, const kron_term *tm)
{
    c->t = tm;
    for (int k = 0; k < tm->np; k++)
        c->fsel[k] = c->rsel[k] = -1;
    if (tm->np == 0)
        return;
    kpath p = { 0, 1.0, 0 };
    visit(c, 0, 0, 0, &p);
}

/* One window: y[lo, hi) = x Q restricted to it (x NULL: exit rates). */
static void run_window(const kron_desc *d, const double *x, double *y,
                       int64_t lo, int64_t hi, int *scratch, double *cv)
{
    const int na1 = d->m->naut + 1;
    kctx c = { d, NULL, x, y, lo, hi, scratch, scratch + na1, scratch + 2 * na1, cv };
    if (x)
        for (int64_t i = lo; i < hi; i++)
            y[i] = d->diag[i] * x[i];
    else
        memset(y + lo, 0, (hi - lo) * sizeof *y);
    for (int e = 0; e < d->nterms; e++)
        run_term(&c, &d->term[e]);
}

static void run_all(const kron_desc *d, const double *x, double *y)
{
    const int64_t nw = d->nwin;
    SAN_OMP(omp parallel for schedule(dynamic, 1) if(nw > 1) num_threads(d->nthreads))
    for (int64_t w = 0; w < nw; w++) {
        int scratch[3 * (d->m->naut + 1)];   /* source digits, choices */
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        run_window(d, x, y, d->win[w], d->win[w + 1], scratch,
                   d->cv + (size_t)tid * d->cvlen);
    }
}

void kron_mult(const kron_desc *d, const double *x, double *y)
{
    run_all(d, x, y);
}

/* ------------------------------------------------------------------ */
/* Build                                                               */
/* ------------------------------------------------------------------ */

/* Windows: equal shares of leaves, on node boundaries of the split
 * level (the first explicit level with enough nodes to share). */
static int make_windows(kron_desc *d)
{
    const kron_tree *t = &d->tree;
    int nth = 1;
#ifdef _OPENMP
    nth = omp_get_max_threads();
#endif
    int64_t nw = d->n >= PARALLEL_MIN_N ? WINDOWS_PER_THREAD * nth : 1;
    if (d->n / WINDOW_LEN > nw)
        nw = d->n / WINDOW_LEN;
    d->split = t->F;
    for (int a = 0; a < t->F; a++)
        if (t->nodes[a] >= 8 * nw) {
            d->split = a;
            break;
        }
    d->win = malloc((nw + 1) * sizeof *d->win);
    d->nthreads = nth;
    d->cv = malloc((size_t)nth * d->cvlen * sizeof *d->cv);
    if (!d->win || !d->cv)
        return -1;
    d->nwin = nw;
    d->win[0] = 0;
    for (int64_t w = 1; w <= nw; w++) {
        int64_t target = (int64_t)((double)d->n * w / nw);
        if (d->split < t->F) {
            /* first node of the split level starting at or after target */
            int64_t l = 0, h = t->nodes[d->split];
            while (l < h) {
                int64_t mid = l + (h - l) / 2;
                if (tree_leaf(t, d->split, mid) < target)
                    l = mid + 1;
                else
                    h = mid;
            }
            target = tree_leaf(t, d->split, l);
        }
        if (d->rlev < t->naut && d->split >= t->F)
            target -= target % d->rB;   /* region nodes never cut */
        d->win[w] = w == nw ? d->n : target;
        if (d->win[w] < d->win[w - 1])
            d->win[w] = d->win[w - 1];
    }
    return 0;
}

/* Q[j][j] = minus the exit rate of j; maxd over the reachable states. */
static int make_diag(kron_desc *d, const san_space *sp)
{
    d->diag = malloc((d->n ? d->n : 1) * sizeof *d->diag);
    if (!d->diag)
        return -1;
    run_all(d, NULL, d->diag);
    double md = 0;
    SAN_OMP(omp parallel for schedule(static) reduction(max:md))
    for (int64_t i = 0; i < d->n; i++) {
        d->diag[i] = -d->diag[i];
        md = fabs(d->diag[i]) > md ? fabs(d->diag[i]) : md;
    }
    /* the product space's extra states, and transient states (when the
     * caller checked the classes), are not part of the chain's scale */
    if (d->n > sp->n || sp->nclosed < sp->n) {
        md = 0;
        for (int64_t i = 0; i < sp->n; i++)
            if (!sp->in_closed || sp->in_closed[i])
                md = fmax(md, fabs(d->diag[kron_rank(d, sp->index[i])]));
    }
    d->maxd = md;
    return 0;
}

static kron_mode choose_mode(const san_space *sp, kron_mode mode)
{
    const san_model *m = sp->m;
    if (mode != KRON_AUTO)
        return mode;
    if (sp->n == m->product || sp->n >= KRON_PRODUCT_MIN_FILL * (double)m->product)
        return KRON_PRODUCT;
    return KRON_REACHABLE;
}

static int build_terms(kron_desc *d, const san_model *m, const int64_t *keys)
{
    tab_cache tc = { 0 };
    tc.keys = keys;
    tc.nleaves = d->n;
    int *tev = malloc((m->nev + 1) * sizeof *tev);
    int *tstart = malloc((m->nev + 2) * sizeof *tstart);
    int nt = tev && tstart ? plan_terms(m, tev, tstart) : -1;
    d->term = nt >= 0 ? calloc(nt + 1, sizeof *d->term) : NULL;
    int rc = d->term ? 0 : -1;
    const kron_tree *t = &d->tree;
    d->rlev = m->naut;
    for (int a = t->F; a < m->naut; a++)
        if (t->bsize[a] <= REGION_MAX) {
            d->rlev = a;
            break;
        }
    d->rB = t->bsize[d->rlev];
    d->cvlen = d->rB > d->maxns ? d->rB : d->maxns;
    for (int i = 0; rc == 0 && i < nt; i++) {
        rc = term_build(&d->term[i], m, tev + tstart[i], tstart[i + 1] - tstart[i], &tc);
        d->nterms = i + 1;
        if (rc == 0)
            rc = term_region(&d->term[i], d, m);
        d->bytes += term_bytes(&d->term[i], m);
    }
    free(tev);
    free(tstart);
    d->tab = malloc((tc.n + 1) * sizeof *d->tab);
    if (!d->tab)
        rc = -1;
    for (int i = 0; i < tc.n; i++) {
        if (d->tab)
            d->tab[d->ntab++] = tc.v[i].tab;
        else
            free(tc.v[i].tab);
        d->bytes += 8.0 * tc.v[i].size;
    }
    free(tc.v);
    return rc;
}

int kron_build(kron_desc *d, const san_space *sp, kron_mode mode, char *msg,
               size_t len)
{
    const san_model *m = sp->m;
    memset(d, 0, sizeof *d);
    d->m = m;
    if (!m->product_fits) {
        snprintf(msg, len, "the product space (%s states) exceeds 64-bit indices",
                 m->product_str);
        return -1;
    }
    d->mode = choose_mode(sp, mode);
    for (int a = 0; a < m->naut; a++)
        d->maxns = m->aut[a].nstates > d->maxns ? m->aut[a].nstates : d->maxns;
    int64_t *keys = NULL;
    int rc = d->mode == KRON_PRODUCT || sp->n == m->product ? tree_product(&d->tree, m)
                                                            : tree_reachable(&d->tree, sp, &keys);
    if (rc == 0) {
        d->n = d->tree.nodes[m->naut];
        d->bytes = d->tree.bytes;
        rc = build_terms(d, m, keys);
    }
    free(keys);
    if (rc == 0)
        rc = make_windows(d);
    if (rc == 0)
        rc = make_diag(d, sp);
    if (rc) {
        snprintf(msg, len, "out of memory for the Kronecker descriptor (%lld states)",
                 (long long)sp->n);
        kron_free(d);
        return -1;
    }
    return 0;
}

void kron_free(kron_desc *d)
{
    tree_free(&d->tree);
    for (int e = 0; d->term && e < d->nterms; e++)
        term_free(&d->term[e]);
    free(d->term);
    for (int i = 0; i < d->ntab; i++)
        free(d->tab[i]);
    free(d->tab);
    free(d->diag);
    free(d->win);
    free(d->cv);
    memset(d, 0, sizeof *d);
}

/* Terms and tables as kron_build would make them, without building. */
double kron_terms_bytes(const san_model *m)
{
    int *tev = malloc((m->nev + 1) * sizeof *tev);
    int *tstart = malloc((m->nev + 2) * sizeof *tstart);
    kron_term g = { 0 };
    g.kind = malloc((m->naut + 1) * sizeof *g.kind);
    g.dstride = malloc((m->naut + 1) * sizeof *g.dstride);
    int nt = tev && tstart && g.kind && g.dstride ? plan_terms(m, tev, tstart) : -1;
    double b = 0;
    for (int i = 0; i < nt; i++) {
        const san_event *E = &m->ev[tev[tstart[i]]];
        const int nev = tstart[i + 1] - tstart[i];
        b += sizeof(kron_term) + 12.0 * m->naut + 4.0 * nev;
        for (int k = 0; k < E->nparts; k++) {
            const san_automaton *A = &m->aut[E->parts[k]];
            b += 8.0 * (A->nstates + 2) + 2.0 * sizeof(kron_move) * A->ntr;
        }
        /* a table per functional rate, bounded by TABLE_MAX entries, over
         * the automata it reads, or over the merged term's (an upper
         * bound: no sharing) */
        /* the runs below the region level: about two per leaf of a
         * region node at most */
        b += 2.0 * sizeof(kron_run) *
             (double)(m->product_fits && m->product < REGION_MAX ? m->product : REGION_MAX);
        double msize = 0;
        if (nev > 1) {
            g.ev = tev[tstart[i]];
            g.evs = tev + tstart[i];
            g.nev = nev;
            msize = (double)term_levels(&g, m);
        }
        for (int j = tstart[i]; j < tstart[i + 1]; j++) {
            const san_expr *r = m->ev[tev[j]].rate;
            if (!r || san_expr_is_const(r))
                continue;
            double size = msize;
            if (nev == 1) {
                int nd;
                const int *dep = san_expr_deps(r, &nd);
                size = 1;
                for (int k = 0; k < nd; k++)
                    size *= m->aut[dep[k]].nstates;
            }
            b += size <= TABLE_MAX ? 8.0 * size : 0;
        }
    }
    free(tev);
    free(tstart);
    free(g.kind);
    free(g.dstride);
    return b;
}
