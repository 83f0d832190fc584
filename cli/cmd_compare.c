/*
 * cmd_compare.c - `san compare A B ...`: two or more models, or generator
 * command lines, solved and shown side by side with their differences.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

void help_compare(FILE *out)
{
    fprintf(out,
        "usage: san compare [options] A B [C...]\n"
        "\n"
        "Solve each model and show the results and the marginal probabilities of\n"
        "the local states side by side, with the difference of each model to the\n"
        "first (and the relative difference when there are two).  A model is a\n"
        ".san file, or a quoted generator command line:\n"
        "\n"
        "  san compare 'ms --mode sync --slaves 5' 'ms --mode async --slaves 5 --buffer 1'\n"
        "  san compare models/mm1k.san 'models/mm1k.san -D lambda=3'\n"
        "\n"
        "options:\n"
        "  -D NAME=VALUE        override a constant in every model\n"
        "  -f, --format F       text (default), csv or json\n"
        "      --no-marginals   results only\n"
        "  -j, --jobs N, -m, --method M, --tol X, --max-iter N, --time-limit S,\n"
        "      --max-states N, --max-memory M   as san sweep\n"
        "\n"
        "Exit status: 0 all solved, 1 some failed, 2 bad usage.\n");
}

typedef struct {
    san_sweep_opts run;
    cli_format fmt;
    int marginals;
    int n;
    char **model;           /* the arguments, one per model */
    char *defs;             /* " -D A=1 -D B=2" added to every model */
} compare_args;

/* One model: its sweep of exactly one variant, and the solved row. */
typedef struct {
    san_sweep s;
    san_sweep_row row;
    char name[8];           /* A, B, ... */
} entry;

/* ------------------------------------------------------------------ */
/* Loading and solving                                                  */
/* ------------------------------------------------------------------ */

static int load_entry(const compare_args *A, int i, entry *e)
{
    snprintf(e->name, sizeof e->name, "%c%s", 'A' + i % 26, i >= 26 ? "'" : "");
    char *line = NULL;
    /* Quote a lone file name so that spaces in it survive the split. */
    int is_line = strpbrk(A->model[i], " \t") != NULL;
    if (asprintf(&line, is_line ? "%s%s" : "'%s'%s", A->model[i], A->defs ? A->defs : "") < 0)
        return EXIT_FAIL;
    char err[1024];
    int rc = san_sweep_init_line(&e->s, line, err, sizeof err);
    free(line);
    if (rc < 0)
        return rc == -2 ? cli_usage_error("compare", "%s: %s", e->name, err)
                        : (fprintf(stderr, "san compare: %s: %s\n", e->name, err), EXIT_FAIL);
    if (e->s.nvariants != 1)
        return cli_usage_error("compare", "%s: '%s' has %d variants; compare takes one model "
                               "each (san sweep compares families)", e->name, A->model[i],
                               e->s.nvariants);
    return 0;
}

typedef struct {
    entry *e;
    const san_sweep_opts *o;
} solve_job;

static void solve_entry(void *ctx, int i)
{
    solve_job *j = ctx;
    entry *e = &j->e[i];
    const char **vals = calloc(e->s.spec.naxes + 1, sizeof *vals);
    if (!vals) {
        e->row.error = strdup("out of memory");
        return;
    }
    for (int a = 0; a < e->s.spec.naxes; a++)
        vals[a] = e->s.pick[0][a] >= 0 ? e->s.spec.axis[a].values[e->s.pick[0][a]] : NULL;
    san_sweep_eval(&e->s.spec, vals, j->o, &e->row);
    free(vals);
}

/* ------------------------------------------------------------------ */
/* The lines of the comparison: results, then marginals                 */
/* ------------------------------------------------------------------ */

typedef struct {
    char *kind;             /* "result" or "marginal" */
    char *name;             /* result or automaton */
    char *state;            /* marginal: the local state */
} line_key;

