/*
 * cmd_mw.c - `san mw`: seed 000's master/worker model over a range of
 * workers: the iteration time, speedup, efficiency and performance index
 * per n, the optimum, the lowest index and the master's chunk managing
 * capability; with --san, the SAN of the same program (san gen ms) beside
 * each closed form, and their ratio.  The model is the library's
 * (analytic/mw.c); here are the options and the table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"

typedef struct {
    san_mw_params par;
    const char *workers;
    cli_format fmt;
    int ms_line, san, quiet;
    san_sweep_opts run;
} mw_args;

/* Every model input goes through the library's san_mw_set: one
 * meaning of each flag for this command and for the template lines of
 * sweep and compare. */
static int mw_input(const cli_parser *p, const cli_option *o, const char *arg, void *dest)
{
    char flag[64], err[256];
    snprintf(flag, sizeof flag, "--%s", o->long_name);
    if (san_mw_set(dest, flag, arg, err, sizeof err) != SAN_OK)
        return cli_usage_error(p->cmd, "%s", err);
    return 0;
}

#define MW_INPUT(l, a, h, d) { .kind = CLI_OPT_CALLBACK, .long_name = (l), .argh = (a), \
    .offset = offsetof(mw_args, par), .cb = mw_input, .help = (h), .def = (d) }

static const cli_option mw_options[] = {
    CLI_GROUP("the program (times in one unit, the seed's ms):"),
    MW_INPUT("protocol", "P", "sync or async sends", "async"),
    MW_INPUT("mo", "T", "overhead of a message", "1"),
    MW_INPUT("lambda", "T", "transfer time per byte", "0.001"),
    MW_INPUT("volume", "BYTES", "V: bytes of an iteration, tasks and results,\n"
             "the same for every n (4096, 4k, 1M)", "4096"),
    MW_INPUT("volume-per-worker", "BYTES", "V grows with the workers: n * BYTES", NULL),
    MW_INPUT("alpha", "F", "the master's share of V (tasks; 1 - F is results)", "0.9"),
    MW_INPUT("tc", "T", "Tc: computing time of an iteration, all workers", "1600"),
    MW_INPUT("mu-m", "T", "the master's own time per iteration", "0"),
    CLI_GROUP("options:"),
    { .kind = CLI_OPT_STRING, .short_name = 'n', .long_name = "workers", .argh = "N",
      .offset = offsetof(mw_args, workers),
      .help = "numbers of workers: 8, 1..60, 15,20,30,40", .def = "1..60" },
    CLI_FORMAT(mw_args, fmt, CLI_FMT_TEXT | CLI_FMT_JSON | CLI_FMT_CSV, NULL),
    CLI_FLAG(0, "ms-line", mw_args, ms_line, 1,
             "print, per n, the `san gen ms` flags of the same\n"
             "program (one slice and one pack per worker)"),
    CLI_FLAG(0, "san", mw_args, san, 1,
             "solve that SAN for every n: its execution_time and\n"
             "efficiency beside the closed form's, and the ratio"),
    CLI_FLAG('q', "quiet", mw_args, quiet, 1, "no progress on stderr"),
    CLI_INCLUDE(cli_run_options, mw_args, run),
    CLI_END
};

static const cli_spec mw_spec = {
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
    cli_help(out, &mw_spec);
}

/* ------------------------------------------------------------------ */
/* The rows                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    san_mw_point pt;
    double gain, index;     /* from the row before; NAN on the first */
    double san_tt, san_eff; /* --san; NAN when not asked or failed */
    char *san_error;
} mw_row;

typedef struct {
    const mw_args *A;
    int n;
    double *workers;
    mw_row *row;
    san_mw_bounds b;
    int best_tt, best_pi;   /* rows of the lowest Tt and Pi */
} mw_table;

