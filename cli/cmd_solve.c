/*
 * cmd_solve.c - `san solve MODEL`: the steady state and its indices.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

void help_solve(FILE *out)
{
    fprintf(out,
        "usage: san solve [options] MODEL\n"
        "       san solve [options] --gen 'TEMPLATE FLAGS...'\n"
        "\n"
        "Explore the reachable states of a model, build its generator, solve\n"
        "pi Q = 0 and report the results block, the marginal probability of\n"
        "every local state, the throughput of every event and the most\n"
        "probable global states.\n"
        "\n"
        "solver:\n"
        "  -m, --method M       auto (default), direct (UMFPACK), power, jacobi,\n"
        "                       gs (Gauss-Seidel/SOR), gmres, bicgstab, iad\n"
        "                       (aggregation: stiff and nearly decomposable chains)\n"
        "      --tol X          accuracy (1e-10): every state's flows in balance to\n"
        "                       X relative, and every block of states (automaton,\n"
        "                       coupled automata, fast components) within X of the\n"
        "                       exact coarse solution; see ACCURACY in san(1)\n"
        "      --max-iter N     iteration limit of iterative methods (10000)\n"
        "      --omega W        relaxation of gs (1: Gauss-Seidel)\n"
        "      --restart M      GMRES restart length (30)\n"
        "      --precond P      ilu0 (default), jacobi or none (gmres, bicgstab)\n"
        "      --time-limit S   stop after S seconds (exploration and solve; an\n"
        "                       iterative solve stops with its best vector)\n"
        "      --storage S      auto (default): the sparse generator, or the tensor\n"
        "                       descriptor when the generator does not fit;\n"
        "                       sparse; kron (Q never stored: power, jacobi, gmres,\n"
        "                       bicgstab, iad)\n"
        "limits:\n"
        "      --max-memory M   refuse models needing more (e.g. 4G, 512M;\n"
        "                       default 80%% of physical memory)\n"
        "      --max-states N   refuse more reachable states than N\n"
        "model:\n"
        "  -D NAME=VALUE        override a constant identifier\n"
        "      --gen 'ARGS'     solve a generated model (see san gen --help)\n"
        "output:\n"
        "  -f, --format FMT     text (default), json or csv\n"
        "      --top N          most probable states to list (10)\n"
        "      --vector FILE    write the whole distribution (CSV) to FILE\n"
        "  -q, --quiet          no progress on stderr\n"
        "  -h, --help           this help\n"
        "\n"
        "Exit status: 0 solved, 2 bad model or usage, 1 not converged or failed.\n");
}

static volatile int interrupted;

/* Ctrl-C asks the solver to stop with its best vector (it looks at the
 * flag every few iterations).  Work that cannot look (a sparse LU) gets
 * a second, then the process ends: outputs are written through
 * temporary files, so nothing partial is left behind. */
static void stop_now(void)
{
    static const char msg[] = "san solve: interrupted\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(130);
}

static void on_alarm(int sig)
{
    (void)sig;
    stop_now();
}

