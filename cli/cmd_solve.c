/*
 * cmd_solve.c - `san solve MODEL`: the steady state and its indices.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "options.h"

/* ---- the options ---- */

typedef struct {
    san_sweep_opts run;     /* the solver, the limits, the storage */
    cli_format fmt;
    const char *vector, *gen;
    const char *engine, *petsc_options, *petsc_matrix;
    int top, quiet;
    int no_marginals, no_throughputs, all_replicas;
    cli_defines defs;
    cli_diag diag;
} solve_args;

static const cli_option solve_options[] = {
    CLI_GROUP("solver:"),
    CLI_INCLUDE(cli_solver_options, solve_args, run),
    CLI_STRING(0, "engine", "E", solve_args, engine,
               "serial (default), or petsc: each rank of\n"
               "mpirun -n P explores, stores and solves its part\n"
               "of the chain (./configure --with-petsc)"),
    CLI_STRING(0, "petsc-matrix", "M", solve_args, petsc_matrix,
               "--engine petsc: aij (assembled), shell (each\n"
               "product lists the transitions again: a third of\n"
               "the memory, ~100 times slower) or auto (aij when\n"
               "it fits --max-memory on every rank; default)"),
    CLI_STRING(0, "petsc-options", "'OPTS'", solve_args, petsc_options,
               "PETSc options, e.g. '-ksp_type gmres -pc_type asm';\n"
               "PETSC_OPTIONS too"),
    CLI_GROUP("limits:"),
    CLI_INCLUDE(cli_limit_options, solve_args, run),
    CLI_MAX_INPUT(solve_args, run.max_input),
    CLI_GROUP("model:"),
    CLI_CALLBACK('D', NULL, "NAME=VALUE", solve_args, defs, cli_opt_define,
                 "override a constant identifier"),
    CLI_STRING(0, "gen", "'ARGS'", solve_args, gen,
               "solve a generated model (see san gen --help)"),
    CLI_INCLUDE(cli_diag_options, solve_args, diag),
    CLI_GROUP("output:"),
    CLI_FORMAT(solve_args, fmt, CLI_FMT_TEXT | CLI_FMT_JSON | CLI_FMT_CSV, NULL),
    CLI_INT(0, "top", "N", solve_args, top, 0, 1000000, "an integer >= 0",
            "most probable states to list", "10"),
    CLI_OUTPUT(0, "vector", "FILE", solve_args, vector,
               "write the whole distribution (CSV) to FILE (atomically:\n"
               "see OUTPUT FILES in san(1)); with - and --format json\n"
               "or csv, the report holds it (\"vector\" member, vector\n"
               "rows)"),
    CLI_FLAG(0, "no-marginals", solve_args, no_marginals, 1,
             "leave the marginals out of the report (every format)"),
    CLI_FLAG(0, "no-throughputs", solve_args, no_throughputs, 1,
             "leave the throughputs out of the report (every format)"),
    CLI_FLAG(0, "all-replicas", solve_args, all_replicas, 1,
             "text: a line for each replica whose marginals or\n"
             "throughputs differ from the others' (default: their\n"
             "minimum, mean and maximum; JSON and CSV list each)"),
    CLI_FLAG('q', "quiet", solve_args, quiet, 1,
             "no progress on stderr, no provenance header (text)"),
    CLI_END
};

static const cli_spec solve_spec = {
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
    .flags = CLI_ABBREV | CLI_OPERAND_FILES,
};

void help_solve(FILE *out)
{
    cli_help(out, &solve_spec);
}

typedef struct {
    const san_model *m;
    const san_space *sp;
    const san_solution *sol;
    const char *source;
    double t_solve, t_total;
    int auto_picked;        /* the method was chosen by --method auto */
    int kron;               /* solved over the tensor descriptor */
    double kron_bytes;      /* its size */
    /* what the other storage would need: the sparse path's peak (kron
     * runs: sampled nonzeros per state), or the descriptor with its
     * vectors (sparse runs); 0 when not estimated */
    double other_bytes;
    double tol;             /* --tol */
    int64_t nonzeros;       /* of Q (sparse storage) */
    int ranks;              /* --engine petsc: MPI ranks */
    double rank_bytes;      /* and the largest per-rank memory (0: serial) */
    /* --vector - with json or csv: 1 the vector is part of the report, -1
     * it would be but the answer is not verified (JSON: null), 0 not */
    int vector;
    int marginals, throughputs;     /* 0: left out (--no-marginals, ...) */
    int all_replicas;               /* text: every replica (--all-replicas) */
    const san_lumping *lump;        /* the replicas lumped (NULL: none) */
    const san_storage_choice *choice;   /* how auto chose the storage */
    const san_classes *classes;     /* several closed classes (n > 1) */
} report;

/* ---- text ---- */

