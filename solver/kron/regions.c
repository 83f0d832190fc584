/*
 * regions.c - the region level: the bottom of the tree (kron.h).
 *
 * Near the leaves the walk would spend its time on small nodes: a level
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
 * and most runs are single updates, kept apart as plain arrays.
 *
 * The types (kron_run, kron_runs, kron_rgroup, kron_region, kron_call,
 * kron_rmap) are in kron_int.h: mult.c applies them.
 */
#include <stdlib.h>
#include <string.h>
#include "base/grow.h"
#include "solver/kron/kron_int.h"
#include "lang/model_int.h"

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

void kron_rmap_free(struct kron_rmap *M)
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
            K->o1[K->n1++] = (int32_t)(R.o + i * R.os); /* in a table: < table_max */
        }
    }
    K->seg[K->nseg] = K->n1;
    K->run = realloc(v, (K->nrun ? K->nrun : 1) * sizeof *v);
    if (!K->run)
        K->run = v;
    /* seg and segp were sized for a segment an update; runs_bytes counts
     * nseg (rs 18/9: 1.5 MB held past the budget's count) */
    int32_t *sg = realloc(K->seg, (K->nseg + 1) * sizeof *sg);
    double *sp = realloc(K->segp, (K->nseg ? K->nseg : 1) * sizeof *sp);
    K->seg = sg ? sg : K->seg;
    K->segp = sp ? sp : K->segp;
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
    const int64_t first = kron_tree_leaf(t, a, k);
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
        const int run_min = d->rcls ? d->tune.run_min : 2;
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

/* What the regions' runs may take in all: region_bytes_per_state bytes
 * a vector position, at least region_min_bytes (kron_tuning). */
double kron_region_room(const kron_desc *d)
{
    const double b = d->tune.region_bytes_per_state * d->n;
    return b > d->tune.region_min_bytes ? b : d->tune.region_min_bytes;
}

/* The region level (see "The bottom of the tree").  On complete levels,
 * the first whose nodes have at most region_max leaves (kron_tuning).  Above them, on
 * the explicit levels of the reachable tree, the highest level (the
 * fewer nodes, the less walking) whose classes hold few enough leaves
 * for about REGION_BYTES_PER_LEAF bytes of runs a leaf and a term to
 * fit in region_room, and not above the split level (an explicit region
 * node must lie in one window).  0, or -1 (memory). */
int kron_choose_region(kron_desc *d, int nterms)
{
    const kron_tree *t = &d->tree;
    const int na = t->naut;
    d->rlev = na;
    for (int a = t->F; a < na; a++)
        if (t->bsize[a] <= d->tune.region_max) {
            d->rlev = a;
            break;
        }
    d->rB = t->bsize[d->rlev];
    const int lowest = d->nwin > 1 ? d->split : 0;
    const double per_leaf = (double)REGION_BYTES_PER_LEAF * (nterms ? nterms : 1);
    node_classes below = { 0 }, cur;
    int best = -1;
    for (int a = t->F - 1; a >= lowest; a--) {
        if (kron_level_classes(t, a, best < 0 ? NULL : &below, &cur) < 0) {
            kron_classes_free(&below);
            return -1;
        }
        if (per_leaf * (double)cur.leaves > kron_region_room(d)) {
            kron_classes_free(&cur);
            break;
        }
        kron_classes_free(&below);
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
    d->rleaf = kron_first_leaves(t, best);
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

/* The calls of term t at an explicit region level: the product's walk
 * (mult.c), done once down to that level (the source nodes are
 * followed, no vector is read), each node it reaches listed with its
 * path; then the class pairs they need.  A term whose last level is above the region
 * level is walked down to it all the same: below its last level source
 * and anchor share their digits, and its regions copy the source node's
 * states into the anchor's (on the explicit tree the walk would merge
 * child lists down to the leaves instead).  0, or -1 (memory). */
static int term_calls(kron_term *t, const kron_desc *d, struct kron_rmap *M,
                      struct callset *cs)
{
    const int na = d->tree.naut;
    cs->above = M->above;
    cs->tab_const = 1;
    for (int b = d->rlev; b < na; b++)
        cs->tab_const &= t->dstride[b] == 0;
    kron_walk_calls(d, t, cs);
    if (cs->err)
        return -1;
    if (cs->n)          /* an event that never fires has no calls (v NULL) */
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
    /* the list grew by doubling: M->bytes counts the calls kept */
    kron_call *kept = realloc(cs->v, (put ? put : 1) * sizeof *kept);
    cs->v = kept ? kept : cs->v;
    M->call = cs->v;
    M->cfn = cs->fn;
    cs->v = NULL;
    cs->fn = NULL;
    M->bytes += sizeof(kron_call) * put + sizeof(*M->cfn) * cs->nfn;
}

/* The entries region_build lists for an anchor node of B leaves, at
 * most: each leaf times every combination of the moves into it of the
 * participants below the region level.  Its buffers (the entries, 32
 * bytes, doubled as they grow; the runs made from them) take about
 * REGION_BUILD_BYTES an entry while it runs: bounded first, so that a
 * term with 2^N combinations (N replicas routing on one synchronizing
 * event: 2^24 entries and 1.5 GB for N = 12 at a complete level of 4096
 * leaves) is walked down to the leaves instead of listed. */
#define REGION_BUILD_BYTES 128.0
static double region_entries_bound(const kron_term *t, const kron_desc *d, int64_t B)
{
    double bound = (double)B;
    for (int b = d->rlev; b < d->tree.naut; b++) {
        if (t->kind[b] < 0)
            continue;
        const kron_part *P = &t->in[t->kind[b]];
        int most = 0;
        for (int w = 0; w < d->m->aut[b].nstates; w++)
            if (P->ptr[w + 1] - P->ptr[w] > most)
                most = P->ptr[w + 1] - P->ptr[w];
        bound *= most;
    }
    return bound;
}

/* The regions of term t: one per pair of classes its walk meets at the
 * region level.  t->rg stays NULL when the walk never reaches that
 * level, when a function is evaluated rather than looked up, or when the
 * runs, or the entries they are made from, would take more than *room
 * bytes (the walk then goes down to the leaves: slower, same result).
 * 0, or -1 (memory). */
int kron_term_regions(kron_term *t, const kron_desc *d, double *room)
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
        const int ca = (int)(M->key[i] / d->ncls);
        if (REGION_BUILD_BYTES * region_entries_bound(t, d, d->csize[ca]) > *room - M->bytes) {
            rc = 0;             /* too many to list: the walk goes to the leaves */
            goto out;
        }
        if (region_build(t, d, ca, (int)(M->key[i] % d->ncls), &M->r[i]) < 0)
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
    kron_rmap_free(M);
    free(cs.v);
    free(cs.fn);
    return rc;
}
