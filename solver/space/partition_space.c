/*
 * partition_space.c - the partitions that come from a model and its
 * state space (numeric/partition.h says why aggregation wants them): by
 * automata and by the groups of automata an event couples, from the
 * mixed-radix index of each vector position; and the fast components
 * found by enumerating every state's transitions again, for the tensor
 * path, which stores no generator to read them from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/space/partition_space.h"
#include "solver/space/succ.h"
#include "lang/model_int.h"
#include "solver/space/space_int.h"

/* Raw block numbers of a group of automata go through uint16_t: groups
 * with more joint states than this are skipped. */
#define RAW_MAX 65536

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

/* A group with more joint states in use than a coarse chain may have
 * blocks, or with every position a block of its own, is still where a
 * slow mode lives: a queue of 1,001 levels drifts as a whole, and its
 * balance test passing state by state at 1.4e-11 left P(empty) off by
 * 2.7e-8 relative (M/M/1/1000, rho 1.01: the local errors add up along
 * the chain, and no partition was checked).  Runs of consecutive joint
 * states (a queue's neighbouring levels) keep that mode in the coarse
 * chain: at most SAN_PART_MAX_BLOCKS runs, and at least two states
 * each. */
#define COARSEN_MIN 4

/* Merges the nblk blocks (numbered in the joint states' order) into
 * runs of consecutive ones; *nblk becomes their count; the run length. */
static int coarsen(uint16_t *blk, int64_t n, int *nblk)
{
    int b = *nblk / 2 < SAN_PART_MAX_BLOCKS ? *nblk / 2 : SAN_PART_MAX_BLOCKS;
    int r = (*nblk + b - 1) / b;
    for (int64_t p = 0; p < n; p++)
        blk[p] = (uint16_t)(blk[p] / r);
    *nblk = (*nblk + r - 1) / r;
    return r;
}

/* The partition by the joint local state of automata g[0..k). */
static int add_group(num_parts *P, const san_model *m, int64_t n, const int64_t *idx,
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
    char runs[SAN_PART_WHAT];
    if (nblk >= COARSEN_MIN && (nblk > SAN_PART_MAX_BLOCKS || nblk >= n)) {
        int r = coarsen(blk, n, &nblk);
        snprintf(runs, sizeof runs, "%s in runs of %d", what, r);
        what = runs;
    }
    if (nblk < 2 || nblk > SAN_PART_MAX_BLOCKS || nblk >= n) {
        free(blk);
        return 0;
    }
    int *aut = malloc(k * sizeof *aut);
    if (!aut || num_parts_push(P, nblk, blk, n, what) < 0) {
        free(aut);
        return -1;
    }
    memcpy(aut, g, k * sizeof *aut);
    P->p[P->n - 1].aut = aut;
    P->p[P->n - 1].naut = k;
    return 0;
}

/* The automata event e couples: its participants and the automata its
 * rate and its routing probabilities read, ascending, into g; count. */
