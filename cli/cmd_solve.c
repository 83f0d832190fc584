/*
 * cmd_solve.c - `san solve MODEL`: the steady state and its indices.
 */
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "tool/options.h"

/* ---- the options ---- */

typedef struct {
    san_sweep_opts run;     /* the solver, the limits, the storage */
    tool_format fmt;
    const char *vector, *gen;
    const char *engine, *petsc_options, *petsc_matrix;
    int top, quiet;
    int no_marginals, no_throughputs, all_replicas;
    tool_defines defs;
    tool_diag diag;
} solve_args;

static const tool_option solve_options[] = {
    TOOL_GROUP("solver:"),
    TOOL_INCLUDE(tool_solver_options, solve_args, run),
    TOOL_STRING(0, "engine", "E", solve_args, engine,
               "serial (default), or petsc: each rank of\n"
               "mpirun -n P explores, stores and solves its part\n"
               "of the chain (./configure --with-petsc)"),
    TOOL_STRING(0, "petsc-matrix", "M", solve_args, petsc_matrix,
               "--engine petsc: aij (assembled), shell (each\n"
               "product lists the transitions again: a third of\n"
               "the memory, ~100 times slower) or auto (aij when\n"
               "it fits --max-memory on every rank; default)"),
    TOOL_STRING(0, "petsc-options", "'OPTS'", solve_args, petsc_options,
               "PETSc options, e.g. '-ksp_type gmres -pc_type asm';\n"
               "PETSC_OPTIONS too"),
    TOOL_GROUP("limits:"),
    TOOL_INCLUDE(tool_limit_options, solve_args, run),
    TOOL_MAX_INPUT(solve_args, run.max_input),
    TOOL_GROUP("model:"),
    TOOL_CALLBACK('D', NULL, "NAME=VALUE", solve_args, defs, tool_opt_define,
                 "override a constant identifier"),
    TOOL_STRING(0, "gen", "'ARGS'", solve_args, gen,
               "solve a generated model (see san gen --help)"),
    TOOL_INCLUDE(tool_diag_options, solve_args, diag),
    TOOL_GROUP("output:"),
    TOOL_FORMAT(solve_args, fmt, TOOL_FMT_TEXT | TOOL_FMT_JSON | TOOL_FMT_CSV, NULL),
    TOOL_INT(0, "top", "N", solve_args, top, 0, 1000000, "an integer >= 0",
            "most probable states to list", "10"),
    TOOL_OUTPUT(0, "vector", "FILE", solve_args, vector,
               "write the whole distribution (CSV) to FILE (atomically:\n"
               "see OUTPUT FILES in san(1)); with - and --format json\n"
               "or csv, the report holds it (\"vector\" member, vector\n"
               "rows)"),
    TOOL_FLAG(0, "no-marginals", solve_args, no_marginals, 1,
             "leave the marginals out of the report (every format)"),
    TOOL_FLAG(0, "no-throughputs", solve_args, no_throughputs, 1,
             "leave the throughputs out of the report (every format)"),
    TOOL_FLAG(0, "all-replicas", solve_args, all_replicas, 1,
             "text: a line for each replica whose marginals or\n"
             "throughputs differ from the others' (default: their\n"
             "minimum, mean and maximum; JSON and CSV list each)"),
    TOOL_FLAG('q', "quiet", solve_args, quiet, 1,
             "no progress on stderr, no provenance header (text)"),
    TOOL_END
};

static const tool_spec solve_spec = {
    .name = "solve",
    .usage =
        "usage: san solve [options] MODEL\n"
        "       san solve [options] --gen 'TEMPLATE FLAGS...'\n",
    .intro =
        "Explore the reachable states of a model, build its generator, solve\n"
        "pi Q = 0 and report the results block, the marginal probability of\n"
        "every local state, the throughput of every event and the most\n"
        "probable global states.  A chain with several closed classes is\n"
        "answered from the initial distribution (uniform over the states the\n"
        "reachability function accepts): each class's steady state weighed by\n"
        "the probability of reaching it.\n",
    .opts = solve_options,
    .outro = "Exit status: 0 solved, 2 bad model or usage, 1 not converged or failed.\n",
    .flags = TOOL_ABBREV | TOOL_OPERAND_FILES,
};

