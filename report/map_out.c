/*
 * map_out.c - san map's report: a pipeline's mapping before (one stage
 * per processor) and after (analytic/map.c), their bottlenecks, the
 * time of a finite job, the generator line of the proposal; a batch as
 * one row per pipeline.  One writer per format, case by case, so that a
 * batch streams.
 */
#include <math.h>
#include "report/commands.h"

/* "E1+E2 | E3 x3 | E4": the units of a mapping. */
static void put_units(FILE *out, const san_map_mapping *m, const char *sep)
{
    for (int u = 0; u < m->nunits; u++) {
        fputs(u ? sep : "", out);
        for (int i = m->first[u]; i <= m->last[u]; i++)
            fprintf(out, "%sE%d", i > m->first[u] ? "+" : "", i + 1);
        if (m->replicas[u] > 1)
            fprintf(out, " x%d", m->replicas[u]);
    }
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static void text_mapping(FILE *out, const char *what, const san_map_mapping *m)
{
    fprintf(out, "%s (%d processor%s):\n  ", what, m->processors, m->processors == 1 ? "" : "s");
    put_units(out, m, " | ");
    fprintf(out, "\n  production times:");
    for (int u = 0; u < m->nunits; u++)
        fprintf(out, " %.6g", m->period[u]);
    fprintf(out, "\n  bottleneck %.6g (", m->bottleneck);
    san_map_mapping one = *m;
    one.first[0] = m->first[m->bottleneck_unit];
    one.last[0] = m->last[m->bottleneck_unit];
    one.replicas[0] = m->replicas[m->bottleneck_unit];
    one.nunits = 1;
    put_units(out, &one, "");
    fprintf(out, "), throughput %.6g\n", 1 / m->bottleneck);
}

static void text_finite(FILE *out, const char *what, const san_finite_time *f)
{
    fprintf(out, "  %-7s fill %.6g, fill + (n-1) x bottleneck = %.6g, ", what, f->fill,
            f->closed_form);
    if (isnan(f->exact))
        fprintf(out, "item by item: not run (over 10^7 items)\n");
    else
        fprintf(out, "item by item %.6g\n", f->exact);
}

static void text_case(FILE *out, const san_map_case *c)
{
    fprintf(out, "stages:");
    for (int i = 0; i < c->in.nstages; i++)
        fprintf(out, " %.6g", c->in.tr[i]);
    fprintf(out, " on %d processors; Tp_ideal = sum(Tr)/P = %.6g\n", c->in.processors,
            c->res.tp_ideal);
    if (c->in.cm_time > 0)
        fprintf(out, "communication manager: %.6g per item%s\n", c->in.cm_time,
                c->in.cm_own_processor ? ", on a processor of its own" : "");
    text_mapping(out, "before, one stage per processor", &c->res.before);
    text_mapping(out, c->in.method == SAN_MAP_OPTIMAL ? "after, optimal" : "after, DPM",
                 &c->res.after);
    fprintf(out, "gain (throughput after / before): %.6g\n", c->res.gain);
    if (c->items) {
        fprintf(out, "time of %ld items (deterministic, unbounded buffers):\n", c->items);
        text_finite(out, "before", &c->fin_before);
        text_finite(out, "after", &c->fin_after);
    }
    fprintf(out, "stochastic model of the proposal:\n  san gen %s\n", c->line);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

static void json_num(FILE *out, double v)
{
    rep_json_figure(out, v);
}

static void json_mapping(FILE *out, const san_map_mapping *m)
{
    fprintf(out, "{ \"processors\": %d, \"bottleneck\": ", m->processors);
    json_num(out, m->bottleneck);
    fputs(", \"throughput\": ", out);
    json_num(out, 1 / m->bottleneck);
    fputs(", \"units\": [", out);
    for (int u = 0; u < m->nunits; u++) {
        fprintf(out, "%s{ \"stages\": [", u ? ", " : "");
        for (int i = m->first[u]; i <= m->last[u]; i++)
            fprintf(out, "%s%d", i > m->first[u] ? ", " : "", i + 1);
        fprintf(out, "], \"replicas\": %d, \"period\": ", m->replicas[u]);
        json_num(out, m->period[u]);
        fputs(" }", out);
    }
    fputs("] }", out);
}

static void json_finite(FILE *out, const san_finite_time *f)
{
    fputs("{ \"fill\": ", out);
    json_num(out, f->fill);
    fputs(", \"closed_form\": ", out);
    json_num(out, f->closed_form);
    fputs(", \"exact\": ", out);
    json_num(out, f->exact);
    fputs(" }", out);
}

/* One mapping; top (not a case of a batch): the document itself, with
 * the provenance block. */
static void json_case(FILE *out, const san_map_case *c, const char *indent, int top,
                      const san_map_report_opts *o)
{
    if (top) {
        fputs("{\n  ", out);
        if (o->preamble)
            o->preamble(out, SAN_REPORT_JSON, o->ctx);
        fputs("\"stages\": [", out);
    } else {
        fprintf(out, "%s{ \"stages\": [", indent);
    }
    for (int i = 0; i < c->in.nstages; i++) {
        fputs(i ? ", " : "", out);
        json_num(out, c->in.tr[i]);
    }
    fprintf(out, "], \"processors\": %d, \"method\": \"%s\", \"tp_ideal\": ", c->in.processors,
            c->in.method == SAN_MAP_OPTIMAL ? "optimal" : "dpm");
    json_num(out, c->res.tp_ideal);
    fprintf(out, ",\n%s  \"before\": ", indent);
    json_mapping(out, &c->res.before);
    fprintf(out, ",\n%s  \"after\": ", indent);
    json_mapping(out, &c->res.after);
    fprintf(out, ",\n%s  \"gain\": ", indent);
    json_num(out, c->res.gain);
    if (c->items) {
        fprintf(out, ",\n%s  \"items\": %ld, \"time_before\": ", indent, c->items);
        json_finite(out, &c->fin_before);
        fputs(", \"time_after\": ", out);
        json_finite(out, &c->fin_after);
    }
    fprintf(out, ",\n%s  \"gen\": ", indent);
    san_json_string(out, c->line);
    fputs(" }", out);
}

/* ------------------------------------------------------------------ */
/* CSV                                                                  */
/* ------------------------------------------------------------------ */

static void csv_header(FILE *out, const san_map_case *c)
{
    fputs("stages,processors,method,tp_ideal,before_bottleneck,after_bottleneck,gain,"
          "after_processors,mapping", out);
    if (c->items > 0)
        fputs(",items,time_before,time_after,time_before_closed,time_after_closed", out);
    fputs(",gen\n", out);
}

static void csv_case(FILE *out, const san_map_case *c)
{
    fputc('"', out);
    for (int i = 0; i < c->in.nstages; i++)
        fprintf(out, "%s%.12g", i ? "," : "", c->in.tr[i]);
    fprintf(out, "\",%d,%s,%.12g,%.12g,%.12g,%.12g,%d,", c->in.processors,
            c->in.method == SAN_MAP_OPTIMAL ? "optimal" : "dpm", c->res.tp_ideal,
            c->res.before.bottleneck, c->res.after.bottleneck, c->res.gain,
            c->res.after.processors);
    put_units(out, &c->res.after, " | ");
    if (c->items)
        fprintf(out, ",%ld,%.12g,%.12g,%.12g,%.12g", c->items, c->fin_before.exact,
                c->fin_after.exact, c->fin_before.closed_form, c->fin_after.closed_form);
    fprintf(out, ",\"%s\"\n", c->line);
}

/* ------------------------------------------------------------------ */
/* The entries                                                          */
/* ------------------------------------------------------------------ */

/* A batch's text: one row per pipeline. */
static void text_row(FILE *out, const san_map_case *c, int k)
{
    fprintf(out, "%-4d bottleneck %.6g -> %.6g (gain %.4g) on %d processors: ", k + 1,
            c->res.before.bottleneck, c->res.after.bottleneck, c->res.gain,
            c->res.after.processors);
    put_units(out, &c->res.after, " | ");
    fputc('\n', out);
}

void san_map_report_opts_default(san_map_report_opts *o)
{
    *o = (san_map_report_opts){ .struct_size = sizeof *o };
}

san_status san_report_map_case(FILE *out, san_report_format f, const san_map_case *c, int k,
                               const san_map_report_opts *o)
{
    if (o && BASE_OPTS_FOREIGN(o, "report", "san_map_report_opts_default", NULL, 0))
        return SAN_E_USAGE;
    san_map_report_opts oo;
    if (o)
        oo = *o;
    else
        san_map_report_opts_default(&oo);
    if (k == 0 && f != SAN_REPORT_JSON && oo.preamble)
        oo.preamble(out, f, oo.ctx);
    if (f == SAN_REPORT_CSV) {
        if (k == 0)
            csv_header(out, c);
        csv_case(out, c);
    } else if (f == SAN_REPORT_JSON) {
        /* a batch: the cases in "cases", after the provenance block */
        if (oo.batch && k == 0) {
            fputs("{\n  ", out);
            if (oo.preamble)
                oo.preamble(out, SAN_REPORT_JSON, oo.ctx);
            fputs("\"cases\": [\n", out);
        } else if (oo.batch) {
            fputs(",\n", out);
        }
        json_case(out, c, oo.batch ? "    " : "", !oo.batch, &oo);
        if (!oo.batch)
            fputc('\n', out);
    } else if (oo.batch) {
        text_row(out, c, k);
    } else {
        text_case(out, c);
    }
    return SAN_OK;
}

san_status san_report_map_end(FILE *out, san_report_format f, int n,
                              const san_map_report_opts *o)
{
    if (o && BASE_OPTS_FOREIGN(o, "report", "san_map_report_opts_default", NULL, 0))
        return SAN_E_USAGE;
    san_map_report_opts oo;
    if (o)
        oo = *o;
    else
        san_map_report_opts_default(&oo);
    if (f != SAN_REPORT_JSON || !oo.batch)
        return SAN_OK;
    if (n == 0) {
        fputs("{\n  ", out);
        if (oo.preamble)
            oo.preamble(out, SAN_REPORT_JSON, oo.ctx);
        fputs("\"cases\": []\n}\n", out);
    } else {
        fputs("\n  ]\n}\n", out);
    }
    return SAN_OK;
}