static void fill_rows(mw_table *t)
{
    const san_mw_params *p = &t->A->par;
    t->best_tt = t->best_pi = 0;
    for (int i = 0; i < t->n; i++) {
        mw_row *r = &t->row[i];
        san_mw_eval(p, t->workers[i], &r->pt);
        r->gain = r->index = NAN;
        r->san_tt = r->san_eff = NAN;
        if (i > 0 && t->workers[i] != t->workers[i - 1])
            san_mw_step(p, t->workers[i - 1], t->workers[i], &r->gain, &r->index);
        if (r->pt.tt < t->row[t->best_tt].pt.tt)
            t->best_tt = i;
        if (r->pt.pi < t->row[t->best_pi].pt.pi)
            t->best_pi = i;
    }
    san_mw_bounds_of(p, &t->b);
}

/* ---- --san: the SAN of each row, solved through the sweep API ---- */

typedef struct {
    mw_table *t;
    const san_sweep_opts *o;
} san_job;

static void san_row(void *ctx, int i)
{
    san_job *j = ctx;
    mw_row *r = &j->t->row[i];
    char line[1024], err[1024];
    san_mw_ms_line(&j->t->A->par, (int)j->t->workers[i], line, sizeof line);
    san_sweep s;
    if (san_sweep_init_line(&s, line, j->o, err, sizeof err) < 0) {
        r->san_error = strdup(err);
        return;
    }
    const char *vals[64];
    for (int a = 0; a < s.spec.naxes && a < 64; a++)
        vals[a] = s.spec.axis[a].values[0];
    san_sweep_row row;
    memset(&row, 0, sizeof row);
    san_sweep_eval(&s.spec, vals, j->o, &row);
    if (!row.ok)
        r->san_error = strdup(row.error ? row.error : "failed");
    san_sweep_row_result(&row, "execution_time", &r->san_tt);
    san_sweep_row_result(&row, "efficiency", &r->san_eff);
    san_sweep_row_free(&row);
    san_sweep_free(&s);
}

static int solve_sans(mw_table *t, san_sweep_opts *o)
{
    o->interrupt = cli_interrupt("mw", 0);
    san_job j = { t, o };
    san_sweep_parallel(t->n, NULL, o->jobs > 0 ? o->jobs : san_sweep_cores(), san_row, &j, NULL,
                       o->progress, "SANs");
    int status = EXIT_OK;
    for (int i = 0; i < t->n; i++)
        if (t->row[i].san_error) {
            fprintf(stderr, "san mw: the SAN of n = %g: %s\n", t->workers[i],
                    t->row[i].san_error);
            status = EXIT_FAIL;
        }
    return status;
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

/* What a row is remarkable for: the lowest Tt, the lowest Pi, past the
 * master's capability ("" for none). */
static const char *mark(const mw_table *t, int i)
{
    static const char *const marks[] = {
        "", "lowest Tt", "lowest Pi", "lowest Tt and Pi",
        "past MCMC", "lowest Tt, past MCMC", "lowest Pi, past MCMC",
        "lowest Tt and Pi, past MCMC"
    };
    int m = (i == t->best_tt) | (i == t->best_pi) << 1 | (t->row[i].pt.over_mcmc != 0) << 2;
    return marks[m];
}

/* A number in a column w wide, with as many digits as fit (at most 10,
 * the digits the seed prints and a few more); "-" when there is none. */
static void text_num(FILE *out, int w, double v)
{
    if (isfinite(v))
        fprintf(out, "  %*.*g", w, w - 4 > 10 ? 10 : w - 4, v);
    else
        fprintf(out, "  %*s", w, "-");
}

static void write_params(const san_mw_params *p, FILE *out)
{
    fprintf(out, "master/worker, %s sends: mo %g, lambda %g, V %g%s, alpha %g, Tc %g, mu_m %g\n",
            p->protocol == SAN_MW_SYNC ? "synchronous" : "asynchronous", p->mo, p->lambda,
            p->volume, p->per_worker ? " per worker" : "", p->alpha, p->tc, p->mu_m);
}

static void write_summary(const mw_table *t, FILE *out)
{
    const san_mw_bounds *b = &t->b;
    const mw_row *bt = &t->row[t->best_tt], *bp = &t->row[t->best_pi];
    if (b->n_opt_eq > 0)
        fprintf(out, "optimum (eq. %d): n = %.6g", b->n_opt_eq, b->n_opt);
    else
        fprintf(out, "optimum: n = %.6g, where eq. 8 gives way to eq. 7", b->n_opt);
    fprintf(out, "; lowest Tt over the rows: n = %g, Tt = %.10g\n", bt->pt.n, bt->pt.tt);
    fprintf(out, "performance index: real minimum at n = %.6g; lowest over the rows: n = %g, "
            "Pi = %.10g\n", b->pi_opt, bp->pt.n, bp->pt.pi);
    fprintf(out, "master's chunk managing capability (eq. %d): n <= %.6g\n", b->mcmc_eq, b->mcmc);
}

static void write_text(const mw_table *t, FILE *out)
{
    cli_meta_text(out);
    write_params(&t->A->par, out);
    fprintf(out, "%6s  %4s  %14s  %10s  %10s  %14s  %10s  %10s", "n", "eq", "Tt", "speedup",
            "efficiency", "Pi", "gain", "index");
    if (t->A->san)
        fprintf(out, "  %14s  %10s  %10s  %10s", "SAN Tt", "Tt ratio", "SAN E", "E ratio");
    fputs("  \n", out);
    for (int i = 0; i < t->n; i++) {
        const mw_row *r = &t->row[i];
        fprintf(out, "%6g  %4d", r->pt.n, r->pt.eq);
        text_num(out, 14, r->pt.tt);
        text_num(out, 10, r->pt.speedup);
        text_num(out, 10, r->pt.efficiency);
        text_num(out, 14, r->pt.pi);
        text_num(out, 10, r->gain);
        text_num(out, 10, r->index);
        if (t->A->san) {
            text_num(out, 14, r->san_tt);
            text_num(out, 10, r->san_tt / r->pt.tt);
            text_num(out, 10, r->san_eff);
            text_num(out, 10, r->san_eff / r->pt.efficiency);
        }
        fprintf(out, "  %s\n", mark(t, i));
    }
    write_summary(t, out);
}

static void csv_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.17g", v);
    else
        fputc(',', out);
}

