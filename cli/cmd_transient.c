/*
 * cmd_transient.c - `san transient MODEL --time ...`: pi(t) and its
 * indices at given times; `san passage MODEL --until EXPR`: the time
 * until a set of states is first entered.  Both are kinds of the one
 * pipeline (san_analyze); this file reads the options, the initial
 * vector and the times, and writes the tables.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/options.h"

/* The hidden results that carry --initial and --until into the model
 * (cli_load_model_exprs); never printed. */
#define HIDDEN_PREFIX SAN_HIDDEN_RESULT_PREFIX
#define NAME_INITIAL HIDDEN_PREFIX "initial"
#define NAME_UNTIL HIDDEN_PREFIX "until"

typedef struct {
    san_storage storage;
    san_lump lump;
    double time_limit, max_memory, max_input;
    int64_t max_states;
    cli_format fmt;
    const char *times, *initial, *from, *until, *vector, *percentiles, *plot, *ynames;
    const char *engine, *petsc_matrix;
    double eps, max_steps, within, tol;
    int rewards, quiet, all_replicas;
    cli_defines defs;
    cli_plot look;
    cli_diag diag;
} tr_args;

#define TR_COMMON_OPTIONS                                                                    \
    CLI_GROUP("initial distribution (default: uniform over the states the\n"                  \
              "reachability function accepts):"),                                           \
    CLI_STRING(0, "initial", "'EXPR'", tr_args, initial,                                     \
               "uniform over the reachable states where EXPR is\n"                            \
               "non-zero (the syntax of the model's results)"),                               \
    CLI_INPUT(0, "from", "FILE", tr_args, from,                                             \
               "a distribution as `san solve --vector` writes it\n"                           \
               "(index first, probability last)"),                                            \
    CLI_GROUP("numerics:"),                                                                  \
    CLI_DOUBLE(0, "eps", "X", tr_args, eps, 1e-300, 1e-3, 0, "a number in (0, 1e-3]",          \
               "Poisson mass cut per interval (Fox-Glynn); every\n"                            \
               "probability is within the sum of the cuts, reported", "1e-13"),                \
    CLI_DOUBLE(0, "max-steps", "N", tr_args, max_steps, 1, 1e15, 0, "a number >= 1",          \
               "refuse when uniformization needs more products\n"                             \
               "(stiff: a large rate times a long time)", "1e8"),                             \
    CLI_CHOICE(CLI_OPT_STORAGE, 0, "storage", "S", tr_args, storage,                          \
               "auto, sparse or kron (the tensor descriptor)", "auto"),                       \
    CLI_CHOICE(CLI_OPT_LUMP, 0, "lump", "L", tr_args, lump,                                   \
               "auto: interchangeable replicas as counts, exact\n"                            \
               "(transient from a --from vector unequal across\n"                             \
               "replicas: as written, a note says so; the report\n"                           \
               "says what was lumped); off: the model as written", "auto"),                    \
    CLI_STRING(0, "engine", "E", tr_args, engine,                                             \
               "serial (default), or petsc: each rank of\n"                                   \
               "mpirun -n P explores and stores its part of the\n"                            \
               "chain and of every vector (./configure --with-petsc)"),                       \
    CLI_STRING(0, "petsc-matrix", "M", tr_args, petsc_matrix,                                 \
               "--engine petsc: aij, shell or auto, as for solve"),                          \
    CLI_GROUP("limits:"),                                                                    \
    CLI_DOUBLE(0, "time-limit", "S", tr_args, time_limit, 1e-6, 1e9, 0, "seconds > 0",          \
               "stop after S seconds", NULL),                                                 \
    CLI_BYTES(0, "max-memory", "M", tr_args, max_memory,                                     \
              "refuse models needing more (e.g. 4G, 512M)", NULL),                             \
    CLI_INT(0, "max-states", "N", tr_args, max_states, 1, 9e18, "a positive integer",           \
            "refuse more reachable states than N", NULL),                                     \
    CLI_MAX_INPUT(tr_args, max_input),                                                       \
    CLI_GROUP("model:"),                                                                     \
    CLI_CALLBACK('D', NULL, "NAME=VALUE", tr_args, defs, cli_opt_define,                      \
                 "override a constant identifier"),                                           \
    CLI_INCLUDE(cli_diag_options, tr_args, diag),                                            \
    CLI_GROUP("output:"),                                                                    \
    CLI_FORMAT(tr_args, fmt, CLI_FMT_TEXT | CLI_FMT_JSON | CLI_FMT_CSV, NULL),                 \
    CLI_FLAG('q', "quiet", tr_args, quiet, 1,                                                 \
             "no progress on stderr, no provenance header (text)"),                              \
    CLI_FLAG(0, "all-replicas", tr_args, all_replicas, 1,                                      \
             "text: a marginals line for each replica that differs\n"                           \
             "from the others (default: their minimum, mean and\n"                             \
             "maximum; JSON and CSV list each)"),                                              \
    CLI_OUTPUT(0, "plot", "FILE", tr_args, plot,                                              \
               "plot over t into FILE (.svg, .png, .pdf): results\n"                          \
               "(transient; --y picks them) or P(T <= t) (passage)")

