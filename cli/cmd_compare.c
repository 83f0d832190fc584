/*
 * cmd_compare.c - `san compare A B ...`: two or more models, or generator
 * command lines, solved and shown side by side with their differences.
 * The solving and the lining up are the library's (sweep/compare.c);
 * here are the options and the three formats.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"

typedef struct {
    san_sweep_opts run;
    cli_format fmt;
    int marginals;
    int quiet;
    cli_strings defs;       /* -D NAME=VALUE, added to every model */
    cli_diag diag;
} compare_args;

static const cli_option compare_options[] = {
    CLI_GROUP("options:"),
    CLI_CALLBACK('D', NULL, "NAME=VALUE", compare_args, defs, cli_opt_define_text,
                 "override a constant in every model"),
    CLI_FORMAT(compare_args, fmt, CLI_FMT_TEXT | CLI_FMT_JSON | CLI_FMT_CSV, NULL),
    CLI_FLAG(0, "no-marginals", compare_args, marginals, 0, "results only"),
    CLI_FLAG('q', "quiet", compare_args, quiet, 1,
             "no progress on stderr, no provenance header (text)"),
    CLI_INCLUDE(cli_run_options, compare_args, run),
    CLI_GROUP("limits:"),
    CLI_MAX_INPUT(compare_args, run.max_input),
    CLI_INCLUDE(cli_diag_options, compare_args, diag),
    CLI_END
};

static const cli_spec compare_spec = {
    .name = "compare",
    .usage = "usage: san compare [options] A B [C...]\n",
    .intro =
        "Solve each model and show the results and the marginal probabilities of\n"
        "the local states side by side, with the difference of each model to the\n"
        "first (and the relative difference when there are two).  A model is a\n"
        ".san file (its name may hold blanks), or a quoted command line, a\n"
        "generator's or a file's with -D (quotes group words in it):\n"
        "\n"
        "  san compare 'ms --mode sync --slaves 5' 'ms --mode async --slaves 5 --buffer 1'\n"
        "  san compare models/mm1k.san 'models/mm1k.san -D lambda=3'\n"
        "\n"
        "A closed form (mw, cluster: san mw, san cluster) is a model too: its\n"
        "values are computed, not solved, and beside one other model the table\n"
        "adds the ratio B/A:\n"
        "\n"
        "  san compare 'mw --workers 4' \"$(san mw --workers 4 --ms-line)\"\n",
    .opts = compare_options,
    .outro = "Exit status: 0 all solved, 1 some failed, 2 bad usage.\n",
    .unknown_hint = "quote a generator line: 'ms --mode async --slaves 3'",
};

void help_compare(FILE *out)
{
    cli_help(out, &compare_spec);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

static void text_header(const san_compare *c, FILE *out)
{
    cli_meta_text(out);
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

static void write_text(const san_compare *c, FILE *out)
{
    int w = 10;
    for (int i = 0; i < c->nlines; i++) {
        int len = (int)(strlen(c->line[i].name) + strlen(c->line[i].state) + 1);
        w = len > w ? len : w;
    }
    text_header(c, out);
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

static void write_csv(const san_compare *c, const cli_run *run, FILE *out)
{
    cli_meta_csv(out, run);
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

/* The provenance block (cli/meta.c): the method, tolerance and storage
 * asked, converged when every model did. */
static cli_run run_of(const san_compare *c, const san_sweep_opts *o)
{
    int ok = 1;
    for (int i = 0; i < c->n; i++)
        ok &= c->model[i].row.ok;
    return cli_run_asked(o, ok);
}

static void write_json(const san_compare *c, const cli_run *run, FILE *out)
{
    fputs("{\n  ", out);
    cli_meta_json(out, run);
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

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

static int compare_main(compare_args *A, int n, char **models)
{
    char err[1024];
    san_compare c;
    san_status st = san_compare_init(&c, n, (const char *const *)models, A->defs.n, A->defs.v,
                                     &A->run, err, sizeof err);
    if (st == SAN_E_USAGE)
        return cli_usage_error("compare", "%s", err);
    if (st == SAN_E_INPUT) {
        fprintf(stderr, "san: %s\n", err);
        return cli_exit_status(st);
    }
    if (st != SAN_OK) {
        fprintf(stderr, "san compare: %s\n", err);
        return EXIT_FAIL;
    }
    int status = EXIT_OK;
    for (int i = 0; i < c.n; i++) {     /* the model files: the report names their bytes */
        const san_sweep_spec *sp = &c.model[i].sweep.spec;
        if (sp->path && sp->text)
            cli_meta_model(sp->path, sp->text, sp->len);
    }
    /* the models' warnings, each once (not once per model line) */
    char **seen = NULL;
    for (int i = 0; i < c.n; i++)
        cli_print_sweep_warnings(&c.model[i].sweep, &seen);
    cli_seen_free(seen);
    A->run.progress = !A->quiet && cli_stderr_is_tty();
    if (san_compare_run(&c, &A->run, A->marginals) != SAN_OK) {
        fprintf(stderr, "san compare: out of memory\n");
        status = EXIT_FAIL;
    } else {
        cli_run run = run_of(&c, &A->run);
        if (A->fmt == FMT_JSON)
            write_json(&c, &run, stdout);
        else if (A->fmt == FMT_CSV)
            write_csv(&c, &run, stdout);
        else
            write_text(&c, stdout);
        fflush(stdout);
    }
    int said = 0;
    for (int i = 0; i < c.n; i++)
        if (!c.model[i].row.ok)
            status = cli_say_failed("compare", "model", c.model[i].name, c.model[i].row.error,
                                    &said);
    cli_say_failed_end("compare", "model", said);
    san_compare_free(&c);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    compare_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    /* a command may fork: the LU runs in a child the time limit ends */
    A.run.solve.fork_lu = 1;
    A.fmt = FMT_TEXT;
    A.marginals = 1;
    char **models;
    int n;
    int status = cli_parse(&compare_spec, argc, argv, &A, &models, &n);
    if (A.quiet)
        cli_meta_quiet();
    A.run.no_peps_warnings = A.diag.no_peps_warnings;
    A.run.peers = A.diag.peers;
    if (status == 0 && n < 2)
        status = cli_usage_error("compare", "expected at least two models or generator lines");
    if (status == 0)
        status = compare_main(&A, n, models);
    free(models);
    cli_strings_free(&A.defs);
    return status == CLI_HELP_SHOWN ? EXIT_OK : status;
}
