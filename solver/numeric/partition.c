/*
 * partition.c - the partitions that aggregation checks and corrects
 * (partition.h says which and why).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "solver/numeric/partition.h"

/* The fractions of its source's exit rate below which a transition is
 * "slow" for num_parts_add_fast: one partition per threshold that gives
 * a new one.  Three decades apart, so that chains with several time
 * scales (rates at 1e-4, 1e-2, 1, 1e2, 1e4) get one per gap. */
const double num_fast_theta[SAN_NTHETA] = { 1e-2, 1e-5, 1e-8 };

void num_parts_free(num_parts *P)
{
    for (int i = 0; i < P->n; i++) {
        free(P->p[i].blk);
        free(P->p[i].aut);
    }
    free(P->p);
    memset(P, 0, sizeof *P);
}

/* Takes blk (malloc'd, n entries). */
int num_parts_push(num_parts *P, int nblk, uint16_t *blk, int64_t n, const char *what)
{
    if (P->n == P->cap) {
        int cap = P->cap ? 2 * P->cap : 16;
        num_part *p = realloc(P->p, cap * sizeof *p);
        if (!p) {
            free(blk);
            return -1;
        }
        P->p = p;
        P->cap = cap;
    }
    num_part *q = &P->p[P->n++];
    memset(q, 0, sizeof *q);
    q->nblk = nblk;
    q->blk = blk;
    snprintf(q->what, sizeof q->what, "%s", what);
    P->bytes += 2.0 * (double)n;
    return 0;
}



static int same_part(const num_part *a, const num_part *b, int64_t n)
{
    return a->nblk == b->nblk && memcmp(a->blk, b->blk, (size_t)n * sizeof *a->blk) == 0;
}

/* Some kept partition other than skip is a group holding automaton a. */
static int covered(const num_parts *P, const char *keep, int skip, int a)
{
    for (int i = 0; i < P->n; i++)
        if (keep[i] && i != skip && P->p[i].naut > 1)
            for (int k = 0; k < P->p[i].naut; k++)
                if (P->p[i].aut[k] == a)
                    return 1;
    return 0;
}

void num_parts_prune(num_parts *P, int64_t n)
{
    char *keep = malloc(P->n + 1);
    if (!keep)
        return;             /* nothing dropped: only slower */
    /* A duplicate goes, its coupling (known for fast components only)
     * kept by the copy that stays: the fast components of a slow mode
     * automaton are that automaton's partition, and auto chooses IAD by
     * the coupling (ncd17.san lost it when the model's partitions came
     * first: 13 s by BiCGSTAB instead of 7 s by IAD). */
    for (int i = 0; i < P->n; i++) {
        keep[i] = 1;
        for (int j = 0; j < i && keep[i]; j++)
            if (keep[j] && same_part(&P->p[i], &P->p[j], n)) {
                keep[i] = 0;
                if (P->p[i].coupling > 0 &&
                    (P->p[j].coupling == 0 || P->p[i].coupling < P->p[j].coupling))
                    P->p[j].coupling = P->p[i].coupling;
            }
    }
    /* An automaton's partition inside a kept group goes too, unless it
     * carries a coupling. */
    for (int i = 0; i < P->n; i++)
        if (keep[i] && P->p[i].naut == 1 && P->p[i].coupling == 0 &&
            covered(P, keep, i, P->p[i].aut[0]))
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


int num_forests_init(num_forests *F, int64_t n)
{
    memset(F, 0, sizeof *F);
    F->n = n;
    for (int k = 0; k < SAN_NTHETA; k++) {
        F->parent[k] = malloc((size_t)(n ? n : 1) * sizeof **F->parent);
        if (!F->parent[k])
            return -1;
        for (int64_t i = 0; i < n; i++)
            F->parent[k][i] = (int32_t)i;
    }
    return 0;
}

void num_forests_free(num_forests *F)
{
    for (int k = 0; k < SAN_NTHETA; k++)
        free(F->parent[k]);
}

/* The transition i -> j at rate q out of exit rate d joins i and j in
 * the forest of every threshold it passes. */
void num_forests_arc(num_forests *F, int64_t i, int64_t j, double q, double d)
{
    for (int k = 0; k < SAN_NTHETA && q >= num_fast_theta[k] * d; k++)
        uf_union(F->parent[k], (int32_t)i, (int32_t)j);
}

/* Once the forests are complete: the transitions between two
 * components, relative to their source's exit rate, the largest. */
void num_forests_cross(num_forests *F, int64_t i, int64_t j, double q, double d)
{
    for (int k = 0; k < SAN_NTHETA; k++)
        if (uf_find(F->parent[k], (int32_t)i) != uf_find(F->parent[k], (int32_t)j) &&
            q > F->coupling[k] * d)
            F->coupling[k] = q / d;
}

/* A partition per threshold that gives a new one (thresholds go down,
 * components only merge). */
int num_forests_parts(num_parts *P, num_forests *F, double budget)
{
    const int64_t n = F->n;
    int last = 0, rc = 0;
    for (int k = 0; rc == 0 && k < SAN_NTHETA && P->bytes + 2.0 * n <= budget; k++) {
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
                 "their state's exit rate", nc, num_fast_theta[k]);
        rc = num_parts_push(P, nc, blk, n, what);
        if (rc == 0)
            P->p[P->n - 1].coupling = F->coupling[k];
    }
    return rc;
}

