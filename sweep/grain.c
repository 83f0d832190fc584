/*
 * grain.c - the granularity of a master/slave program: its indices per
 * grain (slices per node, or slices) and per configuration, and the
 * grain to use (san grain).
 *
 * The paper's criterion (004, section 6.3): the master is the bottleneck
 * when it spends its time transmitting tasks, so the best grain keeps it
 * least in Tx.  Coarser grain always sends fewer tasks, so the criterion
 * alone would always pick the coarsest; it applies among the grains that
 * keep the slaves busy (efficiency within busy of the best), which is
 * what a too coarse grain loses first.  It is one of the rules of
 * grain_rank.c, the default only when no execution time is computed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sweep/sweep_int.h"

san_status san_grain_init(san_grain *g, int argc, char **argv, char *err, size_t n)
{
    return san_grain_init_opts(g, argc, argv, NULL, err, n);
}

san_status san_grain_init_opts(san_grain *g, int argc, char **argv, const san_sweep_opts *o,
                               char *err, size_t n)
{
    memset(g, 0, sizeof *g);
    g->axis = -1;
    if (argc == 0 || strcmp(argv[0], "ms")) {
        sweep_err(err, n, "expected the master/slave template: san grain ms ...");
        return SAN_E_USAGE;
    }
    /* --mode defaults to async */
    int has_mode = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        has_mode |= len == 6 && !strncmp(a, "--mode", 6);
    }
    char **spec = calloc(argc + 3, sizeof *spec);
    if (!spec) {
        sweep_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    memcpy(spec, argv, argc * sizeof *spec);
    int nspec = argc;
    if (!has_mode) {
        spec[nspec++] = "--mode";
        spec[nspec++] = "async";
    }
    int rc = san_sweep_init(&g->sweep, nspec, spec, o, err, n);
    free(spec);
    if (rc < 0)
        return rc == -2 ? SAN_E_USAGE : rc == -3 ? SAN_E_INPUT : SAN_E_IO;
    g->axis = san_sweep_find_axis(&g->sweep, "--slices-per-node");
    if (g->axis < 0)
        g->axis = san_sweep_find_axis(&g->sweep, "--slices");
    if (g->axis < 0) {
        sweep_err(err, n, "--slices-per-node: give the grains to compare, e.g. "
                  "--slices-per-node 1..6 (or --slices)");
        san_grain_free(g);
        return SAN_E_USAGE;
    }
    return san_grain_by(g, NULL, err, n);
}

/* Rows that differ only by their grain. */
static int same_group(const san_sweep *s, int g, int v, int w)
{
    for (int a = 0; a < s->spec.naxes; a++)
        if (a != g && s->pick[v][a] != s->pick[w][a])
            return 0;
    return 1;
}

san_status san_grain_run(san_grain *g, const san_sweep_opts *o, double busy, char *err,
                         size_t n)
{
    san_sweep *s = &g->sweep;
    g->busy = busy;
    int rc = san_sweep_run(s, o, err, n);
    if (rc < 0)
        return rc == -2 ? SAN_E_USAGE : SAN_E_NOMEM;
    if (rc == 1) {              /* an MPI rank other than 0: no rows */
        g->remote = 1;
        return SAN_OK;
    }
    char *seen = calloc(s->nvariants + 1, 1);
    g->group = calloc(s->nvariants + 1, sizeof *g->group);
    if (!seen || !g->group) {
        free(seen);
        sweep_err(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    for (int v = 0; v < s->nvariants; v++) {
        if (seen[v])
            continue;
        san_grain_group *c = &g->group[g->ngroups++];
        c->member = malloc(s->nvariants * sizeof *c->member);
        if (!c->member) {
            free(seen);
            sweep_err(err, n, "out of memory");
            return SAN_E_NOMEM;
        }
        for (int w = v; w < s->nvariants; w++)
            if (!seen[w] && same_group(s, g->axis, v, w)) {
                seen[w] = 1;
                c->member[c->n++] = w;
            }
        sweep_grain_rank(g, c);
    }
    free(seen);
    return SAN_OK;
}

void san_grain_free(san_grain *g)
{
    for (int i = 0; g->group && i < g->ngroups; i++)
        free(g->group[i].member);
    free(g->group);
    san_sweep_clear(&g->sweep);
    memset(g, 0, sizeof *g);
    g->axis = -1;
}