/* Significant digits that the error estimate supports (san(1),
 * ACCURACY): an estimate of 3e-11 gives 10; an unverified answer 6. */
/* The positions the solve ran over: the reachable states, or the
 * product states on the descriptor (san_solve_estimate_measured). */
static int64_t solved_positions(const report *r)
{
    if (!r->kron && r->classes->n > 1) {    /* each class solved on its own */
        int64_t most = 0;
        for (int64_t k = 0; k < r->classes->n; k++)
            if (r->classes->states[k] > most)
                most = r->classes->states[k];
        return most;
    }
    if (!r->kron)
        return r->sp->n;
    return r->m->product_fits ? r->m->product : INT64_MAX;
}

/* An estimate from the checks is an indicator: a long chain's error was
 * up to 22 times it (san(1) ACCURACY), so its digits are two fewer. */
#define INDICATOR_DIGITS 2

static int supported_digits(const san_solve_info *info, int measured)
{
    if (!info->converged)
        return 6;
    double e = info->error_est > 1e-15 ? info->error_est : 1e-15;
    int d = (int)floor(-log10(e)) - (measured ? 0 : INDICATOR_DIGITS);
    return d < 3 ? 3 : d > 12 ? 12 : d;
}

/* Marginals: cli_text_marginals (replicas.c). */
static void text_marginals(const san_model *m, const san_solution *sol, int all)
{
    printf("\nmarginals\n");
    cli_text_marginals(m, sol, all, "  ", 6);
}

/* The last replica of event e's family (e itself when it is no replica,
 * or the last of its family). */
static int event_run_end(const san_model *m, int e)
{
    while (e + 1 < m->nev && cli_same_family(m->ev[e].name, m->ev[e + 1].name))
        e++;
    return e;
}

/* Events first..last, one line each; consecutive replicas that print
 * alike (at the digits shown) share one line, think[1..4]. */
static void throughput_lines(const san_model *m, const san_solution *sol, int first, int last,
                             int digits)
{
    for (int e = first; e <= last;) {
        char x[64], y[64], buf[160];
        int f = e;
        snprintf(x, sizeof x, "%.*g", digits, sol->throughput[e]);
        while (f < last && cli_next_replica(m->ev[f].name, m->ev[f + 1].name)) {
            snprintf(y, sizeof y, "%.*g", digits, sol->throughput[f + 1]);
            if (strcmp(x, y))
                break;
            f++;
        }
        printf("  %-20s %s\n", cli_replica_run(m->ev[e].name, m->ev[f].name, buf, sizeof buf), x);
        e = f + 1;
    }
}

/* The events first..last, replicas of one event: alike (at the digits
 * shown), or with all, throughput_lines; else their minimum, mean and
 * maximum, with the first replica that holds each.  Then their total,
 * thr(think[*]) in the language: for N clients, the requests the server
 * takes per time unit. */
static void throughput_family(const san_model *m, const san_solution *sol, int first, int last,
                              int digits, int all)
{
    int n = last - first + 1;
    const double *v = sol->throughput + first;
    cli_replica_stats st;
    cli_replica_stats_of(v, n, &st);
    char x[64], y[64], fam[160], label[192];
    int alike = 1;
    snprintf(x, sizeof x, "%.*g", digits, v[0]);
    for (int k = 1; k < n && alike; k++) {
        snprintf(y, sizeof y, "%.*g", digits, v[k]);
        alike = !strcmp(x, y);
    }
    const char *name = cli_replica_family(m->ev[first].name, fam, sizeof fam);
    if (alike || all) {
        throughput_lines(m, sol, first, last, digits);
    } else {
        snprintf(label, sizeof label, "%s min", name);
        printf("  %-20s %.*g (%s)\n", label, digits, st.min, m->ev[first + st.at_min].name);
        snprintf(label, sizeof label, "%s mean", name);
        printf("  %-20s %.*g\n", label, digits, st.mean);
        snprintf(label, sizeof label, "%s max", name);
        printf("  %-20s %.*g (%s)\n", label, digits, st.max, m->ev[first + st.at_max].name);
    }
    snprintf(label, sizeof label, "%s total", name);
    printf("  %-20s %.*g\n", label, digits, st.total);
}

static void text_throughputs(const san_model *m, const san_solution *sol, int digits, int all)
{
    printf("\nthroughputs\n");
    for (int e = 0; e < m->nev;) {
        int last = event_run_end(m, e);
        if (last > e)
            throughput_family(m, sol, e, last, digits, all);
        else
            printf("  %-20s %.*g\n", m->ev[e].name, digits, sol->throughput[e]);
        e = last + 1;
    }
}

/* Several closed classes: how the long-run answer weighs them (the
 * first TEXT_CLASSES: a chain may have thousands of absorbing states). */
#define TEXT_CLASSES 10

