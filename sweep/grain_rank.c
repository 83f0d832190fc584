/*
 * grain_rank.c - what `san grain` ranks the grains by (--by), and the
 * grain each rule picks in one configuration.
 *
 * Two kinds of rule:
 *   - an objective: the least or the greatest value of one index of the
 *     table (execution_time, efficiency, down_tp, any result);
 *   - the paper's rule (004, section 6.3): the master least in Tx among
 *     the grains whose slaves stay busy (efficiency within busy of the
 *     best grain's).
 * The default is the performance objective when the model computes it
 * (execution_time, with --work slices), else the paper's rule: issue 33
 * found the paper's rule recommending 4 slices per node at 31.8 s where
 * the same table showed 3 at 29.7 s.  Whatever the rule, the grain it
 * recommends is never worse on that rule's objective than another grain
 * of its table.
 */
#include <math.h>
#include <string.h>
#include "sweep/sweep_int.h"

/* Indices whose better value is clear from their meaning
 * (doc/indices.md).  Others need min:NAME or max:NAME. */
static const struct {
    const char *name;
    san_grain_rule rule;
} known[] = {
    { "execution_time", SAN_GRAIN_MIN },
    { "efficiency", SAN_GRAIN_MAX },
    { "down_tp", SAN_GRAIN_MAX },
    { "master_tx", SAN_GRAIN_MIN },
    { "slave_idle", SAN_GRAIN_MIN },
    { "slave_transmitting", SAN_GRAIN_MIN },
    { "pack_throughput", SAN_GRAIN_MAX },
    { "task_throughput", SAN_GRAIN_MAX },
};

static int set_index(san_grain *g, const char *name, san_grain_rule rule, char *err, size_t n)
{
    if (san_sweep_find_result(&g->sweep, name) < 0) {
        sweep_err(err, n, "--by: unknown index '%s' (not a result of this model)", name);
        return SAN_E_USAGE;
    }
    if (strlen(name) >= sizeof g->by) {
        sweep_err(err, n, "--by: index name too long: '%s'", name);
        return SAN_E_USAGE;
    }
    strcpy(g->by, name);
    g->rule = rule;
    return SAN_OK;
}

/* "throughput": work done per second.  Packs and tasks change size with
 * the grain, so only runs per second (down_tp, --work slices) compare
 * across grains. */
static int set_throughput(san_grain *g, char *err, size_t n)
{
    if (san_sweep_find_result(&g->sweep, "down_tp") < 0) {
        sweep_err(err, n, "--by throughput: packs and tasks change size with the grain, so "
                  "their throughputs do not compare; use --work slices (runs per second, "
                  "down_tp) or name an index: --by max:pack_throughput");
        return SAN_E_USAGE;
    }
    return set_index(g, "down_tp", SAN_GRAIN_MAX, err, n);
}

san_status san_grain_by(san_grain *g, const char *by, char *err, size_t n)
{
    if (!by || !*by) {          /* the default */
        if (san_sweep_find_result(&g->sweep, "execution_time") >= 0)
            return set_index(g, "execution_time", SAN_GRAIN_MIN, err, n);
        g->rule = SAN_GRAIN_PAPER;
        strcpy(g->by, "paper");
        return SAN_OK;
    }
    if (!strcmp(by, "paper")) {
        g->rule = SAN_GRAIN_PAPER;
        strcpy(g->by, "paper");
        return SAN_OK;
    }
    if (!strcmp(by, "throughput"))
        return set_throughput(g, err, n);
    if (!strncmp(by, "min:", 4))
        return set_index(g, by + 4, SAN_GRAIN_MIN, err, n);
    if (!strncmp(by, "max:", 4))
        return set_index(g, by + 4, SAN_GRAIN_MAX, err, n);
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
        if (!strcmp(by, known[k].name))
            return set_index(g, by, known[k].rule, err, n);
    if (san_sweep_find_result(&g->sweep, by) >= 0) {
        sweep_err(err, n, "--by %s: say whether less or more is better: --by min:%s or "
                  "--by max:%s", by, by, by);
        return SAN_E_USAGE;
    }
    sweep_err(err, n, "--by: expected execution_time, throughput, efficiency, paper, an index "
              "or min:INDEX / max:INDEX; got '%s'", by);
    return SAN_E_USAGE;
}

static double value(const san_sweep *s, int v, const char *name)
{
    double x;
    return s->rows[v].ok && san_sweep_row_result(&s->rows[v], name, &x) ? x : NAN;
}

/* Is a strictly better than b under rule?  Values within 1e-12
 * (relative) are a tie: the table prints 6 digits, and grains that tie
 * there are decided by the paper's criterion (the master less in Tx). */
static int better(double a, double b, san_grain_rule rule)
{
    if (isnan(a))
        return 0;
    if (isnan(b))
        return 1;
    if (fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)))
        return 0;
    return rule == SAN_GRAIN_MIN ? a < b : a > b;
}

/* The paper's rule: least master_tx among the grains whose efficiency is
 * within busy of the best. */
static void pick_paper(const san_sweep *s, san_grain_group *c, double busy)
{
    c->paper = -1;
    c->best_eff = -INFINITY;
    for (int i = 0; i < c->n; i++) {
        double e = value(s, c->member[i], "efficiency");
        if (e > c->best_eff)
            c->best_eff = e;
    }
    c->floor_eff = c->best_eff * (1 - busy);
    double tx_min = INFINITY;
    for (int i = 0; i < c->n; i++) {
        double e = value(s, c->member[i], "efficiency");
        double tx = value(s, c->member[i], "master_tx");
        if (e >= c->floor_eff && tx < tx_min) {
            tx_min = tx;
            c->paper = c->member[i];
        }
    }
}

/* The best grain on one index; ties go to the master less in Tx. */
static int pick_index(const san_sweep *s, const san_grain_group *c, const char *name,
                      san_grain_rule rule)
{
    int best = -1;
    for (int i = 0; i < c->n; i++) {
        int v = c->member[i];
        double x = value(s, v, name);
        if (isnan(x))
            continue;
        if (best < 0 || better(x, value(s, best, name), rule) ||
            (!better(value(s, best, name), x, rule) &&
             value(s, v, "master_tx") < value(s, best, "master_tx")))
            best = v;
    }
    return best;
}

void sweep_grain_rank(const san_grain *g, san_grain_group *c)
{
    const san_sweep *s = &g->sweep;
    pick_paper(s, c, g->busy);
    c->fastest = pick_index(s, c, "execution_time", SAN_GRAIN_MIN);
    c->best = g->rule == SAN_GRAIN_PAPER ? c->paper : pick_index(s, c, g->by, g->rule);
}
