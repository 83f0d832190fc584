/*
 * mult.c - the product y = x Q over the Kronecker descriptor (kron.h).
 *
 * The product is the shuffle algorithm turned inside out for what SAN
 * models look like (factors with one or two transitions per row,
 * functions of a few automata, reachable sets much smaller than the
 * product space).  The descriptor has one term per synchronizing event
 * and one per automaton for its local events together (the local matrix
 * of the classical tensor sum; see kron_plan_terms, terms.c, for when a
 * local event keeps a term of its own).  Each term is one walk down the
 * level tree of the vector's states (see kron.h), in "pull" form: the
 * walk follows the DESTINATION state (the anchor) and, in parallel, the
 * source state (the other), which differs from it only at the
 * participants' levels.  At a participant's level the walk takes each
 * local transition into the anchor's digit; elsewhere source and
 * destination share the digit.  So every y entry is written by exactly
 * one anchor path: the vector can be cut into windows of leaves that
 * threads fill independently, with no atomics and no private copies of
 * y.
 *
 * Functions (rates, routing probabilities) are tabulated once over the
 * automata they read (for a merged term, the automata any of its events
 * reads), in the table index the walk accumulates level by level: a
 * function is never evaluated during a product, only looked up (unless
 * its table would exceed the tuning's table_max entries: then it is
 * evaluated at each use, correct but slow; tables.c).  Below the last
 * level that matters to a term (participants and dependencies), source
 * and destination subtrees coincide; where the tree is complete they are
 * contiguous blocks, and the term becomes y[block] += c * x[block].
 * Near the leaves of the complete levels the walk stops at the region
 * level and the term's action inside a node is a list of runs built once
 * (regions.c, "The bottom of the tree"): long vector loops instead of
 * one call per small node.
 *
 * Product space or reachable set: both are the same code.  The product
 * space is the tree with every level complete (implicit: no lookups,
 * the bottom levels done by runs).  The reachable set is an explicit
 * tree; walked down to the leaves by merging sorted child lists, it
 * cost 18 to 35 times the implicit tree per state, so it has a region
 * level of its own: nodes whose subtrees hold the same states form a
 * class, the runs are listed per pair of classes (anchor, source), and
 * the walk above the region level is done once at build time and kept
 * as a list of calls (regions.c).  A product is then, per term, its
 * calls in the window, each running its pair's runs.
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
 * every term runs from calls: drop_levels, build.c) and the region runs
 * (at most the tuning's region_bytes_per_state, 16 bytes a state) for
 * any method with a few vectors.  Above 0.85 the product space's
 * lookup-free levels win (pipeline).  Before the merged local terms and
 * the runs, the product space took 4 (tss) to 18 times longer; the merge
 * alone would have been slower (tss 0.59 s against 0.54 single thread),
 * with the runs it saves 2-6%.
 *
 * The walk is kept in this one file so that its steps inline into one
 * another; the build (build.c, regions.c) reaches it through
 * kron_exit_rates and kron_walk_calls, the aggregation (solve.c,
 * numeric/aggregate.c) through kron_flows, at the end.  The flows walk
 * from the sources like the exit rates, following the destinations as
 * the product follows the sources; they read the explicit levels, and
 * no region runs: on tss.san's 1,987,983-state variant a flow walk of
 * a (source, queue) partition took 0.10-0.25 s where a product took
 * 0.076 s (the machine shared, 2 cores).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "base/grow.h"
#include "solver/kron/kron_int.h"
#include "solver/numeric/linsolve.h"
#include "lang/model_int.h"

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
    /* Flows (kron_flows): the walk of the exit rates (anchor = source)
     * that also follows the destination node, and adds x_i q_ij into
     * F[blk[i]][blk[j]] (B x B, this thread's) instead of writing y. */
    const double *fx;       /* x of the flows; NULL: not a flow walk */
    const uint16_t *blk;
    double *F;
    int64_t B;
    /* Sparse flows (kron_flows_sparse): F holds one value per entry of
     * the pattern sptr/scol (by source block, columns ascending); the
     * pattern pass (kron_flows_pattern) records the pairs into pset.
     * Their blocks are blk32: the coarse levels of the multilevel
     * method outgrow 16 bits (kron_flows_pattern says why). */
    const uint32_t *blk32;
    const int64_t *sptr;
    const int32_t *scol;
    struct kron_pairset *pset;
    /* Line rates (kron_line_rates): the rates of i -> i + 1 and
     * i -> i - 1 summed into lup[i], ldn[i] instead of flows. */
    double *lup, *ldn;
} kctx;