static void text_classes(const san_space *sp, const san_classes *C)
{
    printf("classes      %lld closed, weighed by the probability of reaching each from the "
           "uniform distribution over %lld initial state%s (residual %.1e):\n",
           (long long)C->n, (long long)C->ninit, C->ninit == 1 ? "" : "s", C->residual);
    const san_model *sm = sp->m;
    int *s = malloc((sm->naut + 1) * sizeof *s);
    char buf[4096];
    for (int64_t k = 0; k < C->n && k < TEXT_CLASSES; k++) {
        printf("  class %lld: %lld state%s, reached with probability %.12g (error %.1e)",
               (long long)k + 1, (long long)C->states[k], C->states[k] == 1 ? "" : "s",
               C->reach[k], C->reach_error[k]);
        if (s && C->first[k] >= 0) {
            san_state_decode(sm, sp->index[C->first[k]], s);
            printf(", e.g. %s", san_state_name(sm, s, buf, sizeof buf));
        }
        printf("\n");
    }
    if (C->n > TEXT_CLASSES)
        printf("  ... and %lld more (-f json lists every class)\n",
               (long long)(C->n - TEXT_CLASSES));
    free(s);
}

static void text_report(const report *r)
{
    const san_model *m = r->m;
    const san_space *sp = r->sp;
    const san_solution *sol = r->sol;
    cli_meta_text(stdout);
    printf("model        %s (%s)\n", m->name, r->source);
    printf("states       %s product, %lld reachable", m->product_str, (long long)sp->n);
    if (sp->nclosed < sp->n)
        printf(" (%lld transient)", (long long)(sp->n - sp->nclosed));
    printf("\n");
    if (r->lump)
        printf("lumped       %s into counts (--lump off: as written)\n",
               san_lumping_summary(r->lump));
    if (r->classes->n > 1)
        text_classes(sp, r->classes);
    char b[32];
    if (r->kron)
        printf("generator    not stored: tensor descriptor %s, storage kron",
               san_format_bytes(r->kron_bytes, b, sizeof b));
    else
        printf("generator    %lld nonzeros, %s, storage sparse",
               (long long)r->nonzeros, san_format_bytes(sp->bytes, b, sizeof b));
    if (r->other_bytes > 0)
        printf(" (%s would need ~%s)", r->kron ? "the sparse path" : "kron storage",
               san_format_bytes(r->other_bytes, b, sizeof b));
    printf("\n");
    if (r->choice && r->choice->states > 0) {      /* predicted: say why */
        char why[256];
        printf("storage      auto: %s\n", san_storage_choice_text(r->choice, why, sizeof why));
    }
    printf("solver       %s%s, %ld iteration%s, residual %.3g, %s\n", san_method_name(sol->info.method),
           r->auto_picked ? " (picked by auto)" : "",
           sol->info.iterations, sol->info.iterations == 1 ? "" : "s", sol->info.residual,
           sol->info.converged ? "converged" : "NOT CONVERGED");
    const int measured = san_solve_estimate_measured(&sol->info, solved_positions(r));
    const int digits = supported_digits(&sol->info, measured);
    if (sol->info.converged) {
        char agg[32] = "not tested";    /* --engine petsc with no partition to check */
        if (isfinite(sol->info.agg_error))
            snprintf(agg, sizeof agg, "%.1e", sol->info.agg_error);
        if (sol->info.lu_correction >= 0)
            printf("accuracy     error estimate %.1e, measured by the LU of the generator "
                   "(which corrected an error of %.1e; balance %.1e, tol %.1e)\n",
                   sol->info.error_est, sol->info.lu_correction, sol->info.balance, r->tol);
        else if (measured)
            printf("accuracy     error estimate %.1e, measured against a dense solve of "
                   "every state (balance %.1e, aggregation %s, tol %.1e)\n",
                   sol->info.error_est, sol->info.balance, agg, r->tol);
        else
            printf("accuracy     error estimate %.1e from the checks, an indicator, not a "
                   "bound: a long chain's error can exceed it (balance %.1e, aggregation "
                   "%s, tol %.1e)\n", sol->info.error_est, sol->info.balance, agg, r->tol);
    } else {
        /* what the checks reached, so that "how far off" has an answer */
        const double est = san_solve_reached_estimate(&sol->info);
        if (isnan(est))
            printf("accuracy     NOT CONVERGED: no error estimate (%s; tol %.1e)\n",
                   sol->info.status == SAN_E_INTERRUPTED
                   ? "stopped by the time limit or an interrupt before the checks"
                   : "no usable vector to check", r->tol);
        else
            printf("accuracy     NOT CONVERGED: error estimate %.1e of the returned vector "
                   "(balance and aggregation checks, an indicator; tol %.1e)\n", est, r->tol);
    }
    if (r->classes->n > 1)
        printf("             (the largest over the classes of its own estimate plus the "
               "relative error of its reach probability)\n");
    if (sol->info.note[0])
        printf("note         %s\n", sol->info.note);
    if (sol->info.underflow > 0)
        printf("underflow    %lld state%s below 2.2e-308 (the smallest double): reported as 0\n",
               (long long)sol->info.underflow, sol->info.underflow == 1 ? "" : "s");
    printf("times        explore+build %.3f s, check %.3f s, solve %.3f s, total %.3f s\n",
           sp->t_explore, sp->t_check, r->t_solve, r->t_total);
    if (m->nres) {
        printf("\nresults\n");
        int w = 8;
        for (int i = 0; i < m->nres; i++)
            if ((int)strlen(m->res[i].name) > w)
                w = (int)strlen(m->res[i].name);
        for (int i = 0; i < m->nres; i++)
            printf("  %-*s  %.*g\n", w, m->res[i].name, digits, sol->results[i]);
    }
    if (r->marginals)
        text_marginals(m, sol, r->all_replicas);
    if (r->throughputs)
        text_throughputs(m, sol, digits, r->all_replicas);
    printf("\nmost probable states\n");
    /* the space's model: the lumped one's occupancy states when lumped */
    const san_model *sm = sp->m;
    int *s = malloc((sm->naut + 1) * sizeof *s);
    char buf[4096];
    for (int k = 0; s && k < sol->ntop; k++) {
        san_state_decode(sm, sp->index[sol->top[k].state], s);
        printf("  %.10f  %s\n", sol->top[k].p, san_state_name(sm, s, buf, sizeof buf));
    }
    free(s);
}

