/*
 * cmd_size_buffer.c - `san size-buffer`: for each configuration, the
 * smallest buffer whose index is within a tolerance of its large-buffer
 * limit.  The search is the library's (sweep/size_buffer.c,
 * san_size_buffer_run); here are its options and its report.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    san_sweep_opts run;
    san_size_buffer_opts search;
    tool_format fmt;
    const char *plot;
    tool_plot look;
    int quiet;
    tool_diag diag;
} size_args;

static const tool_option size_options[] = {
    TOOL_GROUP("options:"),
    TOOL_STRING(0, "index", "NAME", size_args, search.index,
               "the index (default: the throughput, ms pack_throughput,\n"
               "pipeline throughput; or e.g. slave_transmitting)"),
    TOOL_DOUBLE(0, "within", "X", size_args, search.within, 1e-12, 10, 0, NULL,
               "relative tolerance (0.01: within 1% of the limit)", "0.01"),
    TOOL_INT(0, "max-buffer", "K", size_args, search.max_buffer, 2, 1e6, NULL,
            "give up past this size", "1024"),
    TOOL_FORMAT(size_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON, NULL),
    TOOL_OUTPUT(0, "plot", "FILE", size_args, plot,
               "the curves, index against K, as .svg, .png or .pdf"),
    TOOL_FLAG('q', "quiet", size_args, quiet, 1,
             "no progress on stderr, no provenance header (text)"),
    TOOL_INCLUDE(tool_plot_options, size_args, look),
    TOOL_INCLUDE(tool_run_options, size_args, run),
    TOOL_INCLUDE(tool_diag_options, size_args, diag),
    TOOL_END
};

static const tool_spec size_spec = {
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
    .flags = TOOL_PASS_UNKNOWN,
};

void help_size_buffer(FILE *out)
{
    tool_help(out, &size_spec);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

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
        ps[n].label = san_sweep_label(&b->sweep, v, -1);
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
    return tool_plot_status(rc);
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
        return tool_template_error(&size_spec, err);
    if (st != SAN_OK) {
        fprintf(stderr, "san size-buffer: %s\n", err);
        return EXIT_FAIL;
    }
    char **seen = NULL;
    tool_print_sweep_warnings(&b.sweep, &seen);
    tool_seen_free(seen);
    A->run.interrupt = tool_interrupt("size-buffer", 0);
    A->run.progress = !A->quiet && tool_stderr_is_tty();
    int status = EXIT_OK;
    san_status rst = san_size_buffer_run(&b, &A->run, err, sizeof err);
    if (rst != SAN_OK) {
        fprintf(stderr, "san size-buffer: %s\n", err);
        status = tool_exit_status(rst);
    } else {
        /* --plot alone: the plot is the output (tool_plot_table) */
        int said = 0;
        for (int v = 0; v < b.sweep.nvariants; v++)
            if (san_buffer_config_error(&b.config[v])) {
                char *label = san_sweep_label(&b.sweep, v, -1);
                status = tool_say_failed("size-buffer", "configuration", label,
                                        san_buffer_config_error(&b.config[v]), &said);
                free(label);
            }
        tool_say_failed_end("size-buffer", "configuration", said);
        tool_run run = tool_run_asked(&A->run, status == EXIT_OK);
        if (tool_plot_table(A->plot, &A->look, A->fmt != FMT_UNSET))
            san_size_buffer_write(&b, A->fmt == FMT_JSON ? SAN_SWEEP_JSON : SAN_SWEEP_TEXT,
                                  tool_sweep_provenance, &run, stdout);
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
    /* a command may fork: the LU runs in a child the time limit ends */
    A.run.solve.fork_lu = 1;
    san_size_buffer_opts_default(&A.search);
    A.fmt = FMT_UNSET;
    tool_plot_init(&A.look);
    char **spec;
    int nspec;
    int status = tool_parse(&size_spec, argc, argv, &A, &spec, &nspec);
    if (A.quiet)
        tool_meta_quiet();
    if (status == 0)
        status = tool_plot_check("size-buffer", A.plot, &A.look);
    if (status == 0)
        status = size_main(&A, nspec, spec);
    free(spec);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
