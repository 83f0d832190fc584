/*
 * finite.c - the time of a finite job of n items through a mapped
 * pipeline, deterministically.  Seed 002 (sec. 1) and seed 000 (ch. II,
 * 4) call the filling and draining of the pipe transient inefficiencies
 * that matter only when n is not much larger than the number of stages;
 * this is the number that says how much.
 *
 * Two answers: the closed form fill + (n - 1) * bottleneck (the first
 * item crosses every unit, then one item leaves per bottleneck period),
 * and the line run item by item, which is what the closed form
 * approximates when units have replicas (a replicated stage delivers its
 * first r items together, not one per Tr/r).  Buffers are unbounded and
 * items FIFO; a replicated stage's communication manager (cm_time) sees
 * each item before the earliest free replica does.
 */
#include <math.h>
#include <stdlib.h>
#include "analytic/analytic_int.h"

/* The time one item spends in unit u when it waits for nothing. */
static double unit_item_time(const san_map_input *in, const san_map_mapping *m, int u)
{
    double s = map_unit_period(in, m->first[u], m->last[u], 1);
    return m->replicas[u] > 1 ? s + in->cm_time : s;
}

/* Index of the replica that is free first. */
static int earliest(const double *free_at, int r)
{
    int k = 0;
    for (int j = 1; j < r; j++)
        if (free_at[j] < free_at[k])
            k = j;
    return k;
}

/* Item i, ready at time t, through unit u (its replicas' free times in
 * free_at, its CM's in *cm_free); returns when the item leaves it.  Each
 * unit takes the items in order, so running them one at a time through
 * the whole line is the same as running the line unit by unit, in
 * memory that does not grow with the job. */
static double pass_unit(const san_map_input *in, const san_map_mapping *m, int u, double t,
                        double *free_at, double *cm_free)
{
    int r = m->replicas[u];
    if (r > 1) {
        t = fmax(t, *cm_free) + in->cm_time;
        *cm_free = t;
    }
    int k = earliest(free_at, r);
    t = fmax(t, free_at[k]) + map_unit_period(in, m->first[u], m->last[u], 1);
    free_at[k] = t;
    return t;
}

enum { FINITE_EXACT_MAX = 10000000 };   /* items run one by one at most */

static double run_items(const san_map_input *in, const san_map_mapping *m, long n,
                        double *free_at, double *cm_free)
{
    double end = 0;
    for (long i = 0; i < n; i++) {
        double t = 0;
        for (int u = 0, off = 0; u < m->nunits; off += m->replicas[u], u++)
            t = pass_unit(in, m, u, t, free_at + off, &cm_free[u]);
        end = fmax(end, t);     /* replicas may finish items out of order */
    }
    return end;
}

san_status san_finite_pipeline(const san_map_input *in, const san_map_mapping *m,
                               long n_items, san_finite_time *out)
{
    if (n_items < 1 || m->nunits < 1 || map_foreign(in, NULL, 0))
        return SAN_E_USAGE;
    out->bottleneck = m->bottleneck;
    out->fill = 0;
    size_t servers = 0;
    for (int u = 0; u < m->nunits; u++) {
        out->fill += unit_item_time(in, m, u);
        servers += (size_t)m->replicas[u];
    }
    out->closed_form = out->fill + (double)(n_items - 1) * m->bottleneck;
    out->exact = NAN;
    if (n_items > FINITE_EXACT_MAX)
        return SAN_OK;
    double *free_at = calloc(servers, sizeof *free_at);
    double *cm_free = calloc((size_t)m->nunits, sizeof *cm_free);
    if (free_at && cm_free)
        out->exact = run_items(in, m, n_items, free_at, cm_free);
    free(free_at);
    free(cm_free);
    return free_at && cm_free ? SAN_OK : SAN_E_NOMEM;
}