static int value_of(const san_sweep_row *r, const line_key *k, double *v)
{
    if (!r->ok)
        return 0;
    if (!strcmp(k->kind, "result")) {
        for (int i = 0; i < r->nres; i++)
            if (!strcmp(r->res_name[i], k->name))
                return *v = r->res[i], 1;
        return 0;
    }
    for (int a = 0; a < r->naut; a++)
        if (!strcmp(r->aut_name[a], k->name))
            for (int s = 0; s < r->nstates[a]; s++)
                if (!strcmp(r->state_name[a][s], k->state))
                    return *v = r->marginal[a][s], 1;
    return 0;
}

static int add_key(line_key **keys, int *n, const char *kind, const char *name, const char *state)
{
    for (int i = 0; i < *n; i++)
        if (!strcmp((*keys)[i].kind, kind) && !strcmp((*keys)[i].name, name) &&
            !strcmp((*keys)[i].state, state))
            return 0;
    line_key *p = realloc(*keys, (*n + 1) * sizeof *p);
    if (!p)
        return -1;
    *keys = p;
    p[*n] = (line_key){ strdup(kind), strdup(name), strdup(state) };
    (*n)++;
    return 0;
}

/* Every result, then every marginal, of every model, in the order seen. */
static int collect_keys(const entry *e, int n, int marginals, line_key **keys)
{
    int nk = 0, rc = 0;
    *keys = NULL;
    for (int i = 0; i < n && rc == 0; i++)
        for (int r = 0; r < e[i].row.nres && rc == 0; r++)
            rc = add_key(keys, &nk, "result", e[i].row.res_name[r], "");
    for (int i = 0; marginals && i < n && rc == 0; i++)
        for (int a = 0; a < e[i].row.naut && rc == 0; a++)
            for (int s = 0; s < e[i].row.nstates[a] && rc == 0; s++)
                rc = add_key(keys, &nk, "marginal", e[i].row.aut_name[a], e[i].row.state_name[a][s]);
    return rc < 0 ? -1 : nk;
}

static void free_keys(line_key *k, int n)
{
    for (int i = 0; i < n; i++) {
        free(k[i].kind);
        free(k[i].name);
        free(k[i].state);
    }
    free(k);
}

/* ------------------------------------------------------------------ */
/* Output                                                               */
/* ------------------------------------------------------------------ */

static void text_header(const entry *e, int n, FILE *out)
{
    fprintf(out, "models\n");
    for (int i = 0; i < n; i++) {
        const san_sweep_row *r = &e[i].row;
        fprintf(out, "  %-3s %s\n", e[i].name, r->command ? r->command : "");
        if (r->ok)
            fprintf(out, "      %s product states, %lld reachable, %s, residual %.2g, %.3f s\n",
                    r->product, (long long)r->reachable, san_method_name(r->method), r->residual,
                    r->time_s);
        else
            fprintf(out, "      failed: %s\n", r->error ? r->error : "");
    }
}

static void text_line(const entry *e, int n, const line_key *k, int w, FILE *out)
{
    char label[256];
    if (!strcmp(k->kind, "result"))
        snprintf(label, sizeof label, "%s", k->name);
    else
        snprintf(label, sizeof label, "%s %s", k->name, k->state);
    fprintf(out, "  %-*s", w, label);
    double v0, v;
    int has0 = value_of(&e[0].row, k, &v0);
    for (int i = 0; i < n; i++) {
        if (value_of(&e[i].row, k, &v))
            fprintf(out, "  %14.8g", v);
        else
            fprintf(out, "  %14s", "-");
    }
    for (int i = 1; i < n; i++) {
        if (has0 && value_of(&e[i].row, k, &v))
            fprintf(out, "  %+14.6g", v - v0);
        else
            fprintf(out, "  %14s", "-");
    }
    if (n == 2 && has0 && value_of(&e[1].row, k, &v) && v0 != 0)
        fprintf(out, "  %+9.3g%%", 100 * (v - v0) / fabs(v0));
    fputc('\n', out);
}

static void text_columns(const entry *e, int n, int w, const char *title, FILE *out)
{
    fprintf(out, "\n%-*s", w + 2, title);
    for (int i = 0; i < n; i++)
        fprintf(out, "  %14s", e[i].name);
    for (int i = 1; i < n; i++) {
        char d[32];
        snprintf(d, sizeof d, "%s-%s", e[i].name, e[0].name);
        fprintf(out, "  %14s", d);
    }
    if (n == 2)
        fprintf(out, "  %10s", "relative");
    fputc('\n', out);
}

