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
 * the bottom levels done by runs).  The reachable set is an explicit
 * tree; walked down to the leaves by merging sorted child lists, it
 * cost 18 to 35 times the implicit tree per state, so it has a region
 * level of its own: nodes whose subtrees hold the same states form a
 * class, the runs are listed per pair of classes (anchor, source), and
 * the walk above the region level is done once at build time and kept
 * as a list of calls (see "The bottom of the tree").  A product is then,
 * per term, its calls in the window, each running its pair's runs.
 *
 * Milliseconds per product y = x Q, min of 30 products, 2 threads, the
 * machine otherwise idle (kron_mult alone; sparse = the CSR product of
 * the sparse path, from a power run); in brackets, the explicit tree
 * before the classes (same machine, other jobs running):
 *
 *   model          reachable / product     fill  product   reachable        sparse
 *   rs N=20 R=6        60,460 / 1,048,576  5.8%   6.7      0.36  (12.3-18)  0.30
 *   rs N=24 R=5        55,455 / 16,777,216 0.33%  6014 *   0.29             0.22
 *   rs N=26 R=7       971,712 / 67,108,864 1.4%   -        8.4 **           7.3
 *   rs N=20 R=10      616,666 / 1,048,576  59%    6.3      6.0   (108)      6.1
 *   ms async 8 sl.    498,820 /   807,003  62%    2.2      1.3   (27.5)     3.8
 *   pipeline 7 st.    499,121 /   531,441  94%    1.08     1.15  (17.0)     2.0
 *   tss.san        17,891,847 / same       100%   80-95    -                151-197
 *
 * (*: a function of all 24 automata has no table on the product space
 * and is evaluated at every use; **: from a power run.)  So KRON_AUTO
 * (kron.h) puts vectors on the reachable set below a fill of 0.85: it is
 * as fast or faster there, and its vectors are shorter, which outweighs
 * the tree (12 to 36 bytes a state, but dropped after the build when
 * every term runs from calls: drop_levels) and the region runs (at most
 * REGION_BYTES_PER_STATE a state) for any method with a few vectors.
 * Above 0.85 the product space's lookup-free levels win (pipeline).
 * Before the merged local terms and the runs, the product space took 4
 * (tss) to 18 times longer; the merge alone would have been slower (tss
 * 0.59 s against 0.54 single thread), with the runs it saves 2-6%.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "grow.h"
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
/* Explicit region levels: the runs of all terms may take this many bytes
 * a state (at least REGION_MIN_BYTES), and a level is chosen by
 * REGION_BYTES_PER_LEAF bytes of runs per leaf of its classes and term. */
#ifndef REGION_BYTES_PER_STATE
#define REGION_BYTES_PER_STATE 16
#endif
#ifndef REGION_MIN_BYTES
#define REGION_MIN_BYTES (8.0 * (1 << 20))
#endif
#define REGION_BYTES_PER_LEAF 24
/* On explicit region levels, runs shorter than this are kept as single
 * updates (a loop over plain arrays beats a loop of short loops). */
#ifndef RUN_MIN
#define RUN_MIN 8
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

/* First level where sorted state i differs from state i-1 (0 for i = 0).
 * idx / stride[a] is the prefix of digits 0..a, and once two prefixes
 * differ the longer ones do too: a binary search, 2 log2(naut)
 * divisions instead of 4 a level (rs N=28 R=8: the tree took 2.1 s). */