double num_parts_coupling(const num_parts *P)
{
    double c = 1;
    for (int i = 0; i < P->n; i++)
        if (P->p[i].coupling > 0 && P->p[i].coupling < c)
            c = P->p[i].coupling;
    return c;
}

int num_parts_late(const num_parts *P)
{
    if (P->interrupt && *P->interrupt)
        return 1;
    return P->deadline > 0 && san_now() >= P->deadline;
}

/* The clock is read after a row once this many nonzeros were passed
 * since the last look (by nonzeros: a dense row has thousands). */
#define CLOCK_WORK (1 << 20)

int num_parts_add_fast(num_parts *P, const san_csr *qt, double budget)
{
    const int64_t n = qt->n;
    if (n < 3 || P->bytes + 2.0 * n > budget)
        return 0;
    num_forests F;
    double *d = malloc((size_t)n * sizeof *d);
    int rc = d && num_forests_init(&F, n) == 0 ? 0 : -1;
    for (int64_t j = 0; rc == 0 && j < n; j++) {
        d[j] = 0;
        for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++)
            if (qt->col[t] == j)
                d[j] = -qt->val[t];
    }
    int64_t work = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t j = 0; rc == 0 && j < n; j++) {
            work += qt->rowptr[j + 1] - qt->rowptr[j] + 1;
            if (work >= CLOCK_WORK) {
                work = 0;
                if (num_parts_late(P)) {
                    rc = 1;     /* given up, not added */
                    break;
                }
            }
            for (int64_t t = qt->rowptr[j]; t < qt->rowptr[j + 1]; t++) {
                int32_t i = qt->col[t];
                if (i == j)
                    continue;
                if (pass == 0)
                    num_forests_arc(&F, i, j, qt->val[t], d[i]);
                else
                    num_forests_cross(&F, i, j, qt->val[t], d[i]);
            }
        }
    if (rc == 0)
        rc = num_forests_parts(P, &F, budget);
    num_forests_free(&F);
    free(d);
    return rc < 0 ? rc : 0;
}


int num_parts_add_whole(num_parts *P, int64_t n)
{
    if (n < 2 || n > SAN_PART_WHOLE_MAX)
        return 0;
    uint16_t *blk = malloc((size_t)n * sizeof *blk);
    if (!blk)
        return -1;
    for (int64_t p = 0; p < n; p++)
        blk[p] = (uint16_t)p;
    return num_parts_push(P, (int)n, blk, n, "single states (a dense solve of the whole chain)");
}
