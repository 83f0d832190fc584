/*
 * opts.c - what the subcommands share besides their option tables
 * (options.c): formats, -D definitions, model loading with diagnostics,
 * output helpers.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

int cli_parse_format(const char *s, cli_format *f, int allow_csv)
{
    if (!strcmp(s, "text"))
        *f = FMT_TEXT;
    else if (!strcmp(s, "json"))
        *f = FMT_JSON;
    else if (allow_csv && !strcmp(s, "csv"))
        *f = FMT_CSV;
    else
        return -1;
    return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "san %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee 'san %s --help'\n", cmd);
    return EXIT_USAGE;
}

int cli_define_add(cli_defines *d, const char *name, size_t len, double v)
{
    if (d->n == d->cap) {
        int cap = d->cap ? 2 * d->cap : 8;
        san_define *p = realloc(d->defs, cap * sizeof *p);
        if (!p)
            return -1;
        d->defs = p;
        d->cap = cap;
    }
    char *copy = strndup(name, len);
    if (!copy)
        return -1;
    d->defs[d->n].name = copy;
    d->defs[d->n].value = v;
    d->defs[d->n].used = 0;
    d->n++;
    return 0;
}

void cli_defines_free(cli_defines *d)
{
    for (int i = 0; i < d->n; i++)
        free((char *)d->defs[i].name);
    free(d->defs);
    d->defs = NULL;
    d->n = d->cap = 0;
}

int cli_stderr_is_tty(void)
{
    return isatty(2);
}

san_model *cli_load_text(const char *name, char *text, size_t len,
                         cli_defines *defs, int *status, int quiet_warnings)
{
    san_diag d;
    san_diag_init(&d, name, text, len);
    san_load_opts opt = { 0 };
    opt.peps_warnings = 1;
    opt.progress = cli_stderr_is_tty();
    if (defs) {
        opt.defs = defs->defs;
        opt.ndefs = defs->n;
    }
    san_model *m = san_model_load(text, len, &d, &opt);
    if (!m || d.nerrors || !quiet_warnings)
        san_diag_print(&d, stderr, isatty(2));
    if (m && defs) {
        for (int i = 0; i < defs->n; i++)
            if (!defs->defs[i].used) {
                fprintf(stderr, "san: -D %s: the model has no constant named '%s'\n",
                        defs->defs[i].name, defs->defs[i].name);
                san_model_free(m);
                m = NULL;
                break;
            }
    }
    if (!m)
        *status = EXIT_USAGE;
    san_diag_free(&d);
    return m;
}

int cli_read_model(const char *path, double max_input, double max_memory, char **text,
                   size_t *len)
{
    double asked = max_input > 0 ? max_input : SAN_MAX_INPUT_DEFAULT;
    double limit = max_memory > 0 && max_memory < asked ? max_memory : asked;
    char msg[1024];
    san_status st = san_read_input(path, limit, text, len, msg, sizeof msg);
    if (st == SAN_OK)
        return EXIT_OK;
    if (st == SAN_E_INPUT && errno == EFBIG)
        fprintf(stderr, "san: %s; raise %s\n", msg, limit < asked ? "--max-memory" : "--max-input");
    else
        fprintf(stderr, "san: %s\n", msg);
    return cli_exit_status(st);
}

san_model *cli_load_model(const char *path, cli_defines *defs, int *status,
                          int quiet_warnings, double max_input, double max_memory)
{
    size_t len;
    char *text;
    int rc = cli_read_model(path, max_input, max_memory, &text, &len);
    if (rc != EXIT_OK) {
        *status = rc;
        return NULL;
    }
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    san_model *m = cli_load_text(name, text, len, defs, status, quiet_warnings);
    free(text);
    return m;
}

/* The model text with results appended in one of the three places a
 * results entry can go: a new block (the model has none), after a last
 * entry ended by ';', or after one that is not (the grammar allows the
 * last without it).  variant 0, 1, 2; NULL when out of memory. */
static char *with_results(const char *text, size_t len, int variant, const char *const *names,
                          const char *const *exprs, int n, size_t *outlen)
{
    static const char *const head[3] = { "\nresults\n", "\n", ";\n" };
    size_t need = len + 16;
    for (int i = 0; i < n; i++)
        need += strlen(names[i]) + strlen(exprs[i]) + 16;
    char *t = malloc(need);
    if (!t)
        return NULL;
    memcpy(t, text, len);
    size_t k = len;
    k += (size_t)sprintf(t + k, "%s", head[variant]);
    for (int i = 0; i < n; i++)
        k += (size_t)sprintf(t + k, "  %s = (%s);\n", names[i], exprs[i]);
    *outlen = k;
    return t;
}

/* Does the text compile with constant results in this variant? */
static int variant_fits(const char *text, size_t len, int variant, cli_defines *defs)
{
    static const char *const probe_name[1] = { "__san_probe" }, *const probe[1] = { "0" };
    size_t l;
    char *t = with_results(text, len, variant, probe_name, probe, 1, &l);
    if (!t)
        return 0;
    san_diag d;
    san_diag_init(&d, "", t, l);
    san_load_opts opt = { 0 };
    if (defs) {
        opt.defs = defs->defs;
        opt.ndefs = defs->n;
    }
    san_model *m = san_model_load(t, l, &d, &opt);
    int ok = m != NULL;
    san_model_free(m);
    san_diag_free(&d);
    free(t);
    return ok;
}

