/*
 * cmd_grain.c - `san grain`: the granularity indices of a master/slave
 * program per grain (slices per node) and per configuration, and the
 * grain to use.  The solves and the recommendation are the library's
 * (sweep/grain.c, san_grain_run); here are the options and the report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "options.h"

typedef struct {
    san_sweep_opts run;
    cli_format fmt;
    const char *plot, *y, *by;
    cli_plot look;
    double busy;
    int quiet;
    cli_diag diag;
} grain_args;

static const cli_option grain_options[] = {
    CLI_GROUP("options:"),
    CLI_STRING(0, "by", "RULE", grain_args, by,
               "rank the grains by execution_time, efficiency,\n"
               "throughput (runs per second: --work slices), paper\n"
               "(the master least in Tx among busy grains), an index,\n"
               "or min:INDEX / max:INDEX (default: execution_time\n"
               "when computed, else paper)"),
    CLI_DOUBLE(0, "busy", "X", grain_args, busy, 0, 1, CLI_OPEN_HI, NULL,
               "paper rule: slaves stay busy, efficiency within X\n"
               "(relative) of the best grain's", "0.01"),
    CLI_FORMAT(grain_args, fmt, CLI_FMT_TEXT | CLI_FMT_JSON, NULL),
    CLI_OUTPUT(0, "plot", "FILE", grain_args, plot,
               "master_rx (or --y INDEX) against the slaves, one\n"
               "curve per grain, as .svg, .png or .pdf"),
    { .kind = CLI_OPT_STRING, .long_name = "y", .argh = "INDEX",
      .offset = offsetof(grain_args, y), .help = "the index to plot", .def = "master_rx" },
    CLI_FLAG('q', "quiet", grain_args, quiet, 1,
             "no progress on stderr, no provenance header (text)"),
    CLI_INCLUDE(cli_plot_options, grain_args, look),
    CLI_INCLUDE(cli_run_options, grain_args, run),
    CLI_INCLUDE(cli_diag_options, grain_args, diag),
    CLI_END
};

static const cli_spec grain_spec = {
    .name = "grain",
    .usage = "usage: san grain ms --slices-per-node 1..6 [--slaves 2..7] [template flags] [options]\n",
    .intro =
        "Solve the master/slave model for every grain (slices per node, or\n"
        "--slices) and configuration, print the granularity indices (master in\n"
        "Rx and Tx, granularity_index, slave efficiency, idle and transmitting,\n"
        "throughputs, and execution_time with --work slices), and recommend per\n"
        "configuration the best grain on --by (the shortest execution_time when\n"
        "computed, else the paper's rule: the master least in Tx among the\n"
        "grains that keep the slaves busy), with the reasons and what the other\n"
        "rule would pick.  --mode defaults to async.\n",
    .opts = grain_options,
    .outro =
        "example:\n"
        "  san grain ms --slices-per-node 1..6 --slaves 2..7\n"
        "  san grain ms --work slices --slices-per-node 1..4 --slaves 2..5 --by efficiency\n"
        "\n"
        "Exit status: 0 success, 1 some variant failed, 2 bad usage.\n",
    .flags = CLI_PASS_UNKNOWN,
};

void help_grain(FILE *out)
{
    cli_help(out, &grain_spec);
}

/* The indices shown per grain, in this order. */
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
        cli_json_string(out, grain_of(s, g, v));
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
    cli_json_string(out, label);
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
        fputs(", \"error\": ", out);
        if (r->error)
            cli_json_string(out, r->error);
        else
            fputs("null", out);
        for (int k = 0; shown[k]; k++)
            if (san_sweep_find_result(s, shown[k]) >= 0) {
                fprintf(out, ", \"%s\": ", shown[k]);
                cli_json_figure(out, res_or_nan(r, shown[k]));
            }
        if (extra) {
            fprintf(out, ", \"%s\": ", extra);
            cli_json_figure(out, res_or_nan(r, extra));
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
        char *label = cli_sweep_label(s, c->member[0], G->axis);
        fprintf(out, "%s %s: %s", i ? ";" : "", label ? label : "",
                c->best >= 0 ? grain_of(s, G->axis, c->best) : "none");
        free(label);
    }
    fputc('\n', out);
}

