/*
 * cmd_sweep.c - `san sweep`: solve every combination of some template
 * flags (or -D constants of a model) and report one row per variant,
 * optionally drawn as curves.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "cli.h"

void help_sweep(FILE *out)
{
    fprintf(out,
        "usage: san sweep TEMPLATE [template flags with several values] [options]\n"
        "       san sweep MODEL -D NAME=VALUES... [options]\n"
        "\n"
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
        "output:\n"
        "  -f, --format F       text (default; only the varying parameters), csv, json\n"
        "  -o, --output FILE    write the table to FILE\n"
        "      --index A,B      only these result columns\n"
        "      --no-times       leave the timing column out (to compare runs)\n"
        "      --plot FILE      draw curves into FILE.svg, .png or .pdf, with:\n"
        "      --x PARAM        the parameter on the x axis (numeric)\n"
        "      --y INDEX        a result (or reachable_states, time_s, iterations)\n"
        "      --series P,Q     one curve per value of these parameters (default:\n"
        "                       every other varying parameter)\n"
        "      --title TEXT     the plot's title\n"
        "run:\n"
        "  -j, --jobs N         variants at once (default: one per core)\n"
        "  -m, --method M       solver method, as san solve (auto)\n"
        "      --tol X, --max-iter N, --time-limit S\n"
        "      --max-states N, --max-memory M (default: 80%% of memory / jobs)\n"
        "      --warm           solve the variants along the innermost numeric\n"
        "                       parameter in order, each from the answer of the\n"
        "                       one before (fewer iterations, less parallelism)\n"
        "  -q, --quiet          no progress bar or summary on stderr\n"
        "\n"
        "examples:\n"
        "  san sweep ms --mode sync,async --slaves 2..7 --buffer 1,5,10,20,40 \\\n"
        "      --plot tx.svg --x slaves --y slave_transmitting\n"
        "  san sweep models/mm1k.san -D K=1..40 -D lambda=1,2,4 -f csv\n"
        "\n"
        "Exit status: 0 every variant solved, 1 some failed, 2 bad usage (bad\n"
        "range, unknown flag, index or parameter, every variant refused).\n");
    fprintf(out, "\nMPI: %s\n", san_sweep_mpi() ? "built in (mpirun -n P san sweep ...)"
                                                : "not built in (./configure --with-mpi)");
}

/* Set by SIGINT: the variants not yet finished stop and are reported as
 * interrupted.  A signal handler can only reach a static flag. */
static volatile int interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

typedef struct {
    san_sweep_opts run;
    cli_format fmt;
    const char *output, *plot, *x, *y, *series, *title, *index;
    int quiet, times;
    int nspec;
    char **spec;            /* template or model, then its flags */
} sweep_args;

/* Options of the command that take a value; everything else belongs to
 * the template (or is -D). */
static const char *const valued[] = {
    "-f", "--format", "-o", "--output", "--plot", "--x", "--y", "--series", "--title",
    "--index", "-j", "--jobs", "-m", "--method", "--tol", "--max-iter", "--time-limit",
    "--max-states", "--max-memory", "--storage", NULL
};

static int is_valued(const char *name)
{
    for (int i = 0; valued[i]; i++)
        if (!strcmp(valued[i], name))
            return 1;
    return 0;
}

static int set_option(sweep_args *A, const char *name, const char *val)
{
    char err[512];
    int rc = san_sweep_opts_set(&A->run, name, val, err, sizeof err);
    if (rc < 0)
        return cli_usage_error("sweep", "%s", err);
    if (rc == 0)
        return 0;
    if (!strcmp(name, "-f") || !strcmp(name, "--format")) {
        if (cli_parse_format(val, &A->fmt, 1) < 0)
            return cli_usage_error("sweep", "--format: expected text, csv or json, not '%s'", val);
    } else if (!strcmp(name, "-o") || !strcmp(name, "--output"))
        A->output = val;
    else if (!strcmp(name, "--plot"))
        A->plot = val;
    else if (!strcmp(name, "--x"))
        A->x = val;
    else if (!strcmp(name, "--y"))
        A->y = val;
    else if (!strcmp(name, "--series"))
        A->series = val;
    else if (!strcmp(name, "--title"))
        A->title = val;
    else if (!strcmp(name, "--index"))
        A->index = val;
    return 0;
}

/* Split our options from the template's flags, which may come in any
 * order after the template. */
static int parse_args(int argc, char **argv, sweep_args *A)
{
    A->spec = calloc(argc + 1, sizeof *A->spec);
    if (!A->spec)
        return EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char name[64];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : 63, a);
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            A->quiet = 1;
        } else if (!strcmp(a, "--no-times")) {
            A->times = 0;
        } else if (!strcmp(a, "--warm")) {
            A->run.warm_chains = 1;
        } else if (is_valued(name)) {
            const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val)
                return cli_usage_error("sweep", "%s: missing value", name);
            int rc = set_option(A, name, val);
            if (rc)
                return rc;
        } else {
            A->spec[A->nspec++] = argv[i];
        }
    }
    if (A->nspec == 0)
        return cli_usage_error("sweep", "missing template (ms, pipeline) or model file");
    if (A->plot && (!A->x || !A->y))
        return cli_usage_error("sweep", "--plot: give --x PARAM and --y INDEX as well");
    if (!A->plot && (A->x || A->y || A->series))
        return cli_usage_error("sweep", "%s: only with --plot FILE", A->x ? "--x" : A->y ? "--y" : "--series");
    return 0;
}

