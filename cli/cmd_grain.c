/*
 * cmd_grain.c - `san grain`: the granularity indices of a master/slave
 * program per grain (slices per node) and per configuration, and the
 * grain to use.
 *
 * The paper's criterion (004, section 6.3): the master is the bottleneck
 * when it spends its time transmitting tasks, so the best grain keeps it
 * least in Tx.  Coarser grain always sends fewer tasks, so the criterion
 * alone would always pick the coarsest; it applies among the grains that
 * keep the slaves busy (efficiency within --busy of the best), which is
 * what a too coarse grain loses first.
 */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void help_grain(FILE *out)
{
    fprintf(out,
        "usage: san grain ms --slices-per-node 1..6 [--slaves 2..7] [template flags] [options]\n"
        "\n"
        "Solve the master/slave model for every grain (slices per node, or\n"
        "--slices) and configuration, print the granularity indices (master in\n"
        "Rx and Tx, granularity_index, slave efficiency, idle and transmitting,\n"
        "throughputs, and execution_time with --work slices), and recommend per\n"
        "configuration the grain that keeps the master least in Tx among those\n"
        "that keep the slaves busy, with the reasons.  --mode defaults to async.\n"
        "\n"
        "options:\n"
        "      --busy X         slaves stay busy: efficiency within X (relative) of\n"
        "                       the best grain's (default 0.01)\n"
        "  -f, --format F       text (default) or json\n"
        "      --plot FILE      master_rx (or --y INDEX) against the slaves, one\n"
        "                       curve per grain, as .svg, .png or .pdf\n"
        "      --y INDEX        the index to plot (default master_rx)\n"
        "  -j, --jobs N, -m, --method M, --tol X, --max-iter N, --time-limit S,\n"
        "      --max-states N, --max-memory M, -q, --quiet   as san sweep\n"
        "\n"
        "example:\n"
        "  san grain ms --slices-per-node 1..6 --slaves 2..7\n"
        "\n"
        "Exit status: 0 success, 1 some variant failed, 2 bad usage.\n");
}

static volatile int interrupted;        /* SIGINT; see cmd_sweep.c */

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* The indices shown per grain, in this order. */
static const char *const shown[] = {
    "master_rx", "master_tx", "granularity_index", "efficiency", "slave_idle",
    "slave_transmitting", "task_throughput", "pack_throughput", "execution_time", NULL
};

typedef struct {
    san_sweep_opts run;
    cli_format fmt;
    const char *plot, *y;
    double busy;
    int quiet;
    int nspec;
    char **spec;
} grain_args;

static int result(const san_sweep_row *r, const char *name, double *v)
{
    for (int i = 0; r->ok && i < r->nres; i++)
        if (!strcmp(r->res_name[i], name)) {
            *v = r->res[i];
            return 1;
        }
    return 0;
}

static double res_or_nan(const san_sweep_row *r, const char *name)
{
    double v;
    return result(r, name, &v) ? v : NAN;
}

/* ------------------------------------------------------------------ */
/* Groups: the rows that differ only by their grain                      */
/* ------------------------------------------------------------------ */

static int same_group(const san_sweep *s, int g, int v, int w)
{
    for (int a = 0; a < s->spec.naxes; a++)
        if (a != g && s->pick[v][a] != s->pick[w][a])
            return 0;
    return 1;
}

/* "slaves=3": the other varying parameters. */
static void group_label(const san_sweep *s, int g, int v, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int a = 0; a < s->spec.naxes && k < n; a++) {
        const san_sweep_axis *ax = &s->spec.axis[a];
        if (a == g || ax->nvalues < 2 || s->pick[v][a] < 0)
            continue;
        k += snprintf(buf + k, n - k, "%s%s=%s", k ? ", " : "", ax->name, ax->values[s->pick[v][a]]);
    }
    if (!k)
        snprintf(buf, n, "%s", s->spec.tmpl);
}

/* The recommendation for one group: members[0..n) are variant numbers. */
typedef struct {
    int best;               /* the variant recommended, -1 when none solved */
    double best_eff;        /* the best efficiency in the group */
    double floor_eff;       /* efficiency the slaves must keep */
    int fastest;            /* least execution_time, -1 without it */
} choice;