static void write_csv(const mw_table *t, FILE *out)
{
    cli_meta_csv(out, NULL);
    fputs("n,expression,tt,speedup,efficiency,performance_index,gain,index,over_mcmc,mark", out);
    if (t->A->san)
        fputs(",san_execution_time,tt_ratio,san_efficiency,efficiency_ratio", out);
    fputc('\n', out);
    for (int i = 0; i < t->n; i++) {
        const mw_row *r = &t->row[i];
        fprintf(out, "%.17g,%d", r->pt.n, r->pt.eq);
        csv_num(out, r->pt.tt);
        csv_num(out, r->pt.speedup);
        csv_num(out, r->pt.efficiency);
        csv_num(out, r->pt.pi);
        csv_num(out, r->gain);
        csv_num(out, r->index);
        fprintf(out, ",%d,%s", r->pt.over_mcmc, mark(t, i));
        if (t->A->san) {
            csv_num(out, r->san_tt);
            csv_num(out, r->san_tt / r->pt.tt);
            csv_num(out, r->san_eff);
            csv_num(out, r->san_eff / r->pt.efficiency);
        }
        fputc('\n', out);
    }
}

static void json_num(FILE *out, const char *key, double v)
{
    fprintf(out, "\"%s\": ", key);
    cli_json_figure(out, v);
}

static void json_row(const mw_table *t, int i, FILE *out)
{
    const mw_row *r = &t->row[i];
    fprintf(out, "    { \"n\": %.17g, \"expression\": %d, ", r->pt.n, r->pt.eq);
    json_num(out, "tt", r->pt.tt);
    fputs(", ", out);
    json_num(out, "speedup", r->pt.speedup);
    fputs(", ", out);
    json_num(out, "efficiency", r->pt.efficiency);
    fputs(", ", out);
    json_num(out, "performance_index", r->pt.pi);
    fputs(", ", out);
    json_num(out, "gain", r->gain);
    fputs(", ", out);
    json_num(out, "index", r->index);
    fprintf(out, ", \"over_mcmc\": %s", r->pt.over_mcmc ? "true" : "false");
    if (t->A->san) {
        fputs(", ", out);
        json_num(out, "san_execution_time", r->san_tt);
        fputs(", ", out);
        json_num(out, "san_efficiency", r->san_eff);
    }
    fputs(" }", out);
}

