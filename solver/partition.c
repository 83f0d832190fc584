/*
 * partition.c - the partitions that aggregation checks and corrects
 * (partition.h says which and why).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "partition.h"
#include "succ.h"

/* Raw block numbers of a group of automata go through uint16_t: groups
 * with more joint states than this are skipped. */
#define RAW_MAX 65536

/* The fractions of its source's exit rate below which a transition is
 * "slow" for san_parts_add_fast: one partition per threshold that gives
 * a new one.  Three decades apart, so that chains with several time
 * scales (rates at 1e-4, 1e-2, 1, 1e2, 1e4) get one per gap. */
static const double fast_theta[] = { 1e-2, 1e-5, 1e-8 };

void san_parts_free(san_parts *P)
{
    for (int i = 0; i < P->n; i++) {
        free(P->p[i].blk);
        free(P->p[i].aut);
    }
    free(P->p);
    memset(P, 0, sizeof *P);
}

/* Takes blk (malloc'd, n entries). */
static int push(san_parts *P, int nblk, uint16_t *blk, int64_t n, const char *what)
{
    if (P->n == P->cap) {
        int cap = P->cap ? 2 * P->cap : 16;
        san_part *p = realloc(P->p, cap * sizeof *p);
        if (!p) {
            free(blk);
            return -1;
        }
        P->p = p;
        P->cap = cap;
    }
    san_part *q = &P->p[P->n++];
    memset(q, 0, sizeof *q);
    q->nblk = nblk;
    q->blk = blk;
    snprintf(q->what, sizeof q->what, "%s", what);
    P->bytes += 2.0 * (double)n;
    return 0;
}

/* Renumbers the raw block numbers in blk to the ones in use, in
 * increasing order; returns how many are in use. */
static int compress(uint16_t *blk, int64_t n, int64_t nraw, int32_t *map)
{
    for (int64_t r = 0; r < nraw; r++)
        map[r] = -1;
    for (int64_t p = 0; p < n; p++)
        map[blk[p]] = 0;
    int nblk = 0;
    for (int64_t r = 0; r < nraw; r++)
        if (map[r] == 0)
            map[r] = nblk++;
    for (int64_t p = 0; p < n; p++)
        blk[p] = (uint16_t)map[blk[p]];
    return nblk;
}

/* The partition by the joint local state of automata g[0..k). */
static int add_group(san_parts *P, const san_model *m, int64_t n, const int64_t *idx,
                     const int *g, int k, const char *what)
{
    int64_t nraw = 1;
    for (int i = 0; i < k; i++)
        nraw *= m->aut[g[i]].nstates;
    if (nraw < 2 || nraw > RAW_MAX)
        return 0;
    uint16_t *blk = malloc((size_t)(n ? n : 1) * sizeof *blk);
    int32_t *map = malloc((size_t)nraw * sizeof *map);
    if (!blk || !map) {
        free(blk);
        free(map);
        return -1;
    }
    for (int64_t p = 0; p < n; p++) {
        int64_t x = idx ? idx[p] : p, raw = 0;
        for (int i = 0; i < k; i++) {
            int a = g[i];
            raw = raw * m->aut[a].nstates + (x / m->stride[a]) % m->aut[a].nstates;
        }
        blk[p] = (uint16_t)raw;
    }
    int nblk = compress(blk, n, nraw, map);
    free(map);
    if (nblk < 2 || nblk > SAN_PART_MAX_BLOCKS || nblk >= n) {
        free(blk);
        return 0;
    }
    int *aut = malloc(k * sizeof *aut);
    if (!aut || push(P, nblk, blk, n, what) < 0) {
        free(aut);
        return -1;
    }
    memcpy(aut, g, k * sizeof *aut);
    P->p[P->n - 1].aut = aut;
    P->p[P->n - 1].naut = k;
    return 0;
}

static int same_part(const san_part *a, const san_part *b, int64_t n)
{
    return a->nblk == b->nblk && memcmp(a->blk, b->blk, (size_t)n * sizeof *a->blk) == 0;
}

