/*
 * cmd_compare.c - `san compare A B ...`: two or more models, or generator
 * command lines, solved and shown side by side with their differences.
 * The solving and the lining up (sweep/compare.c) and the report
 * (report/compare_out.c) are the library's; here are the options.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

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

/* The provenance block (tool/meta.c): the method, tolerance and storage
 * asked, converged when every model did. */
static cli_run run_of(const san_compare *c, const san_sweep_opts *o)
{
    int ok = 1;
    for (int i = 0; i < c->n; i++)
        ok &= c->model[i].row.ok;
    return cli_run_asked(o, ok);
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
        san_compare_report_opts ro = { .preamble = cli_provenance, .ctx = &run };
        san_report_compare(stdout, cli_report_format(A->fmt), &c, &ro);
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