static void on_sigint(int sig)
{
    (void)sig;
    if (interrupted)
        stop_now();
    interrupted = 1;
    signal(SIGALRM, on_alarm);
    alarm(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* "4G", "512M", "100k", "1e9": bytes. */
static int parse_bytes(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0))
        return -1;
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024.0 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': v *= 1024.0 * 1024 * 1024 * 1024; end++; break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static int parse_num(const char *s, double *out, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* Split a --gen argument on blanks (quotes group words). */
static int split_words(char *s, char ***argv)
{
    int n = 0, cap = 8;
    char **v = malloc(cap * sizeof *v);
    while (v && *s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        char q = (*s == '\'' || *s == '"') ? *s++ : 0;
        char *w = s;
        while (*s && (q ? *s != q : (*s != ' ' && *s != '\t')))
            s++;
        if (*s)
            *s++ = '\0';
        if (n + 1 >= cap) {
            char **p = realloc(v, (cap *= 2) * sizeof *v);
            if (!p)
                break;
            v = p;
        }
        v[n++] = w;
    }
    if (v)
        v[n] = NULL;
    *argv = v;
    return n;
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
} report;

/* ---- text ---- */

/* Significant digits that the error estimate supports (san(1),
 * ACCURACY): an estimate of 3e-11 gives 10; an unverified answer 6. */
static int supported_digits(const san_solve_info *info)
{
    if (!info->converged)
        return 6;
    double e = info->error_est > 1e-15 ? info->error_est : 1e-15;
    int d = (int)floor(-log10(e));
    return d < 3 ? 3 : d > 12 ? 12 : d;
}

static void text_report(const report *r)
{
    const san_model *m = r->m;
    const san_space *sp = r->sp;
    const san_solution *sol = r->sol;
    printf("model        %s (%s)\n", m->name, r->source);
    printf("states       %s product, %lld reachable", m->product_str, (long long)sp->n);
    if (sp->nclosed < sp->n)
        printf(" (%lld transient)", (long long)(sp->n - sp->nclosed));
    printf("\n");
    if (r->kron)
        printf("generator    not stored: tensor descriptor %.1f MiB, storage kron",
               r->kron_bytes / (1 << 20));
    else
        printf("generator    %lld nonzeros, %.1f MiB, storage sparse",
               (long long)sp->q.rowptr[sp->n], sp->bytes / (1 << 20));
    if (r->other_bytes > 0)
        printf(" (%s would need ~%.1f MiB)", r->kron ? "the sparse path" : "kron storage",
               r->other_bytes / (1 << 20));
    printf("\n");
    printf("solver       %s%s, %ld iteration%s, residual %.3g, %s\n", san_method_name(sol->info.method),
           r->auto_picked ? " (picked by auto)" : "",
           sol->info.iterations, sol->info.iterations == 1 ? "" : "s", sol->info.residual,
           sol->info.converged ? "converged" : "NOT CONVERGED");
    const int digits = supported_digits(&sol->info);
    if (sol->info.converged)
        printf("accuracy     error estimate %.1e (balance %.1e, aggregation %.1e, tol %.1e)\n",
               sol->info.error_est, sol->info.balance, sol->info.agg_error, r->tol);
    if (sol->info.note[0])
        printf("note         %s\n", sol->info.note);
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
    printf("\nmarginals\n");
    for (int a = 0; a < m->naut; a++) {
        printf("  %s:", m->aut[a].name);
        for (int s = 0; s < m->aut[a].nstates; s++)
            printf("  %s %.6g", m->aut[a].states[s], sol->marginal[a][s]);
        printf("\n");
    }
    printf("\nthroughputs\n");
    for (int e = 0; e < m->nev; e++)
        printf("  %-20s %.*g\n", m->ev[e].name, digits, sol->throughput[e]);
    printf("\nmost probable states\n");
    int *s = malloc((m->naut + 1) * sizeof *s);
    char buf[4096];
    for (int k = 0; s && k < sol->ntop; k++) {
        san_state_decode(m, sp->index[sol->top[k].state], s);
        printf("  %.10f  %s\n", sol->top[k].p, san_state_name(m, s, buf, sizeof buf));
    }
    free(s);
}

/* ---- json ---- */

static void json_num(double v)
{
    if (isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}

static void json_report(const report *r)
{
    const san_model *m = r->m;
    const san_space *sp = r->sp;
    const san_solution *sol = r->sol;
    printf("{\n  \"model\": ");
    cli_json_string(stdout, m->name);
    printf(",\n  \"file\": ");
    cli_json_string(stdout, r->source);
    printf(",\n  \"product_states\": %s,\n  \"reachable_states\": %lld,\n  \"transient_states\": %lld,\n",
           m->product_str, (long long)sp->n, (long long)(sp->n - sp->nclosed));
    printf("  \"dropped_states\": %lld,\n  \"nonzeros\": %lld,\n  \"storage\": \"%s\",\n",
           (long long)sp->dropped, r->kron ? 0LL : (long long)sp->q.rowptr[sp->n],
           r->kron ? "kron" : "sparse");
    printf("  \"memory_bytes\": %.0f,\n", r->kron ? r->kron_bytes : sp->bytes);
    printf("  \"memory_other_storage_bytes\": ");
    json_num(r->other_bytes > 0 ? r->other_bytes : NAN);
    printf(",\n");
    printf("  \"solver\": { \"method\": \"%s\", \"auto\": %s, \"iterations\": %ld, \"residual\": ",
           san_method_name(sol->info.method), r->auto_picked ? "true" : "false", sol->info.iterations);
    json_num(sol->info.residual);
    printf(", \"converged\": %s, \"time_s\": %.6f, \"products\": %ld, \"product_s\": ",
           sol->info.converged ? "true" : "false", r->t_solve, sol->info.products);
    json_num(sol->info.product_s);
    printf(", \"tol\": ");
    json_num(r->tol);
    /* an unverified answer has no accuracy to report: null, not 0 */
    const int ok = sol->info.converged;
    printf(", \"balance\": ");
    json_num(ok ? sol->info.balance : NAN);
    printf(", \"aggregation_error\": ");
    json_num(ok ? sol->info.agg_error : NAN);
    printf(", \"error_estimate\": ");
    json_num(ok ? sol->info.error_est : NAN);
    printf(", \"refine_cycles\": %ld, \"note\": ", sol->info.refine_cycles);
    cli_json_string(stdout, sol->info.note);
    printf(" },\n");
    printf("  \"times\": { \"explore_s\": %.6f, \"check_s\": %.6f, \"solve_s\": %.6f, \"total_s\": %.6f },\n",
           sp->t_explore, sp->t_check, r->t_solve, r->t_total);
    printf("  \"results\": {");
    for (int i = 0; i < m->nres; i++) {
        printf("%s\n    ", i ? "," : "");
        cli_json_string(stdout, m->res[i].name);
        printf(": ");
        json_num(sol->results[i]);
    }
    printf("%s},\n  \"marginals\": {", m->nres ? "\n  " : "");
    for (int a = 0; a < m->naut; a++) {
        printf("%s\n    ", a ? "," : "");
        cli_json_string(stdout, m->aut[a].name);
        printf(": {");
        for (int s = 0; s < m->aut[a].nstates; s++) {
            printf("%s", s ? ", " : " ");
            cli_json_string(stdout, m->aut[a].states[s]);
            printf(": ");
            json_num(sol->marginal[a][s]);
        }
        printf(" }");
    }
    printf("\n  },\n  \"throughputs\": {");
    for (int e = 0; e < m->nev; e++) {
        printf("%s\n    ", e ? "," : "");
        cli_json_string(stdout, m->ev[e].name);
        printf(": ");
        json_num(sol->throughput[e]);
    }
    printf("%s},\n  \"top_states\": [", m->nev ? "\n  " : "");
    int *s = malloc((m->naut + 1) * sizeof *s);
    char buf[4096];
    for (int k = 0; s && k < sol->ntop; k++) {
        san_state_decode(m, sp->index[sol->top[k].state], s);
        printf("%s\n    { \"state\": ", k ? "," : "");
        cli_json_string(stdout, san_state_name(m, s, buf, sizeof buf));
        printf(", \"p\": ");
        json_num(sol->top[k].p);
        printf(" }");
    }
    free(s);
    printf("%s]\n}\n", sol->ntop ? "\n  " : "");
}

/* ---- csv ---- */

static void csv_field(const char *s)
{
    int quote = strpbrk(s, ",\"\n") != NULL;
    if (!quote) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static void csv_report(const report *r)
{
    const san_model *m = r->m;
    const san_solution *sol = r->sol;
    printf("kind,name,state,value\n");
    /* how far the numbers below can be trusted, first: a reader that
     * takes the values alone can still not miss "converged,,0" */
    printf("solver,converged,,%d\n", sol->info.converged);
    printf("solver,method,%s,\n", san_method_name(sol->info.method));
    printf("solver,iterations,,%ld\n", sol->info.iterations);
    printf("solver,residual,,%.17g\n", sol->info.residual);
    if (sol->info.converged) {      /* else blank: unverified */
        printf("solver,balance,,%.17g\n", sol->info.balance);
        printf("solver,aggregation_error,,%.17g\n", sol->info.agg_error);
        printf("solver,error_estimate,,%.17g\n", sol->info.error_est);
    } else {
        printf("solver,balance,,\nsolver,aggregation_error,,\nsolver,error_estimate,,\n");
    }
    for (int i = 0; i < m->nres; i++) {
        printf("result,");
        csv_field(m->res[i].name);
        printf(",,%.17g\n", sol->results[i]);
    }
    for (int a = 0; a < m->naut; a++)
        for (int s = 0; s < m->aut[a].nstates; s++) {
            printf("marginal,");
            csv_field(m->aut[a].name);
            putchar(',');
            csv_field(m->aut[a].states[s]);
            printf(",%.17g\n", sol->marginal[a][s]);
        }
    for (int e = 0; e < m->nev; e++) {
        printf("throughput,");
        csv_field(m->ev[e].name);
        printf(",,%.17g\n", sol->throughput[e]);
    }
}

/* ---- the distribution, in mixed-radix order ---- */

typedef struct {
    const san_space *sp;
    const double *pi;
} vector_ctx;

static const san_space *sort_space;

static int by_index(const void *x, const void *y)
{
    int64_t a = sort_space->index[*(const int64_t *)x], b = sort_space->index[*(const int64_t *)y];
    return (a > b) - (a < b);
}

static void write_vector(const void *ctx, FILE *out)
{
    const vector_ctx *v = ctx;
    const san_space *sp = v->sp;
    const san_model *m = sp->m;
    int64_t *order = malloc((sp->n ? sp->n : 1) * sizeof *order);
    int *s = malloc((m->naut + 1) * sizeof *s);
    if (!order || !s) {
        free(order);
        free(s);
        fprintf(stderr, "san solve: out of memory writing the vector\n");
        return;
    }
    for (int64_t i = 0; i < sp->n; i++)
        order[i] = i;
    sort_space = sp;
    qsort(order, sp->n, sizeof *order, by_index);
    fprintf(out, "index");
    for (int a = 0; a < m->naut; a++)
        fprintf(out, ",%s", m->aut[a].name);
    fprintf(out, ",probability\n");
    for (int64_t k = 0; k < sp->n; k++) {
        int64_t i = order[k];
        san_state_decode(m, sp->index[i], s);
        fprintf(out, "%lld", (long long)sp->index[i]);
        for (int a = 0; a < m->naut; a++)
            fprintf(out, ",%s", m->aut[a].states[s[a]]);
        fprintf(out, ",%.17g\n", v->pi[i]);
    }
    free(order);
    free(s);
}

/* ---- the command ---- */

typedef struct {
    san_solve_opts so;
    san_storage storage;
    san_space_opts po;
    cli_format fmt;
    const char *vector, *gen;
    int top, quiet;
    cli_defines defs;
} solve_args;

static int parse_args(int argc, char **argv, solve_args *A)
{
    static const struct option longopts[] = {
        { "method", required_argument, NULL, 'm' },
        { "tol", required_argument, NULL, 't' },
        { "max-iter", required_argument, NULL, 'i' },
        { "omega", required_argument, NULL, 'w' },
        { "restart", required_argument, NULL, 'r' },
        { "precond", required_argument, NULL, 'p' },
        { "time-limit", required_argument, NULL, 'T' },
        { "storage", required_argument, NULL, 'S' },
        { "max-memory", required_argument, NULL, 'M' },
        { "max-states", required_argument, NULL, 'N' },
        { "gen", required_argument, NULL, 'g' },
        { "format", required_argument, NULL, 'f' },
        { "top", required_argument, NULL, 'k' },
        { "vector", required_argument, NULL, 'v' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    int c;
    double x;
    optind = 1;
    while ((c = getopt_long(argc, argv, "m:f:D:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (san_method_parse(optarg, &A->so.method) < 0)
                return cli_usage_error("solve", "--method: unknown method '%s' (auto, direct, power, "
                                       "jacobi, gs, gmres, bicgstab)", optarg);
            break;
        case 't':
            if (parse_num(optarg, &A->so.tol, 1e-300, 1) < 0)
                return cli_usage_error("solve", "--tol: expected a number in (0, 1], not '%s'", optarg);
            break;
        case 'i':
            if (parse_num(optarg, &x, 1, 1e15) < 0 || x != floor(x))
                return cli_usage_error("solve", "--max-iter: expected a positive integer, not '%s'", optarg);
            A->so.max_iter = (long)x;
            break;
        case 'w':
            if (parse_num(optarg, &A->so.omega, 1e-6, 2 - 1e-6) < 0)
                return cli_usage_error("solve", "--omega: expected a number in (0, 2), not '%s'", optarg);
            break;
        case 'r':
            if (parse_num(optarg, &x, 1, 10000) < 0 || x != floor(x))
                return cli_usage_error("solve", "--restart: expected an integer in [1, 10000], not '%s'", optarg);
            A->so.restart = (int)x;
            break;
        case 'p':
            if (!strcmp(optarg, "ilu0"))
                A->so.precond = SAN_PC_ILU0;
            else if (!strcmp(optarg, "jacobi"))
                A->so.precond = SAN_PC_JACOBI;
            else if (!strcmp(optarg, "none"))
                A->so.precond = SAN_PC_NONE;
            else
                return cli_usage_error("solve", "--precond: expected ilu0, jacobi or none, not '%s'", optarg);
            break;
        case 'T':
            if (parse_num(optarg, &A->so.time_limit, 1e-6, 1e9) < 0)
                return cli_usage_error("solve", "--time-limit: expected seconds > 0, not '%s'", optarg);
            break;
        case 'S':
            if (!strcmp(optarg, "sparse"))
                A->storage = SAN_STORAGE_SPARSE;
            else if (!strcmp(optarg, "kron"))
                A->storage = SAN_STORAGE_KRON;
            else if (!strcmp(optarg, "auto"))
                A->storage = SAN_STORAGE_AUTO;
            else
                return cli_usage_error("solve", "--storage: expected sparse, kron or auto, not '%s'",
                                       optarg);
            break;
        case 'M':
            if (parse_bytes(optarg, &A->po.max_memory) < 0)
                return cli_usage_error("solve", "--max-memory: expected a size like 4G or 512M, not '%s'", optarg);
            break;
        case 'N':
            if (parse_num(optarg, &x, 1, 9e18) < 0 || x != floor(x))
                return cli_usage_error("solve", "--max-states: expected a positive integer, not '%s'", optarg);
            A->po.max_states = (int64_t)x;
            break;
        case 'g':
            A->gen = optarg;
            break;
        case 'f':
            if (cli_parse_format(optarg, &A->fmt, 1) < 0)
                return cli_usage_error("solve", "--format: expected text, json or csv, not '%s'", optarg);
            break;
        case 'k':
            if (parse_num(optarg, &x, 0, 1000000) < 0 || x != floor(x))
                return cli_usage_error("solve", "--top: expected an integer >= 0, not '%s'", optarg);
            A->top = (int)x;
            break;
        case 'v':
            A->vector = optarg;
            break;
        case 'D':
            if (cli_define_add(&A->defs, optarg) < 0)
                return cli_usage_error("solve", "-D: expected NAME=NUMBER, not '%s'", optarg);
            break;
        case 'q':
            A->quiet = 1;
            break;
        case 'h':
            help_solve(stdout);
            return -1;
        default:
            return cli_usage_error("solve", "unknown option");
        }
    }
    if (A->gen && optind != argc)
        return cli_usage_error("solve", "--gen replaces MODEL; give one or the other");
    if (!A->gen && optind != argc - 1)
        return cli_usage_error("solve", optind >= argc ? "missing MODEL" : "expected one MODEL");
    return 0;
}

static san_model *load(solve_args *A, const char *path, int *status)
{
    if (!A->gen)
        return cli_load_model(path, &A->defs, status, 0);
    char *copy = strdup(A->gen), **argv = NULL;
    int argc = copy ? split_words(copy, &argv) : 0;
    char err[512] = "";
    char *text = NULL;
    if (argc > 0)
        san_gen(argc, argv, &text, NULL, err, sizeof err);
    if (!text) {
        fprintf(stderr, "san solve: --gen: %s\n", argc > 0 ? err : "expected a template, e.g. 'ms --slaves 3'");
        free(copy);
        free(argv);
        *status = EXIT_USAGE;
        return NULL;
    }
    san_model *m = cli_load_text("<gen>", text, strlen(text), &A->defs, status, 0);
    free(text);
    free(copy);
    free(argv);
    return m;
}

int cmd_solve(int argc, char **argv)
{
    solve_args A;
    memset(&A, 0, sizeof A);
    san_solve_opts_default(&A.so);
    A.fmt = FMT_TEXT;
    A.top = 10;
    int rc = parse_args(argc, argv, &A);
    if (rc) {
        cli_defines_free(&A.defs);
        return rc < 0 ? EXIT_OK : rc;
    }
    double t0 = now();
    int status = EXIT_OK;
    const char *path = A.gen ? "<gen>" : argv[optind];
    san_model *m = load(&A, path, &status);
    cli_defines_free(&A.defs);
    if (!m)
        return status;

    signal(SIGINT, on_sigint);
    int progress = !A.quiet && cli_stderr_is_tty();
    san_analysis_opts ao;
    san_analysis_opts_default(&ao);
    ao.space = A.po;
    ao.space.progress = progress;
    ao.space.interrupt = &interrupted;
    ao.solve = A.so;
    ao.solve.progress = progress;
    ao.solve.interrupt = &interrupted;
    ao.solve.time_limit = 0;            /* the pipeline gives it what is left */
    ao.time_limit = A.so.time_limit;
    ao.storage = A.storage;
    ao.ntop = A.top;
    san_diag d;
    san_diag_init(&d, strcmp(path, "-") ? path : "<stdin>", NULL, 0);
    san_analysis a;
    san_status st = san_analyze(m, &ao, &a, &d);
    san_diag_print(&d, stderr, cli_stderr_is_tty());
    san_diag_free(&d);
    if (!a.have_indices) {
        if (a.have_sol && a.sol.info.msg[0])
            fprintf(stderr, "san solve: %s\n", a.sol.info.msg);
        san_analysis_free(&a);
        san_model_free(m);
        return cli_exit_status(st);
    }
    report r = { m, &a.sp, &a.sol, path, a.t_solve, now() - t0, A.so.method == SAN_M_AUTO,
                 a.kron, a.kron_bytes, a.other_bytes, A.so.tol };
    if (A.fmt == FMT_JSON)
        json_report(&r);
    else if (A.fmt == FMT_CSV)
        csv_report(&r);
    else
        text_report(&r);
    fflush(stdout);
    if (st != SAN_OK) {
        fprintf(stderr, "san solve: %s\n", a.sol.info.msg[0] ? a.sol.info.msg : "not converged");
        status = cli_exit_status(st);
    }
    if (interrupted && status == EXIT_OK) {
        fprintf(stderr, "san solve: interrupted\n");
        status = EXIT_FAIL;
    }
    if (A.vector && status == EXIT_OK) {
        vector_ctx v = { &a.sp, a.sol.pi };
        status = cli_write_output(A.vector, write_vector, &v);
    }
    san_analysis_free(&a);
    san_model_free(m);
    return status;
}