/* Some kept partition other than skip is a group holding automaton a. */
static int covered(const san_parts *P, const char *keep, int skip, int a)
{
    for (int i = 0; i < P->n; i++)
        if (keep[i] && i != skip && P->p[i].naut > 1)
            for (int k = 0; k < P->p[i].naut; k++)
                if (P->p[i].aut[k] == a)
                    return 1;
    return 0;
}

void san_parts_prune(san_parts *P, int64_t n)
{
    char *keep = malloc(P->n + 1);
    if (!keep)
        return;             /* nothing dropped: only slower */
    for (int i = 0; i < P->n; i++) {
        keep[i] = 1;
        for (int j = 0; j < i && keep[i]; j++)
            if (keep[j] && same_part(&P->p[i], &P->p[j], n))
                keep[i] = 0;
    }
    for (int i = 0; i < P->n; i++)
        if (keep[i] && P->p[i].naut == 1 && covered(P, keep, i, P->p[i].aut[0]))
            keep[i] = 0;
    int k = 0;
    for (int i = 0; i < P->n; i++) {
        if (keep[i]) {
            P->p[k++] = P->p[i];
        } else {
            free(P->p[i].blk);
            free(P->p[i].aut);
            P->bytes -= 2.0 * (double)n;
        }
    }
    P->n = k;
    free(keep);
}

/* The automata event e couples: its participants and the automata its
 * rate and its routing probabilities read, ascending, into g; count. */
static int coupled(const san_model *m, int e, int *g, char *in)
{
    const san_event *E = &m->ev[e];
    memset(in, 0, m->naut);
    for (int k = 0; k < E->nparts; k++)
        in[E->parts[k]] = 1;
    int nd;
    const int *dep = san_expr_deps(E->rate, &nd);
    for (int k = 0; k < nd; k++)
        in[dep[k]] = 1;
    for (int k = 0; k < E->nparts; k++) {
        const san_automaton *A = &m->aut[E->parts[k]];
        for (int t = 0; t < A->ntr; t++)
            if (A->tr[t].event == e && A->tr[t].prob) {
                dep = san_expr_deps(A->tr[t].prob, &nd);
                for (int j = 0; j < nd; j++)
                    in[dep[j]] = 1;
            }
    }
    int k = 0;
    for (int a = 0; a < m->naut; a++)
        if (in[a])
            g[k++] = a;
    return k;
}

static int same_group(const int *a, int na, const int *b, int nb)
{
    return na == nb && memcmp(a, b, na * sizeof *a) == 0;
}

int san_parts_add_model(san_parts *P, const san_model *m, int64_t n,
                        const int64_t *idx, double budget)
{
    char what[96];
    for (int a = 0; a < m->naut; a++) {
        if (P->bytes + 2.0 * n > budget)
            return 0;
        snprintf(what, sizeof what, "automaton %s", m->aut[a].name);
        if (add_group(P, m, n, idx, &a, 1, what) < 0)
            return -1;
    }
    /* groups of two or more automata, each distinct set once */
    int *g = malloc((m->naut + 1) * sizeof *g);
    int *seen = malloc(((size_t)m->nev + 1) * (m->naut + 1) * sizeof *seen);
    int *nseen = calloc(m->nev + 1, sizeof *nseen);
    char *in = malloc(m->naut + 1);
    int rc = g && seen && nseen && in ? 0 : -1;
    int ns = 0;
    for (int e = 0; rc == 0 && e < m->nev && P->bytes + 2.0 * n <= budget; e++) {
        int k = coupled(m, e, g, in);
        if (k < 2 || k == m->naut)
            continue;
        int dup = 0;
        for (int s = 0; s < ns && !dup; s++)
            dup = same_group(seen + (size_t)s * (m->naut + 1), nseen[s], g, k);
        if (dup)
            continue;
        memcpy(seen + (size_t)ns * (m->naut + 1), g, k * sizeof *g);
        nseen[ns++] = k;
        int len = snprintf(what, sizeof what, "automata");
        for (int i = 0; i < k && len < (int)sizeof what; i++)
            len += snprintf(what + len, sizeof what - len, "%s %s", i ? "," : "",
                            m->aut[g[i]].name);
        if (len < (int)sizeof what)
            snprintf(what + len, sizeof what - len, " (event %s)", m->ev[e].name);
        rc = add_group(P, m, n, idx, g, k, what);
    }
    free(g);
    free(seen);
    free(nseen);
    free(in);
    return rc;
}

