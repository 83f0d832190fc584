/*
 * chains.c - the variants of a sweep in chains along one axis, the unit
 * of work of the threads and the MPI ranks.
 *
 * With --warm a variant starts from the answer of its neighbour
 * (solver/space/warm.c), and its answer then depends, in the last digits, on
 * that start.  So that a table does not depend on the number of threads
 * or ranks, each variant's neighbour is fixed by the sweep alone: the
 * variants that differ only in the chain axis form a chain, solved by one
 * thread largest first, each from the one before.  The chain axis is the
 * last numeric axis with several values (the innermost parameter, the
 * one a sweep varies finely: --buffer, -D lambda), else the last one with
 * several values.  Without --warm every variant is a chain of its own.
 * Chains go largest first.
 *
 * Why not by default: a chain runs on one thread, and a start from a
 * neighbour saves less than the parallelism it costs.  Measured on the
 * 2-core machine: BiCGSTAB from buffer 40's answer took 28 iterations for
 * async 7 slaves buffer 39 instead of 42 (0.58 s instead of 0.72), none
 * fewer from buffer 20 for 40; the design grid took 1.8 s chained, 1.2 s
 * on its own variants; a sweep of one rate over 11 values 2.5 s chained,
 * 1.6 s in parallel (2.1 s chained and cold).
 */
#include <stdlib.h>
#include <string.h>
#include "sweep/sweep_int.h"

static int chain_axis(const san_sweep *s)
{
    int any = -1;
    for (int a = s->spec.naxes - 1; a >= 0; a--)
        if (s->spec.axis[a].nvalues > 1) {
            if (s->spec.axis[a].numeric)
                return a;
            if (any < 0)
                any = a;
        }
    return any;
}

typedef struct {
    const san_sweep *s;
    int axis;
} key_ctx;

/* The other axes' values, then the chain axis' (glibc's qsort_r: the
 * project builds with _GNU_SOURCE). */
static int by_key(const void *pa, const void *pb, void *arg)
{
    const key_ctx *k = arg;
    int va = *(const int *)pa, vb = *(const int *)pb;
    const int *a = k->s->pick[va], *b = k->s->pick[vb];
    for (int i = 0; i < k->s->spec.naxes; i++)
        if (i != k->axis && a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    if (k->axis >= 0 && a[k->axis] != b[k->axis])       /* largest first */
        return k->s->weight[va] != k->s->weight[vb] ? (k->s->weight[va] > k->s->weight[vb] ? -1 : 1)
                                                    : (a[k->axis] < b[k->axis] ? -1 : 1);
    return va < vb ? -1 : va > vb;
}

static int same_chain(const san_sweep *s, int axis, int va, int vb)
{
    for (int k = 0; k < s->spec.naxes; k++)
        if (k != axis && s->pick[va][k] != s->pick[vb][k])
            return 0;
    /* a variant the chain axis does not apply to stands alone */
    return axis < 0 || (s->pick[va][axis] >= 0 && s->pick[vb][axis] >= 0);
}

static int by_weight_desc(const void *pa, const void *pb, void *arg)
{
    const double *w = arg;
    int a = *(const int *)pa, b = *(const int *)pb;
    if (w[a] != w[b])
        return w[a] > w[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

int sweep_chains_build(const san_sweep *s, int chained, sweep_chains *ch)
{
    memset(ch, 0, sizeof *ch);
    const int n = s->nvariants, axis = chained ? chain_axis(s) : -1;
    ch->var = malloc((n + 1) * sizeof *ch->var);
    ch->start = malloc((n + 2) * sizeof *ch->start);
    ch->weight = calloc(n + 1, sizeof *ch->weight);
    ch->order = malloc((n + 1) * sizeof *ch->order);
    if (!ch->var || !ch->start || !ch->weight || !ch->order) {
        sweep_chains_free(ch);
        return -1;
    }
    for (int v = 0; v < n; v++)
        ch->var[v] = v;
    key_ctx k = { s, axis };
    qsort_r(ch->var, n, sizeof *ch->var, by_key, &k);
    for (int i = 0; i < n; i++) {
        if (i == 0 || !chained || !same_chain(s, axis, ch->var[i - 1], ch->var[i]))
            ch->start[ch->n++] = i;
        ch->weight[ch->n - 1] += s->weight[ch->var[i]];
    }
    ch->start[ch->n] = n;
    for (int c = 0; c < ch->n; c++)
        ch->order[c] = c;
    qsort_r(ch->order, ch->n, sizeof *ch->order, by_weight_desc, ch->weight);
    return 0;
}

void sweep_chains_free(sweep_chains *ch)
{
    free(ch->var);
    free(ch->start);
    free(ch->weight);
    free(ch->order);
    memset(ch, 0, sizeof *ch);
}
