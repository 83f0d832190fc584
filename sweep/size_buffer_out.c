/*
 * size_buffer_out.c - the report of a buffer sizing (san size-buffer) as
 * text and JSON (doc/output.md): each configuration's buffer, what it
 * buys at K, K + 1 and the limit's size, and its curve.  In the library
 * so that the command and the Python package print one report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/services.h"
#include "sweep/sweep_int.h"

static void text_curve(const san_buffer_sizing *z, const san_buffer_config *cf,
                       const char *index, FILE *out)
{
    fprintf(out, "    %8s  %-14s  %s\n", "K", index, "vs limit");
    for (int i = 0; i < z->n; i++)
        fprintf(out, "    %8ld  %-14.8g  %+.3g%%%s\n", z->curve[i].k, z->curve[i].v,
                cf->limit != 0 ? 100 * (z->curve[i].v - cf->limit) / fabs(cf->limit) : 0.0,
                z->curve[i].k == z->k ? "   <- smallest within" : "");
}

/* A figure, or "-" where the model does not compute it. */
static void text_fig(FILE *out, double x)
{
    if (isnan(x))
        fprintf(out, "  %14s", "-");
    else
        fprintf(out, "  %14.8g", x);
}

/* What the buffer buys: the throughput, the efficiency and the index at
 * the chosen K, at K + 1 and at the limit's size. */
static void text_buys(const san_size_buffer *b, const san_buffer_config *cf, FILE *out)
{
    const long ks[3] = { cf->all.k, cf->all.k + 1, cf->k_limit };
    const char *what[3] = { "chosen", "one more", "limit" };
    int same = !strcmp(b->index, b->throughput);
    fprintf(out, "  what it buys: %8s  %14s  %14s", "K", b->throughput, "efficiency");
    if (!same)
        fprintf(out, "  %14s", b->index);
    fputc('\n', out);
    for (int i = 0; i < 3; i++) {
        const san_buffer_point *p = san_buffer_sizing_at(&cf->all, ks[i]);
        if (!p || (i == 2 && ks[2] <= ks[1]))
            continue;
        fprintf(out, "  %-12s  %8ld", what[i], p->k);
        text_fig(out, p->throughput);
        text_fig(out, p->efficiency);
        if (!same)
            text_fig(out, p->v);
        fputc('\n', out);
    }
}

static void text_config(const san_size_buffer *b, const san_buffer_config *cf, const char *label,
                        FILE *out)
{
    const char *err = san_buffer_config_error(cf);
    if (err) {
        fprintf(out, "%s: failed: %s\n", label, err);
        return;
    }
    fprintf(out, "%s: buffer %ld  (%s %.8g; limit %.8g, reached at K = %ld; %d solves)\n", label,
            cf->all.k, b->index, cf->all.value, cf->limit, cf->k_limit, cf->all.n);
    text_buys(b, cf, out);
    if (!b->pipeline) {
        text_curve(&cf->all, cf, b->index, out);
        return;
    }
    fprintf(out, "  every buffer at %ld (above); each buffer alone, the others at %ld:\n",
            cf->all.k, cf->k_limit);
    for (int j = 0; j < cf->neach; j++) {
        fprintf(out, "  buffer %d (after stage %d): %ld  (%s %.8g)\n", j + 1, j + 1,
                cf->each[j].k, b->index, cf->each[j].value);
        text_curve(&cf->each[j], cf, b->index, out);
    }
    if (cf->combined_ok)
        fprintf(out, "  all at their own sizes: %s %.8g, %s the tolerance of the limit\n", b->index,
                cf->combined, cf->combined_within ? "within" : "NOT within");
}

static void json_curve(const san_buffer_sizing *z, FILE *out)
{
    fputs("[", out);
    for (int i = 0; i < z->n; i++)
    {
        fprintf(out, "%s[%ld, ", i ? ", " : "", z->curve[i].k);
        san_json_num(out, z->curve[i].v);
        fputs("]", out);
    }
    fputs("]", out);
}

/* How each point of the curve was solved, in the curve's order:
 * [{"buffer": K, "method", "iterations", ..., "lumped"}, ...]. */
static void json_accuracy(const san_buffer_sizing *z, FILE *out)
{
    fputs("[", out);
    for (int i = 0; i < z->n; i++) {
        fprintf(out, "%s\n        { \"buffer\": %ld, ", i ? "," : "", z->curve[i].k);
        san_sweep_json_accuracy(out, &z->curve[i].acc);
        fputs(" }", out);
    }
    fputs(" ]", out);
}