/* ---- the fields of the reports ---- */

static void json_num(double v)
{
    san_json_num(stdout, v);
}

/* A figure that may not exist (an unverified answer has no accuracy,
 * a run no estimate of the other storage): null, not a number. */
static void json_opt(int have, double v)
{
    if (have)
        json_num(v);
    else
        fputs("null", stdout);
}

static void csv_field(const char *s)
{
    san_csv_field(stdout, s);
}

/* A global state as an object, automaton -> local state, in automaton
 * order, then its readable name (doc/output.md: top_states). */
static void json_state(const san_model *m, const int *s, char *buf, size_t size)
{
    printf("{");
    for (int a = 0; a < m->naut; a++) {
        printf("%s", a ? ", " : " ");
        san_json_string(stdout, m->aut[a].name);
        printf(": ");
        san_json_string(stdout, m->aut[a].states[s[a]]);
    }
    printf(" }, \"label\": ");
    san_json_string(stdout, san_state_name(m, s, buf, size));
}

/* The members of the provenance block (cli/meta.c) for this run. */
static cli_run run_of(const report *r)
{
    cli_run run = { san_method_name(r->sol->info.method), r->tol, r->kron ? "kron" : "sparse",
                    r->sol->info.converged };
    return run;
}

/* --vector - with --format json or csv: the vector goes into the report
 * on standard output, in its format (a CSV table appended to a JSON
 * document would make it unreadable).  Each state is given as in
 * top_states, with its global index. */
static int embedded_vector(const san_model *m0, const san_space *sp, const double *pi,
                           cli_format fmt)
{
    const san_model *m = sp->m ? sp->m : m0;   /* lumped: occupancy states */
    int64_t *order = cli_vector_order(sp, "solve");
    int *s = malloc((m->naut + 1) * sizeof *s);
    char buf[4096];
    if (!order || !s) {
        if (order)
            fprintf(stderr, "san solve: out of memory writing the vector\n");
        free(order);
        free(s);
        return -1;
    }
    for (int64_t k = 0; k < sp->n; k++) {
        int64_t i = order[k];
        san_state_decode(m, sp->index[i], s);
        if (fmt == FMT_JSON) {
            printf("%s\n    { \"index\": %lld, \"state\": ", k ? "," : "", (long long)sp->index[i]);
            json_state(m, s, buf, sizeof buf);
            printf(", \"p\": ");
            json_num(pi[i]);
            printf(" }");
        } else {
            printf("vector,%lld,", (long long)sp->index[i]);
            csv_field(san_state_name(m, s, buf, sizeof buf));
            printf(",%.17g\n", pi[i]);
        }
    }
    free(order);
    free(s);
    return 0;
}

/* ---- json ---- */

/* ",\n  "marginals": {...}": an object of automata, each an object of
 * its local states. */
static void json_marginals(const san_model *m, const san_solution *sol)
{
    printf(",\n  \"marginals\": {");
    cli_json_marginal_members(stdout, m, sol, "\n    ", ",\n    ");
    printf("\n  }");
}

static void json_throughputs(const san_model *m, const san_solution *sol)
{
    printf(",\n  \"throughputs\": {");
    for (int e = 0; e < m->nev; e++) {
        printf("%s\n    ", e ? "," : "");
        san_json_string(stdout, m->ev[e].name);
        printf(": ");
        json_num(sol->throughput[e]);
    }
    printf("%s}", m->nev ? "\n  " : "");
}

