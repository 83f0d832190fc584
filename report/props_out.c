/*
 * props_out.c - san props' report: the chain the properties were
 * checked on, and each property's value with how it was computed
 * (solver/props/); one writer per format.
 */
#include <math.h>
#include "report/commands.h"
#include "solver/space/space_int.h"

typedef struct {
    const san_props *P;
    const san_checker *C;
    const san_prop_answer *ans;
    int np;
    int64_t states, initial, classes;
    const san_props_report_opts *o;
} rep_props;

static void rep_props_json(FILE *out, const rep_props *r)
{
    fputs("{\n  ", out);
    if (r->o->preamble)
        r->o->preamble(out, SAN_REPORT_JSON, r->o->ctx);
    fprintf(out, "\"states\": %lld,\n  \"initial_states\": %lld,\n  \"closed_classes\": %lld,\n"
            "  \"properties\": [", (long long)r->states, (long long)r->initial,
            (long long)r->classes);
    for (int i = 0; i < r->np; i++) {
        const san_prop_answer *a = &r->ans[i];
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        if (san_props_name(r->P, i))
            san_json_string(out, san_props_name(r->P, i));
        else
            fputs("null", out);
        fputs(", \"property\": ", out);
        san_json_string(out, san_props_text(r->P, i));
        fputs(", \"value\": ", out);
        san_json_num(out, a->value);
        fputs(", \"kind\": ", out);
        san_json_string(out, a->kind);
        fputs(", \"method\": ", out);
        san_json_string(out, a->method ? a->method : "");
        fputs(", \"error_bound\": ", out);
        rep_json_figure(out, a->error_bound);
        fputs(", \"target_states\": ", out);
        if (a->target >= 0)
            fprintf(out, "%lld", (long long)a->target);
        else
            fputs("null", out);
        fprintf(out, ", \"products\": %ld}", a->steps);
    }
    fputs("\n  ]\n}\n", out);
}

static void rep_props_csv(FILE *out, const rep_props *r)
{
    if (r->o->preamble)
        r->o->preamble(out, SAN_REPORT_CSV, r->o->ctx);
    fputs("name,property,value,kind,method,error_bound,target_states,products\n", out);
    for (int i = 0; i < r->np; i++) {
        const san_prop_answer *a = &r->ans[i];
        san_csv_field(out, san_props_name(r->P, i) ? san_props_name(r->P, i) : "");
        fputs(",", out);
        san_csv_field(out, san_props_text(r->P, i));
        fprintf(out, ",%.17g,", a->value);
        san_csv_field(out, a->kind);
        fputs(",", out);
        san_csv_field(out, a->method ? a->method : "");
        fputs(",", out);
        if (!isnan(a->error_bound))
            fprintf(out, "%.17g", a->error_bound);
        fputs(",", out);
        if (a->target >= 0)
            fprintf(out, "%lld", (long long)a->target);
        fprintf(out, ",%ld\n", a->steps);
    }
}

static void text_value(FILE *out, double v)
{
    if (isinf(v))
        fputs(v > 0 ? "inf" : "-inf", out);
    else
        fprintf(out, "%.12g", v);
}

static void rep_props_text(FILE *out, const rep_props *r)
{
    if (r->o->preamble)
        r->o->preamble(out, SAN_REPORT_TEXT, r->o->ctx);
    fprintf(out, "chain: %lld states, %lld initial, %lld closed class%s\n",
            (long long)r->states, (long long)r->initial, (long long)r->classes,
            r->classes == 1 ? "" : "es");
    for (int i = 0; i < r->np; i++) {
        const san_prop_answer *a = &r->ans[i];
        if (san_props_name(r->P, i))
            fprintf(out, "\"%s\": ", san_props_name(r->P, i));
        fprintf(out, "%s = ", san_props_text(r->P, i));
        text_value(out, a->value);
        fprintf(out, "  (%s; %s", a->kind, a->method ? a->method : "");
        if (a->steps)
            fprintf(out, ", %ld products", a->steps);
        if (!isnan(a->error_bound) && a->error_bound > 0)
            fprintf(out, ", error <= %.2g", a->error_bound);
        fputs(")\n", out);
    }
}

void san_props_report_opts_default(san_props_report_opts *o)
{
    *o = (san_props_report_opts){ .struct_size = sizeof *o };
}

san_status san_report_props(FILE *out, san_report_format f, const san_props *P,
                            const san_checker *C, const san_prop_answer *ans,
                            const san_props_report_opts *o)
{
    if (o && BASE_OPTS_FOREIGN(o, "report", "san_props_report_opts_default", NULL, 0))
        return SAN_E_USAGE;
    san_props_report_opts oo;
    if (o)
        oo = *o;
    else
        san_props_report_opts_default(&oo);
    const san_space *sp = san_checker_space(C);
    rep_props r = { P, C, ans, san_props_count(P), sp->n, san_checker_initial(C),
                    sp->cls ? sp->nclasses : 1, &oo };
    if (f == SAN_REPORT_JSON)
        rep_props_json(out, &r);
    else if (f == SAN_REPORT_CSV)
        rep_props_csv(out, &r);
    else
        rep_props_text(out, &r);
    return SAN_OK;
}