static choice recommend(const san_sweep *s, const int *mem, int n, double busy)
{
    choice c = { -1, -INFINITY, 0, -1 };
    for (int i = 0; i < n; i++) {
        double e;
        if (result(&s->rows[mem[i]], "efficiency", &e) && e > c.best_eff)
            c.best_eff = e;
    }
    c.floor_eff = c.best_eff * (1 - busy);
    double tx_min = INFINITY, t_min = INFINITY;
    for (int i = 0; i < n; i++) {
        const san_sweep_row *r = &s->rows[mem[i]];
        double e, tx, t;
        if (result(r, "efficiency", &e) && e >= c.floor_eff && result(r, "master_tx", &tx) &&
            tx < tx_min) {
            tx_min = tx;
            c.best = mem[i];
        }
        if (result(r, "execution_time", &t) && t < t_min) {
            t_min = t;
            c.fastest = mem[i];
        }
    }
    return c;
}

/* ------------------------------------------------------------------ */
/* Text                                                                 */
/* ------------------------------------------------------------------ */

static const char *grain_of(const san_sweep *s, int g, int v)
{
    return s->spec.axis[g].values[s->pick[v][g]];
}

static void text_table(const san_sweep *s, int g, const int *mem, int n, FILE *out)
{
    fprintf(out, "  %-6s", "grain");
    for (int k = 0; shown[k]; k++)
        if (san_sweep_find_result(s, shown[k]) >= 0)
            fprintf(out, "  %12.12s", shown[k]);
    fputc('\n', out);
    for (int i = 0; i < n; i++) {
        const san_sweep_row *r = &s->rows[mem[i]];
        fprintf(out, "  %-6s", grain_of(s, g, mem[i]));
        if (!r->ok) {
            fprintf(out, "  failed: %s\n", r->error ? r->error : "");
            continue;
        }
        for (int k = 0; shown[k]; k++)
            if (san_sweep_find_result(s, shown[k]) >= 0)
                fprintf(out, "  %12.6g", res_or_nan(r, shown[k]));
        fputc('\n', out);
    }
}

/* Why the recommended grain, and why not each of the others. */
static void text_reasons(const san_sweep *s, int g, const int *mem, int n, choice c,
                         double busy, FILE *out)
{
    const char *unit = s->spec.axis[g].name;
    if (c.best < 0) {
        fprintf(out, "  no recommendation: no grain solved\n");
        return;
    }
    const san_sweep_row *b = &s->rows[c.best];
    fprintf(out, "  recommended: %s = %s: the master is least in Tx (%.6g) among the grains "
            "whose slaves stay busy (efficiency %.6g, the best is %.6g; kept: >= %.6g, "
            "within %g%%)\n", unit, grain_of(s, g, c.best), res_or_nan(b, "master_tx"),
            res_or_nan(b, "efficiency"), c.best_eff, c.floor_eff, 100 * busy);
    for (int i = 0; i < n; i++) {
        const san_sweep_row *r = &s->rows[mem[i]];
        if (mem[i] == c.best || !r->ok)
            continue;
        double e = res_or_nan(r, "efficiency");
        if (e < c.floor_eff)
            fprintf(out, "    %s = %s: slaves not busy enough (efficiency %.6g < %.6g)\n", unit,
                    grain_of(s, g, mem[i]), e, c.floor_eff);
        else
            fprintf(out, "    %s = %s: master more in Tx (%.6g > %.6g)\n", unit,
                    grain_of(s, g, mem[i]), res_or_nan(r, "master_tx"), res_or_nan(b, "master_tx"));
    }
    if (c.fastest >= 0)
        fprintf(out, "  shortest predicted execution: %s = %s (execution_time %.6g)\n", unit,
                grain_of(s, g, c.fastest), res_or_nan(&s->rows[c.fastest], "execution_time"));
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */
/* ------------------------------------------------------------------ */

static void json_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.17g", v);
    else
        fputs("null", out);
}