/* ",\n  "throughput_totals": {"think[*]": 1.545, ...}": the throughput of
 * each replicated event summed over its replicas, which "throughputs"
 * lists one by one. */
static void json_throughput_totals(const san_model *m, const san_solution *sol)
{
    printf(",\n  \"throughput_totals\": {");
    int any = 0;
    for (int e = 0; e < m->nev;) {
        int last = event_run_end(m, e);
        if (last > e) {
            char fam[160];
            cli_replica_stats st;
            cli_replica_stats_of(sol->throughput + e, last - e + 1, &st);
            printf("%s\n    ", any++ ? "," : "");
            san_json_string(stdout, cli_replica_family(m->ev[e].name, fam, sizeof fam));
            printf(": ");
            json_num(st.total);
        }
        e = last + 1;
    }
    printf("%s}", any ? "\n  " : "");
}

/* Q's nonzeros: the generator's, or over the ranks of --engine petsc
 * (no rank holds the whole of it) */
static int64_t nonzeros_of(const san_analysis *a)
{
    if (a->kron)
        return 0;
    return a->ranks > 1 || a->rank_bytes > 0 ? a->nonzeros : a->sp.q.rowptr[a->sp.n];
}

/* "storage_choice": how --storage auto chose (absent when not auto);
 * the predictions are null when none was made (rule "small"). */
static void json_storage_choice(const san_storage_choice *c)
{
    if (!c || c->rule == SAN_PICK_NONE)
        return;
    char why[256];
    const int p = c->states > 0;
    printf("  \"storage_choice\": {\"rule\": \"%s\", \"reason\": ", san_storage_rule_name(c->rule));
    san_json_string(stdout, san_storage_choice_text(c, why, sizeof why));
    printf(", \"states\": ");
    json_opt(p, c->states);
    printf(", \"nonzeros\": ");
    json_opt(p, c->nonzeros);
    printf(", \"budget_bytes\": ");
    json_num(c->budget);
    const char *name[2] = { "sparse", "kron" };
    const double t[2] = { c->t_sparse, c->t_kron }, mem[2] = { c->m_sparse, c->m_kron };
    for (int k = 0; k < 2; k++) {
        printf(", \"%s\": ", name[k]);
        if (!p) {
            fputs("null", stdout);
            continue;
        }
        printf("{\"time_s\": ");
        json_num(t[k]);
        printf(", \"memory_bytes\": ");
        json_num(mem[k]);
        printf("}");
    }
    printf("},\n");
}

/* Several closed classes (doc/output.md: "initial_states",
 * "closed_classes" as san props gives them, and "classes"). */
static void json_classes(const san_space *sp, const san_classes *C)
{
    printf("  \"initial_states\": %lld,\n  \"closed_classes\": %lld,\n  \"classes\": "
           "{\"reach_residual\": ", (long long)C->ninit, (long long)C->n);
    json_num(C->residual);
    printf(", \"classes\": [");
    const san_model *sm = sp->m;
    int *s = malloc((sm->naut + 1) * sizeof *s);
    char buf[4096];
    for (int64_t k = 0; k < C->n; k++) {
        printf("%s\n    {\"states\": %lld, \"reach\": ", k ? "," : "", (long long)C->states[k]);
        json_num(C->reach[k]);
        printf(", \"reach_error\": ");
        json_num(C->reach_error[k]);
        printf(", \"error_estimate\": ");
        json_opt(!isnan(C->error[k]), C->error[k]);
        printf(", \"state\": ");
        if (s && C->first[k] >= 0) {
            san_state_decode(sm, sp->index[C->first[k]], s);
            json_state(sm, s, buf, sizeof buf);
            printf("}");
        } else {
            printf("null, \"label\": null}");
        }
    }
    free(s);
    printf("\n  ]},\n");
}