/* A set of (source, destination) block pairs: open addressing on
 * bs * 2^32 + bd + 1 (0: empty), grown at half load; at most max
 * pairs (over: one more was met): 8 bytes a slot, at most 4 slots a
 * pair, 6 while it grows (the old table and the new), so at most 48
 * bytes a pair (KRON_PAIR_BYTES). */
struct kron_pairset {
    uint64_t *k;
    size_t cap, n, max;
    int oom, over;
};

/* The tables are mapped from the system (zeroed), not malloc'd: the
 * walk's threads grow and drop them, and glibc keeps what a thread
 * frees in that thread's arena, resident to the end of the process.
 * Measured on rs 18 processes, 9 resources, --lump off, -m ml over
 * kron, --max-memory 60M: the second thread's arena held 8 MiB free
 * (its last table) through every cycle, a peak of 66.0 MiB; 59.1 with
 * the tables mapped and the cycles' vectors kept (multilevel.c). */
static uint64_t *pairset_table(size_t cap)
{
    void *p = mmap(NULL, cap * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void pairset_drop(struct kron_pairset *s)
{
    if (s->k)
        munmap(s->k, s->cap * sizeof *s->k);
    s->k = NULL;
}

static void pairset_add(struct kron_pairset *s, uint64_t key)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 1024;
        uint64_t *nk = pairset_table(nc);
        if (!nk) {
            s->oom = 1;
            return;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->k[i]) {
                size_t h = (size_t)(s->k[i] * 0x9E3779B97F4A7C15ull) & (nc - 1);
                while (nk[h])
                    h = (h + 1) & (nc - 1);
                nk[h] = s->k[i];
            }
        pairset_drop(s);
        s->k = nk;
        s->cap = nc;
    }
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
    while (s->k[h]) {
        if (s->k[h] == key)
            return;
        h = (h + 1) & (s->cap - 1);
    }
    if (s->n >= s->max) {
        s->over = 1;
        return;
    }
    s->k[h] = key;
    s->n++;
}

/* The flow of one pair into the sparse F (pairs outside the pattern
 * cannot occur: the pattern pass walked the same terms). */
static inline void flow_sparse(kctx *c, int64_t bs, int64_t bd, double f)
{
    if (c->pset) {
        if (!c->pset->oom && !c->pset->over)
            pairset_add(c->pset, ((uint64_t)bs << 32) + (uint64_t)bd + 1);
        return;
    }
    int64_t lo = c->sptr[bs], hi = c->sptr[bs + 1];
    while (lo < hi) {
        int64_t mid = (lo + hi) >> 1;
        if (c->scol[mid] < bd)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->sptr[bs + 1] && c->scol[lo] == bd)
        c->F[lo] += f;
}

/* Does the walk follow the other node (the source of a product, the
 * destination of a flow walk)? */
static inline int follow(const kctx *c)
{
    return c->x || c->fx;
}

/* Flows of the states i in [lo, hi) to i + off, at rate v each. */
static inline void flow_range(kctx *c, int64_t lo, int64_t hi, int64_t off, double v)
{
    const double *restrict x = c->fx;
    if (c->lup) {
        double *restrict r = off == 1 ? c->lup : off == -1 ? c->ldn : NULL;
        if (r)
            for (int64_t i = lo; i < hi; i++)
                r[i] += v;
        return;
    }
    if (c->sptr || c->pset) {
        const uint32_t *restrict b32 = c->blk32;
        for (int64_t i = lo; i < hi; i++)
            if (b32[i] != b32[i + off])
                flow_sparse(c, b32[i], b32[i + off], v * x[i]);
        return;
    }
    const uint16_t *restrict blk = c->blk;
    double *restrict F = c->F;
    for (int64_t i = lo; i < hi; i++) {
        const int bs = blk[i], bd = blk[i + off];
        if (bs != bd)
            F[bs * c->B + bd] += v * x[i];
    }
}

