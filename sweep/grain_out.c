/*
 * grain_out.c - the report of a grain ranking (san grain) as text and
 * JSON (doc/output.md): per configuration the table of grains, the
 * recommendation and why each other grain lost.  In the library so that
 * the command and the Python package print one report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"

/* The indices the table shows, when the model computes them. */
static const char *const shown[] = {
    "master_rx", "master_tx", "granularity_index", "efficiency", "slave_idle",
    "slave_transmitting", "task_throughput", "pack_throughput", "execution_time", NULL
};

static double res_or_nan(const san_sweep_row *r, const char *name)
{
    double v;
    return san_sweep_row_result(r, name, &v) ? v : NAN;
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static const char *grain_of(const san_sweep *s, int g, int v)
{
    return s->spec.axis[g].values[s->pick[v][g]];
}

/* A column as wide as its header (granularity_index, execution_time:
 * they were cut to 12 characters), at least 12 for the numbers. */
static int col_width(const char *name)
{
    int w = (int)strlen(name);
    return w > 12 ? w : 12;
}

/* The index ranked by, when the table does not show it (down_tp). */
static const char *extra_column(const san_grain *G)
{
    if (G->rule == SAN_GRAIN_PAPER)
        return NULL;
    for (int k = 0; shown[k]; k++)
        if (!strcmp(shown[k], G->by))
            return NULL;
    return G->by;
}

static void text_table(const san_grain *G, const int *mem, int n, FILE *out)
{
    const san_sweep *s = &G->sweep;
    const char *extra = extra_column(G);
    fprintf(out, "  %-6s", "grain");
    for (int k = 0; shown[k]; k++)
        if (san_sweep_find_result(s, shown[k]) >= 0)
            fprintf(out, "  %*s", col_width(shown[k]), shown[k]);
    if (extra)
        fprintf(out, "  %*s", col_width(extra), extra);
    fputc('\n', out);
    for (int i = 0; i < n; i++) {
        const san_sweep_row *r = &s->rows[mem[i]];
        fprintf(out, "  %-6s", grain_of(s, G->axis, mem[i]));
        if (!r->ok) {
            fprintf(out, "  failed: %s\n", r->error ? r->error : "");
            continue;
        }
        for (int k = 0; shown[k]; k++)
            if (san_sweep_find_result(s, shown[k]) >= 0)
                fprintf(out, "  %*.6g", col_width(shown[k]), res_or_nan(r, shown[k]));
        if (extra)
            fprintf(out, "  %*.6g", col_width(extra), res_or_nan(r, extra));
        fputc('\n', out);
    }
}

/* How much worse x is than the best value b on the rule ("7.07% more"). */
static void worse_by(FILE *out, double x, double b)
{
    if (b != 0 && isfinite(x) && isfinite(b))
        fprintf(out, " (%.3g%% %s)", 100 * fabs(x - b) / fabs(b), x > b ? "more" : "less");
}

/* The paper's rule: why its grain, why not each other. */
static void paper_reasons(const san_sweep *s, int g, const san_grain_group *c, double busy,
                          FILE *out)
{
    const char *unit = s->spec.axis[g].name;
    const san_sweep_row *b = &s->rows[c->best];
    fprintf(out, "  recommended: %s = %s: the master is least in Tx (%.6g) among the grains "
            "whose slaves stay busy (efficiency %.6g, the best is %.6g; kept: >= %.6g, "
            "within %g%%)\n", unit, grain_of(s, g, c->best), res_or_nan(b, "master_tx"),
            res_or_nan(b, "efficiency"), c->best_eff, c->floor_eff, 100 * busy);
    for (int i = 0; i < c->n; i++) {
        const int v = c->member[i];
        const san_sweep_row *r = &s->rows[v];
        if (v == c->best || !r->ok)
            continue;
        double e = res_or_nan(r, "efficiency");
        if (e < c->floor_eff)
            fprintf(out, "    %s = %s: slaves not busy enough (efficiency %.6g < %.6g)\n", unit,
                    grain_of(s, g, v), e, c->floor_eff);
        else
            fprintf(out, "    %s = %s: master more in Tx (%.6g > %.6g)\n", unit,
                    grain_of(s, g, v), res_or_nan(r, "master_tx"), res_or_nan(b, "master_tx"));
    }
    if (c->fastest >= 0 && c->fastest != c->best)
        fprintf(out, "  shortest predicted execution: %s = %s (execution_time %.6g; --by "
                "execution_time recommends it)\n", unit, grain_of(s, g, c->fastest),
                res_or_nan(&s->rows[c->fastest], "execution_time"));
}

/* An objective: why its grain, how much worse each other is, and what
 * the paper's rule would pick. */
static void index_reasons(const san_grain *G, const san_grain_group *c, FILE *out)
{
    const san_sweep *s = &G->sweep;
    const int g = G->axis;
    const char *unit = s->spec.axis[g].name;
    const char *side = G->rule == SAN_GRAIN_MIN ? "least" : "greatest";
    const double bv = res_or_nan(&s->rows[c->best], G->by);
    fprintf(out, "  recommended: %s = %s: the %s %s (%.6g) of the table\n", unit,
            grain_of(s, g, c->best), side, G->by, bv);
    for (int i = 0; i < c->n; i++) {
        const int v = c->member[i];
        if (v == c->best || !s->rows[v].ok)
            continue;
        double x = res_or_nan(&s->rows[v], G->by);
        fprintf(out, "    %s = %s: %s %.6g", unit, grain_of(s, g, v), G->by, x);
        worse_by(out, x, bv);
        fputc('\n', out);
    }
    if (c->paper >= 0 && c->paper != c->best) {
        double x = res_or_nan(&s->rows[c->paper], G->by);
        fprintf(out, "  the paper's rule (master least in Tx among busy grains) picks %s = %s: "
                "%s %.6g", unit, grain_of(s, g, c->paper), G->by, x);
        worse_by(out, x, bv);
        fputs("; --by paper recommends it\n", out);
    }
}

/* Why the recommended grain, and why not each of the others. */
static void text_reasons(const san_grain *G, const san_grain_group *c, FILE *out)
{
    if (c->best < 0) {
        fprintf(out, "  no recommendation: no grain solved\n");
        return;
    }
    if (G->rule == SAN_GRAIN_PAPER)
        paper_reasons(&G->sweep, G->axis, c, G->busy, out);
    else
        index_reasons(G, c, out);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */


/* A grain (slices per node, slices): a number, as every number of the
 * reports (doc/output.md); text only if the axis is not numeric. */
static void json_grain(FILE *out, const san_sweep *s, int g, int v)
{
    if (s->spec.axis[g].numeric)
        san_json_num(out, san_sweep_row_value(s, &s->rows[v], g));
    else
        san_json_string(out, grain_of(s, g, v));
}

static void json_group(const san_grain *G, const san_grain_group *grp, const char *label,
                       FILE *out)
{
    const san_sweep *s = &G->sweep;
    const int g = G->axis;
    const char *extra = extra_column(G);
    const int *mem = grp->member;
    const int n = grp->n;
    const san_grain_group c = *grp;
    fputs("    { \"configuration\": ", out);
    san_json_string(out, label);
    fputs(", \"recommended\": ", out);
    if (c.best >= 0)
        json_grain(out, s, g, c.best);
    else
        fputs("null", out);
    fputs(", \"fastest\": ", out);
    if (c.fastest >= 0)
        json_grain(out, s, g, c.fastest);
    else
        fputs("null", out);
    fputs(", \"paper_rule\": ", out);
    if (c.paper >= 0)
        json_grain(out, s, g, c.paper);
    else
        fputs("null", out);
    fputs(",\n      \"grains\": [", out);
    for (int i = 0; i < n; i++) {
        const san_sweep_row *r = &s->rows[mem[i]];
        fprintf(out, "%s\n        { \"grain\": ", i ? "," : "");
        json_grain(out, s, g, mem[i]);
        fputs(", \"command\": ", out);
        san_json_string(out, r->command ? r->command : "");
        fputs(", \"error\": ", out);
        if (r->error)
            san_json_string(out, r->error);
        else
            fputs("null", out);
        fputs(",\n          \"solver\": { ", out);
        san_sweep_accuracy acc;
        san_sweep_row_accuracy(r, &acc);
        san_sweep_json_accuracy(out, &acc);
        fputs(" }", out);
        for (int k = 0; shown[k]; k++)
            if (san_sweep_find_result(s, shown[k]) >= 0) {
                fprintf(out, ", \"%s\": ", shown[k]);
                sweep_json_figure(out, res_or_nan(r, shown[k]));
            }
        if (extra) {
            fprintf(out, ", \"%s\": ", extra);
            sweep_json_figure(out, res_or_nan(r, extra));
        }
        fputs(" }", out);
    }
    fputs(" ] }", out);
}

/* ------------------------------------------------------------------ */
/* The report                                                           */
/* ------------------------------------------------------------------ */

/* One line per configuration: the grain to use, for a quick read. */
static void summary(const san_grain *G, FILE *out)
{
    const san_sweep *s = &G->sweep;
    fprintf(out, "recommended %s:", s->spec.axis[G->axis].name);
    for (int i = 0; i < G->ngroups; i++) {
        const san_grain_group *c = &G->group[i];
        char *label = san_sweep_label(s, c->member[0], G->axis);
        fprintf(out, "%s %s: %s", i ? ";" : "", label ? label : "",
                c->best >= 0 ? grain_of(s, G->axis, c->best) : "none");
        free(label);
    }
    fputc('\n', out);
}

void san_grain_write(const san_grain *G, san_sweep_format f, san_sweep_preamble pre,
                     const void *ctx, FILE *out)
{
    const san_sweep *s = &G->sweep;
    const int g = G->axis;
    const int json = f == SAN_SWEEP_JSON;
    if (json) {
        fputs("{\n  ", out);
        if (pre)
            pre(out, f, ctx);
        fputs("\"grain\": ", out);
        san_json_string(out, s->spec.axis[g].name);
        fputs(",\n  \"by\": ", out);
        san_json_string(out, G->by);
        fputs(", \"rule\": ", out);
        san_json_string(out, G->rule == SAN_GRAIN_PAPER ? "paper" :
                        G->rule == SAN_GRAIN_MIN ? "min" : "max");
        fputs(",\n  \"busy\": ", out);
        san_json_num(out, G->busy);
        fputs(",\n  \"configurations\": [\n", out);
    } else {
        if (pre)
            pre(out, f, ctx);
        if (G->rule == SAN_GRAIN_PAPER)
            fprintf(out, "grains ranked by the paper's rule: the master least in Tx among the "
                    "grains whose slaves stay busy (efficiency within %g%% of the best)\n\n",
                    100 * G->busy);
        else
            fprintf(out, "grains ranked by the %s %s\n\n",
                    G->rule == SAN_GRAIN_MIN ? "least" : "greatest", G->by);
    }
    for (int i = 0; i < G->ngroups; i++) {
        const san_grain_group *c = &G->group[i];
        char *label = san_sweep_label(s, c->member[0], g);
        if (json) {
            fputs(i ? ",\n" : "", out);
            json_group(G, c, label ? label : "", out);
        } else {
            fprintf(out, "%s\n", label ? label : "");
            text_table(G, c->member, c->n, out);
            text_reasons(G, c, out);
            fputc('\n', out);
        }
        free(label);
    }
    if (json)
        fputs("\n  ]\n}\n", out);
    else
        summary(G, out);
}