static int json_report(const report *r)
{
    const san_model *m = r->m;
    const san_space *sp = r->sp;
    const san_solution *sol = r->sol;
    cli_run run = run_of(r);
    printf("{\n  ");
    cli_meta_json(stdout, &run);
    printf("\"model\": ");
    san_json_string(stdout, m->name);
    printf(",\n  \"file\": ");
    san_json_string(stdout, r->source);
    printf(",\n  \"product_states\": ");
    san_json_size(stdout, m->product_str);
    printf(",\n  \"reachable_states\": %lld,", (long long)sp->n);
    if (r->lump) {
        printf("\n  \"lumped\": {\"classes\": ");
        san_json_string(stdout, san_lumping_summary(r->lump));
        printf(", \"product_states\": ");
        san_json_size(stdout, sp->m->product_str);
        printf("},");
    }
    printf("\n  \"transient_states\": %lld,\n", (long long)(sp->n - sp->nclosed));
    if (r->classes->n > 1)
        json_classes(sp, r->classes);
    printf("  \"dropped_states\": %lld,\n  \"nonzeros\": %lld,\n  \"storage\": \"%s\",\n",
           (long long)sp->dropped, r->kron ? 0LL : (long long)r->nonzeros,
           r->kron ? "kron" : "sparse");
    printf("  \"memory_bytes\": %.0f,\n", r->kron ? r->kron_bytes : sp->bytes);
    if (r->rank_bytes > 0)
        printf("  \"engine\": \"petsc\",\n  \"ranks\": %d,\n  \"rank_memory_bytes\": %.0f,\n",
               r->ranks, r->rank_bytes);
    printf("  \"memory_other_storage_bytes\": ");
    json_opt(r->other_bytes > 0, r->other_bytes);
    printf(",\n");
    json_storage_choice(r->choice);
    printf("  \"solver\": { \"method\": \"%s\", \"auto\": %s, \"iterations\": %ld, \"residual\": ",
           san_method_name(sol->info.method), r->auto_picked ? "true" : "false", sol->info.iterations);
    json_num(sol->info.residual);
    printf(", \"converged\": %s, \"time_s\": %.6f, \"products\": %ld, \"product_s\": ",
           sol->info.converged ? "true" : "false", r->t_solve, sol->info.products);
    json_num(sol->info.product_s);
    printf(", \"tol\": ");
    json_num(r->tol);
    /* an unverified answer has no balance or aggregation figure to
     * report: null, not 0; its error estimate is the one reached */
    const int ok = sol->info.converged;
    printf(", \"balance\": ");
    json_opt(ok, sol->info.balance);
    printf(", \"aggregation_error\": ");
    json_opt(ok, sol->info.agg_error);
    printf(", \"error_estimate\": ");    /* not converged: the one reached */
    const double est = san_solve_reached_estimate(&sol->info);
    json_opt(!isnan(est), est);
    printf(", \"lu_correction\": ");
    json_opt(sol->info.lu_correction >= 0, sol->info.lu_correction);
    printf(", \"error_bound\": %s",
           san_solve_estimate_measured(&sol->info, solved_positions(r)) ? "true" : "false");
    printf(", \"refine_cycles\": %ld, \"underflow_states\": %lld, \"note\": ",
           sol->info.refine_cycles, (long long)sol->info.underflow);
    san_json_string(stdout, sol->info.note);
    printf(" },\n");
    /* "times_s", as transient's: "times" is the list of its time points */
    printf("  \"times_s\": { \"explore_s\": %.6f, \"check_s\": %.6f, \"solve_s\": %.6f, \"total_s\": %.6f },\n",
           sp->t_explore, sp->t_check, r->t_solve, r->t_total);
    printf("  \"results\": {");
    for (int i = 0; i < m->nres; i++) {
        printf("%s\n    ", i ? "," : "");
        san_json_string(stdout, m->res[i].name);
        printf(": ");
        json_num(sol->results[i]);
    }
    printf("%s}", m->nres ? "\n  " : "");
    if (r->marginals)
        json_marginals(m, sol);
    if (r->throughputs) {
        json_throughputs(m, sol);
        json_throughput_totals(m, sol);
    }
    printf(",\n  \"top_states\": [");
    const san_model *sm = sp->m;       /* lumped: occupancy states */
    int *s = malloc((sm->naut + 1) * sizeof *s);
    char buf[4096];
    for (int k = 0; s && k < sol->ntop; k++) {
        san_state_decode(sm, sp->index[sol->top[k].state], s);
        printf("%s\n    { \"state\": ", k ? "," : "");
        json_state(sm, s, buf, sizeof buf);
        printf(", \"p\": ");
        json_num(sol->top[k].p);
        printf(" }");
    }
    free(s);
    printf("%s]", sol->ntop ? "\n  " : "");
    int rc = 0;
    if (r->vector < 0) {
        printf(",\n  \"vector\": null");
    } else if (r->vector > 0) {
        printf(",\n  \"vector\": [");
        rc = embedded_vector(m, sp, sol->pi, FMT_JSON);
        printf("%s]", sp->n ? "\n  " : "");
    }
    printf("\n}\n");
    return rc;
}

/* ---- csv ---- */