void help_solve(FILE *out)
{
    tool_help(out, &solve_spec);
}

/* ---- the command ---- */


static san_model *load(solve_args *A, const char *path, int *status)
{
    if (!A->gen)
        return tool_load_model(path, &A->defs, status, 0, A->run.max_input,
                              A->run.space.max_memory, &A->diag);
    return tool_load_gen("solve", A->gen, &A->defs, status, &A->diag);
}

int cmd_solve(int argc, char **argv)
{
    solve_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    /* a command may fork: the LU runs in a child the time limit ends */
    A.run.solve.fork_lu = 1;
    A.fmt = FMT_TEXT;
    A.top = 10;
    char **rest;
    int nrest;
    int rc = tool_parse(&solve_spec, argc, argv, &A, &rest, &nrest);
    if (A.quiet)
        tool_meta_quiet();
    if (rc == 0 && A.gen && nrest != 0)
        rc = tool_usage_error("solve", "--gen replaces MODEL; give one or the other");
    else if (rc == 0 && A.engine && strcmp(A.engine, "serial") && strcmp(A.engine, "petsc"))
        rc = tool_usage_error("solve", "--engine: '%s' is not serial or petsc", A.engine);
    else if (rc == 0 && A.petsc_matrix && tool_engine_matrix(A.petsc_matrix) < 0)
        rc = tool_usage_error("solve", "--petsc-matrix: '%s' is not aij, shell or auto",
                             A.petsc_matrix);
    else if (rc == 0 && A.engine && !strcmp(A.engine, "petsc") && A.vector &&
             A.fmt != FMT_TEXT && tool_names_stdout(A.vector))
        rc = tool_usage_error("solve", "--vector -: with --engine petsc the vector is not "
                             "held in the %s report (no rank holds it); write it to a file",
                             A.fmt == FMT_JSON ? "json" : "csv");
    else if (rc == 0 && !A.gen && nrest != 1)
        rc = tool_usage_error("solve", "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    if (rc) {
        free(rest);
        tool_defines_free(&A.defs);
        return rc == TOOL_HELP_SHOWN ? EXIT_OK : rc;
    }
    /* Ctrl-C: the solver stops with its best vector (it looks at the
     * flag every few iterations); a sparse LU, which cannot look, gets
     * a second.  Installed before the model is read, so that a Ctrl-C
     * while reading is seen by the exploration that follows (under load,
     * reading a model took over a second and the default action ended
     * the process without a word). */
    volatile int *interrupted = tool_interrupt("solve", TOOL_SOLVE_GRACE);
    double t0 = san_now();
    int status = EXIT_OK;
    const char *path = A.gen ? "<gen>" : rest[0];
    san_model *m = load(&A, path, &status);
    tool_defines_free(&A.defs);
    if (!m) {
        free(rest);
        return status;
    }

    int progress = !A.quiet && tool_stderr_is_tty();
    san_analysis_opts ao;
    san_analysis_opts_default(&ao);
    ao.space = A.run.space;
    ao.space.progress = progress;
    ao.space.interrupt = interrupted;
    ao.solve = A.run.solve;
    ao.solve.progress = progress;
    ao.solve.interrupt = interrupted;
    ao.solve.time_limit = 0;            /* the pipeline gives it what is left */
    ao.time_limit = A.run.solve.time_limit;
    ao.storage = A.run.storage;
    ao.lump = A.run.lump;
    ao.ntop = A.top;
    if (A.engine && !strcmp(A.engine, "petsc")) {
        ao.engine = SAN_ENGINE_PETSC;
        ao.engine_options = A.petsc_options;
        ao.engine_keep_vector = A.vector != NULL;
        if (A.petsc_matrix)
            ao.engine_matrix = (san_engine_matrix)tool_engine_matrix(A.petsc_matrix);
    }
    san_diag d;
    char nb[4096];
    san_diag_init(&d, tool_model_name(path, nb, sizeof nb), NULL, 0);
    san_analysis *a = san_analysis_new();
    san_status st = a ? san_analyze(m, &ao, a, &d) : SAN_E_NOMEM;
    /* over MPI every rank holds the same answer: rank 0 alone reports
     * (the report, the diagnostics and the messages below) */
    const int rank0 = san_engine_rank(NULL) == 0;
    if (!rank0 && !freopen("/dev/null", "w", stdout))
        return EXIT_FAIL;
    if (rank0)
        san_diag_print(&d, stderr, tool_stderr_is_tty());
    const int said = d.nerrors > 0;
    san_diag_clear(&d);
    const san_solve_info *info = a ? san_analysis_info(a) : NULL;
    if (!a || !san_analysis_has_indices(a)) {
        if (rank0 && a && san_analysis_has_solution(a) && info->msg[0])
            fprintf(stderr, "san solve: %s\n", info->msg);
        else if (rank0 && !said && st != SAN_OK)    /* every failure says something */
            fprintf(stderr, "san solve: %s\n", san_status_name(st));
        san_analysis_free(a);
        san_model_free(m);
        free(rest);
        return tool_exit_status(st);
    }
    /* the vector of an unverified or interrupted answer is not written */
    int solved = st == SAN_OK && !*interrupted;
    int in_report = A.vector && A.fmt != FMT_TEXT && tool_names_stdout(A.vector);
    san_solve_report_opts ro;
    san_solve_report_opts_default(&ro);
    ro.source = path;
    ro.tol = A.run.solve.tol;
    ro.auto_picked = A.run.solve.method == SAN_M_AUTO;
    ro.t_total = san_now() - t0;
    ro.vector = in_report ? (solved ? 1 : -1) : 0;
    ro.no_marginals = A.no_marginals;
    ro.no_throughputs = A.no_throughputs;
    ro.all_replicas = A.all_replicas;
    tool_run run = { san_method_name(info->method), A.run.solve.tol,
                    san_analysis_kron(a) ? "kron" : "sparse", info->converged };
    ro.preamble = tool_provenance;
    ro.ctx = &run;
    int vrc = 0;
    if (san_report_solve(stdout, tool_report_format(A.fmt), m, a, &ro) != SAN_OK) {
        fprintf(stderr, "san solve: out of memory writing the vector\n");
        vrc = -1;
    }
    fflush(stdout);
    if (st != SAN_OK) {
        if (rank0)
            fprintf(stderr, "san solve: %s\n", info->msg[0] ? info->msg : "not converged");
        status = tool_exit_status(st);
    }
    if (*interrupted && status == EXIT_OK) {
        fprintf(stderr, "san solve: interrupted\n");    /* the rank that saw it */
        status = EXIT_FAIL;
    }
    if (vrc != 0 && status == EXIT_OK)
        status = EXIT_FAIL;
    if (A.vector && !in_report && san_analysis_has_engine_vector(a)) {
        /* every rank takes part (rank 0 merges, the others send), whatever
         * a rank's own Ctrl-C flag says: the status is agreed */
        tool_engine_vector ev = { a, "solve", 0 };
        int vs = rank0 && status == EXIT_OK ? tool_write_output(A.vector, tool_engine_vector_write,
                                                               &ev) : EXIT_OK;
        tool_engine_vector_done(&ev);
        if (status == EXIT_OK)
            status = vs;
    } else if (A.vector && !in_report && status == EXIT_OK) {
        tool_vector v = { san_analysis_space(a), san_analysis_pi(a), "solve" };
        status = tool_write_output(A.vector, tool_vector_write, &v);
    }
    san_analysis_free(a);
    san_model_free(m);
    free(rest);
    return status;
}
