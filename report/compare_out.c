/*
 * compare_out.c - san compare's report: the models solved (or evaluated,
 * closed forms) side by side, their results and marginals lined up
 * (sweep/compare.c), with the differences to the first model, the
 * relative difference of two, and the ratio B/A of a closed form and a
 * SAN; one writer per format.
 */
#include <math.h>
#include <string.h>
#include "report/commands.h"

static void text_header(const san_compare *c, const san_compare_report_opts *o, FILE *out)
{
    if (o->preamble)
        o->preamble(out, SAN_REPORT_TEXT, o->ctx);
    fprintf(out, "models\n");
    for (int i = 0; i < c->n; i++) {
        const san_sweep_row *r = &c->model[i].row;
        fprintf(out, "  %-3s %s\n", c->model[i].name, r->command ? r->command : "");
        if (r->ok && r->analytic)
            fprintf(out, "      closed form (san/analytic.h): no states, no solve\n");
        else if (r->ok)
            fprintf(out, "      %s product states, %lld reachable, %s, residual %.2g, %.3f s\n",
                    r->product, (long long)r->reachable, san_method_name(r->method), r->residual,
                    r->time_s);
        else
            fprintf(out, "      failed: %s\n", r->error ? r->error : "");
    }
}

/* A closed form beside a SAN: the table adds their ratio B/A, the
 * question being how far the SAN's answer is from the quick one. */
static int with_ratio(const san_compare *c)
{
    return c->n == 2 && (c->model[0].row.analytic || c->model[1].row.analytic);
}

static int ratio(const san_compare *c, int j, double *q)
{
    double a, b;
    if (!san_compare_value(c, 0, j, &a) || !san_compare_value(c, 1, j, &b) || a == 0)
        return 0;
    *q = b / a;
    return 1;
}

static void text_line(const san_compare *c, int j, int w, FILE *out)
{
    const san_compare_line *k = &c->line[j];
    const int n = c->n;
    char label[256];
    if (!k->marginal)
        snprintf(label, sizeof label, "%s", k->name);
    else
        snprintf(label, sizeof label, "%s %s", k->name, k->state);
    fprintf(out, "  %-*s", w, label);
    double v0, v;
    int has0 = san_compare_value(c, 0, j, &v0);
    for (int i = 0; i < n; i++) {
        if (san_compare_value(c, i, j, &v))
            fprintf(out, "  %14.8g", v);
        else
            fprintf(out, "  %14s", "-");
    }
    for (int i = 1; i < n; i++) {
        if (has0 && san_compare_value(c, i, j, &v))
            fprintf(out, "  %+14.6g", v - v0);
        else
            fprintf(out, "  %14s", "-");
    }
    int rel = n == 2 && has0 && san_compare_value(c, 1, j, &v) && v0 != 0;
    if (rel)
        fprintf(out, "  %+9.3g%%", 100 * (v - v0) / fabs(v0));
    double q;
    if (with_ratio(c) && ratio(c, j, &q))
        fprintf(out, "%s  %10.6g", rel ? "" : "           ", q);
    fputc('\n', out);
}

static void text_columns(const san_compare *c, int w, const char *title, FILE *out)
{
    fprintf(out, "\n%-*s", w + 2, title);
    for (int i = 0; i < c->n; i++)
        fprintf(out, "  %14s", c->model[i].name);
    for (int i = 1; i < c->n; i++) {
        char d[32];
        snprintf(d, sizeof d, "%s-%s", c->model[i].name, c->model[0].name);
        fprintf(out, "  %14s", d);
    }
    if (c->n == 2)
        fprintf(out, "  %10s", "relative");
    if (with_ratio(c))
        fprintf(out, "  %10s", "ratio B/A");
    fputc('\n', out);
}

static void rep_compare_text(const san_compare *c, const san_compare_report_opts *o, FILE *out)
{
    int w = 10;
    for (int i = 0; i < c->nlines; i++) {
        int len = (int)(strlen(c->line[i].name) + strlen(c->line[i].state) + 1);
        w = len > w ? len : w;
    }
    text_header(c, o, out);
    int kind = -1;
    for (int i = 0; i < c->nlines; i++) {
        if (kind != c->line[i].marginal) {
            kind = c->line[i].marginal;
            text_columns(c, w, kind ? "marginals" : "results", out);
        }
        text_line(c, i, w, out);
    }
}

static void csv_num(FILE *out, int have, double v)
{
    if (have && isfinite(v))
        fprintf(out, ",%.17g", v);
    else
        fputc(',', out);
}

static void rep_compare_csv(const san_compare *c, const san_compare_report_opts *o, FILE *out)
{
    if (o->preamble)
        o->preamble(out, SAN_REPORT_CSV, o->ctx);
    fputs("kind,name,state", out);
    for (int i = 0; i < c->n; i++)
        fprintf(out, ",%s", c->model[i].name);
    for (int i = 1; i < c->n; i++)
        fprintf(out, ",%s-%s", c->model[i].name, c->model[0].name);
    if (with_ratio(c))
        fputs(",ratio", out);
    fputc('\n', out);
    for (int j = 0; j < c->nlines; j++) {
        const san_compare_line *k = &c->line[j];
        fprintf(out, "%s,%s,%s", k->marginal ? "marginal" : "result", k->name, k->state);
        double v0, v;
        int has0 = san_compare_value(c, 0, j, &v0);
        for (int i = 0; i < c->n; i++) {
            int h = san_compare_value(c, i, j, &v);
            csv_num(out, h, v);
        }
        for (int i = 1; i < c->n; i++) {
            int h = has0 && san_compare_value(c, i, j, &v);
            csv_num(out, h, h ? v - v0 : 0);
        }
        double q = 0;
        if (with_ratio(c)) {
            int h = ratio(c, j, &q);
            csv_num(out, h, q);
        }
        fputc('\n', out);
    }
}