/* {"buffer", "value", "throughput", "efficiency", "solver"} at size k;
 * null when not evaluated. */
static void json_at(const san_buffer_config *cf, long k, FILE *out)
{
    const san_buffer_point *p = san_buffer_sizing_at(&cf->all, k);
    if (!p) {
        fputs("null", out);
        return;
    }
    fprintf(out, "{ \"buffer\": %ld, \"value\": ", p->k);
    san_json_num(out, p->v);
    fputs(", \"throughput\": ", out);
    sweep_json_figure(out, p->throughput);
    fputs(", \"efficiency\": ", out);
    sweep_json_figure(out, p->efficiency);
    fputs(",\n        \"solver\": { ", out);
    san_sweep_json_accuracy(out, &p->acc);
    fputs(" } }", out);
}

static void json_config(const san_size_buffer *b, const san_buffer_config *cf, const char *label,
                        FILE *out)
{
    const char *err = san_buffer_config_error(cf);
    fputs("    { \"configuration\": ", out);
    san_json_string(out, label);
    if (err) {
        fputs(", \"error\": ", out);
        san_json_string(out, err);
        fputs(" }", out);
        return;
    }
    fprintf(out, ", \"error\": null, \"buffer\": %ld, \"value\": ", cf->all.k);
    san_json_num(out, cf->all.value);
    fputs(", \"limit\": ", out);
    san_json_num(out, cf->limit);
    fprintf(out, ", \"limit_buffer\": %ld,\n      \"command\": ", cf->k_limit);
    const san_buffer_point *chosen = san_buffer_sizing_at(&cf->all, cf->all.k);
    if (chosen && chosen->command)
        san_json_string(out, chosen->command);
    else
        fputs("null", out);
    fputs(",\n      \"at_buffer\": ", out);
    json_at(cf, cf->all.k, out);
    fputs(",\n      \"at_next\": ", out);
    json_at(cf, cf->all.k + 1, out);
    fputs(",\n      \"at_limit\": ", out);
    json_at(cf, cf->k_limit, out);
    fputs(",\n      \"curve\": ", out);
    json_curve(&cf->all, out);
    fputs(",\n      \"accuracy\": ", out);
    json_accuracy(&cf->all, out);
    if (b->pipeline) {
        fputs(",\n      \"buffers\": [", out);
        for (int j = 0; j < cf->neach; j++) {
            fprintf(out, "%s\n        { \"buffer\": %ld, \"value\": ", j ? "," : "",
                    cf->each[j].k);
            san_json_num(out, cf->each[j].value);
            fputs(", \"curve\": ", out);
            json_curve(&cf->each[j], out);
            fputs(",\n          \"accuracy\": ", out);
            json_accuracy(&cf->each[j], out);
            fputs(" }", out);
        }
        fputs(" ],\n      \"combined\": ", out);
        if (cf->combined_ok)
            san_json_num(out, cf->combined);
        else
            fputs("null", out);
    }
    fputs(" }", out);
}

void san_size_buffer_write(const san_size_buffer *b, san_sweep_format f,
                           san_sweep_preamble pre, const void *ctx, FILE *out)
{
    const san_buffer_config *cf = b->config;
    const int json = f == SAN_SWEEP_JSON;
    if (json) {
        fputs("{\n  ", out);
        if (pre)
            pre(out, f, ctx);
        fputs("\"index\": ", out);
        san_json_string(out, b->index);
        fputs(", \"throughput\": ", out);
        san_json_string(out, b->throughput);
        fputs(",\n  \"within\": ", out);
        san_json_num(out, b->within);
        fputs(",\n  \"configurations\": [\n", out);
    } else {
        if (pre)
            pre(out, f, ctx);
        fprintf(out, "smallest buffer with %s within %g%% of its large-buffer limit\n\n",
                b->index, 100 * b->within);
    }
    for (int v = 0; v < b->sweep.nvariants; v++) {
        char *label = san_sweep_label(&b->sweep, v, -1);
        if (json) {
            json_config(b, &cf[v], label ? label : "", out);
            fputs(v + 1 < b->sweep.nvariants ? ",\n" : "\n", out);
        } else {
            text_config(b, &cf[v], label ? label : "", out);
            fputs("\n", out);
        }
        free(label);
    }
    if (json)
        fputs("  ]\n}\n", out);
}
