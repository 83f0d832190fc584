/*
 * map_case.c - one pipeline of san map: its stages mapped (map.c), the
 * time of a finite job through both mappings (finite.c) and the
 * generator line of the proposal, for the command and its batches.
 */
#include <stdio.h>
#include "analytic/analytic_int.h"

san_status san_map_case_run(const san_map_input *base, const char *stages, long items,
                            const char *mode, int phases, san_map_case *c, char *err, size_t n)
{
    if (map_foreign(base, err, n))     /* before *base is copied at our size */
        return SAN_E_USAGE;
    c->in = *base;
    c->in.nstages = san_map_parse_list(stages, c->in.tr, SAN_MAP_MAX_STAGES);
    if (c->in.nstages < 0) {
        snprintf(err, n, "--stages: expected up to %d numbers > 0 separated by commas, not '%s'",
                 SAN_MAP_MAX_STAGES, stages);
        return SAN_E_USAGE;
    }
    san_status st = san_map(&c->in, &c->res, err, n);
    if (st != SAN_OK)
        return st;
    c->items = items > 0 ? items : 0;
    if (c->items && (san_finite_pipeline(&c->in, &c->res.before, items, &c->fin_before) != SAN_OK
                     || san_finite_pipeline(&c->in, &c->res.after, items, &c->fin_after)
                     != SAN_OK)) {
        snprintf(err, n, "out of memory");
        return SAN_E_NOMEM;
    }
    san_map_gen_line(&c->in, &c->res.after, mode, phases, c->line, sizeof c->line);
    return SAN_OK;
}
