/*
 * cmd_transient.c - `san transient MODEL --time ...`: pi(t) and its
 * indices at given times; `san passage MODEL --until EXPR`: the time
 * until a set of states is first entered.  Both are kinds of the one
 * pipeline (san_analyze); this file checks the options (their tables:
 * time_options.c), reads the initial vector and the times, and hands the
 * analysis to its report (san_report_transient).
 */
#include <stdlib.h>
#include <string.h>
#include "tool/time_options.h"

/* One run: the options, checked, and the lists they give. */
typedef struct {
    tr_args A;
    const char *cmd, *model;
    int passage, report, petsc;
    tool_numbers times, levels;
    const san_expr *initial, *until;    /* of the hidden results, in the model */
} tr_run;

/* The checks that need no model, the lists parsed: 0 or the status. */
static int check_args(tr_run *R, int nrest, char **rest)
{
    tr_args *A = &R->A;
    const char *cmd = R->cmd;
    int rc = tool_plot_check(cmd, A->plot, &A->look);
    if (rc == 0 && nrest != 1)
        rc = tool_usage_error(cmd, "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    if (rc == 0 && !R->passage && !A->times)
        rc = tool_usage_error(cmd, "missing --time LIST");
    if (rc == 0 && R->passage && !A->until)
        rc = tool_usage_error(cmd, "missing --until 'EXPR'");
    if (rc == 0 && A->initial && A->from)
        rc = tool_usage_error(cmd, "--initial and --from: give one or the other");
    if (rc == 0 && A->engine && !R->petsc && strcmp(A->engine, "serial"))
        rc = tool_usage_error(cmd, "--engine: '%s' is not serial or petsc", A->engine);
    if (rc == 0 && A->petsc_matrix && tool_engine_matrix(A->petsc_matrix) < 0)
        rc = tool_usage_error(cmd, "--petsc-matrix: '%s' is not aij, shell or auto",
                             A->petsc_matrix);
    /* CSV after a JSON document (or a second CSV table) would leave
     * neither readable */
    if (rc == 0 && A->vector && A->fmt != FMT_TEXT && tool_names_stdout(A->vector))
        rc = tool_usage_error(cmd, "--vector %s: standard output holds the %s report; write the "
                             "vector to a file", A->vector, A->fmt == FMT_JSON ? "json" : "csv");
    char why[256] = "";
    int old_range = 0;
    if (rc == 0 && A->times && tool_numbers_times(A->times, &R->times, &old_range, why, sizeof why) < 0)
        rc = tool_usage_error(cmd, "--time: expected numbers >= 0 or ranges a..b:step, "
                             "separated by commas: %s", why);
    if (rc == 0 && old_range && !A->quiet)
        fprintf(stderr, "san %s: warning: --time %s: a range is written a..b:step, as in every "
                "flag that takes a list (a..b/step is read for now)\n", cmd, A->times);
    if (rc == 0 && A->within >= 0 && tool_numbers_insert(&R->times, A->within) < 0)
        rc = EXIT_FAIL;
    if (rc == 0 && A->percentiles && tool_numbers_percents(A->percentiles, &R->levels) < 0)
        rc = tool_usage_error(cmd, "--percentiles: expected percents in (0, 100) separated by "
                             "commas, not '%s'", A->percentiles);
    /* one standard input cannot hold both */
    if (rc == 0 && A->from && !strcmp(A->from, "-") && !strcmp(rest[0], "-"))
        rc = tool_usage_error(cmd, "--from - and MODEL -: standard input cannot hold both");
    return rc;
}

/* The model, --initial and --until in it as hidden results, and --from's
 * vector into iv; NULL with *status. */
static san_model *load(tr_run *R, tool_from *iv, int *status)
{
    tr_args *A = &R->A;
    /* the results that carry them (never printed), in this order */
    const char *names[2] = { SAN_HIDDEN_RESULT_PREFIX "initial", SAN_HIDDEN_RESULT_PREFIX "until" };
    const char *options[2] = { "--initial", "--until" };
    const char *exprs[2] = { A->initial, A->until };
    const int first = !A->initial, nx = !!A->initial + !!A->until;
    san_model *m = tool_load_model_exprs(R->model, &A->defs, names + first, options + first,
                                        exprs + first, nx, status, A->max_input, A->max_memory,
                                        &A->diag);
    if (m && A->initial)
        R->initial = tool_state_expr(R->cmd, m, "--initial", names[0], A->initial, status);
    if (m && A->until && *status == EXIT_OK)
        R->until = tool_state_expr(R->cmd, m, "--until", names[1], A->until, status);
    if (m && A->from && *status == EXIT_OK)
        *status = tool_read_from(R->cmd, A->from, m, iv);
    if (m && *status != EXIT_OK) {
        san_model_free(m);
        m = NULL;
    }
    return m;
}

static void analysis_opts(const tr_run *R, const tool_from *iv, san_analysis_opts *ao)
{
    const tr_args *A = &R->A;
    san_analysis_opts_default(ao);
    /* a command may fork: the LU runs in a child the time limit ends */
    ao->solve.fork_lu = 1;
    ao->kind = R->passage ? SAN_ANALYSIS_PASSAGE : SAN_ANALYSIS_TRANSIENT;
    ao->space.max_memory = A->max_memory;
    ao->space.max_states = A->max_states;
    ao->space.progress = !A->quiet && tool_stderr_is_tty();
    ao->space.interrupt = tool_interrupt(R->cmd, TOOL_SOLVE_GRACE);
    ao->time_limit = A->time_limit;
    ao->storage = A->storage;
    ao->lump = A->lump;
    ao->engine = R->petsc ? SAN_ENGINE_PETSC : SAN_ENGINE_SERIAL;
    ao->engine_keep_vector = R->petsc && A->vector != NULL;
    if (A->petsc_matrix)
        ao->engine_matrix = (san_engine_matrix)tool_engine_matrix(A->petsc_matrix);
    san_transient_opts *tr = &ao->tr;   /* over its defaults (ss_tol) */
    tr->times = R->times.v;
    tr->ntimes = R->times.n;
    tr->eps = A->eps;
    tr->max_steps = A->max_steps;
    tr->rewards = A->rewards;
    tr->levels = R->levels.v;
    tr->nlevels = R->levels.n;
    tr->mean_tol = A->tol;
    tr->initial = R->initial;
    tr->until = R->until;
    tr->init_index = iv->idx;
    tr->init_p = iv->p;
    tr->init_n = iv->n;
    ao->solve.tol = A->tol;
}

/* The report, the vector and the plot of a done analysis (or of a
 * transient stopped after some times: those, marked incomplete, exit 1). */
static int report(tr_run *R, san_model *m, san_analysis *a, san_status st, double t0, int rank0)
{
    const tr_args *A = &R->A;
    const int partial = st == SAN_E_INTERRUPTED && !R->passage && san_analysis_times(a, NULL) > 0;
    if (st != SAN_OK && !partial)
        return tool_exit_status(st);
    san_time_report_opts ro;
    san_time_report_opts_default(&ro);
    ro.source = R->model;
    ro.passage = R->passage;
    ro.eps = A->eps;
    ro.t_total = san_now() - t0;
    ro.initial = A->from ? "--from" : A->initial ? "--initial" : NULL;
    ro.rewards = A->rewards;
    ro.all_replicas = A->all_replicas;
    ro.complete = st == SAN_OK && !san_analysis_incomplete(a);
    ro.ntimes_asked = R->times.n;
    ro.levels = R->levels.v;
    ro.nlevels = R->levels.n;
    /* uniformization to its eps; "converged" is every time asked done */
    tool_run run = { "uniformization", A->eps, san_analysis_kron(a) ? "kron" : "sparse", ro.complete };
    ro.preamble = tool_provenance;
    ro.ctx = &run;
    if (R->report)
        san_report_transient(stdout, tool_report_format(A->fmt), m, a, &ro);
    else if (partial && rank0)      /* the report would have said so */
        fprintf(stderr, "san %s: stopped: %d of %d times done; no plot\n", R->cmd, san_analysis_times(a, NULL),
                R->times.n);
    fflush(stdout);
    int status = EXIT_OK, rc;
    if (partial)
        status = tool_exit_status(st);
    else if (R->passage && san_analysis_incomplete(a))    /* what is missing is said on stderr */
        status = EXIT_FAIL;
    else if (A->vector && san_analysis_has_engine_vector(a)) {  /* collective: see solve */
        tool_engine_vector ev = { a, R->cmd, 0 };
        status = rank0 ? tool_write_output(A->vector, tool_engine_vector_write, &ev) : EXIT_OK;
        tool_engine_vector_done(&ev);
    } else if (A->vector) {
        tool_vector v = { san_analysis_space(a), san_analysis_pi_last(a), "transient" };
        status = tool_write_output(A->vector, tool_vector_write, &v);
    }
    char err[256];
    if (A->plot && status == EXIT_OK && rank0 &&
        (rc = san_report_transient_plot(A->plot, &A->look.look, m, a, R->passage, A->ynames, err,
                                        sizeof err)) != 0) {
        fprintf(stderr, "san %s: %s\n", R->cmd, err);
        status = tool_plot_status(rc);
    }
    return status;
}

/* Analyze the loaded model and report; the exit status. */
static int analyze(tr_run *R, san_model *m, const tool_from *iv, double t0)
{
    san_analysis_opts ao;
    analysis_opts(R, iv, &ao);
    san_diag d;
    char nb[4096];
    san_diag_init(&d, tool_model_name(R->model, nb, sizeof nb), NULL, 0);
    san_analysis *a = san_analysis_new();
    san_status st = a ? san_analyze(m, &ao, a, &d) : SAN_E_NOMEM;
    /* over MPI every rank holds the same answer: rank 0 alone reports
     * (the report, the diagnostics, the plot) */
    const int rank0 = san_engine_rank(NULL) == 0;
    if (!rank0 && !freopen("/dev/null", "w", stdout))
        st = SAN_E_IO;
    if (rank0)
        san_diag_print(&d, stderr, tool_stderr_is_tty());
    /* every failure says something: one without a diagnostic of its own
     * (out of memory deep in a solve) is named here */
    if (st != SAN_OK && d.nerrors == 0 && rank0)
        fprintf(stderr, "san %s: %s\n", R->cmd, san_status_name(st));
    san_diag_clear(&d);
    int status = a ? report(R, m, a, st, t0, rank0) : tool_exit_status(st);
    san_analysis_free(a);
    return status;
}

static int run(const tool_spec *spec, int passage, int argc, char **argv)
{
    tr_run R = { .cmd = spec->name, .passage = passage };
    tr_args *A = &R.A;
    tr_args_init(A);
    char **rest;
    int nrest, rc = tool_parse(spec, argc, argv, A, &rest, &nrest);
    if (A->quiet)
        tool_meta_quiet();
    /* --plot alone: the plot is the output (tool_plot_table) */
    R.report = tool_plot_table(A->plot, &A->look, A->fmt != FMT_UNSET);
    if (A->fmt == FMT_UNSET)
        A->fmt = FMT_TEXT;
    R.petsc = A->engine && !strcmp(A->engine, "petsc");
    if (rc == 0)
        rc = check_args(&R, nrest, rest);
    tool_from iv = { 0 };
    if (rc == 0) {
        R.model = rest[0];
        tool_interrupt(R.cmd, TOOL_SOLVE_GRACE);  /* a Ctrl-C from here on stops the work */
        double t0 = san_now();
        san_model *m = load(&R, &iv, &rc);
        if (m)
            rc = analyze(&R, m, &iv, t0);
        san_model_free(m);
    }
    free(rest);
    tool_numbers_free(&R.times);
    tool_numbers_free(&R.levels);
    tool_defines_free(&A->defs);
    tool_from_free(&iv);
    return rc == TOOL_HELP_SHOWN ? EXIT_OK : rc;
}

int cmd_transient(int argc, char **argv)
{
    return run(&transient_spec, 0, argc, argv);
}

int cmd_passage(int argc, char **argv)
{
    return run(&passage_spec, 1, argc, argv);
}