static void report(const san_grain *G, const grain_args *A, FILE *out)
{
    const san_sweep *s = &G->sweep;
    const int g = G->axis;
    int failed = 0;
    for (int v = 0; v < s->nvariants; v++)
        failed += !s->rows[v].ok;
    cli_run run = cli_run_asked(&A->run, failed == 0);
    if (A->fmt == FMT_JSON) {
        fputs("{\n  ", out);
        cli_meta_json(out, &run);
        fputs("\"grain\": ", out);
        cli_json_string(out, s->spec.axis[g].name);
        fputs(",\n  \"by\": ", out);
        cli_json_string(out, G->by);
        fputs(", \"rule\": ", out);
        cli_json_string(out, G->rule == SAN_GRAIN_PAPER ? "paper" :
                        G->rule == SAN_GRAIN_MIN ? "min" : "max");
        fputs(",\n  \"busy\": ", out);
        san_json_num(out, A->busy);
        fputs(",\n  \"configurations\": [\n", out);
    } else {
        cli_meta_text(out);
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
        char *label = cli_sweep_label(s, c->member[0], g);
        if (A->fmt == FMT_JSON) {
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
    if (A->fmt == FMT_JSON)
        fputs("\n  ]\n}\n", out);
    else
        summary(G, out);
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

static int plot(const san_sweep *s, int g, const grain_args *A)
{
    const char *y = A->y ? A->y : "master_rx";
    int x = san_sweep_find_axis(s, "--slaves");
    const char *xname = x >= 0 && s->spec.axis[x].nvalues > 1 ? "slaves" : s->spec.axis[g].name;
    char err[512];
    int rc = san_sweep_plot_ex(s, A->plot, xname, y, s->spec.axis[g].name, &A->look.look, err,
                               sizeof err);
    if (rc < 0)
        fprintf(stderr, "san grain: %s\n", err);
    return cli_plot_status(rc);
}

static int grain_main(grain_args *A, int nspec, char **spec)
{
    char err[1024];
    san_grain G;
    A->run.no_peps_warnings = A->diag.no_peps_warnings;
    A->run.peers = A->diag.peers;
    san_status st = san_grain_init_opts(&G, nspec, spec, &A->run, err, sizeof err);
    if (st == SAN_E_USAGE)
        return cli_template_error(&grain_spec, err);
    if (st != SAN_OK) {
        fprintf(stderr, "san grain: %s\n", err);
        return EXIT_FAIL;
    }
    const san_sweep *s = &G.sweep;
    int status = EXIT_OK;
    if (A->y && san_sweep_find_result(s, A->y) < 0)
        status = cli_usage_error("grain", "--y: unknown index '%s'", A->y);
    if (status == EXIT_OK && A->by && san_grain_by(&G, A->by, err, sizeof err) != SAN_OK)
        status = cli_usage_error("grain", "%s", err);
    if (status == EXIT_OK) {
        A->run.interrupt = cli_interrupt("grain", 0);
        A->run.progress = !A->quiet && cli_stderr_is_tty();
        if (san_grain_run(&G, &A->run, A->busy) != SAN_OK) {
            status = EXIT_FAIL;
        } else if (!G.remote) {         /* another MPI rank says nothing */
            char **seen = NULL;
            cli_print_sweep_warnings(s, &seen);
            cli_seen_free(seen);
            /* --plot alone: the plot is the output (cli_plot_table) */
            if (cli_plot_table(A->plot, &A->look, A->fmt != FMT_UNSET))
                report(&G, A, stdout);
            fflush(stdout);
            if (cli_say_failed_variants("grain", s) != EXIT_OK)
                status = EXIT_FAIL;
            if (A->plot) {
                int prc = plot(s, G.axis, A);
                status = prc ? prc : status;
            }
        }
    }
    san_grain_free(&G);
    return status;
}

int cmd_grain(int argc, char **argv)
{
    grain_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    A.fmt = FMT_UNSET;
    A.busy = 0.01;
    cli_plot_init(&A.look);
    char **spec;
    int nspec;
    int status = cli_parse(&grain_spec, argc, argv, &A, &spec, &nspec);
    if (A.quiet)
        cli_meta_quiet();
    if (status == 0)
        status = cli_plot_check("grain", A.plot, &A.look);
    if (status == 0)
        status = grain_main(&A, nspec, spec);
    free(spec);
    return status == CLI_HELP_SHOWN ? EXIT_OK : status;
}
