/*
 * workrate.c - seed 003's work-rate model (Shao, Berman, Wolski, "Master/
 * Slave Computing on the Grid", HCW 2000): the task rate of a master/slave
 * program on heterogeneous hosts, bounded by the master's rate (eq. 3),
 * each slave's (eq. 4) and each network's, shared by every task flow that
 * crosses it (eq. 5); the best master is the host with the largest
 * maximum flow (sec. 4.2).
 *
 * The networks form a tree and every slave reaches the master by one
 * path, so the maximum flow needs no augmenting paths: with the master's
 * network as the root, what a subtree can deliver is the smaller of its
 * top network's rate and what its hosts and child subtrees deliver.  One
 * pass per candidate master, O(hosts + networks); tests/unit/
 * test_map.c checks it against an enumeration of every cut.
 */
#include <math.h>
#include <string.h>
#include "analytic/analytic_int.h"

typedef struct {
    const san_topology *t;
    int m;                          /* the master host */
    double in[SAN_WR_MAX];          /* per network: what reaches it */
    double out[SAN_WR_MAX];         /* per network: what it passes on */
} wr_tree;

/* Calls fn(j) for each network adjacent to k except from. */
#define FOR_ADJACENT(T, k, from, j) \
    for (int j = 0; j < (T)->nnets; j++) \
        if (j != (from) && ((T)->net[k].parent == j || (T)->net[j].parent == (k)))

/* What network k can pass towards the master, entered from network from. */
static double subtree_flow(wr_tree *w, int k, int from)
{
    const san_topology *t = w->t;
    double in = 0;
    for (int h = 0; h < t->nhosts; h++)
        if (t->host[h].network == k && h != w->m)
            in += t->host[h].slave_rate;
    FOR_ADJACENT(t, k, from, j)
        in += subtree_flow(w, j, k);
    w->in[k] = in;
    w->out[k] = fmin(in, t->net[k].rate);
    return w->out[k];
}

/* Hands out the flow `give` that network k passes on: its own hosts
 * first (the paper adds the slaves local to the master first), then the
 * subtrees in order. */
static void allocate(wr_tree *w, int k, int from, double give, san_workrate *out)
{
    const san_topology *t = w->t;
    out->net_bound[k] = w->in[k] > t->net[k].rate && give >= w->out[k];
    for (int h = 0; h < t->nhosts; h++)
        if (t->host[h].network == k && h != w->m) {
            double r = fmin(t->host[h].slave_rate, give);
            out->slave_rate[h] = r;
            give -= r;
        }
    FOR_ADJACENT(t, k, from, j) {
        double r = fmin(w->out[j], give);
        allocate(w, j, k, r, out);
        give -= r;
    }
}

san_status san_workrate_eval(const san_topology *t, int m, san_workrate *out)
{
    memset(out, 0, sizeof *out);
    out->master = m;
    if (m < 0 || m >= t->nhosts || t->host[m].master_rate < 0)
        return SAN_E_USAGE;
    wr_tree w = { .t = t, .m = m };
    int root = t->host[m].network;
    double flow = subtree_flow(&w, root, -1);
    out->app_rate = fmin(flow, t->host[m].master_rate);
    out->master_bound = t->host[m].master_rate <= flow;
    allocate(&w, root, -1, out->app_rate, out);
    if (t->host[m].master_rate < flow)      /* no network is what limits it */
        memset(out->net_bound, 0, sizeof out->net_bound);
    return SAN_OK;
}

int san_workrate_best(const san_topology *t, san_workrate *best)
{
    int found = -1;
    san_workrate w;
    for (int m = 0; m < t->nhosts; m++) {
        if (san_workrate_eval(t, m, &w) != SAN_OK)
            continue;
        if (found < 0 || w.app_rate > best->app_rate) {
            *best = w;
            found = m;
        }
    }
    return found;
}