/* ---- checks that need the variants' result names, before solving ---- */

static int check_index_list(const san_sweep *s, const char *list, char ***names, int *n)
{
    char *copy = strdup(list);
    *names = calloc(strlen(list) + 2, sizeof **names);
    *n = 0;
    if (!copy || !*names) {
        free(copy);
        return EXIT_FAIL;
    }
    for (char *t = strtok(copy, ","); t; t = strtok(NULL, ",")) {
        if (san_sweep_find_result(s, t) < 0) {
            cli_usage_error("sweep", "--index: unknown index '%s' (see the results of the model)", t);
            free(copy);
            return EXIT_USAGE;
        }
        (*names)[(*n)++] = strdup(t);
    }
    free(copy);
    return 0;
}

static int check_plot(const san_sweep *s, const sweep_args *A)
{
    const char *dot = strrchr(A->plot, '.');
    if (!dot || (strcasecmp(dot, ".svg") && strcasecmp(dot, ".png") && strcasecmp(dot, ".pdf")))
        return cli_usage_error("sweep", "--plot: '%s': the file name must end in .svg, .png or .pdf",
                               A->plot);
    int a = san_sweep_find_axis(s, A->x);
    if (a < 0)
        return cli_usage_error("sweep", "--x: unknown parameter '%s' (a swept flag without "
                               "dashes, e.g. slaves, or a -D name)", A->x);
    if (!s->spec.axis[a].numeric)
        return cli_usage_error("sweep", "--x: '%s' is not numeric; use it as --series", A->x);
    const char *fields[] = { "reachable_states", "time_s", "iterations" };
    int known = san_sweep_find_result(s, A->y) >= 0;
    for (int i = 0; i < 3; i++)
        known |= !strcmp(A->y, fields[i]);
    if (!known)
        return cli_usage_error("sweep", "--y: unknown index '%s' (a result of the model, or "
                               "reachable_states, time_s, iterations)", A->y);
    char *copy = A->series ? strdup(A->series) : NULL;
    for (char *t = copy ? strtok(copy, ",") : NULL; t; t = strtok(NULL, ","))
        if (san_sweep_find_axis(s, t) < 0) {
            cli_usage_error("sweep", "--series: unknown parameter '%s'", t);
            free(copy);
            return EXIT_USAGE;
        }
    free(copy);
    return 0;
}

/* ---- output ---- */

typedef struct {
    const san_sweep *s;
    san_sweep_format f;
    char **only;
    int nonly, times;
} table_ctx;

static void write_table(const void *ctx, FILE *out)
{
    const table_ctx *t = ctx;
    san_sweep_write(t->s, t->f, t->only, t->nonly, t->times, out);
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
    san_sweep_format f = A->fmt == FMT_CSV ? SAN_SWEEP_CSV : A->fmt == FMT_JSON ? SAN_SWEEP_JSON
                                                                             : SAN_SWEEP_TEXT;
    table_ctx tc = { s, f, only, nonly, A->times };
    int status = cli_write_output(A->output, write_table, &tc);
    if (A->plot && status == EXIT_OK) {
        char err[512];
        int rc = san_sweep_plot(s, A->plot, A->x, A->y, A->series, A->title, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "san sweep: %s\n", err);
            status = rc == -2 ? EXIT_USAGE : EXIT_FAIL;
        }
    }
    int failed = failed_rows(s);
    if (!A->quiet)
        fprintf(stderr, "san sweep: %d variant%s, %d solved, %d failed, %.2f s (%.2f variants/s)\n",
                s->nvariants, s->nvariants == 1 ? "" : "s", s->nvariants - failed, failed, t,
                t > 0 ? s->nvariants / t : 0.0);
    return status != EXIT_OK ? status : failed ? EXIT_FAIL : EXIT_OK;
}

static int sweep_main(sweep_args *A)
{
    char err[1024];
    san_sweep s;
    int rc = san_sweep_init(&s, A->nspec, A->spec, err, sizeof err);
    if (rc < 0) {
        if (rc == -2)
            return cli_usage_error("sweep", "%s", err);
        fprintf(stderr, "san sweep: %s\n", err);
        return EXIT_FAIL;
    }
    char **only = NULL;
    int nonly = 0, status = A->index ? check_index_list(&s, A->index, &only, &nonly) : 0;
    if (!status && A->plot)
        status = check_plot(&s, A);
    if (!status) {
        signal(SIGINT, on_sigint);
        A->run.interrupt = &interrupted;
        A->run.progress = !A->quiet && cli_stderr_is_tty();
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        rc = san_sweep_run(&s, &A->run);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double t = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        if (rc < 0) {
            fprintf(stderr, "san sweep: out of memory\n");
            status = EXIT_FAIL;
        } else if (rc == 0) {
            status = report(&s, A, only, nonly, t);
        }       /* rc 1: an MPI rank other than 0 says nothing */
    }
    for (int i = 0; i < nonly; i++)
        free(only[i]);
    free(only);
    san_sweep_free(&s);
    return status;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    A.fmt = FMT_TEXT;
    A.times = 1;
    int status = parse_args(argc, argv, &A);
    if (status == 0)
        status = sweep_main(&A);
    free(A.spec);
    return status;
}
