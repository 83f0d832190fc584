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
    tool_format fmt;
    int marginals;
    int quiet;
    tool_strings defs;       /* -D NAME=VALUE, added to every model */
    tool_diag diag;
} compare_args;

static const tool_option compare_options[] = {
    TOOL_GROUP("options:"),
    TOOL_CALLBACK('D', NULL, "NAME=VALUE", compare_args, defs, tool_opt_define_text,
                 "override a constant in every model"),
    TOOL_FORMAT(compare_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV, NULL),
    TOOL_FLAG(0, "no-marginals", compare_args, marginals, 0, "results only"),
    TOOL_FLAG('q', "quiet", compare_args, quiet, 1,
             "no progress on stderr, no provenance header (text)"),
    TOOL_INCLUDE(tool_run_options, compare_args, run),
    TOOL_GROUP("limits:"),
    TOOL_MAX_INPUT(compare_args, run.max_input),
    TOOL_INCLUDE(tool_diag_options, compare_args, diag),
    TOOL_END
};

static const tool_spec compare_spec = {
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
    tool_help(out, &compare_spec);
}

/* The provenance block (tool/meta.c): the method, tolerance and storage
 * asked, converged when every model did. */
static tool_run run_of(const san_compare *c, const san_sweep_opts *o)
{
    int ok = 1;
    for (int i = 0; i < c->n; i++)
        ok &= c->model[i].row.ok;
    return tool_run_asked(o, ok);
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
        return tool_usage_error("compare", "%s", err);
    if (st == SAN_E_INPUT) {
        fprintf(stderr, "san: %s\n", err);
        return tool_exit_status(st);
    }
    if (st != SAN_OK) {
        fprintf(stderr, "san compare: %s\n", err);
        return EXIT_FAIL;
    }
    int status = EXIT_OK;
    for (int i = 0; i < c.n; i++) {     /* the model files: the report names their bytes */
        const san_sweep_spec *sp = &c.model[i].sweep.spec;
        if (sp->path && sp->text)
            tool_meta_model(sp->path, sp->text, sp->len);
    }
    /* the models' warnings, each once (not once per model line) */
    char **seen = NULL;
    for (int i = 0; i < c.n; i++)
        tool_print_sweep_warnings(&c.model[i].sweep, &seen);
    tool_seen_free(seen);
    A->run.progress = !A->quiet && tool_stderr_is_tty();
    san_status rst = san_compare_run(&c, &A->run, A->marginals, err, sizeof err);
    if (rst != SAN_OK) {
        fprintf(stderr, "san compare: %s\n", err);
        status = tool_exit_status(rst);
    } else {
        tool_run run = run_of(&c, &A->run);
        san_compare_report_opts ro;
        san_compare_report_opts_default(&ro);
        ro.preamble = tool_provenance;
        ro.ctx = &run;
        san_report_compare(stdout, tool_report_format(A->fmt), &c, &ro);
        fflush(stdout);
    }
    int said = 0;
    for (int i = 0; i < c.n; i++)
        if (!c.model[i].row.ok)
            status = tool_say_failed("compare", "model", c.model[i].name, c.model[i].row.error,
                                    &said);
    tool_say_failed_end("compare", "model", said);
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
    int status = tool_parse(&compare_spec, argc, argv, &A, &models, &n);
    if (A.quiet)
        tool_meta_quiet();
    A.run.no_peps_warnings = A.diag.no_peps_warnings;
    A.run.peers = A.diag.peers;
    if (status == 0 && n < 2)
        status = tool_usage_error("compare", "expected at least two models or generator lines");
    if (status == 0)
        status = compare_main(&A, n, models);
    free(models);
    tool_strings_free(&A.defs);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