static const cli_option transient_options[] = {
    CLI_GROUP("times:"),
    CLI_STRING('t', "time", "LIST", tr_args, times,
               "times, e.g. 0.5,1,2 or 0..10:0.5 (a..b:step), or both\n"
               "separated by commas"),
    CLI_FLAG(0, "rewards", tr_args, rewards, 1,
             "also the integrals over [0, t]: accumulated results,\n"
             "expected time in each local state, expected firings"),
    TR_COMMON_OPTIONS,
    CLI_OUTPUT(0, "vector", "FILE", tr_args, vector,
               "write pi at the last time (CSV, as solve --vector;\n"
               "not - with --format json or csv)"),
    CLI_STRING(0, "y", "NAMES", tr_args, ynames,
               "--plot: the results to draw, comma separated\n"
               "(default: every result)"),
    CLI_INCLUDE(cli_plot_options, tr_args, look),
    CLI_END
};

static const cli_option passage_options[] = {
    CLI_GROUP("target:"),
    CLI_STRING('u', "until", "'EXPR'", tr_args, until,
               "the target: the reachable states where EXPR is non-zero"),
    CLI_STRING('t', "time", "LIST", tr_args, times,
               "the distribution P(T <= t) at these times (as transient)"),
    CLI_DOUBLE(0, "within", "T", tr_args, within, 0, 1e300, 0, "a number >= 0",
               "the probability of reaching the target by time T", NULL),
    CLI_STRING('p', "percentiles", "LIST", tr_args, percentiles,
               "percentiles of T, e.g. 50,90,99 (percent)"),
    CLI_DOUBLE(0, "tol", "X", tr_args, tol, 1e-300, 1, 0, "a number in (0, 1]",
               "accuracy of the mean's solve (the regenerative chain\n"
               "solved as `solve` does, under its contract, on the\n"
               "generator's rows: kron builds them when they fit;\n"
               "without: the uniformization series to X)", "1e-12"),
    TR_COMMON_OPTIONS,
    CLI_INCLUDE(cli_plot_options, tr_args, look),
    CLI_END
};

static const cli_spec transient_spec = {
    .name = "transient",
    .usage = "usage: san transient [options] --time LIST MODEL\n",
    .intro =
        "The distribution of the chain at the given times from an initial\n"
        "distribution, by uniformization with Fox-Glynn truncation (steady state\n"
        "detected), over the sparse generator or the tensor descriptor; the\n"
        "results, marginals and throughputs at each time.\n",
    .opts = transient_options,
    .outro = "Exit status: 0 done, 2 bad model, usage or a limit, 1 failed or interrupted.\n",
    .flags = CLI_ABBREV | CLI_OPERAND_FILES,
};

static const cli_spec passage_spec = {
    .name = "passage",
    .usage = "usage: san passage [options] --until 'EXPR' MODEL\n",
    .intro =
        "The first-passage time T from the initial distribution into the states\n"
        "where EXPR holds: the probability of reaching them at all, the mean of\n"
        "T, and P(T <= t) at given times (the target made absorbing).\n",
    .opts = passage_options,
    .outro = "Exit status: 0 done, 2 bad model, usage or a limit, 1 failed or interrupted.\n",
    .flags = CLI_ABBREV | CLI_OPERAND_FILES,
};

void help_transient(FILE *out)
{
    cli_help(out, &transient_spec);
}

void help_passage(FILE *out)
{
    cli_help(out, &passage_spec);
}

/* ---- times ---- */

typedef struct {
    double *v;
    int n, cap;
} dlist;

static int dlist_add(dlist *l, double x)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 16;
        double *p = realloc(l->v, cap * sizeof *p);
        if (!p)
            return -1;
        l->v = p;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return 0;
}

/* Points of a..b:step (san_parse_range, the range of every flag); the
 * old spelling a..b/step sets *old for the caller's warning.  0, or -1
 * with why. */