/* ---- fast components (sparse path) ---- */

static int32_t uf_find(int32_t *parent, int32_t i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void uf_union(int32_t *parent, int32_t i, int32_t j)
{
    int32_t a = uf_find(parent, i), b = uf_find(parent, j);
    if (a != b)         /* the root stays the smallest member */
        parent[a < b ? b : a] = a < b ? a : b;
}

/* Numbers the components of parent[0..n) in blk when there are 2 to
 * SAN_PART_MAX_BLOCKS of them; returns their count. */
static int label(int32_t *parent, int64_t n, uint16_t *blk)
{
    int ncomp = 0;
    for (int64_t i = 0; i < n; i++)
        if (uf_find(parent, (int32_t)i) == i)
            ncomp++;
    if (ncomp < 2 || ncomp > SAN_PART_MAX_BLOCKS)
        return ncomp;
    /* roots are the smallest member: number them in order of first use */
    int next = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t r = uf_find(parent, (int32_t)i);
        if (r == i)
            blk[i] = (uint16_t)next++;
        else
            blk[i] = blk[r];
    }
    return ncomp;
}

#define NTHETA ((int)(sizeof fast_theta / sizeof *fast_theta))

/* One union-find forest per threshold, over n positions. */
typedef struct {
    int64_t n;
    int32_t *parent[NTHETA];
    double coupling[NTHETA];    /* see san_part.coupling */
} forests;

static int forests_init(forests *F, int64_t n)
{
    memset(F, 0, sizeof *F);
    F->n = n;
    for (int k = 0; k < NTHETA; k++) {
        F->parent[k] = malloc((size_t)(n ? n : 1) * sizeof **F->parent);
        if (!F->parent[k])
            return -1;
        for (int64_t i = 0; i < n; i++)
            F->parent[k][i] = (int32_t)i;
    }
    return 0;
}

static void forests_free(forests *F)
{
    for (int k = 0; k < NTHETA; k++)
        free(F->parent[k]);
}

/* The transition i -> j at rate q out of exit rate d joins i and j in
 * the forest of every threshold it passes. */
static inline void forests_arc(forests *F, int64_t i, int64_t j, double q, double d)
{
    for (int k = 0; k < NTHETA && q >= fast_theta[k] * d; k++)
        uf_union(F->parent[k], (int32_t)i, (int32_t)j);
}

/* Once the forests are complete: the transitions between two
 * components, relative to their source's exit rate, the largest. */
static inline void forests_cross(forests *F, int64_t i, int64_t j, double q, double d)
{
    for (int k = 0; k < NTHETA; k++)
        if (uf_find(F->parent[k], (int32_t)i) != uf_find(F->parent[k], (int32_t)j) &&
            q > F->coupling[k] * d)
            F->coupling[k] = q / d;
}

/* A partition per threshold that gives a new one (thresholds go down,
 * components only merge). */
static int forests_parts(san_parts *P, forests *F, double budget)
{
    const int64_t n = F->n;
    int last = 0, rc = 0;
    for (int k = 0; rc == 0 && k < NTHETA && P->bytes + 2.0 * n <= budget; k++) {
        uint16_t *blk = malloc((size_t)n * sizeof *blk);
        if (!blk)
            return -1;
        int nc = label(F->parent[k], n, blk);
        if (nc < 2 || nc > SAN_PART_MAX_BLOCKS || nc == last) {
            free(blk);
            if (nc < 2)
                break;
            continue;
        }
        last = nc;
        char what[96];
        snprintf(what, sizeof what, "the %d components of the transitions above %g of "
                 "their state's exit rate", nc, fast_theta[k]);
        rc = push(P, nc, blk, n, what);
        if (rc == 0)
            P->p[P->n - 1].coupling = F->coupling[k];
    }
    return rc;
}

