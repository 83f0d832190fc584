/*
 * cmd_mw.c - `san mw`: seed 000's master/worker model over a range of
 * workers: the iteration time, speedup, efficiency and performance index
 * per n, the optimum, the lowest index and the master's chunk managing
 * capability; with --san, the SAN of the same program (san gen ms) beside
 * each closed form, and their ratio.  The model (analytic/mw.c) and
 * the report (report/mw_out.c) are the library's; here are the options
 * and the SANs' solves.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

typedef struct {
    san_mw_params par;
    const char *workers;
    tool_format fmt;
    int ms_line, san, quiet;
    san_sweep_opts run;
} mw_args;

/* Every model input goes through the library's san_mw_set: one
 * meaning of each flag for this command and for the template lines of
 * sweep and compare. */
static int mw_input(const tool_parser *p, const tool_option *o, const char *arg, void *dest)
{
    char flag[64], err[256];
    snprintf(flag, sizeof flag, "--%s", o->long_name);
    if (san_mw_set(dest, flag, arg, err, sizeof err) != SAN_OK)
        return tool_usage_error(p->cmd, "%s", err);
    return 0;
}

#define MW_INPUT(l, a, h, d) { .kind = TOOL_OPT_CALLBACK, .long_name = (l), .argh = (a), \
    .offset = offsetof(mw_args, par), .cb = mw_input, .help = (h), .def = (d) }

static const tool_option mw_options[] = {
    TOOL_GROUP("the program (times in one unit, the seed's ms):"),
    MW_INPUT("protocol", "P", "sync or async sends", "async"),
    MW_INPUT("mo", "T", "overhead of a message", "1"),
    MW_INPUT("lambda", "T", "transfer time per byte", "0.001"),
    MW_INPUT("volume", "BYTES", "V: bytes of an iteration, tasks and results,\n"
             "the same for every n (4096, 4k, 1M)", "4096"),
    MW_INPUT("volume-per-worker", "BYTES", "V grows with the workers: n * BYTES", NULL),
    MW_INPUT("alpha", "F", "the master's share of V (tasks; 1 - F is results)", "0.9"),
    MW_INPUT("tc", "T", "Tc: computing time of an iteration, all workers", "1600"),
    MW_INPUT("mu-m", "T", "the master's own time per iteration", "0"),
    TOOL_GROUP("options:"),
    { .kind = TOOL_OPT_STRING, .short_name = 'n', .long_name = "workers", .argh = "N",
      .offset = offsetof(mw_args, workers),
      .help = "numbers of workers: 8, 1..60, 15,20,30,40", .def = "1..60" },
    TOOL_FORMAT(mw_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV, NULL),
    TOOL_FLAG(0, "ms-line", mw_args, ms_line, 1,
             "print, per n, the `san gen ms` flags of the same\n"
             "program (one slice and one pack per worker)"),
    TOOL_FLAG(0, "san", mw_args, san, 1,
             "solve that SAN for every n: its execution_time and\n"
             "efficiency beside the closed form's, and the ratio"),
    TOOL_FLAG('q', "quiet", mw_args, quiet, 1, "no progress on stderr"),
    TOOL_INCLUDE(tool_run_options, mw_args, run),
    TOOL_END
};

static const tool_spec mw_spec = {
    .name = "mw",
    .usage = "usage: san mw [--workers N|A..B|A,B,...] [program flags] [options]\n",
    .intro =
        "The master/worker model of seed 000 (ch. III): the time Tt(n) of one\n"
        "iteration with n workers (eq. 7: async sends paced by the overhead,\n"
        "8: by the transfers, 9: sync), the speedup Tc/Tt, the efficiency\n"
        "E = Tc/(n Tt), the performance index Pi = n Tt^2/Tc (eq. 17), and from\n"
        "one row to the next the gain and the resource index of section 3.3.\n"
        "Marked: the lowest Tt and the lowest Pi over the range, and the n past\n"
        "the master's chunk managing capability (eqs. 10-12), where the model\n"
        "is optimistic.  The defaults are the seed's Fig. 23 (V = 4 KB,\n"
        "Tc = 1.6 s, mo = 1 ms, 1 us per byte).  doc/analytic.md derives the\n"
        "formulas.\n",
    .opts = mw_options,
    .outro =
        "examples:\n"
        "  san mw --workers 10..60\n"
        "  san mw --workers 15,20,30,40 -f csv\n"
        "  san mw --protocol sync --volume 20k --tc 2000 --workers 1..60\n"
        "  san mw --workers 2..6 --san\n"
        "  san compare 'mw --workers 4' \"$(san mw --workers 4 --ms-line)\"\n"
        "\n"
        "Exit status: 0 success, 1 a SAN failed (--san), 2 bad usage.\n",
};

void help_mw(FILE *out)
{
    tool_help(out, &mw_spec);
}

/* ---- --san: the SAN of each row, solved through the sweep API ---- */

typedef struct {
    const mw_args *A;
    int n;
    double *workers;
    double *san_tt, *san_eff;   /* --san; NAN when failed */
    char **san_error;
} mw_table;