static int csv_report(const report *r)
{
    const san_model *m = r->m;
    const san_solution *sol = r->sol;
    cli_run run = run_of(r);
    cli_meta_csv(stdout, &run);
    printf("kind,name,state,value\n");
    /* how far the numbers below can be trusted, first: a reader that
     * takes the values alone can still not miss "converged,,0" */
    printf("solver,converged,,%d\n", sol->info.converged);
    printf("solver,method,%s,\n", san_method_name(sol->info.method));
    printf("solver,iterations,,%ld\n", sol->info.iterations);
    printf("solver,residual,,%.17g\n", sol->info.residual);
    if (r->rank_bytes > 0)
        printf("solver,ranks,,%d\nsolver,rank_memory_bytes,,%.0f\n", r->ranks, r->rank_bytes);
    const san_storage_choice *c = r->choice;
    if (c && c->rule != SAN_PICK_NONE) {
        printf("storage,rule,%s,\n", san_storage_rule_name(c->rule));
        if (c->states > 0)
            printf("storage,sparse_time_s,,%.6g\nstorage,sparse_memory_bytes,,%.0f\n"
                   "storage,kron_time_s,,%.6g\nstorage,kron_memory_bytes,,%.0f\n",
                   c->t_sparse, c->m_sparse, c->t_kron, c->m_kron);
    }
    if (sol->info.converged) {      /* else blank: unverified */
        printf("solver,balance,,%.17g\n", sol->info.balance);
        if (isfinite(sol->info.agg_error))
            printf("solver,aggregation_error,,%.17g\n", sol->info.agg_error);
        else
            printf("solver,aggregation_error,,\n");
        printf("solver,error_estimate,,%.17g\n", sol->info.error_est);
        if (sol->info.lu_correction >= 0)
            printf("solver,lu_correction,,%.17g\n", sol->info.lu_correction);
        else
            printf("solver,lu_correction,,\n");
    } else {
        /* the estimate reached, when the checks ran: blank otherwise */
        const double est = san_solve_reached_estimate(&sol->info);
        printf("solver,balance,,\nsolver,aggregation_error,,\nsolver,error_estimate,,");
        if (!isnan(est))
            printf("%.17g", est);
        putchar('\n');
        if (sol->info.lu_correction >= 0)
            printf("solver,lu_correction,,%.17g\n", sol->info.lu_correction);
        else
            printf("solver,lu_correction,,\n");
    }
    for (int64_t k = 0; r->classes->n > 1 && k < r->classes->n; k++)
        printf("class,reach,%lld,%.17g\nclass,states,%lld,%lld\n", (long long)k + 1,
               r->classes->reach[k], (long long)k + 1, (long long)r->classes->states[k]);
    for (int i = 0; i < m->nres; i++) {
        printf("result,");
        csv_field(m->res[i].name);
        printf(",,%.17g\n", sol->results[i]);
    }
    for (int a = 0; r->marginals && a < m->naut; a++)
        for (int s = 0; s < m->aut[a].nstates; s++) {
            printf("marginal,");
            csv_field(m->aut[a].name);
            putchar(',');
            csv_field(m->aut[a].states[s]);
            printf(",%.17g\n", sol->marginal[a][s]);
        }
    for (int e = 0; r->throughputs && e < m->nev; e++) {
        printf("throughput,");
        csv_field(m->ev[e].name);
        printf(",,%.17g\n", sol->throughput[e]);
    }
    for (int e = 0; r->throughputs && e < m->nev;) {    /* as "throughput_totals" */
        int last = event_run_end(m, e);
        if (last > e) {
            char fam[160];
            cli_replica_stats st;
            cli_replica_stats_of(sol->throughput + e, last - e + 1, &st);
            printf("throughput_total,");
            csv_field(cli_replica_family(m->ev[e].name, fam, sizeof fam));
            printf(",,%.17g\n", st.total);
        }
        e = last + 1;
    }
    return r->vector > 0 ? embedded_vector(m, r->sp, sol->pi, FMT_CSV) : 0;
}

/* ---- the command ---- */