static inline int diff_level(const san_model *m, const int64_t *k, int64_t i)
{
    if (i == 0)
        return 0;
    int lo = 0, hi = m->naut - 1;   /* distinct: the last level differs */
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (k[i] / m->stride[mid] != k[i - 1] / m->stride[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
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

static int64_t tree_rank(const kron_tree *t, const san_model *m, int64_t idx)
{
    int64_t k = 0;
    if (t->F == 0)
        return idx;
    for (int a = 0; a < m->naut && k >= 0; a++)
        k = tree_child(t, a, k, digit(m, idx, a));
    return k;
}

/* Children of node an of level a: ids [*c0, *c1); their values are
 * id - *c0 on a complete level, val[a][id] on an explicit one. */
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

/* First leaves of the nodes of level a (nodes[a] + 1 of them), or NULL. */
static int64_t *first_leaves(const kron_tree *t, int a)
{
    int64_t *v = malloc((t->nodes[a] + 1) * sizeof *v);
    for (int64_t k = 0; v && k <= t->nodes[a]; k++)
        v[k] = tree_leaf(t, a, k);
    return v;
}

int64_t kron_rank(const kron_desc *d, int64_t idx)
{
    if (!d->keys)
        return tree_rank(&d->tree, d->m, idx);
    int64_t l = 0, h = d->n - 1;        /* the explicit levels are gone */
    while (l <= h) {
        const int64_t mid = l + (h - l) / 2;
        if (d->keys[mid] == idx)
            return mid;
        if (d->keys[mid] < idx)
            l = mid + 1;
        else
            h = mid - 1;
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* Classes of nodes                                                    */
/* ------------------------------------------------------------------ */

/* Two nodes of a level are in one class when their subtrees hold the
 * same suffixes: the same child values, the children in the same classes
 * of the level below.  All the nodes of a complete level are one class.
 * A term acts the same way inside every anchor node of a class, pulling
 * from every source node of another class, up to the values of its
 * functions: this is what lets the region level sit on explicit levels
 * (see "The bottom of the tree").  Computed level by level from the
 * bottom, by hashing each node's (value, class below) list. */
typedef struct {
    int32_t *cls;           /* per node of the level */
    int ncls;
    int64_t *rep;           /* a node of each class */
    int64_t *size;          /* leaves below a node of each class */
    int64_t leaves;         /* sum of size[]: the regions' leaves */
} node_classes;

static void classes_free(node_classes *c)
{
    free(c->cls);
    free(c->rep);
    free(c->size);
    memset(c, 0, sizeof *c);
}

static inline uint64_t hash_step(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
    return h ^ (h >> 29);
}

/* Do nodes k and j of explicit level a have the same children (values,
 * and classes below: none when below is NULL)? */
static int same_children(const kron_tree *t, int a, const int32_t *below,
                         int64_t k, int64_t j)
{
    const int64_t *f = t->first[a];
    const int32_t *val = t->val[a];
    const int64_t n = f[k + 1] - f[k];
    if (f[j + 1] - f[j] != n)
        return 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t ck = f[k] + i, cj = f[j] + i;
        if (val[ck] != val[cj] || (below && below[ck] != below[cj]))
            return 0;
    }
    return 1;
}

/* The classes of explicit level a from those of level a + 1 (below
 * NULL: level a + 1 is complete, one class of bsize[a + 1] leaves).
 * 0, or -1 (memory). */
static int level_classes(const kron_tree *t, int a, const node_classes *below,
                         node_classes *c)
{
    const int64_t n = t->nodes[a];
    int64_t hsz = 16, cap = 0;
    while (hsz < 2 * n)
        hsz *= 2;
    memset(c, 0, sizeof *c);
    int32_t *h = malloc(hsz * sizeof *h);
    c->cls = malloc((n ? n : 1) * sizeof *c->cls);
    if (!h || !c->cls)
        goto fail;
    memset(h, 0xff, hsz * sizeof *h);          /* -1: empty slot */
    const int32_t *bc = below ? below->cls : NULL;
    for (int64_t k = 0; k < n; k++) {
        uint64_t x = 0x243f6a8885a308d3ULL;
        int64_t sz = 0;
        for (int64_t ch = t->first[a][k]; ch < t->first[a][k + 1]; ch++) {
            const uint32_t cb = bc ? (uint32_t)bc[ch] : 0;
            x = hash_step(x, (uint64_t)(uint32_t)t->val[a][ch] << 32 | cb);
            sz += bc ? below->size[cb] : t->bsize[a + 1];
        }
        int64_t slot = (int64_t)(x & (uint64_t)(hsz - 1));
        int id = -1;
        for (; h[slot] >= 0; slot = (slot + 1) & (hsz - 1))
            if (same_children(t, a, bc, k, c->rep[h[slot]])) {
                id = h[slot];
                break;
            }
        if (id < 0) {
            if (grow2((void **)&c->rep, sizeof *c->rep, (void **)&c->size,
                      sizeof *c->size, &cap, c->ncls + 1) < 0)
                goto fail;
            id = c->ncls++;
            c->rep[id] = k;
            c->size[id] = sz;
            c->leaves += sz;
            h[slot] = id;
        }
        c->cls[k] = id;
    }
    free(h);
    return 0;
fail:
    free(h);
    classes_free(c);
    return -1;
}

/* ------------------------------------------------------------------ */
/* Event terms                                                         */
/* ------------------------------------------------------------------ */

/* Tables are shared by terms whose function and dependencies match
 * (replicated automata share their rate expressions). */
typedef struct {
    const san_expr *e;
    const int64_t *dstride;     /* NULL: a table per state */
    double bytes;
    void *mem;                  /* what the table owns (d->tab) */
    kron_fn f;                  /* the table as the kernels read it */
} tab_key;

typedef struct {
    tab_key *v;
    int n, cap;
    const int64_t *keys;        /* leaf -> mixed-radix index (NULL: same) */
    int64_t nleaves;
} tab_cache;

/* Slot of value v in the open-addressed set h of the ncode values val
 * (2 KRON_CODES slots, -1 empty): its code, or a new one (ncode too if
 * full: the caller gives up the codes). */
static int code_of(double v, double *val, int *ncode, int16_t *h)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    b *= 0x9E3779B97F4A7C15ULL;
    for (int slot = (int)(b >> 55);; slot = (slot + 1) & (2 * KRON_CODES - 1)) {
        if (h[slot] < 0) {
            if (*ncode == KRON_CODES)
                return KRON_CODES;
            val[*ncode] = v;
            h[slot] = (int16_t)*ncode;
            return (*ncode)++;
        }
        if (!memcmp(&val[h[slot]], &v, sizeof v))
            return h[slot];
    }
}

/* A function of every automaton (rs.san's nb using < R) has a table as
 * big as the product space; but when it is read at the last level, the
 * source state is a leaf, and one value per leaf is enough.  Such
 * functions take few values (rates times conditions), so the table is
 * first built as one byte a state, a code into its values (in one block:
 * KRON_CODES values, then the codes), and only past KRON_CODES values
 * as the values themselves. */
static int table_per_state(tab_key *k, const san_model *m, const san_expr *e,
                           const tab_cache *tc)
{
    const int64_t n = tc->nleaves;
    double *val = malloc(KRON_CODES * sizeof *val + (n ? n : 1));
    int *s = calloc(m->naut + 1, sizeof *s);
    int16_t h[2 * KRON_CODES];
    int ncode = 0;
    double *pst = NULL;
    memset(h, -1, sizeof h);
    if (!val || !s)
        goto fail;
    uint8_t *code = (uint8_t *)(val + KRON_CODES);
    for (int64_t i = 0; i < n; i++) {
        san_state_decode(m, tc->keys ? tc->keys[i] : i, s);
        const double v = san_expr_eval(e, s);
        if (pst) {
            pst[i] = v;
            continue;
        }
        const int c = code_of(v, val, &ncode, h);
        if (c < KRON_CODES) {
            code[i] = (uint8_t)c;
            continue;
        }
        pst = malloc(n * sizeof *pst);          /* too many values */
        if (!pst)
            goto fail;
        for (int64_t j = 0; j < i; j++)
            pst[j] = val[code[j]];
        pst[i] = v;
        free(val);
        val = NULL;
    }
    free(s);
    if (pst) {
        k->mem = pst;
        k->bytes = 8.0 * n;
        k->f.pst = pst;
    } else {
        k->mem = val;
        k->bytes = KRON_CODES * sizeof *val + (double)n;
        k->f.pcode = (const uint8_t *)(val + KRON_CODES);
        k->f.pval = val;
    }
    return 0;
fail:
    free(val);
    free(s);
    return -1;
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
    /* read at the leaves, a table per state is the smaller one when the
     * vectors are shorter than the table (a reachable set much smaller
     * than the product of the automata the function reads), and it is
     * read where x is: a table over all the automata would be read at
     * scattered places */
    int per_state = t->L == m->naut - 1 && size > tc->nleaves;
    if (size > TABLE_MAX && !per_state) {
        f->e = e;
        return 0;
    }
    for (int i = 0; i < tc->n; i++)
        if (tc->v[i].e == e && (per_state ? !tc->v[i].dstride : tc->v[i].dstride &&
                                !memcmp(tc->v[i].dstride, t->dstride, m->naut * sizeof *t->dstride))) {
            *f = tc->v[i].f;
            return 0;
        }
    tab_key k = { .e = e, .dstride = per_state ? NULL : t->dstride };
    if (per_state) {
        if (table_per_state(&k, m, e, tc) < 0)
            return -1;
    } else {
        double *tab = table_build(m, e, t->dstride, size);
        k.mem = tab;
        k.bytes = 8.0 * size;
        k.f.tab = tab;
    }
    if (!k.mem || cache_put(tc, k) < 0) {
        free(k.mem);
        return -1;
    }
    *f = k.f;
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
 * of n_a values costs a call and a few loads for n_a updates, and an
 * explicit level adds a merge of child lists.  So below the region level
 * a term is not walked: its action inside one node, the same for every
 * node of a class up to the functions' values, is listed once at build
 * time as runs of updates
 *
 *     y[r + i rs] += p * f(di + o + i os) * x[s + i rs],   i < len
 *
 * (leaf offsets within the anchor and source nodes, table offsets o
 * from the region's levels added to the walk's di, f the product of the
 * term's functions at that index), and the walk above the region level
 * calls them for each node it reaches.  Nodes are in one class when
 * their subtrees hold the same states (node_classes); a complete level
 * is one class, and a node's runs depend on the classes of its anchor
 * and source nodes, so a term keeps one list per pair of classes that
 * its walk meets (kron_rmap).  Runs are grouped by the functions their
 * moves carry and by whether a participant of the region moves (if none
 * does, the run counts only when a participant above moved).  A run is
 * long (a whole node, a stride of a participant's level) where the tree
 * is complete; on explicit levels leaves of the source node go missing
 * and most runs are single updates, kept apart as plain arrays. */

typedef struct {
    int32_t r, s, len, rs;
    int64_t o, os;
    double p;
} kron_run;

typedef struct {
    int nrun;
    kron_run *run;          /* runs of two updates or more */
    int n1;                 /* single updates: y[r1] += p f(di + o1) x[s1], */
    int32_t *r1, *s1, *o1;
    int nseg;               /* in segments of one constant factor p: */
    int32_t *seg;           /* updates seg[k] .. seg[k+1] - 1 have */
    double *segp;           /* p = segp[k] */
} kron_runs;

typedef struct {
    int moving;             /* some participant of the region moves */
    int nfn;
    int32_t *fn;            /* the moves' functions: indices into fprob */
    kron_runs ro;           /* with the functions' table offsets */
    kron_runs r0;           /* the same updates, offsets ignored (when a
                               call has no function: longer runs) */
    int r0_is_ro;           /* r0 would be ro, or is never used: not kept */
} kron_rgroup;

/* The term inside an anchor node of one class, from a source node of
 * one class. */
struct kron_region {
    int ng;
    kron_rgroup *g;
    int any_moving;
    double bytes;
};

/* One node of an explicit region level as a term's walk reaches it:
 * anchor and source leaves, the table index and constant factor of the
 * path above, its functions (read inside the node), whether a
 * participant above moved.  At build time ab and sb hold the nodes. */
typedef struct {
    int64_t ab, sb, di;
    double g;
    const struct kron_region *R;
    int32_t fn;             /* functions: the map's cfn[fn .. fn + nfn) */
    int16_t nfn;
    int16_t moved;
} kron_call;

/* A term's regions, by pair of classes. */
struct kron_rmap {
    char *above;            /* per participant: its level is above the
                               region level (its move comes from the walk) */
    int npair;
    int64_t *key;           /* sorted keys anchor class * ncls + source class */
    struct kron_region **r; /* NULL: no update in that pair */
    int64_t ncall;          /* explicit region level: the walk above it, */
    kron_call *call;        /* listed once, by anchor leaf */
    const kron_fn **cfn;
    double bytes;
};

static void runs_free(kron_runs *K)
{
    free(K->run);
    free(K->r1);
    free(K->s1);
    free(K->o1);
    free(K->seg);
    free(K->segp);
}

static void region_free(struct kron_region *R)
{
    if (!R)
        return;
    for (int i = 0; i < R->ng; i++) {
        free(R->g[i].fn);
        runs_free(&R->g[i].ro);
        runs_free(&R->g[i].r0);
    }
    free(R->g);
    free(R);
}

static void rmap_free(struct kron_rmap *M)
{
    if (!M)
        return;
    for (int i = 0; M->r && i < M->npair; i++)
        region_free(M->r[i]);
    free(M->r);
    free(M->key);
    free(M->above);
    free(M->call);
    free(M->cfn);
    free(M);
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
 * extends while leaves (and table offsets, if use_o) keep their steps;
 * runs of one update go to the single arrays.  0, or -1 (memory). */
static int make_runs(const rentry *e, int64_t n, int use_o, int run_min, kron_runs *K)
{
    memset(K, 0, sizeof *K);
    kron_run *v = malloc((n ? n : 1) * sizeof *v);
    int nr = 0;
    if (!v)
        return -1;
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
    int n1 = 0;
    for (int q = 0; q < nr; q++)
        n1 += v[q].len < run_min ? v[q].len : 0;
    K->r1 = malloc((n1 ? n1 : 1) * sizeof *K->r1);
    K->s1 = malloc((n1 ? n1 : 1) * sizeof *K->s1);
    K->o1 = malloc((n1 ? n1 : 1) * sizeof *K->o1);
    K->seg = malloc((n1 + 1) * sizeof *K->seg);
    K->segp = malloc((n1 ? n1 : 1) * sizeof *K->segp);
    if (!K->r1 || !K->s1 || !K->o1 || !K->seg || !K->segp) {
        free(v);
        runs_free(K);
        return -1;
    }
    for (int q = 0; q < nr; q++) {
        const kron_run R = v[q];
        if (R.len >= run_min) {
            v[K->nrun++] = R;
            continue;
        }
        if (K->nseg == 0 || K->segp[K->nseg - 1] != R.p) {
            K->seg[K->nseg] = K->n1;    /* entries come sorted by p */
            K->segp[K->nseg++] = R.p;
        }
        for (int i = 0; i < R.len; i++) {
            K->r1[K->n1] = R.r + i * R.rs;
            K->s1[K->n1] = R.s + i * R.rs;
            K->o1[K->n1++] = (int32_t)(R.o + i * R.os); /* in a table: < TABLE_MAX */
        }
    }
    K->seg[K->nseg] = K->n1;
    K->run = realloc(v, (K->nrun ? K->nrun : 1) * sizeof *v);
    if (!K->run)
        K->run = v;
    return 0;
}

static double runs_bytes(const kron_runs *K)
{
    return sizeof(kron_run) * K->nrun + 12.0 * K->n1 + 12.0 * K->nseg;
}

/* The digits s_a .. s_{naut-1} of the leaves below node k of level a,
 * in leaf order, one row of naut - a digits a leaf; returns the rows
 * written (start with b = a, put = 0). */
static int64_t subtree_digits(const kron_tree *t, int a, int b, int64_t k,
                              int32_t *row, int32_t *dg, int64_t put)
{
    const int depth = t->naut - a;
    if (b == t->naut) {
        memcpy(dg + put * depth, row, depth * sizeof *row);
        return put + 1;
    }
    int64_t c0, c1;
    children(t, b, k, &c0, &c1);
    for (int64_t ch = c0; ch < c1; ch++) {
        row[b - a] = b >= t->F ? (int32_t)(ch - c0) : t->val[b][ch];
        put = subtree_digits(t, a, b + 1, ch, row, dg, put);
    }
    return put;
}

/* Position among the leaves below node k of level a of the state whose
 * digits from level a are s[a ..]; -1 when it is not there. */
static int64_t subtree_rank(const kron_tree *t, int a, int64_t k, const int *s)
{
    const int64_t first = tree_leaf(t, a, k);
    for (int b = a; b < t->naut && k >= 0; b++)
        k = tree_child(t, b, k, s[b]);
    return k < 0 ? -1 : k - first;
}

/* The runs of term t inside an anchor node of class ca from a source
 * node of class cs of the region level; *out stays NULL when there is
 * no update.  0, or -1 (memory). */
static int region_build(const kron_term *t, const kron_desc *d, int ca, int cs,
                        struct kron_region **out)
{
    const kron_tree *tr = &d->tree;
    const int c0 = d->rlev, na = tr->naut, depth = na - c0;
    const int64_t B = d->csize[ca], arep = d->crep[ca], srep = d->crep[cs];
    int npr = 0, ncls = 0, rc = -1;
    int64_t ne = 0, cape = B + 16, capcls = 8;     /* capcls: tuples */
    int *lev = malloc((t->np + 1) * sizeof *lev);
    int *idx = malloc((t->np + 1) * sizeof *idx);
    int *w = malloc((na + 1) * sizeof *w), *src = malloc((na + 1) * sizeof *src);
    int32_t *tup = malloc((2 * t->np + 1) * sizeof *tup);
    int32_t *cls = malloc(capcls * (2 * t->np + 1) * sizeof *cls);
    int32_t *dg = malloc((B * depth + 1) * sizeof *dg);
    int32_t *row = malloc((depth + 1) * sizeof *row);
    rentry *e = malloc(cape * sizeof *e);
    struct kron_region *R = calloc(1, sizeof *R);
    *out = NULL;
    if (!lev || !idx || !w || !src || !tup || !cls || !dg || !row || !e || !R)
        goto out;
    subtree_digits(tr, c0, c0, arep, row, dg, 0);
    for (int b = c0; b < na; b++)
        if (t->kind[b] >= 0)
            lev[npr++] = b;
    const int tl = 2 * npr;
    for (int64_t r = 0; r < B; r++) {
        int ok = 1;
        for (int b = c0; b < na; b++)
            w[b] = dg[r * depth + b - c0];
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
            const int64_t sr = subtree_rank(tr, c0, srep, src);
            if (sr >= 0) {      /* the source is in the source node */
                int64_t o = 0;
                for (int b = c0; b < na; b++)
                    o += src[b] * t->dstride[b];
                int k = 0;
                while (k < ncls && memcmp(cls + (size_t)k * tl, tup, tl * sizeof *tup))
                    k++;
                if (k == ncls) {
                    if (grow((void **)&cls, &capcls, ncls + 1, (tl + 1) * sizeof *cls) < 0)
                        goto out;
                    memcpy(cls + (size_t)ncls++ * tl, tup, tl * sizeof *tup);
                }
                if (grow((void **)&e, &cape, ne + 1, sizeof *e) < 0)
                    goto out;
                e[ne++] = (rentry){ (int32_t)r, (int32_t)sr, o, pp, 2 * k + !moving };
            }
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
    rc = 0;
    if (ne == 0)
        goto out;
    rc = -1;
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
        /* explicit levels: short runs are mostly lost to missing leaves */
        const int run_min = d->rcls ? RUN_MIN : 2;
        if (make_runs(e + i, j - i, 1, run_min, &G->ro) < 0)
            goto out;
        /* a call has a function when the term's rate is one, or the group */
        G->r0_is_ro = G->nfn > 0 || t->rate.tab || t->rate.pst || t->rate.pcode;
        if (!G->r0_is_ro && make_runs(e + i, j - i, 0, run_min, &G->r0) < 0)
            goto out;
        if (!G->r0_is_ro && G->r0.nrun == G->ro.nrun && G->r0.n1 == G->ro.n1) {
            runs_free(&G->r0);      /* the same runs: offsets never broke one */
            memset(&G->r0, 0, sizeof G->r0);
            G->r0_is_ro = 1;
        }
        R->bytes += sizeof *G + 4.0 * tl + runs_bytes(&G->ro) + runs_bytes(&G->r0);
        i = j;
    }
    *out = R;
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
    free(dg);
    free(row);
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
    rmap_free(t->rg);
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
 * those are merged into one term, in event order, as long as no function
 * of the merged term would lose its table: its tables over the union of
 * their dependencies stay within TABLE_MAX entries, or they are tables
 * per state (read at the last level, bigger than the nleaves of a
 * vector: see fn_make).  An event that would break this keeps a term of
 * its own.  tev receives the events term by term (term i:
 * tev[tstart[i] .. tstart[i+1])), terms in the order of their first
 * events.  Returns the number of terms, or -1 (out of memory). */
static int plan_terms(const san_model *m, int64_t nleaves, int *tev, int *tstart)
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
            const int64_t size = term_levels(&g, m);
            if (size <= TABLE_MAX || (g.L == m->naut - 1 && size > nleaves)) {
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
    struct callset *cs;     /* build: lists the calls the walk makes at an
                               explicit region level, applies nothing */
} kctx;

static inline double fn_at(const kron_fn *f, int64_t di, int64_t sr, const int *src)
{
    if (f->tab)
        return f->tab[di];
    if (f->pcode)
        return f->pval[f->pcode[sr]];
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
        lo = c->d->sleaf[k];
        hi = c->d->sleaf[k + 1];
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
    if (f->pcode) {
        for (int w = 0; w < n; w++)
            cv[w] *= f->pval[f->pcode[s0 + w]];
    } else if (f->pst) {
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
    /* listing calls, the walk goes on to the region level even past the
     * term's last level (see term_calls) */
    if (a != c->t->L || (c->cs && a < c->d->rlev)) {
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
 * per state at the source leaf sb + s + i rs (values, or codes into
 * values). */
typedef struct {
    const double *tab;
    const double *pst;
    const uint8_t *pcode;
    const double *pval;
} rfun;

static inline rfun rfun_of(const kron_fn *fn)
{
    return (rfun){ fn->tab, fn->pst, fn->pcode, fn->pval };
}

/* f's value at the source leaf i (a table per state). */
static inline double rfun_state(const rfun *f, int64_t i)
{
    return f->pcode ? f->pval[f->pcode[i]] : f->pst[i];
}

static inline int rfun_add(rfun *f, int n, const kron_fn *fn, double *g)
{
    if (fn->tab || fn->pst || fn->pcode)
        f[n++] = rfun_of(fn);
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
        per |= !f[k].tab;
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
        } else if (f[k].pcode) {
            const uint8_t *restrict pc = f[k].pcode + sb + R->s;
            const double *restrict pv = f[k].pval;
            for (int64_t i = 0; i < len; i++)
                cv[i] *= pv[pc[i * rs]];
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

/* Single updates i0 .. i1-1, with their functions f[0 .. nf-1] (none:
 * offsets ignored); g their constant factor. */
static void singles_seg(const kron_runs *K, int i0, int i1, const rfun *f, int nf,
                        double g, int64_t di, int64_t sb, double *restrict y,
                        const double *restrict x)
{
    const int32_t *restrict r1 = K->r1, *restrict s1 = K->s1, *restrict o1 = K->o1;
    if (nf == 0) {
        for (int i = i0; i < i1; i++)
            y[r1[i]] += g * x[s1[i]];
    } else if (nf == 1 && f[0].tab) {
        const double *restrict tb = f[0].tab + di;
        for (int i = i0; i < i1; i++)
            y[r1[i]] += g * tb[o1[i]] * x[s1[i]];
    } else if (nf == 1 && f[0].pcode) {  /* a table per state: read where x is */
        const uint8_t *restrict pc = f[0].pcode + sb;
        const double *restrict pv = f[0].pval;
        for (int i = i0; i < i1; i++)
            y[r1[i]] += g * pv[pc[s1[i]]] * x[s1[i]];
    } else if (nf == 1) {
        const double *restrict ps = f[0].pst + sb;
        for (int i = i0; i < i1; i++)
            y[r1[i]] += g * ps[s1[i]] * x[s1[i]];
    } else {
        for (int i = i0; i < i1; i++) {
            double v = g;
            for (int k = 0; k < nf; k++)
                v *= f[k].tab ? f[k].tab[di + o1[i]] : rfun_state(&f[k], sb + s1[i]);
            y[r1[i]] += v * x[s1[i]];
        }
    }
}

static void singles(const kron_runs *K, const rfun *f, int nf, double g, int64_t di,
                    int64_t sb, double *restrict y, const double *restrict x)
{
    for (int k = 0; k < K->nseg; k++)
        singles_seg(K, K->seg[k], K->seg[k + 1], f, nf, g * K->segp[k], di, sb, y, x);
}

/* The runs of one group (see singles for f, nf, g). */
static void apply_runs(kctx *c, const kron_runs *K, const rfun *f, int nf, double g,
                       int64_t di, int64_t sb, double *restrict y,
                       const double *restrict x)
{
    for (int q = 0; q < K->nrun; q++) {
        const kron_run *Rn = &K->run[q];
        if (nf) {
            run_funs(c, Rn, f, nf, g * Rn->p, di, sb, y, x);
            continue;
        }
        const double v = g * Rn->p;
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
    singles(K, f, nf, g, di, sb, y, x);
}

/* The region of map M for anchor node an and source node on of the
 * region level (NULL: nothing to apply). */
static const struct kron_region *region_of(const struct kron_rmap *M, const kron_desc *d,
                                           int64_t an, int64_t on)
{
    if (!d->rcls)
        return M->r[0];
    const int64_t key = (int64_t)d->rcls[an] * d->ncls + d->rcls[on];
    int l = 0, h = M->npair - 1;
    while (l <= h) {
        const int mid = l + (h - l) / 2;
        if (M->key[mid] == key)
            return M->r[mid];
        if (M->key[mid] < key)
            l = mid + 1;
        else
            h = mid - 1;
    }
    return NULL;
}

/* Region R of term t at anchor leaves from ab, source leaves from sb:
 * f[0 .. nf0-1] and g are what the levels above bring (their functions
 * and constant factor), di their table index; moved: something moved
 * above.  f has room for the groups' functions. */
static void region_run(kctx *c, const kron_term *t, const struct kron_region *R,
                       rfun *f, int nf0, double g, int moved, int64_t di,
                       int64_t ab, int64_t sb)
{
    double *restrict y = c->y + ab;
    const double *restrict x = c->x + sb;
    for (int gi = 0; gi < R->ng; gi++) {
        const kron_rgroup *G = &R->g[gi];
        if (!G->moving && !moved)
            continue;
        double gg = g;
        int nf = nf0;
        for (int k = 0; k < G->nfn; k++)
            nf = rfun_add(f, nf, &t->fprob[G->fn[k]], &gg);
        if (gg != 0)
            apply_runs(c, nf || G->r0_is_ro ? &G->ro : &G->r0, f, nf, gg, di, sb, y, x);
    }
}

/* The term inside anchor node an (source node on) of a complete region
 * level, reached by the walk: its path p brings di, the constant
 * factor, the moves chosen above (their functions) and whether
 * something moved. */
static void region_apply(kctx *c, int64_t an, int64_t on, const kpath *p)
{
    const kron_term *t = c->t;
    const struct kron_region *R = region_of(t->rg, c->d, an, on);
    if (!R || !(p->moved || R->any_moving))
        return;
    rfun f[4 * t->np + 2];
    double g = p->cp;
    int ng = rfun_add(f, 0, &t->rate, &g);
    for (int k = 0; k < t->np; k++)
        if (t->rg->above[k]) {
            if (c->fsel[k] >= 0)
                ng = rfun_add(f, ng, &t->fprob[c->fsel[k]], &g);
            if (c->rsel[k] >= 0)
                ng = rfun_add(f, ng, &t->fprob[c->rsel[k]], &g);
        }
    region_run(c, t, R, f, ng, g, p->moved, p->di, an * c->d->rB, on * c->d->rB);
}

/* The term's calls inside the window: the walk above an explicit region
 * level, as listed at build time. */
static void run_calls(kctx *c, const struct kron_rmap *M)
{
    const kron_term *t = c->t;
    int64_t l = 0, h = M->ncall;
    while (l < h) {         /* the first call in the window */
        const int64_t mid = l + (h - l) / 2;
        if (M->call[mid].ab < c->lo)
            l = mid + 1;
        else
            h = mid;
    }
    rfun f[4 * t->np + 2];
    for (int64_t i = l; i < M->ncall && M->call[i].ab < c->hi; i++) {
        const kron_call *C = &M->call[i];
        for (int k = 0; k < C->nfn; k++)
            f[k] = rfun_of(M->cfn[C->fn + k]);
        region_run(c, t, C->R, f, C->nfn, C->g, C->moved, C->di, C->ab, C->sb);
    }
}

/* The calls met at the region level (build time, see term_regions). */
struct callset {
    kron_call *v;
    int64_t n, cap;
    const kron_fn **fn;
    int64_t nfn, capfn;
    const char *above;      /* per participant: above the region level */
    int below;              /* the term has a participant below it */
    int tab_const;          /* its tables read no level below: their
                               values are constant in a call */
    int err;
};

static void call_fn(struct callset *cs, kron_call *C, const kron_fn *f, int64_t di)
{
    if (f->tab && cs->tab_const) {
        C->g *= f->tab[di];
    } else if (f->tab || f->pst || f->pcode) {
        if (grow((void **)&cs->fn, &cs->capfn, cs->nfn + 1, sizeof *cs->fn) < 0) {
            cs->err = 1;
            return;
        }
        cs->fn[cs->nfn++] = f;
        C->nfn++;
    } else {
        C->g *= f->c;
    }
}

static void call_record(kctx *c, int64_t an, int64_t on, const kpath *p)
{
    struct callset *cs = c->cs;
    const kron_term *t = c->t;
    if (!p->moved && !cs->below)
        return;             /* a self-loop: nothing would change */
    kron_call C = { an, on, p->di, p->cp, NULL, (int32_t)cs->nfn, 0, (int16_t)p->moved };
    call_fn(cs, &C, &t->rate, p->di);
    for (int k = 0; k < t->np; k++)
        if (cs->above[k]) {
            if (c->fsel[k] >= 0)
                call_fn(cs, &C, &t->fprob[c->fsel[k]], p->di);
            if (c->rsel[k] >= 0)
                call_fn(cs, &C, &t->fprob[c->rsel[k]], p->di);
        }
    if (C.g == 0) {
        cs->nfn = C.fn;
        return;
    }
    if (grow((void **)&cs->v, &cs->cap, cs->n + 1, sizeof *cs->v) < 0) {
        cs->err = 1;
        return;
    }
    cs->v[cs->n++] = C;
}

static void visit(kctx *c, int a, int64_t an, int64_t on, const kpath *p)
{
    const kron_tree *t = &c->d->tree;
    if ((a >= t->F || a == c->d->split) && outside(c, a, an))
        return;
    if (a == c->d->rlev && c->cs) {
        call_record(c, an, on, p);
        return;
    }
    if (a == c->d->rlev && c->t->rg && c->x && a >= t->F && inside(c, a, an)) {
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
    if (tm->rg && c->d->rcls && c->x) {   /* exit rates: the walk */
        run_calls(c, tm->rg);
        return;
    }
    kpath p = { 0, 1.0, 0 };
    visit(c, 0, 0, 0, &p);
}

/* One window: y[lo, hi) = x Q restricted to it (x NULL: exit rates). */
static void run_window(const kron_desc *d, const double *x, double *y,
                       int64_t lo, int64_t hi, int *scratch, double *cv)
{
    const int na1 = d->m->naut + 1;
    kctx c = { d, NULL, x, y, lo, hi, scratch, scratch + na1, scratch + 2 * na1, cv, NULL };
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
 * level (the first explicit level with enough nodes to share).  The
 * count and the split level are fixed before the terms are built (the
 * region level must not be above the split level). */
static int plan_windows(kron_desc *d)
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
    d->nwin = nw;
    d->nthreads = nth;
    if (d->split >= t->F)
        return 0;
    d->sleaf = first_leaves(t, d->split);
    return d->sleaf ? 0 : -1;
}

static int make_windows(kron_desc *d)
{
    const kron_tree *t = &d->tree;
    const int64_t nw = d->nwin;
    d->win = malloc((nw + 1) * sizeof *d->win);
    d->cv = malloc((size_t)d->nthreads * d->cvlen * sizeof *d->cv);
    if (!d->win || !d->cv)
        return -1;
    d->win[0] = 0;
    for (int64_t w = 1; w <= nw; w++) {
        int64_t target = (int64_t)((double)d->n * w / nw);
        if (d->split < t->F) {
            /* first node of the split level starting at or after target */
            int64_t l = 0, h = t->nodes[d->split];
            while (l < h) {
                int64_t mid = l + (h - l) / 2;
                if (d->sleaf[mid] < target)
                    l = mid + 1;
                else
                    h = mid;
            }
            target = d->sleaf[l];
        }
        if (d->rlev < t->naut && d->rlev >= t->F && d->split >= t->F)
            target -= target % d->rB;   /* complete region nodes never cut */
        d->win[w] = w == nw ? d->n : target;
        if (d->win[w] < d->win[w - 1])
            d->win[w] = d->win[w - 1];
    }
    return 0;
}

/* Q[j][j] = minus the exit rate of j; maxd over the reachable states.
 * The exit rates come from the exploration when it kept them
 * (a space built states_only, as the tensor path builds it), else
 * by walking every term with the source as the anchor.  The walk does
 * not use the region runs: on rs N=28 R=8 it took 2.2 s, 40 products'
 * worth, of a 5.5 s build.  Positions outside the reachable set (the
 * product space's) get 0 from the exploration: nothing enters them, and
 * the Jacobi steps leave a zero diagonal alone. */
static int make_diag(kron_desc *d, const san_space *sp)
{
    d->diag = malloc((d->n ? d->n : 1) * sizeof *d->diag);
    if (!d->diag)
        return -1;
    if (sp->exit) {
        if (d->n > sp->n)
            memset(d->diag, 0, d->n * sizeof *d->diag);
        SAN_OMP(omp parallel for schedule(static) if(sp->n >= PARALLEL_MIN_N))
        for (int64_t i = 0; i < sp->n; i++)
            d->diag[kron_rank(d, sp->index[i])] = sp->exit[i];
    } else {
        run_all(d, NULL, d->diag);
    }
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

/* What the regions' runs may take in all: REGION_BYTES_PER_STATE bytes
 * a vector position, at least REGION_MIN_BYTES. */
static double region_room(const kron_desc *d)
{
    const double b = (double)REGION_BYTES_PER_STATE * d->n;
    return b > REGION_MIN_BYTES ? b : REGION_MIN_BYTES;
}

/* The region level (see "The bottom of the tree").  On complete levels,
 * the first whose nodes have at most REGION_MAX leaves.  Above them, on
 * the explicit levels of the reachable tree, the highest level (the
 * fewer nodes, the less walking) whose classes hold few enough leaves
 * for about REGION_BYTES_PER_LEAF bytes of runs a leaf and a term to
 * fit in region_room, and not above the split level (an explicit region
 * node must lie in one window).  0, or -1 (memory). */
static int choose_region(kron_desc *d, int nterms)
{
    const kron_tree *t = &d->tree;
    const int na = t->naut;
    d->rlev = na;
    for (int a = t->F; a < na; a++)
        if (t->bsize[a] <= REGION_MAX) {
            d->rlev = a;
            break;
        }
    d->rB = t->bsize[d->rlev];
    const int lowest = d->nwin > 1 ? d->split : 0;
    const double per_leaf = (double)REGION_BYTES_PER_LEAF * (nterms ? nterms : 1);
    node_classes below = { 0 }, cur;
    int best = -1;
    for (int a = t->F - 1; a >= lowest; a--) {
        if (level_classes(t, a, best < 0 ? NULL : &below, &cur) < 0) {
            classes_free(&below);
            return -1;
        }
        if (per_leaf * (double)cur.leaves > region_room(d)) {
            classes_free(&cur);
            break;
        }
        classes_free(&below);
        below = cur;
        best = a;
    }
    if (best < 0) {             /* one class: the complete level's */
        d->ncls = 1;
        d->crep = calloc(1, sizeof *d->crep);
        d->csize = malloc(sizeof *d->csize);
        if (!d->crep || !d->csize)
            return -1;
        d->csize[0] = d->rB;
        d->cvlen = d->rB > d->maxns ? d->rB : d->maxns;
        return 0;
    }
    d->rlev = best;
    d->rB = 0;
    d->rcls = below.cls;
    d->ncls = below.ncls;
    d->crep = below.rep;
    d->csize = below.size;
    d->rleaf = first_leaves(t, best);
    if (!d->rleaf)
        return -1;
    d->cvlen = d->maxns;
    for (int i = 0; i < d->ncls; i++)
        d->cvlen = d->csize[i] > d->cvlen ? d->csize[i] : d->cvlen;
    d->bytes += 4.0 * t->nodes[best] + 8.0 * (t->nodes[best] + 1) + 16.0 * d->ncls;
    return 0;
}

static int key_cmp(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int call_cmp(const void *a, const void *b)
{
    const kron_call *x = a, *y = b;
    if (x->ab != y->ab)
        return x->ab < y->ab ? -1 : 1;
    return (x->sb > y->sb) - (x->sb < y->sb);
}

/* The calls of term t at an explicit region level: the product's walk,
 * done once down to that level (the source nodes are followed, no
 * vector is read), each node it reaches listed with its path; then the
 * class pairs they need.  A term whose last level is above the region
 * level is walked down to it all the same: below its last level source
 * and anchor share their digits, and its regions copy the source node's
 * states into the anchor's (on the explicit tree the walk would merge
 * child lists down to the leaves instead).  0, or -1 (memory). */
static int term_calls(kron_term *t, const kron_desc *d, struct kron_rmap *M,
                      struct callset *cs)
{
    static const double no_x[1];
    const int na = d->tree.naut;
    int scratch[3 * (na + 1)];
    kctx c = { d, t, no_x, NULL, 0, d->n, scratch, scratch + na + 1,
               scratch + 2 * (na + 1), NULL, cs };
    cs->above = M->above;
    cs->tab_const = 1;
    for (int b = d->rlev; b < na; b++)
        cs->tab_const &= t->dstride[b] == 0;
    for (int k = 0; k < t->np; k++)
        c.fsel[k] = c.rsel[k] = -1;
    kpath p = { 0, 1.0, 0 };
    visit(&c, 0, 0, 0, &p);
    if (cs->err)
        return -1;
    qsort(cs->v, cs->n, sizeof *cs->v, call_cmp);
    M->key = malloc((cs->n + 1) * sizeof *M->key);
    if (!M->key)
        return -1;
    for (int64_t i = 0; i < cs->n; i++)
        M->key[i] = (int64_t)d->rcls[cs->v[i].ab] * d->ncls + d->rcls[cs->v[i].sb];
    qsort(M->key, cs->n, sizeof *M->key, key_cmp);
    int64_t u = 0;
    for (int64_t i = 0; i < cs->n; i++)
        if (u == 0 || M->key[i] != M->key[u - 1])
            M->key[u++] = M->key[i];
    M->npair = (int)u;
    return 0;
}

/* The calls kept: those whose pair has updates that count (nodes become
 * leaf offsets). */
static void calls_resolve(const kron_desc *d, struct kron_rmap *M, struct callset *cs)
{
    int64_t put = 0;
    for (int64_t i = 0; i < cs->n; i++) {
        kron_call C = cs->v[i];
        C.R = region_of(M, d, C.ab, C.sb);
        if (!C.R || !(C.moved || C.R->any_moving))
            continue;
        C.ab = d->rleaf[C.ab];
        C.sb = d->rleaf[C.sb];
        cs->v[put++] = C;
    }
    M->ncall = put;
    M->call = cs->v;
    M->cfn = cs->fn;
    cs->v = NULL;
    cs->fn = NULL;
    M->bytes += sizeof(kron_call) * put + sizeof(*M->cfn) * cs->nfn;
}

/* The regions of term t: one per pair of classes its walk meets at the
 * region level.  t->rg stays NULL when the walk never reaches that
 * level, when a function is evaluated rather than looked up, or when the
 * runs would take more than *room bytes (the walk then goes down to the
 * leaves: slower, same result).  0, or -1 (memory). */
static int term_regions(kron_term *t, const kron_desc *d, double *room)
{
    const int c0 = d->rlev, na = d->tree.naut;
    if (c0 >= na || t->np == 0 || (t->L < c0 && !d->rcls) || t->rate.e)
        return 0;
    for (int i = 0; i < t->nfp; i++)
        if (t->fprob[i].e)
            return 0;
    struct kron_rmap *M = calloc(1, sizeof *M);
    struct callset cs = { 0 };
    int rc = -1;
    if (!M || !(M->above = calloc(t->np + 1, 1)))
        goto out;
    for (int b = 0; b < na; b++)
        if (t->kind[b] >= 0) {
            if (b < c0)
                M->above[t->kind[b]] = 1;
            else
                cs.below = 1;
        }
    if (d->rcls) {
        if (term_calls(t, d, M, &cs) < 0)
            goto out;
    } else {
        M->key = calloc(1, sizeof *M->key);
        if (!M->key)
            goto out;
        M->npair = 1;
    }
    M->r = calloc(M->npair + 1, sizeof *M->r);
    if (!M->r)
        goto out;
    M->bytes = sizeof *M + t->np + 1 + 16.0 * M->npair;
    for (int i = 0; i < M->npair; i++) {
        if (region_build(t, d, (int)(M->key[i] / d->ncls), (int)(M->key[i] % d->ncls),
                         &M->r[i]) < 0)
            goto out;
        M->bytes += M->r[i] ? M->r[i]->bytes : 0;
        if (M->bytes > *room) {
            rc = 0;
            goto out;
        }
    }
    if (d->rcls)
        calls_resolve(d, M, &cs);
    *room -= M->bytes;
    t->rg = M;
    M = NULL;
    rc = 0;
out:
    rmap_free(M);
    free(cs.v);
    free(cs.fn);
    return rc;
}

static int build_terms(kron_desc *d, const san_model *m, const int64_t *keys)
{
    tab_cache tc = { 0 };
    tc.keys = keys;
    tc.nleaves = d->n;
    int *tev = malloc((m->nev + 1) * sizeof *tev);
    int *tstart = malloc((m->nev + 2) * sizeof *tstart);
    int nt = tev && tstart ? plan_terms(m, d->n, tev, tstart) : -1;
    d->term = nt >= 0 ? calloc(nt + 1, sizeof *d->term) : NULL;
    int rc = d->term ? 0 : -1;
    for (int i = 0; rc == 0 && i < nt; i++) {
        rc = term_build(&d->term[i], m, tev + tstart[i], tstart[i + 1] - tstart[i], &tc);
        d->nterms = i + 1;
    }
    if (rc == 0)
        rc = choose_region(d, d->nterms);
    double room = region_room(d);
    for (int i = 0; rc == 0 && i < d->nterms; i++)
        rc = term_regions(&d->term[i], d, &room);
    for (int i = 0; i < d->nterms; i++)
        d->bytes += term_bytes(&d->term[i], m);
    free(tev);
    free(tstart);
    d->tab = malloc((tc.n + 1) * sizeof *d->tab);
    if (!d->tab)
        rc = -1;
    for (int i = 0; i < tc.n; i++) {
        if (d->tab)
            d->tab[d->ntab++] = tc.v[i].mem;
        else
            free(tc.v[i].mem);
        d->bytes += tc.v[i].bytes;
    }
    free(tc.v);
    return rc;
}

/* Once built, a descriptor whose terms all run from call lists (an
 * explicit region level) walks the tree no more: its explicit levels,
 * about 24-36 bytes a state on trees of many binary automata (rs N=28
 * R=8: 152 MiB for 4.8 M states), give way to the sorted indices, which
 * kron_rank searches: the space's own when it numbered its states in
 * index order (a reachability function scanned up front), else a copy
 * (8 bytes a state). */
static void drop_levels(kron_desc *d, const san_space *sp, int64_t **keys)
{
    kron_tree *t = &d->tree;
    if (!d->rcls || !*keys)
        return;
    for (int e = 0; e < d->nterms; e++)
        if (d->term[e].np > 0 && !d->term[e].rg)
            return;
    for (int a = 0; a < t->F; a++) {
        free(t->first[a]);
        free(t->val[a]);
        t->first[a] = NULL;
        t->val[a] = NULL;
    }
    d->bytes -= t->bytes;
    t->bytes = 0;
    int64_t i = 1;
    while (i < sp->n && sp->index[i - 1] < sp->index[i])
        i++;
    if (sp->n == d->n && i >= sp->n) {
        d->keys = sp->index;        /* borrowed: the space outlives d */
        return;
    }
    d->keys = *keys;
    d->keys_owned = 1;
    d->bytes += 8.0 * d->n;
    *keys = NULL;
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
        rc = plan_windows(d);
        if (rc == 0)
            rc = build_terms(d, m, keys);
    }
    if (rc == 0)
        rc = make_windows(d);
    if (rc == 0)
        rc = make_diag(d, sp);
    if (rc == 0)
        drop_levels(d, sp, &keys);
    free(keys);
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
    free(d->sleaf);
    if (d->keys_owned)
        free((void *)d->keys);
    free(d->rcls);
    free(d->rleaf);
    free(d->crep);
    free(d->csize);
    memset(d, 0, sizeof *d);
}

/* Terms and tables as kron_build would make them, without building. */
double kron_terms_bytes(const san_model *m, double nleaves)
{
    const san_expr **seen = malloc((m->nev + 1) * sizeof *seen);
    int nseen = 0;
    int *tev = malloc((m->nev + 1) * sizeof *tev);
    int *tstart = malloc((m->nev + 2) * sizeof *tstart);
    kron_term g = { 0 };
    g.kind = malloc((m->naut + 1) * sizeof *g.kind);
    g.dstride = malloc((m->naut + 1) * sizeof *g.dstride);
    int nt = tev && tstart && g.kind && g.dstride && seen
                 ? plan_terms(m, (int64_t)nleaves, tev, tstart) : -1;
    double b = 0;
    for (int i = 0; i < nt; i++) {
        const san_event *E = &m->ev[tev[tstart[i]]];
        const int nev = tstart[i + 1] - tstart[i];
        b += sizeof(kron_term) + 12.0 * m->naut + 4.0 * nev;
        for (int k = 0; k < E->nparts; k++) {
            const san_automaton *A = &m->aut[E->parts[k]];
            b += 8.0 * (A->nstates + 2) + 2.0 * sizeof(kron_move) * A->ntr;
        }
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
        /* a table per functional rate, over the automata it reads or the
         * merged term's, shared by the terms of the same function
         * (replicas), or one per state when that is smaller (8 bytes a
         * state: an upper bound, codes take 1); past TABLE_MAX entries
         * none, the function is evaluated */
        for (int j = tstart[i]; j < tstart[i + 1]; j++) {
            const san_expr *r = m->ev[tev[j]].rate;
            int k = 0;
            while (k < nseen && seen[k] != r)
                k++;
            if (!r || san_expr_is_const(r) || k < nseen)
                continue;
            seen[nseen++] = r;
            double size = msize;
            if (nev == 1) {
                int nd;
                const int *dep = san_expr_deps(r, &nd);
                size = 1;
                for (int k = 0; k < nd; k++)
                    size *= m->aut[dep[k]].nstates;
            }
            b += size > nleaves ? 8.0 * nleaves : size <= TABLE_MAX ? 8.0 * size : 0;
        }
    }
    free(seen);
    free(tev);
    free(tstart);
    free(g.kind);
    free(g.dstride);
    return b;
}