static void json_values(const san_compare *c, int j, FILE *out)
{
    double v0, v;
    int has0 = san_compare_value(c, 0, j, &v0);
    /* null: the model has no such index (or failed); numbers as
     * san_json_num writes them, "inf" included */
    fputs("{ \"values\": [", out);
    for (int i = 0; i < c->n; i++) {
        fputs(i ? ", " : "", out);
        if (san_compare_value(c, i, j, &v))
            san_json_num(out, v);
        else
            fputs("null", out);
    }
    fputs("], \"differences\": [", out);
    for (int i = 1; i < c->n; i++) {
        fputs(i > 1 ? ", " : "", out);
        if (has0 && san_compare_value(c, i, j, &v))
            san_json_num(out, v - v0);
        else
            fputs("null", out);
    }
    fputs("]", out);
    double q;
    if (with_ratio(c)) {
        fputs(", \"ratio\": ", out);
        if (ratio(c, j, &q))
            san_json_num(out, q);
        else
            fputs("null", out);
    }
    fputs(" }", out);
}

/* The marginals as in every report (doc/output.md): an object of
 * automata, each an object of its local states, here each state's
 * values across the models.  Automata in the order they first appear. */
static void json_marginals(const san_compare *c, FILE *out)
{
    fputs("\n  },\n  \"marginals\": {", out);
    int first = 1;
    for (int j = 0; j < c->nlines; j++) {
        const san_compare_line *k = &c->line[j];
        int seen = !k->marginal;
        for (int i = 0; !seen && i < j; i++)
            seen = c->line[i].marginal && !strcmp(c->line[i].name, k->name);
        if (seen)
            continue;
        fprintf(out, "%s\n    ", first ? "" : ",");
        first = 0;
        san_json_string(out, k->name);
        fputs(": {", out);
        for (int i = j, n = 0; i < c->nlines; i++)
            if (c->line[i].marginal && !strcmp(c->line[i].name, k->name)) {
                fputs(n++ ? ",\n      " : "\n      ", out);
                san_json_string(out, c->line[i].state);
                fputs(": ", out);
                json_values(c, i, out);
            }
        fputs(" }", out);
    }
    fputs(first ? "}\n}\n" : "\n  }\n}\n", out);
}

static void rep_compare_json(const san_compare *c, const san_compare_report_opts *o, FILE *out)
{
    fputs("{\n  ", out);
    if (o->preamble)
        o->preamble(out, SAN_REPORT_JSON, o->ctx);
    fputs("\"models\": [", out);
    for (int i = 0; i < c->n; i++) {
        const san_sweep_row *r = &c->model[i].row;
        fprintf(out, "%s\n    { \"name\": \"%s\", \"command\": ", i ? "," : "", c->model[i].name);
        san_json_string(out, r->command ? r->command : "");
        fprintf(out, ", \"ok\": %s, \"error\": ", r->ok ? "true" : "false");
        if (r->error)
            san_json_string(out, r->error);
        else
            fputs("null", out);
        fprintf(out, ", \"closed_form\": %s, \"product_states\": ", r->analytic ? "true" : "false");
        if (r->product && *r->product)
            san_json_size(out, r->product);
        else
            fputs("null", out);
        fprintf(out, ", \"reachable_states\": %lld,\n      \"solver\": { ",
                (long long)r->reachable);
        san_sweep_accuracy acc;
        san_sweep_row_accuracy(r, &acc);
        san_sweep_json_accuracy(out, &acc);
        fputs(" } }", out);
    }
    fputs("\n  ],\n  \"results\": {", out);
    int first = 1;
    for (int j = 0; j < c->nlines; j++)
        if (!c->line[j].marginal) {
            fprintf(out, "%s\n    ", first ? "" : ",");
            first = 0;
            san_json_string(out, c->line[j].name);
            fputs(": ", out);
            json_values(c, j, out);
        }
    json_marginals(c, out);
}

void san_compare_report_opts_default(san_compare_report_opts *o)
{
    *o = (san_compare_report_opts){ .struct_size = sizeof *o };
}

san_status san_report_compare(FILE *out, san_report_format f, const san_compare *c,
                              const san_compare_report_opts *o)
{
    if (o && BASE_OPTS_FOREIGN(o, "report", "san_compare_report_opts_default", NULL, 0))
        return SAN_E_USAGE;
    san_compare_report_opts oo;
    if (o)
        oo = *o;
    else
        san_compare_report_opts_default(&oo);
    if (f == SAN_REPORT_JSON)
        rep_compare_json(c, &oo, out);
    else if (f == SAN_REPORT_CSV)
        rep_compare_csv(c, &oo, out);
    else
        rep_compare_text(c, &oo, out);
    return SAN_OK;
}