static san_model *load(solve_args *A, const char *path, int *status)
{
    if (!A->gen)
        return cli_load_model(path, &A->defs, status, 0, A->run.max_input,
                              A->run.space.max_memory, &A->diag);
    return cli_load_gen("solve", A->gen, &A->defs, status, &A->diag);
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
    int rc = cli_parse(&solve_spec, argc, argv, &A, &rest, &nrest);
    if (A.quiet)
        cli_meta_quiet();
    if (rc == 0 && A.gen && nrest != 0)
        rc = cli_usage_error("solve", "--gen replaces MODEL; give one or the other");
    else if (rc == 0 && A.engine && strcmp(A.engine, "serial") && strcmp(A.engine, "petsc"))
        rc = cli_usage_error("solve", "--engine: '%s' is not serial or petsc", A.engine);
    else if (rc == 0 && A.petsc_matrix && cli_engine_matrix(A.petsc_matrix) < 0)
        rc = cli_usage_error("solve", "--petsc-matrix: '%s' is not aij, shell or auto",
                             A.petsc_matrix);
    else if (rc == 0 && A.engine && !strcmp(A.engine, "petsc") && A.vector &&
             A.fmt != FMT_TEXT && cli_names_stdout(A.vector))
        rc = cli_usage_error("solve", "--vector -: with --engine petsc the vector is not "
                             "held in the %s report (no rank holds it); write it to a file",
                             A.fmt == FMT_JSON ? "json" : "csv");
    else if (rc == 0 && !A.gen && nrest != 1)
        rc = cli_usage_error("solve", "%s", nrest == 0 ? "missing MODEL" : "expected one MODEL");
    if (rc) {
        free(rest);
        cli_defines_free(&A.defs);
        return rc == CLI_HELP_SHOWN ? EXIT_OK : rc;
    }
    /* Ctrl-C: the solver stops with its best vector (it looks at the
     * flag every few iterations); a sparse LU, which cannot look, gets
     * a second.  Installed before the model is read, so that a Ctrl-C
     * while reading is seen by the exploration that follows (under load,
     * reading a model took over a second and the default action ended
     * the process without a word). */
    volatile int *interrupted = cli_interrupt("solve", CLI_SOLVE_GRACE);
    double t0 = san_now();
    int status = EXIT_OK;
    const char *path = A.gen ? "<gen>" : rest[0];
    san_model *m = load(&A, path, &status);
    cli_defines_free(&A.defs);
    if (!m) {
        free(rest);
        return status;
    }

    int progress = !A.quiet && cli_stderr_is_tty();
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
            ao.engine_matrix = (san_engine_matrix)cli_engine_matrix(A.petsc_matrix);
    }
    san_diag d;
    san_diag_init(&d, strcmp(path, "-") ? path : "<stdin>", NULL, 0);
    san_analysis a;
    san_status st = san_analyze(m, &ao, &a, &d);
    /* over MPI every rank holds the same answer: rank 0 alone reports
     * (the report, the diagnostics and the messages below) */
    const int rank0 = san_engine_rank(NULL) == 0;
    if (!rank0 && !freopen("/dev/null", "w", stdout))
        return EXIT_FAIL;
    if (rank0)
        san_diag_print(&d, stderr, cli_stderr_is_tty());
    const int said = d.nerrors > 0;
    san_diag_free(&d);
    if (!a.have_indices) {
        if (rank0 && a.have_sol && a.sol.info.msg[0])
            fprintf(stderr, "san solve: %s\n", a.sol.info.msg);
        else if (rank0 && !said && st != SAN_OK)    /* every failure says something */
            fprintf(stderr, "san solve: %s\n", san_status_name(st));
        san_analysis_free(&a);
        san_model_free(m);
        free(rest);
        return cli_exit_status(st);
    }
    /* the vector of an unverified or interrupted answer is not written */
    int solved = st == SAN_OK && !*interrupted;
    int in_report = A.vector && A.fmt != FMT_TEXT && cli_names_stdout(A.vector);
    report r = { m, &a.sp, &a.sol, path, a.t_solve, san_now() - t0,
                 A.run.solve.method == SAN_M_AUTO && !(a.rank_bytes > 0), a.kron, a.kron_bytes, a.other_bytes,
                 A.run.solve.tol, nonzeros_of(&a), a.ranks, a.rank_bytes, in_report ? (solved ? 1 : -1) : 0,
                 !A.no_marginals, !A.no_throughputs, A.all_replicas, a.lumping, &a.choice,
                 &a.classes };
    int vrc = 0;
    if (A.fmt == FMT_JSON)
        vrc = json_report(&r);
    else if (A.fmt == FMT_CSV)
        vrc = csv_report(&r);
    else
        text_report(&r);
    fflush(stdout);
    if (st != SAN_OK) {
        if (rank0)
            fprintf(stderr, "san solve: %s\n", a.sol.info.msg[0] ? a.sol.info.msg : "not converged");
        status = cli_exit_status(st);
    }
    if (*interrupted && status == EXIT_OK) {
        fprintf(stderr, "san solve: interrupted\n");    /* the rank that saw it */
        status = EXIT_FAIL;
    }
    if (vrc != 0 && status == EXIT_OK)
        status = EXIT_FAIL;
    if (A.vector && !in_report && a.engine) {
        /* every rank takes part (rank 0 merges, the others send), whatever
         * a rank's own Ctrl-C flag says: the status is agreed */
        cli_engine_vector ev = { &a, "solve", 0 };
        int vs = rank0 && status == EXIT_OK ? cli_write_output(A.vector, cli_engine_vector_write,
                                                               &ev) : EXIT_OK;
        cli_engine_vector_done(&ev);
        if (status == EXIT_OK)
            status = vs;
    } else if (A.vector && !in_report && status == EXIT_OK) {
        cli_vector v = { &a.sp, a.sol.pi, "solve" };
        status = cli_write_output(A.vector, cli_vector_write, &v);
    }
    san_analysis_free(&a);
    san_model_free(m);
    free(rest);
    return status;
}