static void json_group(const san_sweep *s, int g, const int *mem, int n, choice c,
                       const char *label, FILE *out)
{
    fputs("    { \"configuration\": ", out);
    cli_json_string(out, label);
    fputs(", \"recommended\": ", out);
    if (c.best >= 0)
        cli_json_string(out, grain_of(s, g, c.best));
    else
        fputs("null", out);
    fputs(", \"fastest\": ", out);
    if (c.fastest >= 0)
        cli_json_string(out, grain_of(s, g, c.fastest));
    else
        fputs("null", out);
    fputs(",\n      \"grains\": [", out);
    for (int i = 0; i < n; i++) {
        const san_sweep_row *r = &s->rows[mem[i]];
        fprintf(out, "%s\n        { \"grain\": ", i ? "," : "");
        cli_json_string(out, grain_of(s, g, mem[i]));
        fputs(", \"error\": ", out);
        if (r->error)
            cli_json_string(out, r->error);
        else
            fputs("null", out);
        for (int k = 0; shown[k]; k++)
            if (san_sweep_find_result(s, shown[k]) >= 0) {
                fprintf(out, ", \"%s\": ", shown[k]);
                json_num(out, res_or_nan(r, shown[k]));
            }
        fputs(" }", out);
    }
    fputs(" ] }", out);
}

/* ------------------------------------------------------------------ */
/* The report                                                           */
/* ------------------------------------------------------------------ */

/* One line per configuration: the grain to use, for a quick read. */
static void summary(const san_sweep *s, int g, const grain_args *A, FILE *out, int *mem,
                    char *seen)
{
    memset(seen, 0, s->nvariants + 1);
    fprintf(out, "recommended %s:", s->spec.axis[g].name);
    for (int v = 0, first = 1; v < s->nvariants; v++) {
        if (seen[v])
            continue;
        int n = 0;
        for (int w = v; w < s->nvariants; w++)
            if (!seen[w] && same_group(s, g, v, w)) {
                seen[w] = 1;
                mem[n++] = w;
            }
        char label[512];
        group_label(s, g, v, label, sizeof label);
        choice c = recommend(s, mem, n, A->busy);
        fprintf(out, "%s %s: %s", first ? "" : ";", label, c.best >= 0 ? grain_of(s, g, c.best) : "none");
        first = 0;
    }
    fputc('\n', out);
}

static void report(const san_sweep *s, int g, const grain_args *A, FILE *out)
{
    int *mem = malloc((s->nvariants + 1) * sizeof *mem);
    char *seen = calloc(s->nvariants + 1, 1);
    if (!mem || !seen) {
        free(mem);
        free(seen);
        return;
    }
    if (A->fmt == FMT_JSON)
        fprintf(out, "{\n  \"grain\": \"%s\",\n  \"busy\": %.17g,\n  \"configurations\": [\n",
                s->spec.axis[g].name, A->busy);
    int groups = 0;
    for (int v = 0; v < s->nvariants; v++) {
        if (seen[v])
            continue;
        int n = 0;
        for (int w = v; w < s->nvariants; w++)
            if (!seen[w] && same_group(s, g, v, w)) {
                seen[w] = 1;
                mem[n++] = w;
            }
        char label[512];
        group_label(s, g, v, label, sizeof label);
        choice c = recommend(s, mem, n, A->busy);
        if (A->fmt == FMT_JSON) {
            fputs(groups ? ",\n" : "", out);
            json_group(s, g, mem, n, c, label, out);
        } else {
            fprintf(out, "%s\n", label);
            text_table(s, g, mem, n, out);
            text_reasons(s, g, mem, n, c, A->busy, out);
            fputc('\n', out);
        }
        groups++;
    }
    if (A->fmt == FMT_JSON)
        fputs("\n  ]\n}\n", out);
    else
        summary(s, g, A, out, mem, seen);
    free(mem);
    free(seen);
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

static const char *const valued[] = {
    "--busy", "-f", "--format", "--plot", "--y", "-j", "--jobs", "-m", "--method", "--tol",
    "--max-iter", "--time-limit", "--max-states", "--max-memory", "--storage", NULL
};

static int set_option(grain_args *A, const char *name, const char *val)
{
    char err[512];
    int rc = san_sweep_opts_set(&A->run, name, val, err, sizeof err);
    if (rc < 0)
        return cli_usage_error("grain", "%s", err);
    if (rc == 0)
        return 0;
    if (!strcmp(name, "--busy")) {
        char *end;
        A->busy = strtod(val, &end);
        if (end == val || *end || !(A->busy >= 0 && A->busy < 1))
            return cli_usage_error("grain", "--busy: expected a number in [0, 1), not '%s'", val);
    } else if (!strcmp(name, "--plot")) {
        A->plot = val;
    } else if (!strcmp(name, "--y")) {
        A->y = val;
    } else if (cli_parse_format(val, &A->fmt, 0) < 0) {
        return cli_usage_error("grain", "--format: expected text or json, not '%s'", val);
    }
    return 0;
}

static int parse_args(int argc, char **argv, grain_args *A)
{
    A->spec = calloc(argc + 3, sizeof *A->spec);
    if (!A->spec)
        return EXIT_FAIL;
    int has_mode = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        char name[64];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : 63, a);
        int known = 0;
        for (int k = 0; valued[k]; k++)
            known |= !strcmp(valued[k], name);
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            A->quiet = 1;
        } else if (known) {
            const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val)
                return cli_usage_error("grain", "%s: missing value", name);
            int rc = set_option(A, name, val);
            if (rc)
                return rc;
        } else {
            has_mode |= !strcmp(name, "--mode");
            A->spec[A->nspec++] = argv[i];
        }
    }
    if (A->nspec == 0 || strcmp(A->spec[0], "ms"))
        return cli_usage_error("grain", "expected the master/slave template: san grain ms ...");
    if (!has_mode) {
        A->spec[A->nspec++] = "--mode";
        A->spec[A->nspec++] = "async";
    }
    return 0;
}

