/*
 * cmd_grain.c - `san grain`: the granularity indices of a master/slave
 * program per grain (slices per node) and per configuration, and the
 * grain to use.  The solves and the recommendation are the library's
 * (sweep/grain.c, san_grain_run); here are the options and the report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    san_sweep_opts run;
    tool_format fmt;
    const char *plot, *y, *by;
    tool_plot look;
    double busy;
    int quiet;
    tool_diag diag;
} grain_args;

static const tool_option grain_options[] = {
    TOOL_GROUP("options:"),
    TOOL_STRING(0, "by", "RULE", grain_args, by,
               "rank the grains by execution_time, efficiency,\n"
               "throughput (runs per second: --work slices), paper\n"
               "(the master least in Tx among busy grains), an index,\n"
               "or min:INDEX / max:INDEX (default: execution_time\n"
               "when computed, else paper)"),
    TOOL_DOUBLE(0, "busy", "X", grain_args, busy, 0, 1, TOOL_OPEN_HI, NULL,
               "paper rule: slaves stay busy, efficiency within X\n"
               "(relative) of the best grain's", "0.01"),
    TOOL_FORMAT(grain_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON, NULL),
    TOOL_OUTPUT(0, "plot", "FILE", grain_args, plot,
               "master_rx (or --y INDEX) against the slaves, one\n"
               "curve per grain, as .svg, .png or .pdf"),
    { .kind = TOOL_OPT_STRING, .long_name = "y", .argh = "INDEX",
      .offset = offsetof(grain_args, y), .help = "the index to plot", .def = "master_rx" },
    TOOL_FLAG('q', "quiet", grain_args, quiet, 1,
             "no progress on stderr, no provenance header (text)"),
    TOOL_INCLUDE(tool_plot_options, grain_args, look),
    TOOL_INCLUDE(tool_run_options, grain_args, run),
    TOOL_INCLUDE(tool_diag_options, grain_args, diag),
    TOOL_END
};

static const tool_spec grain_spec = {
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
    .flags = TOOL_PASS_UNKNOWN,
};

void help_grain(FILE *out)
{
    tool_help(out, &grain_spec);
}

/* The report (sweep/grain_out.c), under the provenance of the solves. */
static void report(const san_grain *G, const grain_args *A, FILE *out)
{
    const san_sweep *s = &G->sweep;
    int failed = 0;
    for (int v = 0; v < s->nvariants; v++)
        failed += !s->rows[v].ok;
    tool_run run = tool_run_asked(&A->run, failed == 0);
    san_grain_write(G, A->fmt == FMT_JSON ? SAN_SWEEP_JSON : SAN_SWEEP_TEXT, tool_sweep_provenance,
                    &run, out);
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
    return tool_plot_status(rc);
}

static int grain_main(grain_args *A, int nspec, char **spec)
{
    char err[1024];
    san_grain G;
    A->run.no_peps_warnings = A->diag.no_peps_warnings;
    A->run.peers = A->diag.peers;
    san_status st = san_grain_init_opts(&G, nspec, spec, &A->run, err, sizeof err);
    if (st == SAN_E_USAGE)
        return tool_template_error(&grain_spec, err);
    if (st != SAN_OK) {
        fprintf(stderr, "san grain: %s\n", err);
        return EXIT_FAIL;
    }
    const san_sweep *s = &G.sweep;
    int status = EXIT_OK;
    if (A->y && san_sweep_find_result(s, A->y) < 0)
        status = tool_usage_error("grain", "--y: unknown index '%s'", A->y);
    if (status == EXIT_OK && A->by && san_grain_by(&G, A->by, err, sizeof err) != SAN_OK)
        status = tool_usage_error("grain", "%s", err);
    if (status == EXIT_OK) {
        A->run.interrupt = tool_interrupt("grain", 0);
        A->run.progress = !A->quiet && tool_stderr_is_tty();
        san_status rst = san_grain_run(&G, &A->run, A->busy, err, sizeof err);
        if (rst != SAN_OK) {
            fprintf(stderr, "san grain: %s\n", err);
            status = tool_exit_status(rst);
        } else if (!G.remote) {         /* another MPI rank says nothing */
            char **seen = NULL;
            tool_print_sweep_warnings(s, &seen);
            tool_seen_free(seen);
            /* --plot alone: the plot is the output (tool_plot_table) */
            if (tool_plot_table(A->plot, &A->look, A->fmt != FMT_UNSET))
                report(&G, A, stdout);
            fflush(stdout);
            if (tool_say_failed_variants("grain", s) != EXIT_OK)
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
    /* a command may fork: the LU runs in a child the time limit ends */
    A.run.solve.fork_lu = 1;
    A.fmt = FMT_UNSET;
    A.busy = 0.01;
    tool_plot_init(&A.look);
    char **spec;
    int nspec;
    int status = tool_parse(&grain_spec, argc, argv, &A, &spec, &nspec);
    if (A.quiet)
        tool_meta_quiet();
    if (status == 0)
        status = tool_plot_check("grain", A.plot, &A.look);
    if (status == 0)
        status = grain_main(&A, nspec, spec);
    free(spec);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
