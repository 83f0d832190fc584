/*
 * cmd_sweep.c - `san sweep`: solve every combination of some template
 * flags (or -D constants of a model) and report one row per variant,
 * optionally drawn as curves.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    san_sweep_opts run;
    tool_format fmt;
    const char *output, *plot, *x, *y, *series, *index;
    tool_plot look;
    int quiet, times;
    tool_diag diag;
} sweep_args;

static const tool_option sweep_options[] = {
    TOOL_GROUP("output:"),
    TOOL_FORMAT(sweep_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV,
               "text (only the varying parameters), json or csv"),
    TOOL_OUTPUT('o', "output", "FILE", sweep_args, output,
               "write the table to FILE (atomically: see OUTPUT FILES\n"
               "in san(1))"),
    TOOL_STRING(0, "index", "A,B", sweep_args, index, "only these result columns"),
    TOOL_FLAG(0, "no-times", sweep_args, times, 0,
             "leave the timing column out (to compare runs)"),
    TOOL_OUTPUT(0, "plot", "FILE", sweep_args, plot,
               "draw curves into FILE.svg, .png or .pdf, with:"),
    TOOL_STRING(0, "x", "PARAM", sweep_args, x, "the parameter on the x axis (numeric)"),
    TOOL_STRING(0, "y", "INDEX", sweep_args, y,
               "a result (or reachable_states, time_s, iterations)"),
    TOOL_STRING(0, "series", "P,Q", sweep_args, series,
               "one curve per value of these parameters (default:\n"
               "every other varying parameter)"),
    TOOL_FLAG('q', "quiet", sweep_args, quiet, 1,
             "no progress bar or summary on stderr, no provenance\nheader (text)"),
    TOOL_INCLUDE(tool_plot_options, sweep_args, look),
    TOOL_GROUP("run:"),
    TOOL_FLAG(0, "warm", sweep_args, run.warm_chains, 1,
             "solve the variants along the innermost numeric\n"
             "parameter in order, each from the answer of the\n"
             "one before (fewer iterations, less parallelism)"),
    TOOL_INCLUDE(tool_run_options, sweep_args, run),
    TOOL_GROUP("limits:"),
    TOOL_MAX_INPUT(sweep_args, run.max_input),
    TOOL_INCLUDE(tool_diag_options, sweep_args, diag),
    TOOL_END
};

static const tool_spec sweep_spec = {
    .name = "sweep",
    .usage =
        "usage: san sweep TEMPLATE [template flags with several values] [options]\n"
        "       san sweep MODEL -D NAME=VALUES... [options]\n",
    .intro =
        "Solve every combination of the values and report one row per variant:\n"
        "its parameters, product and reachable states, solver figures and every\n"
        "result.  A variant that fails (too large, not converged) is a row with\n"
        "its error; the others go on.  Variants run in parallel, one per core,\n"
        "largest first; under mpirun (built with --with-mpi) over the ranks.\n"
        "\n"
        "values, on any template flag or -D constant:\n"
        "  a..b         a, a+1, ..., b           (--slaves 2..7)\n"
        "  a..b:step    a, a+step, ..., <= b     (-D lambda=0.5..2:0.5)\n"
        "  a,b,c        a list; items may be ranges (--buffer 1,5,10..40:10)\n"
        "  x;y          for flags whose value is a list (--stages '1,2,1;1,3,1')\n"
        "A flag that only applies to some values of a swept flag (--buffer with\n"
        "--mode sync,async) is left out where it does not apply: one sync row,\n"
        "not one per buffer size.\n"
        "\n"
        "The closed forms mw and cluster (san mw, san cluster) are templates too:\n"
        "their variants are evaluated, not solved (no states, no solver columns).\n",
    .opts = sweep_options,
    .outro =
        "examples:\n"
        "  san sweep ms --mode sync,async --slaves 2..7 --buffer 1,5,10,20,40 \\\n"
        "      --plot tx.svg --x slaves --y slave_transmitting\n"
        "  san sweep models/mm1k.san -D lambda=0.5..4:0.5 -D mu=3,6 -f csv\n"
        "  san sweep mw --workers 1..60 --protocol sync,async --plot tt.svg \\\n"
        "      --x workers --y execution_time\n"
        "  san sweep ms --mode async --slaves 2..4 --buffer 1,2,4,8,16,32 --plot k.pdf \\\n"
        "      --x buffer --y slave_transmitting --series slaves --logx \\\n"
        "      --size 360x240 --xlabel 'buffer K (tasks)' --ylabel 'P(transmitting)'\n"
        "\n"
        "Exit status: 0 every variant solved, 1 some failed, 2 bad usage (bad\n"
        "range, unknown flag, index or parameter, every variant refused).\n",
    .flags = TOOL_PASS_UNKNOWN | TOOL_OPERAND_FILES,
    .not_a_file = san_sweep_is_template,
};

void help_sweep(FILE *out)
{
    tool_help(out, &sweep_spec);
    fprintf(out, "\nMPI: %s\n", san_sweep_mpi() ? "built in (mpirun -n P san sweep ...)"
                                                : "not built in (./configure --with-mpi)");
}

/* Our options come out of the command line; the template (or model)
 * and its flags, in any order after it, are left in spec. */
