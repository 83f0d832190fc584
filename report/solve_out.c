/*
 * solve_out.c - san_report_solve: the report of a steady-state analysis
 * in one of three formats, written by the library so that the command
 * and a binding (the Python package) print one report.
 */
#include "report/solve_out.h"
#include "solver/analysis/analysis_int.h"

void san_solve_report_opts_default(san_solve_report_opts *o)
{
    san_analysis_opts ao;
    san_analysis_opts_default(&ao);
    *o = (san_solve_report_opts){ .struct_size = sizeof *o, .source = "", .tol = ao.solve.tol, .t_total = -1 };
}

san_status san_report_solve(FILE *out, san_report_format f, const san_model *m,
                            const san_analysis *a, const san_solve_report_opts *o)
{
    if (!a->have_indices)
        return SAN_E_USAGE;
    if (o && BASE_OPTS_FOREIGN(o, "report", "san_solve_report_opts_default", NULL, 0))
        return SAN_E_USAGE;
    san_solve_report_opts dflt;
    if (!o) {
        san_solve_report_opts_default(&dflt);
        o = &dflt;
    }
    san_solve_report_opts oo = *o;
    if (!oo.source)
        oo.source = "";
    if (oo.t_total < 0)
        oo.t_total = a->t_space + a->t_solve;
    /* the method an engine of its own picked (PETSc's KSP) was no auto's */
    oo.auto_picked = oo.auto_picked && a->engine_used == SAN_ENGINE_SERIAL;
    rep_solve r = { m, &a->sp, &a->sol, a, &oo, a->nonzeros };
    switch (f) {
    case SAN_REPORT_JSON:
        return rep_solve_json(out, &r);
    case SAN_REPORT_CSV:
        return rep_solve_csv(out, &r);
    case SAN_REPORT_TEXT:
        rep_solve_text(out, &r);
        return SAN_OK;
    }
    return SAN_E_USAGE;
}