static void write_json(const mw_table *t, FILE *out)
{
    const san_mw_params *p = &t->A->par;
    fputs("{\n  ", out);
    cli_meta_json(out, NULL);
    fprintf(out, "\"model\": \"mw\",\n  \"protocol\": \"%s\",\n  \"params\": { ",
            p->protocol == SAN_MW_SYNC ? "sync" : "async");
    json_num(out, "mo", p->mo);
    fputs(", ", out);
    json_num(out, "lambda", p->lambda);
    fputs(", ", out);
    json_num(out, "volume", p->volume);
    fprintf(out, ", \"volume_per_worker\": %s, ", p->per_worker ? "true" : "false");
    json_num(out, "alpha", p->alpha);
    fputs(", ", out);
    json_num(out, "tc", p->tc);
    fputs(", ", out);
    json_num(out, "mu_m", p->mu_m);
    fprintf(out, " },\n  \"optimum\": { \"eq\": %d, ", t->b.n_opt_eq);
    json_num(out, "n", t->b.n_opt);
    fprintf(out, " },\n  \"mcmc\": { \"eq\": %d, ", t->b.mcmc_eq);
    json_num(out, "n", t->b.mcmc);
    fputs(" },\n  ", out);
    json_num(out, "pi_minimum", t->b.pi_opt);
    fprintf(out, ",\n  \"lowest_tt\": %.17g,\n  \"lowest_pi\": %.17g,\n  \"rows\": [\n",
            t->row[t->best_tt].pt.n, t->row[t->best_pi].pt.n);
    for (int i = 0; i < t->n; i++) {
        json_row(t, i, out);
        fputs(i + 1 < t->n ? ",\n" : "\n", out);
    }
    fputs("  ]\n}\n", out);
}

static void write_ms_lines(const mw_table *t, FILE *out)
{
    for (int i = 0; i < t->n; i++) {
        char line[1024];
        san_mw_ms_line(&t->A->par, (int)t->workers[i], line, sizeof line);
        fprintf(out, "%s\n", line);
    }
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
        return cli_usage_error("mw", "%s", err);
    t->workers = calloc(n, sizeof *t->workers);
    t->row = calloc(n, sizeof *t->row);
    int status = t->workers && t->row ? EXIT_OK : EXIT_FAIL;
    for (int i = 0; status == EXIT_OK && i < n; i++) {
        double x;
        if (san_parse_integer(v[i], 1, 1e6, &x) < 0)
            status = cli_usage_error("mw", "--workers: expected whole numbers >= 1, not '%s'",
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
        return cli_usage_error("mw", "%s", err);
    mw_table t;
    memset(&t, 0, sizeof t);
    t.A = A;
    int status = parse_workers(A, &t);
    if (status == EXIT_OK && A->ms_line) {
        write_ms_lines(&t, stdout);
    } else if (status == EXIT_OK) {
        fill_rows(&t);
        A->run.progress = !A->quiet && cli_stderr_is_tty();
        if (A->san)
            status = solve_sans(&t, &A->run);
        if (A->fmt == FMT_JSON)
            write_json(&t, stdout);
        else if (A->fmt == FMT_CSV)
            write_csv(&t, stdout);
        else
            write_text(&t, stdout);
    }
    for (int i = 0; i < t.n && t.row; i++)
        free(t.row[i].san_error);
    free(t.row);
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
    int status = cli_parse(&mw_spec, argc, argv, &A, &rest, &nrest);
    if (status == 0 && nrest > 0)
        status = cli_usage_error("mw", "unexpected argument '%s'", rest[0]);
    if (status == 0)
        status = mw_main(&A);
    free(rest);
    return status == CLI_HELP_SHOWN ? EXIT_OK : status;
}