static int add_range(dlist *l, const char *item, int *old, char *why, size_t n)
{
    san_range r;
    if (san_parse_range(item, 0, 1e300, &r, why, n) < 0)
        return -1;
    if (r.count > 1e6) {
        snprintf(why, n, "range '%s' has %.3g times (at most 1000000)", item, r.count);
        return -1;
    }
    *old |= r.old_spelling;
    for (long k = 0; k < (long)r.count; k++)
        if (dlist_add(l, san_range_at(&r, k)) < 0) {
            snprintf(why, n, "out of memory");
            return -1;
        }
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* LIST into l, sorted, duplicates removed; 0, or -1 with why. */
static int parse_times(const char *list, dlist *l, int *old, char *why, size_t n)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *it = strtok_r(copy, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save)) {
        double t;
        if (strstr(it, ".."))
            rc = add_range(l, it, old, why, n);
        else if (san_parse_double(it, 0, 1e300, &t) == 0)
            rc = dlist_add(l, t);
        else {
            snprintf(why, n, "'%s' is %s", it, san_parse_why(it, 0, 1e300, 0));
            rc = -1;
        }
    }
    free(copy);
    if (rc == 0 && l->n == 0) {
        snprintf(why, n, "no time given");
        rc = -1;
    }
    if (rc == 0) {
        qsort(l->v, l->n, sizeof *l->v, cmp_double);
        int k = 0;
        for (int i = 0; i < l->n; i++)
            if (k == 0 || l->v[i] != l->v[k - 1])
                l->v[k++] = l->v[i];
        l->n = k;
    }
    return rc;
}

/* "50,90,99" (percent) into levels in (0, 1), ascending. */
static int parse_levels(const char *list, dlist *l)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *it = strtok_r(copy, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save)) {
        double p;
        if (san_parse_double(it, 0, 100, &p) || !(p > 0 && p < 100))
            rc = -1;
        else
            rc = dlist_add(l, p / 100);
    }
    free(copy);
    if (rc == 0 && l->n == 0)
        rc = -1;
    if (rc == 0)
        qsort(l->v, l->n, sizeof *l->v, cmp_double);
    return rc;
}

/* ---- the command ---- */

static const san_expr *result_expr(const san_model *m, const char *name)
{
    for (int i = 0; i < m->nres; i++)
        if (!strcmp(m->res[i].name, name))
            return m->res[i].expr;
    return NULL;
}

/* --initial and --until select states: an expression that names a
 * result or thr() is a value of the solution, the same in every state
 * (evaluated per state it would be NaN, and select nothing). */
static int state_expr_check(const char *cmd, const san_model *m, const char *opt,
                            const char *name, const char *text)
{
    for (int i = 0; i < m->nres; i++)
        if (!strcmp(m->res[i].name, name) && m->res[i].derived)
            return cli_usage_error(cmd, "%s '%s': names a result or thr(), values of the "
                                   "solution; a state selection reads the state only", opt, text);
    return EXIT_OK;
}