static int parse_args(int argc, char **argv, sweep_args *A, char ***spec, int *nspec)
{
    int rc = tool_parse(&sweep_spec, argc, argv, A, spec, nspec);
    if (A->quiet)
        tool_meta_quiet();
    if (rc)
        return rc;
    A->run.no_peps_warnings = A->diag.no_peps_warnings;
    A->run.peers = A->diag.peers;
    if (*nspec == 0)
        return tool_usage_error("sweep", "missing template (ms, pipeline, mw, cluster) or model file");
    if (A->plot && (!A->x || !A->y))
        return tool_usage_error("sweep", "--plot: give --x PARAM and --y INDEX as well");
    if (!A->plot && (A->x || A->y || A->series))
        return tool_usage_error("sweep", "%s: only with --plot FILE", A->x ? "--x" : A->y ? "--y" : "--series");
    return tool_plot_check("sweep", A->plot, &A->look);
}

/* ---- output ---- */

typedef struct {
    const san_sweep *s;
    san_sweep_format f;
    char **only;
    int nonly, times;
    const tool_run *run;     /* the provenance: the method, tolerance and
                               storage asked (each variant's method is in
                               its row), converged when every one did */
} table_ctx;

static int write_table(const void *ctx, FILE *out)
{
    const table_ctx *t = ctx;
    san_sweep_write_ex(t->s, t->f, t->only, t->nonly, t->times, tool_sweep_provenance, t->run,
                       out);
    return 0;
}

static int failed_rows(const san_sweep *s)
{
    int n = 0;
    for (int v = 0; v < s->nvariants; v++)
        n += !s->rows[v].ok;
    return n;
}

static int report(const san_sweep *s, const sweep_args *A, char **only, int nonly, double t)
{
    /* --plot alone: the plot is the output (tool_plot_table) */
    san_sweep_format f = A->fmt == FMT_CSV ? SAN_SWEEP_CSV : A->fmt == FMT_JSON ? SAN_SWEEP_JSON
                                                                             : SAN_SWEEP_TEXT;
    tool_run run = tool_run_asked(&A->run, failed_rows(s) == 0);
    table_ctx tc = { s, f, only, nonly, A->times, &run };
    int status = EXIT_OK;
    if (tool_plot_table(A->plot, &A->look, A->fmt != FMT_UNSET || A->output))
        status = tool_write_output(A->output, write_table, &tc);
    if (A->plot && status == EXIT_OK) {
        char err[512];
        int rc = san_sweep_plot_ex(s, A->plot, A->x, A->y, A->series, &A->look.look, err,
                                   sizeof err);
        if (rc < 0) {
            fprintf(stderr, "san sweep: %s\n", err);
            status = tool_plot_status(rc);
        }
    }
    int failed = failed_rows(s);
    if (!A->quiet)
        fprintf(stderr, "san sweep: %d variant%s, %d solved, %d failed, %.2f s (%.2f variants/s)\n",
                s->nvariants, s->nvariants == 1 ? "" : "s", s->nvariants - failed, failed, t,
                t > 0 ? s->nvariants / t : 0.0);
    if (failed)
        tool_say_failed_variants("sweep", s);
    return status != EXIT_OK ? status : failed ? EXIT_FAIL : EXIT_OK;
}

static int sweep_main(sweep_args *A, int nspec, char **spec)
{
    char err[1024];
    san_sweep s;
    int rc = san_sweep_init(&s, nspec, spec, &A->run, err, sizeof err);
    if (rc < 0) {
        if (rc == -2)
            return tool_template_error(&sweep_spec, err);
        if (rc == -3) {
            fprintf(stderr, "san: %s\n", err);
            return tool_exit_status(SAN_E_INPUT);
        }
        fprintf(stderr, "san sweep: %s\n", err);
        return EXIT_FAIL;
    }
    if (s.spec.path && s.spec.text)     /* a model file: the report names its bytes */
        tool_meta_model(s.spec.path, s.spec.text, s.spec.len);
    /* the -D among the sweep's words (they are its axes, not options) */
    for (int i = 0; i < nspec; i++) {
        const char *d = !strcmp(spec[i], "-D") && i + 1 < nspec ? spec[++i]
                        : !strncmp(spec[i], "-D", 2) ? spec[i] + 2 : NULL;
        const char *eq = d ? strchr(d, '=') : NULL;
        if (eq)
            tool_meta_define(d, (size_t)(eq - d), eq + 1);
    }
    char **only = NULL;
    int nonly = 0, status = A->index ? tool_sweep_check_index(&s, A->index, &only, &nonly) : 0;
    if (!status && A->plot)
        status = tool_sweep_check_plot(&s, A->plot, A->x, A->y, A->series);
    if (!status) {
        /* Ctrl-C: the variants not yet finished stop and are reported
         * as interrupted. */
        A->run.interrupt = tool_interrupt("sweep", 0);
        A->run.progress = !A->quiet && tool_stderr_is_tty();
        double t0 = san_now();
        rc = san_sweep_run(&s, &A->run, err, sizeof err);
        double t = san_now() - t0;
        if (rc < 0) {
            fprintf(stderr, "san sweep: %s\n", err);
            status = rc == -2 ? EXIT_USAGE : EXIT_FAIL;
        } else if (rc == 0) {
            /* each distinct warning once, on rank 0 only (MPI) */
            char **seen = NULL;
            tool_print_sweep_warnings(&s, &seen);
            tool_seen_free(seen);
            status = report(&s, A, only, nonly, t);
        }       /* rc 1: an MPI rank other than 0 says nothing */
    }
    for (int i = 0; i < nonly; i++)
        free(only[i]);
    free(only);
    san_sweep_clear(&s);
    return status;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    /* a command may fork: the LU runs in a child the time limit ends */
    A.run.solve.fork_lu = 1;
    A.fmt = FMT_UNSET;
    A.times = 1;
    tool_plot_init(&A.look);
    char **spec = NULL;
    int nspec = 0;
    int status = parse_args(argc, argv, &A, &spec, &nspec);
    if (status == 0)
        status = sweep_main(&A, nspec, spec);
    free(spec);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
