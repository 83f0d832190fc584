/*
 * cmd_size_buffer.c - `san size-buffer`: for each configuration, the
 * smallest buffer whose index is within a tolerance of its large-buffer
 * limit.  The search is the library's (sweep/size_buffer.c,
 * san_size_buffer_run); here are its options and its report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "options.h"

typedef struct {
    san_sweep_opts run;
    san_size_buffer_opts search;
    cli_format fmt;
    const char *plot;
    cli_plot look;
    int quiet;
    cli_diag diag;
} size_args;

static const cli_option size_options[] = {
    CLI_GROUP("options:"),
    CLI_STRING(0, "index", "NAME", size_args, search.index,
               "the index (default: the throughput, ms pack_throughput,\n"
               "pipeline throughput; or e.g. slave_transmitting)"),
    CLI_DOUBLE(0, "within", "X", size_args, search.within, 1e-12, 10, 0, NULL,
               "relative tolerance (0.01: within 1% of the limit)", "0.01"),
    CLI_INT(0, "max-buffer", "K", size_args, search.max_buffer, 2, 1e6, NULL,
            "give up past this size", "1024"),
    CLI_FORMAT(size_args, fmt, CLI_FMT_TEXT | CLI_FMT_JSON, NULL),
    CLI_OUTPUT(0, "plot", "FILE", size_args, plot,
               "the curves, index against K, as .svg, .png or .pdf"),
    CLI_FLAG('q', "quiet", size_args, quiet, 1,
             "no progress on stderr, no provenance header (text)"),
    CLI_INCLUDE(cli_plot_options, size_args, look),
    CLI_INCLUDE(cli_run_options, size_args, run),
    CLI_INCLUDE(cli_diag_options, size_args, diag),
    CLI_END
};

static const cli_spec size_spec = {
    .name = "size-buffer",
    .usage =
        "usage: san size-buffer ms [--mode async] [template flags] [options]\n"
        "       san size-buffer pipeline --mode async --stages T1,...,Tm [flags] [options]\n",
    .intro =
        "For each configuration (template flags may take several values, as in\n"
        "san sweep), find the smallest buffer K whose index (by default the\n"
        "throughput) is within a relative tolerance of its large-buffer limit,\n"
        "print what it buys (throughput and efficiency at K, at K + 1 and at the\n"
        "limit) and the curve behind it.\n"
        "The limit is the index once doubling K changes it by less than half\n"
        "the tolerance; then bisection between the last two powers of two finds\n"
        "the smallest K (about 2 log2(K) solves instead of K).  For a pipeline,\n"
        "each inter-stage buffer is sized in turn, the others held large.\n",
    .opts = size_options,
    .outro =
        "example:\n"
        "  san size-buffer ms --mode async --slaves 2..7 --within 0.05\n"
        "\n"
        "Exit status: 0 every configuration sized, 1 some failed, 2 bad usage.\n",
    .flags = CLI_PASS_UNKNOWN,
};

void help_size_buffer(FILE *out)
{
    cli_help(out, &size_spec);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

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

/* {"buffer", "value", "throughput", "efficiency"} at size k; null when
 * not evaluated. */
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
    cli_json_figure(out, p->throughput);
    fputs(", \"efficiency\": ", out);
    cli_json_figure(out, p->efficiency);
    fputs(" }", out);
}