static inline double fn_at(const kron_fn *f, int64_t di, int64_t sr, const int *src)
{
    if (f->tab)
        return f->tab[di];
    if (f->pcode)
        return f->pval[f->pcode[sr]];
    if (f->pst)
        return f->pst[sr];
    return f->e ? kron_finite(san_expr_eval(f->e, src)) : f->c;
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
    if (c->fx) {
        flow_range(c, lo, hi, oc * B - alo, v);
        return;
    }
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
    const int fo = follow(c);
    int64_t o = fo ? t->first[b][oc] : 0, o1 = fo ? t->first[b][oc + 1] : 0;
    for (int64_t cc = t->first[b][ac]; cc < t->first[b][ac + 1]; cc++) {
        if (fo) {       /* merge the sorted child lists */
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
            cv[w] *= kron_finite(san_expr_eval(f->e, c->src));
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
    if (c->fx) {        /* no move at this level: leaf r -> leaf r */
        for (int w = 0; w < n; w++)
            if (cv[w] != 0)
                flow_range(c, (an * n + w) * B, (an * n + w + 1) * B, (on - an) * n * B,
                           cv[w]);
        return;
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
    double *restrict y = c->y ? c->y + an * n * B : NULL;     /* NULL: flows */
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
            if (c->fx) {    /* source leaves below w, destinations below u */
                flow_range(c, (an * n + w) * B, (an * n + w + 1) * B,
                           (on * n + u - an * n - w) * B, v);
                continue;
            }
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
            int64_t oc = follow(c) ? tree_child(t, a, on, mv->other) : 0;
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
    const int fo = follow(c);
    if (a >= t->F) {
        for (int64_t ac = c0; ac < c1; ac++)
            descend(c, a, ac, fo ? on * t->ns[a] + (ac - c0) : 0, (int)(ac - c0),
                    (int)(ac - c0), NULL, p);
        return;
    }
    const int32_t *val = t->val[a];
    if (fo)
        children(t, a, on, &o0, &o1);
    for (int64_t ac = c0; ac < c1; ac++) {
        const int w = val[ac];
        if (fo) {
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

/* Build time: the calls met at the region level (struct callset,
 * kron_int.h; see kron_walk_calls below and term_calls, regions.c). */
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
    kctx c = { d, NULL, x, y, lo, hi, scratch, scratch + na1, scratch + 2 * na1, cv, NULL,
               NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL };
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

void kron_exit_rates(const kron_desc *d, double *y)
{
    run_all(d, NULL, y);
}

/* The calls of term t (regions.c: term_calls) from the product's own
 * walk, which records them at the region level instead of applying
 * anything (no vector is read: x is a dummy, never NULL, so that the
 * source nodes are followed). */
void kron_walk_calls(const kron_desc *d, const kron_term *t, struct callset *cs)
{
    static const double no_x[1];
    const int na = d->tree.naut;
    int scratch[3 * (na + 1)];
    kctx c = { d, t, no_x, NULL, 0, d->n, scratch, scratch + na + 1,
               scratch + 2 * (na + 1), NULL, cs, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL,
               NULL, NULL };
    for (int k = 0; k < t->np; k++)
        c.fsel[k] = c.rsel[k] = -1;
    kpath p = { 0, 1.0, 0 };
    visit(&c, 0, 0, 0, &p);
}

/* ------------------------------------------------------------------ */
/* Flows between the blocks of a partition (kron_flows)                 */
/* ------------------------------------------------------------------ */

int kron_flows_ok(const kron_desc *d)
{
    for (int a = 0; a < d->tree.F; a++)
        if (!d->tree.first[a] || !d->tree.val[a])
            return 0;
    return 1;
}

/* Does term t move a level of lev (NULL: any level)? */
static int term_moves(const kron_term *t, const char *lev, int naut)
{
    if (t->np == 0)
        return 0;
    if (!lev)
        return 1;
    for (int a = 0; a < naut; a++)
        if (t->kind[a] >= 0 && lev[a])
            return 1;
    return 0;
}

/* Every term that moves a level of lev walked over c's window of
 * sources (the flows' and the line rates' walk). */
static void visit_moving(kctx *c, const char *lev)
{
    const kron_desc *d = c->d;
    for (int e = 0; e < d->nterms; e++) {
        const kron_term *t = &d->term[e];
        if (!term_moves(t, lev, d->tree.naut))
            continue;
        c->t = t;
        for (int k = 0; k < t->np; k++)
            c->fsel[k] = c->rsel[k] = -1;
        kpath p = { 0, 1.0, 0 };
        visit(c, 0, 0, 0, &p);
    }
}

/* One window of source leaves [lo, hi): every term that moves a level
 * of lev walked from the sources, its flows into F. */
static void flows_window(const kron_desc *d, const char *lev, const uint16_t *blk,
                         const uint32_t *blk32, int64_t B, const double *x, double *F,
                         int64_t lo, int64_t hi, int *scratch, double *cv,
                         const int64_t *sptr, const int32_t *scol, struct kron_pairset *pset)
{
    const int na1 = d->m->naut + 1;
    kctx c = { d, NULL, NULL, NULL, lo, hi, scratch, scratch + na1, scratch + 2 * na1, cv,
               NULL, x, blk, F, B, blk32, sptr, scol, pset, NULL, NULL };
    visit_moving(&c, lev);
}

int kron_line_rates(const kron_desc *d, const char *lev, double *up, double *dn)
{
    if (!kron_flows_ok(d))
        return 1;
    memset(up, 0, (size_t)d->n * sizeof *up);
    memset(dn, 0, (size_t)d->n * sizeof *dn);
    const int nt = kron_flows_threads(d);
    /* each window's sources are its own: the threads write apart */
    SAN_OMP(omp parallel for schedule(dynamic, 1) if(nt > 1) num_threads(nt))
    for (int64_t w = 0; w < d->nwin; w++) {
        const int na1 = d->m->naut + 1;
        int scratch[3 * na1];
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        kctx c = { d, NULL, NULL, NULL, d->win[w], d->win[w + 1], scratch, scratch + na1,
                   scratch + 2 * na1, d->cv + (size_t)tid * d->cvlen, NULL, up, NULL, NULL,
                   0, NULL, NULL, NULL, NULL, up, dn };
        visit_moving(&c, lev);
    }
    return 0;
}

int kron_flows_threads(const kron_desc *d)
{
    return d->nwin > 1 ? d->nthreads : 1;
}

/* KRON_FLOWS_SCHEDULE: the flows of the windows are summed per thread
 * and the threads' sums added in thread order; with a dynamic schedule
 * the windows a thread took varied from run to run, so F's last bits
 * did, and through the aggregation every method's path: pipe7 --lump off
 * --storage kron, 2 threads, the same input, -m bicgstab --tol 1e-8 took
 * 376 or 454 iterations (6 runs), -m power --tol 1e-5 gave three
 * different vectors in three runs.  Round-robin windows (static, 1)
 * keep the balance of the dynamic schedule on windows of like cost and
 * make the runs identical. */
int kron_flows_into(const kron_desc *d, const uint16_t *blk, int B, const char *lev,
                    const double *x, double *F, double *tf)
{
    if (!kron_flows_ok(d))
        return 1;
    const int64_t nw = d->nwin;
    const int nt = kron_flows_threads(d);
    const size_t BB = (size_t)B * B;
    if (nt > 1)
        memset(tf, 0, (size_t)(nt - 1) * BB * sizeof *tf);
    /* static: each thread's sum over the same windows in every run (see
     * KRON_FLOWS_SCHEDULE) */
    SAN_OMP(omp parallel for schedule(static, 1) if(nt > 1) num_threads(nt))
    for (int64_t w = 0; w < nw; w++) {
        int scratch[3 * (d->m->naut + 1)];
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        flows_window(d, lev, blk, NULL, B, x, tid ? tf + (size_t)(tid - 1) * BB : F,
                     d->win[w], d->win[w + 1], scratch, d->cv + (size_t)tid * d->cvlen,
                     NULL, NULL, NULL);
    }
    for (int t = 1; t < nt; t++)
        for (size_t k = 0; k < BB; k++)
            F[k] += tf[(size_t)(t - 1) * BB + k];
    return 0;
}

int kron_flows(const kron_desc *d, const uint16_t *blk, int B, const char *lev,
               const double *x, double *F)
{
    const int nt = kron_flows_threads(d);
    double *tf = nt > 1 ? malloc((size_t)(nt - 1) * B * B * sizeof *tf) : NULL;
    if (nt > 1 && !tf)
        return -1;
    int rc = kron_flows_into(d, blk, B, lev, x, F, tf);
    free(tf);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int kron_flows_pattern(const kron_desc *d, const uint32_t *blk, int64_t B, const double *x,
                       int64_t max_pairs, int64_t **ptr, int32_t **col)
{
    *ptr = NULL;
    *col = NULL;
    if (!kron_flows_ok(d))
        return 1;
    const int64_t nw = d->nwin;
    const int nt = nw > 1 ? d->nthreads : 1;
    struct kron_pairset *ps = calloc((size_t)nt, sizeof *ps);
    if (!ps)
        return -1;
    for (int t = 0; t < nt; t++)
        ps[t].max = (size_t)max_pairs;
    /* one walk, one set per thread (each window walked by one thread) */
    SAN_OMP(omp parallel for schedule(dynamic, 1) if(nt > 1) num_threads(nt))
    for (int64_t w = 0; w < nw; w++) {
        int scratch[3 * (d->m->naut + 1)];
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        flows_window(d, NULL, NULL, blk, B, x, NULL, d->win[w], d->win[w + 1], scratch,
                     d->cv + (size_t)tid * d->cvlen, NULL, NULL, &ps[tid]);
    }
    size_t tot = 0;
    int oom = 0, over = 0;
    for (int t = 0; t < nt; t++) {
        tot += ps[t].n;
        oom |= ps[t].oom;
        over |= ps[t].over;
    }
    if (over && !oom) {
        for (int t = 0; t < nt; t++)
            pairset_drop(&ps[t]);
        free(ps);
        return 2;
    }
    uint64_t *all = oom ? NULL : malloc((tot ? tot : 1) * sizeof *all);
    int64_t *p = calloc((size_t)B + 1, sizeof *p);
    size_t m = 0;
    for (int t = 0; t < nt; t++) {
        for (size_t i = 0; all && i < ps[t].cap; i++)
            if (ps[t].k[i])
                all[m++] = ps[t].k[i] - 1;
        pairset_drop(&ps[t]);
    }
    free(ps);
    if (!all || !p) {
        free(all);
        free(p);
        return -1;
    }
    qsort(all, m, sizeof *all, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || all[i] != all[u - 1])
            all[u++] = all[i];
    int32_t *c = malloc((u ? u : 1) * sizeof *c);
    if (!c) {
        free(all);
        free(p);
        return -1;
    }
    for (size_t i = 0; i < u; i++) {
        p[(all[i] >> 32) + 1]++;
        c[i] = (int32_t)(all[i] & 0xFFFFFFFFu);
    }
    for (int64_t b = 0; b < B; b++)
        p[b + 1] += p[b];
    free(all);
    *ptr = p;
    *col = c;
    return 0;
}

int kron_flows_sparse(const kron_desc *d, const uint32_t *blk, int64_t B, const int64_t *ptr,
                      const int32_t *col, const double *x, double *F, double *tf)
{
    if (!kron_flows_ok(d))
        return 1;
    const int64_t nw = d->nwin, nnz = ptr[B];
    const int nt = kron_flows_threads(d);
    memset(F, 0, (size_t)nnz * sizeof *F);
    if (nt > 1)
        memset(tf, 0, (size_t)(nt - 1) * (size_t)nnz * sizeof *tf);
    SAN_OMP(omp parallel for schedule(static, 1) if(nt > 1) num_threads(nt))
    for (int64_t w = 0; w < nw; w++) {
        int scratch[3 * (d->m->naut + 1)];
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        flows_window(d, NULL, NULL, blk, B, x, tid ? tf + (size_t)(tid - 1) * nnz : F,
                     d->win[w], d->win[w + 1], scratch, d->cv + (size_t)tid * d->cvlen,
                     ptr, col, NULL);
    }
    for (int t = 1; t < nt; t++)
        for (int64_t k = 0; k < nnz; k++)
            F[k] += tf[(size_t)(t - 1) * nnz + k];
    return 0;
}