static int grain_axis(const san_sweep *s)
{
    int g = san_sweep_find_axis(s, "--slices-per-node");
    return g >= 0 ? g : san_sweep_find_axis(s, "--slices");
}

static int plot(const san_sweep *s, int g, const grain_args *A)
{
    const char *y = A->y ? A->y : "master_rx";
    int x = san_sweep_find_axis(s, "--slaves");
    const char *xname = x >= 0 && s->spec.axis[x].nvalues > 1 ? "slaves" : s->spec.axis[g].name;
    char err[512];
    int rc = san_sweep_plot(s, A->plot, xname, y, s->spec.axis[g].name, NULL, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "san grain: %s\n", err);
    return rc == 0 ? EXIT_OK : rc == -2 ? EXIT_USAGE : EXIT_FAIL;
}

static int grain_main(grain_args *A)
{
    char err[1024];
    san_sweep s;
    int rc = san_sweep_init(&s, A->nspec, A->spec, err, sizeof err);
    if (rc < 0)
        return rc == -2 ? cli_usage_error("grain", "%s", err)
                        : (fprintf(stderr, "san grain: %s\n", err), EXIT_FAIL);
    int g = grain_axis(&s), status = EXIT_OK;
    if (g < 0)
        status = cli_usage_error("grain", "--slices-per-node: give the grains to compare, e.g. "
                                 "--slices-per-node 1..6 (or --slices)");
    else if (A->y && san_sweep_find_result(&s, A->y) < 0)
        status = cli_usage_error("grain", "--y: unknown index '%s'", A->y);
    if (status == EXIT_OK) {
        signal(SIGINT, on_sigint);
        A->run.interrupt = &interrupted;
        A->run.progress = !A->quiet && cli_stderr_is_tty();
        rc = san_sweep_run(&s, &A->run);
        if (rc < 0)
            status = EXIT_FAIL;
        else if (rc == 0) {
            report(&s, g, A, stdout);
            fflush(stdout);
            for (int v = 0; v < s.nvariants; v++)
                status = s.rows[v].ok ? status : EXIT_FAIL;
            if (A->plot) {
                int prc = plot(&s, g, A);
                status = prc ? prc : status;
            }
        }
    }
    san_sweep_free(&s);
    return status;
}

int cmd_grain(int argc, char **argv)
{
    grain_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    A.fmt = FMT_TEXT;
    A.busy = 0.01;
    int status = parse_args(argc, argv, &A);
    if (status == 0)
        status = grain_main(&A);
    free(A.spec);
    return status;
}