static void json_config(const san_size_buffer *b, const san_buffer_config *cf, const char *label,
                        FILE *out)
{
    const char *err = san_buffer_config_error(cf);
    fputs("    { \"configuration\": ", out);
    cli_json_string(out, label);
    if (err) {
        fputs(", \"error\": ", out);
        cli_json_string(out, err);
        fputs(" }", out);
        return;
    }
    fprintf(out, ", \"error\": null, \"buffer\": %ld, \"value\": ", cf->all.k);
    san_json_num(out, cf->all.value);
    fputs(", \"limit\": ", out);
    san_json_num(out, cf->limit);
    fprintf(out, ", \"limit_buffer\": %ld,\n      \"at_buffer\": ", cf->k_limit);
    json_at(cf, cf->all.k, out);
    fputs(",\n      \"at_next\": ", out);
    json_at(cf, cf->all.k + 1, out);
    fputs(",\n      \"at_limit\": ", out);
    json_at(cf, cf->k_limit, out);
    fputs(",\n      \"curve\": ", out);
    json_curve(&cf->all, out);
    if (b->pipeline) {
        fputs(",\n      \"buffers\": [", out);
        for (int j = 0; j < cf->neach; j++) {
            fprintf(out, "%s\n        { \"buffer\": %ld, \"value\": ", j ? "," : "",
                    cf->each[j].k);
            san_json_num(out, cf->each[j].value);
            fputs(", \"curve\": ", out);
            json_curve(&cf->each[j], out);
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

static void write_all(const san_size_buffer *b, const cli_run *run, cli_format fmt, FILE *out)
{
    const san_buffer_config *cf = b->config;
    if (fmt == FMT_JSON) {
        fputs("{\n  ", out);
        cli_meta_json(out, run);
        fputs("\"index\": ", out);
        cli_json_string(out, b->index);
        fputs(", \"throughput\": ", out);
        cli_json_string(out, b->throughput);
        fputs(",\n  \"within\": ", out);
        san_json_num(out, b->within);
        fputs(",\n  \"configurations\": [\n", out);
    } else {
        cli_meta_text(out);
        fprintf(out, "smallest buffer with %s within %g%% of its large-buffer limit\n\n",
                b->index, 100 * b->within);
    }
    for (int v = 0; v < b->sweep.nvariants; v++) {
        char *label = cli_sweep_label(&b->sweep, v, -1);
        if (fmt == FMT_JSON) {
            json_config(b, &cf[v], label ? label : "", out);
            fputs(v + 1 < b->sweep.nvariants ? ",\n" : "\n", out);
        } else {
            text_config(b, &cf[v], label ? label : "", out);
            fputs("\n", out);
        }
        free(label);
    }
    if (fmt == FMT_JSON)
        fputs("  ]\n}\n", out);
}

/* Legend entries without repetition: when every label is "slaves=2",
 * "slaves=3" (the same names in the same order), the labels become the
 * values and title the names ("slaves"); 0 when they are not alike. */
static int legend_values(san_plot_series *ps, int n, char *title, size_t tn)
{
    char names[256];
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            char keys[256], vals[256];
            size_t kn = 0, vn = 0;
            const char *p = ps[i].label;
            while (p && *p) {
                const char *eq = strchr(p, '='), *end = strstr(p, ", ");
                if (!end)
                    end = p + strlen(p);
                if (!eq || eq > end || eq == p)
                    return 0;
                kn += snprintf(keys + kn, kn < sizeof keys ? sizeof keys - kn : 0, "%s%.*s",
                               kn ? ", " : "", (int)(eq - p), p);
                vn += snprintf(vals + vn, vn < sizeof vals ? sizeof vals - vn : 0, "%s%.*s",
                               vn ? ", " : "", (int)(end - eq - 1), eq + 1);
                p = *end ? end + 2 : end;
            }
            if (!kn || kn >= sizeof keys || vn >= sizeof vals)
                return 0;
            if (pass == 0 && (i == 0 ? (snprintf(names, sizeof names, "%s", keys), 0)
                                     : strcmp(names, keys) != 0))
                return 0;
            if (pass == 1)
                strcpy(ps[i].label, vals);      /* shorter than the label */
        }
    snprintf(title, tn, "%s", n ? names : "");
    return n > 0;
}

static int plot_curves(const san_size_buffer *b, const char *file, const san_plot_opts *look)
{
    const san_buffer_config *cf = b->config;
    san_plot_series *ps = calloc(b->sweep.nvariants + 1, sizeof *ps);
    int n = 0;
    for (int v = 0; ps && v < b->sweep.nvariants; v++) {
        const san_buffer_sizing *z = &cf[v].all;
        if (san_buffer_config_error(&cf[v]) || z->n == 0)
            continue;
        ps[n].label = cli_sweep_label(&b->sweep, v, -1);
        ps[n].x = malloc(z->n * sizeof *ps[n].x);
        ps[n].y = malloc(z->n * sizeof *ps[n].y);
        for (int i = 0; ps[n].x && ps[n].y && i < z->n; i++) {
            ps[n].x[i] = (double)z->curve[i].k;
            ps[n].y[i] = z->curve[i].v;
            if (z->curve[i].k == z->k)
                ps[n].mark = i + 1;     /* the chosen buffer, ringed */
        }
        ps[n].n = ps[n].x && ps[n].y && ps[n].label ? z->n : 0;
        n++;
    }
    char err[512], title[256];
    snprintf(title, sizeof title, "%s against the buffer size (ringed: the smallest within "
             "%g%% of the limit)", b->index, 100 * b->within);
    san_plot_opts o = *look;
    char legend[256];
    if (!o.legend_title && legend_values(ps, n, legend, sizeof legend))
        o.legend_title = legend;
    o.title = o.title ? o.title : title;
    o.xlabel = o.xlabel ? o.xlabel : b->pipeline ? "K (every buffer)" : "K";
    o.ylabel = o.ylabel ? o.ylabel : b->index;
    int rc = ps ? san_plot_ex(file, &o, ps, n, err, sizeof err) : -1;
    if (rc < 0)
        fprintf(stderr, "san size-buffer: %s\n", ps ? err : "out of memory");
    for (int k = 0; ps && k < n; k++) {
        free(ps[k].label);
        free(ps[k].x);
        free(ps[k].y);
    }
    free(ps);
    return cli_plot_status(rc);
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

static int size_main(size_args *A, int nspec, char **spec)
{
    char err[1024];
    san_size_buffer b;
    A->run.no_peps_warnings = A->diag.no_peps_warnings;
    A->run.peers = A->diag.peers;
    A->search.diag = &A->run;
    san_status st = san_size_buffer_init(&b, nspec, spec, &A->search, err, sizeof err);
    if (st == SAN_E_USAGE)
        return cli_template_error(&size_spec, err);
    if (st != SAN_OK) {
        fprintf(stderr, "san size-buffer: %s\n", err);
        return EXIT_FAIL;
    }
    char **seen = NULL;
    cli_print_sweep_warnings(&b.sweep, &seen);
    cli_seen_free(seen);
    A->run.interrupt = cli_interrupt("size-buffer", 0);
    A->run.progress = !A->quiet && cli_stderr_is_tty();
    int status = EXIT_OK;
    if (san_size_buffer_run(&b, &A->run) != SAN_OK) {
        fprintf(stderr, "san size-buffer: out of memory\n");
        status = EXIT_FAIL;
    } else {
        /* --plot alone: the plot is the output (cli_plot_table) */
        int said = 0;
        for (int v = 0; v < b.sweep.nvariants; v++)
            if (san_buffer_config_error(&b.config[v])) {
                char *label = cli_sweep_label(&b.sweep, v, -1);
                status = cli_say_failed("size-buffer", "configuration", label,
                                        san_buffer_config_error(&b.config[v]), &said);
                free(label);
            }
        cli_say_failed_end("size-buffer", "configuration", said);
        cli_run run = cli_run_asked(&A->run, status == EXIT_OK);
        if (cli_plot_table(A->plot, &A->look, A->fmt != FMT_UNSET))
            write_all(&b, &run, A->fmt == FMT_UNSET ? FMT_TEXT : A->fmt, stdout);
        fflush(stdout);
        if (A->plot) {
            int prc = plot_curves(&b, A->plot, &A->look.look);
            status = prc ? prc : status;
        }
    }
    san_size_buffer_free(&b);
    return status;
}

int cmd_size_buffer(int argc, char **argv)
{
    size_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    san_size_buffer_opts_default(&A.search);
    A.fmt = FMT_UNSET;
    cli_plot_init(&A.look);
    char **spec;
    int nspec;
    int status = cli_parse(&size_spec, argc, argv, &A, &spec, &nspec);
    if (A.quiet)
        cli_meta_quiet();
    if (status == 0)
        status = cli_plot_check("size-buffer", A.plot, &A.look);
    if (status == 0)
        status = size_main(&A, nspec, spec);
    free(spec);
    return status == CLI_HELP_SHOWN ? EXIT_OK : status;
}