static int coupled(const san_model *m, int e, int *g, char *in)
{
    const lang_event *E = &m->ev[e];
    memset(in, 0, m->naut);
    for (int k = 0; k < E->nparts; k++)
        in[E->parts[k]] = 1;
    int nd;
    const int *dep = san_expr_deps(E->rate, &nd);
    for (int k = 0; k < nd; k++)
        in[dep[k]] = 1;
    for (int k = 0; k < E->nparts; k++) {
        const lang_automaton *A = &m->aut[E->parts[k]];
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

/* "automata A, B (event e)" into out: the names that fit whole, then
 * "..." for the rest, never a name cut in the middle. */
static void group_name(const san_model *m, const int *g, int k, const char *ev, char *out,
                       size_t size)
{
    const size_t tail = strlen(ev) + 16;        /* ", ..." and " (event e)" */
    size_t len = (size_t)snprintf(out, size, "automata");
    for (int i = 0; i < k; i++) {
        const char *nm = m->aut[g[i]].name;
        if (len + strlen(nm) + 2 + tail >= size) {
            len += (size_t)snprintf(out + len, size - len, ", ...");
            break;
        }
        len += (size_t)snprintf(out + len, size - len, "%s %s", i ? "," : "", nm);
    }
    if (len < size)
        snprintf(out + len, size - len, " (event %s)", ev);
}

static int same_group(const int *a, int na, const int *b, int nb)
{
    return na == nb && memcmp(a, b, na * sizeof *a) == 0;
}

int space_parts_add_model(num_parts *P, const san_model *m, int64_t n,
                        const int64_t *idx, double budget)
{
    char what[SAN_PART_WHAT - 32];  /* room for " in runs of N" */
    for (int a = 0; a < m->naut; a++) {
        if (P->bytes + 2.0 * n > budget || num_parts_late(P))
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
    for (int e = 0; rc == 0 && e < m->nev && P->bytes + 2.0 * n <= budget && !num_parts_late(P);
         e++) {
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
        group_name(m, g, k, m->ev[e].name, what, sizeof what);
        rc = add_group(P, m, n, idx, g, k, what);
    }
    free(g);
    free(seen);
    free(nseen);
    free(in);
    return rc;
}

/* Enumeration in pieces of at most FAST_PIECE transitions (succ.h),
 * so that a state with millions of them needs no more memory than a
 * few; the clock is read once FAST_CLOCK_WORK transitions (and states)
 * were listed since the last look. */
#define FAST_PIECE 65536
#define FAST_CLOCK_WORK (1 << 20)

/* The next piece of idx's transitions into arcs: 0 the last, 1 more, -1. */
static int piece(succ_ctx *sc, space_arcs *arcs, const int *s, int64_t idx, succ_cursor *cur)
{
    char err[256];
    arcs->n = 0;
    int rc = succ_enumerate_part(sc, s, idx, cur, FAST_PIECE, arcs, err, sizeof err);
    return rc < 0 ? -1 : rc;    /* the exploration enumerated them already */
}

static double exit_of(const space_arcs *arcs, int64_t idx)
{
    double d = 0;
    for (int k = 0; k < arcs->n; k++)
        d += arcs->v[k].to != idx ? arcs->v[k].rate : 0;
    return d;
}

/* Gives the arcs to the forests (pass 0: arcs, 1: crossings); d is the
 * state's exit rate. */
static void feed(num_forests *F, const space_arcs *arcs, int64_t idx, double d, int pass,
                 int64_t (*rank)(const void *ctx, int64_t idx), const void *ctx)
{
    const int64_t pi = rank(ctx, idx);
    for (int k = 0; k < arcs->n; k++) {
        const space_arc *a = &arcs->v[k];
        if (a->to == idx)
            continue;
        if (pass == 0)
            num_forests_arc(F, pi, rank(ctx, a->to), a->rate, d);
        else
            num_forests_cross(F, pi, rank(ctx, a->to), a->rate, d);
    }
}

/* The transitions of one state: in one piece (the common case), or,
 * for a state with more, a round of pieces for the exit rate that
 * weighs every arc, then a second that feeds them.  0 or -1. */
static int fast_state(num_forests *F, succ_ctx *sc, space_arcs *arcs, const int *s, int64_t idx,
                      int pass, int64_t (*rank)(const void *ctx, int64_t idx), const void *ctx)
{
    succ_cursor cur = { 0, 0 };
    int more = piece(sc, arcs, s, idx, &cur);
    double d = exit_of(arcs, idx);
    if (more == 0) {
        feed(F, arcs, idx, d, pass, rank, ctx);
        return 0;
    }
    while (more > 0) {
        more = piece(sc, arcs, s, idx, &cur);
        d += exit_of(arcs, idx);
    }
    if (more < 0)
        return -1;
    cur = (succ_cursor){ 0, 0 };
    do {
        more = piece(sc, arcs, s, idx, &cur);
        if (more < 0)
            return -1;
        feed(F, arcs, idx, d, pass, rank, ctx);
    } while (more > 0);
    return 0;
}

int space_parts_add_fast_space(num_parts *P, const san_space *sp, int64_t npos,
                             int64_t (*rank)(const void *ctx, int64_t idx),
                             const void *ctx, double budget)
{
    const san_model *m = sp->m;
    if (sp->n < 3 || npos > INT32_MAX || P->bytes + 2.0 * npos > budget)
        return 0;
    num_forests F;
    succ_ctx sc;
    space_arcs arcs = { 0 };
    int *s = malloc((m->naut + 1) * sizeof *s);
    int rc = s && num_forests_init(&F, npos) == 0 ? 0 : -1;
    int have_sc = rc == 0 && succ_init(&sc, m) == 0, late = 0;
    int64_t work = 0;
    if (!have_sc)
        rc = -1;
    for (int pass = 0; pass < 2 && !late; pass++)
        for (int64_t i = 0; rc == 0 && i < sp->n; i++) {
            if (sp->in_closed && !sp->in_closed[i])
                continue;
            if (work >= FAST_CLOCK_WORK) {
                work = 0;
                if (num_parts_late(P)) {
                    late = 1;
                    break;
                }
            }
            const int64_t idx = sp->index[i];
            san_state_decode(m, idx, s);
            rc = fast_state(&F, &sc, &arcs, s, idx, pass, rank, ctx);
            work += 1 + arcs.n;
        }
    if (rc == 0 && !late)
        rc = num_forests_parts(P, &F, budget);
    if (have_sc)
        succ_free(&sc);
    num_forests_free(&F);
    free(arcs.v);
    free(s);
    return rc;
}