static int run(const cli_spec *spec, int passage, int argc, char **argv)
{
    tr_args A;
    memset(&A, 0, sizeof A);
    A.fmt = FMT_UNSET;
    cli_plot_init(&A.look);
    A.eps = 1e-13;
    A.max_steps = 1e8;
    A.within = -1;
    A.tol = 1e-12;
    char **rest;
    int nrest;
    const char *cmd = spec->name;
    int rc = cli_parse(spec, argc, argv, &A, &rest, &nrest);
    if (A.quiet)
        cli_meta_quiet();
    dlist times = { 0 };
    /* --plot alone: the plot is the output (cli_plot_table) */
    const int report = cli_plot_table(A.plot, &A.look, A.fmt != FMT_UNSET);
    if (A.fmt == FMT_UNSET)
        A.fmt = FMT_TEXT;
    if (rc == 0)
        rc = cli_plot_check(cmd, A.plot, &A.look);
    if (rc == 0 && nrest != 1)
        rc = cli_usage_error(cmd, "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    if (rc == 0 && !passage && !A.times)
        rc = cli_usage_error(cmd, "missing --time LIST");
    if (rc == 0 && passage && !A.until)
        rc = cli_usage_error(cmd, "missing --until 'EXPR'");
    if (rc == 0 && A.initial && A.from)
        rc = cli_usage_error(cmd, "--initial and --from: give one or the other");
    const int petsc = A.engine && !strcmp(A.engine, "petsc");
    if (rc == 0 && A.engine && !petsc && strcmp(A.engine, "serial"))
        rc = cli_usage_error(cmd, "--engine: '%s' is not serial or petsc", A.engine);
    if (rc == 0 && A.petsc_matrix && cli_engine_matrix(A.petsc_matrix) < 0)
        rc = cli_usage_error(cmd, "--petsc-matrix: '%s' is not aij, shell or auto",
                             A.petsc_matrix);
    /* CSV after a JSON document (or a second CSV table) would leave
     * neither readable */
    if (rc == 0 && A.vector && A.fmt != FMT_TEXT && cli_names_stdout(A.vector))
        rc = cli_usage_error(cmd, "--vector %s: standard output holds the %s report; write the "
                             "vector to a file", A.vector, A.fmt == FMT_JSON ? "json" : "csv");
    char why[256] = "";
    int old_range = 0;
    if (rc == 0 && A.times && parse_times(A.times, &times, &old_range, why, sizeof why) < 0)
        rc = cli_usage_error(cmd, "--time: expected numbers >= 0 or ranges a..b:step, "
                             "separated by commas: %s", why);
    if (rc == 0 && old_range && !A.quiet)
        fprintf(stderr, "san %s: warning: --time %s: a range is written a..b:step, as in every "
                "flag that takes a list (a..b/step is read for now)\n", cmd, A.times);
    if (rc == 0 && A.within >= 0 && (dlist_add(&times, A.within) < 0 ||
                                     (qsort(times.v, times.n, sizeof *times.v, cmp_double), 0)))
        rc = EXIT_FAIL;
    dlist levels = { 0 };
    if (rc == 0 && A.percentiles && parse_levels(A.percentiles, &levels) < 0)
        rc = cli_usage_error(cmd, "--percentiles: expected percents in (0, 100) separated by "
                             "commas, not '%s'", A.percentiles);
    /* one standard input cannot hold both */
    if (rc == 0 && A.from && !strcmp(A.from, "-") && !strcmp(rest[0], "-"))
        rc = cli_usage_error(cmd, "--from - and MODEL -: standard input cannot hold both");
    cli_from iv = { 0 };
    if (rc) {
        free(rest);
        free(times.v);
        free(levels.v);
        cli_defines_free(&A.defs);
        return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
    }
    volatile int *interrupted = cli_interrupt(cmd, CLI_SOLVE_GRACE);
    double t0 = san_now();
    int status = EXIT_OK;
    const char *names[2], *options[2], *exprs[2];
    int nx = 0;
    if (A.initial) {
        names[nx] = NAME_INITIAL;
        options[nx] = "--initial";
        exprs[nx++] = A.initial;
    }
    if (A.until) {
        names[nx] = NAME_UNTIL;
        options[nx] = "--until";
        exprs[nx++] = A.until;
    }
    san_model *m = cli_load_model_exprs(rest[0], &A.defs, names, options, exprs, nx, &status,
                                        A.max_input, A.max_memory, &A.diag);
    cli_defines_free(&A.defs);
    if (m && A.initial)
        status = state_expr_check(cmd, m, "--initial", NAME_INITIAL, A.initial);
    if (m && A.until && status == EXIT_OK)
        status = state_expr_check(cmd, m, "--until", NAME_UNTIL, A.until);
    if (m && A.from && status == EXIT_OK)
        status = cli_read_from(cmd, A.from, m, &iv);
    if (m && status != EXIT_OK) {
        san_model_free(m);
        m = NULL;
    }
    if (!m) {
        free(rest);
        free(times.v);
        free(levels.v);
        cli_from_free(&iv);
        return status;
    }
    const int progress = !A.quiet && cli_stderr_is_tty();
    san_analysis_opts ao;
    san_analysis_opts_default(&ao);
    /* a command may fork: the LU runs in a child the time limit ends */
    ao.solve.fork_lu = 1;
    ao.kind = passage ? SAN_ANALYSIS_PASSAGE : SAN_ANALYSIS_TRANSIENT;
    ao.space.max_memory = A.max_memory;
    ao.space.max_states = A.max_states;
    ao.space.progress = progress;
    ao.space.interrupt = interrupted;
    ao.time_limit = A.time_limit;
    ao.storage = A.storage;
    ao.lump = A.lump;
    ao.engine = petsc ? SAN_ENGINE_PETSC : SAN_ENGINE_SERIAL;
    ao.engine_keep_vector = petsc && A.vector != NULL;
    if (A.petsc_matrix)
        ao.engine_matrix = (san_engine_matrix)cli_engine_matrix(A.petsc_matrix);
    ao.tr.times = times.v;
    ao.tr.ntimes = times.n;
    ao.tr.eps = A.eps;
    ao.tr.max_steps = A.max_steps;
    ao.tr.rewards = A.rewards;
    ao.tr.levels = levels.v;
    ao.tr.nlevels = levels.n;
    ao.tr.mean_tol = A.tol;
    ao.solve.tol = A.tol;
    ao.tr.initial = A.initial ? result_expr(m, NAME_INITIAL) : NULL;
    ao.tr.until = A.until ? result_expr(m, NAME_UNTIL) : NULL;
    ao.tr.init_index = iv.idx;
    ao.tr.init_p = iv.p;
    ao.tr.init_n = iv.n;
    san_diag d;
    char nb[4096];
    san_diag_init(&d, cli_model_name(rest[0], nb, sizeof nb), NULL, 0);
    san_analysis a;
    san_status st = san_analyze(m, &ao, &a, &d);
    /* over MPI every rank holds the same answer: rank 0 alone reports
     * (the report, the diagnostics, the plot) */
    const int rank0 = san_engine_rank(NULL) == 0;
    if (!rank0 && !freopen("/dev/null", "w", stdout))
        st = SAN_E_IO;
    if (rank0)
        san_diag_print(&d, stderr, cli_stderr_is_tty());
    /* every failure says something: one without a diagnostic of its own
     * (out of memory deep in a solve) is named here */
    if (st != SAN_OK && d.nerrors == 0 && rank0)
        fprintf(stderr, "san %s: %s\n", cmd, san_status_name(st));
    san_diag_free(&d);
    /* Stopped (Ctrl-C, --time-limit) after some times of a transient: the
     * times done are reported, marked incomplete; the exit status stays 1. */
    const int partial = st == SAN_E_INTERRUPTED && !passage && a.tr.ntimes > 0;
    if (st == SAN_OK || partial) {
        san_time_report_opts ro;
        san_time_report_opts_default(&ro);
        ro.source = rest[0];
        ro.passage = passage;
        ro.eps = A.eps;
        ro.t_total = san_now() - t0;
        ro.initial = A.from ? "--from" : A.initial ? "--initial" : NULL;
        ro.rewards = A.rewards;
        ro.all_replicas = A.all_replicas;
        ro.complete = st == SAN_OK && !a.tr.incomplete;
        ro.ntimes_asked = times.n;
        ro.levels = levels.v;
        ro.nlevels = levels.n;
        /* uniformization to its eps; "converged" is every time asked done */
        cli_run run = { "uniformization", A.eps, a.kron ? "kron" : "sparse", ro.complete };
        ro.preamble = cli_provenance;
        ro.ctx = &run;
        if (report)
            san_report_transient(stdout, cli_report_format(A.fmt), m, &a, &ro);
        else if (partial && rank0)      /* the report would have said so */
            fprintf(stderr, "san %s: stopped: %d of %d times done; no plot\n", cmd, a.tr.ntimes,
                    times.n);
        fflush(stdout);
        if (partial)
            status = cli_exit_status(st);
        else if (passage && a.tr.incomplete)    /* what is missing is said on stderr */
            status = EXIT_FAIL;
        else if (A.vector && a.engine) {    /* collective: see solve */
            cli_engine_vector ev = { &a, cmd, 0 };
            status = rank0 ? cli_write_output(A.vector, cli_engine_vector_write, &ev) : EXIT_OK;
            cli_engine_vector_done(&ev);
        } else if (A.vector) {
            cli_vector v = { &a.sp, a.tr.pi_last, "transient" };
            status = cli_write_output(A.vector, cli_vector_write, &v);
        }
        char err[256];
        if (A.plot && status == EXIT_OK && rank0 &&
            (rc = san_report_transient_plot(A.plot, &A.look.look, m, &a, passage, A.ynames, err,
                                            sizeof err)) != 0) {
            fprintf(stderr, "san %s: %s\n", cmd, err);
            status = cli_plot_status(rc);
        }
    } else {
        status = cli_exit_status(st);
    }
    san_analysis_free(&a);
    san_model_free(m);
    free(rest);
    free(times.v);
    free(levels.v);
    cli_from_free(&iv);
    return status;
}

int cmd_transient(int argc, char **argv)
{
    return run(&transient_spec, 0, argc, argv);
}

int cmd_passage(int argc, char **argv)
{
    return run(&passage_spec, 1, argc, argv);
}