double san_parts_coupling(const san_parts *P)
{
    double c = 1;
    for (int i = 0; i < P->n; i++)
        if (P->p[i].coupling > 0 && P->p[i].coupling < c)
            c = P->p[i].coupling;
    return c;
}

int san_parts_add_fast(san_parts *P, const san_csr *qt, double budget)
{
    const int64_t n = qt->n;
    if (n < 3 || P->bytes + 2.0 * n > budget)
        return 0;
    forests F;
    double *d = malloc((size_t)n * sizeof *d);
    int rc = d && forests_init(&F, n) == 0 ? 0 : -1;
    for (int64_t j = 0; rc == 0 && j < n; j++) {
        d[j] = 0;
        for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++)
            if (qt->col[t] == j)
                d[j] = -qt->val[t];
    }
    for (int pass = 0; pass < 2; pass++)
        for (int64_t j = 0; rc == 0 && j < n; j++)
            for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++) {
                int32_t i = qt->col[t];
                if (i == j)
                    continue;
                if (pass == 0)
                    forests_arc(&F, i, j, qt->val[t], d[i]);
                else
                    forests_cross(&F, i, j, qt->val[t], d[i]);
            }
    if (rc == 0)
        rc = forests_parts(P, &F, budget);
    forests_free(&F);
    free(d);
    return rc;
}

int san_parts_add_fast_space(san_parts *P, const san_space *sp, int64_t npos,
                             int64_t (*rank)(const void *ctx, int64_t idx),
                             const void *ctx, double budget)
{
    const san_model *m = sp->m;
    if (sp->n < 3 || npos > INT32_MAX || P->bytes + 2.0 * npos > budget)
        return 0;
    forests F;
    succ_ctx sc;
    san_arcs arcs = { 0 };
    char err[256];
    int *s = malloc((m->naut + 1) * sizeof *s);
    int rc = s && forests_init(&F, npos) == 0 ? 0 : -1;
    int have_sc = rc == 0 && succ_init(&sc, m) == 0;
    if (!have_sc)
        rc = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = 0; rc == 0 && i < sp->n; i++) {
            if (sp->in_closed && !sp->in_closed[i])
                continue;
            const int64_t idx = sp->index[i];
            san_state_decode(m, idx, s);
            arcs.n = 0;
            if (succ_enumerate(&sc, s, idx, &arcs, err, sizeof err) != 0) {
                rc = -1;        /* the exploration enumerated them already */
                break;
            }
            double d = 0;
            for (int k = 0; k < arcs.n; k++)
                d += arcs.v[k].to != idx ? arcs.v[k].rate : 0;
            const int64_t pi = rank(ctx, idx);
            for (int k = 0; k < arcs.n; k++) {
                if (arcs.v[k].to == idx)
                    continue;
                if (pass == 0)
                    forests_arc(&F, pi, rank(ctx, arcs.v[k].to), arcs.v[k].rate, d);
                else
                    forests_cross(&F, pi, rank(ctx, arcs.v[k].to), arcs.v[k].rate, d);
            }
        }
    if (rc == 0)
        rc = forests_parts(P, &F, budget);
    if (have_sc)
        succ_free(&sc);
    forests_free(&F);
    free(arcs.v);
    free(s);
    return rc;
}

int san_parts_add_whole(san_parts *P, int64_t n)
{
    if (n < 2 || n > SAN_PART_WHOLE_MAX)
        return 0;
    uint16_t *blk = malloc((size_t)n * sizeof *blk);
    if (!blk)
        return -1;
    for (int64_t p = 0; p < n; p++)
        blk[p] = (uint16_t)p;
    return push(P, (int)n, blk, n, "single states (a dense solve of the whole chain)");
}