static void san_row(void *ctx, int i)
{
    const mw_table *t = ctx;
    const san_sweep_opts *o = &t->A->run;
    char line[1024], err[1024];
    san_mw_ms_line(&t->A->par, (int)t->workers[i], line, sizeof line);
    san_sweep s;
    if (san_sweep_init_line(&s, line, o, err, sizeof err) < 0) {
        t->san_error[i] = strdup(err);
        return;
    }
    const char *vals[64];
    for (int a = 0; a < s.spec.naxes && a < 64; a++)
        vals[a] = s.spec.axis[a].values[0];
    san_sweep_row row;
    memset(&row, 0, sizeof row);
    san_sweep_eval(&s.spec, vals, o, &row);
    if (!row.ok)
        t->san_error[i] = strdup(row.error ? row.error : "failed");
    san_sweep_row_result(&row, "execution_time", &t->san_tt[i]);
    san_sweep_row_result(&row, "efficiency", &t->san_eff[i]);
    san_sweep_row_free(&row);
    san_sweep_clear(&s);
}

static int solve_sans(mw_table *t, san_sweep_opts *o)
{
    t->san_tt = malloc(t->n * sizeof *t->san_tt);
    t->san_eff = malloc(t->n * sizeof *t->san_eff);
    t->san_error = calloc(t->n, sizeof *t->san_error);
    if (!t->san_tt || !t->san_eff || !t->san_error)
        return EXIT_FAIL;
    for (int i = 0; i < t->n; i++)
        t->san_tt[i] = t->san_eff[i] = NAN;
    o->interrupt = tool_interrupt("mw", 0);
    san_sweep_parallel(t->n, NULL, o->jobs > 0 ? o->jobs : san_sweep_cores(), san_row, t, NULL,
                       o->progress, "SANs");
    int status = EXIT_OK;
    for (int i = 0; i < t->n; i++)
        if (t->san_error[i]) {
            fprintf(stderr, "san mw: the SAN of n = %g: %s\n", t->workers[i], t->san_error[i]);
            status = EXIT_FAIL;
        }
    return status;
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

/* The --workers values: through the sweep's value lists (a..b, a,b). */
static int parse_workers(const mw_args *A, mw_table *t)
{
    char err[256];
    char **v;
    int n = san_sweep_values("--workers", A->workers ? A->workers : "1..60", 0, &v, err,
                             sizeof err);
    if (n < 0)
        return tool_usage_error("mw", "%s", err);
    t->workers = calloc(n, sizeof *t->workers);
    int status = t->workers ? EXIT_OK : EXIT_FAIL;
    for (int i = 0; status == EXIT_OK && i < n; i++) {
        double x;
        if (san_parse_integer(v[i], 1, 1e6, &x) < 0)
            status = tool_usage_error("mw", "--workers: expected whole numbers >= 1, not '%s'",
                                     v[i]);
        t->workers[i] = x;
    }
    t->n = n;
    san_sweep_values_free(v, n);
    return status;
}

static int mw_main(mw_args *A)
{
    char err[256];
    if (san_mw_check(&A->par, err, sizeof err) != SAN_OK)
        return tool_usage_error("mw", "%s", err);
    mw_table t;
    memset(&t, 0, sizeof t);
    t.A = A;
    int status = parse_workers(A, &t);
    if (status == EXIT_OK && A->ms_line) {
        for (int i = 0; i < t.n; i++) {
            char line[1024];
            san_mw_ms_line(&A->par, (int)t.workers[i], line, sizeof line);
            printf("%s\n", line);
        }
    } else if (status == EXIT_OK) {
        A->run.progress = !A->quiet && tool_stderr_is_tty();
        if (A->san)
            status = solve_sans(&t, &A->run);
        san_mw_report_opts ro;
        san_mw_report_opts_default(&ro);
        ro.san_tt = t.san_tt;
        ro.san_eff = t.san_eff;
        ro.preamble = tool_provenance;
        san_status st = san_report_mw(stdout, tool_report_format(A->fmt), &A->par, t.n,
                                      t.workers, &ro);
        if (st != SAN_OK) {
            fprintf(stderr, "san mw: %s\n", san_status_name(st));
            status = tool_exit_status(st);
        }
    }
    for (int i = 0; i < t.n && t.san_error; i++)
        free(t.san_error[i]);
    free(t.san_error);
    free(t.san_tt);
    free(t.san_eff);
    free(t.workers);
    return status;
}

int cmd_mw(int argc, char **argv)
{
    mw_args A;
    memset(&A, 0, sizeof A);
    san_mw_default(&A.par);
    san_sweep_opts_default(&A.run);
    /* a command may fork: the LU runs in a child the time limit ends */
    A.run.solve.fork_lu = 1;
    A.fmt = FMT_TEXT;
    char **rest;
    int nrest;
    int status = tool_parse(&mw_spec, argc, argv, &A, &rest, &nrest);
    if (status == 0 && nrest > 0)
        status = tool_usage_error("mw", "unexpected argument '%s'", rest[0]);
    if (status == 0)
        status = mw_main(&A);
    free(rest);
    return status == TOOL_HELP_SHOWN ? EXIT_OK : status;
}