san_model *cli_load_model_exprs(const char *path, cli_defines *defs, const char *const *names,
                                const char *const *exprs, int n, int *status, double max_input,
                                double max_memory)
{
    size_t len;
    char *text;
    int rc = cli_read_model(path, max_input, max_memory, &text, &len);
    if (rc != EXIT_OK) {
        *status = rc;
        return NULL;
    }
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    int variant = -1;
    for (int v = 0; v < 3 && variant < 0 && n > 0; v++)
        if (variant_fits(text, len, v, defs))
            variant = v;
    if (variant < 0) {          /* no expression, or the model itself is wrong */
        san_model *m = cli_load_text(name, text, len, defs, status, 0);
        free(text);
        return m;
    }
    size_t l;
    char *t = with_results(text, len, variant, names, exprs, n, &l);
    free(text);
    if (!t) {
        *status = EXIT_FAIL;
        return NULL;
    }
    san_model *m = cli_load_text(name, t, l, defs, status, 0);
    free(t);
    return m;
}

void cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':  fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

char *cli_sweep_label(const san_sweep *s, int v, int except)
{
    char *l = strdup("");
    for (int a = 0; l && a < s->spec.naxes; a++) {
        const san_sweep_axis *ax = &s->spec.axis[a];
        if (a == except || ax->nvalues < 2 || s->pick[v][a] < 0)
            continue;
        char *t;
        if (asprintf(&t, "%s%s%s=%s", l, *l ? ", " : "", ax->name, ax->values[s->pick[v][a]]) < 0)
            t = NULL;
        free(l);
        l = t;
    }
    if (l && !*l) {
        free(l);
        l = strdup(s->spec.tmpl ? s->spec.tmpl : "model");
    }
    return l;
}

int cli_stdout_errno;

int cli_names_stdout(const char *path)
{
    return !strcmp(path, "-") || !strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/fd/1")
        || !strcmp(path, "/proc/self/fd/1");
}

int cli_write_output(const char *path, int (*writer)(const void *ctx, FILE *out),
                     const void *ctx)
{
    int to_stdout = !path || !strcmp(path, "-");
    san_out *o = san_out_open(path);
    if (!o) {
        fprintf(stderr, "san: cannot write '%s': %s\n", to_stdout ? "-" : path, strerror(errno));
        return EXIT_FAIL;
    }
    /* a Ctrl-C during the write: the file is not wanted any more (one
     * before it, as in sweep, asked for what was done so far) */
    int was_interrupted = cli_interrupted();
    if (writer(ctx, san_out_file(o)) != 0) {
        san_out_discard(o);
        return EXIT_FAIL;
    }
    if (!was_interrupted && cli_interrupted()) {
        san_out_discard(o);
        fprintf(stderr, "san: interrupted; '%s' not written\n", to_stdout ? "-" : path);
        return EXIT_FAIL;
    }
    if (san_out_commit(o) != 0) {
        /* standard output: main() says it, once, when it closes it */
        if (to_stdout)
            cli_stdout_errno = errno;
        else
            fprintf(stderr, "san: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

int cli_exit_status(san_status st)
{
    switch (st) {
    case SAN_OK:
        return EXIT_OK;
    case SAN_E_MODEL:
    case SAN_E_USAGE:
    case SAN_E_LIMIT:
    case SAN_E_INPUT:
        return EXIT_USAGE;
    default:
        return EXIT_FAIL;
    }
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

san_model *cli_load_gen(const char *cmd, const char *gen, cli_defines *defs, int *status)
{
    char *copy = strdup(gen), **argv = NULL;
    int argc = copy ? split_words(copy, &argv) : 0;
    char err[512] = "";
    char *text = NULL;
    if (argc > 0)
        san_gen(argc, argv, &text, NULL, err, sizeof err);
    if (!text) {
        fprintf(stderr, "san %s: --gen: %s\n", cmd,
                argc > 0 ? err : "expected a template, e.g. 'ms --slaves 3'");
        free(copy);
        free(argv);
        *status = EXIT_USAGE;
        return NULL;
    }
    san_model *m = cli_load_text("<gen>", text, strlen(text), defs, status, 0);
    free(text);
    free(copy);
    free(argv);
    return m;
}

/* ------------------------------------------------------------------ */
/* Plots                                                                */
/* ------------------------------------------------------------------ */

void cli_plot_init(cli_plot *p)
{
    /* all 0: nothing given (san_plot_ex reads 0 as the default page) */
    memset(p, 0, sizeof *p);
}

int cli_plot_check(const char *cmd, const char *file, const cli_plot *p)
{
    const san_plot_opts *o = &p->look;
    const char *given = o->title ? "--title" : o->xlabel ? "--xlabel" : o->ylabel ? "--ylabel"
                      : o->legend_title ? "--legend-title" : o->logx ? "--logx"
                      : o->logy ? "--logy" : o->width ? "--size" : o->dpi ? "--dpi" : NULL;
    if (given && !file)
        return cli_usage_error(cmd, "%s: only with --plot FILE", given);
    return 0;
}

int cli_plot_table(const char *file, const cli_plot *p, int asked)
{
    return !file || p->table || asked;
}

int cli_plot_status(int rc)
{
    return rc == 0 ? EXIT_OK : rc == -2 ? EXIT_USAGE : EXIT_FAIL;
}
