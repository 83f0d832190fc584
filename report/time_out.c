/*
 * time_out.c - san_report_transient: the report of a transient or
 * passage analysis in one of three formats, written by the library so
 * that the commands and a binding print one report.
 */
#include "report/solve_out.h"
#include "solver/analysis/analysis_int.h"

void san_time_report_opts_default(san_time_report_opts *o)
{
    san_analysis_opts ao;
    san_analysis_opts_default(&ao);
    *o = (san_time_report_opts){ .struct_size = sizeof *o, .source = "", .eps = ao.tr.eps,
                                 .t_total = -1, .complete = 1, .ntimes_asked = -1 };
}

san_status san_report_transient(FILE *out, san_report_format f, const san_model *m,
                                const san_analysis *a, const san_time_report_opts *o)
{
    if (!a->have_tr)
        return SAN_E_USAGE;
    if (o && BASE_OPTS_FOREIGN(o, "report", "san_time_report_opts_default", NULL, 0))
        return SAN_E_USAGE;
    san_time_report_opts oo;
    if (o)
        oo = *o;
    else
        san_time_report_opts_default(&oo);
    if (!oo.source)
        oo.source = "";
    if (oo.t_total < 0)
        oo.t_total = a->t_space + a->t_solve;
    if (oo.ntimes_asked < 0)
        oo.ntimes_asked = a->tr.ntimes;
    rep_time r = { m, a, &oo };
    switch (f) {
    case SAN_REPORT_JSON:
        rep_time_json(out, &r);
        return SAN_OK;
    case SAN_REPORT_CSV:
        rep_time_csv(out, &r);
        return SAN_OK;
    case SAN_REPORT_TEXT:
        rep_time_text(out, &r);
        return SAN_OK;
    }
    return SAN_E_USAGE;
}
