/*
 * build.c - kron_build and kron_free (kron.h): the tree (tree.c), the
 * windows the products cut the vector into, the terms (terms.c) and
 * their regions (regions.c), the diagonal, the explicit levels dropped
 * when nothing walks them any more; and the build's tunings.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "solver/kron/kron_int.h"
#include "solver/numeric/linsolve.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

/* The defaults of kron_tuning (kron.h), once compile-time constants. */
const kron_tuning kron_tuning_default = {
    /* Largest table of a function (entries); bigger ones are evaluated. */
    .table_max = 1L << 22,
    /* Windows are at most about window_len states: every term sweeps its
     * window of y, which then stays in cache from one term to the next
     * (546 windows instead of 8 took tss.san's product from 0.286 to
     * 0.243 s). */
    .window_len = 32768,
    /* The region level: the first complete level whose nodes have at
     * most this many leaves (see "The bottom of the tree", regions.c). */
    .region_max = 4096,
    /* Explicit region levels: the runs of all terms may take this many
     * bytes a state (at least region_min_bytes), and a level is chosen by
     * REGION_BYTES_PER_LEAF (regions.c) bytes of runs per leaf of its
     * classes and term. */
    .region_bytes_per_state = 16,
    .region_min_bytes = 8.0 * (1 << 20),
    /* On explicit region levels, runs shorter than this are kept as
     * single updates (a loop over plain arrays beats a loop of short
     * loops). */
    .run_min = 8,
};

/* Windows per thread (dynamic schedule smooths uneven subtrees), and
 * below this vector length a single window (no threads).  Windows are
 * at most about window_len states (above). */
#define WINDOWS_PER_THREAD 4
#define PARALLEL_MIN_N 20000

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
    if (d->n / d->tune.window_len > nw)
        nw = d->n / d->tune.window_len;
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
    d->sleaf = kron_first_leaves(t, d->split);
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
        kron_exit_rates(d, d->diag);
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

static int build_terms(kron_desc *d, const san_model *m, const int64_t *keys)
{
    tab_cache tc = { 0 };
    tc.keys = keys;
    tc.nleaves = d->n;
    tc.table_max = d->tune.table_max;
    int *tev = malloc((m->nev + 1) * sizeof *tev);
    int *tstart = malloc((m->nev + 2) * sizeof *tstart);
    int nt = tev && tstart ? kron_plan_terms(m, d->n, d->tune.table_max, tev, tstart) : -1;
    d->term = nt >= 0 ? calloc(nt + 1, sizeof *d->term) : NULL;
    int rc = d->term ? 0 : -1;
    for (int i = 0; rc == 0 && i < nt; i++) {
        rc = kron_term_build(&d->term[i], m, tev + tstart[i], tstart[i + 1] - tstart[i], &tc);
        d->nterms = i + 1;
    }
    if (rc == 0)
        rc = kron_choose_region(d, d->nterms);
    double room = kron_region_room(d);
    for (int i = 0; rc == 0 && i < d->nterms; i++)
        rc = kron_term_regions(&d->term[i], d, &room);
    for (int i = 0; i < d->nterms; i++)
        d->bytes += kron_term_bytes(&d->term[i], m);
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
    d->levels_bytes = t->bytes;
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

int kron_build(kron_desc *d, const san_space *sp, kron_mode mode,
               const kron_tuning *tune, char *msg, size_t len)
{
    const san_model *m = sp->m;
    memset(d, 0, sizeof *d);
    d->m = m;
    d->tune = tune ? *tune : kron_tuning_default;
    if (!m->product_fits) {
        snprintf(msg, len, "the product space (%s states) exceeds 64-bit indices",
                 m->product_str);
        return -1;
    }
    d->mode = choose_mode(sp, mode);
    for (int a = 0; a < m->naut; a++)
        d->maxns = m->aut[a].nstates > d->maxns ? m->aut[a].nstates : d->maxns;
    int64_t *keys = NULL;
    int rc = d->mode == KRON_PRODUCT || sp->n == m->product
                 ? kron_tree_product(&d->tree, m)
                 : kron_tree_reachable(&d->tree, sp, &keys);
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
    if (rc == 0 && !d->tune.keep_levels)
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
    kron_tree_free(&d->tree);
    for (int e = 0; d->term && e < d->nterms; e++)
        kron_term_free(&d->term[e]);
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
