/*
 * check_json.c - san check's report as JSON (doc/output.md): the model
 * as the parser read it, its size and memory estimates, the audit, and
 * every diagnostic; "valid": false without a model.
 */
#include "report/commands.h"
#include "lang/model_int.h"

static void json_memory(FILE *out, const san_estimate *e)
{
    fputs(",\n  \"memory\": {", out);
    if (!e->ok) {
        fputs("\"error\": ", out);
        san_json_string(out, e->why);
        fputs("}", out);
        return;
    }
    fprintf(out, "\n    \"states\": %lld, \"states_basis\": \"%s\",", (long long)e->states,
            san_estimate_basis_name(e->basis));
    if (e->states_at_least)
        fprintf(out, " \"states_at_least\": %lld,", (long long)e->states_at_least);
    if (e->nonzeros_known)
        fprintf(out, "\n    \"nonzeros_per_state\": %.17g, \"nonzeros_exact\": %s, "
                "\"sampled_states\": %lld,\n    \"nonzeros\": %.0f, \"sparse_bytes\": %.0f,",
                e->nonzeros_per_state, e->nonzeros_exact ? "true" : "false",
                (long long)e->sampled, e->nonzeros, e->sparse_bytes);
    else
        fputs("\n    \"nonzeros_per_state\": null, \"nonzeros_exact\": false, "
              "\"sampled_states\": 0,\n    \"nonzeros\": null, \"sparse_bytes\": null,", out);
    fprintf(out, "\n    \"kron_bytes\": %.0f, \"sparse_over_limit\": %s\n  }", e->kron_bytes,
            e->over_sparse_limit ? "true" : "false");
}

static void json_audit(FILE *out, const san_audit *r)
{
    fprintf(out, ",\n  \"reachable\": {\"explored\": %s, \"complete\": %s, "
            "\"states_checked\": %lld", r->explored ? "true" : "false",
            r->complete ? "true" : "false", (long long)r->states);
    if (!r->complete) {
        fputs(", \"why\": ", out);
        san_json_string(out, r->why);
    }
    fputs("}", out);
}

static void json_diags(FILE *out, const san_diag *d, san_severity sev)
{
    int first = 1;
    for (int i = 0; i < d->n; i++) {
        const san_diag_item *it = &d->items[i];
        if (it->sev != sev)
            continue;
        fprintf(out, "%s\n    {\"line\": %d, \"col\": %d, \"message\": ", first ? "" : ",",
                it->line, it->col);
        san_json_string(out, it->msg);
        fputs("}", out);
        first = 0;
    }
    fprintf(out, "%s]", first ? "" : "\n  ");
}

static void json_automata(FILE *out, const san_model *m)
{
    fputs(",\n  \"automata\": [", out);
    for (int a = 0; a < m->naut; a++) {
        fprintf(out, "%s\n    {\"name\": ", a ? "," : "");
        san_json_string(out, m->aut[a].name);
        fputs(", \"states\": [", out);
        for (int s = 0; s < m->aut[a].nstates; s++) {
            fputs(s ? ", " : "", out);
            san_json_string(out, m->aut[a].states[s]);
        }
        fputs("]}", out);
    }
}

static void json_events(FILE *out, const san_model *m)
{
    fputs("\n  ],\n  \"events\": [", out);
    for (int e = 0; e < m->nev; e++) {
        const lang_event *E = &m->ev[e];
        fprintf(out, "%s\n    {\"name\": ", e ? "," : "");
        san_json_string(out, E->name);
        fprintf(out, ", \"type\": \"%s\", \"rate\": ", E->sync ? "syn" : "loc");
        if (san_expr_is_const(E->rate))
            san_json_num(out, san_expr_const(E->rate));
        else
            fputs("\"function\"", out);
        fputs(", \"automata\": [", out);
        for (int k = 0; k < E->nparts; k++) {
            fputs(k ? ", " : "", out);
            san_json_string(out, m->aut[E->parts[k]].name);
        }
        fputs("]}", out);
    }
}

static void json_model(FILE *out, const san_model *m, const rep_check *r)
{
    const san_lumping *L = r->o->lumping;
    fputs(",\n  \"product_states\": ", out);
    san_json_size(out, m->product_str);
    fprintf(out, ",\n  \"product_states_log10\": %.6f", m->product_log10);
    if (L) {
        fputs(",\n  \"lumped\": {\"classes\": ", out);
        san_json_string(out, san_lumping_summary(L));
        fputs(", \"product_states\": ", out);
        san_json_size(out, san_lumping_model(L)->product_str);
        fputs("}", out);
    }
    json_memory(out, r->mem);
    json_audit(out, r->audit);
    json_automata(out, m);
    json_events(out, m);
    fputs("\n  ],\n  \"functions\": [", out);
    int first = 1;
    for (int i = 0; i < m->nid; i++)
        if (m->id[i].is_function) {
            fputs(first ? "" : ", ", out);
            san_json_string(out, m->id[i].name);
            first = 0;
        }
    fputs("],\n  \"results\": [", out);
    for (int k = 0; k < m->nres; k++) {
        fputs(k ? ", " : "", out);
        san_json_string(out, m->res[k].name);
    }
    fputs("]", out);
}

void rep_check_json(FILE *out, const san_model *m, const san_diag *d, const rep_check *r)
{
    fputs("{\n  ", out);
    if (r->o->preamble)
        r->o->preamble(out, SAN_REPORT_JSON, r->o->ctx);
    fputs("\"model\": ", out);
    san_json_string(out, m ? m->name : "");
    fputs(",\n  \"file\": ", out);
    san_json_string(out, d->file);
    fprintf(out, ",\n  \"valid\": %s", m && !d->nerrors ? "true" : "false");
    if (m)
        json_model(out, m, r);
    fputs(",\n  \"errors\": [", out);
    json_diags(out, d, SAN_ERROR);
    fputs(",\n  \"warnings\": [", out);
    json_diags(out, d, SAN_WARNING);
    fputs("\n}\n", out);
}

void san_check_report_opts_default(san_check_report_opts *o)
{
    *o = (san_check_report_opts){ .struct_size = sizeof *o };
}

san_status san_report_check(FILE *out, san_report_format f, const san_model *m,
                            const san_diag *d, const san_check_report_opts *o)
{
    static const san_estimate no_estimate;
    static const san_audit no_audit;
    if (o && BASE_OPTS_FOREIGN(o, "report", "san_check_report_opts_default", NULL, 0))
        return SAN_E_USAGE;
    san_check_report_opts oo;
    if (o)
        oo = *o;
    else
        san_check_report_opts_default(&oo);
    rep_check r = { &oo, oo.memory ? oo.memory : &no_estimate, oo.audit ? oo.audit : &no_audit };
    if (f == SAN_REPORT_JSON) {
        rep_check_json(out, m, d, &r);
        return SAN_OK;
    }
    if (f == SAN_REPORT_TEXT && m) {
        rep_check_text(out, m, d, &r);
        return SAN_OK;
    }
    return SAN_E_USAGE;
}