static void write_text(const entry *e, int n, const line_key *k, int nk, FILE *out)
{
    int w = 10;
    for (int i = 0; i < nk; i++) {
        int len = (int)(strlen(k[i].name) + strlen(k[i].state) + 1);
        w = len > w ? len : w;
    }
    text_header(e, n, out);
    const char *kind = "";
    for (int i = 0; i < nk; i++) {
        if (strcmp(kind, k[i].kind)) {
            kind = k[i].kind;
            text_columns(e, n, w, !strcmp(kind, "result") ? "results" : "marginals", out);
        }
        text_line(e, n, &k[i], w, out);
    }
}

static void csv_num(FILE *out, int have, double v)
{
    if (have && isfinite(v))
        fprintf(out, ",%.17g", v);
    else
        fputc(',', out);
}

static void write_csv(const entry *e, int n, const line_key *k, int nk, FILE *out)
{
    fputs("kind,name,state", out);
    for (int i = 0; i < n; i++)
        fprintf(out, ",%s", e[i].name);
    for (int i = 1; i < n; i++)
        fprintf(out, ",%s-%s", e[i].name, e[0].name);
    fputc('\n', out);
    for (int j = 0; j < nk; j++) {
        fprintf(out, "%s,%s,%s", k[j].kind, k[j].name, k[j].state);
        double v0, v;
        int has0 = value_of(&e[0].row, &k[j], &v0);
        for (int i = 0; i < n; i++) {
            int h = value_of(&e[i].row, &k[j], &v);
            csv_num(out, h, v);
        }
        for (int i = 1; i < n; i++) {
            int h = has0 && value_of(&e[i].row, &k[j], &v);
            csv_num(out, h, h ? v - v0 : 0);
        }
        fputc('\n', out);
    }
}

static void json_values(const entry *e, int n, const line_key *k, FILE *out)
{
    double v0, v;
    int has0 = value_of(&e[0].row, k, &v0);
    fputs("{ \"values\": [", out);
    for (int i = 0; i < n; i++) {
        if (value_of(&e[i].row, k, &v))
            fprintf(out, "%s%.17g", i ? ", " : "", v);
        else
            fprintf(out, "%snull", i ? ", " : "");
    }
    fputs("], \"differences\": [", out);
    for (int i = 1; i < n; i++) {
        if (has0 && value_of(&e[i].row, k, &v))
            fprintf(out, "%s%.17g", i > 1 ? ", " : "", v - v0);
        else
            fprintf(out, "%snull", i > 1 ? ", " : "");
    }
    fputs("] }", out);
}

static void write_json(const entry *e, int n, const line_key *k, int nk, FILE *out)
{
    fputs("{\n  \"models\": [", out);
    for (int i = 0; i < n; i++) {
        const san_sweep_row *r = &e[i].row;
        fprintf(out, "%s\n    { \"name\": \"%s\", \"command\": ", i ? "," : "", e[i].name);
        cli_json_string(out, r->command ? r->command : "");
        fprintf(out, ", \"ok\": %s, \"error\": ", r->ok ? "true" : "false");
        if (r->error)
            cli_json_string(out, r->error);
        else
            fputs("null", out);
        fprintf(out, ", \"product_states\": \"%s\", \"reachable_states\": %lld }",
                r->product ? r->product : "", (long long)r->reachable);
    }
    fputs("\n  ],\n  \"results\": {", out);
    int first = 1;
    for (int j = 0; j < nk; j++)
        if (!strcmp(k[j].kind, "result")) {
            fprintf(out, "%s\n    ", first ? "" : ",");
            first = 0;
            cli_json_string(out, k[j].name);
            fputs(": ", out);
            json_values(e, n, &k[j], out);
        }
    fputs("\n  },\n  \"marginals\": [", out);
    first = 1;
    for (int j = 0; j < nk; j++)
        if (!strcmp(k[j].kind, "marginal")) {
            fprintf(out, "%s\n    { \"automaton\": ", first ? "" : ",");
            first = 0;
            cli_json_string(out, k[j].name);
            fputs(", \"state\": ", out);
            cli_json_string(out, k[j].state);
            fputs(", \"p\": ", out);
            json_values(e, n, &k[j], out);
            fputs(" }", out);
        }
    fputs("\n  ]\n}\n", out);
}

/* ------------------------------------------------------------------ */
/* The command                                                          */
/* ------------------------------------------------------------------ */

static const char *const valued[] = {
    "-f", "--format", "-j", "--jobs", "-m", "--method", "--tol", "--max-iter", "--time-limit",
    "--max-states", "--max-memory", "--storage", NULL
};

static int add_define(compare_args *A, const char *def)
{
    char *t = NULL;
    if (asprintf(&t, "%s -D '%s'", A->defs ? A->defs : "", def) < 0)
        return EXIT_FAIL;
    free(A->defs);
    A->defs = t;
    return 0;
}

static int set_option(compare_args *A, const char *name, const char *val)
{
    char err[512];
    int rc = san_sweep_opts_set(&A->run, name, val, err, sizeof err);
    if (rc < 0)
        return cli_usage_error("compare", "%s", err);
    if (rc == 1 && cli_parse_format(val, &A->fmt, 1) < 0)
        return cli_usage_error("compare", "--format: expected text, csv or json, not '%s'", val);
    return 0;
}

static int parse_args(int argc, char **argv, compare_args *A)
{
    A->model = calloc(argc + 1, sizeof *A->model);
    if (!A->model)
        return EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        char name[64];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - a) : 63, a);
        int known = 0;
        for (int k = 0; valued[k]; k++)
            known |= !strcmp(valued[k], name);
        if (!strcmp(a, "--no-marginals")) {
            A->marginals = 0;
        } else if (!strcmp(a, "-D") || (!strncmp(a, "-D", 2) && a[2])) {
            const char *d = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
            if (!d || !strchr(d, '='))
                return cli_usage_error("compare", "-D: expected NAME=VALUE");
            if (add_define(A, d))
                return EXIT_FAIL;
        } else if (known) {
            const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!val)
                return cli_usage_error("compare", "%s: missing value", name);
            int rc = set_option(A, name, val);
            if (rc)
                return rc;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error("compare", "%s: unknown option (quote a generator line: "
                                   "'ms --mode async --slaves 3')", a);
        } else {
            A->model[A->n++] = argv[i];
        }
    }
    if (A->n < 2)
        return cli_usage_error("compare", "expected at least two models or generator lines");
    return 0;
}

static int compare_main(compare_args *A)
{
    entry *e = calloc(A->n, sizeof *e);
    if (!e)
        return EXIT_FAIL;
    int status = EXIT_OK, loaded = 0;
    for (; loaded < A->n && status == EXIT_OK; loaded++)
        status = load_entry(A, loaded, &e[loaded]);
    if (status == EXIT_OK) {
        A->run.marginals = 1;
        solve_job j = { e, &A->run };
        san_sweep_parallel(A->n, NULL, A->run.jobs, solve_entry, &j, NULL, 0, "models");
        line_key *keys;
        int nk = collect_keys(e, A->n, A->marginals, &keys);
        if (nk < 0) {
            status = EXIT_FAIL;
        } else {
            if (A->fmt == FMT_JSON)
                write_json(e, A->n, keys, nk, stdout);
            else if (A->fmt == FMT_CSV)
                write_csv(e, A->n, keys, nk, stdout);
            else
                write_text(e, A->n, keys, nk, stdout);
            fflush(stdout);
            free_keys(keys, nk);
        }
        for (int i = 0; i < A->n; i++)
            status = e[i].row.ok ? status : EXIT_FAIL;
    }
    for (int i = 0; i < loaded; i++) {
        san_sweep_row_free(&e[i].row);
        san_sweep_free(&e[i].s);
    }
    free(e);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    compare_args A;
    memset(&A, 0, sizeof A);
    san_sweep_opts_default(&A.run);
    A.fmt = FMT_TEXT;
    A.marginals = 1;
    int status = parse_args(argc, argv, &A);
    if (status == 0)
        status = compare_main(&A);
    free(A.model);
    free(A.defs);
    return status;
}
